#!/usr/bin/env python3
"""The core's speed against another commit's (or another build's), on this
host, now: runs of the two builds in adjacent pairs, and the ratio of each
pair's CPU times.

This host's speed drifts by 20-30% over minutes, and with it any single
figure (bench/suite.py's packets per CPU second included): a change of a
few percent shows only in a comparison whose two sides share each moment.
Each pair runs the two builds one right after the other (the order
alternating from pair to pair), and the median of the pairs' ratios is the
comparison; the quartiles say how far to trust it. With --instructions,
valgrind's callgrind also counts the event loop's instructions of each
build, which do not drift at all. Every run is pinned to one CPU, as in
the suite.

The scenarios are the suite's (bench/suite.py: (a) to (e)), normalized by
this checkout's front end; each side is the speed example
(crates/ccsim/examples/speed.rs) built in release, the other side from a
temporary git worktree of REV (its build cached in target/versus/).

    python3 bench/versus.py f086658                       # (a), 30 pairs
    python3 bench/versus.py f086658 --only a,b --pairs 60 --instructions
    python3 bench/versus.py --binary OTHER/speed          # a build made elsewhere

Not a test: timings depend on the machine and its load; nothing asserts on them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from suite import (  # noqa: E402
    CASES,
    build_speed_binary,
    event_loop_instructions,
    measure_speed_run,
    measurement_cpus,
    quartiles,
    scenario_json,
)

T = TypeVar("T")

#: Where the other commits' builds are kept (one cargo target, shared).
VERSUS_DIR = ROOT / "target" / "versus"


def build_at(rev: str) -> Path:
    """The speed example of commit `rev`, built once and kept in VERSUS_DIR."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT, capture_output=True, text=True
    )
    if commit.returncode != 0:
        raise SystemExit(f"versus: {rev!r} is not a commit of this repository")
    sha = commit.stdout.strip()
    binary = VERSUS_DIR / f"speed-{sha[:12]}"
    if binary.exists():
        return binary
    has_example = subprocess.run(
        ["git", "cat-file", "-e", f"{sha}:crates/ccsim/examples/speed.rs"], cwd=ROOT, capture_output=True
    )
    if has_example.returncode != 0:
        raise SystemExit(f"versus: {rev} has no crates/ccsim/examples/speed.rs; build one there and give --binary")
    VERSUS_DIR.mkdir(parents=True, exist_ok=True)
    worktree = Path(tempfile.mkdtemp(prefix="ccbench-versus-"))
    print(f"building the speed example at {sha[:12]} (cargo, release) ...", file=sys.stderr, flush=True)
    try:
        subprocess.run(["git", "worktree", "add", "--quiet", "--detach", str(worktree), sha], cwd=ROOT, check=True)
        subprocess.run(
            ["cargo", "build", "--quiet", "--release", "-p", "ccsim", "--example", "speed"],
            cwd=worktree,
            env={**os.environ, "CARGO_TARGET_DIR": str(VERSUS_DIR / "cargo")},
            check=True,
        )
        shutil.copy2(VERSUS_DIR / "cargo" / "release" / "examples" / "speed", binary)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, capture_output=True)
        shutil.rmtree(worktree, ignore_errors=True)
    return binary


def in_pairs(pairs: int, run_a: Callable[[], T], run_b: Callable[[], T]) -> list[tuple[T, T]]:
    """`pairs` adjacent runs of `run_a` and `run_b`, the first of each pair
    alternating; each pair as (a's, b's) whichever ran first."""
    runs = []
    for k in range(pairs):
        if k % 2 == 0:
            a = run_a()
            runs.append((a, run_b()))
        else:
            b = run_b()
            runs.append((run_a(), b))
    return runs


def paired_runs(path: str, this: Path, other: Path, pairs: int) -> list[tuple[dict, dict]]:
    """`pairs` adjacent runs of each build, the first of each pair alternating."""
    cpu, _ = measurement_cpus()
    return in_pairs(
        pairs,
        lambda: measure_speed_run(path, False, this, cpu).extra,
        lambda: measure_speed_run(path, False, other, cpu).extra,
    )


def side(name: str, runs: list[dict]) -> str:
    """One build's line: its median and fastest CPU time, and its speed."""
    cpu = [r["cpu_seconds"] for r in runs]
    median = statistics.median(cpu)
    return (
        f"    {name}: median {median:.4f} s, min {min(cpu):.4f} s, "
        f"{runs[0]['bottleneck_packets'] / median:,.0f} bottleneck pkts/CPU s"
    )


def report(label: str, runs: list[tuple[dict, dict]], counts: tuple[int, int] | None, other_name: str) -> str:
    ratios = [a["cpu_seconds"] / b["cpu_seconds"] for a, b in runs]
    q1, median, q3 = quartiles(ratios)
    same = all(a["digest"] == b["digest"] for a, b in runs)
    lines = [
        f"{label}: {len(runs)} pairs; CPU time this / {other_name}: median {median:.3f} (q1 {q1:.3f}, q3 {q3:.3f})",
        side("this", [a for a, _ in runs]),
        side(other_name, [b for _, b in runs]),
        f"    results: {'identical' if same else 'differ'} (digests {runs[0][0]['digest']} / {runs[0][1]['digest']})",
    ]
    if counts:
        this_n, other_n = counts
        events = runs[0][0]["events"]
        lines.append(
            f"    instructions (callgrind, event loop): this {this_n:,} ({this_n / events:.0f}/event), "
            f"{other_name} {other_n:,}: {100 * (this_n / other_n - 1):+.1f}%"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rev", nargs="?", help="the commit to compare with (its speed example is built)")
    ap.add_argument("--binary", type=Path, help="a speed example built elsewhere, instead of REV")
    ap.add_argument("--pairs", type=int, default=30, help="pairs of runs per scenario (default 30)")
    ap.add_argument("--only", default="a", help="the suite's scenarios, comma-separated (default a)")
    ap.add_argument("--instructions", action="store_true", help="also count instructions with callgrind")
    args = ap.parse_args()
    if (args.rev is None) == (args.binary is None):
        ap.error("give one of a commit and --binary")
    if args.pairs < 2:
        ap.error(f"--pairs {args.pairs}: at least 2")
    keys = args.only.split(",")
    unknown = [k for k in keys if k not in {c.key for c in CASES}]
    if unknown:
        ap.error(
            f"--only {args.only}: no scenario {', '.join(unknown)}; the suite has {', '.join(c.key for c in CASES)}"
        )
    if args.instructions and shutil.which("valgrind") is None:
        ap.error("--instructions needs valgrind (apt-get install valgrind)")
    other = args.binary if args.binary else build_at(args.rev)
    if not other.exists():
        ap.error(f"--binary {other}: no such file")
    other_name = args.rev or str(other)
    this = build_speed_binary()
    for case in (c for c in CASES if c.key in keys):
        with scenario_json(case.scenario) as path:
            runs = paired_runs(path, this, other, args.pairs)
            counts = (
                (event_loop_instructions(path, this), event_loop_instructions(path, other))
                if args.instructions
                else None
            )
        print(report(f"({case.key}) {case.label}", runs, counts, other_name), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
