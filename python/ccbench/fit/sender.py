"""What a sender-side capture shows of one TCP transfer, tcptrace-style: every data
transmission and every ACK replayed in capture order against a per-segment scoreboard.

From the replay come the raw observations the estimates are built on:
- RTT samples by matching each ACK to the data it newly acknowledges, under Karn's rule
  (Karn and Partridge 1987; RFC 6298 section 3): no sample from a retransmitted segment;
- ACK pairs for dispersion: consecutive ACKs that newly deliver data never resent nor reordered,
  with the gap between them, the gap between the sends of their newest segments, the bits the
  second delivers and how long both newest segments waited (estimate.py keeps the pairs whose
  data queued at the bottleneck: Dovrolis, Ramanathan, Moore, "Packet-dispersion techniques and
  a capacity-estimation methodology", IEEE/ACM ToN 2004; the ACK-rate form is TCP Westwood's,
  Mascolo et al. 2001);
- losses: a transmission followed by a retransmission of the same data was lost, unless the
  receiver reported the data twice in a D-SACK (RFC 2883): then the retransmission was spurious;
- reordering: a hole the receiver SACKed around (RFC 2018) that was filled without a
  retransmission arrived late, not lost (the RFC 4737 notion of a reordered packet), and how
  late it was (the time from the first SACK above it to the ACK that covered it).
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field

from .capture import TH_ACK, TH_SYN, Connection, Segment


@dataclass(slots=True)
class Seg:
    """The scoreboard entry of one data segment (by its relative start sequence number)."""

    start: int
    end: int
    wire: int
    sends: list[float] = field(default_factory=list)
    delivered_at: float | None = None
    hole_since: float | None = None  # first ACK that SACKed data above it while it was missing
    dsacks: int = 0


@dataclass(frozen=True, slots=True)
class AckPair:
    """Two consecutive delivering ACKs (A then B), times in seconds."""

    gap: float  # B's arrival - A's
    send_gap: float  # send of B's newest segment - send of A's newest
    bits: int  # IP bits B newly delivers
    packets: int  # segments B newly delivers
    waited: float | None  # the smaller RTT sample of the two newest segments - the min RTT so far
    index: int  # B's position among the flow's ACKs (consecutive pairs make a train)


@dataclass
class Replay:
    """The raw observations of one transfer (times in seconds from the capture's start)."""

    mss: int
    transmissions: list[tuple[float, int]]  # (send time, segment start) in capture order
    segs: dict[int, Seg]
    rtt: list[tuple[float, float, int]]  # (send time, RTT, segments the ACK newly covered)
    pairs: list[AckPair]
    reorder_lateness: list[float]  # seconds, per segment that arrived late without a retransmission
    acks: int
    dsack_blocks: int
    sack_seen: bool
    timestamps_seen: bool
    super_packets: int  # data packets larger than the MSS (TSO/GSO at the sender)
    window_limited: float  # share of data packets sent with the receiver's window full
    idle_s: float  # time with nothing in flight for longer than an RTT (application-limited)
    first_t: float
    last_t: float
    d2a: list[float]  # data -> the ACK that answers it (side detection)
    a2d: list[float]  # ACK -> the data that answers it (side detection)


class Unwrap:
    """32-bit sequence numbers to a growing integer relative to a base (RFC 9293 modular arithmetic)."""

    def __init__(self, base: int):
        self.base = base
        self.last = 0

    def __call__(self, x: int) -> int:
        d = (x - self.base - self.last) & 0xFFFFFFFF
        if d >= 1 << 31:
            d -= 1 << 32
        self.last += d
        return self.last


def replay(conn: Connection) -> Replay:
    snd, rcv = conn.sender, conn.receiver
    pkts = conn.packets
    syn = next((p for p in pkts if p.src == snd and p.flags & TH_SYN), None)
    syn_ack = next((p for p in pkts if p.src == rcv and p.flags & TH_SYN), None)
    data = [p for p in pkts if p.src == snd and p.payload > 0]
    base = (syn.seq + 1) if syn is not None else min(p.seq for p in data[:64])
    # The segment size is the most common payload (the MSS option counts the timestamp option's 12
    # bytes in); larger packets than the option allows are TSO/GSO super-packets.
    sizes = Counter(p.payload for p in data)
    mss = max(sizes, key=lambda n: (sizes[n], n))
    mss_option = next((p.mss for p in (syn_ack, syn) if p is not None and p.mss), None) or mss
    wscale = (syn_ack.wscale or 0) if syn_ack is not None and syn is not None and syn.wscale is not None else 0
    rel_d, rel_a = Unwrap(base), Unwrap(base)

    segs: dict[int, Seg] = {}
    starts: list[int] = []  # sorted segment starts (segments are sent in order of first transmission)
    transmissions: list[tuple[float, int]] = []
    rtt: list[tuple[float, float, int]] = []
    pairs: list[AckPair] = []
    lateness: list[float] = []
    d2a: list[float] = []
    a2d: list[float] = []
    una = snd_nxt = 0
    highest_sacked = 0
    rwnd = None
    # (time, send time of its newest delivered segment, its RTT sample or None)
    prev_ack: tuple[float, float, float | None] | None = None
    last_ack_t: float | None = None
    full_window = sends = acks = dsack_blocks = super_packets = 0
    sack_seen = ts_seen = False
    idle = 0.0
    empty_since: float | None = 0.0
    min_rtt = float("inf")

    def deliver(s: Seg, t: float) -> None:
        s.delivered_at = t
        if s.hole_since is not None and len(s.sends) == 1:
            lateness.append(t - s.hole_since)

    for p in pkts:
        if p.src == snd and p.payload > 0:
            start = rel_d(p.seq)
            end = start + p.payload
            sends += 1
            if p.payload > mss_option:
                super_packets += 1
            if p.ts_val is not None:
                ts_seen = True
            s = segs.get(start)
            if s is None:
                s = segs[start] = Seg(start, end, p.wire)
                if not starts or start > starts[-1]:
                    starts.append(start)
                else:
                    bisect.insort(starts, start)
            s.sends.append(p.t)
            transmissions.append((p.t, start))
            if empty_since is not None and min_rtt < float("inf") and p.t - empty_since > min_rtt:
                idle += p.t - empty_since
            empty_since = None
            snd_nxt = max(snd_nxt, end)
            if rwnd is not None and snd_nxt - una >= rwnd - mss:
                full_window += 1
            if last_ack_t is not None:
                a2d.append(p.t - last_ack_t)
                last_ack_t = None
            continue
        if p.src != rcv or not p.flags & TH_ACK or p.flags & TH_SYN:
            continue
        acks += 1
        t, a = p.t, rel_a(p.ack)
        rwnd = p.window << wscale
        last_ack_t = t
        blocks = [(rel_a(lo), rel_a(hi)) for lo, hi in p.sack]
        if blocks:
            sack_seen = True
            # RFC 2883 section 4: a first block below the cumulative ACK, or inside the second, is a D-SACK.
            lo, hi = blocks[0]
            if hi <= a or (len(blocks) > 1 and blocks[1][0] <= lo and hi <= blocks[1][1]):
                dsack_blocks += 1
                for st in starts[bisect.bisect_left(starts, lo) : bisect.bisect_left(starts, hi)]:
                    segs[st].dsacks += 1
                blocks = blocks[1:]
        newly: list[Seg] = []
        if a > una:
            for st in starts[bisect.bisect_left(starts, una) : bisect.bisect_left(starts, a)]:
                s = segs[st]
                if s.end <= a and s.delivered_at is None:
                    deliver(s, t)
                    newly.append(s)
            una = a
        for lo, hi in blocks:
            if hi <= una:
                continue
            for st in starts[bisect.bisect_left(starts, max(lo, una)) : bisect.bisect_left(starts, hi)]:
                s = segs[st]
                if s.end <= hi and s.delivered_at is None:
                    deliver(s, t)
                    newly.append(s)
            if hi > highest_sacked:
                for st in starts[bisect.bisect_left(starts, una) : bisect.bisect_left(starts, lo)]:
                    s = segs[st]
                    if s.delivered_at is None and s.hole_since is None:
                        s.hole_since = t
                highest_sacked = hi
        if snd_nxt <= una:
            empty_since = t
        if not newly:
            prev_ack = None
            continue
        newest = max(newly, key=lambda s: s.end)
        if newest.end == a and len(newest.sends) == 1:
            d2a.append(t - newest.sends[0])
        sample = None
        if len(newest.sends) == 1:  # Karn's rule
            sample = t - newest.sends[0]
            min_rtt = min(min_rtt, sample)
            rtt.append((newest.sends[0], sample, len(newly)))
        clean = all(len(s.sends) == 1 and s.hole_since is None for s in newly)
        if prev_ack is not None and clean and t > prev_ack[0]:
            waited = min(sample, prev_ack[2]) - min_rtt if sample is not None and prev_ack[2] is not None else None
            bits = 8 * sum(s.wire for s in newly)
            pairs.append(AckPair(t - prev_ack[0], newest.sends[-1] - prev_ack[1], bits, len(newly), waited, acks))
        prev_ack = (t, newest.sends[-1], sample) if clean else None

    if ts_seen:
        d2a, a2d = echo_delays(pkts, snd)
    return Replay(
        mss=mss,
        transmissions=transmissions,
        segs=segs,
        rtt=rtt,
        pairs=pairs,
        reorder_lateness=lateness,
        acks=acks,
        dsack_blocks=dsack_blocks,
        sack_seen=sack_seen,
        timestamps_seen=ts_seen,
        super_packets=super_packets,
        window_limited=full_window / sends if sends else 0.0,
        idle_s=idle,
        first_t=data[0].t,
        last_t=max(p.t for p in pkts),
        d2a=d2a,
        a2d=a2d,
    )


def echo_delays(pkts: list[Segment], snd: tuple[str, int]) -> tuple[list[float], list[float]]:
    """With RFC 7323 timestamps, each side echoes the other's latest TSval: the delays from the first
    data packet carrying a TSval to the first ACK echoing it, and from the first ACK carrying a
    TSval to the first data echoing it."""
    first_data: dict[int, float] = {}
    first_ack: dict[int, float] = {}
    answered_data: set[int] = set()
    answered_ack: set[int] = set()
    d2a: list[float] = []
    a2d: list[float] = []
    for p in pkts:
        if p.ts_val is None or p.flags & TH_SYN:
            continue
        if p.src == snd:
            if p.payload > 0:
                first_data.setdefault(p.ts_val, p.t)
            if p.ts_ecr in first_ack and p.ts_ecr not in answered_ack:
                answered_ack.add(p.ts_ecr)
                a2d.append(p.t - first_ack[p.ts_ecr])
        else:
            first_ack.setdefault(p.ts_val, p.t)
            if p.ts_ecr in first_data and p.ts_ecr not in answered_data:
                answered_data.add(p.ts_ecr)
                d2a.append(p.t - first_data[p.ts_ecr])
    return d2a, a2d


def capture_side(r: Replay) -> str:
    """Where the capture was taken, from the two delays a capture point sees: at the sender, an
    ACK comes a round trip after the data it answers and data answers an ACK at once; at the
    receiver, the ACK answers its data at once and the data answering an ACK comes a round trip
    later. Answers are matched by timestamp echoes, else by sequence (the ACK of exactly a data
    packet's end; the next data after an ACK)."""
    if len(r.d2a) < 5 or len(r.a2d) < 5:
        return "unknown"
    d2a, a2d = sorted(r.d2a)[len(r.d2a) // 2], sorted(r.a2d)[len(r.a2d) // 2]
    if d2a > 2 * a2d:
        return "sender"
    if a2d > 2 * d2a:
        return "receiver"
    return "path"


__all__ = ["Replay", "Seg", "Segment", "capture_side", "replay"]
