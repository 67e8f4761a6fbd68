//! DualPI2, the coupled dual-queue AQM of L4S (RFC 9332; K. De Schepper et
//! al., "PI2: A linearized AQM for both classic and scalable TCP", CoNEXT
//! 2016), following Linux net/sched/sch_dualpi2.c (v6.18) with its defaults.
//!
//! Two FIFOs share one buffer: packets with ECT(1) or CE (the L4S identifier,
//! RFC 9331) go to the L queue, all others to the Classic queue. A PI
//! controller updates a base probability p' every `tupdate` (16 ms) from the
//! larger of the two head-of-line sojourn times:
//!   p' += alpha (qdelay - target) + beta (qdelay - qdelay_old),  within [0, 1]
//! with target 15 ms, alpha 0.16 and beta 3.2 per second (RFC 9332 A.1;
//! Linux 41/256 and 819/256). The coupling gives each queue its signal:
//!   Classic: p_C = p'^2 (two independent rolls), a drop or, for ECT(0), a mark;
//!   L4S:     p_CL = k p' (k = 2), a mark; and a step mark when the packet's
//!            own sojourn exceeds 1 ms (the native L4S AQM, RFC 9332 2.4).
//! When k p' exceeds 1 (overload) L4S packets see Classic drops (p'^2) and
//! are marked otherwise (Linux drop_overload, the default). Nothing is marked
//! or dropped while less than two MTUs are queued. Decisions are taken at
//! dequeue (Linux's default drop_early = 0); dropped packets are freed here.
//!
//! The scheduler is Linux's weighted round robin with credit (RFC 9332
//! allows it beside the time-shifted FIFO): L goes first unless the Classic
//! queue has built up credit, with weights 10% Classic, 90% L (c_protection),
//! so Classic cannot be starved. Not modelled: the memory limit (the
//! queue's `size` is the one limit, Linux's 10000 packets by default),
//! tc-filter classification, GSO splitting (every packet is one segment).

use super::fifo::{Capacity, Fifo, Queued};
use crate::net::packet::Packet;
use crate::net::pool::{PacketId, PacketPool};
use crate::rng::Rng;
use crate::time::{Nanos, NS_PER_MS};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DualPi2Params {
    pub target_ns: Nanos,
    pub tupdate_ns: Nanos,
    /// PI gains, per second.
    pub alpha: f64,
    pub beta: f64,
    /// The L queue's step marking threshold on a packet's sojourn time.
    pub step_ns: Nanos,
    /// k: p_CL = k p'.
    pub coupling: f64,
    /// The Classic queue's weight in the scheduler, in percent (L gets the rest).
    pub c_protection_pct: u8,
}

impl Default for DualPi2Params {
    /// Linux dualpi2_reset_default and RFC 9332 A.1.
    fn default() -> Self {
        DualPi2Params {
            target_ns: 15 * NS_PER_MS,
            tupdate_ns: 16 * NS_PER_MS,
            alpha: 0.16,
            beta: 3.2,
            step_ns: NS_PER_MS,
            coupling: 2.0,
            c_protection_pct: 10,
        }
    }
}

/// Linux's default limit, in packets (dualpi2_reset_default: "max 125ms at 1Gbps").
pub const DEFAULT_LIMIT_PKTS: u64 = 10_000;

pub struct DualPi2 {
    l: Fifo,
    c: Fifo,
    capacity: Capacity,
    params: DualPi2Params,
    mtu_bytes: u64,
    /// The base probability p'.
    pub prob: f64,
    last_qdelay_ns: Nanos,
    next_update: Nanos,
    /// WRR credit: L is served while it is <= 0 (or Classic is empty).
    credit: i64,
    credit_init: i64,
    rng: Rng,
    /// CE marks (coupled and step), of which step marks.
    pub marks: u64,
    pub step_marks: u64,
    pub drops: u64,
}

/// Whether a packet belongs to the L queue: ECT(1) or CE (Linux ecn_mask = ECT(1)).
#[inline]
pub fn is_l4s(p: &Packet) -> bool {
    p.ect && (p.ect1 || p.ce)
}

impl DualPi2 {
    pub fn new(capacity: Capacity, params: DualPi2Params, mtu_bytes: u64, rng: Rng) -> DualPi2 {
        let wc = params.c_protection_pct as i64;
        let credit_init = mtu_bytes as i64 * (wc - (100 - wc));
        DualPi2 {
            l: Fifo::new(capacity),
            c: Fifo::new(capacity),
            capacity,
            params,
            mtu_bytes,
            prob: 0.0,
            last_qdelay_ns: 0,
            next_update: params.tupdate_ns.max(1),
            credit: credit_init,
            credit_init,
            rng,
            marks: 0,
            step_marks: 0,
            drops: 0,
        }
    }

