//! H-TCP (Leith and Shorten, "H-TCP: TCP for high-speed and long-distance
//! networks", PFLDnet 2004), following Linux net/ipv4/tcp_htcp.c.
//!
//! The increase depends on the time D since the last congestion event:
//!     alpha(D) = 1                                  for D <= 1 s,
//!     alpha(D) = 1 + 10 (D - 1) + ((D - 1) / 2)^2   beyond,
//! scaled by 2 (1 - beta) so the flow stays fair to Reno at small D, and
//! (RTT scaling) by minRTT / 100 ms, clamped to [0.5, 10], so flows with
//! different RTTs grow alike in time. The decrease is adaptive:
//!     beta = minRTT / maxRTT, clamped to [0.5, 0.8],
//! falling back to 0.5 when the throughput measured over the last epochs
//! changed by more than 20% (the "bandwidth switch").
//!
//! Time is counted in Linux's 1 ms jiffies and alpha/beta in its 1/128 fixed
//! point, so the integer steps of the factor match the kernel's.

use super::common::slow_start;
use super::RecoveryPolicy;
use super::{AckSample, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window};
use crate::time::{Nanos, NS_PER_MS, NS_PER_US};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::BoolParam;
    pub const RTT_SCALING: BoolParam =
        BoolParam { name: "rtt_scaling", default: true, doc: "1: scale alpha by minRTT / 100 ms" };
    pub const BANDWIDTH_SWITCH: BoolParam = BoolParam {
        name: "bandwidth_switch",
        default: true,
        doc: "1: beta = 0.5 when the throughput changed by > 20%",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const ALPHA: StateVar = StateVar::float("alpha", "");
    pub const BETA: StateVar = StateVar::float("beta", "");
    pub const SINCE_CONGESTION_S: StateVar = StateVar::float("since_congestion_s", "s");
    pub const MIN_RTT_MS: StateVar = StateVar::integer("min_rtt_ms", "ms");
    pub const MAX_RTT_MS: StateVar = StateVar::integer("max_rtt_ms", "ms");
}

pub const INFO: Info = Info {
    name: "htcp",
    reference: "Leith & Shorten, PFLDnet 2004; Linux tcp_htcp.c",
    summary: "increase grows with the time since the last loss (1 + 10(D-1) + ((D-1)/2)^2), adaptive beta = minRTT/maxRTT in [0.5, 0.8]",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Bool(&param::RTT_SCALING),
        Param::Bool(&param::BANDWIDTH_SWITCH),
    ],
    state: &[state::ALPHA, state::BETA, state::SINCE_CONGESTION_S, state::MIN_RTT_MS, state::MAX_RTT_MS],
    role: Role::General,
    linux: LinuxModule::Mainline("htcp"),
    ns3: Some("ns3::TcpHtcp"),
};

/// 1.0, 0.5 and 0.8 in 1/128 (Linux ALPHA_BASE, BETA_MIN, BETA_MAX).
const ALPHA_BASE: u32 = 1 << 7;
const BETA_MIN: u32 = 1 << 6;
const BETA_MAX: u32 = 102;
/// Jiffies per second (Linux HZ = 1000).
const HZ: u64 = 1000;

fn jiffies(t: Nanos) -> u64 {
    t / NS_PER_MS
}

/// An RTT sample in jiffies as Linux measure_achieved_throughput takes it:
/// whole microseconds (ack_sample.rtt_us), then usecs_to_jiffies, which
/// rounds up; a sample under 1 us is not taken (`rtt_us > 0`).
fn rtt_jiffies(rtt: Nanos) -> Option<u64> {
    let us = rtt / NS_PER_US;
    (us > 0).then(|| us.div_ceil(1_000_000 / HZ))
}

pub struct Htcp {
    use_rtt_scaling: bool,
    use_bandwidth_switch: bool,
    alpha: u32,
    beta: u32,
    modeswitch: bool,
    pkts_acked: u32,
    packetcount: u32,
    // RTTs in jiffies; 0: none yet.
    min_rtt: u64,
    max_rtt: u64,
    last_cong: u64,
    undo_last_cong: Option<u64>,
    undo_max_rtt: u64,
    undo_old_max_b: u32,
    // Throughput (segments per second) for the bandwidth switch.
    min_b: u32,
    max_b: u32,
    old_max_b: u32,
    bi: u32,
    lasttime: u64,
    now: u64,
}

