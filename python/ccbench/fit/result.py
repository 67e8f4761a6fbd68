"""The fitted path: each estimate with its interval and method, and the scenario it makes.

The scenario puts the data direction on `[downlink]` (the bottleneck, its queue, loss and
reordering jitter) and the ACK direction on `[uplink]`, with one placeholder flow (`cubic`):
`ccbench recommend capture:FILE` replaces `flows`, and a user edits it.
"""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ccbench import _ccsim
from ccbench.limits import MAX_PACKETS, PACKET_BYTES

# The header bytes of an ACK with the timestamp option (IPv4 20 + TCP 20 + 12, as the core sizes
# them), for the ACK's serialization on the uplink; the capture's own sizes are used for data.
ACK_WIRE_BYTES = _ccsim.data_header_bytes(True)
#: The scenario's default segment size (a flow's `tcp.mss`): written only when the capture's differs.
DEFAULT_MSS = _ccsim.DEFAULT_MSS_BYTES
COMMENT_WIDTH = 100
MIN_DURATION_S, MAX_DURATION_S = 5, 60


@dataclass(frozen=True)
class Estimate:
    """One estimate: its value, a 95% interval (or the method's error bounds, as `method` says),
    the unit, how many samples it rests on, and how it was made."""

    value: float
    low: float
    high: float
    unit: str
    samples: int
    method: str


