"""From a replay (sender.py or receiver.py) to the path's estimates: rate, base RTT, queue, loss
and its pattern, reordering; each with its interval and method."""

from __future__ import annotations

import bisect
import math

from .capture import FitInputError
from .result import Estimate, FitResult
from .sender import AckPair, Replay
from .stats import fit_gilbert, median_ci, quantile, wilson

# Fewer samples than these and the capture is too short to say anything with an interval (assumed
# minimums: below eight samples the order-statistic interval of a median is their whole range).
MIN_RTT_SAMPLES = 20
MIN_DISPERSION_SAMPLES = 10
# Fewer data packets and a loss rate means little: 1% of 500 is 5 losses, whose Wilson interval
# (0.43% to 2.3%) spans a factor of five.
MIN_DATA_PACKETS = 500
# Train lengths tried for the rate, longest first, and the pieces a length needs (assumed: enough
# for the median's interval; measured with uniform 0-3 ms reordering jitter at 10 Mbit/s, the
# rate is 4.1% low from pairs, 1.8% from trains of 4 pairs, 1.1% from trains of 8).
TRAIN_PAIRS = (8, 4, 2, 1)
MIN_TRAINS = 30
# A loss is a queue overflow, not a path loss, when the queueing delay when it was sent was at least
# this share of the largest seen: a drop-tail queue drops only when full (assumed threshold: the
# delay of a full queue varies by the packets in service and by the RTT sample's timing).
FULL_QUEUE_SHARE = 0.8
# Reordering is modelled only from this many late segments on (assumed: fewer could be one odd
# event; it moves whether a fitted scenario gets jitter).
MIN_REORDERED = 3


def estimate(
    r: Replay, source: str, flow: str, side: str, resolution_s: float, rate_samples: list[float] | None = None
) -> FitResult:
    """The path's estimates from a replay; `rate_samples` (bit/s) from a receiver-side capture, else
    the sender's ACK pairs give them."""
    data_wire = max(s.wire for s in r.segs.values())
    if rate_samples is None:
        first = queued_pairs(r.pairs, None)
        samples = train_rates(queued(r.pairs, 8 * data_wire / median_ci(first)[0])) if first else []
    else:
        samples = rate_samples
    short = len(r.transmissions) < MIN_DATA_PACKETS
    if short or len(r.rtt) < MIN_RTT_SAMPLES or len(samples) < MIN_DISPERSION_SAMPLES:
        raise FitInputError(
            f"{source}: capture too short: {len(r.rtt)} RTT samples and {len(samples)} rate samples from"
            f" {len(r.transmissions)} data packets; need at least {MIN_RTT_SAMPLES} and {MIN_DISPERSION_SAMPLES}"
            f" from {MIN_DATA_PACKETS} data packets"
        )
    caveats: list[str] = []
    rate = _rate(samples, resolution_s)
    base = _base_rtt(r, resolution_s)
    if side == "receiver":
        rate, base = _at_receiver(rate), _at_receiver(base)
    qdelay = _queue_delays(r, base.value)
    lost, congestion = _losses(r, base.value, qdelay)
    queue_pkts, basis = _queue_size(qdelay, rate.value, base.value, data_wire, congestion)
    loss, burst, model, lr = _loss_model(lost)
    reorder, jitter = _reordering(r, rate.value, data_wire)
    if side == "receiver":
        loss, reorder = _at_receiver(loss), _at_receiver(reorder)
    caveats += _caveats(r, side)
    return FitResult(
        source=source,
        flow=flow,
        side=side,
        duration_s=r.last_t - r.first_t,
        mss=r.mss,
        data_wire_bytes=data_wire,
        rate=rate,
        base_rtt=base,
        queue_delay_ms=qdelay,
        queue_size_pkts=queue_pkts,
        queue_basis=basis,
        loss=loss,
        loss_model=model,
        burst=burst,
        gilbert_lr=lr,
        congestion_losses=congestion,
        reorder=reorder,
        jitter_max_ms=jitter,
        caveats=caveats,
    )


