"""Runs the input fuzz corpus (tests/fuzz_corpus.py) through `ccbench validate`
and `ccbench run` in subprocesses with a timeout, and prints per category how
many cases were clean errors, accepted runs, crashes, hangs or partial outputs.

    python bench/fuzz_input.py [--cases 2000] [--seed 15] [--timeout 60]

A crash is an exit code other than 0 or 2, a traceback, or an exit-2 message
that is not one line; a hang is a timeout; a partial output is an output
directory (or a staging directory) left by a run that did not succeed.
"""

from __future__ import annotations

import argparse
import collections
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fuzz_corpus import corpus  # noqa: E402


def outcome(cmd: list[str], timeout: float, cwd: Path) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd, errors="replace")
    except subprocess.TimeoutExpired:
        return "hang"
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    if p.returncode == 0 and "Traceback" not in p.stderr:
        return "ok"
    if p.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "):
        return "clean error"
    return "crash"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    cli = [sys.executable, "-m", "ccbench.cli"]
    for i, (category, data, files) in enumerate(corpus(random.Random(a.seed), a.cases)):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            for name, content in files.items():
                (d / name).write_bytes(content)
            (d / "s.toml").write_bytes(data)
            v = outcome([*cli, "validate", "s.toml"], a.timeout, d)
            r = outcome([*cli, "run", "s.toml", "--out", "out", "--no-plots"], a.timeout, d) if v == "ok" else v
            partial = r != "ok" and any(p.name == "out" or p.name.endswith(".partial") for p in d.iterdir())
            table[category]["partial output" if partial else r] += 1
        print(f"\r{i + 1}/{a.cases}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    kinds = ["clean error", "ok", "crash", "hang", "partial output"]
    print("| category | cases | " + " | ".join(kinds) + " |")
    print("|---" * (len(kinds) + 2) + "|")
    total = collections.Counter()
    for category, counts in table.items():
        total.update(counts)
        print(f"| {category} | {sum(counts.values())} | " + " | ".join(str(counts[k]) for k in kinds) + " |")
    print(f"| all | {sum(total.values())} | " + " | ".join(str(total[k]) for k in kinds) + " |")


if __name__ == "__main__":
    main()
