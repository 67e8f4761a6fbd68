#!/usr/bin/env python3
"""Cross-check ccbench's congestion controls against ns-3 3.37 on the same dumbbells.

For every algorithm that both simulators implement, runs the same scenarios in
ccbench (embedded simulator) and in ns-3 (bench/ns3/dumbbell.cc, Debian's
libns3-dev) and prints aggregate goodput, retransmitted segments and mean RTT
side by side with the relative differences. Rows where goodput differs by more
than 10% or mean RTT by more than 25% are flagged with '!' for investigation.

Scenarios:
  A: 1 flow, 10 Mbit/s, 100 ms one-way, 1 BDP drop-tail buffer, 100 s
  B: 4 flows, 100 Mbit/s, 50 ms one-way, 1 BDP drop-tail buffer, 60 s

Both sides use the same TCP settings: MSS 1448, IW 10, SACK, timestamps,
delayed ACKs (2 segments, 40 ms), minimum RTO 200 ms applied as RFC 6298 does
(ns-3's rule), drop-tail bottleneck of rate x 2 x delay in 1500-byte packets,
reverse path of the same rate and delay. DCTCP runs with ECN step marking at
K = BDP/7 packets on both sides. Mean RTT is the mean of all per-ACK samples
(ns-3's are whole milliseconds because its timestamps tick in ms).

Where our default follows the paper and Linux differs (vegas, lp), the
algorithm also runs with cc_params linux=1 (rows "vegas:linux", "lp:linux"),
against the same ns-3 run: ns-3 ports the Linux modules.

ns-3 is slow (about 10k packets per wall second here): scenario B takes about a
minute per algorithm. Use --jobs to run ns-3 in parallel, --only to pick
algorithms, --scenarios A to skip B.

    python3 bench/crosscheck.py [--only cubic,vegas] [--scenarios A,B] [--jobs 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from ccbench import _ccsim
from ccbench.run_result import raw_columns

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "ns3"))
from ns3_runner import run_ns3  # noqa: E402

# ccbench name -> the ns-3 model's name as dumbbell.cc's --cc takes it (its
# TypeId without "ns3::Tcp"), for every algorithm whose registry entry names
# an ns-3 3.37 model (cc/NAME.rs `INFO.ns3`).
NS3_NAMES = {a["name"]: a["ns3"].removeprefix("ns3::Tcp") for a in _ccsim.algorithms() if a["ns3"]}

# Algorithms whose default follows the paper (or SPEC) where Linux differs also
# run with `cc_params = {"linux": 1}`, the reading of the Linux module that
# ns-3 ports; those rows are labelled "<name>:linux".
LINUX_VARIANTS = ("vegas", "lp")

SCENARIOS = {
    "A": {"flows": 1, "rate_mbps": 10, "delay_ms": 100, "duration_s": 100},
    "B": {"flows": 4, "rate_mbps": 100, "delay_ms": 50, "duration_s": 60},
}


def bdp_packets(sc: dict) -> int:
    return max(2, round(sc["rate_mbps"] * 1e6 * 2 * sc["delay_ms"] / 1e3 / 8 / 1500))


def ecn_threshold(sc: dict) -> int:
    return max(5, math.ceil(bdp_packets(sc) / 7))


def split_variant(label: str) -> tuple[str, dict]:
    """'lp:linux' -> ('lp', {'linux': 1}); 'cubic' -> ('cubic', {})."""
    cc, _, variant = label.partition(":")
    return cc, ({"linux": 1} if variant == "linux" else {})


def run_ours(label: str, sc: dict, rto_style: str) -> dict:
    cc, params = split_variant(label)
    queue = {"size": "1bdp"}
    if cc == "dctcp":
        queue["ecn_threshold"] = ecn_threshold(sc)
    scenario = {
        "duration": sc["duration_s"],
        "seed": 1,
        "downlink": {"rate": f"{sc['rate_mbps']}Mbit", "delay": f"{sc['delay_ms']}ms", "queue": queue},
        "flows": [{"cc": cc, "cc_params": params, "count": sc["flows"], "tcp": {"rto_style": rto_style}}],
    }
    r = raw_columns(_ccsim.run(json.dumps(scenario)))
    rtt = r["rtt"]["rtt_ms"]
    return {
        "goodput_bps": float(sum(r["flows"]["delivered_bytes"])) * 8 / sc["duration_s"],
        "retransmitted": int(sum(r["flows"]["retransmitted_segments"])),
        "mean_rtt_ms": float(rtt.mean()) if len(rtt) else float("nan"),
        "timeouts": int(sum(r["flows"]["timeouts"])),
    }


def run_theirs(label: str, sc: dict) -> dict:
    cc, _ = split_variant(label)
    extra = {"ecn_threshold_pkts": ecn_threshold(sc)} if cc == "dctcp" else {}
    r = run_ns3(
        NS3_NAMES[cc],
        flows=sc["flows"],
        rate_mbps=sc["rate_mbps"],
        delay_ms=sc["delay_ms"],
        duration_s=sc["duration_s"],
        buffer_bdp=1.0,
        seed=1,
        min_rto_ms=200,
        **extra,
    )
    return {
        "goodput_bps": float(r["aggregate_goodput_bps"]),
        "retransmitted": int(r["retransmitted_segments"]),
        "mean_rtt_ms": float(r["mean_rtt_ms"]),
        "timeouts": int(r.get("rto_events", 0)),
    }


def rel(a: float, b: float) -> float:
    return (a - b) / b if b else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated ccbench algorithm names")
    ap.add_argument("--scenarios", default="A,B")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="ns-3 runs in parallel")
    ap.add_argument("--rto-style", default="rfc6298", choices=["rfc6298", "linux"])
    ap.add_argument("--json", help="write all numbers to this file")
    args = ap.parse_args()

    registered = {a["name"] for a in _ccsim.algorithms()}
    wanted = args.only.split(",") if args.only else list(NS3_NAMES)
    missing = [c for c in wanted if c not in registered]
    if missing:
        print(f"not implemented in ccbench yet, skipped: {', '.join(missing)}")
    algos = [c for c in wanted if c in registered and c in NS3_NAMES]
    algos = [label for c in algos for label in ([c, f"{c}:linux"] if c in LINUX_VARIANTS else [c])]
    jobs = [(cc, name) for name in args.scenarios.split(",") for cc in algos]

    # ns-3 runs once per algorithm and scenario, whatever our variants.
    ns3_jobs = sorted({(split_variant(label)[0], name) for label, name in jobs})
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        ns3 = dict(zip(ns3_jobs, pool.map(lambda j: run_theirs(j[0], SCENARIOS[j[1]]), ns3_jobs)))
    theirs = [ns3[(split_variant(label)[0], name)] for label, name in jobs]
    rows = []
    for (cc, name), ref in zip(jobs, theirs):
        ours = run_ours(cc, SCENARIOS[name], args.rto_style)
        rows.append(
            {
                "scenario": name,
                "cc": cc,
                "ccbench": ours,
                "ns3": ref,
                "goodput_diff": rel(ours["goodput_bps"], ref["goodput_bps"]),
                "rtt_diff": rel(ours["mean_rtt_ms"], ref["mean_rtt_ms"]),
            }
        )

    head = (
        f"{'sc':<3}{'algorithm':<13}{'goodput Mbit/s':>22}{'diff':>8}"
        f"{'retransmitted':>18}{'mean RTT ms':>20}{'diff':>8}{'RTOs':>10}"
    )
    print(head)
    print(
        f"{'':<16}{'ccbench':>11}{'ns-3':>11}{'':>8}{'ccbench':>9}{'ns-3':>9}"
        f"{'ccbench':>10}{'ns-3':>10}{'':>8}{'ours/ns3':>10}"
    )
    for r in rows:
        o, t = r["ccbench"], r["ns3"]
        flag = "!" if abs(r["goodput_diff"]) > 0.10 or abs(r["rtt_diff"]) > 0.25 else " "
        print(
            f"{r['scenario']:<3}{r['cc']:<13}{o['goodput_bps'] / 1e6:>11.2f}{t['goodput_bps'] / 1e6:>11.2f}"
            f"{r['goodput_diff'] * 100:>+7.1f}%"
            f"{o['retransmitted']:>9}{t['retransmitted']:>9}{o['mean_rtt_ms']:>10.1f}{t['mean_rtt_ms']:>10.1f}"
            f"{r['rtt_diff'] * 100:>+7.1f}%"
            f"{o['timeouts']:>5}/{t['timeouts']:<4}{flag}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
