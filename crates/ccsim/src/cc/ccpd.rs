//! CCPD, CCP with a derivative term (Cavendish et al., 2011), as the
//! high-speed measurement study states its control law:
//!     cwnd_k = Kp [B - x_k - inflight_k]
//!            + Kd / (t_k - t_{k-1}) * [x_{k-1} + inflight_{k-1} - x_k - inflight_k]
//! The proportional term drives the storage the flow occupies (backlog plus
//! flight) toward the path storage B; the derivative term opposes changes of
//! that occupancy. Loss triggers no cut of its own; a timeout still goes to
//! slow start as the sender does.
//!
//! Estimators (B, x_k, delivery rate), slow start and clamps are CCP's
//! (`ccp.rs`, which documents them). Update periods:
//! - the proportional term is evaluated on every ACK (as in CCP);
//! - the derivative term is computed once per round (one RTT): k-1 and k are
//!   the ends of consecutive rounds, t in microseconds, so Kd is in
//!   microseconds and Kd / (t_k - t_{k-1}) is a dimensionless gain (Kd = 8000
//!   on a 20 ms path: 0.4; on a 200 ms path: 0.04). It is held for the ACKs
//!   of the next round. (Per ACK, t_k - t_{k-1} would be the ACK spacing,
//!   about 12 us at 1 Gbit/s, and the studies' Kd values would give gains of
//!   hundreds.)
//!
//! With these estimators the steady state of a lone flow (pipe P segments) is
//! x* = (Kp B - (1 + Kp) P) / (1 + 2 Kp), and the backlog loop gain per RTT is
//! Kp / (1 + Kp) < 1, so the law is stable for every Kp. With a 2-BDP buffer
//! (B = 3P): Kp = 1 queues P/3, Kp = 2 0.6 P, Kp = 4 about 0.8 P.
//!
//! Parameters: kp (studies: 1, 2, 4; default 1) and kd (studies: 1000, 2000,
//! 4000, 8000 us; default 1000), headroom as in CCP.

use super::ccp::{self, Controller, Estimator};
use super::RecoveryPolicy;
use super::{
    AckSample, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, StateVar, Window,
};
use crate::time::{Nanos, NS_PER_US};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`: ccp's
/// gain and headroom, plus the derivative gain.
pub mod param {
    pub use crate::cc::ccp::param::{HEADROOM, KP};
    use crate::cc::FloatParam;
    pub const KD: FloatParam = FloatParam {
        name: "kd",
        default: 1000.0,
        min: 0.0,
        max: 1e7,
        doc: "derivative gain Kd, microseconds (divided by the round time in us)",
    };
}

/// The derivative term of the last output, in segments (traced besides ccp's state).
const D_TERM_PKTS: StateVar = StateVar::float("d_term_pkts", "segments");

pub const INFO: Info = Info {
    name: "ccpd",
    reference: "Cavendish et al. 2011 (control law as in the high-speed study); estimators designed here",
    summary: "delay-based PD controller: cwnd = Kp [B - x - inflight] + Kd/dt [change of x + inflight]; no loss cut",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Float(&param::KP), Param::Float(&param::KD), Param::Float(&param::HEADROOM)],
    state: &[
        ccp::state::B_PKTS,
        ccp::state::BACKLOG_PKTS,
        ccp::state::INFLIGHT_PKTS,
        ccp::state::OUTPUT_PKTS,
        D_TERM_PKTS,
    ],
    role: Role::General,
    linux: LinuxModule::SimulatorOnly { why: "a simulator-only controller" },
    ns3: None,
};

pub struct Ccpd {
    kp: f64,
    kd_us: f64,
    ctl: Controller,
    /// x + inflight and its time at the end of the previous round.
    prev_occupancy: Option<(f64, Nanos)>,
    d_term: f64,
}

impl Ccpd {
    pub fn new(p: &Params) -> Ccpd {
        Ccpd {
            kp: p.float(&param::KP),
            kd_us: p.float(&param::KD),
            ctl: Controller::new(p.float(&param::HEADROOM)),
            prev_occupancy: None,
            d_term: 0.0,
        }
    }
}

/// cwnd = Kp [B - x - inflight] + the derivative term (held for a round).
fn law(kp: f64, d_term: f64, est: &Estimator, inflight: u32) -> f64 {
    kp * (est.path_storage() - est.backlog() - inflight as f64) + d_term
}

impl CongestionControl for Ccpd {
    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.ctl.start(c);
    }

    fn ssthresh(&mut self, w: &Window, c: &Conn) -> u32 {
        let (kp, d_term) = (self.kp, self.d_term);
        self.ctl.ssthresh(w, c, |est, inflight| law(kp, d_term, est, inflight))
    }

    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, c: &Conn, s: &AckSample) {
        let est = &mut self.ctl.est;
        est.on_ack(c, s);
        if est.new_round {
            let occupancy = est.backlog() + c.in_flight as f64;
            if let Some((prev, at)) = self.prev_occupancy {
                let dt_us = (c.now - at) as f64 / NS_PER_US as f64;
                if dt_us > 0.0 {
                    self.d_term = self.kd_us / dt_us * (prev - occupancy);
                }
            }
            self.prev_occupancy = Some((occupancy, c.now));
        }
    }

    fn set_state(&mut self, _w: &mut Window, _c: &Conn, new: CaState) {
        self.ctl.on_state(new);
        if new == CaState::Loss {
            self.d_term = 0.0;
            self.prev_occupancy = None;
        }
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        let (kp, d_term) = (self.kp, self.d_term);
        self.ctl.cong_avoid(w, c, acked, |est, inflight| law(kp, d_term, est, inflight));
    }

    fn state(&self, out: &mut StateOut) {
        self.ctl.state(out);
        out.number(&D_TERM_PKTS, self.d_term);
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use crate::time::NS_PER_MS;

    #[test]
    fn proportional_part_splits_the_storage() {
        let params = [("kd".to_string(), 0.0)].into_iter().collect();
        let mut h = Harness::with_params("ccpd", 100, &params);
        while h.w.cwnd < 80 {
            h.rounds(1);
        }
        h.rounds(1);
        h.loss();
        h.rounds(5);
        // No queue, Kp = 1: cwnd = B - cwnd, i.e. B / 2.
        let b = h.state("b_pkts");
        assert!((h.w.cwnd as f64 - b / 2.0).abs() <= 2.0, "cwnd {} B {b}", h.w.cwnd);
        assert_eq!(h.state("d_term_pkts"), 0.0);
    }

    #[test]
    fn derivative_term_opposes_a_rising_backlog() {
        let params = [("kd".to_string(), 8000.0)].into_iter().collect();
        let mut h = Harness::with_params("ccpd", 20, &params);
        while h.w.cwnd < 80 {
            h.rounds(1);
        }
        h.rounds(1);
        h.loss();
        h.rounds(5);
        // The queue grows round after round: x + inflight rises, the D term goes negative.
        for q in 1..4 {
            h.queue_delay = q * 4 * NS_PER_MS;
            h.rounds(1);
        }
        assert!(h.state("d_term_pkts") < 0.0, "d term {}", h.state("d_term_pkts"));
    }
}
