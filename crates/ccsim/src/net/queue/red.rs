//! Random Early Detection (S. Floyd and V. Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1(4), 1993), with the
//! "gentle" variant (Floyd 2000) as an option and ECN marking (RFC 3168).
//!
//! Model, in packets, evaluated at each arrival:
//!   avg <- (1 - w_q) avg + w_q q                      (queue non-empty)
//!   avg <- (1 - w_q)^m avg, m = idle time / s         (queue empty; s = one MTU's transmission time)
//!   min_th <= avg < max_th:  p_b = max_p (avg - min_th) / (max_th - min_th)
//!                            p_a = p_b / (1 - count p_b)   (count: packets since the last signal)
//!   max_th <= avg:           signal every packet, or with gentle while avg < 2 max_th:
//!                            p_b = max_p + (1 - max_p) (avg - max_th) / max_th
//! A signal is a CE mark when `ecn` is on and the packet is ECN-capable (as
//! Linux sch_red does, also above max_th), otherwise a drop. The hard limit
//! (`size` of the queue) still drops at the tail.
//!
//! Differs from the paper: the idle period starts when the last packet is
//! taken for transmission (the paper: when the queue empties after it is
//! sent), so m counts one transmission time more; the gentle region uses the
//! same count spacing as the linear region, as ns-2 does.

use super::fifo::{Capacity, Fifo, Queued};
use crate::net::pool::{PacketId, PacketPool};
use crate::rng::Rng;
use crate::time::Nanos;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub min_th_pkts: f64,
    pub max_th_pkts: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub ecn: bool,
}

impl Default for RedParams {
    /// Floyd's recommendations: w_q = 0.002, max_p = 0.1, max_th = 3 min_th.
    fn default() -> Self {
        RedParams { min_th_pkts: 5.0, max_th_pkts: 15.0, max_p: 0.1, w_q: 0.002, gentle: false, ecn: false }
    }
}

pub struct Red {
    fifo: Fifo,
    params: RedParams,
    /// Transmission time of one MTU-sized packet (the paper's s), for the idle decay.
    packet_time_ns: f64,
    avg_pkts: f64,
    /// Packets since the last mark or drop; -1 while avg is below min_th (as in the paper).
    count: i64,
    idle_since: Option<Nanos>,
    rng: Rng,
    pub marks: u64,
    pub early_drops: u64,
}

impl Red {
    pub fn new(capacity: Capacity, params: RedParams, packet_time_ns: f64, rng: Rng) -> Red {
        Red {
            fifo: Fifo::new(capacity),
            params,
            packet_time_ns: packet_time_ns.max(1.0),
            avg_pkts: 0.0,
            count: -1,
            idle_since: Some(0),
            rng,
            marks: 0,
            early_drops: 0,
        }
    }

    fn update_average(&mut self, now: Nanos) {
        let w = self.params.w_q;
        match self.idle_since.take() {
            Some(since) if self.fifo.is_empty() => {
                let m = now.saturating_sub(since) as f64 / self.packet_time_ns;
                self.avg_pkts *= (1.0 - w).powf(m);
            }
            _ => self.avg_pkts = (1.0 - w) * self.avg_pkts + w * self.fifo.len_packets() as f64,
        }
    }

    /// Whether this arrival gets a congestion signal (mark or drop).
    fn signal(&mut self) -> bool {
        let RedParams { min_th_pkts: min, max_th_pkts: max, max_p, gentle, .. } = self.params;
        let avg = self.avg_pkts;
        let p_b = if avg < min {
            self.count = -1;
            return false;
        } else if avg < max {
            max_p * (avg - min) / (max - min)
        } else if gentle && avg < 2.0 * max {
            max_p + (1.0 - max_p) * (avg - max) / max
        } else {
            self.count = 0;
            return true;
        };
        self.count += 1;
        let denominator = 1.0 - self.count as f64 * p_b;
        let p_a = if denominator <= 0.0 { 1.0 } else { p_b / denominator };
        if self.rng.uniform() < p_a {
            self.count = 0;
            true
        } else {
            false
        }
    }

