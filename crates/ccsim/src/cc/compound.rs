//! Compound TCP (Tan, Song, Zhang, Sridharan, "A compound TCP approach for
//! high-speed and long distance networks", INFOCOM 2006;
//! draft-sridharan-tcpm-ctcp-02, 2008): the Windows stack's algorithm.
//!
//! The sending window is the sum of a loss-based part and a delay-based part,
//!     win = cwnd + dwnd.
//! - cwnd (the Reno part) grows by 1/win per ACKed segment in congestion
//!   avoidance, so the sum grows like Reno when dwnd is 0, and halves on loss.
//! - dwnd (the delay part) is updated once per RTT from a Vegas-style backlog
//!   ```text
//!   Expected = win / baseRTT, Actual = win / RTT,
//!   diff = (Expected - Actual) * baseRTT   (segments queued by this flow),
//!   dwnd += max(alpha * win^k - 1, 0)      if diff < gamma
//!   dwnd  = max(dwnd - zeta * diff, 0)     if diff >= gamma
//!   ```
//!   with alpha = 1/8, k = 0.75, zeta = 1, gamma = 30 segments: on an empty
//!   path the window grows like HighSpeed TCP's, and once the queue builds
//!   dwnd gives way so the total approaches Reno's.
//! - on loss: win' = win (1 - beta) with beta = 1/2, cwnd' = cwnd / 2, so
//!   dwnd' = max(win (1 - beta) - cwnd / 2, 0).
//! - slow start is Reno's with dwnd = 0; a timeout resets dwnd to 0.
//!
//! baseRTT is the smallest RTT sample; RTT is the mean of the samples of the
//! last round.
//!
//! The sender uses `Window::cwnd` as its window, so that field holds
//! cwnd + dwnd here; the Reno part is kept as the difference
//! `w.cwnd - dwnd`, and `cwnd_cnt` counts its additive increase.
//!
//! Differs from the draft: gamma is fixed (the draft's optional gamma
//! auto-tuning, "CTCP-TUBE", is not done: set `gamma` for other buffers);
//! the dwnd update is skipped in rounds with fewer than 3 RTT samples (as
//! Vegas does, so that delayed ACKs alone do not drive it).

use super::common::{cong_avoid_ai, reno_min_cwnd, slow_start};
use super::RecoveryPolicy;
use super::{AckSample, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window};
use crate::time::Nanos;

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::FloatParam;
    pub const ALPHA: FloatParam =
        FloatParam { name: "alpha", default: 0.125, min: 0.0, max: 10.0, doc: "dwnd increase factor" };
    pub const BETA: FloatParam =
        FloatParam { name: "beta", default: 0.5, min: 0.0, max: 0.99, doc: "multiplicative decrease of win on loss" };
    pub const K: FloatParam =
        FloatParam { name: "k", default: 0.75, min: 0.0, max: 2.0, doc: "exponent of the dwnd increase" };
    pub const ZETA: FloatParam = FloatParam {
        name: "zeta",
        default: 1.0,
        min: 0.0,
        max: 100.0,
        doc: "dwnd decrease per queued segment (the paper's eta)",
    };
    pub const GAMMA: FloatParam = FloatParam {
        name: "gamma",
        default: 30.0,
        min: 0.0,
        max: 10_000.0,
        doc: "queued segments at which dwnd starts to shrink",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const DWND: StateVar = StateVar::float("dwnd", "segments");
    pub const RENO_CWND: StateVar = StateVar::integer("reno_cwnd", "segments");
    pub const DIFF: StateVar = StateVar::float("diff", "");
    pub const BASE_RTT_MS: StateVar = StateVar::float("base_rtt_ms", "ms");
}

