#!/usr/bin/env python3
"""Reproduce the shape of one experiment of each paper for copa and vivace.

No independent implementation of either runs here (neither has a Linux or
ns-3 module), so the cross-check is against the papers' published shapes:

  copa/queue: the queue Copa keeps alone is about 1/delta packets (Arun and
    Balakrishnan, NSDI 2018, section 2.1: the target rate 1/(delta dq) at the
    equilibrium rate C gives dq = 1/(delta C), a queue of 1/delta packets).
    One flow, 10 Mbit/s, 40 ms RTT, 4 BDP of drop-tail buffer, 30 s; delta
    0.5, 0.25, 0.1, with and without the mode switch.
  copa/cubic: the co-existence experiment of the paper's evaluation (one
    Copa flow against buffer-filling Cubic flows on a deep buffer; the paper
    reports that Copa with its competitive mode takes about its share where
    delay-based schemes starve). 20 Mbit/s, 40 ms RTT, 4 BDP, 60 s, 1 Copa
    against 1 to 4 Cubic flows, with and without the mode switch; Copa's
    goodput over its fair share 1/(N+1) after 10 s.
  vivace/loss: the random-loss experiment of Dong et al., NSDI 2018
    (throughput of one flow against the random loss rate: Vivace keeps near
    capacity up to about 5%, where its loss term 11.35 x L overtakes the
    gain 0.9 x^-0.1 at 100 Mbit/s, while Cubic collapses at a fraction of
    1%). 100 Mbit/s, 30 ms RTT, 1 BDP, 180 s, Bernoulli loss 0 to 10%;
    vivace and cubic; goodput over capacity from 60 to 180 s (near the
    threshold Vivace climbs slowly: its probes are noisy).

The figure numbers of the papers were not checked here; the experiments are
named by their content. Prints the tables and writes them to
bench/results/today_figures.txt (and .json with --json).

    python3 bench/today_figures.py [--only copa,vivace] [--json bench/results/today_figures.json]
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np
from ccbench import _ccsim
from ccbench.run_result import raw_columns

HERE = os.path.dirname(os.path.abspath(__file__))
PAYLOAD_SHARE = 1448 / 1500


def run(scenario: dict) -> dict:
    return raw_columns(_ccsim.run(json.dumps(scenario)))


def queue_stats(r: dict, from_s: float) -> tuple[float, float]:
    ls = r["link_series"]
    keep = (np.asarray(ls["link"]) == "downlink") & (ls["t"] >= from_s)
    q = ls["queue_packets"][keep]
    return float(q.mean()), float(q.max())


def delivered_between(r: dict, flow: int, from_s: float, to_s: float) -> float:
    s = r["series"]
    keep = s["flow"] == flow
    t, d = s["t"][keep], s["delivered_bytes"][keep]
    at = lambda x: float(d[t <= x][-1]) if (t <= x).any() else 0.0  # noqa: E731
    return (at(to_s) - at(from_s)) * 8 / (to_s - from_s)


def mode_share(r: dict, flow: int, var: str, name: str) -> float:
    s = r["cc_state"]
    keep = (s["flow"] == flow) & (np.asarray(s["var"]) == var)
    t, labels = s["t"][keep], np.asarray(s["label"])[keep]
    # Time-weighted share of the run after the first 10 s spent in `name`.
    end = float(r["series"]["t"].max())
    total = 0.0
    for k in range(len(t)):
        a, b = max(t[k], 10.0), min(t[k + 1] if k + 1 < len(t) else end, end)
        if b > a and labels[k] == name:
            total += b - a
    return total / (end - 10.0)


def copa_queue() -> list[dict]:
    rows = []
    for competitive in (0, 1):
        for delta in (0.5, 0.25, 0.1):
            r = run(
                {
                    "duration": 30,
                    "downlink": {"rate": "10Mbit", "delay": "20ms", "queue": {"size": "4bdp"}},
                    "flows": [{"cc": "copa", "cc_params": {"delta": delta, "competitive": competitive}}],
                }
            )
            mean, peak = queue_stats(r, 10.0)
            util = delivered_between(r, 0, 10.0, 30.0) / (10e6 * PAYLOAD_SHARE)
            rows.append(
                {
                    "delta": delta,
                    "mode_switch": bool(competitive),
                    "expected_queue_pkts": 1 / delta,
                    "mean_queue_pkts": round(mean, 2),
                    "max_queue_pkts": peak,
                    "utilization": round(util, 3),
                    "default_mode_share": round(mode_share(r, 0, "mode", "default"), 3),
                }
            )
    return rows


def copa_cubic() -> list[dict]:
    rows = []
    for n in (1, 2, 3, 4):
        row = {"cubic_flows": n}
        for competitive in (1, 0):
            r = run(
                {
                    "duration": 60,
                    "downlink": {"rate": "20Mbit", "delay": "20ms", "queue": {"size": "4bdp"}},
                    "flows": [
                        {"cc": "cubic", "count": n},
                        {"cc": "copa", "cc_params": {"competitive": competitive}},
                    ],
                }
            )
            fair = 20e6 * PAYLOAD_SHARE / (n + 1)
            share = delivered_between(r, n, 10.0, 60.0) / fair
            key = "with_switch" if competitive else "default_only"
            row[f"copa_over_fair_{key}"] = round(share, 3)
            if competitive:
                row["competitive_share"] = round(mode_share(r, n, "mode", "competitive"), 3)
        rows.append(row)
    return rows


def vivace_loss() -> list[dict]:
    rows = []
    for p in (0.0, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.10):
        row = {"loss": p, "threshold_at_capacity": round(0.9 * 100**-0.1 / 11.35, 4)}
        for cc in ("vivace", "cubic"):
            link = {"rate": "100Mbit", "delay": "15ms", "queue": {"size": "1bdp"}}
            if p > 0:
                link["loss"] = {"model": "bernoulli", "p": p}
            r = run({"duration": 180, "downlink": link, "flows": [{"cc": cc}]})
            row[f"{cc}_utilization"] = round(delivered_between(r, 0, 60.0, 180.0) / (100e6 * PAYLOAD_SHARE), 3)
        rows.append(row)
    return rows


def table(rows: list[dict]) -> str:
    keys = list(rows[0])
    widths = [max(len(k), *(len(str(r[k])) for r in rows)) for k in keys]
    lines = ["  ".join(k.rjust(w) for k, w in zip(keys, widths))]
    lines += ["  ".join(str(r[k]).rjust(w) for k, w in zip(keys, widths)) for r in rows]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="copa,vivace", help="comma-separated: copa, vivace")
    ap.add_argument("--json", help="also write the rows as JSON here")
    args = ap.parse_args()
    only = set(args.only.split(","))
    out: dict[str, list[dict]] = {}
    if "copa" in only:
        out["copa/queue"] = copa_queue()
        out["copa/cubic"] = copa_cubic()
    if "vivace" in only:
        out["vivace/loss"] = vivace_loss()
    text = "\n\n".join(f"{name}\n{table(rows)}" for name, rows in out.items()) + "\n"
    print(text, end="")
    with open(os.path.join(HERE, "results", "today_figures.txt"), "w") as f:
        f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
