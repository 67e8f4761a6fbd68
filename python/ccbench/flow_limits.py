"""What held a flow back besides the network, in words.

The flows table's chrono columns (the core's tcp/chrono.rs, as Linux's
TCP_INFO tcpi_busy_time, tcpi_rwnd_limited and tcpi_sndbuf_limited) count how
long each flow was limited by its receiver's window or its own send buffer.
When that is a meaningful share of the flow's active time, the result says
more about the socket buffers than about the congestion control or the
network, and `ccbench run` and the campaign report say so, naming the
scenario setting to raise. Application-limited time (the end of a file
transfer, a stopped application) is by the scenario's design and stays in the
table only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: A flow limited by a buffer for at least this share of its active time is reported.
MEANINGFUL_SHARE = 0.2


@dataclass(frozen=True)
class BufferLimit:
    column: str
    words: str
    #: The `tcp` field of a fixed buffer, and the maximum autotuning grows up to.
    fixed_field: str
    max_field: str


LIMITS = (
    BufferLimit("sndbuf_limited_s", "send-buffer limited", "snd_buf", "wmem_max"),
    BufferLimit("rwnd_limited_s", "receive-window limited", "rcv_buf", "rmem_max"),
)


def setting_to_raise(limit: BufferLimit, tcp: dict | None) -> str:
    """The `tcp` field that bounds the buffer, with its value when the scenario is known."""
    if not tcp:
        return f"tcp.{limit.max_field} (or a fixed tcp.{limit.fixed_field})"
    fixed = tcp.get(limit.fixed_field)
    if fixed not in (None, "auto"):
        return f"tcp.{limit.fixed_field} (now {fixed} bytes)"
    return f"tcp.{limit.max_field} (now {tcp.get(limit.max_field)} bytes)"


def _shares(flows, column: str) -> list[float]:
    """Per flow (row of `flows`), the share of its active time spent in
    `column` (capped at 1), NaN without an active time or a value; whole
    columns at once, since a campaign's report reads thousands of flows."""
    active = flows["active_s"] if "active_s" in flows else flows["end_s"] - flows["start_s"]
    active = active.to_numpy(float)
    value = flows[column].to_numpy(float) if column in flows else np.full(len(flows), math.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where((active > 0) & np.isfinite(value), np.minimum(1.0, value / active), math.nan)
    return share.tolist()


def _percent_range(shares: list[float]) -> str:
    lo, hi = round(100 * min(shares)), round(100 * max(shares))
    return f"{lo}%" if lo == hi else f"{lo}–{hi}%"


def flow_notes(flows, scenario: dict | None = None) -> list[str]:
    """One sentence per buffer limit that held flows back for a meaningful
    share of their active time ("flow 0 was send-buffer limited 93% of the
    time: raise tcp.wmem_max (now 4194304 bytes)"); flows with the same limit
    and setting share a sentence. `flows`: a run's flows table (DataFrame);
    `scenario`: the normalized scenario, for the settings' values."""
    found: dict[tuple[str, str], list[tuple[int, float]]] = {}
    shares = {limit: _shares(flows, limit.column) for limit in LIMITS}
    for i, (group, flow) in enumerate(zip(flows["group"], flows["flow"])):
        for limit in LIMITS:
            share = shares[limit][i]
            if share >= MEANINGFUL_SHARE:
                tcp = scenario["flows"][int(group)].get("tcp") if scenario else None
                found.setdefault((limit.words, setting_to_raise(limit, tcp)), []).append((int(flow), share))
    notes = []
    for (words, setting), hits in found.items():
        ids = [str(f) for f, _ in hits]
        who = f"flow {ids[0]} was" if len(ids) == 1 else f"flows {', '.join(ids)} were"
        notes.append(f"{who} {words} {_percent_range([s for _, s in hits])} of the time: raise {setting}")
    return notes


def group_notes(flows, by: str) -> list[str]:
    """Per value of `by` (a campaign's compared factor), the buffer limits its
    flows spent a meaningful share of their active time in, on average
    ("cubic: send-buffer limited 93% of the time on average over 20 flows: raise
    tcp.wmem_max (or a fixed tcp.snd_buf)"). `flows`: a campaign's flows table."""
    notes = []
    for name, group in flows.groupby(by, sort=False):
        for limit in LIMITS:
            if limit.column not in group:
                continue
            shares = [s for s in _shares(group, limit.column) if math.isfinite(s)]
            mean = sum(shares) / len(shares) if shares else math.nan
            if mean >= MEANINGFUL_SHARE:
                notes.append(
                    f"{name}: {limit.words} {round(100 * mean)}% of the time on average over {len(shares)} "
                    f"flows: raise {setting_to_raise(limit, None)}"
                )
    return notes
