"""From what the flow agents and the emulator report to the simulator's raw
tables (flows, series, rtt, links, link_series, sources), so an emulated run
becomes the same `Result` as a simulated one and every metric, plot and
report works unchanged.

This is the only module of kernel mode that imports the result classes.

Where the kernel has no counterpart of a simulator column the value is NaN
(fast_recoveries, undone_recoveries, ecn_reductions, duplicate_segments,
app_limited_s),
never a made-up zero. The kernel does not expose each ACK's RTT sample, and
its minimum (tcpi_min_rtt) counts the handshake, so the per-ACK samples (the
`rtt` table, the flows' RTT statistics and `base_rtt_ms`, their minimum) are
the emulator's, taken on the wire as the simulator's sender takes them
(crates/ccemu/src/ack_rtt.rs); the series' `rtt_ms`, `srtt_ms` and
`min_rtt_ms` are the kernel's own (tcpi_rtt, tcpi_min_rtt). `timeouts` is
tcpi_total_rto (Linux 6.7 and later, NaN before). Columns `tcpi_*` add what
the running kernel reports besides.
"""

from __future__ import annotations

import math

import numpy as np

from ccbench import _ccsim
from ccbench import run_files as result_files
from ccbench.emulate import kernel
from ccbench.run_result import RTT_STAT_COLUMNS, Result

__all__ = ["Result", "build_raw", "result_files", "PACKET_RECORD_DTYPE"]

NAN = float("nan")
#: IPv4 and UDP header bytes of a datagram, as the core sizes them (the flow
#: agent, kept free of the extension, counts the same: tests check it).
UDP_HEADER_BYTES = _ccsim.UDP_IP_HEADER_BYTES
#: One record of the emulator's packet file (crates/ccemu/src/records.rs).
PACKET_RECORD_DTYPE = np.dtype(
    [
        ("t_in_ns", "<u8"),
        ("t_out_ns", "<u8"),
        ("flow", "<u4"),
        ("bytes", "<u2"),
        ("link", "u1"),
        ("outcome", "u1"),
        ("ce", "u1"),
        ("pad", "V3"),
    ]
)
#: tcp_info fields added to the series as tcpi_<name> (scaled where named so).
EXTRA_TCPI = (
    "delivery_rate",
    "bytes_acked",
    "rto",
    "lost",
    "sacked",
    "retrans",
    "backoff",
    "delivered_ce",
    "notsent_bytes",
    "rwnd_limited",
    "sndbuf_limited",
    "busy_time",
    "reord_seen",
    "reordering",
    "dsack_dups",
)


def _ms(us) -> float:
    return us / 1000.0 if us else NAN


def series_row(t: float, flow: int, info: dict) -> dict:
    ssthresh = info.get("snd_ssthresh", 0)
    row = {
        "t": t,
        "flow": flow,
        "cwnd": info.get("snd_cwnd", 0),
        "ssthresh": NAN if ssthresh >= 0x7FFFFFFF or ssthresh == 0 else float(ssthresh),
        "srtt_ms": _ms(info.get("rtt")),
        "rttvar_ms": _ms(info.get("rttvar")) if info.get("rtt") else NAN,
        "min_rtt_ms": _ms(info.get("min_rtt")),
        "rtt_ms": _ms(info.get("rtt")),
        "in_flight": max(
            0, info.get("unacked", 0) - info.get("sacked", 0) - info.get("lost", 0) + info.get("retrans", 0)
        ),
        "bytes_sent": info.get("bytes_sent", 0),
        "retransmitted": info.get("total_retrans", 0),
        "timeouts": info["total_rto"] if "total_rto" in info else NAN,
        "ca_state": info.get("ca_state", 0),
        "pacing_rate_bps": info.get("pacing_rate", 0) * 8.0,
        "rwnd_bytes": info.get("snd_wnd", 0),
    }
    for k in EXTRA_TCPI:
        v = info.get(k, NAN)
        if k == "delivery_rate":
            row["tcpi_delivery_rate_bps"] = v * 8.0
        elif k == "rto":
            row["tcpi_rto_ms"] = v / 1000.0
        else:
            row[f"tcpi_{k}"] = v
    return row


def _columns(rows: list[dict], names: list[str]) -> dict:
    return {n: np.asarray([r[n] for r in rows]) if rows else np.asarray([]) for n in names}


