"""The result model of one run: tidy pandas tables plus the facts that describe them.

`Result.from_raw` turns the simulator's columnar output into DataFrames and adds
the metrics of ccbench.metrics (per flow, per link, per sample). The same
object is rebuilt from a saved run directory by ccbench.results.load, so plots
and reports work from saved results only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ccbench import metrics

#: Version of the tables' layout and of meta.json; bump on incompatible change.
SCHEMA_VERSION = 1

LINK_OF_DIRECTION = {"down": "downlink", "up": "uplink"}


def _frame(columns: dict) -> pd.DataFrame:
    return pd.DataFrame({k: (np.asarray(v) if not isinstance(v, list) else v) for k, v in columns.items()})


def flow_summary(flows: pd.DataFrame, rtt: pd.DataFrame) -> pd.DataFrame:
    """The simulator's per-flow counters plus the SPEC's per-flow metrics."""
    out = flows.copy()
    out["link"] = out["direction"].map(LINK_OF_DIRECTION)
    active = metrics.active_seconds(out["start_s"], out["end_s"], out["completion_s"])
    out["active_s"] = active
    out["goodput_bps"] = metrics.rate_bps(out["delivered_bytes"], active)
    out["throughput_bps"] = metrics.rate_bps(out["bytes_sent"], active)
    out["retrans_pct"] = metrics.retransmission_pct(out["retransmitted_segments"], out["segments_sent"])
    out["timeouts_per_100s"] = metrics.per_100s(out["timeouts"], active)
    stats = metrics.rtt_stats_per_flow(rtt, out["flow"])
    for c in stats.columns:
        out[c] = stats[c].to_numpy()
    return out


def series_with_rates(series: pd.DataFrame) -> pd.DataFrame:
    """Adds per-interval goodput_bps and throughput_bps (from the diffs of
    delivered_bytes and bytes_sent between a flow's consecutive samples)."""
    out = series.copy()
    good = np.full(len(out), np.nan)
    thr = np.full(len(out), np.nan)
    for _, idx in out.groupby("flow", sort=True).indices.items():
        t = out["t"].to_numpy()[idx]
        good[idx] = metrics.interval_rates(t, out["delivered_bytes"].to_numpy()[idx])
        thr[idx] = metrics.interval_rates(t, out["bytes_sent"].to_numpy()[idx])
    out["goodput_bps"] = good
    out["throughput_bps"] = thr
    return out


def link_capacity_bps(links: pd.DataFrame, flows: pd.DataFrame, scenario: dict) -> np.ndarray:
    """Payload capacity of each link: its nominal rate (a trace's mean rate when
    the simulator reports `mean_rate_bps`) times the payload share of a full
    segment of the flows whose data it carries (mss / (mss + 40 + 12 with timestamps))."""
    nominal = links["mean_rate_bps"] if "mean_rate_bps" in links else links["rate_bps"]
    caps = []
    for name, rate in zip(links["link"], nominal.to_numpy(dtype=float)):
        groups = flows.loc[flows["link"] == name, "group"].to_numpy()
        shares = [metrics.payload_share(scenario["flows"][g]["tcp"]["mss"], scenario["flows"][g]["tcp"]["timestamps"])
                  for g in groups]
        caps.append(rate * (float(np.mean(shares)) if shares else 1.0))
    return np.asarray(caps)


def link_summary(links: pd.DataFrame, flows: pd.DataFrame, scenario: dict) -> pd.DataFrame:
    """Links plus payload capacity, the sum of their flows' goodputs and the
    channel utilization (sum of goodputs / payload capacity)."""
    out = links.copy()
    out["capacity_bps"] = link_capacity_bps(links, flows, scenario)
    sums = flows.groupby("link")["goodput_bps"].sum()
    out["goodput_bps"] = [float(sums.get(n, 0.0)) for n in out["link"]]
    out["utilization"] = [metrics.utilization([g], c) for g, c in zip(out["goodput_bps"], out["capacity_bps"])]
    return out


@dataclass
class Result:
    """One run. Tables: `flows` (per-flow summary with metrics), `series`
    (sampled kernel-style variables plus interval goodput/throughput), `rtt`
    (per-ACK samples), `links` (counters, capacity, utilization),
    `link_series`. `meta`: schema_version, seed, scenario, ccbench_version,
    events, duration_s (and wall_seconds for a fresh run)."""

    flows: pd.DataFrame
    series: pd.DataFrame
    rtt: pd.DataFrame
    links: pd.DataFrame
    link_series: pd.DataFrame
    meta: dict = field(default_factory=dict)

    @classmethod
    def from_raw(cls, raw: dict, scenario: dict, version: str) -> "Result":
        rtt = _frame(raw["rtt"])
        flows = flow_summary(_frame(raw["flows"]), rtt)
        meta = {
            "schema_version": SCHEMA_VERSION,
            "ccbench_version": version,
            "seed": scenario["seed"],
            "scenario": scenario,
            "events": int(raw["events"]),
            "duration_s": float(raw["duration_s"]),
            "wall_seconds": float(raw["wall_seconds"]),
        }
        return cls(
            flows=flows,
            series=series_with_rates(_frame(raw["series"])),
            rtt=rtt,
            links=link_summary(_frame(raw["links"]), flows, scenario),
            link_series=_frame(raw["link_series"]),
            meta=meta,
        )

    @property
    def scenario(self) -> dict:
        return self.meta["scenario"]

    def jain_index(self, link: str | None = None) -> float:
        """Jain's fairness index over the flows' goodputs (of one link, if given)."""
        f = self.flows if link is None else self.flows[self.flows["link"] == link]
        return metrics.jain_index(f["goodput_bps"])

    def window_throughput(self, a: float, b: float, what: str = "throughput") -> pd.Series:
        """Mean rate (bit/s) of each flow in the window [a, b) seconds:
        'throughput' counts payload bytes sent (retransmissions included),
        'goodput' bytes delivered in order. Indexed by flow id."""
        column = {"throughput": "bytes_sent", "goodput": "delivered_bytes"}[what]
        out = {}
        for fid in self.flows["flow"]:
            s = self.series[self.series["flow"] == fid]
            out[int(fid)] = metrics.window_rate_bps(s["t"], s[column], a, b)
        return pd.Series(out, name=f"{what}_bps_{a:g}_{b:g}", dtype=float)

    def recovery_ratio(self, before=(0.0, 50.0), after=(100.0, 150.0), what: str = "throughput") -> pd.Series:
        """Per flow: rate in `after` over rate in `before` (the high-speed study's
        throughput(100-150 s) / throughput(0-50 s))."""
        b = self.window_throughput(*before, what=what)
        a = self.window_throughput(*after, what=what)
        return pd.Series({k: metrics.recovery_ratio(a[k], b[k]) for k in b.index}, name="recovery_ratio", dtype=float)
