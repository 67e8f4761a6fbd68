//! CCP, a delay-based proportional window controller (Cavendish, Ishizu et
//! al., "CCP: a delay-based TCP congestion control", 2010), as the
//! high-speed measurement study states its control law:
//!     cwnd_k = [Kp (B - x_k) - inflight_k] / 2
//! with B the path storage (a "virtual buffer"), x_k the backlog the
//! connection keeps in the network and inflight_k the segments in flight.
//! Loss triggers no cut of its own (the law keeps setting the window); a
//! timeout still goes to slow start as the sender does.
//!
//! The papers' estimators of B and x_k were not available to us, so they are
//! designed here from first principles (`Estimator`, shared with `ccpd.rs`);
//! all quantities are in segments:
//! - delivery rate R: segments delivered over the last round (one RTT,
//!   delimited by `snd_nxt`), divided by its duration;
//! - x_k = (RTT_k - RTT_min) * R, with RTT_k the RTT sample of this ACK:
//!   the queue the flow sees, in segments (a lone flow: the bottleneck queue);
//! - B = headroom * max over rounds of R * mean RTT of the round: the largest
//!   storage (pipe plus buffer) the path has been seen to hold. Rate times RTT
//!   cannot exceed capacity times the longest RTT, so a slow-start overshoot
//!   does not inflate it. B is first learned by the initial slow start, which
//!   (as in any TCP) runs until the first loss; the law then takes over.
//! - update period: the law is evaluated on every ACK (k indexes ACKs). The
//!   inflight term then acts at once (the sender fills the window at the
//!   next ACK), while x_k answers one RTT later.
//! - clamps: cwnd >= 2 segments and at most the sender's window clamp; the
//!   window rises by at most the segments each ACK delivers (it may fall at
//!   once). Without this, the law's jump after a timeout or a drained flight
//!   (inflight small, output large) is a line-rate burst of hundreds of
//!   segments that overflows the buffer; with it, the rise is ACK-clocked at
//!   the pace of slow start.
//! - on loss (ssthresh, which the sender's recovery reduces the window to):
//!   the law's output but at least the pipe estimate R * RTT_min, so that
//!   recovering from the initial slow-start overshoot (where x is the whole
//!   buffer and the law says 2) runs at the bottleneck rate.
//!
//! What the law does with these estimators (single flow, pipe P segments,
//! steady state inflight = P + x): x* = (Kp B - 3P) / (Kp + 3). With a 2-BDP
//! buffer (B = 3P): Kp = 1 keeps the pipe just full with no queue, Kp = 2
//! queues 0.6 P, Kp = 4 about 1.3 P. The backlog loop has gain Kp/3 per RTT,
//! so Kp > 3 oscillates (bounded by the empty queue and the buffer); with
//! B < 3P/Kp the law cannot fill the pipe (cwnd = Kp B / 3 < P).
//!
//! Parameters: kp (the studies use 1, 2 and 4; default 1, the most stable),
//! headroom (B multiplier, default 1: the observed storage itself).

use super::common::reno_cong_avoid;
use super::RecoveryPolicy;
use super::{AckSample, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window};
use crate::time::{Nanos, NS_PER_SEC};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::FloatParam;
    pub const KP: FloatParam =
        FloatParam { name: "kp", default: 1.0, min: 0.01, max: 100.0, doc: "proportional gain Kp" };
    pub const HEADROOM: FloatParam = FloatParam {
        name: "headroom",
        default: 1.0,
        min: 0.1,
        max: 100.0,
        doc: "B = headroom * largest storage (rate * RTT) observed",
    };
}

/// The traced state of ccp and ccpd (`cc_state` rows), in segments.
pub mod state {
    use crate::cc::StateVar;
    pub const B_PKTS: StateVar = StateVar::float("b_pkts", "segments");
    pub const BACKLOG_PKTS: StateVar = StateVar::float("backlog_pkts", "segments");
    pub const INFLIGHT_PKTS: StateVar = StateVar::integer("inflight_pkts", "segments");
    pub const OUTPUT_PKTS: StateVar = StateVar::float("output_pkts", "segments");
}