    /// Runs the PI updates due by `now`: the heads change only at enqueue
    /// and dequeue, so an update run late sees the queues of its time.
    #[inline]
    fn catch_up(&mut self, now: Nanos) {
        while self.next_update <= now {
            self.calculate_probability(self.next_update);
            self.next_update += self.params.tupdate_ns.max(1);
        }
    }

    /// Linux calculate_probability at time `t`.
    fn calculate_probability(&mut self, t: Nanos) {
        let sojourn = |f: &Fifo| f.head_enqueued_at().map_or(0, |at| t.saturating_sub(at));
        let qdelay = sojourn(&self.l).max(sojourn(&self.c));
        let s = |ns: Nanos| ns as f64 * 1e-9;
        let delta = self.params.alpha * (s(qdelay) - s(self.params.target_ns))
            + self.params.beta * (s(qdelay) - s(self.last_qdelay_ns));
        self.last_qdelay_ns = qdelay;
        self.prob = (self.prob + delta).clamp(0.0, 1.0);
    }

    fn fits(&self, p: &Packet) -> bool {
        match self.capacity {
            Capacity::Packets(limit) => ((self.l.len_packets() + self.c.len_packets()) as u64) < limit,
            Capacity::Bytes(limit) => self.len_bytes() + p.wire_bytes as u64 <= limit,
        }
    }

    /// Adds packet `id` to its queue; false when the buffer is full.
    #[inline(never)]
    pub fn enqueue(&mut self, now: Nanos, id: PacketId, pool: &PacketPool) -> bool {
        self.catch_up(now);
        let p = pool.get(id);
        if !self.fits(p) {
            return false;
        }
        if is_l4s(p) {
            self.l.push(id, p);
        } else {
            self.c.push(id, p);
        }
        true
    }

    /// Both rolls of the squared Classic probability.
    fn roll_squared(&mut self, p: f64) -> bool {
        self.rng.uniform() < p && self.rng.uniform() < p
    }

    /// Marks `p` CE if it is ECN-capable (true), as INET_ECN_set_ce.
    fn mark(&mut self, p: &mut Packet) -> bool {
        if p.ect {
            p.ce = true;
            self.marks += 1;
        }
        p.ect
    }

    /// Linux must_drop: the coupled AQM's decision on a dequeued packet of
    /// queue `l4s`; true to drop (a mark is applied here).
    fn must_drop(&mut self, p: &mut Packet, l4s: bool) -> bool {
        if self.len_bytes() < 2 * self.mtu_bytes {
            return false;
        }
        let prob = self.prob;
        let l_prob = prob * self.params.coupling;
        let overload = l_prob > 1.0;
        if !l4s {
            if self.roll_squared(prob) {
                if overload || !p.ect {
                    return true;
                }
                self.mark(p);
            }
            return false;
        }
        if overload {
            // Linux drop_overload: Classic drops first, marks otherwise.
            if self.roll_squared(prob) {
                return true;
            }
            self.mark(p);
        } else if self.rng.uniform() < l_prob && !self.mark(p) {
            return true;
        }
        false
    }