pub const INFO: Info = Info {
    name: "compound",
    reference: "Tan, Song, Zhang, Sridharan, INFOCOM 2006; draft-sridharan-tcpm-ctcp-02",
    summary: "win = cwnd (Reno) + dwnd (delay-based: grows alpha*win^k - 1 per RTT while fewer than gamma segments are queued)",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Float(&param::ALPHA),
        Param::Float(&param::BETA),
        Param::Float(&param::K),
        Param::Float(&param::ZETA),
        Param::Float(&param::GAMMA),
    ],
    state: &[state::DWND, state::RENO_CWND, state::DIFF, state::BASE_RTT_MS],
    role: Role::General,
    linux: LinuxModule::SimulatorOnly { why: "Compound TCP (Windows; no Linux module)" },
    ns3: None,
};

pub struct Compound {
    alpha: f64,
    beta: f64,
    k: f64,
    zeta: f64,
    gamma: f64,

    /// The delay-based part, segments (fractional growth kept).
    dwnd: f64,
    base_rtt: Nanos,
    round_end: u64,
    rtt_sum: u128,
    rtt_cnt: u32,
    last_diff: f64,
    /// The Reno part as last computed (for tracing).
    reno_cwnd: u32,
}

impl Compound {
    pub fn new(p: &Params) -> Compound {
        Compound {
            alpha: p.float(&param::ALPHA),
            beta: p.float(&param::BETA),
            k: p.float(&param::K),
            zeta: p.float(&param::ZETA),
            gamma: p.float(&param::GAMMA),
            dwnd: 0.0,
            base_rtt: Nanos::MAX,
            round_end: 0,
            rtt_sum: 0,
            rtt_cnt: 0,
            last_diff: f64::NAN,
            reno_cwnd: 0,
        }
    }

    fn dwnd_pkts(&self) -> u32 {
        self.dwnd as u32
    }

    /// Sets the sender's window from the Reno part and dwnd.
    fn set_window(&mut self, w: &mut Window, reno: u32) {
        self.reno_cwnd = reno;
        w.cwnd = (reno + self.dwnd_pkts()).min(w.cwnd_clamp);
    }

    /// The once-per-RTT update of dwnd.
    fn update_dwnd(&mut self, w: &mut Window) {
        if self.rtt_cnt < 3 || self.base_rtt == Nanos::MAX {
            return;
        }
        let rtt = (self.rtt_sum / self.rtt_cnt as u128) as f64;
        let base = self.base_rtt as f64;
        let win = w.cwnd as f64;
        let reno = w.cwnd.saturating_sub(self.dwnd_pkts());
        // (win/base - win/rtt) * base
        let diff = win * (rtt - base) / rtt;
        self.last_diff = diff;
        if diff < self.gamma {
            self.dwnd += (self.alpha * win.powf(self.k) - 1.0).max(0.0);
        } else {
            self.dwnd = (self.dwnd - self.zeta * diff).max(0.0);
        }
        self.set_window(w, reno);
    }
}

