//! PIE, Proportional Integral controller Enhanced (RFC 8033; R. Pan et al.,
//! "PIE: A lightweight control scheme to address the bufferbloat problem",
//! IEEE HPSR 2013), following Linux net/sched/sch_pie.c and include/net/pie.h
//! (v6.x, the code since the 5.7 split into pie.h): a drop probability
//! updated every `tupdate` from the queueing delay, applied at enqueue.
//!
//! Model. Every tupdate (15 ms; the first update 500 ms after start, as
//! Linux's timer), with qdelay the latest delay and qdelay_old the previous:
//!   p += a (qdelay - target) + b (qdelay - qdelay_old),  a = alpha, b = beta in 1/s
//! with alpha = 0.125, beta = 1.25 scaled down while p is small (RFC 8033
//! 4.2, Linux's auto-tuning): /2 below 10%, then /4 more for each decade
//! below 1%, 0.1%, ... 0.0001%; steps of at most 2% once p >= 10%; +2% when
//! qdelay > 250 ms; p *= 63/64 after two updates with no delay; p within
//! [0, 1]. The state (burst allowance, derandomization) restarts when
//! qdelay and qdelay_old are under target/2 and p is 0.
//!
//! An arrival is dropped early (pie_drop_early) unless the 150 ms burst
//! allowance is left, or qdelay < target/2 with p < 20%, or fewer than two
//! MTUs are queued; otherwise RFC 8033 5.1's derandomization: accu_prob += p,
//! never below 0.85, always at or above 8.5, else with probability p. With
//! `ecn`, an ECN-capable packet is marked CE instead while p <= 10%.
//!
//! The delay is the one of Linux's default timestamp mode (dq_rate_estimator
//! off): qdelay = the sojourn time of the packet last dequeued, 0 if the queue
//! is then empty; the burst allowance shrinks by the time between dequeues.
//! Not modelled: bytemode (off by default in Linux), the dequeue-rate
//! estimator (RFC 8033's Little's-law alternative). Linux lets p grow past 1
//! in its 56-bit fixed point; here it is bounded at 1 as RFC 8033 4.2 says.

use super::fifo::{Capacity, Fifo, Queued};
use crate::net::pool::{PacketId, PacketPool};
use crate::rng::Rng;
use crate::time::{Nanos, NS_PER_MS};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    pub target_ns: Nanos,
    pub tupdate_ns: Nanos,
    /// Weights of the delay error and of its change, per second (RFC 8033's alpha and beta).
    pub alpha: f64,
    pub beta: f64,
    pub ecn: bool,
}

impl Default for PieParams {
    /// Linux pie_params_init: target 15 ms, tupdate 15 ms, alpha 2/16, beta 20/16, no ECN.
    fn default() -> Self {
        PieParams { target_ns: 15 * NS_PER_MS, tupdate_ns: 15 * NS_PER_MS, alpha: 0.125, beta: 1.25, ecn: false }
    }
}

/// Linux's default limit, in packets (pie_params_init).
pub const DEFAULT_LIMIT_PKTS: u64 = 1000;
/// The burst allowance (RFC 8033 4.1 max_burst; Linux pie_vars_init).
const MAX_BURST_NS: Nanos = 150 * NS_PER_MS;
/// The first probability update, after start (Linux pie_init: HZ / 2).
const FIRST_UPDATE_NS: Nanos = 500 * NS_PER_MS;
/// Above this delay the probability grows 2% more per update (Linux, RFC 8033 4.2).
const HIGH_DELAY_NS: Nanos = 250 * NS_PER_MS;

pub struct Pie {
    fifo: Fifo,
    params: PieParams,
    /// Bytes of two MTUs: below this backlog nothing is dropped early.
    min_backlog_bytes: u64,
    /// The drop probability.
    pub prob: f64,
    accu_prob: f64,
    /// The latest queueing delay and the one of the previous update.
    pub qdelay_ns: Nanos,
    qdelay_old_ns: Nanos,
    burst_ns: Nanos,
    /// The last dequeue (None: none since the state was reset).
    dq_tstamp: Option<Nanos>,
    next_update: Nanos,
    rng: Rng,
    pub marks: u64,
    pub early_drops: u64,
}

impl Pie {
    /// `mtu_bytes`: the link's MTU (Linux psched_mtu), for the two-MTU floor.
    pub fn new(capacity: Capacity, params: PieParams, mtu_bytes: u64, rng: Rng) -> Pie {
        Pie {
            fifo: Fifo::new(capacity),
            params,
            min_backlog_bytes: 2 * mtu_bytes,
            prob: 0.0,
            accu_prob: 0.0,
            qdelay_ns: 0,
            qdelay_old_ns: 0,
            burst_ns: MAX_BURST_NS,
            dq_tstamp: None,
            next_update: FIRST_UPDATE_NS,
            rng,
            marks: 0,
            early_drops: 0,
        }
    }

    /// Linux pie_vars_init: a fresh burst allowance and measurement cycle.
    fn reset_vars(&mut self) {
        self.burst_ns = MAX_BURST_NS;
        self.dq_tstamp = None;
        self.accu_prob = 0.0;
    }

