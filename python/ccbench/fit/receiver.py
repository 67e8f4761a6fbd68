"""What a receiver-side capture shows of one TCP transfer (a download captured on the machine that
downloads), as the same observations the sender-side replay gives, so one estimator serves both:

- rate samples: the arrival spacing of consecutive in-order data packets, the bottleneck's
  dispersion of packets that queued there back to back (Dovrolis et al., IEEE/ACM ToN 2004; the
  median, since idle gaps and jitter spread it to both sides of the capacity's mode);
- RTT samples from RFC 7323 timestamps: from the first ACK carrying a TSval to the first data
  that echoes it, a whole round trip through the sender (which answers an ACK at once when its
  window is full); the sender echoes the newest TSval it saw, so a sample can be long by up to
  one tick of the receiver's timestamp clock (1 ms on Linux), never short;
- losses and reordering from holes: data arriving below the highest sequence number received
  fills a hole; it is a resend (the original was lost) when its TSval is later than that of the
  first packet that arrived above the hole (a resend leaves the sender after the packets that
  overtook the original, an original before them), else the original arrived late (reordered).
"""

from __future__ import annotations

import bisect
from collections import Counter

from .capture import TH_ACK, TH_SYN, Connection, FitInputError
from .sender import Replay, Seg, Unwrap, echo_delays


def replay_receiver(conn: Connection) -> tuple[Replay, list[float]]:
    """The observations of a receiver-side capture and its rate samples (bit/s)."""
    snd, rcv = conn.sender, conn.receiver
    pkts = conn.packets
    data = [p for p in pkts if p.src == snd and p.payload > 0]
    if any(p.ts_val is None for p in data[:100]):
        raise FitInputError(
            "a capture taken at the receiver needs TCP timestamps (RFC 7323) to measure the RTT, and this"
            " transfer has none; capture at the sender instead"
        )
    syn = next((p for p in pkts if p.src == snd and p.flags & TH_SYN), None)
    base = (syn.seq + 1) if syn is not None else min(p.seq for p in data[:64])
    sizes = Counter(p.payload for p in data)
    mss = max(sizes, key=lambda n: (sizes[n], n))
    mss_option = next((p.mss for p in pkts if p.flags & TH_SYN and p.mss), None) or mss
    rel = Unwrap(base)

    segs: dict[int, Seg] = {}
    transmissions: list[tuple[float, int]] = []
    lateness: list[float] = []
    rate: list[float] = []
    highest = 0  # end of the highest data received
    # Gaps in the sequence space as they opened: their starts (sorted, as they open in order), ends,
    # and the arrival and TSval of the packet that arrived above each first.
    hole_lo: list[int] = []
    holes: list[tuple[int, float, int]] = []
    prev_end, prev_t = None, None
    super_packets = 0
    for p in data:
        start = rel(p.seq)
        end = start + p.payload
        if p.payload > mss_option:
            super_packets += 1
        s = segs.get(start)
        if s is not None:  # a duplicate: a spurious resend reached the receiver twice
            s.sends.append(p.t)
            s.dsacks += 1
            transmissions.append((p.t, start))
            continue
        s = segs[start] = Seg(start, end, p.wire, sends=[p.t], delivered_at=p.t)
        if start >= highest:
            if start > highest:  # a gap opens: what is in it is missing
                hole_lo.append(highest)
                holes.append((start, p.t, p.ts_val))
            transmissions.append((p.t, start))
            if prev_end == start and prev_t is not None and p.t > prev_t:
                rate.append(8 * p.wire / (p.t - prev_t))
            highest = end
            prev_end, prev_t = end, p.t  # a hole's fill in between does not break the in-order chain
        else:  # fills a hole: a resend or a late original
            i = bisect.bisect_right(hole_lo, start) - 1
            if i < 0 or start >= holes[i][0]:  # below every gap: data the capture missed, not a hole
                transmissions.append((p.t, start))
                continue
            _, first_t, first_ts = holes[i]
            if p.ts_val > first_ts:  # sent after the packets that overtook it: a resend
                s.sends.insert(0, first_t)  # the lost original, placed where it was sent
                transmissions.append((first_t, start))
            else:
                lateness.append(p.t - first_t)
            transmissions.append((p.t, start))
    transmissions.sort()

    # RTT: the first ACK carrying a TSval -> the first data echoing it.
    first_ack: dict[int, float] = {}
    answered: set[int] = set()
    rtt: list[tuple[float, float, int]] = []
    acks = 0
    sack_seen = False
    for p in pkts:
        if p.src == rcv and p.flags & TH_ACK and not p.flags & TH_SYN:
            acks += 1
            sack_seen = sack_seen or bool(p.sack)
            if p.ts_val is not None:
                first_ack.setdefault(p.ts_val, p.t)
        elif p.src == snd and p.payload > 0 and p.ts_ecr in first_ack and p.ts_ecr not in answered:
            answered.add(p.ts_ecr)
            t0 = first_ack[p.ts_ecr]
            rtt.append((t0, p.t - t0, 2))  # 2: no delayed ACK inside (the sender answers at once)
    # Application-limited periods: no data for longer than two round trips.
    min_rtt = min((x for _, x, _ in rtt), default=float("inf"))
    idle = sum(b.t - a.t for a, b in zip(data, data[1:]) if b.t - a.t > 2 * min_rtt)
    d2a, a2d = echo_delays(pkts, snd)
    r = Replay(
        mss=mss,
        transmissions=transmissions,
        segs=segs,
        rtt=rtt,
        pairs=[],
        reorder_lateness=lateness,
        acks=acks,
        dsack_blocks=0,
        sack_seen=sack_seen,
        timestamps_seen=True,
        super_packets=super_packets,
        window_limited=0.0,
        idle_s=idle,
        first_t=data[0].t,
        last_t=max(p.t for p in pkts),
        d2a=d2a,
        a2d=a2d,
    )
    return r, rate
