//! BIC (Xu, Harfoush, Rhee, "Binary increase congestion control for fast,
//! long distance networks", INFOCOM 2004), following Linux net/ipv4/tcp_bic.c
//! and its defaults.
//!
//! After a loss at window Wmax (`last_max_cwnd`) the window drops to
//! beta * Wmax (beta = 819/1024 ~ 0.8) and then searches for Wmax again:
//! - binary search increase: below Wmax, each RTT the window moves a fixed
//!   fraction (1/B, B = 4) of the distance to Wmax, i.e. toward the midpoint
//!   of the search interval [cwnd, Wmax];
//! - additive increase: that step is capped at Smax = 16 segments per RTT
//!   (`max_increment`), so far below Wmax the growth is linear;
//! - near Wmax the step falls to `B / smooth_part` segments per RTT (a plateau);
//! - max probing: above Wmax the window grows slowly at first, then by
//!   (cwnd - Wmax) / (B - 1) per RTT (a slow start mirror image), then
//!   linearly by Smax per RTT once it is Smax * (B - 1) beyond Wmax;
//! - fast convergence: a loss below the previous Wmax remembers
//!   Wmax * (1 + beta) / 2 instead, leaving room to newer flows;
//! - below `low_window` = 14 segments, BIC is Reno (+1 per RTT, halve on loss).
//!
//! Growth is applied per ACK as "one segment every `cnt` ACKed segments",
//! cnt = cwnd / (step per RTT). Time runs in Linux jiffies of 1 ms (the cnt
//! recomputation is rate-limited to once per 1/32 s while cwnd is unchanged).
//! Linux's `initial_ssthresh` is 0 (off) today, so slow start runs until the
//! first loss.
//!
//! Differs from Linux: Linux also divides `cnt` by an estimate of segments per
//! ACK (`delayed_ack`, from the days when cong_avoid counted ACKs, not ACKed
//! segments). Since `cong_avoid_ai` now counts ACKed segments, that
//! scaling doubles the growth with delayed ACKs (Smax becomes 32 per RTT);
//! Linux removed the same double count from CUBIC in 2015 ("fix stretch ACK
//! bugs"). We apply it only when the window counts ACKs (`tcp.cwnd_counts =
//! "acks"`, the kernels before 3.13), where it belongs, so the steps per RTT
//! are the paper's either way.

use super::common::{cong_avoid_ai, slow_start_if_limited, DelayedAckRatio};
use super::RecoveryPolicy;
use super::{
    AckSample, CaState, CongestionControl, Conn, Counting, Info, LinuxModule, Param, Params, Role, StateOut, Window,
};
use crate::time::{Nanos, NS_PER_MS};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{BoolParam, FloatParam, IntParam};
    pub const BETA: FloatParam = FloatParam {
        name: "beta",
        default: 819.0 / 1024.0,
        min: 0.1,
        max: 0.99,
        doc: "multiplicative decrease factor (Linux 819/1024)",
    };
    pub const MAX_INCREMENT: IntParam = IntParam {
        name: "max_increment",
        default: 16,
        min: 1,
        max: 1024,
        doc: "Smax: largest increase per RTT, segments",
    };
    pub const LOW_WINDOW: IntParam = IntParam {
        name: "low_window",
        default: 14,
        min: 2,
        max: 1000,
        doc: "below this window BIC behaves as Reno, segments",
    };
    pub const SMOOTH_PART: IntParam = IntParam {
        name: "smooth_part",
        default: 20,
        min: 1,
        max: 1000,
        doc: "RTTs spent from Wmax-B to Wmax (plateau length)",
    };
    pub const FAST_CONVERGENCE: BoolParam =
        BoolParam { name: "fast_convergence", default: true, doc: "1: release bandwidth on losses below Wmax" };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const LAST_MAX_CWND: StateVar = StateVar::integer("last_max_cwnd", "segments");
    pub const MIN_CWND: StateVar = StateVar::integer("min_cwnd", "segments");
    pub const TARGET: StateVar = StateVar::float("target", "segments");
    pub const CNT: StateVar = StateVar::integer("cnt", "");
}

