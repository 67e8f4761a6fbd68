//! TCP Prague, the L4S scalable congestion control (RFC 9330 architecture,
//! RFC 9331 4 "Prague requirements", RFC 9332 for its DualPI2 partner),
//! following the L4S team's Linux net/ipv4/tcp_prague.c (L4STeam/linux,
//! module versions 0.6 and 0.7, window mode).
//!
//! It marks its packets ECT(1) (so a DualPI2 puts them in the L queue), needs
//! an accurate count of CE marks (AccECN in Linux; here the receiver's exact
//! per-segment echo, as for dctcp), paces, and owns its window
//! (`cong_control`), kept in 1/2^20 fractions (`frac_cwnd`):
//! ```text
//! alpha, once per round (all data sent at the last update ACKed):
//!     alpha = (1 - g) alpha + g F,  F = CE-marked / delivered segments, g = 1/16
//!   (kept upscaled by 1/g, so its remainder carries over; no update before
//!   the first CE mark, the proof that there is an AQM);
//! on entering CWR (an ECN echo; the sender enters CWR at most once per
//!   round trip): frac_cwnd -= frac_cwnd alpha / 2;
//! per ACK, the unmarked delivered segments grow frac_cwnd: slow start up
//!   to ssthresh, then ai / cwnd per segment (ai = 1 segment, so +1 per RTT);
//! cwnd steps by one segment per ACK toward ceil(frac_cwnd) (on the way
//!   down, ssthresh follows cwnd);
//! a loss halves frac_cwnd (Reno's response, RFC 9331 4.3) and freezes growth
//!   until the state is Open again.
//! ```
//!
//! RTT independence (RTT_CONTROL_RATE, the module's default; RFC 9331 4.3
//! "reduce RTT dependence"): after `rtt_transition` rounds out of slow start,
//! a flow with srtt below the target RTT (25 ms) grows by (srtt/target)^2
//! per RTT, as if its RTT were the target's, updates alpha and reduces at most
//! once per target RTT. Pacing: mss max(cwnd, in flight) / srtt, doubled in slow start
//! (cwnd < ssthresh / 2), and 1.2 times that otherwise (see below).
//!
//! Differs from the module: alpha starts at 1 (0.6, and 0.7's alpha_mode 1)
//! and frac_cwnd follows cwnd in slow start (0.7); no classic-ECN fallback
//! detection (off by default), no rate-based cwnd mode of 0.7, no MTU
//! adaptation, no TSO burst sizing (the simulator sends single segments).
//! In congestion avoidance it paces at 120% of cwnd / srtt (Linux's default
//! tcp_pacing_ca_ratio for other algorithms), not the module's 100%: at 100%,
//! with srtt above the RTT (delayed ACKs at low rates), the flight stays
//! below cwnd, the flow is never cwnd-limited and its growth, gated on
//! tcp_is_cwnd_limited, stops (measured: stuck at 12 segments, 5.7 of 50 Mbit/s).

use super::common::slow_start;
use super::RecoveryPolicy;
use super::{
    CaEvent, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, RateSample, Role, StateOut, Window,
};
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{BoolParam, FloatParam, IntParam};
    pub const SHIFT_G: IntParam = IntParam {
        name: "shift_g",
        default: 4,
        min: 0,
        max: 10,
        doc: "g = 1 / 2^shift_g, the weight of the latest round in alpha (PRAGUE_SHIFT_G)",
    };
    pub const RTT_INDEPENDENCE: BoolParam = BoolParam {
        name: "rtt_independence",
        default: true,
        doc: "scale growth and reductions to the target RTT (prague_rtt_scaling = RTT_CONTROL_RATE)",
    };
    pub const RTT_TARGET_MS: FloatParam = FloatParam {
        name: "rtt_target_ms",
        default: 25.0,
        min: 1.0,
        max: 1000.0,
        doc: "the RTT flows behave as if they had (prague_rtt_target)",
    };
    pub const RTT_TRANSITION: IntParam = IntParam {
        name: "rtt_transition",
        default: 500,
        min: 0,
        max: 1_000_000,
        doc: "rounds after slow start before RTT independence applies (prague_rtt_transition)",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const ALPHA: StateVar = StateVar::float("alpha", "");
    pub const MARKED_FRACTION: StateVar = StateVar::float("marked_fraction", "");
    pub const FRAC_CWND: StateVar = StateVar::float("frac_cwnd", "segments");
    pub const RTT_INDEPENDENT: StateVar = StateVar::integer("rtt_independent", "");
}

