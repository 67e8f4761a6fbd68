"""Runs the input fuzz corpus (tests/fuzz_corpus.py) through `ccbench validate`
and `ccbench run` in subprocesses with a timeout, and prints per category how
many cases were clean errors, accepted runs, crashes, hangs or partial outputs.

    python bench/fuzz_input.py [--cases 2000] [--seed 15] [--timeout 60] [--jobs N] [--subprocess]

A crash is an exit code other than 0 or 2, a traceback, or an exit-2 message
that is not one line; a hang is a timeout; a partial output is an output
directory (or a staging directory) left by a run that did not succeed. A run
that succeeded is "silent nonsense" when its tables hold a flow that delivered
nothing, a flow without RTT or a link above 1.05 utilization and the run
printed no warning; "ok, warned" when it did; "slower than estimate" when it
took longer than its work estimate allows (RUN_OVERHEAD_S plus the estimated
packets at ALLOWED_PACKETS_PER_S).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fuzz_corpus import corpus  # noqa: E402

#: A run may take this long beyond what its work estimate allows (interpreter start, imports, writing).
RUN_OVERHEAD_S = 10.0
#: Packets per second the estimate allowance assumes: far below the simulator's speed, so only a
#: run whose work the estimate missed (a hang in disguise) exceeds it.
ALLOWED_PACKETS_PER_S = 1e6
#: Link utilization above this is nonsense unless a warning says why.
MAX_UTILIZATION = 1.05


def outcome(args: list[str], timeout: float, cwd: Path) -> tuple[str, str]:
    """The kind of outcome of one `ccbench` command in a new interpreter, and what it printed."""
    try:
        p = subprocess.run(
            [sys.executable, "-m", "ccbench.cli", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            errors="replace",
        )
    except subprocess.TimeoutExpired:
        return "hang", ""
    return classify(p.returncode, p.stderr, p.stdout + p.stderr)


def classify(code: int, errors: str, printed: str) -> tuple[str, str]:
    """A finished command's outcome from its exit code, its error output
    (where a traceback or the one `error:` line goes) and all it printed:
    "ok", "clean error" (exit 2 with one `error:` line) or "crash"."""
    lines = [ln for ln in errors.splitlines() if ln.strip()]
    if code == 0 and "Traceback" not in errors:
        return "ok", printed
    if code == 2 and len(lines) == 1 and lines[0].startswith("error: "):
        return "clean error", errors
    return "crash", printed


def nonsense(out: Path) -> list[str]:
    """What a finished run's tables hold that cannot be trusted: flows that
    delivered nothing or have no RTT, links used above their capacity."""
    import pyarrow.parquet as pq

    flows = pq.read_table(out / "flows.parquet").to_pylist()
    links = pq.read_table(out / "links.parquet").to_pylist()
    found = [f"flow {f['flow']} delivered nothing" for f in flows if not f["goodput_bps"] > 0]
    found += [
        f"flow {f['flow']} has no RTT" for f in flows if f["goodput_bps"] > 0 and f["rtt_mean_ms"] != f["rtt_mean_ms"]
    ]
    found += [f"link {link['link']} above capacity" for link in links if link["utilization"] > MAX_UTILIZATION]
    return found


def allowed_run_s(path: Path) -> float:
    """How long a run of this scenario may take: its work estimate at
    ALLOWED_PACKETS_PER_S, plus RUN_OVERHEAD_S."""
    from ccbench import limits
    from ccbench.scenario import load

    return RUN_OVERHEAD_S + limits.estimate(load(path))["packets"] / ALLOWED_PACKETS_PER_S


def forked_outcome(args: list[str], timeout: float, cwd: Path) -> tuple[str, str]:
    """As `outcome`, but the command runs in a fork of this process (which has
    imported ccbench once) through typer's test runner: the same code path as
    the command line without the interpreter start, so a 2,000-case corpus
    runs in minutes. A child killed by a signal (an abort) is a crash; one
    still running at the timeout is killed: a hang."""
    from ccbench.cli import app
    from typer.testing import CliRunner

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, report, and leave without cleanup handlers
        os.close(read_end)
        try:
            os.chdir(cwd)
            r = CliRunner().invoke(app, args, terminal_width=200)
            traceback = r.exception is not None and not isinstance(r.exception, SystemExit)
            text = r.output + ("\nTraceback (from the runner)" if traceback else "")
            report = json.dumps({"code": r.exit_code, "output": text})
        except BaseException as e:  # noqa: BLE001 - anything escaping is a crash to report
            report = json.dumps({"code": 1, "output": f"Traceback: {e!r}"})
        os.write(write_end, report.encode())
        os._exit(0)
    os.close(write_end)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read_end)
            return "hang", ""
        time.sleep(0.01)
    with os.fdopen(read_end, "rb") as f:
        data = f.read()
    if os.WIFSIGNALED(status) or not data:
        return "crash", f"killed by signal {os.WTERMSIG(status) if os.WIFSIGNALED(status) else '?'}"
    report = json.loads(data)
    # The test runner mixes both streams into one output.
    return classify(report["code"], report["output"], report["output"])


def one_case(run_command, timeout: float, data: bytes, files: dict[str, bytes]) -> str:
    """The outcome of one corpus case through validate and run;
    `run_command(args, timeout, cwd)` is `outcome` or `forked_outcome`."""
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        for name, content in files.items():
            (d / name).write_bytes(content)
        (d / "s.toml").write_bytes(data)
        v, _ = run_command(["validate", "s.toml"], timeout, d)
        if v != "ok":
            return v
        started = time.monotonic()
        r, printed = run_command(["run", "s.toml", "--out", "out", "--no-plots"], timeout, d)
        took = time.monotonic() - started
        if r != "ok":
            partial = any(p.name == "out" or p.name.endswith(".partial") for p in d.iterdir())
            return "partial output" if partial else r
        if took > allowed_run_s(d / "s.toml"):
            return "slower than estimate"
        found = nonsense(d / "out")
        if found and "warning:" not in printed:
            return "silent nonsense"
        return "ok, warned" if found else "ok"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument(
        "--subprocess", action="store_true", help="a new interpreter per command (slower; the default forks)"
    )
    a = ap.parse_args()
    run_command = outcome if a.subprocess else forked_outcome
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    cases = corpus(random.Random(a.seed), a.cases)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = {
            pool.submit(one_case, run_command, a.timeout, data, files): category for category, data, files in cases
        }
        for i, done in enumerate(concurrent.futures.as_completed(futures)):
            table[futures[done]][done.result()] += 1
            print(f"\r{i + 1}/{a.cases}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    kinds = [
        "clean error",
        "ok",
        "ok, warned",
        "crash",
        "hang",
        "partial output",
        "silent nonsense",
        "slower than estimate",
    ]
    print("| category | cases | " + " | ".join(kinds) + " |")
    print("|---" * (len(kinds) + 2) + "|")
    total = collections.Counter()
    for category in sorted(table):
        counts = table[category]
        total.update(counts)
        print(f"| {category} | {sum(counts.values())} | " + " | ".join(str(counts[k]) for k in kinds) + " |")
    print(f"| all | {sum(total.values())} | " + " | ".join(str(total[k]) for k in kinds) + " |")


if __name__ == "__main__":
    main()