impl Htcp {
    pub fn new(p: &Params) -> Htcp {
        Htcp {
            use_rtt_scaling: p.flag(&param::RTT_SCALING),
            use_bandwidth_switch: p.flag(&param::BANDWIDTH_SWITCH),
            alpha: ALPHA_BASE,
            beta: BETA_MIN,
            modeswitch: false,
            pkts_acked: 1,
            packetcount: 0,
            min_rtt: 0,
            max_rtt: 0,
            last_cong: 0,
            undo_last_cong: None,
            undo_max_rtt: 0,
            undo_old_max_b: 0,
            min_b: 0,
            max_b: 0,
            old_max_b: 0,
            bi: 0,
            lasttime: 0,
            now: 0,
        }
    }

    fn cong_time(&self) -> u64 {
        self.now.saturating_sub(self.last_cong)
    }

    /// Congestion-free round trips so far.
    fn ccount(&self) -> u64 {
        self.cong_time() / self.min_rtt.max(1)
    }

    fn reset(&mut self) {
        self.undo_last_cong = Some(self.last_cong);
        self.undo_max_rtt = self.max_rtt;
        self.undo_old_max_b = self.old_max_b;
        self.last_cong = self.now;
    }

    fn measure_rtt(&mut self, rtt: u64, state: CaState) {
        if self.min_rtt > rtt || self.min_rtt == 0 {
            self.min_rtt = rtt;
        }
        if state == CaState::Open {
            self.max_rtt = self.max_rtt.max(self.min_rtt);
            // Accept a new maximum only a little above the old one (no spikes).
            if self.max_rtt < rtt && rtt <= self.max_rtt + 20 {
                self.max_rtt = rtt;
            }
        }
    }