pub const INFO: Info = Info {
    name: "ccp",
    reference: "Cavendish, Ishizu et al. 2010 (control law as in the high-speed study); estimators designed here",
    summary: "delay-based P controller: cwnd = [Kp (B - x) - inflight] / 2, B = path storage, x = backlog; no loss cut",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Float(&param::KP), Param::Float(&param::HEADROOM)],
    state: &[state::B_PKTS, state::BACKLOG_PKTS, state::INFLIGHT_PKTS, state::OUTPUT_PKTS],
    role: Role::General,
    linux: LinuxModule::SimulatorOnly { why: "a simulator-only controller" },
    ns3: None,
};

/// Path storage, backlog and delivery rate, in segments (shared by ccp and ccpd).
#[derive(Clone, Debug)]
pub struct Estimator {
    pub headroom: f64,
    pub rtt_min: Nanos,
    /// Latest RTT sample.
    pub rtt: Nanos,
    /// Delivery rate of the last full round, segments per second.
    pub rate: f64,
    /// Largest storage seen (before the headroom), segments.
    pub max_storage: f64,
    round_end: u64,
    round_start_at: Nanos,
    round_start_delivered: u64,
    round_rtt_sum: u128,
    round_rtt_cnt: u32,
    /// True once a round boundary was crossed on this ACK (for per-round work).
    pub new_round: bool,
}

impl Estimator {
    pub fn new(headroom: f64) -> Estimator {
        Estimator {
            headroom,
            rtt_min: Nanos::MAX,
            rtt: 0,
            rate: 0.0,
            max_storage: 0.0,
            round_end: 0,
            round_start_at: 0,
            round_start_delivered: 0,
            round_rtt_sum: 0,
            round_rtt_cnt: 0,
            new_round: false,
        }
    }

    pub fn start(&mut self, c: &Conn) {
        self.round_end = c.snd_nxt;
        self.round_start_at = c.now;
        self.round_start_delivered = c.delivered;
    }

    /// Every ACK (from pkts_acked).
    pub fn on_ack(&mut self, c: &Conn, s: &AckSample) {
        if let Some(rtt) = s.rtt_ns {
            let rtt = rtt.max(1);
            self.rtt = rtt;
            self.rtt_min = self.rtt_min.min(rtt);
            self.round_rtt_sum += rtt as u128;
            self.round_rtt_cnt += 1;
        }
        self.new_round = c.snd_una > self.round_end && c.now > self.round_start_at;
        if self.new_round {
            let dt = c.now - self.round_start_at;
            let delivered = c.delivered - self.round_start_delivered.min(c.delivered);
            self.rate = delivered as f64 * NS_PER_SEC as f64 / dt as f64;
            if self.round_rtt_cnt > 0 {
                let mean_rtt = (self.round_rtt_sum / self.round_rtt_cnt as u128) as f64;
                let storage = self.rate * mean_rtt / NS_PER_SEC as f64;
                self.max_storage = self.max_storage.max(storage);
            }
            self.round_end = c.snd_nxt;
            self.round_start_at = c.now;
            self.round_start_delivered = c.delivered;
            self.round_rtt_sum = 0;
            self.round_rtt_cnt = 0;
        }
    }

    /// Pipe estimate: delivery rate times RTT_min, segments.
    pub fn pipe(&self) -> f64 {
        if self.rtt_min == Nanos::MAX {
            return 0.0;
        }
        self.rate * self.rtt_min as f64 / NS_PER_SEC as f64
    }

