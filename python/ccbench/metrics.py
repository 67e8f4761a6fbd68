"""The metrics of the measurement studies, as pure functions (SPEC section 5).

The simulator core computes the per-run metrics itself (crates/ccsim/src/record/
summary.rs and rtt_stats.rs: the flows table's goodput_bps, retrans_pct,
rtt_mean_ms, ..., the links table's utilization), and ccbench reads them from
its tables. The per-run functions here are the same definitions for tables that
come without them: the kernel emulator's (tests check that both agree on a
simulated run). The rest works across runs or windows (Jain's index, window
rates, recovery ratio).

Inputs are plain arrays or DataFrames; nothing here runs a simulation or reads
a file, so every function can be checked by hand (the header sizes behind the
payload share are the simulator core's).

Definitions:
- goodput: unique payload bytes delivered in order to the application over the
  flow's active time (for a file transfer: over its completion time);
- throughput (shown as "sending rate"): payload bytes sent, retransmissions
  included, over the same time; it can exceed the link rate;
- retransmission percentage: retransmitted segments / sent segments * 100;
- timeouts per 100 s: RTO expirations / active time * 100 s;
- RTT statistics from the per-ACK samples; base RTT = minimum sample;
  queuing time = RTT sample - minimum RTT; a percentile is the sample of rank
  floor(q (n - 1)) in sorted order (numpy's method="lower"; the core's come
  within 1% of it from a streaming sketch);
- Jain's fairness index: (sum x)^2 / (N * sum x^2);
- a link's goodput: the unique payload bytes its flows delivered, over the
  time from the first one's start to the last one's end of activity (flows
  active together: the sum of their goodputs, the studies' definition);
- channel utilization: a link's goodput / its payload capacity (and, as the
  studies report it, / the nominal link rate); both rates are those the link
  offered over its flows' window: a trace's opportunities then (a run may
  play only part of a trace), otherwise the nominal rate (a rate process:
  its long-run mean);
- mean rate in a window [a, b) from cumulative byte counters; recovery ratio =
  rate(after) / rate(before).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ccbench import _ccsim


def _scaled_ratio(scale: float, numerator, denominator):
    """scale * numerator / denominator, elementwise; NaN where the denominator is not positive."""
    n = np.asarray(numerator, dtype=float)
    d = np.asarray(denominator, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(d > 0, scale * n / d, np.nan)


def rate_bps(num_bytes, seconds):
    """bytes over seconds, in bit/s; NaN where the time is not positive."""
    return _scaled_ratio(8.0, num_bytes, seconds)


def active_seconds(start_s, end_s, completion_s):
    """A flow's active time: its completion time for a finished file transfer,
    otherwise end - start (end: when it stopped, or the end of the run)."""
    completion = np.asarray(completion_s, dtype=float)
    span = np.asarray(end_s, dtype=float) - np.asarray(start_s, dtype=float)
    return np.where(np.isfinite(completion), completion, span)


def retransmission_pct(retransmitted_segments, segments_sent):
    """Retransmitted / sent segments, in percent (NaN for a flow that sent nothing)."""
    return _scaled_ratio(100.0, retransmitted_segments, segments_sent)


def per_100s(count, seconds):
    """A count per 100 s of active time (NaN where the time is not positive)."""
    return _scaled_ratio(100.0, count, seconds)


RTT_STAT_COLUMNS = [
    "rtt_samples",
    "rtt_mean_ms",
    "rtt_std_ms",
    "rtt_min_ms",
    "rtt_p50_ms",
    "rtt_p90_ms",
    "rtt_p95_ms",
    "rtt_p99_ms",
    "rtt_max_ms",
    "queuing_mean_ms",
]


def rtt_stats(samples_ms) -> dict:
    """Statistics of one flow's per-ACK RTT samples (ms): count, mean, population
    std, minimum (the base RTT), percentiles (the lower sample), maximum and the
    mean queuing time (mean of sample - minimum, i.e. mean - minimum)."""
    x = np.asarray(samples_ms, dtype=float)
    if x.size == 0:
        return {c: (0 if c == "rtt_samples" else np.nan) for c in RTT_STAT_COLUMNS}
    p50, p90, p95, p99 = np.percentile(x, [50, 90, 95, 99], method="lower")
    lo = float(x.min())
    return {
        "rtt_samples": int(x.size),
        "rtt_mean_ms": float(x.mean()),
        "rtt_std_ms": float(x.std()),
        "rtt_min_ms": lo,
        "rtt_p50_ms": float(p50),
        "rtt_p90_ms": float(p90),
        "rtt_p95_ms": float(p95),
        "rtt_p99_ms": float(p99),
        "rtt_max_ms": float(x.max()),
        "queuing_mean_ms": float((x - lo).mean()),
    }


def rtt_stats_per_flow(rtt, flows) -> pd.DataFrame:
    """rtt_stats of each flow id in `flows` from the per-ACK samples (a
    DataFrame or dict with columns flow and rtt_ms)."""
    ids = np.asarray(rtt["flow"])
    values = np.asarray(rtt["rtt_ms"], dtype=float)
    order = np.argsort(ids, kind="stable")
    ids, values = ids[order], values[order]
    rows = []
    for f in flows:
        lo, hi = np.searchsorted(ids, f, side="left"), np.searchsorted(ids, f, side="right")
        rows.append(rtt_stats(values[lo:hi]))
    return pd.DataFrame(rows, columns=RTT_STAT_COLUMNS)


def jain_index(values) -> float:
    """Jain's fairness index (sum x)^2 / (N * sum x^2): 1 when all are equal,
    1/N when one takes everything. NaN for no values or all zero."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    denom = x.size * float(np.sum(x * x))
    return float(np.sum(x) ** 2 / denom) if denom > 0 else float("nan")


