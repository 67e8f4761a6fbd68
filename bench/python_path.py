#!/usr/bin/env python3
"""The per-run Python path: what a user waits for around the simulator.

  import     `import ccbench` in a fresh interpreter (-X importtime's total)
  run        `ccbench run examples/clean-path.toml` end to end, with and
             without --plots (a fresh process each time)
  umts       --runs UMTS runs of 100 s (the umts profile, one NewReno flow,
             a new seed each) through the public API, `ccbench.run(s).flows`,
             on --jobs processes; the same recording no sampled table
             (`ccbench.run(s, tables=[]).flows`, as a campaign's unkept
             runs do); and through the raw binding (ccbench._ccsim.run)
             with the simulator's own time
  compare    `ccbench compare` end to end (a fresh directory), the default
             comparison (352 runs) and --quick

Each figure is the median of --repeat tries; wall seconds, and CPU seconds
(user + system of the process and its children), which a loaded machine
inflates less. Timings depend on the machine and its load: this script
measures, tests never assert on it.

    python3 bench/python_path.py [--only import,run,umts,compare] [--runs 3000] [--jobs 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UMTS = {"profile": "umts", "duration": "100s", "flows": [{"cc": "newreno"}]}


def children_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_command(cmd: list[str], cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of a command (and its stderr)."""
    cpu0, t0 = children_cpu_s(), time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu_s() - cpu0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")
    return wall, cpu, done.stderr


def median_of(repeat: int, measure) -> tuple[float, float]:
    tries = [measure() for _ in range(repeat)]
    return statistics.median(t[0] for t in tries), statistics.median(t[1] for t in tries)


def bench_import(repeat: int) -> None:
    def once():
        _, cpu, err = timed_command([sys.executable, "-X", "importtime", "-c", "import ccbench"], ROOT)
        total_us = next(int(m.group(1)) for m in re.finditer(r"\|\s*(\d+) \| ccbench$", err, re.M))
        return total_us / 1e6, cpu

    own, cpu = median_of(repeat, once)
    print(f"import ccbench: {own:.3f} s (-X importtime, ccbench and what it imports); process {cpu:.3f} s CPU")


def bench_run(repeat: int) -> None:
    example = str(ROOT / "examples" / "clean-path.toml")
    for extra in ([], ["--plots"]):
        with tempfile.TemporaryDirectory() as tmp:

            def once(extra=extra, tmp=tmp):
                out = Path(tmp) / "out"
                shutil.rmtree(out, ignore_errors=True)
                wall, cpu, _ = timed_command(
                    [sys.executable, "-m", "ccbench.cli", "run", example, "--out", str(out)] + extra, ROOT
                )
                return wall, cpu

            wall, cpu = median_of(repeat, once)
        print(f"ccbench run examples/clean-path.toml {' '.join(extra)}: {wall:.2f} s wall, {cpu:.2f} s CPU")


def _api_run(seed: int) -> float:
    import ccbench

    return float(ccbench.run(UMTS, seed=seed).flows["goodput_bps"].iloc[0])


def _api_run_summaries(seed: int) -> float:
    import ccbench

    return float(ccbench.run(UMTS, seed=seed, tables=[]).flows["goodput_bps"].iloc[0])


def _raw_run(seed: int) -> float:
    from ccbench import _ccsim
    from ccbench.scenario import load

    return float(_ccsim.run(json.dumps(load(UMTS, seed=seed)))["wall_seconds"])


def bench_umts(runs: int, jobs: int) -> None:
    for label, fn in (
        ("ccbench.run(s).flows", _api_run),
        ("ccbench.run(s, tables=[]).flows", _api_run_summaries),
        ("raw binding", _raw_run),
    ):
        cpu0, t0 = children_cpu_s(), time.perf_counter()
        with Pool(jobs) as pool:
            out = pool.map(fn, range(1, runs + 1), chunksize=16)
        wall = time.perf_counter() - t0
        pool.join()
        cpu = children_cpu_s() - cpu0
        print(
            f"{runs} UMTS runs of 100 s, {label}, {jobs} processes: {wall:.1f} s wall "
            f"({runs / wall:.0f} runs/s), {1e3 * cpu / runs:.2f} ms CPU per run"
        )
        if fn is _raw_run:
            print(f"  of which the simulator (its wall time, mean): {1e3 * statistics.mean(out):.2f} ms per run")


def bench_compare(repeat: int, jobs: int) -> None:
    for extra in ([], ["--quick"]):
        with tempfile.TemporaryDirectory() as tmp:

            def once(extra=extra, tmp=tmp):
                out = Path(tmp) / "compare"
                shutil.rmtree(out, ignore_errors=True)
                cmd = [sys.executable, "-m", "ccbench.cli", "compare", *extra, "--out", str(out), "--jobs", str(jobs)]
                wall, cpu, _ = timed_command(cmd, ROOT)
                return wall, cpu

            wall, cpu = median_of(repeat, once)
        print(f"ccbench compare {' '.join(extra)} --jobs {jobs}: {wall:.1f} s wall, {cpu:.1f} s CPU".replace("  ", " "))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="import,run,umts,compare")
    ap.add_argument("--runs", type=int, default=3000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    only = set(args.only.split(","))
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    if "import" in only:
        bench_import(args.repeat)
    if "run" in only:
        bench_run(args.repeat)
    if "umts" in only:
        bench_umts(args.runs, args.jobs)
    if "compare" in only:
        bench_compare(args.repeat, args.jobs)


if __name__ == "__main__":
    main()
