#!/usr/bin/env python3
"""Calibration: every study's reference condition, ccbench next to the study.

Each network profile is calibrated (by mechanism, see the profile's sources)
against ONE reference condition per study; the studies' other results are
kept apart to check the models afterwards. This script runs every reference
condition over several seeds and prints, per measured quantity, the study's
number next to ccbench's mean with its 95% confidence interval (Student t
over the seeds).

Reference conditions (the studies' own numbers):
  S1 umts      NewReno, one bulk flow of 100 s, downlink and uplink
  S3 lte-*     average over Cubic, Reno, Vegas, Westwood+ and Compound of a
               293 MB download and a 21.46 MB upload, per place and day period
  S5 wan-100ms Reno, Cubic and Vegas, one 100 s flow, default buffers:
               "close to the 100 Mbit/s capacity"
S2 hsdpa and S4 highspeed publish no reference numbers; their rows show
ccbench's values of the profile's stated characteristics, with no study
column.

The study stack is the kernel preset of the release each study ran
(`tcp = { kernel = ... }`: 2.6.24 for UMTS and HSDPA, 2.6.32 for the WAN,
3.5 for LTE), as the shipped study files use.

    python3 bench/calibration.py [--seeds 10] [--jobs 2] [--only umts,lte,wan,hsdpa,highspeed]
        [--out bench/results/calibration.txt]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import ccbench
import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))

#: The studies' stacks: the kernel presets of the releases they ran.
STACK_2_6_24 = {"kernel": "2.6.24"}
STACK_2_6_32 = {"kernel": "2.6.32"}
STACK_3_5 = {"kernel": "3.5"}


@dataclass
class Quantity:
    """One measured quantity of a reference row."""

    label: str
    study: float | None  # None: no published number
    pick: str  # "flow:<column>" or "link:<column>" (downlink/uplink chosen by the row)
    scale: float = 1.0
    #: "mean": the mean over seeds with its CI; "std": the standard deviation over seeds (the
    #: study's spread between connections), without a CI.
    over_seeds: str = "mean"


@dataclass
class Row:
    study: str
    name: str
    scenario: dict
    link: str
    quantities: list[Quantity]
    #: Several variants (algorithms) averaged per seed, as the LTE study's "average over all schemes".
    variants: list[dict] | None = None


def _flow(cc: str, direction: str, tcp: dict, **extra) -> dict:
    return {"cc": cc, "direction": direction, "tcp": dict(tcp), **extra}


def umts_rows() -> list[Row]:
    q_down = [
        Quantity("goodput kbit/s", 122.03, "flow:goodput_bps", 1e-3),
        Quantity("goodput std over connections", 65.38, "flow:goodput_bps", 1e-3, "std"),
        Quantity("utilization % (of 384 kbit/s)", 31.8, "flow:goodput_bps", 100 / 384e3),
        Quantity("RTT mean ms", 1550, "flow:rtt_mean_ms"),
        Quantity("RTT std ms", 1096, "flow:rtt_std_ms"),
        Quantity("queuing mean ms", 1248, "flow:queuing_mean_ms"),
        Quantity("timeouts per 100 s", 5.84, "flow:timeouts_per_100s"),
        Quantity("retransmitted %", 7.13, "flow:retrans_pct"),
    ]
    q_up = [
        Quantity("goodput kbit/s", 56.44, "flow:goodput_bps", 1e-3),
        Quantity("goodput std over connections", 2.09, "flow:goodput_bps", 1e-3, "std"),
        Quantity("utilization % (of 64 kbit/s)", 88.2, "flow:goodput_bps", 100 / 64e3),
        Quantity("RTT mean ms", 1471, "flow:rtt_mean_ms"),
        Quantity("RTT std ms", 113.2, "flow:rtt_std_ms"),
        Quantity("queuing mean ms", 927, "flow:queuing_mean_ms"),
        Quantity("timeouts per 100 s", 0.15, "flow:timeouts_per_100s"),
        Quantity("retransmitted %", 0.04, "flow:retrans_pct"),
    ]
    rows = []
    for direction, link, qs in (("down", "downlink", q_down), ("up", "uplink", q_up)):
        tcp = STACK_2_6_24
        scenario = {
            "name": f"umts {direction}",
            "duration": "100s",
            "profile": "umts",
            "flows": [_flow("newreno", direction, tcp)],
        }
        label = f"NewReno, 1 flow, {link}"
        rows.append(Row("S1 umts", label, scenario, link, qs))
    return rows


#: S3 reference: mean over the five schemes, Mbit/s, per place and period (down, up).
#: The profiles: lte-good is VAMK, lte-edge Ahventie, lte-poor Olympia (by their measured speeds).
LTE_PROFILE = {"vamk": "lte-good", "ahventie": "lte-edge", "olympia": "lte-poor"}
LTE_REFERENCE = {
    "vamk": {
        "early-morning": (25.46, 6.35),
        "forenoon": (25.81, 6.11),
        "afternoon": (25.09, 5.95),
        "evening": (24.62, 5.77),
    },
    "ahventie": {
        "early-morning": (23.28, 4.02),
        "forenoon": (22.19, 3.25),
        "afternoon": (22.15, 3.28),
        "evening": (22.14, 3.44),
    },
    "olympia": {
        "early-morning": (21.22, 2.95),
        "forenoon": (21.15, 2.90),
        "afternoon": (20.29, 2.83),
        "evening": (20.20, 2.74),
    },
}
LTE_SCHEMES = ["cubic", "reno", "vegas", "westwood+", "compound"]


def lte_rows() -> list[Row]:
    rows = []
    for place, periods in LTE_REFERENCE.items():
        for period, (down, up) in periods.items():
            for direction, link, size, ref in (
                ("down", "downlink", "293MB", down),
                ("up", "uplink", "21.46MB", up),
            ):
                scenario = {
                    "name": f"lte {place} {period} {direction}",
                    "duration": "300s",
                    "profile": {"name": LTE_PROFILE[place], "load": period},
                    "flows": [_flow("cubic", direction, STACK_3_5, size=size)],
                }
                variants = [{"cc": cc} for cc in LTE_SCHEMES]
                qs = [Quantity("speed Mbit/s (5 schemes)", ref, "flow:goodput_bps", 1e-6)]
                rows.append(Row("S3 lte", f"{place} {period} {link}", scenario, link, qs, variants))
    return rows


def wan_rows() -> list[Row]:
    rows = []
    for cc in ("reno", "cubic", "vegas"):
        scenario = {
            "name": f"wan {cc}",
            "duration": "100s",
            "profile": "wan-100ms",
            "flows": [_flow(cc, "down", STACK_2_6_32)],
        }
        qs = [Quantity("goodput Mbit/s (close to 100)", 100.0, "flow:goodput_bps", 1e-6)]
        rows.append(Row("S5 wan", f"{cc}, 100 ms, default buffers", scenario, "downlink", qs))
    return rows


def hsdpa_rows() -> list[Row]:
    qs = [
        Quantity("goodput kbit/s", None, "flow:goodput_bps", 1e-3),
        Quantity("RTT mean ms", None, "flow:rtt_mean_ms"),
        Quantity("timeouts per 100 s", None, "flow:timeouts_per_100s"),
        Quantity("retransmitted %", None, "flow:retrans_pct"),
    ]
    rows = []
    for direction, link in (("down", "downlink"), ("up", "uplink")):
        scenario = {
            "name": f"hsdpa {direction}",
            "duration": "100s",
            "profile": "hsdpa",
            "flows": [_flow("newreno", direction, STACK_2_6_24)],
        }
        rows.append(Row("S2 hsdpa", f"NewReno, 1 flow, {link}", scenario, link, qs))
    return rows


def highspeed_rows() -> list[Row]:
    rows = []
    for cc in ("reno", "cubic"):
        scenario = {
            "name": f"highspeed {cc}",
            "duration": "150s",
            "profile": "highspeed-200ms",
            "flows": [_flow(cc, "down", {"kernel": "2.6.26"})],
            "udp": [{"rate": "200Mbit", "start": "50s", "stop": "100s"}],
        }
        qs = [
            Quantity("goodput Mbit/s (150 s)", None, "flow:goodput_bps", 1e-6),
            Quantity("retransmitted %", None, "flow:retrans_pct"),
        ]
        rows.append(Row("S4 highspeed", f"{cc}, 200 ms, UDP 50-100 s", scenario, "downlink", qs))
    return rows


GROUPS = {"umts": umts_rows, "hsdpa": hsdpa_rows, "lte": lte_rows, "highspeed": highspeed_rows, "wan": wan_rows}


def _measure(args: tuple[dict, str, list[str], int]) -> list[float]:
    """Runs one scenario with `seed`; returns the value of every pick."""
    scenario, link, picks, seed = args
    r = ccbench.run(scenario, seed=seed)
    flow = r.flows.iloc[0]
    row = r.links.set_index("link").loc[link]
    return [float(flow[p[5:]] if p.startswith("flow:") else row[p[5:]]) for p in picks]


def _with_cc(scenario: dict, variant: dict) -> dict:
    s = {**scenario, "flows": [{**f, **variant} for f in scenario["flows"]]}
    return s


def ci95(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half width of its 95% confidence interval (Student t)."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        return float("nan"), float("nan")
    if v.size == 1:
        return float(v[0]), float("nan")
    half = stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size)
    return float(v.mean()), float(half)


def run_row(row: Row, seeds: int, pool: ProcessPoolExecutor) -> list[tuple[Quantity, float, float]]:
    picks = [q.pick for q in row.quantities]
    variants = row.variants or [{}]
    jobs = [(_with_cc(row.scenario, v), row.link, picks, seed) for seed in range(1, seeds + 1) for v in variants]
    results = np.array(list(pool.map(_measure, jobs)), dtype=float)
    # Per seed: the mean over the variants (the LTE study's average over schemes).
    per_seed = results.reshape(seeds, len(variants), len(picks)).mean(axis=1)
    return [(q, *_over_seeds(q, per_seed[:, i] * q.scale)) for i, q in enumerate(row.quantities)]


def _over_seeds(q: Quantity, values: np.ndarray) -> tuple[float, float]:
    if q.over_seeds == "std":
        v = values[np.isfinite(values)]
        return (float(v.std(ddof=1)) if v.size > 1 else float("nan")), float("nan")
    return ci95(values)


def _fmt(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--lte-seeds", type=int, default=3, help="seeds of each LTE row (5 runs per seed: one per scheme)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default=",".join(GROUPS))
    ap.add_argument("--out", default=None, help="also write the table to this file")
    args = ap.parse_args()
    commit = subprocess.run(
        ["git", "-C", HERE, "describe", "--always", "--dirty", "--abbrev=12"], capture_output=True, text=True
    ).stdout.strip()
    lines = [
        f"ccbench calibration against the studies' reference conditions (commit {commit or 'unknown'})",
        "command: python3 bench/calibration.py " + " ".join(sys.argv[1:]),
        "ccbench: mean over seeds +/- half width of the 95% CI (Student t); study: the study's own number",
        "",
        f"{'study':<13} {'condition':<38} {'quantity':<32} {'study':>8} {'ccbench':>9} {'+/-':>7} {'n':>3}",
    ]
    print("\n".join(lines), flush=True)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for group in args.only.split(","):
            seeds = args.lte_seeds if group == "lte" else args.seeds
            for row in GROUPS[group]():
                for q, mean, half in run_row(row, seeds, pool):
                    line = (
                        f"{row.study:<13} {row.name:<38} {q.label:<32} {_fmt(q.study):>8} "
                        f"{_fmt(mean):>9} {_fmt(half):>7} {seeds:>3}"
                    )
                    lines.append(line)
                    print(line, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
