#!/usr/bin/env python3
"""What a paced bottleneck packet costs against an unpaced one (issue 55):
the same path and load run by a paced sender (bbr, or cubic with
tcp.pacing) and by plain cubic, in adjacent pairs of runs.

Pairs:
  (f)/(a), (g)/(a)   1 Gbit/s, 8 flows, 20 s (bench/suite.py's scenarios)
  (m-bbr)/(m-cubic), (m-paced)/(m-cubic)
                     1 Gbit/s, 1000 flows, 10 s, the suite's dumbbell
                     (10 ms each way: 20 ms RTT, 1-BDP drop-tail buffer)

For each pair: the ratio of CPU seconds per bottleneck packet of the two
runs of each adjacent pair (the first of a pair alternating, both pinned to
one CPU, as bench/versus.py does), the median and quartiles of those
ratios; with --instructions also callgrind's instructions per bottleneck
packet of the event loop (deterministic: the figure to trust on a loaded
host) and their ratio. Issue 55's targets: at most 1.5x with 8 flows, at
most 2x with 1000.

    python3 bench/pacing_cost.py [--pairs 5] [--only f,g,m-bbr,m-paced] [--instructions]

Not a test: timings depend on the machine and its load; nothing asserts on them.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from suite import (  # noqa: E402
    CASES,
    build_speed_binary,
    dumbbell,
    event_loop_instructions,
    measure_speed_run,
    measurement_cpus,
    quartiles,
    scenario_json,
)
from versus import in_pairs  # noqa: E402

SUITE = {c.key: c.scenario for c in CASES}
MANY = 1000
SCENARIOS = {
    "a": SUITE["a"],
    "f": SUITE["f"],
    "g": SUITE["g"],
    "m-cubic": dumbbell("pacing-m-cubic", "1Gbit", MANY, 10),
    "m-bbr": dumbbell("pacing-m-bbr", "1Gbit", MANY, 10, "bbr"),
    "m-paced": dumbbell("pacing-m-paced", "1Gbit", MANY, 10, tcp={"pacing": True}),
}
#: Each paced scenario, the unpaced one it is measured against, and issue 55's target ratio.
PAIRS = {"f": ("a", 1.5), "g": ("a", 1.5), "m-bbr": ("m-cubic", 2.0), "m-paced": ("m-cubic", 2.0)}


def cpu_per_packet(run: dict) -> float:
    return run["cpu_seconds"] / max(run["bottleneck_packets"], 1)


def events_per_packet(run: dict) -> float:
    return run["events"] / max(run["bottleneck_packets"], 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=5, help="pairs of runs per comparison (default 5)")
    ap.add_argument("--only", default=",".join(PAIRS), help=f"paced scenarios, comma-separated ({', '.join(PAIRS)})")
    ap.add_argument("--instructions", action="store_true", help="also count instructions with callgrind")
    args = ap.parse_args()
    keys = args.only.split(",")
    unknown = [k for k in keys if k not in PAIRS]
    if unknown:
        ap.error(f"--only {args.only}: no paced scenario {', '.join(unknown)}; there are {', '.join(PAIRS)}")
    if args.pairs < 2:
        ap.error(f"--pairs {args.pairs}: at least 2")
    if args.instructions and shutil.which("valgrind") is None:
        ap.error("--instructions needs valgrind (apt-get install valgrind)")
    binary = build_speed_binary()
    cpu, _ = measurement_cpus()
    counted: dict[str, float] = {}

    def instructions_per_packet(key: str, path: str, run: dict) -> float:
        if key not in counted:
            counted[key] = event_loop_instructions(path, binary) / max(run["bottleneck_packets"], 1)
        return counted[key]

    for paced in keys:
        plain, target = PAIRS[paced]
        with scenario_json(SCENARIOS[paced]) as paced_path, scenario_json(SCENARIOS[plain]) as plain_path:
            runs = in_pairs(
                args.pairs,
                lambda: measure_speed_run(paced_path, False, binary, cpu).extra,
                lambda: measure_speed_run(plain_path, False, binary, cpu).extra,
            )
            q1, median, q3 = quartiles([cpu_per_packet(p) / cpu_per_packet(u) for p, u in runs])
            p0, u0 = runs[0]
            print(
                f"({paced}) / ({plain}): CPU per bottleneck packet, {len(runs)} pairs: median {median:.2f}x "
                f"(q1 {q1:.2f}, q3 {q3:.2f}; target at most {target}x); events per packet "
                f"{events_per_packet(p0):.2f} vs {events_per_packet(u0):.2f}",
                flush=True,
            )
            if args.instructions:
                mine, theirs = (
                    instructions_per_packet(paced, paced_path, p0),
                    instructions_per_packet(plain, plain_path, u0),
                )
                print(
                    f"    instructions per bottleneck packet (callgrind, event loop): {mine:,.0f} vs {theirs:,.0f}, "
                    f"{mine / theirs:.2f}x",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
