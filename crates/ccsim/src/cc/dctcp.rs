//! DCTCP, Data Center TCP (Alizadeh et al., SIGCOMM 2010; RFC 8257),
//! following Linux net/ipv4/tcp_dctcp.c.
//!
//! Switches mark CE on packets that find at least K packets queued; the
//! receiver echoes each mark exactly (RFC 8257 3.2, tcp/receiver.rs
//! `EcnEcho::Dctcp`). Once per window of data the sender updates
//!     alpha = (1 - g) alpha + g F,   F = marked / delivered segments of the window,
//! with g = 1/16, and on an ECN echo (at most once per window, CWR state) it
//! reduces in proportion to the extent of congestion:
//!     ssthresh = cwnd (1 - alpha / 2).
//! Growth and the response to losses are Reno's. alpha starts at 1 (Linux
//! dctcp_alpha_on_init), so the first marks halve like standard ECN.
//! alpha is kept in Linux's 1/1024 fixed point.

use super::common::{reno_cong_avoid, reno_ssthresh};
use super::RecoveryPolicy;
use super::{
    AckSample, CaEvent, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window,
};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{FloatParam, IntParam};
    pub const SHIFT_G: IntParam = IntParam {
        name: "shift_g",
        default: 4,
        min: 0,
        max: 10,
        doc: "g = 1 / 2^shift_g, the weight of the latest window in alpha",
    };
    pub const ALPHA_ON_INIT: FloatParam =
        FloatParam { name: "alpha_on_init", default: 1.0, min: 0.0, max: 1.0, doc: "initial alpha" };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const ALPHA: StateVar = StateVar::float("alpha", "");
    pub const MARKED_FRACTION: StateVar = StateVar::float("marked_fraction", "");
}

pub const INFO: Info = Info {
    name: "dctcp",
    reference: "Alizadeh et al., SIGCOMM 2010; RFC 8257; Linux tcp_dctcp.c",
    summary:
        "ECN-proportional decrease: cwnd *= 1 - alpha/2 where alpha tracks the fraction of marked segments (g = 1/16)",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Int(&param::SHIFT_G), Param::Float(&param::ALPHA_ON_INIT)],
    state: &[state::ALPHA, state::MARKED_FRACTION],
    role: Role::Datacenter,
    linux: LinuxModule::Mainline("dctcp"),
    ns3: Some("ns3::TcpDctcp"),
};

const MAX_ALPHA: u32 = 1024;

pub struct Dctcp {
    shift_g: u32,
    /// alpha * 1024.
    alpha: u32,
    next_seq: u64,
    old_delivered: u64,
    old_delivered_ce: u64,
    last_fraction: f64,
    loss_cwnd: u32,
}

impl Dctcp {
    pub fn new(p: &Params) -> Dctcp {
        Dctcp {
            shift_g: p.int(&param::SHIFT_G) as u32,
            alpha: ((p.float(&param::ALPHA_ON_INIT) * MAX_ALPHA as f64).round() as u32).min(MAX_ALPHA),
            next_seq: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            last_fraction: f64::NAN,
            loss_cwnd: 0,
        }
    }

    fn reset(&mut self, c: &Conn) {
        self.next_seq = c.snd_nxt;
        self.old_delivered = c.delivered;
        self.old_delivered_ce = c.delivered_ce;
    }

    /// Linux dctcp_update_alpha: once the window that started at next_seq is ACKed.
    fn update_alpha(&mut self, c: &Conn) {
        if c.snd_una < self.next_seq {
            return;
        }
        let delivered_ce = c.delivered_ce - self.old_delivered_ce;
        let delivered = (c.delivered - self.old_delivered).max(1);
        let mut alpha = self.alpha;
        // alpha = (1 - g) alpha + g F
        // (Linux min_not_zero: once alpha >> g is 0, alpha drops to 0.)
        let decay = alpha >> self.shift_g;
        alpha -= if decay == 0 { alpha } else { decay };
        if delivered_ce > 0 {
            let f = (delivered_ce << (10 - self.shift_g)) / delivered;
            alpha = (alpha + f as u32).min(MAX_ALPHA);
        }
        self.alpha = alpha;
        self.last_fraction = delivered_ce as f64 / delivered as f64;
        self.reset(c);
    }

