#!/usr/bin/env python3
"""Forwarding rate of the kernel-mode emulator (ccemu) and the CPU it costs.

One emulated link with 20 ms delay each way and a rate far above what the
machine can forward (10 Gbit/s), so the emulator, not the link model, is the
limit. Real kernel TCP (cubic, 64 MB buffers) fills it with 1500-byte packets
(MSS 1448 + headers); the delivered rate is measured at the receiving socket
over the last part of the run, and the emulator reports its own CPU time
(user + system, from getrusage). The issue's target is 1 Gbit/s of
1500-byte packets (Mahimahi tops out near 300 Mbit/s).

Needs root (see `ccbench emulate`). The machine may be shared: run it when
it is otherwise idle for a clean number.

    sudo python3 bench/emulator_rate.py [--seconds 10] [--flows 1] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from ccbench.emulate import runner


def scenario(seconds: float, flows: int, rate: str) -> dict:
    big = {"rmem_max": "64MB", "wmem_max": "64MB", "rmem_default": "1MB"}
    return {
        "name": "emulator forwarding rate",
        "duration": f"{seconds}s",
        "downlink": {"rate": rate, "delay": "20ms", "queue": {"size": "20000pkt"}},
        "flows": [{"cc": "cubic", "count": flows, "tcp": big}],
    }


def measure(seconds: float, flows: int, rate: str) -> dict:
    r = runner.emulate(scenario(seconds, flows, rate))
    a, b = seconds * 0.4, seconds - 0.1
    total = 0.0
    for _, s in r.series.groupby("flow"):
        t, d = s["t"].to_numpy(), s["delivered_bytes"].to_numpy(float)
        total += (np.interp(b, t, d) - np.interp(a, t, d)) * 8 / (b - a)
    down = r.links.iloc[0]
    stats = r.meta["emulator"]
    wall = stats["duration_s"]
    cpu = stats["cpu_user_s"] + stats["cpu_system_s"]
    return {
        "link_rate": rate,
        "flows": flows,
        "payload_gbps": total / 1e9,
        "wire_gbps": total / 1e9 * 1500 / 1448,
        "packets_per_s": total / 8 / 1448,
        "link_packets": int(down["delivered"]),
        "emulator_cpu_s": cpu,
        "emulator_cpu_share_of_one_core": cpu / wall,
        "priority_switches": stats["priority_switches"],
        "lateness_p99_us": stats["per_link"][0]["lateness_p99_us"],
        "overruns": stats["per_link"][0]["overruns"],
        "write_failures": stats["per_link"][0]["write_failures"],
        "queue_drops": int(down["queue_drops"]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--flows", type=int, default=1)
    ap.add_argument("--rate", default="10Gbit", help="the link's rate (default: far above the emulator's limit)")
    ap.add_argument("--json", help="also write the result here")
    args = ap.parse_args()
    m = measure(args.seconds, args.flows, args.rate)
    for k, v in m.items():
        print(f"{k:32s} {v:.4g}" if isinstance(v, float) else f"{k:32s} {v}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(m, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
