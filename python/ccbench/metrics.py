"""Statistics across runs or windows of one run, as pure functions: Jain's
fairness index, a flow's rate per sample or in a window of time from its
cumulative byte counters, and the recovery ratio (SPEC section 5).

The per-run metrics (a flow's goodput, throughput, retransmission
percentage, timeouts per 100 s and RTT statistics; a link's capacity,
goodput and utilization) have one definition, in the simulator core:
crates/ccsim/src/record/summary.rs and rtt_stats.rs. The simulator puts them
in its flows and links tables; a table that comes without them (the kernel
emulator's) gets them from the same code through the binding
(ccbench._ccsim.flow_metrics, rtt_stats and link_metrics, called by
ccbench.run_result).

Inputs are plain arrays; nothing here runs a simulation or reads a file, so
every function can be checked by hand.

Definitions:
- Jain's fairness index: (sum x)^2 / (N * sum x^2);
- a rate from a cumulative byte counter: its difference over the time
  between two samples, in bit/s (NaN where that time is not positive);
- mean rate in a window [a, b) from cumulative byte counters; recovery ratio =
  rate(after) / rate(before).
"""

from __future__ import annotations

import numpy as np


def jain_index(values) -> float:
    """Jain's fairness index (sum x)^2 / (N * sum x^2): 1 when all are equal,
    1/N when one takes everything. NaN for no values or all zero."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    denom = x.size * float(np.sum(x * x))
    return float(np.sum(x) ** 2 / denom) if denom > 0 else float("nan")


def interval_rates(t, counter_bytes):
    """Per-sample rate (bit/s) of one flow's cumulative byte counter: the
    difference to the previous sample over the time between them; NaN for the first."""
    t = np.asarray(t, dtype=float)
    c = np.asarray(counter_bytes, dtype=float)
    out = np.full(t.shape, np.nan)
    if t.size > 1:
        dt = np.diff(t)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[1:] = np.where(dt > 0, 8.0 * np.diff(c) / dt, np.nan)
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