pub const INFO: Info = Info {
    name: "prague",
    reference: "RFC 9330/9331/9332; L4S team's Linux tcp_prague.c (0.6/0.7)",
    summary: "L4S scalable ECN: sends ECT(1), cwnd -= cwnd alpha/2 once per RTT on CE, alpha EWMA g = 1/16; paced, \
              RTT-independent growth (target 25 ms)",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Int(&param::SHIFT_G),
        Param::Bool(&param::RTT_INDEPENDENCE),
        Param::Float(&param::RTT_TARGET_MS),
        Param::Int(&param::RTT_TRANSITION),
    ],
    state: &[state::ALPHA, state::MARKED_FRACTION, state::FRAC_CWND, state::RTT_INDEPENDENT],
    // Meant for the Internet (RFC 9331's Prague requirements); its low delay needs an L4S AQM
    // (dualpi2) on the bottleneck, elsewhere it competes as a loss-based control.
    role: Role::General,
    linux: LinuxModule::OutOfTree {
        name: "prague",
        note: "TCP Prague (the L4S team's kernel tree, github.com/L4STeam/linux; not in mainline Linux)",
    },
    ns3: None,
};

const ALPHA_BITS: u32 = 20;
const MAX_ALPHA: u64 = 1 << ALPHA_BITS;
const CWND_UNIT: u32 = 20;
const ONE_CWND: u64 = 1 << CWND_UNIT;
/// Pacing in congestion avoidance, relative to cwnd / srtt: Linux's
/// tcp_pacing_ca_ratio (120%), not the module's 100% (see the header).
const CA_PACING_RATIO: f64 = 1.2;
/// RTT scaling stops above this srtt (MAX_SCALED_RTT).
const MAX_SCALED_RTT_NS: Nanos = 100 * NS_PER_MS;

pub struct Prague {
    shift_g: u32,
    rtt_independence: bool,
    target_rtt_ns: Nanos,
    rtt_transition: u32,
    mss: u32,
    /// alpha / g, in 1/2^20.
    upscaled_alpha: u64,
    /// The window in 1/2^20 segments.
    frac_cwnd: u64,
    loss_frac_cwnd: u64,
    loss_cwnd: u32,
    /// Growth per unmarked segment times cwnd, in 1/2^20 segments (1 segment: +1 per RTT).
    ai_ack_increase: u64,
    next_seq: u64,
    old_delivered: u64,
    old_delivered_ce: u64,
    /// delivered_ce at the last ACK, for the marks of each ACK (Linux rs->ece_delta).
    seen_delivered_ce: u64,
    /// Rounds since the last slow start.
    round: u32,
    saw_ce: bool,
    in_loss: bool,
    cwr_stamp: Option<Nanos>,
    alpha_stamp: Nanos,
    pacing_rate: f64,
    last_fraction: f64,
}

impl Prague {
    pub fn new(p: &Params) -> Prague {
        let shift_g = p.int(&param::SHIFT_G) as u32;
        Prague {
            shift_g,
            rtt_independence: p.flag(&param::RTT_INDEPENDENCE),
            target_rtt_ns: (p.float(&param::RTT_TARGET_MS) * NS_PER_MS as f64) as Nanos,
            rtt_transition: p.int(&param::RTT_TRANSITION) as u32,
            mss: p.mss(),
            upscaled_alpha: MAX_ALPHA << shift_g,
            frac_cwnd: 10 * ONE_CWND,
            loss_frac_cwnd: 0,
            loss_cwnd: 0,
            ai_ack_increase: ONE_CWND,
            next_seq: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            seen_delivered_ce: 0,
            round: 0,
            saw_ce: false,
            in_loss: false,
            cwr_stamp: None,
            alpha_stamp: 0,
            // Unpaced until the first RTT sample (Linux divides by an srtt it does not yet have).
            pacing_rate: f64::INFINITY,
            last_fraction: f64::NAN,
        }
    }