@dataclass
class FitResult:
    source: str
    flow: str
    side: str
    duration_s: float
    mss: int
    data_wire_bytes: int  # IP bytes of a full-sized data packet
    rate: Estimate  # bit/s at the IP layer
    base_rtt: Estimate  # ms
    queue_delay_ms: dict[str, float]  # percentiles of RTT - base RTT (p5, p50, p95, p99, max)
    queue_size_pkts: int
    queue_basis: str
    loss: Estimate  # per data packet transmitted, path (random) losses only
    loss_model: str  # none | bernoulli | gilbert
    burst: Estimate  # mean loss burst length, frames
    gilbert_lr: float
    congestion_losses: int
    reorder: Estimate  # share of delivered segments that arrived late without a retransmission
    jitter_max_ms: float | None
    caveats: list[str] = field(default_factory=list)

    # ---- the scenario ----

    def one_way_delay_ms(self) -> float:
        """Half of the base RTT after the data packet's and the ACK's serialization at the fitted
        rate (both are inside a measured RTT and the scenario's links add them back). The split
        between directions is not observable from one end: assumed symmetric."""
        serial_ms = 8e3 * (self.data_wire_bytes + ACK_WIRE_BYTES) / self.rate.value
        return max(0.0, (self.base_rtt.value - serial_ms) / 2)

    def scenario_duration_s(self) -> int:
        """The capture's length in whole seconds, from MIN_DURATION_S (a run shorter says little) to
        MAX_DURATION_S (a long capture would make a long run; the path's estimates do not need it),
        and short enough that a fast path's run stays within half of ccbench's packet limit (which
        counts both links at PACKET_BYTES a packet)."""
        within_limit = int(0.5 * MAX_PACKETS * 8 * PACKET_BYTES / (2 * self.rate.value))
        return max(1, min(MAX_DURATION_S, within_limit, max(MIN_DURATION_S, math.ceil(self.duration_s))))

    def scenario_dict(self) -> dict:
        """The scenario as a dict: `downlink` (data direction), `uplink` (ACKs) and one placeholder
        flow (`flows[0]`, cubic with the capture's MSS) that `ccbench recommend` replaces."""
        rate = _rate_text(self.rate.value)
        delay = f"{self.one_way_delay_ms():.2f}ms"
        down: dict = {"rate": rate, "delay": delay, "queue": {"size": f"{self.queue_size_pkts}pkt"}}
        if self.loss_model == "bernoulli":
            down["loss"] = {"model": "bernoulli", "p": _sig(self.loss.value)}
        elif self.loss_model == "gilbert":
            down["loss"] = {"model": "gilbert", "mean_loss": _sig(self.loss.value)}
            down["loss"]["mean_burst"] = _sig(self.burst.value)
        if self.jitter_max_ms is not None:
            top = f"{self.jitter_max_ms:.2f}ms"
            down["jitter"] = {"distribution": "uniform", "min": "0ms", "max": top, "reorder": True}
        flow: dict = {"cc": "cubic"}
        if self.mss != DEFAULT_MSS:
            flow["tcp"] = {"mss": self.mss}
        return {
            "name": f"fitted from {Path(self.source).name}",
            "duration": f"{self.scenario_duration_s()}s",
            "downlink": down,
            # The ACK direction's queue is not measured either: the downlink's, as its rate (its
            # default, one BDP, holds less than a packet on a short, slow path).
            "uplink": {"rate": rate, "delay": delay, "queue": {"size": f"{self.queue_size_pkts}pkt"}},
            "flows": [flow],
        }

    def to_toml(self) -> str:
        """The scenario as TOML text, every value after comments that give its estimate, interval,
        method and what would make it wrong."""
        s = self.scenario_dict()
        d = s["downlink"]
        r, b, q = self.rate, self.base_rtt, self.queue_delay_ms
        out = _Lines()
        out.note(f"Fitted by `ccbench fit` from {self.source}, flow {self.flow}.")
        out.note(f"Capture point: {self.side} (detected from the delays between data and ACKs).")
        out.note("Each value below follows its estimate, how sure it is and how it was made; edit any (docs/fit.md).")
        for c in self.caveats:
            out.note(f"Caveat: {c}")
        out.blank()
        out.value("name", s["name"])
        out.value("duration", s["duration"], f"the transfer lasted {self.duration_s:.1f} s (kept within 5 to 60 s)")
        out.blank()
        out.raw("[downlink]  # the data direction: the bottleneck")
        out.note(
            f"Bottleneck rate {_mbit(r.value)} (95% CI {_mbit(r.low)} to {_mbit(r.high)}, {r.samples} samples;"
            f" IP bytes). {r.method}"
        )
        out.value("rate", d["rate"])
        out.note(f"Base RTT {b.value:.2f} ms (bounds {b.low:.2f} to {b.high:.2f} ms, {b.samples} samples). {b.method}")
        out.note(
            "One-way delay: half of the base RTT less one data packet's and one ACK's serialization at this"
            " rate (the links add them back); the split between the directions is assumed symmetric."
        )
        out.value("delay", d["delay"])
        out.note(
            f"Queueing delay (RTT - base RTT, {q['samples']} samples): p5 {q['p5']:.1f}, p50 {q['p50']:.1f},"
            f" p95 {q['p95']:.1f}, p99 {q['p99']:.1f}, max {q['max']:.1f} ms. Queue: {self.queue_basis}"
        )
        out.raw(f'queue = {{ size = "{self.queue_size_pkts}pkt" }}')
        self._loss_lines(out, d)
        self._reorder_lines(out, d)
        out.blank()
        out.raw("[uplink]  # the ACK direction; its rate is not measured from one end: assumed the downlink's")
        out.value("rate", s["uplink"]["rate"])
        out.value("delay", s["uplink"]["delay"])
        out.raw(f'queue = {{ size = "{self.queue_size_pkts}pkt" }}  # not measured: assumed the downlink\'s')
        out.blank()
        out.raw("[[flows]]  # a placeholder: the algorithm to test (ccbench recommend replaces the flows)")
        out.value("cc", "cubic")
        if "tcp" in s["flows"][0]:
            out.raw(f"tcp = {{ mss = {self.mss} }}  # the capture's segment size")
        return out.text()

    def _loss_lines(self, out: _Lines, d: dict) -> None:
        ls, bu = self.loss, self.burst
        out.note(
            f"Path loss {100 * ls.value:.3f}% of data packets (95% CI {100 * ls.low:.3f}% to {100 * ls.high:.3f}%,"
            f" {ls.samples} packets), besides {self.congestion_losses} losses with the queue at its fullest, which the"
            f" queue above makes. {ls.method}"
        )
        if self.loss_model == "none":
            out.note("No path loss seen: no loss model.")
            return
        if self.loss_model == "gilbert":
            pattern = f"bursty (likelihood ratio {self.gilbert_lr:.1f} > 6.63: independent loss rejected at 1%)"
        else:
            pattern = f"random (likelihood ratio {self.gilbert_lr:.1f} <= 6.63: independent loss not rejected at 1%)"
        out.note(
            f"Pattern: {pattern}; mean burst {bu.value:.2f} packets (95% CI {bu.low:.2f} to {_num(bu.high)},"
            f" {bu.samples} bursts). {bu.method}"
        )
        body = ", ".join(f"{k} = {json.dumps(v)}" for k, v in d["loss"].items())
        out.raw(f"loss = {{ {body} }}")

    def _reorder_lines(self, out: _Lines, d: dict) -> None:
        ro = self.reorder
        out.note(
            f"Reordering: {100 * ro.value:.3f}% of segments arrived late without a resend (95% CI"
            f" {100 * ro.low:.3f}% to {100 * ro.high:.3f}%). {ro.method}"
        )
        if "jitter" not in d:
            out.note("Too little reordering to model: no jitter.")
            return
        out.note(
            "Jitter that reorders: uniform from 0 to the largest lateness seen plus one packet's time at the"
            " rate (packets overtake when their jitter differs by more than their spacing); a lower bound"
            " of the spread."
        )
        j = d["jitter"]
        out.raw(f'jitter = {{ distribution = "uniform", min = "0ms", max = "{j["max"]}", reorder = true }}')

    def to_json(self) -> dict:
        out = asdict(self)
        out["one_way_delay_ms"] = self.one_way_delay_ms()
        out["scenario"] = self.scenario_dict()
        return out


class _Lines:
    """TOML text: comments wrapped at COMMENT_WIDTH, values quoted as TOML strings."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def note(self, text: str) -> None:
        self.lines += textwrap.wrap(text, COMMENT_WIDTH, initial_indent="# ", subsequent_indent="# ")

    def value(self, key: str, v: str, comment: str | None = None) -> None:
        self.lines.append(f"{key} = {json.dumps(v)}" + (f"  # {comment}" if comment else ""))

    def raw(self, line: str) -> None:
        self.lines.append(line)

    def blank(self) -> None:
        self.lines.append("")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _sig(x: float) -> float:
    return float(f"{x:.3g}")


def _num(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.2f}"


def _mbit(bps: float) -> str:
    return f"{bps / 1e6:.3f} Mbit/s"


def _rate_text(bps: float) -> str:
    """Four significant digits in the largest unit that keeps a plain number (no exponent)."""
    for unit, scale in (("Gbit", 1e9), ("Mbit", 1e6), ("kbit", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.4g}{unit}"
    return f"{bps:.4g}bit"
