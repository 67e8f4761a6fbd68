#!/usr/bin/env python3
"""What recording costs: wall time and peak memory of a run with the default
`[record]` settings against the same run recording almost nothing (the core
alone: `rtt_samples = "none"` and one series sample per run).

  (a) 4096 cubic flows, 1 Gbit/s, 20 ms one-way, 10 s    (the Rust run alone)
  (b) 8 cubic flows, 1 Gbit/s, 20 ms one-way, 600 s       (through ccbench.run())
  (c) 1 newreno flow over the `umts` profile, 100 s       (the Rust run alone)
  (d) the same through ccbench.run()

Each measurement runs in its own process, so its peak RSS (ru_maxrss) is its
own; wall time is the Rust run's (`wall_seconds`), or ccbench.run()'s whole
call for (b) and (d); CPU time (user + system of the process over the same
call) compares fairly on a loaded machine, and the ratio is of CPU times.
Timings depend on the machine and its load: this script measures, tests
never assert on it.

    python3 bench/recording_cost.py [--only a|b|c|d]
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
spec, how = json.loads(sys.argv[1]), sys.argv[2]
normalized = load(spec, allow_large=True)
start, cpu_start = time.perf_counter(), time.process_time()
if how == "api":
    r = ccbench.run(spec, allow_large=True)
    wall, events = time.perf_counter() - start, r.meta["events"]
    rows = {"series": len(r.series), "rtt": len(r.rtt)}
else:
    raw = _ccsim.run(json.dumps(normalized))
    wall, events = raw["wall_seconds"], raw["events"]
    rows = {"series": pa.record_batch(raw["series"]).num_rows, "rtt": pa.record_batch(raw["rtt"]).num_rows}
cpu = time.process_time() - cpu_start
rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"wall_s": wall, "cpu_s": cpu, "rss_mb": rss_mb, "events": events, "rows": rows}))
"""


def measure(spec: dict, how: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(spec), how], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=sorted(SCENARIOS), help="one scenario")
    args = ap.parse_args()
    header = f"{'scenario':<40}{'recording':<11}{'wall s':>8}{'cpu s':>8}{'peak MB':>9}"
    print(f"{header}{'events':>11}{'series rows':>13}{'rtt rows':>10}")
    for key, (label, spec, how) in SCENARIOS.items():
        if args.only and key != args.only:
            continue
        results = {}
        for mode, record in (("default", {}), ("core only", CORE_ONLY)):
            results[mode] = r = measure({**spec, "record": record}, how)
            print(
                f"{label:<40}{mode:<11}{r['wall_s']:>8.2f}{r['cpu_s']:>8.2f}{r['rss_mb']:>9.0f}{r['events']:>11,}"
                f"{r['rows']['series']:>13,}{r['rows']['rtt']:>10,}"
            )
        ratio = results["default"]["cpu_s"] / max(results["core only"]["cpu_s"], 1e-9)
        print(f"{'':<40}{'cpu ratio':<11}{'':>8}{ratio:>7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