def queued(pairs: list[AckPair], packet_s: float | None) -> list[AckPair]:
    """The ACK pairs whose second packet group reached the bottleneck before the first had left it,
    so that the gap between the ACKs is the bottleneck's time for the second group: sent less than
    half a packet's time there after the first (back to back), or both newest segments queued for
    longer than the second group's time there. With `packet_s` None the pair's own gap stands in
    for the group's time (first pass); the second pass uses one packet's time at the first pass's
    rate, since a threshold on the pair's own gap picks the pairs that jitter spread apart (a low
    bias)."""
    out = []
    for p in pairs:
        span = p.gap if packet_s is None else p.packets * packet_s
        back_to_back = p.send_gap < 0.5 * span / p.packets
        waited = p.waited is not None and p.packets >= 2 and p.waited >= span
        if back_to_back or waited:
            out.append(p)
    return out


def queued_pairs(pairs: list[AckPair], packet_s: float | None) -> list[float]:
    """The dispersion samples (bit/s) of the queued pairs, one per pair."""
    return [p.bits / p.gap for p in queued(pairs, packet_s)]


def train_rates(pairs: list[AckPair]) -> list[float]:
    """Dispersion over trains: runs of consecutive queued pairs cut into pieces of k pairs, each the
    bits over the time of its k gaps (Dovrolis et al. compare pairs with trains: a train averages
    out the jitter of the ACKs inside it, which a pair's gap carries whole and which the pairs'
    selection skews low). The longest k of TRAIN_PAIRS that leaves MIN_TRAINS pieces."""
    runs: list[list[AckPair]] = []
    for p in pairs:
        if runs and p.index == runs[-1][-1].index + 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    for k in TRAIN_PAIRS:
        pieces = [run[i : i + k] for run in runs for i in range(0, len(run) - k + 1, k)]
        if len(pieces) >= MIN_TRAINS or k == 1:
            return [sum(p.bits for p in c) / sum(p.gap for p in c) for c in pieces]
    return []


def _rate(samples: list[float], resolution_s: float) -> Estimate:
    mid, lo, hi = median_ci(samples)
    return Estimate(
        mid,
        lo,
        hi,
        "bit/s",
        len(samples),
        "Method: ACK dispersion (Dovrolis et al., IEEE/ACM ToN 2004): the bytes ACKs newly acknowledge"
        " over the time since the previous ACK, where that data reached the bottleneck before the"
        " previous ACK's data had left it (sent back to back, or both queued longer), over trains of up"
        " to 8 such ACKs; the median, with its order-statistic interval. Timestamp resolution"
        f" {_resolution_text(resolution_s)}. Wrong (high)"
        " if the ACK path compresses ACKs (Wi-Fi aggregation, a busy uplink); wrong (low) if cross"
        " traffic shares the bottleneck, and 1-3% low when jitter reorders packets (0-3 ms on 10 Mbit/s:"
        " 1.2% over 30 s, 3.2% over 15 s, outside the interval).",
    )


# What the methods are at the receiver (receiver.py), by the estimate's unit and first words.
RECEIVER_METHODS = {
    "bit/s": "Method (capture at the receiver): the arrival spacing of consecutive in-order data packets,"
    " the bottleneck's dispersion (Dovrolis et al., IEEE/ACM ToN 2004); the median, with its"
    " order-statistic interval. Wrong (high) if a link after the bottleneck bunches packets (Wi-Fi"
    " aggregation, GRO); wrong (low) if cross traffic shares the bottleneck.",
    "ms": "Method (capture at the receiver): the smallest time from the first ACK carrying a TSval to"
    " the first data echoing it (RFC 7323): a round trip through the sender, long by up to one tick"
    " of the receiver's timestamp clock (1 ms on Linux). Wrong (high) if the sender answers ACKs late"
    " (application-limited) or the queue never emptied.",
    "loss": "Method (capture at the receiver): a hole in the sequence space filled by data sent after the"
    " packet that first arrived above it (a later TSval) was a loss upstream, resent; Wilson interval."
    " Wrong (low) if resends were lost too (one loss is seen).",
    "reorder": "Method (capture at the receiver): a hole filled by data sent before the packet that first"
    " arrived above it (an equal or earlier TSval) arrived late (RFC 4737); its lateness is the time"
    " between the two arrivals.",
}