    /// Runs the timer's updates due by `now`. The backlog and qdelay change
    /// only at enqueue and dequeue, so updates run late are exact.
    #[inline]
    fn catch_up(&mut self, now: Nanos) {
        while self.next_update <= now {
            self.calculate_probability(self.fifo.len_bytes());
            self.next_update += self.params.tupdate_ns.max(1);
        }
    }

    /// Linux pie_calculate_probability, timestamp mode.
    fn calculate_probability(&mut self, backlog: u64) {
        let target = self.params.target_ns;
        let (qdelay, qdelay_old) = (self.qdelay_ns, self.qdelay_old_ns);
        // A backlog too small to have given a delay: no decay this round.
        let mut update_prob = !(qdelay == 0 && backlog != 0);
        let (mut alpha, mut beta) = (self.params.alpha, self.params.beta);
        if self.prob < 0.1 {
            alpha /= 2.0;
            beta /= 2.0;
            let mut power = 100.0;
            while self.prob < 1.0 / power && power <= 1e6 {
                alpha /= 4.0;
                beta /= 4.0;
                power *= 10.0;
            }
        }
        let seconds = |ns: Nanos| ns as f64 * 1e-9;
        let mut delta = alpha * (seconds(qdelay) - seconds(target)) + beta * (seconds(qdelay) - seconds(qdelay_old));
        if delta > 0.02 && self.prob >= 0.1 {
            delta = 0.02;
        }
        if qdelay > HIGH_DELAY_NS {
            delta += 0.02;
        }
        self.prob += delta;
        if self.prob >= 1.0 && delta > 0.0 {
            self.prob = 1.0;
            update_prob = false;
        } else if self.prob < 0.0 {
            self.prob = 0.0;
        }
        if qdelay == 0 && qdelay_old == 0 && update_prob {
            self.prob -= self.prob / 64.0;
        }
        if qdelay < target / 2 && qdelay_old < target / 2 && self.prob == 0.0 {
            self.reset_vars();
        }
        self.qdelay_old_ns = qdelay;
    }

