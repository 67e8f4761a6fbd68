#!/usr/bin/env python3
"""Simulator speed: simulated bottleneck packets per wall-clock second.

Runs two reference scenarios in ccbench's simulator and, with
--ns3, the same scenarios in ns-3 3.37 (bench/ns3/dumbbell.cc) in the same
invocation, and prints the wall-time ratio and both sides' aggregate goodput.

  (a) 1 cubic flow, 100 Mbit/s, 50 ms one-way, 1 BDP drop-tail buffer, 60 s
  (b) 16 cubic flows over the same path

"Bottleneck packets" are the packets the bottleneck link transmits in the data
direction (ccbench: downlink departures; ns-3: PhyTxEnd on the bottleneck
device). ccbench's wall time is the simulation alone (the Rust run, recording
included, without Python conversion); each scenario runs --repeat times and the
median is reported. Timings depend on the machine and its load: this script
measures, tests never assert on it.

    python3 bench/speed.py [--ns3] [--repeat 3] [--duration 60]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

from ccbench import _ccsim
from ccbench.run_result import raw_columns

HERE = os.path.dirname(os.path.abspath(__file__))


def scenario(flows: int, duration_s: float) -> dict:
    return {
        "name": f"speed-{flows}-cubic",
        "duration": duration_s,
        "seed": 1,
        "downlink": {"rate": "100Mbit", "delay": "50ms", "queue": {"size": "1bdp"}},
        "flows": [{"cc": "cubic", "count": flows}],
        # The benchmark measures the simulator, not the recording of per-ACK samples.
        "record": {"rtt_samples": False},
    }


def run_ccbench(flows: int, duration_s: float, repeat: int) -> dict:
    walls, last = [], None
    for _ in range(repeat):
        last = raw_columns(_ccsim.run(json.dumps(scenario(flows, duration_s))))
        walls.append(last["wall_seconds"])
    links = last["links"]
    down = list(links["link"]).index("downlink")
    packets = int(links["departures"][down])
    wall = statistics.median(walls)
    goodput = float(sum(last["flows"]["delivered_bytes"])) * 8 / duration_s
    return {
        "packets": packets,
        "wall_s": wall,
        "pps": packets / wall,
        "goodput_bps": goodput,
        "events": int(last["events"]),
    }


def run_ns3(flows: int, duration_s: float) -> dict:
    sys.path.insert(0, os.path.join(HERE, "ns3"))
    from ns3_runner import run_ns3 as ns3  # noqa: E402

    r = ns3("Cubic", flows=flows, rate_mbps=100, delay_ms=50, duration_s=duration_s, buffer_bdp=1.0)
    return {
        "packets": int(r["bottleneck_packets"]),
        "wall_s": float(r["wall_seconds"]),
        "pps": r["bottleneck_packets"] / r["wall_seconds"],
        "goodput_bps": float(r["aggregate_goodput_bps"]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns3", action="store_true", help="also run the same scenarios in ns-3 3.37 and compare")
    ap.add_argument("--repeat", type=int, default=3, help="ccbench runs per scenario (median reported)")
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
    args = ap.parse_args()

    print(f"{'scenario':<28}{'side':<9}{'bottleneck pkts':>16}{'wall s':>10}{'pkts/wall s':>14}{'goodput Mbit/s':>16}")
    for label, flows in (("(a) 1 cubic, 100M/50ms", 1), ("(b) 16 cubic, 100M/50ms", 16)):
        ours = run_ccbench(flows, args.duration, args.repeat)
        print(
            f"{label:<28}{'ccbench':<9}{ours['packets']:>16,}{ours['wall_s']:>10.3f}{ours['pps']:>14,.0f}"
            f"{ours['goodput_bps'] / 1e6:>16.2f}"
        )
        if args.ns3:
            ref = run_ns3(flows, args.duration)
            print(
                f"{'':<28}{'ns-3':<9}{ref['packets']:>16,}{ref['wall_s']:>10.3f}{ref['pps']:>14,.0f}"
                f"{ref['goodput_bps'] / 1e6:>16.2f}"
            )
            print(
                f"{'':<28}{'ratio':<9}{'':>16}{ref['wall_s'] / ours['wall_s']:>9.0f}x{ours['pps'] / ref['pps']:>13.0f}x"
                f"{(ours['goodput_bps'] / ref['goodput_bps'] - 1) * 100:>+15.1f}%"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
