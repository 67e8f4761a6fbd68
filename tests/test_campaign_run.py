"""Running campaigns: the tidy tables do not depend on where runs ran (--jobs
1, --jobs 2, Ray), and a campaign killed (SIGKILL) or interrupted (SIGINT)
part-way resumes to the same tables without running a finished run again."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import warnings

import ccbench
import pandas as pd
import pytest
from ccbench import directory_lock
from ccbench.campaigns import executors, report, spec, storage
from ccbench.campaigns import runner as campaign_runner
from ccbench.cli import app
from conftest import default_sigint

#: A campaign of one short run, for checks that refuse it before it runs.
ONE_RUN = (
    '[scenario]\nduration = "0.5s"\ndownlink = { rate = "5Mbit" }\nflows = [{ cc = "reno" }]\n'
    '[factors]\n"flows[0].cc" = ["reno"]\n'
)
SMALL = {
    "name": "small",
    "repetitions": 2,
    "seed": 3,
    "scenario": {
        "duration": "1s",
        "downlink": {"rate": "10Mbit", "delay": "10ms", "loss": {"model": "bernoulli", "p": 0.005}},
        "flows": [{"cc": "reno"}, {"cc": "reno", "size": "100KB"}],
    },
    "factors": {"flows[0].cc": ["reno", "cubic", "bbr"], "downlink.delay": ["10ms", "30ms"]},
}


def tidy_bytes(directory) -> dict[str, bytes]:
    return {n: (directory / n).read_bytes() for n in ("flows.parquet", "runs.parquet", "flows.csv", "runs.csv")}


def test_tables_are_bit_identical_with_one_and_two_processes(tmp_path):
    for jobs in (1, 2):
        campaign_runner.run(SMALL, tmp_path / f"j{jobs}", jobs=jobs)
    assert tidy_bytes(tmp_path / "j1") == tidy_bytes(tmp_path / "j2")
    data = ccbench.load(tmp_path / "j1")
    assert len(data.runs) == 3 * 2 * 2 and len(data.flows) == 2 * len(data.runs)
    assert list(data.runs.columns[:5]) == ["flows[0].cc", "downlink.delay", "rep", "seed", "run"]
    assert list(data.runs["flows[0].cc"]) == ["reno"] * 4 + ["cubic"] * 4 + ["bbr"] * 4
    assert set(data.index["status"]) == {"done"} and (data.index["completions"] == 1).all()


def test_preload_imports_while_the_workers_run_once_they_exist(tmp_path, monkeypatch):
    """The driver imports what comes next (the report's modules) while it waits,
    never before the pool has forked (a fork during an import could deadlock a
    worker); a module that fails to import is left to the caller."""
    import multiprocessing

    sys.modules.pop("tabnanny", None)
    workers_at_start = []
    start = campaign_runner._import_in_background

    def spy(modules):
        workers_at_start.append(len(multiprocessing.active_children()))
        return start(modules)

    monkeypatch.setattr(campaign_runner, "_import_in_background", spy)
    # The runner runs each condition's first repetition, then the others (campaigns.repeats), on one
    # pool: a second pool once forked after the import thread had started (and while a Ctrl-C could
    # land), and an interrupted campaign could hang (test_an_interrupted_campaign_resumes_to_identical_tables).
    forked_while_importing = []
    pool = executors.ProcessPoolExecutor

    def spy_pool(*args, **kwargs):
        forked_while_importing.append(bool(workers_at_start))
        return pool(*args, **kwargs)

    monkeypatch.setattr(executors, "ProcessPoolExecutor", spy_pool)
    done = campaign_runner.run(SMALL, tmp_path / "c", jobs=2, preload=("no_such_module_for_ccbench", "tabnanny"))
    assert done.executed == 12 and done.failed == 0
    assert workers_at_start == [2] and "tabnanny" in sys.modules
    assert forked_while_importing == [False]


def ray_or_skip():
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("Ray is required under CI (scripts/test installs ccbench[ray])")
        pytest.skip("Ray is not installed (pip install 'ccbench[ray]')")


def test_tables_from_ray_are_bit_identical_to_local(tmp_path):
    ray_or_skip()
    campaign_runner.run(SMALL, tmp_path / "local", jobs=2)
    campaign_runner.run(SMALL, tmp_path / "ray", jobs=2, executor="ray")
    assert tidy_bytes(tmp_path / "local") == tidy_bytes(tmp_path / "ray")
    workers = set(ccbench.load(tmp_path / "ray").index["worker"])
    assert len(workers) >= 1 and all(":" in w for w in workers)


def test_a_ray_address_where_nothing_listens_fails_fast_before_anything_is_written(tmp_path):
    """ray.init retried an unreachable cluster for minutes; the address is tried first. In a
    subprocess with a timeout, so a regression fails instead of hanging the suite."""
    import socket

    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    f = tmp_path / "c.toml"
    f.write_text(ONE_RUN)
    out = tmp_path / "out"
    args = ["campaign", str(f), "--out", str(out), "--executor", "ray", "--address", f"127.0.0.1:{port}"]
    done = subprocess.run(
        [sys.executable, "-m", "ccbench.cli", *args], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: --address 127.0.0.1:{port}: no Ray cluster answers there (")
    assert done.stderr.count("\n") == 1 and done.stdout == ""
    assert not out.exists() and not (tmp_path / ".out.lock").exists()


@pytest.mark.parametrize("command", ["campaign", "compare"])
def test_ray_not_installed_is_refused_before_anything_is_written(tmp_path, runner, monkeypatch, command):
    """The campaign directory was written, then the executor failed to import Ray."""
    from ccbench.campaigns import executors

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    f = tmp_path / "c.toml"
    f.write_text(ONE_RUN)
    out = tmp_path / "out"
    given = [str(f)] if command == "campaign" else ["--quick", "--reps", "1", "--algorithms", "reno"]
    result = runner.invoke(app, [command, *given, "--out", str(out), "--executor", "ray"])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {executors.RAY_MISSING}\n" and result.stdout == ""
    assert "pip install 'ccbench[ray]'" in executors.RAY_MISSING
    assert not out.exists() and not (tmp_path / ".out.lock").exists()
    with pytest.raises(executors.RayUnavailableError, match="Ray is not installed"):
        campaign_runner.run(f, out, executor="ray")
    assert not out.exists()


def test_ray_addresses_that_ray_resolves_itself_are_left_to_it():
    from ccbench.campaigns import executors

    for address in ("auto", "local", "ray://127.0.0.1:1"):
        executors.check_address(address, timeout_s=0.1)  # nothing tried: Ray defines these
    with pytest.raises(executors.ClusterAddressError, match="not an address of a Ray cluster"):
        executors.check_address("127.0.0.1")
    import socket

    with socket.socket() as server:  # something listening passes
        server.bind(("127.0.0.1", 0))
        server.listen()
        executors.check_address(f"127.0.0.1:{server.getsockname()[1]}")


def test_rerun_skips_finished_runs_and_another_file_is_refused(tmp_path):
    out = tmp_path / "out"
    first = campaign_runner.run(SMALL, out, jobs=1)
    assert first.executed == 12
    again = campaign_runner.run(SMALL, out, jobs=1)
    assert again.executed == 0 and again.skipped == 12
    grown = {**SMALL, "repetitions": 3}
    with pytest.raises(storage.CampaignDirectoryError, match="another campaign file"):
        campaign_runner.run(grown, out, jobs=1)
    more = campaign_runner.run(grown, out, jobs=1, force=True)
    assert more.executed == 6 and more.skipped == 12  # the new repetition only
    idx = ccbench.load(out).index
    assert len(idx) == 18 and (idx["completions"] == 1).all()
    # a level dropped with --force: its runs leave the index, the tables and the directory
    fewer = {**grown, "factors": {**SMALL["factors"], "flows[0].cc": ["reno", "cubic"]}}
    kept = campaign_runner.run(fewer, out, jobs=1, force=True)
    assert kept.executed == 0 and kept.skipped == 12
    assert len(list((out / "runs").glob("*.arrow"))) == 12
    assert len(list((out / "tables").iterdir())) == 2 * 2  # repetition 0 of each combination
    assert set(ccbench.load(out).runs["flows[0].cc"]) == {"reno", "cubic"}


def test_progress_names_the_runs_to_do_and_each_finished_one(tmp_path):
    """What the expected running time is measured from (campaigns.estimate):
    the runs this session runs, and each finished one's worker and end by its
    worker's clock, as the index records them."""
    out = tmp_path / "out"
    seen = []
    campaign_runner.run(SMALL, out, jobs=2, on_progress=lambda p: seen.append((p.todo, list(p.finished), p.done)))
    todo, finished, done = seen[-1]
    index = ccbench.load(out).index.set_index("key")
    assert set(todo) == set(index.index) and len(todo) == 12 and done == 12
    assert sorted(k for k, _, _ in finished) == sorted(todo)
    for key, worker, finished_at in finished:
        assert (worker, finished_at) == (index.at[key, "worker"], index.at[key, "finished_at"])
    assert all(len(f) == d for _, f, d in seen)  # each report lists every run counted as done
    seen.clear()
    rest = {**SMALL, "repetitions": 3}
    campaign_runner.run(
        rest, out, jobs=1, force=True, on_progress=lambda p: seen.append((p.todo, list(p.finished), p.done))
    )
    todo, finished, done = seen[-1]
    assert len(todo) == 6 and sorted(k for k, _, _ in finished) == sorted(todo) and done == 18


def test_a_long_campaign_prints_its_expected_running_time(tmp_path, runner, monkeypatch):
    """`ccbench campaign` prints the line a study's whole design prints when its
    runs take LONG_CAMPAIGN_S or more (to a log file the bar shows only at the
    end); shorter, it keeps quiet. The thresholds are lowered so that a
    campaign of a few short runs is measured at once."""
    from ccbench.campaigns import estimate
    from ccbench.cli import campaign as campaign_cli

    f = tmp_path / "c.toml"
    f.write_text(ONE_RUN.replace('["reno"]', '["reno", "cubic", "vegas", "bbr", "westwood"]'))
    monkeypatch.setattr(estimate, "MIN_WINDOW_S", 0.0)
    for long_s, printed in ((0.0, True), (1e9, False)):
        monkeypatch.setattr(campaign_cli, "LONG_CAMPAIGN_S", long_s)
        out = tmp_path / f"out-{printed}"
        result = runner.invoke(app, ["campaign", str(f), "--out", str(out), "--jobs", "1"], terminal_width=200)
        assert result.exit_code == 0, result.output
        assert ("expected running time: about" in result.output) == printed, result.output


def test_a_directory_whose_run_files_are_parquet_resumes_to_the_same_tables(tmp_path):
    """Run files were Parquet before 2 Dec 2026 (runs/KEY.parquet): such a
    directory still assembles its tidy tables, resumes, and a level dropped
    with --force removes its old files too."""
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    campaign_runner.run(SMALL, out, jobs=1)
    expected = tidy_bytes(out)
    for path in (out / "runs").glob("*.arrow"):
        # As an older ccbench wrote them: Parquet, whose bytes the index's result_hash is of.
        pq.write_table(storage.table_of_arrow_file(path.read_bytes()), path.with_suffix(".parquet"))
        digest = hashlib.blake2b(path.with_suffix(".parquet").read_bytes(), digest_size=16).hexdigest()
        with sqlite3.connect(out / "index.sqlite") as db:
            db.execute("UPDATE runs SET result_hash=? WHERE key=?", (digest, path.stem))
        path.unlink()
    for name in expected:
        (out / name).unlink()
    with storage.Index(out) as idx:  # one run not finished yet: the resume runs it and reads the others
        key = idx.frame()["key"].iloc[0]
    with sqlite3.connect(out / "index.sqlite") as db:
        db.execute("UPDATE runs SET status='pending' WHERE key=?", (key,))
    (out / "runs" / f"{key}.parquet").unlink()
    again = campaign_runner.run(SMALL, out, jobs=1)
    assert again.executed == 1 and again.skipped == 11
    assert tidy_bytes(out) == expected
    fewer = {**SMALL, "factors": {**SMALL["factors"], "flows[0].cc": ["reno"]}}
    campaign_runner.run(fewer, out, jobs=1, force=True)
    assert len(list((out / "runs").glob("*.parquet"))) + len(list((out / "runs").glob("*.arrow"))) == 4


def test_cli_refuses_another_campaign_in_a_directory(tmp_path, runner):
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    body = '[scenario]\nduration = "0.5s"\ndownlink = { rate = "5Mbit", delay = "5ms" }\nflows = [{ cc = "reno" }]\n'
    a.write_text(body + '[factors]\n"flows[0].cc" = ["reno", "cubic"]\n')
    b.write_text(body + '[factors]\n"flows[0].cc" = ["reno", "vegas"]\n')
    out = tmp_path / "out"
    ok = runner.invoke(app, ["campaign", str(a), "--out", str(out), "--jobs", "1"], terminal_width=200)
    assert ok.exit_code == 0, ok.output
    assert "Report:" in ok.output and "runs:" in ok.output
    refused = runner.invoke(app, ["campaign", str(b), "--out", str(out), "--jobs", "1"], terminal_width=200)
    assert refused.exit_code == 2
    assert "another campaign file" in refused.output and "--force" in refused.output
    assert refused.output.startswith("error: ") and refused.output.count("\n") == 1  # no progress bar before it
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    other = runner.invoke(app, ["campaign", str(a), "--out", str(tmp_path / "other")], terminal_width=200)
    assert (
        other.exit_code == 2
        and other.output
        == f"error: {tmp_path / 'other'} exists and is not a campaign directory; choose another --out\n"
    )
    forced = runner.invoke(app, ["campaign", str(b), "--out", str(out), "--jobs", "1", "--force"], terminal_width=200)
    assert forced.exit_code == 0, forced.output
    assert "1 run now, 1 already done" in forced.output


@pytest.mark.parametrize("command", ["campaign", "study", "compare"])
def test_address_without_ray_is_refused_before_anything_is_written(tmp_path, runner, command):
    """--address names a Ray cluster; with the local executor it was ignored and the runs went local."""
    f = tmp_path / "c.toml"
    f.write_text(ONE_RUN)
    out = tmp_path / "out"
    first = {"campaign": [str(f)], "study": ["umts", "--quick"], "compare": ["--algorithms", "reno", "--reps", "1"]}
    args = [command, *first[command], "--out", str(out), "--jobs", "1", "--address", "10.0.0.1:6379"]
    result = runner.invoke(app, args, terminal_width=200)
    assert result.exit_code == 2
    assert result.output == "error: --address: only with --executor ray (the Ray cluster to run on); not with local\n"
    assert not out.exists() and not (tmp_path / ".out.lock").exists()


def test_an_edited_campaign_file_is_refused_naming_the_change(tmp_path, runner):
    f = tmp_path / "c1.toml"
    f.write_text(
        '[scenario]\nduration = "0.5s"\ndownlink = { rate = "5Mbit" }\nflows = [{ cc = "reno" }]\n'
        '[factors]\n"flows[0].cc" = ["reno", "cubic"]\n'
    )
    out = tmp_path / "out"
    args = ["campaign", str(f), "--out", str(out), "--jobs", "1"]
    assert runner.invoke(app, args).exit_code == 0
    f.write_text(f.read_text() + "# a comment\n")
    refused = runner.invoke(app, args, terminal_width=300)
    assert refused.exit_code == 2
    assert refused.output.startswith(f"error: {f} changed since {out} was written (any edit counts, a comment too)")
    assert "another campaign file" not in refused.output and "--force" in refused.output
    forced = runner.invoke(app, [*args, "--force"], terminal_width=200)
    assert forced.exit_code == 0 and "0 run now, 2 already done" in forced.output


QUICK = """
name = "with a quick form"
repetitions = 3
[scenario]
duration = "1s"
downlink = { rate = "5Mbit", delay = "5ms" }
flows = [{ cc = "reno" }]
[factors]
"flows[0].cc" = ["reno", "cubic", "bbr"]
[quick]
repetitions = 1
time_scale = 0.5
levels = { "flows[0].cc" = ["reno", "cubic"] }
"""


def test_the_report_command_resumes_a_quick_form_and_the_full_design_is_refused(tmp_path, runner):
    """The report's command reruns the file saved in the directory with
    --quick; that file without --quick is the full design, which is refused
    (it would replace the quick results), as is --quick into a full design."""
    f = tmp_path / "q.toml"
    f.write_text(QUICK)
    out = tmp_path / "out"
    quick = runner.invoke(app, ["campaign", str(f), "--quick", "--out", str(out), "--jobs", "1"], terminal_width=200)
    assert quick.exit_code == 0, quick.output
    command = "ccbench campaign DIR/campaign.toml --out DIR --quick"
    assert f"<code>{command}</code>" in (out / "report.html").read_text()
    args = command.replace("DIR", str(out)).split()[1:]
    again = runner.invoke(app, [*args, "--jobs", "1"], terminal_width=200)
    assert again.exit_code == 0, again.output
    assert "0 run now, 2 already done" in again.output
    full = runner.invoke(app, [*args[:-1], "--jobs", "1"], terminal_width=300)
    assert full.exit_code == 2
    assert full.output.startswith(f"error: {out} holds the quick form of this campaign (--quick), not its full design")
    assert len(ccbench.load(out).index) == 2
    whole = tmp_path / "whole"
    assert runner.invoke(app, ["campaign", str(f), "--out", str(whole), "--jobs", "2"]).exit_code == 0
    refused = runner.invoke(app, ["campaign", str(f), "--quick", "--out", str(whole)], terminal_width=300)
    assert refused.exit_code == 2 and "holds the full design of this campaign, not its quick form" in refused.output


def test_quick_on_a_file_without_a_quick_table_says_what_it_runs(tmp_path, runner):
    f = tmp_path / "plain.toml"
    f.write_text(QUICK.split("[quick]")[0])
    out = tmp_path / "out"
    result = runner.invoke(app, ["campaign", str(f), "--quick", "--out", str(out), "--jobs", "1"], terminal_width=300)
    assert result.exit_code == 0, result.output
    assert f"note: {f} has no [quick] table: --quick runs its full design with 1 repetition" in result.output
    assert len(ccbench.load(out).index) == 3  # the three levels, once each (the file asks for 3 repetitions)
    q = tmp_path / "q.toml"
    q.write_text(QUICK)
    with_table = runner.invoke(app, ["campaign", str(q), "--quick", "--out", str(tmp_path / "q"), "--jobs", "1"])
    assert with_table.exit_code == 0 and "no [quick] table" not in with_table.output


def test_the_base_file_is_saved_in_the_directory_and_an_edited_one_is_refused(tmp_path, runner):
    (tmp_path / "path.toml").write_text(
        'duration = "0.5s"\ndownlink = { rate = "5Mbit", delay = "5ms" }\nflows = [{ cc = "reno" }]\n'
    )
    f = tmp_path / "c1.toml"
    f.write_text('name = "c1"\nbase = "path.toml"  # the path\n[factors]\n"flows[0].cc" = ["reno", "cubic"]\n')
    out = tmp_path / "out"
    args = ["--out", str(out), "--jobs", "1"]
    assert runner.invoke(app, ["campaign", str(f), *args]).exit_code == 0
    assert (out / "base.toml").read_text() == (tmp_path / "path.toml").read_text()
    assert (out / "campaign.toml").read_text() == f.read_text().replace('"path.toml"', '"base.toml"')
    for file in (out / "campaign.toml", f):  # the report's command, and the file given: the same campaign
        again = runner.invoke(app, ["campaign", str(file), *args], terminal_width=200)
        assert again.exit_code == 0 and "0 run now, 2 already done" in again.output, again.output
    (tmp_path / "path.toml").write_text((tmp_path / "path.toml").read_text().replace("5ms", "7ms"))
    refused = runner.invoke(app, ["campaign", str(f), *args], terminal_width=300)
    assert refused.exit_code == 2
    assert refused.output.startswith(f"error: the base scenario path.toml changed since {out} was written")
    forced = runner.invoke(app, ["campaign", str(f), *args, "--force"], terminal_width=200)
    assert forced.exit_code == 0 and "2 run now, 0 already done" in forced.output
    assert "7ms" in (out / "base.toml").read_text()


def test_a_directory_written_before_the_base_was_saved_resumes_with_the_same_file(tmp_path):
    (tmp_path / "path.toml").write_text('duration = "0.5s"\ndownlink = { rate = "5Mbit" }\nflows = [{ cc = "reno" }]\n')
    f = tmp_path / "c1.toml"
    f.write_text('base = "path.toml"\n[factors]\n"flows[0].cc" = ["reno", "cubic"]\n')
    out = tmp_path / "out"
    campaign_runner.run(f, out, jobs=1)
    with sqlite3.connect(out / storage.INDEX) as db:  # as an earlier ccbench wrote it: the file's text, no base
        db.execute("DELETE FROM meta WHERE key = 'base_hash'")
        db.execute("UPDATE meta SET value = ? WHERE key = 'campaign_text'", (f.read_text(),))
        db.execute("UPDATE meta SET value = ? WHERE key = 'campaign_hash'", (spec.text_hash(f.read_text()),))
    again = campaign_runner.run(f, out, jobs=1)
    assert again.executed == 0 and again.skipped == 2


# A campaign long enough to be stopped part-way: 96 runs of a few tens of ms each.
LONG = """
name = "long enough to interrupt"
repetitions = 8
seed = 5
keep_tables = "none"
[scenario]
duration = "4s"
downlink = { rate = "20Mbit", delay = "20ms", loss = { model = "bernoulli", p = 0.002 } }
flows = [{ cc = "reno" }]
[factors]
"flows[0].cc" = ["reno", "cubic", "bbr", "vegas"]
"downlink.rate" = ["10Mbit", "20Mbit", "30Mbit"]
"""


@pytest.fixture(scope="module")
def long_reference(tmp_path_factory):
    """LONG run to the end in one go: what an interrupted and resumed LONG must reach."""
    folder = tmp_path_factory.mktemp("long")
    (folder / "long.toml").write_text(LONG)
    campaign_runner.run(folder / "long.toml", folder / "reference", jobs=2)
    return folder / "reference"


def _start(campaign_file, out):
    return subprocess.Popen(
        [sys.executable, "-m", "ccbench.cli", "campaign", str(campaign_file), "--out", str(out), "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=default_sigint,
    )


def _done_runs(out) -> dict[str, float]:
    path = out / storage.INDEX
    if not path.exists():
        return {}
    try:
        with sqlite3.connect(path, timeout=30) as db:
            return dict(db.execute("SELECT key, finished_at FROM runs WHERE status = 'done'"))
    except sqlite3.OperationalError:
        return {}


def _interrupt_part_way(campaign_file, out, sig) -> tuple[subprocess.CompletedProcess, dict]:
    proc = _start(campaign_file, out)
    while len(_done_runs(out)) < 10 and proc.poll() is None:
        time.sleep(0.02)
    os.killpg(proc.pid, sig)  # the whole process group, as a terminal's Ctrl-C (or a crash) would
    stdout, stderr = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), _done_runs(out)


#: A pool whose one worker is stopped half-way through sending a result (it writes a
#: message's header and a part of it, as a worker terminated mid-send leaves it), while
#: batches too big for the call pipe wait behind it: then LocalExecutor.stop, and exit.
HALF_SENT = r"""
import os, struct, sys, time
from concurrent.futures import ProcessPoolExecutor
from ccbench.campaigns import executors

def half_a_result(marker):
    frame = sys._getframe()
    while "result_queue" not in frame.f_locals:
        frame = frame.f_back
    queue = frame.f_locals["result_queue"]
    queue._wlock.acquire()
    os.write(queue._writer.fileno(), struct.pack("!i", 1 << 20) + b"x" * 100)
    open(marker, "w").close()
    time.sleep(600)

def nothing(data):
    return len(data)

marker = sys.argv[1]
ex = executors.LocalExecutor(1)
ex.pool = ProcessPoolExecutor(max_workers=1, initializer=executors._ignore_sigint, initargs=(os.getpid(),))
ex.pool.submit(half_a_result, marker)
for _ in range(3):
    ex.pool.submit(nothing, b"y" * (1 << 20))
while not os.path.exists(marker):
    time.sleep(0.01)
time.sleep(0.5)
ex.stop()
print("stopped", flush=True)
"""


def test_stopping_workers_mid_send_lets_the_driver_exit(tmp_path):
    """Ctrl-C stops the workers at once: one may be sending its result. The
    driver used to hang at exit (its pool's manager thread waiting for the
    rest of the message): seen once in CI as the interrupted campaign below
    printing its message and never exiting."""
    done = subprocess.run(
        [sys.executable, "-c", HALF_SENT, str(tmp_path / "marker")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout == "stopped\n", done.stderr


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_an_interrupted_campaign_resumes_to_identical_tables(tmp_path, sig, long_reference):
    f = tmp_path / "long.toml"
    f.write_text(LONG)
    reference = long_reference

    out = tmp_path / "out"
    stopped, done_before = _interrupt_part_way(f, out, sig)
    assert 10 <= len(done_before) < 96, "the campaign must be stopped part-way"
    if sig == signal.SIGINT:
        assert stopped.returncode == 130, stopped.stderr
        assert "resume with: ccbench campaign" in stopped.stderr and str(out) in stopped.stderr
        with sqlite3.connect(out / storage.INDEX) as db:
            assert db.execute("SELECT count(*) FROM runs WHERE status = 'running'").fetchone()[0] == 0
    else:
        assert stopped.returncode == -signal.SIGKILL

    resumed = subprocess.run(
        [sys.executable, "-m", "ccbench.cli", "campaign", str(f), "--out", str(out), "--jobs", "2"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(done_before)} already done" in resumed.stdout.replace("\n", " ")
    assert tidy_bytes(out) == tidy_bytes(reference)
    index = ccbench.load(out).index.set_index("key")
    assert (index["status"] == "done").all() and (index["completions"] == 1).all()
    # a run finished before the interruption was not run again
    for key, finished in done_before.items():
        assert index.loc[key, "attempts"] == 1 and index.loc[key, "finished_at"] == finished


def test_an_interrupted_campaign_reports_its_finished_runs_and_resumes_to_the_full_report(
    tmp_path, runner, long_reference
):
    """`ccbench report` of a campaign stopped part-way is of its finished runs
    and says so (page and terminal) with the command that finishes it; it
    writes no tidy table, and the resumed campaign runs only the rest and
    ends with the same tables and report as one never stopped."""
    f = tmp_path / "long.toml"
    f.write_text(LONG)
    out = tmp_path / "out"
    _, done_before = _interrupt_part_way(f, out, signal.SIGINT)
    n = len(done_before)
    assert 10 <= n < 96, "the campaign must be stopped part-way"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no NaN warning for what did not run yet
        partial = runner.invoke(app, ["report", str(out)], terminal_width=400)
    assert partial.exit_code == 0, partial.output
    said = f"partial: {n} of 96 runs finished"
    assert partial.stderr == (
        f"{said} (the campaign was stopped, or is still running); this report is of those "
        f"runs only; finish the campaign with: ccbench campaign {out}/campaign.toml --out {out}\n"
    )
    html = (out / "report.html").read_text()
    top = html[: html.index("<h2>Recommendations</h2>")]
    assert f'<p class="partial">{said}' in top and "ccbench campaign DIR/campaign.toml --out DIR" in top
    assert not (out / "runs.parquet").exists() and not (out / "flows.parquet").exists()
    data = ccbench.load(out)
    assert data.partial and (data.finished, data.planned) == (n, 96) and set(data.runs["run"]) == set(done_before)
    # every planned condition is in the report: those without a finished run say so
    recs = report.recommendations(out)
    rates_done = set(data.runs["downlink.rate"])
    assert [r["levels"]["downlink.rate"] for r in recs] == [
        *[r for r in ("10Mbit", "20Mbit", "30Mbit") if r in rates_done],
        *[r for r in ("10Mbit", "20Mbit", "30Mbit") if r not in rates_done],
    ]
    waiting = [r for r in recs if r["levels"]["downlink.rate"] not in rates_done]
    assert all(r["pick"] is None and r["no_pick"] == report.NOT_FINISHED for r in waiting)
    assert html.count(f"No pick: {report.NOT_FINISHED} under these conditions.") == len(waiting)

    resumed = runner.invoke(app, ["campaign", str(f), "--out", str(out), "--jobs", "2"], terminal_width=200)
    assert resumed.exit_code == 0, resumed.output
    assert f"{96 - n} run now, {n} already done" in resumed.output
    assert tidy_bytes(out) == tidy_bytes(long_reference)
    index = ccbench.load(out).index.set_index("key")
    assert (index["status"] == "done").all() and (index["completions"] == 1).all()
    for key, finished in done_before.items():
        assert index.loc[key, "attempts"] == 1 and index.loc[key, "finished_at"] == finished
    report.build(long_reference)
    assert report.recommendations(out) == report.recommendations(long_reference)
    assert sorted(p.name for p in (out / "plots").iterdir()) == sorted(
        p.name for p in (long_reference / "plots").iterdir()
    )
    final = (out / "report.html").read_text()
    assert '<p class="partial">' not in final and "runs finished" not in final and "96 runs; compared" in final


def test_a_report_of_a_running_campaign_leaves_its_lock_and_tables_alone(tmp_path, runner):
    """A report while the campaign runs in another process is of the runs
    finished so far; it neither needs nor takes the directory's lock, and
    writes no tidy table (the campaign writes them when it completes)."""
    f = tmp_path / "long.toml"
    # Still running once the report is drawn: 480 runs of 40 s (of 4 s, the last of them could finish
    # while a report on a loaded CI machine was being drawn, which then was complete, not partial).
    f.write_text(LONG.replace("repetitions = 8", "repetitions = 40").replace('duration = "4s"', 'duration = "40s"'))
    out = tmp_path / "out"
    running = _start(f, out)
    while len(_done_runs(out)) < 5 and running.poll() is None:
        time.sleep(0.02)
    try:
        result = runner.invoke(app, ["report", str(out)], terminal_width=400)
        assert result.exit_code == 0, result.output
        assert re.match(r"partial: \d+ of 480 runs finished ", result.stderr), result.stderr
        assert running.poll() is None, "the campaign must still be running"
        with pytest.raises(directory_lock.Busy):
            os.close(directory_lock.acquire(out.resolve()))
        assert not (out / "runs.parquet").exists() and not (out / "flows.parquet").exists()
    finally:
        os.killpg(running.pid, signal.SIGKILL)
        running.communicate(timeout=120)


def test_load_of_an_unfinished_campaign_is_its_finished_runs_not_older_tables(tmp_path):
    out = tmp_path / "out"
    campaign_runner.run(SMALL, out, jobs=2)
    complete = ccbench.load(out)
    with sqlite3.connect(out / storage.INDEX) as db:  # as a --force rerun adding runs leaves it when stopped
        db.execute("UPDATE runs SET status = 'pending' WHERE rep = 1")
        db.execute("UPDATE runs SET status = 'running' WHERE rep = 0 AND levels LIKE '%bbr%'")
    data = ccbench.load(out)
    assert data.partial and (data.finished, data.planned) == (4, 12)
    assert repr(data).endswith("4 runs, 8 flows, partial: 4 of 12 runs finished)")
    kept = complete.runs["rep"].eq(0) & complete.runs["flows[0].cc"].ne("bbr")
    pd.testing.assert_frame_equal(data.runs, complete.runs[kept].reset_index(drop=True))
    kept_flows = complete.flows["run"].isin(complete.runs[kept]["run"])
    pd.testing.assert_frame_equal(data.flows, complete.flows[kept_flows].reset_index(drop=True))


def test_a_report_drawn_while_its_campaign_finishes_is_the_full_report(tmp_path, monkeypatch):
    """A partial report never overwrites the report (and figures) of a
    campaign that finished while it was drawn: it draws the full one."""
    out = tmp_path / "out"
    campaign_runner.run(SMALL, out, jobs=2)
    with sqlite3.connect(out / storage.INDEX) as db:
        db.execute("UPDATE runs SET status = 'running' WHERE rep = 1")
    draw = report._sections

    def finishing(data, *args, **kwargs):
        sections = draw(data, *args, **kwargs)
        if data.partial:  # the campaign records its last runs meanwhile
            with sqlite3.connect(out / storage.INDEX) as db:
                db.execute("UPDATE runs SET status = 'done'")
        return sections

    monkeypatch.setattr(report, "_sections", finishing)
    told = []
    report.build(out, on_partial=told.append)
    html = (out / "report.html").read_text()
    assert told == [] and '<p class="partial">' not in html and "12 runs; compared" in html


def test_a_partial_report_drawn_in_processes_is_the_one_drawn_in_one(tmp_path):
    """The processes drawing the conditions' figures use the campaign the page
    was built from, not the directory read again (where a running campaign's
    runs grow), so a partial report is the same drawn either way."""
    out = tmp_path / "out"
    campaign_runner.run(SMALL, out, jobs=2)
    with sqlite3.connect(out / storage.INDEX) as db:
        db.execute("UPDATE runs SET status = 'running' WHERE rep = 1")
    pages = []
    for jobs in (1, 2):
        report.build(out, jobs=jobs)
        pages.append((out / "report.html").read_bytes())
    assert b'<p class="partial">' in pages[0] and pages[0] == pages[1]


def test_a_second_campaign_into_a_running_directory_is_refused(tmp_path, runner):
    """The directory's lock (the one `ccbench run` takes) refuses a second
    campaign at once, even with another file and --force; a kill -9 of the
    first releases it."""
    f, other = tmp_path / "long.toml", tmp_path / "other.toml"
    f.write_text(LONG)
    other.write_text(LONG.replace("repetitions = 8", "repetitions = 9"))
    out = tmp_path / "out"
    first = _start(f, out)
    while len(_done_runs(out)) < 2 and first.poll() is None:
        time.sleep(0.02)
    try:
        for args in ([str(f)], [str(other), "--force"]):
            refused = runner.invoke(app, ["campaign", *args, "--out", str(out), "--jobs", "1"], terminal_width=200)
            assert refused.exit_code == 2, refused.output
            assert refused.output == f"error: another ccbench campaign is running in {out}\n"
        with pytest.raises(storage.CampaignDirectoryError, match="another ccbench campaign is running"):
            ccbench.campaign(SMALL, out=out, jobs=1)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.communicate(timeout=120)
    resumed = runner.invoke(app, ["campaign", str(f), "--out", str(out), "--jobs", "2"], terminal_width=200)
    assert resumed.exit_code == 0, resumed.output
    index = ccbench.load(out).index
    assert len(index) == 96 and (index["completions"] == 1).all()


def test_a_locked_campaign_directory_is_refused_before_anything_is_written(tmp_path):
    import fcntl

    out = tmp_path / "out"
    with open(tmp_path / ".out.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with pytest.raises(storage.CampaignDirectoryError, match="another ccbench campaign is running"):
            campaign_runner.run(SMALL, out, jobs=1)
    assert not out.exists()


@pytest.mark.parametrize("where", ["a file", "/proc/ccbench-no-such-dir"])
def test_an_out_that_cannot_be_a_directory_is_one_error_line(tmp_path, runner, where):
    f = tmp_path / "small.toml"
    f.write_text(ONE_RUN)
    out = tmp_path / "a file" if where == "a file" else where
    if where == "a file":
        out.write_text("keep me")
    result = runner.invoke(app, ["campaign", str(f), "--out", str(out), "--jobs", "1"], terminal_width=200)
    assert result.exit_code == 2, result.output
    reason = "exists and is not a directory" if where == "a file" else "cannot use the campaign directory"
    assert result.output.splitlines()[-1].startswith("error: ") and reason in result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, OSError)
    if where == "a file":
        assert out.read_text() == "keep me" and not (tmp_path / ".a file.lock").exists()


def test_api_campaign_and_load(tmp_path):
    data = ccbench.campaign(SMALL, out=tmp_path / "api", jobs=1)
    assert (tmp_path / "api" / "report.html").exists()
    assert isinstance(data.runs, pd.DataFrame) and len(data.runs) == 12
    assert data.factors == ["flows[0].cc", "downlink.delay"]
    assert "flows[0].cc" in data.text
    loaded = ccbench.load(tmp_path / "api")
    pd.testing.assert_frame_equal(loaded.flows, data.flows)


NOISY = """
name = "noisy"
repetitions = 2
seed = 4
[scenario]
duration = "2s"
downlink = { rate = "10Mbit", delay = "20ms", loss = { model = "bernoulli", p = 0.01 } }
flows = [{ cc = "reno" }]
[factors]
"flows[0].cc" = ["reno", "cubic", "bbr"]
"""


def test_until_decided_adds_repetitions_and_a_plain_rerun_keeps_them(tmp_path, runner, monkeypatch):
    f = tmp_path / "noisy.toml"
    f.write_text(NOISY)
    out = tmp_path / "out"
    args = ["campaign", str(f), "--out", str(out), "--jobs", "2"]
    planned = []  # each combination's scenario is checked once a round, never a run again in a later round
    load = spec.load_scenario
    monkeypatch.setattr(spec, "load_scenario", lambda *a, **k: planned.append(k["seed"]) or load(*a, **k))
    first = runner.invoke(app, args + ["--until-decided", "--max-reps", "4"], terminal_width=200)
    assert first.exit_code == 0, first.output
    index = ccbench.load(out).index
    monkeypatch.undo()
    reps = int(index["rep"].max()) + 1
    assert len(set(planned)) == len(planned) and set(planned) <= set(index["seed"].tolist())
    assert len(planned) <= 3 * (reps - 1)  # three combinations; rounds: the first, then one per repetition added
    recs = __import__("json").loads((out / "recommendations.json").read_text())
    assert 2 < reps <= 4 and (recs[0]["decided"] or reps == 4)  # two repetitions cannot decide this one
    assert (index["completions"] == 1).all()
    # the summary counts every round, not the last one's new runs
    assert f"{len(index)} runs: {len(index)} run now, 0 already done, 0 failed, in " in first.output
    assert " over 2 rounds" in first.output or " over 3 rounds" in first.output
    tables = tidy_bytes(out)
    again = runner.invoke(app, args, terminal_width=200)
    assert again.exit_code == 0, again.output
    assert "0 run now" in again.output
    assert tidy_bytes(out) == tables


def test_report_is_rebuilt_from_saved_results_with_another_objective(tmp_path, runner):
    out = tmp_path / "out"
    campaign_runner.run(SMALL, out, jobs=1)
    (out / "runs").rename(tmp_path / "moved")  # the report needs only the tidy tables and the index
    result = runner.invoke(app, ["report", str(out), "--objective", "latency", "--margin", "0.1"], terminal_width=200)
    assert result.exit_code == 0, result.output
    html = (out / "report.html").read_text()
    assert "objective: latency" in html and "margin 10%" in html
    assert html.count('<div class="pick">Pick <b>') == 2  # two delays: the conditions
    bad = runner.invoke(app, ["report", str(tmp_path / "moved")], terminal_width=200)
    assert bad.exit_code == 2 and "not a campaign directory" in bad.output
    bad = runner.invoke(app, ["report", str(out), "--compare", "nope"], terminal_width=200)
    assert bad.exit_code == 2 and "not a factor" in bad.output


def test_report_draws_in_all_cores_by_default_the_page_one_process_draws(tmp_path, runner):
    out = tmp_path / "out"
    campaign_runner.run(SMALL, out, jobs=1)
    pages = []
    for jobs in (["--jobs", "1"], []):
        result = runner.invoke(app, ["report", str(out), *jobs], terminal_width=200)
        assert result.exit_code == 0, result.output
        pages.append((out / "report.html").read_bytes())
    assert pages[0] == pages[1]
    bad = runner.invoke(app, ["report", str(out), "--jobs", "0"], terminal_width=200)
    assert bad.exit_code == 2 and "--jobs: 0 is not allowed" in bad.output


def test_a_rebuilt_report_leaves_no_figure_of_the_report_before(tmp_path, runner):
    """Comparing another factor gives other conditions: the figures of the old ones went stale in plots/."""
    from ccbench.campaigns import figures

    out = tmp_path / "out"
    campaign_runner.run(SMALL, out, jobs=1)
    assert runner.invoke(app, ["report", str(out), "--compare", "downlink.delay"]).exit_code == 0  # 3 conditions
    first = {p.name for p in (out / "plots").glob("*.png")}
    (out / "plots" / "notes.png").write_bytes(b"mine")
    again = runner.invoke(app, ["report", str(out)], terminal_width=200)  # flows[0].cc: 2 conditions
    assert again.exit_code == 0, again.output
    now = {p.name for p in (out / "plots").glob("*.png")}
    assert any(n.startswith("c2_") for n in first) and not any(n.startswith("c2_") for n in now)  # the 3rd's
    assert now == {*(out / "plots" / figures.WRITTEN).read_text().split(), "notes.png"}
