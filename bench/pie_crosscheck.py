#!/usr/bin/env python3
"""Cross-check ccbench's PIE queue against ns-3 3.37's PieQueueDisc on the same dumbbells.

Runs N cubic flows through a PIE bottleneck in ccbench (embedded simulator) and in
ns-3 (bench/ns3/dumbbell.cc --queue=pie, Debian's libns3-dev) and prints, side
by side, the bottleneck's queueing delay over the steady state (from
--steady-from-s to the end): the mean per packet, and p50/p95 of the 10 ms
interval means weighted by their packets (ccbench's link series; ns-3 bins its
per-packet sojourn times the same way), then aggregate goodput and bottleneck
drops over the whole run. Rows whose mean delay differs by more than 20% are
flagged with '!'.

With --udp-loads, the same links also carry only an unresponsive constant-bit-rate
UDP source (1500-byte datagrams) offering that multiple of the bottleneck rate:
the queue's control loop alone, without either simulator's TCP. (ccbench needs
one TCP flow in a scenario: a 1 kB transfer starting 10 ms before the end.)

Both sides: PIE with Linux sch_pie's defaults (target 15 ms, tupdate 15 ms,
alpha 0.125, beta 1.25, burst allowance 150 ms, limit 1000 packets,
derandomization), MSS 1448, IW 10, SACK, timestamps, delayed ACKs, minimum RTO
200 ms applied as RFC 6298 does (ns-3's rule), all flows start at 0. The
queueing delay is a packet's time in the queue, up to the start of its
transmission.

    python3 bench/pie_crosscheck.py [--flows 4,16] [--rates 20,100] [--seeds 1,2,3] [--udp-loads 1.1,1.5] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from ccbench import _ccsim
from ccbench.run_result import raw_columns

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "ns3"))
from ns3_runner import run_ns3  # noqa: E402

# ccbench name -> the ns-3 model's name as dumbbell.cc's --cc takes it, from
# the registry (`INFO.ns3`), for the algorithms bench/crosscheck.py finds close.
NS3_NAMES = {
    a["name"]: a["ns3"].removeprefix("ns3::Tcp") for a in _ccsim.algorithms() if a["name"] in ("cubic", "newreno")
}


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """Nearest-rank q-quantile of `values` weighted by `weights` (as dumbbell.cc computes it)."""
    keep = weights > 0
    values, weights = values[keep], weights[keep]
    if not len(values):
        return float("nan")
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cum, q * cum[-1])])


def run_ours(sc: dict) -> dict:
    scenario = {
        "duration": sc["duration_s"],
        "seed": sc["seed"],
        "record": {"interval": "10ms"},
        "downlink": {"rate": f"{sc['rate_mbps']}Mbit", "delay": f"{sc['delay_ms']}ms", "queue": {"kind": "pie"}},
        "flows": [{"cc": sc["cc"], "count": sc["flows"], "tcp": {"rto_style": "rfc6298"}}],
    }
    if sc["udp_load"]:
        last = f"{sc['duration_s'] - 0.01}s"
        scenario["flows"] = [{"cc": "cubic", "start": last, "size": "1kB"}]
        scenario["udp"] = [{"rate": f"{sc['udp_load'] * sc['rate_mbps']}Mbit"}]
    r = raw_columns(_ccsim.run(json.dumps(scenario)))
    links, ls = r["links"], r["link_series"]
    bottleneck = 0  # the downlink is the first link
    rows = ls["link"] == links["link"][bottleneck]
    t, sojourn, departed = ls["t"][rows], ls["sojourn_ms"][rows], ls["departures"][rows].astype(float)
    packets = np.diff(departed, prepend=0.0)
    steady = t > sc["steady_from_s"]  # a sample at t covers (t - 10 ms, t]
    w, d = packets[steady], np.nan_to_num(sojourn[steady])
    return {
        "delay_mean_ms": float((d * w).sum() / w.sum()),
        "delay_p50_ms": weighted_quantile(d, w, 0.5),
        "delay_p95_ms": weighted_quantile(d, w, 0.95),
        "goodput_bps": float(sum(r["flows"]["delivered_bytes"]) + sum(r["sources"]["bytes_delivered"]))
        * 8
        / sc["duration_s"],
        "drops": int(links["queue_drops"][bottleneck]),  # aqm_drops are a part of these
        "retransmitted": int(sum(r["flows"]["retransmitted_segments"])),
    }


def run_theirs(sc: dict) -> dict:
    extra = {"no_tcp": True, "udp_mbps": sc["udp_load"] * sc["rate_mbps"]} if sc["udp_load"] else {}
    r = run_ns3(
        NS3_NAMES[sc["cc"]],
        flows=max(1, sc["flows"]),
        rate_mbps=sc["rate_mbps"],
        delay_ms=sc["delay_ms"],
        duration_s=sc["duration_s"],
        seed=sc["seed"],
        min_rto_ms=200,
        queue="pie",
        steady_from_s=sc["steady_from_s"],
        **extra,
    )
    return {
        "delay_mean_ms": float(r["queue_delay_mean_ms"]),
        "delay_p50_ms": float(r["queue_delay_bin10ms_p50_ms"]),
        "delay_p95_ms": float(r["queue_delay_bin10ms_p95_ms"]),
        "goodput_bps": float(r["aggregate_goodput_bps"] + r["udp_goodput_bps"]),
        "drops": int(r["bottleneck_drops"]),
        "retransmitted": int(r["retransmitted_segments"]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cc", default="cubic", choices=sorted(NS3_NAMES))
    ap.add_argument("--flows", default="4,16")
    ap.add_argument("--rates", default="20,100", help="bottleneck rates, Mbit/s")
    ap.add_argument("--delay-ms", type=float, default=10.0, help="one-way delay (RTT = 2x)")
    ap.add_argument("--duration-s", type=float, default=30.0)
    ap.add_argument("--steady-from-s", type=float, default=10.0)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--udp-loads", default="", help="also: CBR UDP only, at these multiples of the rate")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="ns-3 runs in parallel")
    ap.add_argument("--json", help="write all numbers to this file")
    args = ap.parse_args()

    def scenario(flows: int, rate: str, seed: str, udp_load: float) -> dict:
        return {
            "flows": flows,
            "rate_mbps": float(rate),
            "delay_ms": args.delay_ms,
            "duration_s": args.duration_s,
            "steady_from_s": args.steady_from_s,
            "seed": int(seed),
            "cc": args.cc,
            "udp_load": udp_load,
        }

    rates, seeds = args.rates.split(","), args.seeds.split(",")
    scenarios = [scenario(int(n), r, s, 0.0) for n in args.flows.split(",") for r in rates for s in seeds]
    loads = filter(None, args.udp_loads.split(","))
    scenarios += [scenario(0, r, s, float(load)) for load in loads for r in rates for s in seeds]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        theirs = list(pool.map(run_theirs, scenarios))
    ours = [run_ours(sc) for sc in scenarios]

    print(
        f"{'load':>7}{'Mbit/s':>7}{'seed':>5} |{'mean delay ms':>16}{'diff':>8} |{'p50 ms':>12} |{'p95 ms':>12} |"
        f"{'goodput Mbit/s':>15} |{'drops':>14} |{'retransmitted':>14}"
    )
    print(
        f"{'':>19} |{'ccbench':>8}{'ns-3':>8}{'':>8} |{'ours':>6}{'ns-3':>6} |{'ours':>6}{'ns-3':>6} |"
        f"{'ours':>8}{'ns-3':>7} |{'ours':>7}{'ns-3':>7} |{'ours':>7}{'ns-3':>7}"
    )
    rows = []
    for sc, o, t in zip(scenarios, ours, theirs):
        diff = (o["delay_mean_ms"] - t["delay_mean_ms"]) / t["delay_mean_ms"]
        rows.append({"scenario": sc, "ccbench": o, "ns3": t, "delay_mean_diff": diff})
        flag = "!" if abs(diff) > 0.20 else " "
        load = f"udp{sc['udp_load']:g}x" if sc["udp_load"] else str(sc["flows"])
        print(
            f"{load:>7}{sc['rate_mbps']:>7g}{sc['seed']:>5} |{o['delay_mean_ms']:>8.1f}{t['delay_mean_ms']:>8.1f}"
            f"{diff * 100:>+7.0f}%{flag}|{o['delay_p50_ms']:>6.1f}{t['delay_p50_ms']:>6.1f} |"
            f"{o['delay_p95_ms']:>6.1f}{t['delay_p95_ms']:>6.1f} |"
            f"{o['goodput_bps'] / 1e6:>8.2f}{t['goodput_bps'] / 1e6:>7.2f} |{o['drops']:>7}{t['drops']:>7} |"
            f"{o['retransmitted']:>7}{t['retransmitted']:>7}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