impl CongestionControl for Compound {
    /// Linux 2.6 registered tcp_reno_min_cwnd (rate halving's floor).
    fn min_cwnd(&self, w: &Window) -> u32 {
        reno_min_cwnd(w)
    }

    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.round_end = c.snd_nxt;
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        // win' = win (1 - beta): the Reno part halves, dwnd takes the rest.
        let win = w.cwnd as f64;
        let reno = w.cwnd.saturating_sub(self.dwnd_pkts());
        let reno_after = (reno / 2).max(2);
        self.dwnd = (win * (1.0 - self.beta) - (reno / 2) as f64).max(0.0).floor();
        self.reno_cwnd = reno_after;
        reno_after + self.dwnd_pkts()
    }

    fn set_state(&mut self, _w: &mut Window, _c: &Conn, new: CaState) {
        if new == CaState::Loss {
            // Timeout: back to slow start from one segment, delay part cleared.
            self.dwnd = 0.0;
            self.reno_cwnd = 1;
        }
    }

    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, _c: &Conn, s: &AckSample) {
        if let Some(rtt) = s.rtt_ns {
            let rtt = rtt.max(1);
            self.base_rtt = self.base_rtt.min(rtt);
            self.rtt_sum += rtt as u128;
            self.rtt_cnt += 1;
        }
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        let new_round = c.snd_una > self.round_end;
        if !c.is_cwnd_limited {
            if new_round {
                self.round_end = c.snd_nxt;
                self.rtt_sum = 0;
                self.rtt_cnt = 0;
            }
            return;
        }
        let mut acked = acked;
        if w.in_slow_start() {
            // Reno slow start; dwnd stays where it is (0 unless set by a loss).
            let reno_before = w.cwnd - self.dwnd_pkts().min(w.cwnd);
            let mut rw = Window { cwnd: reno_before, ..*w };
            rw.ssthresh = w.ssthresh.saturating_sub(self.dwnd_pkts());
            acked = slow_start(&mut rw, acked);
            w.cwnd_cnt = rw.cwnd_cnt;
            self.set_window(w, rw.cwnd);
        }
        if acked > 0 && !w.in_slow_start() {
            // The Reno part grows by 1/win per ACKed segment.
            let reno = w.cwnd - self.dwnd_pkts().min(w.cwnd);
            let mut rw = Window { cwnd: reno, ..*w };
            cong_avoid_ai(&mut rw, w.cwnd, acked);
            w.cwnd_cnt = rw.cwnd_cnt;
            self.set_window(w, rw.cwnd);
        }
        if new_round {
            if !w.in_slow_start() {
                self.update_dwnd(w);
            }
            self.round_end = c.snd_nxt;
            self.rtt_sum = 0;
            self.rtt_cnt = 0;
        }
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::DWND, self.dwnd_pkts() as f64);
        out.number(&state::RENO_CWND, self.reno_cwnd as f64);
        out.number(&state::DIFF, self.last_diff);
        out.number(
            &state::BASE_RTT_MS,
            if self.base_rtt == Nanos::MAX { f64::NAN } else { self.base_rtt as f64 / 1e6 },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use crate::time::NS_PER_MS;

    #[test]
    fn dwnd_grows_on_an_empty_path_and_vanishes_when_the_queue_exceeds_gamma() {
        let mut h = Harness::new("compound", 100);
        h.set_cwnd(100, 50);
        h.rounds(1);
        let mut last = h.state("dwnd");
        for _ in 0..10 {
            h.rounds(1);
            let d = h.state("dwnd");
            assert!(d > last, "dwnd must grow each RTT on an empty path: {d} after {last}");
            last = d;
        }
        // alpha * win^k - 1 per RTT: about 3 segments at win = 100, 4 at win = 180.
        assert!((25.0..=50.0).contains(&last), "dwnd {last}");
        assert_eq!(h.w.cwnd as f64, h.state("reno_cwnd") + last);
        assert!(h.state("reno_cwnd") >= 110.0 && h.state("reno_cwnd") <= 112.0);
        // A standing queue of 50 ms on the 100 ms path: diff = win / 3 > gamma.
        h.queue_delay = 50 * NS_PER_MS;
        h.rounds(3);
        assert!(h.state("diff") >= 30.0);
        assert_eq!(h.state("dwnd"), 0.0);
        // A small queue (diff below gamma) lets dwnd grow again.
        h.queue_delay = 5 * NS_PER_MS;
        h.rounds(3);
        assert!(h.state("diff") < 30.0 && h.state("dwnd") > 0.0);
    }

    #[test]
    fn loss_halves_the_sum_and_the_reno_part() {
        let mut h = Harness::new("compound", 100);
        h.set_cwnd(100, 50);
        h.rounds(12);
        let (win, reno) = (h.w.cwnd, h.state("reno_cwnd") as u32);
        assert!(h.state("dwnd") > 20.0);
        h.loss();
        assert_eq!(h.state("reno_cwnd") as u32, reno / 2);
        assert!((h.w.cwnd as i64 - (win / 2) as i64).abs() <= 1, "win {} after {win}", h.w.cwnd);
    }

    #[test]
    fn timeout_clears_dwnd() {
        let mut h = Harness::new("compound", 100);
        h.set_cwnd(100, 50);
        h.rounds(12);
        h.timeout();
        assert_eq!(h.state("dwnd"), 0.0);
        assert_eq!(h.w.cwnd, 1);
    }
}