    /// alpha, from 0 to 1.
    pub fn alpha(&self) -> f64 {
        (self.upscaled_alpha >> self.shift_g) as f64 / MAX_ALPHA as f64
    }

    /// The window in segments, with its fraction.
    pub fn frac_cwnd(&self) -> f64 {
        self.frac_cwnd as f64 / ONE_CWND as f64
    }

    /// Linux prague_is_rtt_indep.
    fn is_rtt_indep(&self, w: &Window) -> bool {
        self.rtt_independence && !w.in_slow_start() && self.round >= self.rtt_transition
    }

    /// Linux prague_ai_ack_increase with prague_rate_scaled_ai_ack_increase.
    fn update_ai_ack_increase(&mut self, c: &Conn) {
        let rtt = c.srtt_ns;
        self.ai_ack_increase = if !self.rtt_independence
            || self.round < self.rtt_transition
            || rtt == 0
            || rtt > MAX_SCALED_RTT_NS
            || rtt >= self.target_rtt_ns
        {
            ONE_CWND
        } else {
            let (rtt, target) = (rtt as u128, self.target_rtt_ns as u128);
            (((rtt * rtt) << CWND_UNIT) + target * target / 2).div_euclid(target * target) as u64
        };
    }

    /// Linux prague_new_round.
    fn new_round(&mut self, w: &Window, c: &Conn) {
        self.next_seq = c.snd_nxt;
        self.old_delivered = c.delivered;
        self.old_delivered_ce = c.delivered_ce;
        if !w.in_slow_start() {
            self.round = self.round.saturating_add(1);
        }
        self.update_ai_ack_increase(c);
    }

    /// Linux prague_update_alpha, once the round is ACKed.
    fn update_alpha(&mut self, w: &Window, c: &Conn) {
        if self.saw_ce {
            let marked = c.delivered_ce - self.old_delivered_ce;
            let delivered = (c.delivered - self.old_delivered).max(1);
            let f = (marked << ALPHA_BITS) / delivered;
            let alpha = self.upscaled_alpha - (self.upscaled_alpha >> self.shift_g) + f;
            self.upscaled_alpha = alpha.min(MAX_ALPHA << self.shift_g);
            self.alpha_stamp = c.now;
            self.last_fraction = marked as f64 / delivered as f64;
        }
        self.new_round(w, c);
    }

    /// Linux prague_should_update_ewma: a round ACKed and, when RTT
    /// independent, a target RTT since the last update.
    fn should_update_ewma(&self, w: &Window, c: &Conn) -> bool {
        c.snd_una >= self.next_seq
            && (!self.is_rtt_indep(w) || c.now.saturating_sub(self.alpha_stamp) >= self.target_rtt_ns)
    }

    /// Linux prague_update_cwnd.
    fn update_cwnd(&mut self, w: &mut Window, c: &Conn, rs: &RateSample) {
        let marked = c.delivered_ce - self.seen_delivered_ce;
        self.seen_delivered_ce = c.delivered_ce;
        let mut acked = rs.acked_sacked as i64;
        if marked > 0 {
            self.saw_ce = true;
            acked -= marked as i64;
        }
        if acked > 0 && !self.in_loss && c.is_cwnd_limited {
            let mut acked = acked as u32;
            let mut grow = true;
            if w.in_slow_start() {
                acked = slow_start(w, acked);
                self.frac_cwnd = (w.cwnd as u64) << CWND_UNIT;
                grow = acked > 0;
            }
            if grow {
                let increase = ((acked as u64 * self.ai_ack_increase) << CWND_UNIT) + self.frac_cwnd / 2;
                let increase = increase / self.frac_cwnd.max(1);
                self.frac_cwnd += increase.max(acked as u64);
            }
        }
        let target = ((self.frac_cwnd + ONE_CWND - 1) >> CWND_UNIT).max(1) as u32;
        if w.cwnd > target {
            w.cwnd -= 1;
            w.ssthresh = w.cwnd;
        } else if w.cwnd < target && w.cwnd < w.cwnd_clamp {
            w.cwnd += 1;
        }
    }

