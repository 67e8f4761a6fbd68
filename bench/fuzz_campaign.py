"""Runs the campaign fuzz corpus (tests/campaign_fuzz_corpus.py) through
`ccbench campaign` with a timeout per file, and prints per category how many
files ended in each class, as bench/fuzz_input.py does for scenario files.

    nice -n 5 python bench/fuzz_campaign.py [--cases 2000] [--seed 52] [--timeout 120] [--jobs 2]

Classes:
- clean: exit 2 with one `error:` line, and nothing written beside the file
  (no campaign directory, no lock);
- ran: exit 0, and the directory holds what the campaign planned: every run
  of the index done, its tidy tables with one row per run, report.html;
- crash: another exit code, a traceback, a signal, or an exit-2 message that
  is not one line;
- hang: still running at the timeout (killed);
- nonsense: exit 0 but the directory does not hold what was planned (runs
  missing from the tables, a run not done, no report);
- partial: a refusal (clean or not) that left a directory or lock behind.

Each command runs in a fork of this process (which has imported ccbench once)
through typer's test runner: the command line's code path without an
interpreter start per file.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from campaign_fuzz_corpus import corpus  # noqa: E402
from fuzz_input import forked_outcome  # noqa: E402

CLASSES = ("clean", "ran", "crash", "hang", "nonsense", "partial")


def nonsense(out: Path) -> str | None:
    """What a finished campaign directory lacks, or None."""
    import pyarrow.parquet as pq

    try:
        with sqlite3.connect(f"file:{out / 'index.sqlite'}?mode=ro", uri=True) as db:
            planned, done = db.execute("SELECT count(*), sum(status = 'done') FROM runs").fetchone()
        runs = pq.read_table(out / "runs.parquet").num_rows
    except Exception as e:  # noqa: BLE001 - anything unreadable is a finding
        return f"unreadable: {e}"
    if done != planned or runs != planned:
        return f"{planned} runs planned, {done} done, {runs} in runs.parquet"
    if not (out / "report.html").exists():
        return "no report.html"
    return None


def one_case(timeout: float, data: bytes, files: dict[str, bytes]) -> tuple[str, str]:
    """The class of one corpus file and what it printed (for the log of findings)."""
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        for name, content in files.items():
            (d / name).write_bytes(content)
        (d / "c.toml").write_bytes(data)
        given = {p.name for p in d.iterdir()}
        kind, printed = forked_outcome(["campaign", "c.toml", "--out", "out", "--jobs", "1"], timeout, d)
        left = sorted(p.name for p in d.iterdir() if p.name not in given)
        if kind == "ok":
            why = nonsense(d / "out")
            return ("nonsense", why) if why else ("ran", "")
        if kind in ("clean error", "crash") and left:
            return "partial", f"left {left}: {printed[-300:]}"
        return {"clean error": "clean"}.get(kind, kind), printed[-600:]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=52)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--findings", type=Path, help="also write each non-clean, non-ran case's output here")
    a = ap.parse_args()
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    findings = []
    cases = corpus(random.Random(a.seed), a.cases)
    started = time.monotonic()
    # A file identical to one before (bytes and the files beside it) is run once: its class is the same.
    distinct = {(data, tuple(sorted(files.items()))): (data, files) for _, data, files in cases}
    outcomes = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = {pool.submit(one_case, a.timeout, data, files): key for key, (data, files) in distinct.items()}
        for i, done in enumerate(concurrent.futures.as_completed(futures)):
            outcomes[futures[done]] = done.result()
            print(f"\r{i + 1}/{len(distinct)}", end="", file=sys.stderr, flush=True)
    for category, data, files in cases:
        kind, printed = outcomes[(data, tuple(sorted(files.items())))]
        table[category][kind] += 1
        if kind not in ("clean", "ran"):
            findings.append(f"## {category}: {kind}\n{data[:300]!r}\n{printed}\n")
    print(file=sys.stderr)
    print(
        f"{a.cases} campaign files ({len(distinct)} distinct; seed {a.seed}, timeout {a.timeout:g} s per file) "
        f"in {time.monotonic() - started:.0f} s\n"
    )
    print("| category | files | " + " | ".join(CLASSES) + " |")
    print("|---" * (len(CLASSES) + 2) + "|")
    total: collections.Counter = collections.Counter()
    for category in sorted(table):
        counts = table[category]
        total.update(counts)
        print(f"| {category} | {sum(counts.values())} | " + " | ".join(str(counts[k]) for k in CLASSES) + " |")
    print(f"| all | {sum(total.values())} | " + " | ".join(str(total[k]) for k in CLASSES) + " |")
    if a.findings:
        a.findings.write_text("\n".join(findings) or "none\n")


if __name__ == "__main__":
    main()