def _at_receiver(e: Estimate) -> Estimate:
    """The estimate with the method a receiver-side capture used."""
    key = e.unit if e.unit in ("bit/s", "ms") else ("loss" if "resent" in e.method else "reorder")
    return Estimate(e.value, e.low, e.high, e.unit, e.samples, RECEIVER_METHODS[key])


def _resolution_text(s: float) -> str:
    return f"{s * 1e9:g} ns" if s < 1e-6 else f"{s * 1e6:g} us"


def _base_rtt(r: Replay, resolution_s: float) -> Estimate:
    samples = sorted(x for _, x, _ in r.rtt)
    lo = samples[0]
    tenth = samples[min(9, len(samples) - 1)]
    return Estimate(
        1e3 * lo,
        1e3 * max(0.0, lo - resolution_s),
        1e3 * tenth,
        "ms",
        len(samples),
        "Method: the smallest RTT from matching each ACK to the newest data it covers, under Karn's rule"
        " (RFC 6298 section 3; no sample from retransmitted data). The low bound is the timestamp"
        " resolution below it, the high bound the tenth smallest sample. Wrong (high) if the queue never"
        " emptied during the capture.",
    )


def _queue_delays(r: Replay, base_ms: float) -> dict[str, float]:
    """Percentiles of RTT - base RTT. ACKs that cover one segment may have waited for the receiver's
    delayed-ACK timer (RFC 9293 section 3.8.6.3), so the percentiles use ACKs of two or more when
    there are enough of them."""
    two = [1e3 * x - base_ms for _, x, n in r.rtt if n >= 2]
    xs = two if len(two) >= MIN_RTT_SAMPLES else [1e3 * x - base_ms for _, x, _ in r.rtt]
    return {
        "p5": quantile(xs, 0.05),
        "p50": quantile(xs, 0.5),
        "p95": quantile(xs, 0.95),
        "p99": quantile(xs, 0.99),
        "max": max(xs),
        "samples": len(xs),
    }


def _losses(r: Replay, base_ms: float, qdelay: dict[str, float]) -> tuple[list[bool], int]:
    """The loss sequence of path losses, one entry per data transmission in send order, and the count
    of losses at a full queue (left out of it: the scenario's queue makes those). A transmission
    was lost when the same segment was sent again, less the D-SACKed (spurious) resends; a
    segment's last transmission is unknown at the end of the capture if it was never delivered."""
    lost_left = {s.start: len(s.sends) - 1 - min(s.dsacks, len(s.sends) - 1) for s in r.segs.values()}
    seen: dict[int, int] = {}
    times = [t for t, _, _ in r.rtt]
    qs = [1e3 * x - base_ms for _, x, _ in r.rtt]
    full = FULL_QUEUE_SHARE * qdelay["max"]
    seq: list[bool] = []
    congestion = 0
    for t, start in r.transmissions:
        s = r.segs[start]
        k = seen.get(start, 0)
        seen[start] = k + 1
        if k < lost_left[start]:
            i = bisect.bisect_right(times, t) - 1
            q = qs[i] if i >= 0 else 0.0
            if qdelay["max"] > 0 and q >= full:
                congestion += 1
                continue
            seq.append(True)
        elif s.delivered_at is not None or k < len(s.sends) - 1:
            seq.append(False)
    return seq, congestion


def _queue_size(
    qdelay: dict[str, float], rate_bps: float, base_ms: float, wire: int, congestion: int
) -> tuple[int, str]:
    observed = max(1, round(qdelay["max"] * 1e-3 * rate_bps / (8 * wire)))
    bdp = max(1, round(base_ms * 1e-3 * rate_bps / (8 * wire)))
    if congestion:
        return observed, (
            f"{congestion} losses at the largest queueing delay ({qdelay['max']:.1f} ms): a drop-tail queue"
            f" that overflowed at {observed} packets of {wire} bytes at this rate."
        )
    if observed >= bdp:
        return observed, (
            f"never seen to overflow; the largest queueing delay ({qdelay['max']:.1f} ms) holds {observed} packets:"
            " a lower bound of the buffer."
        )
    return bdp, (
        f"never seen to overflow and at most {observed} packets were queued ({qdelay['max']:.1f} ms): the buffer is"
        f" larger than that but unmeasured; assumed one BDP ({bdp} packets), ccbench's default. Edit it."
    )