def payload_share(mss_bytes: int, timestamps: bool) -> float:
    """Fraction of a full data segment's wire bytes that is payload, with the
    simulator's own header sizes (crates/ccsim/src/net/packet.rs)."""
    return _ccsim.payload_share(mss_bytes, timestamps)


def link_payload_share(shares, delivered_bytes) -> float:
    """The payload share of a full segment on a link from its flows' shares
    and delivered bytes (the core's record::summary::link_payload_share):
    flows of different segment sizes weighted by the payload each delivered;
    1 without flows."""
    return _ccsim.link_payload_share([float(s) for s in shares], [int(b) for b in delivered_bytes])


def link_window(start_s, active_s) -> tuple[float, float] | None:
    """The time a link's flows had it (the core's record::summary::link_window):
    the first one's start and the last one's end of activity, in seconds;
    None without flows."""
    start = np.asarray(start_s, dtype=float)
    if not len(start):
        return None
    return float(np.min(start)), float(np.max(start + np.asarray(active_s, dtype=float)))


def link_goodput_bps(start_s, active_s, delivered_bytes) -> float:
    """A link's goodput from its flows' start, active time and delivered
    bytes (the core's record::summary::link_goodput_bps): their bytes over
    their link_window; NaN (not measured) without flows."""
    window = link_window(start_s, active_s)
    if window is None:
        return float("nan")
    return float(rate_bps(sum(int(b) for b in delivered_bytes), window[1] - window[0]))


def utilization(goodput_bps: float, capacity_bps: float) -> float:
    """Channel utilization: a link's goodput over its capacity."""
    return float(goodput_bps / capacity_bps) if capacity_bps > 0 else float("nan")


def interval_rates(t, counter_bytes):
    """Per-sample rate (bit/s) of one flow's cumulative byte counter: the
    difference to the previous sample over the time between them; NaN for the first."""
    t = np.asarray(t, dtype=float)
    c = np.asarray(counter_bytes, dtype=float)
    out = np.full(t.shape, np.nan)
    if t.size > 1:
        out[1:] = rate_bps(np.diff(c), np.diff(t))
    return out


def counter_at(t, counter_bytes, when: float) -> float:
    """A cumulative counter's value at time `when`: the last sample at or before
    it (0 before the first sample: the flow had sent nothing yet)."""
    t = np.asarray(t, dtype=float)
    i = int(np.searchsorted(t, when, side="right")) - 1
    return float(np.asarray(counter_bytes, dtype=float)[i]) if i >= 0 else 0.0


#: The series counter each rate is taken from: throughput counts payload
#: bytes sent (retransmissions included), goodput bytes delivered in order.
RATE_COUNTERS = {"throughput": "bytes_sent", "goodput": "delivered_bytes"}


def window_rate_bps(t, counter_bytes, a: float, b: float) -> float:
    """Mean rate (bit/s) in the window [a, b) from a cumulative byte counter
    sampled at times t: (C(b) - C(a)) * 8 / (b - a)."""
    if b <= a:
        raise ValueError(f"window [{a}, {b}) is empty")
    return (counter_at(t, counter_bytes, b) - counter_at(t, counter_bytes, a)) * 8.0 / (b - a)


def recovery_ratio(rate_after_bps: float, rate_before_bps: float) -> float:
    """Throughput after a disturbance over throughput before it (the high-speed
    study: throughput(100-150 s) / throughput(0-50 s))."""
    return rate_after_bps / rate_before_bps if rate_before_bps > 0 else float("nan")
