#!/usr/bin/env python3
"""What recording costs: wall time and peak memory of a run with the default
`[record]` settings, the same run recording none of its sampled tables
(`tables=[]`: the summaries only, as a campaign run whose tables are not
kept), and the same run recording almost nothing by its scenario (the core
alone: `rtt_samples = "none"` and one series sample per run).

  (a) 4096 cubic flows, 1 Gbit/s, 20 ms one-way, 10 s    (the Rust run alone)
  (b) 8 cubic flows, 1 Gbit/s, 20 ms one-way, 600 s       (through ccbench.run())
  (c) 1 newreno flow over the `umts` profile, 100 s       (the Rust run alone)
  (d) the same through ccbench.run()

Each measurement runs in its own process, so its peak RSS (ru_maxrss) is its
own; wall time is the Rust run's (`wall_seconds`), or ccbench.run()'s whole
call for (b) and (d); CPU time (user + system of the process over the same
call) compares fairly on a loaded machine, and the ratios are of CPU times.
With --repeat N the process runs it N times and reports the fastest (the
short UMTS runs take milliseconds). On a host whose speed swings, a ratio of
two measurements made apart says little: --pairs N measures the default
recording and the core alone N times in adjacent pairs (the order
alternating) and prints the median of the pairs' CPU-time ratios, with
its quartiles. Timings depend on the machine and its load: this script
measures, tests never assert on it.

    python3 bench/recording_cost.py [--only a|b|c|d] [--repeat N] [--pairs N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CORE_ONLY = {"rtt_samples": "none", "interval": "1000s"}

SCENARIOS = {
    "a": (
        "(a) 4096 flows x 1 Gbit/s x 10 s",
        {
            "duration": "10s",
            "downlink": {"rate": "1Gbit", "delay": "20ms"},
            "flows": [{"cc": "cubic", "count": 4096}],
        },
        "core",
    ),
    "b": (
        "(b) 8 flows x 1 Gbit/s x 600 s",
        {
            "duration": "600s",
            "downlink": {"rate": "1Gbit", "delay": "20ms"},
            "flows": [{"cc": "cubic", "count": 8}],
        },
        "api",
    ),
    "c": (
        "(c) umts profile, 100 s",
        {"profile": "umts", "duration": "100s", "flows": [{"cc": "newreno"}]},
        "core",
    ),
    "d": (
        "(d) umts profile, 100 s, ccbench.run()",
        {"profile": "umts", "duration": "100s", "flows": [{"cc": "newreno"}]},
        "api",
    ),
}

CHILD = r"""
import json, resource, sys, time
import ccbench
import pyarrow as pa
from ccbench import _ccsim
from ccbench.scenario import load
spec, how, tables, repeat = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
normalized = load(spec, allow_large=True)
best = None
for _ in range(repeat):
    start, cpu_start = time.perf_counter(), time.process_time()
    if how == "api":
        r = ccbench.run(spec, allow_large=True, tables=tables)
        wall, events = time.perf_counter() - start, r.meta["events"]
        rows = {name: len(r.arrow(name)) if tables is None or name in tables else 0 for name in ("series", "rtt")}
    else:
        raw = _ccsim.run(json.dumps(normalized), tables=tables)
        wall, events = raw["wall_seconds"], raw["events"]
        rows = {name: pa.record_batch(raw[name]).num_rows if name in raw else 0 for name in ("series", "rtt")}
    cpu = time.process_time() - cpu_start
    if best is None or cpu < best["cpu_s"]:
        best = {"wall_s": wall, "cpu_s": cpu, "events": events, "rows": rows}
best["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(best))
"""

#: How each scenario is run: its [record] table and the tables it records (None: all).
MODES = (("default", {}, None), ("tables=[]", {}, []), ("core only", CORE_ONLY, None))


def measure(spec: dict, how: str, tables: list[str] | None, repeat: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(spec), how, json.dumps(tables), str(repeat)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=sorted(SCENARIOS), help="one scenario")
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement, the fastest reported")
    ap.add_argument("--pairs", type=int, default=0, help="also this many adjacent pairs of default and core only")
    args = ap.parse_args()
    header = f"{'scenario':<40}{'recording':<11}{'wall s':>8}{'cpu s':>8}{'peak MB':>9}"
    print(f"{header}{'events':>11}{'series rows':>13}{'rtt rows':>10}")
    for key, (label, spec, how) in SCENARIOS.items():
        if args.only and key != args.only:
            continue
        results = {}
        for mode, record, tables in MODES:
            results[mode] = r = measure({**spec, "record": record}, how, tables, args.repeat)
            print(
                f"{label:<40}{mode:<11}{r['wall_s']:>8.3f}{r['cpu_s']:>8.3f}{r['rss_mb']:>9.0f}{r['events']:>11,}"
                f"{r['rows']['series']:>13,}{r['rows']['rtt']:>10,}"
            )
        for mode in ("tables=[]", "core only"):
            ratio = results["default"]["cpu_s"] / max(results[mode]["cpu_s"], 1e-9)
            print(f"{'':<40}{'cpu ratio':<11}{'':>8}{ratio:>7.2f}x  default / {mode}")
        if args.pairs:
            median, q1, q3 = paired_ratio(spec, how, args.pairs)
            print(
                f"{'':<40}{'paired':<11}{'':>8}{median:>7.2f}x  default / core only, "
                f"median of {args.pairs} adjacent pairs (quartiles {q1:.2f}-{q3:.2f})"
            )
    return 0


def paired_ratio(spec: dict, how: str, pairs: int) -> tuple[float, float, float]:
    """The default recording's CPU time over the core alone's in `pairs`
    adjacent pairs of runs (bench/versus.py's pairing): the median ratio
    and its quartiles."""
    from suite import quartiles
    from versus import in_pairs

    records = {mode: record for mode, record, _ in MODES}

    def cpu_s(mode: str) -> float:
        return measure({**spec, "record": records[mode]}, how, None, 1)["cpu_s"]

    runs = in_pairs(pairs, lambda: cpu_s("default"), lambda: cpu_s("core only"))
    q1, median, q3 = quartiles([a / max(b, 1e-9) for a, b in runs])
    return median, q1, q3


if __name__ == "__main__":
    sys.exit(main())