    /// Linux prague_enter_cwr: the scalable reduction, frac_cwnd alpha / 2.
    fn enter_cwr(&mut self, w: &Window, c: &Conn) {
        if self.is_rtt_indep(w) && self.cwr_stamp.is_some_and(|t| c.now.saturating_sub(t) < self.target_rtt_ns) {
            return;
        }
        self.cwr_stamp = Some(c.now);
        let alpha = (self.upscaled_alpha >> self.shift_g) as u128;
        let reduction = (alpha * self.frac_cwnd as u128 + MAX_ALPHA as u128) >> (ALPHA_BITS + 1);
        self.frac_cwnd -= reduction as u64;
    }

    /// Linux prague_enter_loss: half the window, no growth until Open.
    fn enter_loss(&mut self, w: &Window) {
        self.loss_cwnd = w.cwnd;
        self.loss_frac_cwnd = self.frac_cwnd;
        self.frac_cwnd -= self.frac_cwnd >> 1;
        self.in_loss = true;
    }

    /// Linux prague_update_pacing_rate, in payload bytes per second.
    fn update_pacing_rate(&mut self, w: &Window, c: &Conn) {
        if c.srtt_ns == 0 {
            return;
        }
        let inflight = (self.frac_cwnd >> CWND_UNIT).max(c.in_flight as u64) as f64;
        let mut rate = inflight * self.mss as f64 * NS_PER_SEC as f64 / c.srtt_ns as f64;
        rate *= if w.cwnd < w.ssthresh / 2 { 2.0 } else { CA_PACING_RATIO };
        self.pacing_rate = rate;
    }
}

impl CongestionControl for Prague {
    const OWNS_WINDOW: bool = true;
    const PACES: bool = true;
    const SENDS_ECT1: bool = true;

    fn init(&mut self, w: &mut Window, c: &Conn) {
        self.frac_cwnd = (w.cwnd as u64) << CWND_UNIT;
        self.saw_ce = c.delivered_ce > 0;
        self.seen_delivered_ce = c.delivered_ce;
        self.alpha_stamp = c.now;
        self.new_round(w, c);
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        w.ssthresh
    }

    fn set_state(&mut self, w: &mut Window, c: &Conn, new: CaState) {
        if c.ca_state == Some(new) {
            return;
        }
        match new {
            CaState::Recovery => self.enter_loss(w),
            CaState::Cwr => self.enter_cwr(w, c),
            CaState::Open => self.in_loss = false,
            _ => {}
        }
    }

    fn cwnd_event(&mut self, w: &mut Window, _c: &Conn, event: CaEvent) {
        if event == CaEvent::Loss {
            self.enter_loss(w);
        }
    }

    fn undo_cwnd(&mut self, w: &Window, _prior_cwnd: u32) -> u32 {
        self.frac_cwnd = self.frac_cwnd.max(self.loss_frac_cwnd);
        self.in_loss = false;
        w.cwnd.max(self.loss_cwnd)
    }