pub const INFO: Info = Info {
    name: "bic",
    reference: "Xu, Harfoush, Rhee, INFOCOM 2004; Linux tcp_bic.c",
    summary: "binary search toward the last maximum, additive increase capped at Smax=16, max probing beyond it; beta 0.8, fast convergence",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Float(&param::BETA),
        Param::Int(&param::MAX_INCREMENT),
        Param::Int(&param::LOW_WINDOW),
        Param::Int(&param::SMOOTH_PART),
        Param::Bool(&param::FAST_CONVERGENCE),
    ],
    state: &[state::LAST_MAX_CWND, state::MIN_CWND, state::TARGET, state::CNT],
    // Linux's default from 2.6.8 until cubic replaced it in 2.6.19 (Ha, Rhee, Xu 2008, section 1).
    role: Role::Historical,
    linux: LinuxModule::Mainline("bic"),
    ns3: Some("ns3::TcpBic"),
};

/// Linux BICTCP_B: the binary search goes to (max + min) / B ... per RTT.
const B: u32 = 4;
const BETA_SCALE: u32 = 1024;

pub struct Bic {
    beta: u32, // * 1024
    max_increment: u32,
    low_window: u32,
    smooth_part: u32,
    fast_convergence: bool,

    cnt: u32,
    last_max_cwnd: u32,
    /// Window right after the last reduction (the bottom of the search interval; traced only).
    min_cwnd: u32,
    last_cwnd: u32,
    last_time: u64, // jiffies
    epoch_start: u64,
    /// Segments per ACK, dividing cnt when the window counts ACKs.
    delayed_ack: DelayedAckRatio,
}

fn jiffies(now: Nanos) -> u64 {
    now / NS_PER_MS + 1
}

impl Bic {
    pub fn new(p: &Params) -> Bic {
        Bic {
            beta: (p.float(&param::BETA) * BETA_SCALE as f64).round() as u32,
            max_increment: p.int(&param::MAX_INCREMENT) as u32,
            low_window: p.int(&param::LOW_WINDOW) as u32,
            smooth_part: p.int(&param::SMOOTH_PART) as u32,
            fast_convergence: p.flag(&param::FAST_CONVERGENCE),
            cnt: 0,
            last_max_cwnd: 0,
            min_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            epoch_start: 0,
            delayed_ack: DelayedAckRatio::default(),
        }
    }

    /// Linux bictcp_reset.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.min_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.epoch_start = 0;
        self.delayed_ack = DelayedAckRatio::default();
    }

    /// Linux bictcp_update: ACKed segments (or ACKs, when the window counts
    /// them) per +1 of cwnd.
    fn update(&mut self, cwnd: u32, now: Nanos, counting: Counting) {
        let now_j = jiffies(now);
        if self.last_cwnd == cwnd && now_j - self.last_time <= 1000 / 32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now_j;
        if self.epoch_start == 0 {
            self.epoch_start = now_j;
        }
        // Reno below low_window.
        if cwnd <= self.low_window {
            self.cnt = cwnd;
            return;
        }
        let smax = self.max_increment;
        self.cnt = if cwnd < self.last_max_cwnd {
            // Binary search: a quarter of the distance to Wmax per RTT, at most Smax.
            let dist = (self.last_max_cwnd - cwnd) / B;
            if dist > smax {
                cwnd / smax
            } else if dist <= 1 {
                cwnd * self.smooth_part / B
            } else {
                cwnd / dist
            }
        } else if cwnd < self.last_max_cwnd + B {
            // Just above Wmax: probe slowly.
            cwnd * self.smooth_part / B
        } else if cwnd < self.last_max_cwnd + smax * (B - 1) {
            // Max probing: accelerate away from Wmax.
            cwnd * (B - 1) / (cwnd - self.last_max_cwnd)
        } else {
            cwnd / smax
        };
        // Before the first loss (or at very low utilization): at least +5% per RTT.
        if self.last_max_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20;
        }
        self.cnt = match counting {
            Counting::Segments => self.cnt.max(1),
            Counting::Acks => self.delayed_ack.acks_per_increment(self.cnt),
        };
    }
}

impl CongestionControl for Bic {
    fn init(&mut self, _w: &mut Window, _c: &Conn) {
        self.reset();
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        self.epoch_start = 0;
        self.last_max_cwnd = if w.cwnd < self.last_max_cwnd && self.fast_convergence {
            w.cwnd * (BETA_SCALE + self.beta) / (2 * BETA_SCALE)
        } else {
            w.cwnd
        };
        let ssthresh = if w.cwnd <= self.low_window {
            (w.cwnd >> 1).max(2)
        } else {
            ((w.cwnd as u64 * self.beta as u64 / BETA_SCALE as u64) as u32).max(2)
        };
        self.min_cwnd = ssthresh;
        ssthresh
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        let acked = slow_start_if_limited(w, c, acked);
        if acked == 0 {
            return;
        }
        self.update(w.cwnd, c.now, w.counting);
        let cnt = self.cnt;
        cong_avoid_ai(w, cnt, acked);
    }

