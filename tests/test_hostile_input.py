"""Careless and hostile input: every bad file or argument gets one clean error
line (exit 2) before anything runs or any file is written; output paths stay
under the run's output directory; trace files are read safely."""

from __future__ import annotations

import json
import os
import textwrap

import pytest
from ccbench.cli import app
from conftest import default_sigint

BACKGROUND = """
name = "background"
duration = "3s"
[downlink]
rate = "10Mbit"
delay = "20ms"
[[flows]]
cc = "cubic"
[background]
kind = "poisson-web"
load = 0.3
transport = "tcp"
cc = "cubic"
"""


def write(tmp_path, text: str, name: str = "s.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def invoke(runner, *args):
    return runner.invoke(app, [str(a) for a in args], terminal_width=250)


def one_error_line(result) -> str:
    """The single `error: ...` line of a clean refusal (exit 2, no traceback)."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


@pytest.mark.parametrize(
    "scenario",
    [
        BACKGROUND,
        'name = "edge"\nduration = "3s"\nprofile = { name = "lte-edge", load = "evening" }\n[[flows]]\ncc = "cubic"\n',
    ],
    ids=["tcp-background", "profile-with-load"],
)
def test_run_with_tcp_background_traffic_writes_results_and_plots(tmp_path, runner, scenario):
    out = tmp_path / "out"
    result = invoke(runner, "run", write(tmp_path, scenario), "--out", out, "--plots")
    assert result.exit_code == 0, result.output
    assert (out / "rtt_cdf.png").stat().st_size > 0 and (out / "meta.json").exists()


SMALL = """
name = "small"
duration = "1s"
[downlink]
rate = "5Mbit"
delay = "10ms"
[[flows]]
cc = "cubic"
"""


@pytest.mark.parametrize("path", ["/tmp/ccbench-overwritten.pcap", "../outside.pcap", "a/../../outside.pcap"])
def test_a_capture_path_outside_the_output_directory_is_refused(tmp_path, runner, path):
    scenario = write(tmp_path, SMALL + f'[record.pcap]\npath = "{path}"\n')
    out = tmp_path / "out"
    line = one_error_line(invoke(runner, "run", scenario, "--out", out))
    assert "record.pcap.path" in line and "relative name" in line
    assert not out.exists() and not (tmp_path / "outside.pcap").exists()


def test_a_capture_goes_into_the_output_directory(tmp_path, runner, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scenario = write(tmp_path, SMALL + '[record.pcap]\npath = "caps/run.pcap"\n')
    out = tmp_path / "out"
    result = invoke(runner, "run", scenario, "--out", out, "--no-plots")
    assert result.exit_code == 0, result.output
    assert (out / "caps" / "run.pcap").stat().st_size > 24 and not (tmp_path / "caps").exists()
    meta = (out / "meta.json").read_text()
    assert '"path": "caps/run.pcap"' in meta and str(tmp_path) not in meta


def test_trace_errors_name_the_line_never_the_content(tmp_path, runner):
    secret = tmp_path / "secret"
    secret.write_text("1\nAWS_SECRET=hunter2\n")
    scenario = write(tmp_path, SMALL.replace('rate = "5Mbit"', f'trace = "{secret}"'))
    line = one_error_line(invoke(runner, "validate", scenario))
    assert "downlink.trace" in line and "secret:2" in line and "hunter2" not in line


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_a_trace_must_be_a_regular_file(tmp_path, runner, kind):
    target = tmp_path / "t"
    if kind == "fifo":
        os.mkfifo(target)  # opening it for reading would block without a writer
    elif kind == "directory":
        target.mkdir()
    else:
        target = "/dev/zero"
    scenario = write(tmp_path, SMALL.replace('rate = "5Mbit"', f'trace = "{target}"'))
    line = one_error_line(invoke(runner, "validate", scenario))
    assert "downlink.trace" in line and "not a regular file" in line


def test_a_trace_larger_than_the_limit_is_refused_before_reading_it(tmp_path, runner):
    from ccbench import limits

    big = tmp_path / "big.trace"
    with big.open("wb") as f:
        f.truncate(limits.MAX_TRACE_BYTES + 1)
    scenario = write(tmp_path, SMALL.replace('rate = "5Mbit"', 'trace = "big.trace"'))
    line = one_error_line(invoke(runner, "validate", scenario))
    assert "limit" in line and "--allow-large" in line


@pytest.mark.parametrize("link", ['trace = "big.down"', None], ids=["link", "profile"])
def test_allow_large_lifts_the_trace_size_limit_of_a_link_and_of_a_trace_profile(tmp_path, runner, link):
    """A trace a little over the limit (16 MiB of 10-ms opportunities) is
    refused, advising --allow-large, which then reads it, whether a link's
    `trace` or `profile = "trace:FILE"` names it."""
    from ccbench import limits

    lines = limits.MAX_TRACE_BYTES // 9 + 1
    (tmp_path / "big.down").write_text("".join(f"{10_000_000 + 10 * i}\n" for i in range(lines)))
    if link is None:
        text = SMALL.replace("[downlink]", 'profile = "trace:big.down"\n[downlink]').replace('rate = "5Mbit"\n', "")
    else:
        text = SMALL.replace('rate = "5Mbit"', link)
    scenario = write(tmp_path, text)
    line = one_error_line(invoke(runner, "validate", scenario))
    assert "limit" in line and "--allow-large" in line
    result = invoke(runner, "validate", scenario, "--allow-large")
    assert result.exit_code == 0, result.output


def test_a_trace_name_longer_than_the_system_allows_is_a_clean_error(tmp_path, runner):
    scenario = write(tmp_path, SMALL.replace('rate = "5Mbit"', 'trace = "' + "a/" * 3000 + 'x"'))
    line = one_error_line(invoke(runner, "validate", scenario))
    assert "downlink.trace" in line and len(line) < 500


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("duration", '"99999h"', ["duration", "--allow-large"]),
        ("duration", "1e300", ["duration", "too large"]),
        ("delay", "1e18", ["downlink.delay", "too large"]),
        ("delay", '"1000s"', ["downlink.delay", "--allow-large"]),
        ("rate", "1e30", ["downlink.rate", "too large"]),
        ("rate", '"1000Gbit"', ["downlink.rate", "--allow-large"]),
    ],
)
def test_extreme_numbers_are_refused_before_the_run(tmp_path, runner, field, value, words):
    text = SMALL.replace('duration = "1s"', f"duration = {value}") if field == "duration" else SMALL
    if field != "duration":
        text = text.replace(f'{field} = "{"5Mbit" if field == "rate" else "10ms"}"', f"{field} = {value}")
    line = one_error_line(invoke(runner, "run", write(tmp_path, text), "--out", tmp_path / "out"))
    for w in words:
        assert w in line, line
    assert not (tmp_path / "out").exists()


def test_an_access_delay_beyond_the_delay_limit_is_refused(tmp_path, runner):
    text = SMALL + 'access_delay = "1000s"\n'
    line = one_error_line(invoke(runner, "validate", write(tmp_path, text)))
    assert "flows[0].access_delay" in line and "--allow-large" in line
    assert invoke(runner, "validate", write(tmp_path, text), "--allow-large").exit_code == 0


def test_a_bdp_queue_below_one_packet_is_an_error_saying_what_it_comes_to(tmp_path, runner):
    text = SMALL.replace('delay = "10ms"', 'delay = "10ms"\nqueue = { size = "0.0001bdp" }')
    line = one_error_line(invoke(runner, "validate", write(tmp_path, text)))
    assert "downlink.queue.size" in line and "0.001 packets" in line and "at least one packet" in line


def test_the_work_estimate_refuses_a_huge_run_and_allow_large_lifts_it(tmp_path, runner):
    text = SMALL.replace('duration = "1s"', 'duration = "20000s"').replace('"5Mbit"', '"10Gbit"')
    line = one_error_line(invoke(runner, "validate", write(tmp_path, text)))
    assert "estimated at" in line and "packets" in line and "--allow-large" in line
    result = invoke(runner, "validate", write(tmp_path, text), "--allow-large")
    assert result.exit_code == 0, result.output


def test_too_many_flows_are_refused(tmp_path, runner):
    line = one_error_line(invoke(runner, "validate", write(tmp_path, SMALL + "count = 4000000000\n")))
    assert "flows[0].count" in line
    line = one_error_line(invoke(runner, "validate", write(tmp_path, SMALL + "count = 5000\n")))
    assert "flows" in line and "--allow-large" in line


@pytest.mark.parametrize(
    "data, words",
    [
        (b'name = "caf\xe9"\n', ["line 1", "not a UTF-8 text file"]),
        (b"\x00\x01\x02binary", ["line 1", "NUL"]),
        (b'duration = "1s"\n\x00', ["line 2", "NUL"]),
    ],
)
def test_bytes_that_are_not_text_get_one_clean_line(tmp_path, runner, data, words):
    path = tmp_path / "s.toml"
    path.write_bytes(data)
    line = one_error_line(invoke(runner, "validate", path))
    for w in words:
        assert w in line, line


def test_a_byte_order_mark_and_crlf_line_ends_are_fine(tmp_path, runner):
    path = tmp_path / "s.toml"
    path.write_bytes(b"\xef\xbb\xbf" + SMALL.replace("\n", "\r\n").encode())
    result = invoke(runner, "validate", path)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "[" * 5000 + "]" * 5000 + "\n",
        "x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n",
        "x" + ".a" * 20000 + " = 1\n",
        "[" + ".".join(["t"] * 20000) + "]\n",
    ],
    ids=["arrays", "inline-tables", "dotted-keys", "table-header"],
)
def test_deep_nesting_is_a_clean_error(tmp_path, runner, text):
    line = one_error_line(invoke(runner, "validate", write(tmp_path, text)))
    assert "nested deeper" in line or "larger than the limit" in line, line


def test_a_file_larger_than_the_limit_is_refused(tmp_path, runner):
    line = one_error_line(invoke(runner, "validate", write(tmp_path, SMALL + "#" * (2 << 20) + "\n")))
    assert "larger than the limit" in line


def test_long_values_are_cut_and_control_characters_escaped(tmp_path, runner):
    text = SMALL.replace('cc = "cubic"', 'cc = "' + "x" * 100_000 + '"')
    line = one_error_line(invoke(runner, "validate", write(tmp_path, text)))
    assert "flows[0].cc" in line and len(line) < 600 and "characters" in line
    text = SMALL.replace('cc = "cubic"', 'cc = "\\u001b]0;pwned\\u0007"')
    line = one_error_line(invoke(runner, "validate", write(tmp_path, text)))
    assert "\x1b" not in line and "\\x1b" in line


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_name_that_looks_like_markup_is_printed_as_written(tmp_path, runner, command):
    scenario = write(tmp_path, SMALL.replace('name = "small"', 'name = "[/]"'))
    extra = ["--out", tmp_path / "out", "--no-plots"] if command == "run" else []
    result = invoke(runner, command, scenario, *extra)
    assert result.exit_code == 0, result.output
    assert "[/]" in result.stdout


def test_a_second_run_into_the_same_directory_is_refused_without_force(tmp_path, runner):
    scenario = write(tmp_path, SMALL)
    out = tmp_path / "out"
    assert invoke(runner, "run", scenario, "--out", out, "--plots").exit_code == 0
    first = (out / "meta.json").read_bytes()
    line = one_error_line(invoke(runner, "run", scenario, "--out", out, "--seed", "7", "--no-plots"))
    assert "not empty" in line and "another run" in line and "--force" in line
    assert (out / "meta.json").read_bytes() == first
    result = invoke(runner, "run", scenario, "--out", out, "--seed", "7", "--no-plots", "--force")
    assert result.exit_code == 0, result.output
    assert '"seed": 7' in (out / "meta.json").read_text()
    assert not (out / "cwnd.png").exists()  # no old plot beside new tables
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")] == [], "no lock file left behind"


def test_force_replaces_only_a_run_directory_never_the_scenario_beside_it(tmp_path, runner):
    project = tmp_path / "project"
    project.mkdir()
    scenario = write(project, SMALL)
    (project / "notes.txt").write_text("precious")
    line = one_error_line(invoke(runner, "run", scenario, "--out", project, "--no-plots", "--force"))
    assert "holds other files" in line and "only a run's directory" in line
    assert sorted(p.name for p in project.iterdir()) == ["notes.txt", "s.toml"]


def test_the_current_directory_is_refused_as_output_and_left_as_it_was(tmp_path, runner, monkeypatch):
    scenario = write(tmp_path, SMALL)
    inner = tmp_path / "inner"
    inner.mkdir()
    monkeypatch.chdir(inner)
    for out, force in ((".", []), (".", ["--force"]), ("..", ["--force"]), (inner, [])):
        line = one_error_line(invoke(runner, "run", scenario, "--out", out, "--no-plots", *force))
        assert "current directory" in line
    assert list(inner.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["inner", "s.toml"]


def test_output_paths_that_cannot_be_used_are_clean_errors(tmp_path, runner):
    scenario = write(tmp_path, SMALL)
    afile = tmp_path / "afile"
    afile.write_text("x")
    line = one_error_line(invoke(runner, "run", scenario, "--out", afile))
    assert "not a directory" in line
    line = one_error_line(invoke(runner, "run", scenario, "--out", tmp_path / ("d" * 300)))
    assert "too long" in line


def test_a_run_that_fails_while_writing_writes_nothing(tmp_path, runner, monkeypatch):
    from ccbench import run_files

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(run_files, "atomic_write_bytes", full_disk)
    out = tmp_path / "out"
    line = one_error_line(invoke(runner, "run", write(tmp_path, SMALL), "--out", out))
    assert "No space left" in line and "nothing written" in line
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_a_locked_directory_is_refused(tmp_path, runner):
    import fcntl

    out = tmp_path / "out"
    with open(tmp_path / ".out.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        line = one_error_line(invoke(runner, "run", write(tmp_path, SMALL), "--out", out))
    assert "another ccbench run is writing" in line and not out.exists()


@pytest.mark.parametrize(
    "args, words",
    [
        (["--algorithms", ","], ["--algorithms", "no algorithm"]),
        (["--seed", "-5"], ["--seed"]),
        (["--seed", str(2**64 - 1)], ["--seed"]),
        (["--reps", "100000000"], ["--reps"]),
        (["--jobs", "0"], ["--jobs"]),
    ],
)
def test_compare_arguments_are_checked_before_anything_runs(tmp_path, runner, args, words):
    out = tmp_path / "out"
    line = one_error_line(invoke(runner, "compare", "--quick", "--out", out, *args))
    for w in words:
        assert w in line, line
    assert not out.exists()


def test_seeds_beyond_int64_are_refused_before_running_and_the_largest_is_saved(tmp_path, runner):
    big = 2**63
    line = one_error_line(invoke(runner, "run", write(tmp_path, SMALL), "--seed", big, "--out", tmp_path / "a"))
    assert "--seed" in line and str(big - 1) in line
    in_file = write(tmp_path, f"seed = {2**64 - 1}\n" + SMALL, "big.toml")
    for args in (["validate", in_file], ["run", in_file, "--out", tmp_path / "a"]):
        line = one_error_line(invoke(runner, *args))
        assert "big.toml: seed: " in line and str(2**64 - 1) in line and str(big - 1) in line
    assert not (tmp_path / "a").exists()
    result = invoke(runner, "run", write(tmp_path, SMALL), "--seed", big - 1, "--out", tmp_path / "b", "--no-plots")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "b" / "meta.json").read_text())["seed"] == big - 1


def test_run_refuses_a_negative_seed(tmp_path, runner):
    line = one_error_line(invoke(runner, "run", write(tmp_path, SMALL), "--seed", "-5"))
    assert "--seed" in line


def test_ctrl_c_stops_a_simulation_and_writes_nothing(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    scenario = write(tmp_path, SMALL.replace('"1s"', '"600s"').replace('"5Mbit"', '"100Mbit"'))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "ccbench.cli", "run", str(scenario), "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    # The staging directory exists once the scenario is checked and the run is starting.
    while not any(p.name.endswith(".partial") for p in tmp_path.iterdir()) and proc.poll() is None:
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted: nothing written" in stderr and "Traceback" not in stderr
    assert not out.exists() and not any(p.name.endswith(".partial") for p in tmp_path.iterdir())


@pytest.mark.parametrize(
    "link_line, field",
    [
        ('outages = [{start = "0s", duration = "5s"}]', "downlink.outages[0]"),
        ('queue = { size = "100B" }', "downlink.queue.size"),
    ],
)
def test_scenarios_certain_to_deliver_nothing_are_errors(tmp_path, runner, link_line, field):
    text = SMALL.replace('delay = "10ms"', f'delay = "10ms"\n{link_line}')
    line = one_error_line(invoke(runner, "validate", write(tmp_path, text)))
    assert field in line and "nothing" in line


@pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="parent-death signal is Linux only")
def test_pool_workers_die_with_a_killed_parent(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "driver.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, sys, time
            from concurrent.futures import ProcessPoolExecutor
            from ccbench.campaigns.executors import _ignore_sigint

            def work(_):
                print(os.getpid(), flush=True)
                time.sleep(120)

            if __name__ == "__main__":
                pool = ProcessPoolExecutor(max_workers=1, initializer=_ignore_sigint, initargs=(os.getpid(),))
                pool.submit(work, 0)
                time.sleep(120)
            """
        )
    )
    driver = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    worker = int(driver.stdout.readline())
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    for _ in range(600):  # the worker is gone at once; allow a slow machine up to a minute
        if not _running(worker):
            break
        time.sleep(0.1)
    else:
        os.kill(worker, signal.SIGKILL)
        pytest.fail("the pool worker outlived its parent")


def _running(pid: int) -> bool:
    """Whether `pid` runs (a killed process may linger as a zombie until reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