    /// ssthresh on loss: the law's output, at least the pipe estimate and 2
    /// segments, but never above the window the loss happened at (a delivery
    /// rate measured over a round shortened by ACK compression or recovery
    /// can exceed the window's own rate, and the sender would then answer a
    /// loss with a burst); before any estimate, the window as it is.
    pub fn loss_window(&self, w: &Window, law: f64) -> u32 {
        if self.max_storage <= 0.0 || !law.is_finite() {
            return w.cwnd.max(2);
        }
        (law.max(self.pipe()).round().max(2.0) as u32).min(w.cwnd.max(2)).min(w.cwnd_clamp)
    }

    /// B, segments.
    pub fn path_storage(&self) -> f64 {
        self.headroom * self.max_storage
    }

    /// x_k = (RTT_k - RTT_min) * rate, segments.
    pub fn backlog(&self) -> f64 {
        if self.rtt_min == Nanos::MAX {
            return 0.0;
        }
        (self.rtt.saturating_sub(self.rtt_min)) as f64 * self.rate / NS_PER_SEC as f64
    }
}

/// Slow start until the law takes over: the law is active after the first
/// exit from slow start and again once the slow start after a timeout
/// reaches ssthresh.
#[derive(Clone, Copy, Debug, Default)]
struct Phase {
    law_active: bool,
}

impl Phase {
    /// Returns true if the law should set the window on this ACK.
    fn on_cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) -> bool {
        if !self.law_active {
            if w.in_slow_start() {
                reno_cong_avoid(w, c, acked);
                return false;
            }
            self.law_active = true;
        }
        true
    }

    fn on_state(&mut self, new: CaState) {
        if new == CaState::Loss {
            self.law_active = false;
        }
    }
}

/// Applies a control output to the window: rounded, at least 2 segments,
/// and rising by at most the segments this ACK delivered (slow-start pace).
fn apply(w: &mut Window, output: f64, acked: u32) {
    let out = if output.is_finite() { output.round() } else { 2.0 };
    let target = (out.max(2.0) as u32).min(w.cwnd_clamp);
    w.cwnd = target.min(w.cwnd.saturating_add(acked.max(1)));
}

/// Everything of a CCP-family controller but its control law, shared by ccp
/// and ccpd: the estimators, the slow-start phase, the window update and the
/// first four traced values (b_pkts, backlog_pkts, inflight_pkts, output_pkts).
/// A law is a function of the estimators and the segments in flight.
#[derive(Clone, Debug)]
pub struct Controller {
    pub est: Estimator,
    phase: Phase,
    inflight: u32,
    output: f64,
}

impl Controller {
    pub fn new(headroom: f64) -> Controller {
        Controller { est: Estimator::new(headroom), phase: Phase::default(), inflight: 0, output: f64::NAN }
    }

    pub fn start(&mut self, c: &Conn) {
        self.est.start(c);
    }

    /// No loss-specific cut: the window the law asks for now, but at least
    /// the pipe estimate, so that recovering a slow-start overshoot runs at
    /// the bottleneck rate rather than at 2 segments per RTT.
    pub fn ssthresh(&self, w: &Window, c: &Conn, law: impl FnOnce(&Estimator, u32) -> f64) -> u32 {
        self.est.loss_window(w, law(&self.est, c.in_flight))
    }

    pub fn on_state(&mut self, new: CaState) {
        self.phase.on_state(new);
    }

    /// Slow start, or the law sets the window.
    pub fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32, law: impl FnOnce(&Estimator, u32) -> f64) {
        if !self.phase.on_cong_avoid(w, c, acked) {
            return;
        }
        self.inflight = c.in_flight;
        self.output = law(&self.est, c.in_flight);
        apply(w, self.output, acked);
    }

    /// Writes the variables of `state` (shared by ccp and ccpd).
    pub fn state(&self, out: &mut StateOut) {
        out.number(&state::B_PKTS, self.est.path_storage());
        out.number(&state::BACKLOG_PKTS, self.est.backlog());
        out.number(&state::INFLIGHT_PKTS, self.inflight as f64);
        out.number(&state::OUTPUT_PKTS, self.output);
    }
}

pub struct Ccp {
    kp: f64,
    ctl: Controller,
}