    #[inline]
    fn cong_control(&mut self, w: &mut Window, c: &Conn, rs: &RateSample) {
        self.update_cwnd(w, c, rs);
        if self.should_update_ewma(w, c) {
            self.update_alpha(w, c);
        }
        self.update_pacing_rate(w, c);
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate)
    }

    fn needs_ecn(&self) -> bool {
        true
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::ALPHA, self.alpha());
        out.number(&state::MARKED_FRACTION, self.last_fraction);
        out.number(&state::FRAC_CWND, self.frac_cwnd());
        out.number(&state::RTT_INDEPENDENT, (self.round >= self.rtt_transition && self.rtt_independence) as u8 as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A Prague flow driven round by round: `window` segments per round,
    /// `marked` of them CE, one ACK per segment, all at the end of the round.
    struct Driver {
        p: Prague,
        w: Window,
        c: Conn,
    }

    impl Driver {
        fn new(values: &[(&str, f64)]) -> Driver {
            let values: BTreeMap<String, f64> = values.iter().map(|(k, v)| (k.to_string(), *v)).collect();
            let p = Prague::new(&Params::new(&INFO, &values, 1448));
            let c = Conn {
                now: NS_PER_MS,
                mss: 1448,
                srtt_ns: 20 * NS_PER_MS,
                is_cwnd_limited: true,
                ca_state: Some(CaState::Open),
                snd_nxt: 10,
                ..Conn::default()
            };
            let mut d = Driver { p, w: Window::new(10), c };
            d.w.ssthresh = 10;
            d.p.init(&mut d.w, &d.c);
            d
        }

        /// One round trip: what is in flight is ACKed, one ACK per segment,
        /// `marked` of them CE (the last ones), and the sender refills its
        /// window after each ACK; a mark puts the sender in CWR for the round.
        fn round(&mut self, marked: u32) {
            let n = (self.c.snd_nxt - self.c.snd_una) as u32;
            self.c.now += 20 * NS_PER_MS;
            for i in 0..n {
                self.c.snd_una += 1;
                self.c.delivered += 1;
                let ce = i + marked >= n;
                if ce {
                    self.c.delivered_ce += 1;
                    if self.c.ca_state == Some(CaState::Open) {
                        self.p.set_state(&mut self.w, &self.c, CaState::Cwr);
                        self.c.ca_state = Some(CaState::Cwr);
                    }
                }
                let rs = RateSample { acked_sacked: 1, ..RateSample::default() };
                self.p.cong_control(&mut self.w, &self.c, &rs);
                self.c.snd_nxt = self.c.snd_nxt.max(self.c.snd_una + self.w.cwnd as u64);
            }
            // The CWR ends when the round is ACKed.
            if self.c.ca_state == Some(CaState::Cwr) {
                self.p.set_state(&mut self.w, &self.c, CaState::Open);
                self.c.ca_state = Some(CaState::Open);
            }
        }
    }

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_with_gain_one_sixteenth() {
        let mut d = Driver::new(&[]);
        d.round(1); // the first mark: an AQM is on the path
        assert!(d.p.saw_ce);
        for f in [0.0, 0.25, 1.0, 0.1, 0.0] {
            let a = d.p.alpha();
            // A round of 100 delivered segments, 100 f of them marked.
            d.c.delivered += 100;
            d.c.delivered_ce += (100.0 * f) as u64;
            d.c.snd_una = d.p.next_seq;
            d.p.update_alpha(&d.w, &d.c);
            let expected = a * 15.0 / 16.0 + f / 16.0;
            assert!((d.p.alpha() - expected).abs() < 1e-5, "{} vs {expected}", d.p.alpha());
        }
    }

    #[test]
    fn one_reduction_per_round_proportional_to_alpha() {
        let mut d = Driver::new(&[("rtt_independence", 0.0)]);
        for _ in 0..30 {
            d.round(0);
        }
        d.round(1); // the first mark sets saw_ce and reduces by alpha/2 = 1/2
        for _ in 0..60 {
            d.round(0);
        }
        let before = d.p.frac_cwnd();
        let alpha = d.p.alpha();
        // Several marks in one round: one reduction of alpha / 2.
        d.round(5);
        let after = d.p.frac_cwnd();
        let grown = after / (before * (1.0 - alpha / 2.0));
        assert!((0.99..1.04).contains(&grown), "before {before}, after {after}, alpha {alpha}");
    }

    #[test]
    fn rtt_independence_scales_growth_by_the_square_of_the_rtt_ratio() {
        // srtt 20 ms against the 25 ms target: (20/25)^2 = 0.64 segments per RTT.
        let mut d = Driver::new(&[("rtt_transition", 0.0)]);
        d.round(0);
        let before = d.p.frac_cwnd();
        d.round(0);
        let growth = d.p.frac_cwnd() - before;
        assert!((growth - 0.64).abs() < 0.02, "{growth}");
    }
}