    fn set_state(&mut self, _w: &mut Window, _c: &Conn, new: CaState) {
        if new == CaState::Loss {
            self.reset();
        }
    }

    #[inline]
    fn pkts_acked(&mut self, w: &mut Window, c: &Conn, s: &AckSample) {
        if w.counting == Counting::Acks {
            self.delayed_ack.on_acked(c.ca_state, s.acked);
        }
    }

    fn undo_cwnd(&mut self, w: &Window, prior_cwnd: u32) -> u32 {
        w.cwnd.max(prior_cwnd)
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::LAST_MAX_CWND, self.last_max_cwnd as f64);
        out.number(&state::MIN_CWND, self.min_cwnd as f64);
        // The window this cnt reaches after one round: cwnd + cwnd / cnt.
        out.number(
            &state::TARGET,
            if self.cnt == 0 { f64::NAN } else { self.last_cwnd as f64 * (1.0 + 1.0 / self.cnt as f64) },
        );
        out.number(&state::CNT, self.cnt as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;

    /// Per-round increments while BIC climbs back toward Wmax and past it.
    fn climb(h: &mut Harness, rounds: usize) -> Vec<(f64, f64)> {
        (0..rounds)
            .map(|_| {
                let before = h.w.cwnd as f64;
                h.rounds(1);
                (before, h.w.cwnd as f64 - before)
            })
            .collect()
    }

    #[test]
    fn reduction_is_beta_and_wmax_is_remembered() {
        let mut h = Harness::new("bic", 100);
        h.set_cwnd(400, 200);
        h.rounds(2);
        let wmax = h.w.cwnd;
        h.loss();
        assert_eq!(h.state("last_max_cwnd"), wmax as f64);
        assert_eq!(h.w.cwnd, wmax * 819 / 1024);
        // Fast convergence: a second loss below Wmax remembers Wmax (1 + beta) / 2.
        let w2 = h.w.cwnd;
        h.loss();
        assert_eq!(h.state("last_max_cwnd"), (w2 * (1024 + 819) / 2048) as f64);
    }

    #[test]
    fn binary_search_converges_to_wmax_then_probes_beyond() {
        let mut h = Harness::new("bic", 100);
        h.set_cwnd(1000, 500);
        h.rounds(1);
        h.loss();
        let wmax = h.state("last_max_cwnd");
        let steps = climb(&mut h, 120);
        // Far below Wmax: additive increase, Smax = 16 per RTT (plus the odd rounding).
        let (w0, d0) = steps[2];
        assert!(w0 < wmax - 64.0 && (15.0..=17.5).contains(&d0), "{steps:?}");
        // Closing in: the steps shrink (binary search), the window never overshoots
        // Wmax by more than a segment while below it, and it sits near Wmax.
        let below: Vec<_> = steps.iter().filter(|(w, _)| *w < wmax - 8.0 && *w > wmax - 64.0).collect();
        assert!(below.windows(2).all(|p| p[1].1 <= p[0].1 + 1.0), "steps must shrink: {below:?}");
        let near = steps.iter().filter(|(w, _)| (*w - wmax).abs() <= 4.0).count();
        assert!(near >= 3, "plateau at Wmax expected: {steps:?}");
        // Max probing: beyond Wmax the steps grow again, back to Smax.
        let above: Vec<_> = steps.iter().filter(|(w, _)| *w > wmax + 4.0).collect();
        assert!(above.len() >= 3, "{steps:?}");
        assert!(above.last().unwrap().1 > above.first().unwrap().1, "probing accelerates: {above:?}");
        assert!(above.iter().all(|(_, d)| *d <= 17.5), "{above:?}");
    }

    #[test]
    fn small_windows_behave_as_reno() {
        let mut h = Harness::new("bic", 50);
        h.set_cwnd(10, 5);
        h.rounds(1);
        assert_eq!(h.w.cwnd, 11);
        h.loss();
        assert_eq!(h.w.cwnd, 5);
    }
}