    /// Adds packet `id` unless RED drops it early or the queue is full; false when dropped.
    #[inline(never)]
    pub fn enqueue(&mut self, now: Nanos, id: PacketId, pool: &mut PacketPool) -> bool {
        self.update_average(now);
        let p = pool.get_mut(id);
        if self.signal() {
            if self.params.ecn && p.ect {
                p.ce = true;
                self.marks += 1;
            } else {
                self.early_drops += 1;
                return false;
            }
        }
        if !self.fifo.fits(p) {
            return false;
        }
        self.fifo.push(id, p);
        true
    }

    #[inline(never)]
    pub fn dequeue(&mut self, now: Nanos) -> Option<Queued> {
        let q = self.fifo.pop()?;
        if self.fifo.is_empty() {
            self.idle_since = Some(now);
        }
        Some(q)
    }

    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Kind, Packet};

    fn red(params: RedParams) -> Red {
        Red::new(Capacity::Packets(1000), params, 1e6, Rng::for_component(1, 9))
    }

    /// A RED queue with a packet pool: packets in by value, handles out.
    struct Bench {
        q: Red,
        pool: PacketPool,
    }

    impl Bench {
        fn new(params: RedParams) -> Bench {
            Bench { q: red(params), pool: PacketPool::new() }
        }

        fn enqueue(&mut self, now: Nanos, p: Packet) -> bool {
            let id = self.pool.insert(p);
            let queued = self.q.enqueue(now, id, &mut self.pool);
            if !queued {
                self.pool.remove(id);
            }
            queued
        }

        fn dequeue(&mut self, now: Nanos) -> Option<Packet> {
            let id = self.q.dequeue(now)?.id;
            Some(self.pool.remove(id))
        }
    }

    #[test]
    fn average_follows_the_ewma_and_decays_when_idle() {
        let mut q = Bench::new(RedParams { w_q: 0.5, min_th_pkts: 100.0, max_th_pkts: 300.0, ..RedParams::default() });
        let p = Packet::new(Kind::Data, 0, 1500);
        // Arrivals at an empty queue that was idle since 0: avg stays 0, then 0.5*1, then 0.5*0.5+0.5*2.
        assert!(q.enqueue(0, p));
        assert!(q.enqueue(0, p));
        assert!(q.enqueue(0, p));
        assert!((q.q.avg_pkts - 1.25).abs() < 1e-12);
        for _ in 0..3 {
            q.dequeue(0);
        }
        // Idle for 2 packet times: avg * 0.5^2.
        q.enqueue(2_000_000, p);
        assert!((q.q.avg_pkts - 1.25 * 0.25).abs() < 1e-12);
    }

    #[test]
    fn drop_probability_matches_the_linear_law() {
        // Hold avg near the middle of [min_th, max_th] and count early drops.
        let params =
            RedParams { min_th_pkts: 10.0, max_th_pkts: 30.0, max_p: 0.1, w_q: 1.0, gentle: false, ecn: false };
        let mut q = Bench::new(params);
        let p = Packet::new(Kind::Data, 0, 1500);
        while q.q.fifo().len_packets() < 20 {
            q.enqueue(0, p);
        }
        let before = q.q.early_drops;
        let n = 100_000;
        for _ in 0..n {
            // Keep the queue at 20 packets: p_b = 0.05.
            if q.enqueue(0, p) {
                q.dequeue(0);
            }
        }
        // With count spacing the drops are uniform with mean gap ~ 1/(2 p_b) + 1/2 (Floyd 1993, sec. 7).
        let rate = (q.q.early_drops - before) as f64 / n as f64;
        let expected = 1.0 / (1.0 / (2.0 * 0.05) + 0.5);
        assert!((rate - expected).abs() < 0.1 * expected, "drop rate {rate}, expected {expected}");
    }

    #[test]
    fn marks_ect_packets_instead_of_dropping() {
        let params = RedParams { min_th_pkts: 1.0, max_th_pkts: 2.0, w_q: 1.0, ecn: true, ..RedParams::default() };
        let mut q = Bench::new(params);
        let mut p = Packet::new(Kind::Data, 0, 1500);
        p.ect = true;
        for _ in 0..10 {
            assert!(q.enqueue(0, p));
        }
        assert!(q.q.marks >= 7 && q.q.early_drops == 0, "marks {}", q.q.marks);
        p.ect = false;
        assert!(!q.enqueue(0, p));
        assert_eq!(q.q.early_drops, 1);
    }
}