def build_raw(
    scenario: dict,
    flows: list[dict],
    agents: list[dict],
    emulator: dict,
    duration_s: float,
    schedule: dict | None = None,
) -> dict:
    """The raw tables of `Result.from_raw`. `flows`: the plan's flows (flow,
    group, cc, direction, start_s, stop_s, size); `agents`: both agents'
    results; `schedule`: the background's (runner.background_schedule)."""
    senders = {s["flow"]: s for a in agents for s in a["tcp_senders"]}
    # A row per flow, in flow order: the RTT statistics of the emulator's per-ACK samples.
    stats = _table(emulator["flow_rtt"])
    flow_rtt = {c: stats[c] for c in RTT_STAT_COLUMNS if c in stats}
    receivers = {r["flow"]: r for a in agents for r in a["tcp_receivers"]}
    series_rows, flow_rows = [], []
    for f in flows:
        fid = f["flow"]
        snd, rcv = senders.get(fid, {}), receivers.get(fid, {})
        rs = rcv.get("samples") or [(0.0, 0)]
        rt, rb = np.asarray([s[0] for s in rs], float), np.asarray([s[1] for s in rs], float)
        for t, info in snd.get("samples", []):
            row = series_row(t, fid, info)
            row["delivered_bytes"] = int(np.interp(t, rt, rb))
            series_rows.append(row)
        final = snd.get("final") or {}
        completed = rcv.get("completed_s", NAN)
        if f["size"] is not None and math.isfinite(completed):
            end_s = completed
        else:
            end_s = min(f["stop_s"] if f["stop_s"] is not None else duration_s, duration_s)
        received_total = rcv.get("received", 0)
        flow_rows.append(
            {
                "flow": fid,
                "group": f["group"],
                "cc": f["cc"],
                "direction": f["direction"],
                "start_s": f["start_s"],
                "end_s": end_s,
                "size_bytes": float(f["size"]) if f["size"] is not None else NAN,
                "completion_s": completed - f["start_s"] if math.isfinite(completed) else NAN,
                "base_rtt_ms": flow_rtt["rtt_min_ms"][fid],
                # A completed file was all read at end_s; between samples, interpolation
                # would fall short of it by up to an interval's worth.
                "delivered_bytes": received_total
                if f["size"] is not None and math.isfinite(completed)
                else int(min(received_total, np.interp(end_s, rt, rb))),
                "bytes_sent": final.get("bytes_sent", 0),
                "delivered_bytes_total": received_total,
                "segments_sent": final.get("data_segs_out", 0),
                "retransmitted_segments": final.get("total_retrans", 0),
                "timeouts": final["total_rto"] if "total_rto" in final else NAN,
                "fast_recoveries": NAN,
                "undone_recoveries": NAN,
                "ecn_reductions": NAN,
                "acks_received": final.get("segs_in", 0),
                "duplicate_segments": NAN,
                # Linux's chrono counters (microseconds); it keeps no application-limited time.
                "busy_s": _usec_s(final, "busy_time"),
                "rwnd_limited_s": _usec_s(final, "rwnd_limited"),
                "sndbuf_limited_s": _usec_s(final, "sndbuf_limited"),
                "app_limited_s": NAN,
            }
        )
    series_names = list(series_rows[0]) if series_rows else list(series_row(0.0, 0, {})) + ["delivered_bytes"]
    flows_cols = {**_columns(flow_rows, list(flow_rows[0]) if flow_rows else []), **flow_rtt}
    for c in ("cc", "direction"):
        flows_cols[c] = [r[c] for r in flow_rows]
    rtt = _table(emulator["rtt"])
    return {
        "flows": flows_cols,
        "series": _columns(series_rows, series_names),
        "rtt": {c: rtt[c] for c in ("t", "flow", "rtt_ms")},
        "links": _table(emulator["links"]),
        "link_series": _table(emulator["link_series"]),
        "sources": _sources(scenario, agents, duration_s, schedule),
        "source_series": {},
        "events": sum(emulator["links"]["arrivals"]),
        "duration_s": duration_s,
        "wall_seconds": emulator["stats"]["duration_s"],
    }


def _usec_s(info: dict, field: str) -> float:
    """A TCP_INFO time in microseconds as seconds; NaN when the kernel does not report it."""
    return info[field] / 1e6 if field in info else NAN


def _table(columns: dict) -> dict:
    return {
        k: (list(v) if v and isinstance(v[0], str) else np.asarray([NAN if x is None else x for x in v]))
        for k, v in columns.items()
    }