    fn beta_update(&mut self) {
        if self.use_bandwidth_switch {
            let (max_b, old) = (self.max_b as u64, self.old_max_b as u64);
            self.old_max_b = self.max_b;
            if !(4 * old <= 5 * max_b && 5 * max_b <= 6 * old) {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.min_rtt > 10 && self.max_rtt > 0 {
            self.beta = ((self.min_rtt << 7) / self.max_rtt).clamp(BETA_MIN as u64, BETA_MAX as u64) as u32;
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
    }

    fn alpha_update(&mut self) {
        let mut factor: u64 = 1;
        let mut diff = self.cong_time();
        if diff > HZ {
            diff -= HZ;
            factor = 1 + (10 * diff + ((diff / 2) * (diff / 2) / HZ)) / HZ;
        }
        if self.use_rtt_scaling && self.min_rtt > 0 {
            let scale = ((HZ << 3) / (10 * self.min_rtt)).clamp(1 << 2, 10 << 3);
            factor = ((factor << 3) / scale).max(1);
        }
        self.alpha = (2 * factor * ((1 << 7) - self.beta as u64)) as u32;
        if self.alpha == 0 {
            self.alpha = ALPHA_BASE;
        }
    }
}

impl CongestionControl for Htcp {
    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.now = jiffies(c.now);
        self.last_cong = self.now;
    }

    fn ssthresh(&mut self, w: &Window, c: &Conn) -> u32 {
        self.now = jiffies(c.now);
        self.beta_update();
        self.alpha_update();
        // Slowly forget maxRTT, in case the route changed.
        if self.min_rtt > 0 && self.max_rtt > self.min_rtt {
            self.max_rtt = self.min_rtt + (self.max_rtt - self.min_rtt) * 95 / 100;
        }
        (((w.cwnd as u64 * self.beta as u64) >> 7) as u32).max(2)
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        self.now = jiffies(c.now);
        if !c.is_cwnd_limited {
            return;
        }
        if w.in_slow_start() {
            slow_start(w, acked);
            return;
        }
        // cwnd += alpha / cwnd per ACKed segment.
        if ((w.cwnd_cnt as u64 * self.alpha as u64) >> 7) >= w.cwnd as u64 {
            if w.cwnd < w.cwnd_clamp {
                w.cwnd += 1;
            }
            w.cwnd_cnt = 0;
            self.alpha_update();
        } else {
            w.cwnd_cnt += self.pkts_acked;
        }
        self.pkts_acked = 1;
    }

    fn set_state(&mut self, _w: &mut Window, c: &Conn, new: CaState) {
        self.now = jiffies(c.now);
        match new {
            CaState::Open => {
                if self.undo_last_cong.take().is_some() {
                    self.last_cong = self.now;
                }
            }
            CaState::Cwr | CaState::Recovery | CaState::Loss => self.reset(),
            CaState::Disorder => {}
        }
    }

    #[inline]
    fn pkts_acked(&mut self, w: &mut Window, c: &Conn, s: &AckSample) {
        self.now = jiffies(c.now);
        let state = c.ca_state.unwrap_or(CaState::Open);
        if state == CaState::Open {
            self.pkts_acked = s.acked;
        }
        if let Some(rtt) = s.rtt_ns.and_then(rtt_jiffies) {
            self.measure_rtt(rtt, state);
        }
        if !self.use_bandwidth_switch {
            return;
        }
        if !matches!(state, CaState::Open | CaState::Disorder) {
            self.packetcount = 0;
            self.lasttime = self.now;
            return;
        }
        self.packetcount += s.acked;
        let alpha_segs = (self.alpha >> 7).max(1);
        let elapsed = self.now - self.lasttime.min(self.now);
        // Linux's u32 `snd_cwnd - alpha_segs` wraps when the window is below
        // alpha's segments (slow start after a timeout): no sample then.
        let enough = w.cwnd.checked_sub(alpha_segs).is_some_and(|t| self.packetcount >= t);
        if enough && elapsed >= self.min_rtt && self.min_rtt > 0 {
            let cur = (self.packetcount as u64 * HZ / elapsed.max(1)) as u32;
            if self.ccount() <= 3 {
                // Just after a backoff.
                self.min_b = cur;
                self.max_b = cur;
                self.bi = cur;
            } else {
                self.bi = (3 * self.bi + cur) / 4;
                self.max_b = self.max_b.max(self.bi);
                self.min_b = self.min_b.min(self.max_b);
            }
            self.packetcount = 0;
            self.lasttime = self.now;
        }
    }

    fn undo_cwnd(&mut self, w: &Window, prior_cwnd: u32) -> u32 {
        if let Some(t) = self.undo_last_cong.take() {
            self.last_cong = t;
            self.max_rtt = self.undo_max_rtt;
            self.old_max_b = self.undo_old_max_b;
        }
        w.cwnd.max(prior_cwnd)
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::ALPHA, self.alpha as f64 / 128.0);
        out.number(&state::BETA, self.beta as f64 / 128.0);
        out.number(&state::SINCE_CONGESTION_S, self.cong_time() as f64 / HZ as f64);
        out.number(&state::MIN_RTT_MS, self.min_rtt as f64);
        out.number(&state::MAX_RTT_MS, self.max_rtt as f64);
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::harness::Harness;
    use crate::time::NS_PER_MS;
    use std::collections::BTreeMap;

    /// H-TCP's increase factor after D seconds without congestion (Linux's integer steps).
    fn factor(d: f64) -> f64 {
        if d <= 1.0 {
            1.0
        } else {
            1.0 + (10.0 * (d - 1.0) + ((d - 1.0) / 2.0).powi(2)).floor()
        }
    }

    #[test]
    fn alpha_grows_with_the_time_since_the_last_loss() {
        // 100 ms RTT: RTT scaling is 1 and beta 0.5 after the first loss, so
        // alpha = 2 (1 - 0.5) factor(D) = factor(D).
        let mut h = Harness::new("htcp", 100);
        h.set_cwnd(100, 100);
        h.rounds(5);
        h.loss();
        assert_eq!(h.state("beta"), 0.5);
        let mut last_alpha = 0.0;
        for _ in 0..40 {
            h.rounds(1);
            let d = h.state("since_congestion_s");
            let alpha = h.state("alpha");
            assert!(alpha >= last_alpha, "alpha fell from {last_alpha} to {alpha} at D = {d}");
            // Alpha is refreshed at each +1 of cwnd, so it lags D by less than an RTT.
            assert!(alpha <= factor(d) && alpha >= factor(d - 0.15), "D {d}: alpha {alpha}, factor {}", factor(d));
            last_alpha = alpha;
        }
        assert!(last_alpha > 30.0, "alpha {last_alpha} after 4 s");
        // The window grows by about alpha segments per RTT.
        let before = h.w.cwnd;
        h.rounds(1);
        let grown = (h.w.cwnd - before) as f64;
        assert!(grown >= 0.8 * last_alpha, "grew {grown} with alpha {last_alpha}");
    }

    #[test]
    fn rtt_scaling_makes_growth_per_second_independent_of_rtt() {
        // At 20 ms the factor is scaled by 20/100: alpha per RTT is 5x smaller,
        // with 5x more RTTs per second.
        let mut h = Harness::new("htcp", 20);
        h.set_cwnd(100, 100);
        h.rounds(5);
        h.loss();
        h.rounds(150); // 3 s
        let d = h.state("since_congestion_s");
        let alpha = h.state("alpha");
        assert!((alpha - factor(d) * 0.2).abs() <= 1.0 + 0.05 * factor(d), "D {d}: alpha {alpha}");
    }

    /// Linux measure_achieved_throughput passes `usecs_to_jiffies(sample->rtt_us)`
    /// to measure_rtt, and usecs_to_jiffies rounds up (HZ = 1000: `(u + 999) /
    /// 1000`): a 100.4 ms RTT is 101 jiffies, not 100, which moves beta =
    /// minRTT / maxRTT and the RTT scaling of alpha.
    #[test]
    fn rtt_samples_are_rounded_up_to_whole_jiffies() {
        let mut h = Harness::new("htcp", 100);
        h.queue_delay = 400_000; // 100.4 ms
        h.set_cwnd(100, 100);
        h.rounds(2);
        assert_eq!(h.state("min_rtt_ms"), 101.0);
        assert_eq!(h.state("max_rtt_ms"), 101.0);
        // An exact 100 ms stays 100 jiffies.
        let mut h = Harness::new("htcp", 100);
        h.set_cwnd(100, 100);
        h.rounds(2);
        assert_eq!(h.state("min_rtt_ms"), 100.0);
    }

    /// Linux measure_achieved_throughput samples the throughput once
    /// `packetcount >= tp->snd_cwnd - (ca->alpha >> 7 ? : 1)`, in u32: below
    /// alpha's segments the subtraction wraps and no sample is taken. alpha
    /// stays large after a timeout (htcp_recalc_ssthresh computes it before
    /// htcp_reset, and slow start never updates it), so slow start from one
    /// segment takes no throughput samples until cwnd passes alpha.
    #[test]
    fn no_throughput_sample_while_cwnd_is_below_alpha() {
        use crate::cc::Algorithm;
        let bi = |h: &Harness| match &h.alg {
            Algorithm::Htcp(a) => (a.bi, a.alpha >> 7),
            _ => unreachable!(),
        };
        let mut h = Harness::new("htcp", 100);
        h.set_cwnd(100, 100);
        h.rounds(5);
        h.loss();
        h.rounds(40);
        let (before, alpha_segs) = bi(&h);
        assert!(alpha_segs > 20, "alpha {alpha_segs} segments");
        // A window well below alpha's segments (as in slow start after a
        // timeout): two RTTs, and no throughput sample.
        h.set_cwnd(4, 4);
        h.rounds(2);
        assert!(h.w.cwnd < alpha_segs);
        assert_eq!(bi(&h).0, before);
        // Above it, samples resume.
        h.set_cwnd(100, 100);
        h.rounds(3);
        assert_ne!(bi(&h).0, before);
    }

    #[test]
    fn adaptive_beta_is_min_over_max_rtt_clamped() {
        let no_switch: BTreeMap<String, f64> = [("bandwidth_switch".to_string(), 0.0)].into();
        let mut h = Harness::with_params("htcp", 100, &no_switch);
        h.set_cwnd(100, 100);
        h.rounds(3);
        h.loss(); // first loss: beta 0.5, then adaptive
                  // The RTT rises to 130 ms in steps (maxRTT follows rises of <= 20 ms only).
        for q in [10, 20, 30] {
            h.queue_delay = q * NS_PER_MS;
            h.rounds(2);
        }
        h.loss();
        let beta = h.state("beta");
        assert!((beta - 100.0 / 130.0).abs() < 0.02, "beta {beta}");
        // A small queue: beta is capped at 0.8.
        let mut h = Harness::with_params("htcp", 100, &no_switch);
        h.set_cwnd(100, 100);
        h.rounds(3);
        h.loss();
        h.queue_delay = 5 * NS_PER_MS;
        h.rounds(3);
        h.loss();
        assert_eq!(h.state("beta"), 102.0 / 128.0);
        // Throughput that changed by more than 20% resets beta to 0.5 (bandwidth switch).
        let mut h = Harness::new("htcp", 100);
        h.set_cwnd(100, 100);
        h.rounds(10);
        h.loss();
        h.rounds(10);
        h.loss();
        assert_eq!(h.state("beta"), 0.5);
    }
}