def _loss_model(lost: list[bool]) -> tuple[Estimate, Estimate, str, float]:
    g = fit_gilbert(lost)
    lo, hi = wilson(g.losses, g.frames)
    method = (
        "Method: a transmission later resent was lost, unless a D-SACK (RFC 2883) showed the resend"
        " spurious (tcptrace's retransmission count); Wilson interval. Wrong (high) if the receiver"
        " sends no D-SACK and resends were spurious; wrong (low) if losses at the capture's end were never resent."
    )
    loss = Estimate(g.mean_loss, lo, hi, "fraction", g.frames, method)
    burst = Estimate(
        g.burst_mean,
        g.burst_lo,
        g.burst_hi,
        "packets",
        g.bursts,
        "Method: the simple Gilbert model by maximum likelihood over the sequence of transmissions"
        " (RFC 3611 section 4.7.2); likelihood ratio against independent loss, chi-squared with 1 d.f.",
    )
    model = "none" if g.losses == 0 else ("gilbert" if g.bursty else "bernoulli")
    return loss, burst, model, g.lr


def _reordering(r: Replay, rate_bps: float, wire: int) -> tuple[Estimate, float | None]:
    delivered = sum(1 for s in r.segs.values() if s.delivered_at is not None)
    late = len(r.reorder_lateness)
    lo, hi = wilson(late, delivered)
    est = Estimate(
        late / delivered if delivered else 0.0,
        lo,
        hi,
        "fraction",
        delivered,
        "Method: a segment the receiver SACKed around (RFC 2018) that was delivered without being resent"
        " arrived out of order (RFC 4737); its lateness is the time from the first SACK above it to its"
        " ACK. Needs SACK: without it reordering looks like loss.",
    )
    if late < MIN_REORDERED:
        return est, None
    packet_ms = 8e3 * wire / rate_bps
    return est, 1e3 * max(r.reorder_lateness) + packet_ms


def _caveats(r: Replay, side: str) -> list[str]:
    out = []
    if r.super_packets:
        out.append(
            f"{r.super_packets} data packets are larger than the MSS ({r.mss} bytes): super-packets"
            + (
                " the receiver's GRO/LRO merged; their arrival times are per super-packet, so the rate"
                " samples inside them are lost and the loss of a merged packet is not seen. Capture with"
                " offloads off (ethtool -K IF gro off lro off)."
                if side == "receiver"
                else " built by TSO/GSO and captured before segmentation; their send times are per"
                " super-packet, so the RTT and dispersion samples of the segments inside them are coarser."
                " Capture with offloads off (ethtool -K IF tso off gso off)."
            )
        )
    if not r.sack_seen:
        out.append("no SACK blocks: losses and reordering cannot be told apart, and dispersion samples are fewer.")
    if r.window_limited > 0.5:
        out.append(
            f"{100 * r.window_limited:.0f}% of data was sent with the receiver's window full: the transfer was"
            " limited by the receiver, so the queue seen is a lower bound."
        )
    if r.idle_s > 0.1 * (r.last_t - r.first_t):
        out.append(
            f"nothing was in flight for {r.idle_s:.1f} s (longer than an RTT at a time): an application-limited"
            " transfer; the rate and queue estimates rest on its busy periods."
        )
    if side == "receiver":
        out.append(
            "captured at the receiver: the rate is the data's arrival spacing, the RTT comes from timestamp"
            " echoes (long by up to 1 ms), and only losses before the capture point are seen."
        )
    if math.isinf(r.last_t):
        out.append("the capture has no end time.")
    return out
