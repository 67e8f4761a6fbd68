"""The result model of one run: tidy pandas tables plus the facts that describe them.

`Result.from_raw` turns the simulator's columnar output into DataFrames and adds
the metrics of ccbench.metrics (per flow, per link, per sample). The same
object is rebuilt from a saved run directory by ccbench.run_files.load, so plots
and reports work from saved results only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ccbench import metrics

#: Version of the tables' layout and of meta.json; bump on incompatible change.
SCHEMA_VERSION = 1

#: The dumbbell shorthand's routes: (data links, ACK links) per direction.
DUMBBELL_ROUTES = {"down": (["downlink"], ["uplink"]), "up": (["uplink"], ["downlink"])}
#: Separator of the link names in the flows table's `route` and `ack_route`.
ROUTE_SEPARATOR = ">"


def flow_routes(scenario: dict) -> list[tuple[list[str], list[str]]]:
    """Per [[flows]] entry of a normalized scenario: the links its data
    crosses and those its ACKs cross, in order (the shorthand's direction
    "down" is (["downlink"], ["uplink"]))."""
    if scenario.get("links"):
        return [(list(f["route"]), list(f["ack_route"])) for f in scenario["flows"]]
    return [DUMBBELL_ROUTES[f.get("direction", "down")] for f in scenario["flows"]]


def route_links(route: str) -> list[str]:
    """The link names of a `route` cell of the flows table."""
    return route.split(ROUTE_SEPARATOR) if route else []


def _frame(columns: dict) -> pd.DataFrame:
    return pd.DataFrame({k: (np.asarray(v) if not isinstance(v, list) else v) for k, v in columns.items()})


#: The per-flow metrics the simulator core puts in its flows table.
FLOW_METRIC_COLUMNS = ["active_s", "goodput_bps", "throughput_bps", "retrans_pct", "timeouts_per_100s"]
#: The per-link metrics the simulator core puts in its links table.
LINK_METRIC_COLUMNS = ["capacity_bps", "goodput_bps", "utilization", "nominal_utilization"]


def flow_summary(flows, rtt, scenario: dict, links) -> pd.DataFrame:
    """The per-flow counters and the SPEC's per-flow metrics, plus each
    flow's `route` and `ack_route` (link names joined by ">") and `link`: its
    bottleneck, the slowest link of its data route by the links table's
    `rate_bps` (the first of equals). The simulator core computes the metrics
    (from every RTT sample, whatever `record.rtt_samples` kept); a table
    without them (the kernel emulator's) gets them from ccbench.metrics and
    the `rtt` table. `flows`, `rtt` and `links`: DataFrames or dicts of
    columns; `scenario`: the normalized scenario."""
    cols = {c: list(flows[c]) if c in ("cc", "direction") else np.asarray(flows[c]) for c in flows}
    routes = flow_routes(scenario)
    rate = dict(zip(links["link"], np.asarray(links["rate_bps"], dtype=float)))
    data = [routes[g][0] for g in cols["group"]]
    cols["route"] = [ROUTE_SEPARATOR.join(r) for r in data]
    cols["ack_route"] = [ROUTE_SEPARATOR.join(routes[g][1]) for g in cols["group"]]
    cols["link"] = [min(r, key=lambda name: rate[name]) for r in data]
    if "goodput_bps" not in cols:
        cols.update(flow_metrics(cols))
    if "rtt_mean_ms" not in cols:
        stats = metrics.rtt_stats_per_flow(rtt, cols["flow"])
        cols.update({c: stats[c].to_numpy() for c in stats.columns})
    return pd.DataFrame(cols)


def flow_metrics(cols: dict) -> dict:
    """FLOW_METRIC_COLUMNS from a flows table's counters, for a table that
    comes without them (the core's are the same definitions)."""
    active = metrics.active_seconds(cols["start_s"], cols["end_s"], cols["completion_s"])
    return {
        "active_s": active,
        "goodput_bps": metrics.rate_bps(cols["delivered_bytes"], active),
        "throughput_bps": metrics.rate_bps(cols["bytes_sent"], active),
        "retrans_pct": metrics.retransmission_pct(cols["retransmitted_segments"], cols["segments_sent"]),
        "timeouts_per_100s": metrics.per_100s(cols["timeouts"], active),
    }


def series_with_rates(series: pd.DataFrame) -> pd.DataFrame:
    """Adds per-interval goodput_bps and throughput_bps (from the diffs of
    delivered_bytes and bytes_sent between a flow's consecutive samples)."""
    good = np.full(len(series), np.nan)
    thr = np.full(len(series), np.nan)
    t_all, d_all, s_all = (series[c].to_numpy() for c in ("t", "delivered_bytes", "bytes_sent"))
    for _, idx in series.groupby("flow", sort=True).indices.items():
        good[idx] = metrics.interval_rates(t_all[idx], d_all[idx])
        thr[idx] = metrics.interval_rates(t_all[idx], s_all[idx])
    return series.assign(goodput_bps=good, throughput_bps=thr)


def link_capacity_bps(links: pd.DataFrame, flows: pd.DataFrame, scenario: dict) -> np.ndarray:
    """Payload capacity of each link: the rate the simulator reports for it
    (`rate_bps`: the nominal rate, or the mean rate of a trace or rate process)
    times the payload share of a full segment of the flows whose data it
    carries (mss / (mss + 40, + 12 with timestamps))."""
    nominal = links["rate_bps"]
    caps = []
    for name, rate in zip(links["link"], nominal.to_numpy(dtype=float)):
        groups = flows.loc[_crossing(flows, name), "group"].to_numpy()
        shares = [
            metrics.payload_share(scenario["flows"][g]["tcp"]["mss"], scenario["flows"][g]["tcp"]["timestamps"])
            for g in groups
        ]
        caps.append(rate * (float(np.mean(shares)) if shares else 1.0))
    return np.asarray(caps)


def _crossing(flows: pd.DataFrame, link: str) -> np.ndarray:
    """Which flows' data route crosses `link` (saved results without a
    `route` column: the flows whose `link` it is)."""
    if "route" not in flows:
        return (flows["link"] == link).to_numpy()
    return np.array([link in route_links(r) for r in flows["route"]], dtype=bool)


def link_summary(links: pd.DataFrame, flows: pd.DataFrame, scenario: dict) -> pd.DataFrame:
    """Links plus payload capacity, the sum of the goodputs of the flows
    whose data crosses them, the channel utilization (sum of goodputs /
    payload capacity) and `nominal_utilization` (sum of goodputs / the
    link's nominal `rate_bps`, headers counted as overhead: the measurement
    studies' definition, e.g. 56.44 of 64 kbit/s = 88.2%). Note: flows active for different times make the sum
    of goodputs overstate the share they used together (the SPEC's
    definition presumes equal active times). The simulator core computes
    these; a links table without them (the kernel emulator's) gets them here."""
    if all(c in links for c in LINK_METRIC_COLUMNS):
        return links
    caps = link_capacity_bps(links, flows, scenario)
    goodput = np.array([float(flows.loc[_crossing(flows, n), "goodput_bps"].sum()) for n in links["link"]])
    return links.assign(
        capacity_bps=caps,
        goodput_bps=goodput,
        utilization=[metrics.utilization([g], c) for g, c in zip(goodput, caps)],
        nominal_utilization=[
            metrics.utilization([g], c) for g, c in zip(goodput, links["rate_bps"].to_numpy(dtype=float))
        ],
    )


@dataclass
class Result:
    """One run. Tables: `flows` (per-flow summary with metrics), `series`
    (sampled kernel-style variables plus interval goodput/throughput), `rtt`
    (per-ACK samples), `links` (counters, capacity, utilization),
    `link_series`, `sources` and `source_series` (UDP and background traffic).
    `meta`: schema_version, seed, scenario, ccbench_version, events,
    duration_s, pcap (path and packets, when one was asked for), and
    wall_seconds for a fresh run."""

    flows: pd.DataFrame
    series: pd.DataFrame
    rtt: pd.DataFrame
    links: pd.DataFrame
    link_series: pd.DataFrame
    sources: pd.DataFrame = field(default_factory=pd.DataFrame)
    source_series: pd.DataFrame = field(default_factory=pd.DataFrame)
    meta: dict = field(default_factory=dict)

    @classmethod
    def from_raw(cls, raw: dict, scenario: dict, version: str) -> Result:
        flows = flow_summary(raw["flows"], raw["rtt"], scenario, raw["links"])
        meta = {
            "schema_version": SCHEMA_VERSION,
            "ccbench_version": version,
            "seed": scenario["seed"],
            "scenario": scenario,
            "events": int(raw["events"]),
            "duration_s": float(raw["duration_s"]),
            "wall_seconds": float(raw["wall_seconds"]),
        }
        if raw.get("pcap"):
            meta["pcap"] = dict(raw["pcap"])
        return cls(
            flows=flows,
            series=series_with_rates(_frame(raw["series"])),
            rtt=_frame(raw["rtt"]),
            links=link_summary(_frame(raw["links"]), flows, scenario),
            link_series=_frame(raw["link_series"]),
            sources=_frame(raw.get("sources", {})),
            source_series=_frame(raw.get("source_series", {})),
            meta=meta,
        )

    @property
    def scenario(self) -> dict:
        return self.meta["scenario"]

    def jain_index(self, link: str | None = None) -> float:
        """Jain's fairness index over the flows' goodputs (of the flows whose data crosses `link`, if given)."""
        f = self.flows if link is None else self.flows[_crossing(self.flows, link)]
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