    /// Linux dctcp_react_to_loss: a loss is answered like Reno, half the window.
    fn react_to_loss(&mut self, w: &mut Window) {
        self.loss_cwnd = w.cwnd;
        w.ssthresh = reno_ssthresh(w);
    }
}

impl CongestionControl for Dctcp {
    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.reset(c);
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        self.loss_cwnd = w.cwnd;
        (w.cwnd - ((w.cwnd as u64 * self.alpha as u64) >> 11) as u32).max(2)
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        reno_cong_avoid(w, c, acked)
    }

    fn set_state(&mut self, w: &mut Window, c: &Conn, new: CaState) {
        // A loss (not an ECN echo) is answered like Reno: half the window.
        if new == CaState::Recovery && c.ca_state != Some(CaState::Recovery) {
            self.react_to_loss(w);
        }
    }

    fn cwnd_event(&mut self, w: &mut Window, _c: &Conn, event: CaEvent) {
        if event == CaEvent::Loss {
            self.react_to_loss(w);
        }
    }

    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, c: &Conn, _s: &AckSample) {
        self.update_alpha(c);
    }

    fn undo_cwnd(&mut self, w: &Window, _prior_cwnd: u32) -> u32 {
        w.cwnd.max(self.loss_cwnd)
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::ALPHA, self.alpha as f64 / MAX_ALPHA as f64);
        out.number(&state::MARKED_FRACTION, self.last_fraction);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;

    /// One window of `n` segments ACKed, `marked` of them with ECE.
    fn window(d: &mut Dctcp, c: &mut Conn, n: u64, marked: u64) {
        c.snd_una = c.snd_nxt;
        c.snd_nxt += n;
        c.delivered += n;
        c.delivered_ce += marked;
        let mut w = Window::new(10);
        d.pkts_acked(&mut w, c, &AckSample::default());
    }

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_with_g_one_sixteenth() {
        let mut d = Dctcp::new(&crate::cc::Params::new(&INFO, &Default::default(), 1448));
        let mut c = Conn { snd_nxt: 100, ..Default::default() };
        let mut w = Window::new(10);
        d.init(&mut w, &c);
        assert_eq!(d.alpha, 1024);
        // No marks: alpha decays by 1/16 per window.
        window(&mut d, &mut c, 100, 0);
        assert_eq!(d.alpha, 1024 - 64);
        for _ in 0..200 {
            window(&mut d, &mut c, 100, 0);
        }
        assert_eq!(d.alpha, 0);
        // A steady 25% marked: alpha converges to 0.25.
        for _ in 0..200 {
            window(&mut d, &mut c, 100, 25);
        }
        let alpha = d.alpha as f64 / 1024.0;
        assert!((alpha - 0.25).abs() < 0.02, "alpha {alpha}");
        assert_eq!(d.last_fraction, 0.25);
    }

    #[test]
    fn ecn_reduction_is_proportional_to_alpha_and_loss_halves() {
        let mut h = Harness::new("dctcp", 1);
        h.set_cwnd(100, 100);
        // alpha = 1 at first: an ECN reduction halves.
        let c = h.conn();
        assert_eq!(h.alg.ssthresh(&h.w, &c), 50);
        let Algorithm::Dctcp(d) = &mut h.alg else { unreachable!() };
        d.alpha = 256; // 0.25
        let c = h.conn();
        assert_eq!(h.alg.ssthresh(&h.w, &c), 88); // 100 (1 - 0.125)
                                                  // A loss: Reno's half whatever alpha is.
        h.loss();
        assert_eq!(h.w.cwnd, 50);
        assert!(h.alg.needs_ecn());
    }

    #[test]
    fn a_timeout_halves_and_back_to_back_timeouts_leave_ecn_proportional() {
        let mut h = Harness::new("dctcp", 1);
        h.set_cwnd(100, 100);
        let Algorithm::Dctcp(d) = &mut h.alg else { unreachable!() };
        d.alpha = 256; // 0.25
        h.timeout();
        assert_eq!(h.w.ssthresh, 50, "a timeout is a loss: Reno's half whatever alpha is");
        h.timeout();
        assert_eq!(h.w.ssthresh, 50);
        h.set_cwnd(100, 100);
        // The next ECN reduction is proportional to alpha again.
        let c = h.conn();
        assert_eq!(h.alg.ssthresh(&h.w, &c), 88);
    }
    use crate::cc::Algorithm;
}