    /// Linux pie_drop_early: whether the arrival is dropped (or marked).
    fn drop_early(&mut self) -> bool {
        if self.burst_ns > 0 {
            return false;
        }
        if self.qdelay_ns < self.params.target_ns / 2 && self.prob < 0.2 {
            return false;
        }
        if self.fifo.len_bytes() < self.min_backlog_bytes {
            return false;
        }
        if self.prob == 0.0 {
            self.accu_prob = 0.0;
        } else {
            self.accu_prob += self.prob;
        }
        if self.accu_prob < 0.85 {
            return false;
        }
        if self.accu_prob >= 8.5 {
            return true;
        }
        if self.rng.uniform() < self.prob {
            self.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// Adds packet `id` unless PIE drops it early or the queue is full; false when dropped.
    #[inline(never)]
    pub fn enqueue(&mut self, now: Nanos, id: PacketId, pool: &mut PacketPool) -> bool {
        self.catch_up(now);
        let p = pool.get_mut(id);
        if !self.fifo.fits(p) {
            self.accu_prob = 0.0;
            return false;
        }
        if self.drop_early() {
            if self.params.ecn && self.prob <= 0.1 && p.ect {
                p.ce = true;
                self.marks += 1;
            } else {
                self.early_drops += 1;
                self.accu_prob = 0.0;
                return false;
            }
        }
        self.fifo.push(id, p);
        true
    }

    /// The head packet; its sojourn time becomes qdelay (Linux pie_process_dequeue).
    #[inline(never)]
    pub fn dequeue(&mut self, now: Nanos) -> Option<Queued> {
        self.catch_up(now);
        let q = self.fifo.pop()?;
        self.qdelay_ns = if self.fifo.is_empty() { 0 } else { now.saturating_sub(q.enqueued_at) };
        let dtime = self.dq_tstamp.map_or(0, |t| now.saturating_sub(t));
        self.dq_tstamp = Some(now);
        self.burst_ns = self.burst_ns.saturating_sub(dtime);
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

    /// A PIE queue with a packet pool, served at a fixed rate by `run`.
    struct Bench {
        q: Pie,
        pool: PacketPool,
    }

    impl Bench {
        fn new(params: PieParams) -> Bench {
            let q = Pie::new(Capacity::Packets(100_000), params, 1500, Rng::for_component(3, 9));
            Bench { q, pool: PacketPool::new() }
        }

        fn enqueue(&mut self, now: Nanos, ect: bool) -> bool {
            let mut p = Packet::new(Kind::Data, 0, 1500);
            p.enqueued_at = now;
            p.ect = ect;
            let id = self.pool.insert(p);
            let ok = self.q.enqueue(now, id, &mut self.pool);
            if !ok {
                self.pool.remove(id);
            }
            ok
        }

        fn dequeue(&mut self, now: Nanos) {
            if let Some(q) = self.q.dequeue(now) {
                self.pool.remove(q.id);
            }
        }
    }

    #[test]
    fn probability_follows_the_pi_law_with_the_auto_tuned_gains() {
        let mut q = Pie::new(Capacity::Packets(10), PieParams::default(), 1500, Rng::for_component(1, 1));
        // A steady 40 ms delay, p = 0: the gains are scaled by 1/2 * 1/4^5 (p below 0.0001%).
        q.qdelay_ns = 40 * NS_PER_MS;
        q.qdelay_old_ns = 40 * NS_PER_MS;
        q.calculate_probability(30_000);
        let scale = 0.5 / 4f64.powi(5);
        assert!((q.prob - scale * 0.125 * 0.025).abs() < 1e-15, "{}", q.prob);
        // At p = 5%: only the halving (below 10%).
        q.prob = 0.05;
        q.calculate_probability(30_000);
        assert!((q.prob - (0.05 + 0.5 * 0.125 * 0.025)).abs() < 1e-12, "{}", q.prob);
        // At p = 50%: full gains; a jump of the delay is capped at 2%.
        q.prob = 0.5;
        q.qdelay_ns = 200 * NS_PER_MS;
        q.calculate_probability(30_000);
        assert!((q.prob - 0.52).abs() < 1e-12, "{}", q.prob);
        // Above 250 ms: the capped 2%, and 2% more.
        q.qdelay_old_ns = 300 * NS_PER_MS;
        q.qdelay_ns = 300 * NS_PER_MS;
        q.calculate_probability(30_000);
        assert!((q.prob - 0.56).abs() < 1e-12, "{}", q.prob);
    }

    #[test]
    fn an_idle_queue_decays_the_probability_and_restarts_the_burst_allowance() {
        let mut q = Pie::new(Capacity::Packets(10), PieParams::default(), 1500, Rng::for_component(1, 1));
        q.prob = 0.3;
        q.burst_ns = 0;
        q.calculate_probability(0);
        // Below target: p falls by alpha * target (15 ms) ...
        let after_pi = 0.3 - 0.125 * 0.015;
        // ... and by 1/64 with two zero delays in a row.
        assert!((q.prob - after_pi * 63.0 / 64.0).abs() < 1e-12, "{}", q.prob);
        for _ in 0..2000 {
            q.calculate_probability(0);
        }
        assert_eq!(q.prob, 0.0);
        assert_eq!(q.burst_ns, MAX_BURST_NS);
    }

    #[test]
    fn a_standing_queue_above_target_raises_the_probability_and_settles_near_target() {
        // 10% more arrives than leaves (one packet per ms) for 10 s: without
        // drops the queue would grow by 100 ms a second.
        let mut b = Bench::new(PieParams::default());
        let service = NS_PER_MS;
        let (mut probs, mut late_delays) = (Vec::new(), Vec::new());
        for t in 0..10_000u64 {
            let now = t * service;
            b.enqueue(now, false);
            if t % 10 == 0 {
                b.enqueue(now + service / 4, false);
            }
            b.dequeue(now + service / 2);
            if t % 500 == 499 {
                probs.push(b.q.prob);
            }
            if t >= 6_000 {
                late_delays.push(b.q.qdelay_ns as f64 / 1e6);
            }
        }
        // No drop before the first update (500 ms) ...
        assert!(probs[0] == 0.0, "{probs:?}");
        // ... then p climbs while the delay is above target, and drops hold the queue.
        assert!(probs[1] > 0.0 && probs[2] > probs[1], "{probs:?}");
        assert!(b.q.early_drops > 100, "{}", b.q.early_drops);
        let mean = late_delays.iter().sum::<f64>() / late_delays.len() as f64;
        assert!((7.5..30.0).contains(&mean), "mean delay {mean} ms over the last 4 s, target 15 ms");
    }

    #[test]
    fn ecn_marks_below_ten_percent_and_drops_above() {
        let mut b = Bench::new(PieParams { ecn: true, ..PieParams::default() });
        for _ in 0..10 {
            b.enqueue(0, true);
        }
        b.q.burst_ns = 0;
        b.q.qdelay_ns = 30 * NS_PER_MS;
        b.q.prob = 0.05;
        for _ in 0..400 {
            assert!(b.enqueue(0, true));
        }
        assert!(b.q.marks > 5 && b.q.early_drops == 0, "{} {}", b.q.marks, b.q.early_drops);
        b.q.prob = 0.5;
        let kept = (0..400).filter(|_| b.enqueue(0, true)).count();
        assert!(kept < 400 && b.q.early_drops > 0);
    }

    #[test]
    fn nothing_is_dropped_early_under_two_mtus_or_within_the_burst_allowance() {
        let mut b = Bench::new(PieParams::default());
        b.q.prob = 1.0;
        b.q.qdelay_ns = 100 * NS_PER_MS;
        // Burst allowance left: everything enters.
        assert!((0..5).all(|_| b.enqueue(0, false)));
        b.q.burst_ns = 0;
        b.dequeue(0);
        b.dequeue(0);
        b.dequeue(0);
        b.dequeue(0);
        // One packet queued (under two MTUs): still admitted.
        assert!(b.enqueue(0, false));
        // Two queued: the third is dropped (accu_prob reaches 1 >= 0.85, p = 1).
        assert!(!b.enqueue(0, false));
    }
}