impl Ccp {
    pub fn new(p: &Params) -> Ccp {
        Ccp { kp: p.float(&param::KP), ctl: Controller::new(p.float(&param::HEADROOM)) }
    }
}

/// cwnd = [Kp (B - x) - inflight] / 2.
fn law(kp: f64, est: &Estimator, inflight: u32) -> f64 {
    (kp * (est.path_storage() - est.backlog()) - inflight as f64) / 2.0
}

impl CongestionControl for Ccp {
    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.ctl.start(c);
    }

    fn ssthresh(&mut self, w: &Window, c: &Conn) -> u32 {
        let kp = self.kp;
        self.ctl.ssthresh(w, c, |est, inflight| law(kp, est, inflight))
    }

    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, c: &Conn, s: &AckSample) {
        self.ctl.est.on_ack(c, s);
    }

    fn set_state(&mut self, _w: &mut Window, _c: &Conn, new: CaState) {
        self.ctl.on_state(new);
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        let kp = self.kp;
        self.ctl.cong_avoid(w, c, acked, |est, inflight| law(kp, est, inflight));
    }

    fn state(&self, out: &mut StateOut) {
        self.ctl.state(out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use super::{Estimator, Window};
    use crate::time::NS_PER_MS;

    #[test]
    fn law_follows_storage_backlog_and_inflight() {
        // Slow start on a 100 ms path to a window of 80, then a loss hands over to the law.
        let mut h = Harness::new("ccp", 100);
        while h.w.cwnd < 80 {
            h.rounds(1);
        }
        h.rounds(1);
        // B: the storage of the last complete slow-start round (40 segments in 100 ms, plus a little RTT).
        let b = h.state("b_pkts");
        assert!((40.0..=45.0).contains(&b), "storage learned in slow start: {b}");
        h.loss();
        h.rounds(5);
        // No queue: x = 0, and the window settles where cwnd = (Kp B - cwnd) / 2, i.e. B / 3.
        let b = h.state("b_pkts");
        assert_eq!(h.state("backlog_pkts"), 0.0);
        assert!((h.w.cwnd as f64 - b / 3.0).abs() <= 2.0, "cwnd {} B {b}", h.w.cwnd);
        // A queue of 20 ms adds x = 0.02 s * rate segments and the window shrinks by Kp x / 3.
        let before = h.w.cwnd as f64;
        h.queue_delay = 20 * NS_PER_MS;
        h.rounds(3);
        let x = h.state("backlog_pkts");
        assert!(x > 2.0);
        assert!(h.w.cwnd as f64 <= before - x / 3.0 + 2.0, "cwnd {} before {before} x {x}", h.w.cwnd);
    }

    #[test]
    fn a_loss_never_raises_the_window() {
        // A rate estimate above what the window can carry (1000 segments/s
        // over 100 ms is a 100-segment pipe, the window is 40) and a law
        // output below 2: the loss keeps 40, it does not jump to the pipe.
        let mut est = Estimator::new(1.0);
        (est.rate, est.rtt_min, est.max_storage) = (1000.0, 100 * NS_PER_MS, 120.0);
        assert_eq!(est.pipe(), 100.0);
        let mut w = Window::new(10);
        w.cwnd = 40;
        assert_eq!(est.loss_window(&w, -5.0), 40);
        // After a slow-start overshoot (window far above the pipe) the pipe is the floor.
        w.cwnd = 400;
        assert_eq!(est.loss_window(&w, -5.0), 100);
    }

    #[test]
    fn higher_gain_keeps_a_larger_window() {
        let run = |kp: f64| {
            let params = [("kp".to_string(), kp)].into_iter().collect();
            let mut h = Harness::with_params("ccp", 100, &params);
            while h.w.cwnd < 60 {
                h.rounds(1);
            }
            h.rounds(1);
            h.loss();
            h.rounds(5);
            h.w.cwnd
        };
        assert!(run(2.0) > run(1.0) + 10);
    }
}