def _sources(scenario: dict, agents: list[dict], duration_s: float, schedule: dict | None) -> dict:
    """The `sources` table: the [[udp]] sources, then the background, with the
    simulator's columns (queue drops are not told apart per source: NaN) and
    the UDP datagrams' one-way delays."""
    sent = {s["source"]: s for a in agents for s in a["udp_sources"]}
    got = {s["source"]: s for a in agents for s in a["udp_sinks"]}
    rows = []
    for i, u in enumerate(scenario.get("udp", [])):
        row = _udp_row(sent.get(i, {}), got.get(i, {}), _period(u, duration_s), transfers=(0, 0))
        rows.append({"source": i, "kind": "udp", "transport": "udp", "direction": u["direction"], **row})
    b = scenario.get("background")
    if b and schedule is not None:
        k = len(rows)
        transport = kernel.background_transport(b)
        if transport == "tcp":
            snd = next((x for a in agents for x in a["background_tcp"]), {})
            rcv = next((x for a in agents for x in a["background_tcp_sinks"]), {})
            row = _background_tcp_row(b, snd, rcv, _period(b, duration_s))
        else:
            # The source's own count of web bursts or on periods, as the simulator's.
            transfers = (schedule["transfers_started"], schedule["transfers_finished"])
            row = _udp_row(sent.get(k, {}), got.get(k, {}), _period(b, duration_s), transfers)
        rows.append({"source": k, "kind": b["kind"], "transport": transport, "direction": b["direction"], **row})
    if not rows:
        return {}
    cols = _columns(rows, list(rows[0]))
    for c in ("kind", "transport", "direction"):
        cols[c] = [r[c] for r in rows]
    return cols


def _period(source: dict, duration_s: float) -> tuple[float, float]:
    """A source's [start, stop) within the run, as the simulator's sources table has it."""
    stop = source["stop"] if source.get("stop") is not None else duration_s
    return min(source["start"], duration_s), min(stop, duration_s)


def _delivered_bps(payload_bytes: float, period: tuple[float, float]) -> float:
    start, stop = period
    return payload_bytes * 8 / (stop - start) if stop > start else NAN


def _udp_row(source: dict, sink: dict, period: tuple[float, float], transfers: tuple[int, int]) -> dict:
    """A UDP source's counters: what its agent sent and its sink received;
    `transfers`: begun and finished, as the source counts them."""
    n_sent, n_got = source.get("sent", 0), sink.get("received", 0)
    wire_sent, wire_got = source.get("wire_bytes", 0), sink.get("wire_bytes", 0)
    delays = np.asarray(sink.get("delays_ms", []), float)
    return {
        "start_s": period[0],
        "stop_s": period[1],
        "packets_sent": n_sent,
        "wire_bytes_sent": wire_sent,
        "bytes_sent": wire_sent - n_sent * UDP_HEADER_BYTES,
        "packets_delivered": n_got,
        "bytes_delivered": wire_got - n_got * UDP_HEADER_BYTES,
        "packets_lost": max(0, n_sent - n_got),
        "queue_drops": NAN,
        "transfers_started": transfers[0],
        "transfers_completed": transfers[1],
        "delivered_bps": _delivered_bps(wire_got - n_got * UDP_HEADER_BYTES, period),
        "owd_mean_ms": float(delays.mean()) if delays.size else NAN,
        "owd_p50_ms": float(np.percentile(delays, 50)) if delays.size else NAN,
        "owd_p99_ms": float(np.percentile(delays, 99)) if delays.size else NAN,
    }


def _background_tcp_row(b: dict, sender: dict, sink: dict, period: tuple[float, float]) -> dict:
    """The background's TCP transfers summed, as the simulator counts them:
    data segments sent (their wire bytes: payload and the IP, TCP and
    timestamp option headers) and received, payload sent (retransmissions
    included) and delivered in order, transfers begun and read to their end."""
    segments, payload = sender.get("data_segs_out", 0), sender.get("bytes_sent", 0)
    header = _ccsim.data_header_bytes(b["tcp"]["timestamps"])
    delivered = sink.get("received", 0)
    return {
        "start_s": period[0],
        "stop_s": period[1],
        "packets_sent": segments,
        "wire_bytes_sent": payload + segments * header,
        "bytes_sent": payload,
        "packets_delivered": sink.get("data_segs_in", 0),
        "bytes_delivered": delivered,
        "packets_lost": max(0, segments - sink.get("data_segs_in", 0)),
        "queue_drops": NAN,
        "transfers_started": sender.get("started", 0),
        "transfers_completed": sink.get("completed", 0),
        "delivered_bps": _delivered_bps(delivered, period),
        "owd_mean_ms": NAN,
        "owd_p50_ms": NAN,
        "owd_p99_ms": NAN,
    }


def to_result(raw: dict, scenario: dict, version: str, extra_meta: dict) -> Result:
    r = Result.from_raw(raw, scenario, version)
    r.meta.update(extra_meta)
    return r