    /// The next packet by the WRR scheduler, after the AQM (dropped packets
    /// are freed from `pool`).
    #[inline(never)]
    pub fn dequeue(&mut self, now: Nanos, pool: &mut PacketPool) -> Option<Queued> {
        self.catch_up(now);
        let (wc, wl) = (self.params.c_protection_pct as i64, 100 - self.params.c_protection_pct as i64);
        loop {
            let l_first = !self.l.is_empty() && (self.c.is_empty() || self.credit <= 0);
            let (q, l4s, change) = if l_first {
                let q = self.l.pop()?;
                let change = if self.c.is_empty() { 0 } else { wc };
                (q, true, change)
            } else if let Some(q) = self.c.pop() {
                let change = if self.l.is_empty() { 0 } else { -wl };
                (q, false, change)
            } else {
                self.credit = self.credit_init;
                return None;
            };
            let p = pool.get_mut(q.id);
            let mut drop = self.must_drop(p, l4s);
            if !drop && l4s && now.saturating_sub(q.enqueued_at) > self.params.step_ns {
                // The step AQM of the L queue; a non-ECT packet there is dropped.
                drop = !self.mark(p);
                if !drop {
                    self.step_marks += 1;
                }
            }
            if drop {
                self.drops += 1;
                pool.free(q.id);
                continue;
            }
            self.credit += change * q.wire_bytes as i64;
            return Some(q);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.l.is_empty() && self.c.is_empty()
    }

    pub fn len_packets(&self) -> usize {
        self.l.len_packets() + self.c.len_packets()
    }

    pub fn len_bytes(&self) -> u64 {
        self.l.len_bytes() + self.c.len_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Kind;

    struct Bench {
        q: DualPi2,
        pool: PacketPool,
    }

    impl Bench {
        fn new() -> Bench {
            let q = DualPi2::new(Capacity::Packets(10_000), DualPi2Params::default(), 1500, Rng::for_component(5, 2));
            Bench { q, pool: PacketPool::new() }
        }

        /// Enqueues a packet of `flow` (L4S when `ect1`) at `now`.
        fn enqueue(&mut self, now: Nanos, flow: u32, ect: bool, ect1: bool) {
            let mut p = Packet::new(Kind::Data, flow, 1500);
            p.enqueued_at = now;
            p.ect = ect;
            p.ect1 = ect1;
            let id = self.pool.insert(p);
            assert!(self.q.enqueue(now, id, &self.pool));
        }

        /// The dequeued packet (freed), if any.
        fn dequeue(&mut self, now: Nanos) -> Option<Packet> {
            let q = self.q.dequeue(now, &mut self.pool)?;
            Some(self.pool.remove(q.id))
        }
    }

    #[test]
    fn l4s_packets_are_classified_by_ect1_or_ce() {
        let mut p = Packet::new(Kind::Data, 0, 1500);
        assert!(!is_l4s(&p));
        p.ect = true;
        assert!(!is_l4s(&p), "ECT(0) is Classic");
        p.ect1 = true;
        assert!(is_l4s(&p));
        p.ect1 = false;
        p.ce = true;
        assert!(is_l4s(&p), "CE goes to the L queue");
    }

    #[test]
    fn the_scheduler_gives_l_ninety_percent_while_both_are_backlogged() {
        let mut b = Bench::new();
        for _ in 0..2000 {
            b.enqueue(0, 0, true, true);
            b.enqueue(0, 1, false, false);
        }
        // Everything was queued at 0 and is served at 0: no step marks, no PI yet.
        let l_share = (0..1000).filter(|_| b.dequeue(0).unwrap().flow == 0).count();
        assert!((895..=905).contains(&l_share), "L got {l_share} of 1000");
    }

    #[test]
    fn the_step_marks_l4s_packets_that_waited_over_a_millisecond() {
        let mut b = Bench::new();
        for _ in 0..4 {
            b.enqueue(0, 0, true, true);
        }
        assert!(!b.dequeue(NS_PER_MS).unwrap().ce, "1 ms is not over the threshold");
        assert!(b.dequeue(NS_PER_MS + 1).unwrap().ce);
        assert_eq!(b.q.step_marks, 1);
    }

    #[test]
    fn the_pi_raises_p_under_a_standing_classic_queue_and_couples_the_signals() {
        let mut b = Bench::new();
        // A Classic queue held at 60 ms (four times the target) for 2 s: p' climbs.
        let mut t = 0;
        let mut id = 0u64;
        for _ in 0..30 {
            b.enqueue(0, 1, true, false);
        }
        while t < 2_000 * NS_PER_MS {
            t += NS_PER_MS;
            b.enqueue(t, 1, true, false);
            id += 1;
            if id > 30 {
                b.dequeue(t);
            }
        }
        let p = b.q.prob;
        // Marks, not drops: the queue stands; p' grows by alpha (qdelay - 15 ms) per 16 ms.
        assert!((0.3..0.7).contains(&p), "p' = {p}");
        // Coupled probabilities: Classic p'^2, L4S 2p'. Count marks on each kind at that p'.
        b.q.next_update = u64::MAX;
        let (mut c_marks, mut l_marks, n) = (0, 0, 20_000);
        for _ in 0..n {
            b.enqueue(t, 1, true, false);
            b.enqueue(t, 0, true, true);
            for _ in 0..2 {
                let pkt = b.dequeue(t).unwrap();
                match (pkt.flow, pkt.ce) {
                    (0, true) => l_marks += 1,
                    (1, true) => c_marks += 1,
                    _ => {}
                }
            }
        }
        let (fc, fl) = (c_marks as f64 / n as f64, l_marks as f64 / n as f64);
        assert!((fc - p * p).abs() < 0.02, "Classic marked {fc}, p'^2 = {}", p * p);
        assert!((fl - 2.0 * p).abs() < 0.03, "L4S marked {fl}, 2p' = {}", 2.0 * p);
    }
}
