//! CCP, a delay-based proportional window controller (Cavendish, Kumazoe,
//! Tsuru, Oie, Gerla, "Capacity and Congestion Probing: TCP Congestion
//! Avoidance via Path Capacity and Storage Estimation", INTERNET 2010,
//! doi:10.1109/INTERNET.2010.17), as the high-speed measurement study states
//! its control law:
//!     cwnd_k = [Kp (B - x_k) - inflight_k] / 2
//! with B the path storage (a "virtual buffer"), x_k the backlog the
//! connection keeps in the network and inflight_k the segments in flight.
//! Loss triggers no cut of its own (the law keeps setting the window); a
//! timeout still goes to slow start as the sender does.
//!
//! The paper's abstract says it estimates the path's capacity and storage
//! from the session, but its text (and that of the 2011 CCPD paper) was not
//! available to us, so the estimators of B and x_k are designed here from
//! first principles (`Estimator`, shared with `ccpd.rs`); all quantities are
//! in segments:
//! - delivery rate R: segments delivered over the last round (one RTT,
//!   delimited by `snd_nxt`), divided by its duration;
//! - x_k = (RTT_k - RTT_min) * R, with RTT_k the RTT sample of this ACK:
//!   the queue the flow sees, in segments (a lone flow: the bottleneck queue);
//! - B = headroom * C * RTT_max: the storage the path holds, the bottleneck
//!   rate times the RTT with a full queue, i.e. pipe plus buffer. A lone
//!   flow's first slow start fills the buffer (it runs until the first loss,
//!   as in any TCP), so both factors are seen then; the law takes over after.
//!   - C: the largest delivery rate over back-to-back intervals of half the
//!     minimum RTT (segments delivered, SACKed ones included, between two ACK
//!     arrivals). While the bottleneck is busy this is its rate exactly; a
//!     whole round would not do, as the slow start's overshoot keeps it busy
//!     for about one round only, and a round ends on the cumulative ACK, which
//!     loss recovery holds back.
//!   - RTT_max: the largest RTT that two consecutive samples agree on (the
//!     smaller of the two). A single late sample is not a full queue: a
//!     delayed ACK of a flight's odd last segment comes back up to 40 ms late
//!     (the receiver's timer), once per flight. Retransmitted segments give
//!     no sample (Karn).
//!   - What inflates B: ACK compression on the return path (C above the
//!     bottleneck's rate), delay jitter that holds for two samples, and a
//!     queue other flows keep (part of the storage, not of this flow's
//!     share). What deflates it: a buffer the flow never fills (an
//!     application-limited or receiver-window-limited start), a bottleneck
//!     shared from the start (C is then the flow's share), and a buffer far
//!     below the pipe: the unpaced slow start overflows it (each round's
//!     growth arrives as a burst) at a window well below the pipe, so no
//!     interval sees the bottleneck busy, and the law (cwnd = Kp B / 3) never
//!     fills it later. Measured on the high-speed study's 1 Gbit/s paths with
//!     a 256 KB port: B about 640 segments at 20 ms and 590 at 200 ms, where
//!     pipe plus buffer are about 1840 and 16840. A capacity estimate from
//!     the spacing of back-to-back segments (packet pairs, which the CCP paper
//!     cites as CapProbe) would not need a busy interval; not done here. Both
//!     maxima are over the whole connection, so B does not follow a path
//!     that changes.
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
        doc: "B = headroom * largest delivery rate * largest RTT observed",
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
    reference: "Cavendish, Kumazoe, Tsuru, Oie, Gerla 2010, Capacity and Congestion Probing (control law as in the high-speed study); estimators designed here",
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
    /// Largest delivery rate over an interval of half the minimum RTT: the
    /// bottleneck's rate once it was busy for such an interval. Segments per second.
    pub max_rate: f64,
    /// Largest RTT two consecutive samples agree on (the smaller of the two):
    /// the RTT with the fullest queue seen. 0 before two samples.
    pub max_rtt: Nanos,
    /// The sample before `rtt` (0 before the first), for `max_rtt`.
    prev_rtt: Nanos,
    round_end: u64,
    round_start_at: Nanos,
    round_start_delivered: u64,
    /// Start (an ACK's arrival) and delivered count of the interval of `max_rate`.
    interval_start_at: Nanos,
    interval_start_delivered: u64,
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
            max_rate: 0.0,
            max_rtt: 0,
            prev_rtt: 0,
            round_end: 0,
            round_start_at: 0,
            round_start_delivered: 0,
            interval_start_at: 0,
            interval_start_delivered: 0,
            new_round: false,
        }
    }

    pub fn start(&mut self, c: &Conn) {
        self.round_end = c.snd_nxt;
        self.round_start_at = c.now;
        self.round_start_delivered = c.delivered;
        self.interval_start_at = c.now;
        self.interval_start_delivered = c.delivered;
    }

    /// Every ACK (from pkts_acked).
    pub fn on_ack(&mut self, c: &Conn, s: &AckSample) {
        if let Some(rtt) = s.rtt_ns {
            let rtt = rtt.max(1);
            if self.prev_rtt > 0 {
                self.max_rtt = self.max_rtt.max(rtt.min(self.prev_rtt));
            }
            self.prev_rtt = rtt;
            self.rtt = rtt;
            self.rtt_min = self.rtt_min.min(rtt);
        }
        self.new_round = c.snd_una > self.round_end && c.now > self.round_start_at;
        if self.new_round {
            let dt = c.now - self.round_start_at;
            let delivered = c.delivered - self.round_start_delivered.min(c.delivered);
            self.rate = delivered as f64 * NS_PER_SEC as f64 / dt as f64;
            self.round_end = c.snd_nxt;
            self.round_start_at = c.now;
            self.round_start_delivered = c.delivered;
        }
        let dt = c.now.saturating_sub(self.interval_start_at);
        if self.rtt_min != Nanos::MAX && dt > 0 && dt >= self.rtt_min / 2 {
            let delivered = c.delivered - self.interval_start_delivered.min(c.delivered);
            self.max_rate = self.max_rate.max(delivered as f64 * NS_PER_SEC as f64 / dt as f64);
            self.interval_start_at = c.now;
            self.interval_start_delivered = c.delivered;
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
        if self.path_storage() <= 0.0 || !law.is_finite() {
            return w.cwnd.max(2);
        }
        (law.max(self.pipe()).round().max(2.0) as u32).min(w.cwnd.max(2)).min(w.cwnd_clamp)
    }

    /// B = headroom * largest interval rate * largest agreed RTT, segments.
    pub fn path_storage(&self) -> f64 {
        self.headroom * self.max_rate * self.max_rtt as f64 / NS_PER_SEC as f64
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
        // Slow start on a 100 ms path to a window of 80; its last round fills
        // a 20 ms queue (the overshoot), then a loss hands over to the law.
        let mut h = Harness::new("ccp", 100);
        while h.w.cwnd < 80 {
            h.rounds(1);
        }
        h.queue_delay = 20 * NS_PER_MS;
        h.rounds(1);
        // B: the largest delivery rate (the last round's 80 segments in 120
        // ms) times the largest RTT (120 ms, with the queue): 80 segments.
        let b = h.state("b_pkts");
        assert!((79.0..=81.0).contains(&b), "storage learned in slow start: {b}");
        h.queue_delay = 0;
        h.loss();
        h.rounds(5);
        // No queue: x = 0, and the window settles where cwnd = (Kp B - cwnd) / 2, i.e. B / 3.
        let b = h.state("b_pkts");
        assert_eq!(h.state("backlog_pkts"), 0.0);
        assert!((h.w.cwnd as f64 - b / 3.0).abs() <= 2.0, "cwnd {} B {b}", h.w.cwnd);
        // A queue of 20 ms adds x = 0.02 s * rate segments and the window
        // shrinks by Kp x / 3 (B already holds the 120 ms RTT: it stays).
        let before = h.w.cwnd as f64;
        h.queue_delay = 20 * NS_PER_MS;
        h.rounds(3);
        assert_eq!(h.state("b_pkts"), b);
        let x = h.state("backlog_pkts");
        assert!(x > 2.0);
        assert!(h.w.cwnd as f64 <= before - x / 3.0 + 2.0, "cwnd {} before {before} x {x}", h.w.cwnd);
    }

    #[test]
    fn one_late_rtt_sample_does_not_raise_the_storage() {
        // A delayed ACK of a flight's odd last segment comes back 40 ms late
        // once; the RTT two consecutive samples agree on ignores it, a queue
        // that holds for two samples counts.
        let mut h = Harness::new("ccp", 100);
        h.rounds(3);
        h.ack(NS_PER_MS); // ends the third round: B holds its rate from here
        let b = h.state("b_pkts");
        assert!(b > 0.0);
        h.queue_delay = 40 * NS_PER_MS;
        h.ack(NS_PER_MS);
        h.queue_delay = 0;
        h.ack(NS_PER_MS);
        assert_eq!(h.state("b_pkts"), b);
        h.queue_delay = 10 * NS_PER_MS;
        h.ack(NS_PER_MS);
        h.ack(NS_PER_MS);
        assert!((h.state("b_pkts") / b - 1.1).abs() < 1e-9, "B {} before {b}", h.state("b_pkts"));
    }

    #[test]
    fn a_loss_never_raises_the_window() {
        // A rate estimate above what the window can carry (1000 segments/s
        // over 100 ms is a 100-segment pipe, the window is 40) and a law
        // output below 2: the loss keeps 40, it does not jump to the pipe.
        let mut est = Estimator::new(1.0);
        (est.rate, est.rtt_min) = (1000.0, 100 * NS_PER_MS);
        (est.max_rate, est.max_rtt) = (1000.0, 120 * NS_PER_MS);
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
