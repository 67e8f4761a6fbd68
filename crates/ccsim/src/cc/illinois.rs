//! TCP Illinois (Liu, Basar, Srikant, "TCP-Illinois: a loss and delay-based
//! congestion control algorithm for high-speed networks", VALUETOOLS 2006 /
//! Performance Evaluation 2008), following Linux net/ipv4/tcp_illinois.c.
//!
//! AIMD whose increase alpha and decrease beta depend on the average queueing
//! delay da of the last round, relative to the largest seen, dm = maxRTT - baseRTT:
//! - alpha (segments per RTT): 10 while da <= d1 = dm/100, falling as
//!   alpha = k1 / (k2 + da) to 0.3 at da = dm (concave near congestion);
//!   after delay was high, alpha returns to 10 only after theta = 5 rounds
//!   in a row below d1;
//! - beta: 1/8 while da <= d2 = dm/10, rising linearly to 1/2 at
//!   da >= d3 = 8 dm/10;
//! - below win_thresh = 15 segments: Reno (alpha 1, beta 1/2);
//! - after a timeout: alpha 1, beta 1/2 until the next round's update.
//!
//! Congestion avoidance adds alpha/cwnd per ACKed segment; a loss sets
//! ssthresh = cwnd (1 - beta). alpha and beta are kept in Linux's fixed point
//! (1/128 and 1/64).
//!
//! Differs from Linux: none intended.

use super::common::{reno_min_cwnd, slow_start};
use super::RecoveryPolicy;
use super::{AckSample, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::IntParam;
    pub const WIN_THRESH: IntParam =
        IntParam { name: "win_thresh", default: 15, min: 0, max: 100_000, doc: "below this window, Reno (segments)" };
    pub const THETA: IntParam = IntParam {
        name: "theta",
        default: 5,
        min: 1,
        max: 1000,
        doc: "low-delay rounds before alpha returns to its maximum",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const ALPHA: StateVar = StateVar::float("alpha", "");
    pub const BETA: StateVar = StateVar::float("beta", "");
    pub const AVG_DELAY_MS: StateVar = StateVar::float("avg_delay_ms", "ms");
    pub const MAX_DELAY_MS: StateVar = StateVar::float("max_delay_ms", "ms");
}

pub const INFO: Info = Info {
    name: "illinois",
    reference: "Liu, Basar, Srikant, VALUETOOLS 2006; Linux tcp_illinois.c",
    summary: "AIMD with alpha in [0.3, 10] and beta in [1/8, 1/2] set from the average queueing delay",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Int(&param::WIN_THRESH), Param::Int(&param::THETA)],
    state: &[state::ALPHA, state::BETA, state::AVG_DELAY_MS, state::MAX_DELAY_MS],
    role: Role::General,
    linux: LinuxModule::Mainline("illinois"),
    ns3: Some("ns3::TcpIllinois"),
};

const ALPHA_SHIFT: u32 = 7;
const ALPHA_SCALE: u64 = 1 << ALPHA_SHIFT;
const ALPHA_MIN: u64 = 3 * ALPHA_SCALE / 10; // ~0.3
const ALPHA_MAX: u64 = 10 * ALPHA_SCALE;
const ALPHA_BASE: u64 = ALPHA_SCALE;
const BETA_SHIFT: u32 = 6;
const BETA_SCALE: u64 = 1 << BETA_SHIFT;
const BETA_MIN: u64 = BETA_SCALE / 8;
const BETA_MAX: u64 = BETA_SCALE / 2;
const BETA_BASE: u64 = BETA_MAX;
/// Linux RTT_MAX (in microseconds): samples are capped so the alpha arithmetic cannot overflow.
const RTT_MAX_US: u64 = u32::MAX as u64 / ALPHA_MAX;

pub struct Illinois {
    win_thresh: u32,
    theta: u32,

    sum_rtt_us: u64,
    cnt_rtt: u32,
    base_rtt_us: u64,
    max_rtt_us: u64,
    end_seq: u64,
    alpha: u64,
    beta: u64,
    acked: u32,
    rtt_above: bool,
    rtt_low: u32,
    last_avg_delay_us: f64,
}

impl Illinois {
    pub fn new(p: &Params) -> Illinois {
        Illinois {
            win_thresh: p.int(&param::WIN_THRESH) as u32,
            theta: p.int(&param::THETA) as u32,
            sum_rtt_us: 0,
            cnt_rtt: 0,
            base_rtt_us: 0x7fff_ffff,
            max_rtt_us: 0,
            end_seq: 0,
            alpha: ALPHA_MAX,
            beta: BETA_BASE,
            acked: 0,
            rtt_above: false,
            rtt_low: 0,
            last_avg_delay_us: f64::NAN,
        }
    }

    fn rtt_reset(&mut self, c: &Conn) {
        self.end_seq = c.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt_us = 0;
    }

    /// alpha from the average (da) and maximum (dm) queueing delay.
    fn alpha_for(&mut self, da: u64, dm: u64) -> u64 {
        let d1 = dm / 100;
        if da <= d1 {
            if !self.rtt_above {
                return ALPHA_MAX;
            }
            // Wait for theta good rounds before jumping back to the maximum.
            self.rtt_low += 1;
            if self.rtt_low < self.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return ALPHA_MAX;
        }
        self.rtt_above = true;
        // alpha = k1 / (k2 + da), through (d1, alpha_max) and (dm, alpha_min).
        let (dm, da) = (dm - d1, da - d1);
        dm * ALPHA_MAX / (dm + da * (ALPHA_MAX - ALPHA_MIN) / ALPHA_MIN)
    }

    fn beta_for(da: u64, dm: u64) -> u64 {
        let d2 = dm / 10;
        if da <= d2 {
            return BETA_MIN;
        }
        let d3 = 8 * dm / 10;
        if da >= d3 || d3 <= d2 {
            return BETA_MAX;
        }
        // Linear from (d2, beta_min) to (d3, beta_max).
        (BETA_MIN * d3 + (BETA_MAX - BETA_MIN) * da - BETA_MAX * d2) / (d3 - d2)
    }

    /// Once per round (Linux update_params).
    fn update_params(&mut self, w: &Window, c: &Conn) {
        if w.cwnd < self.win_thresh {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
        } else if self.cnt_rtt > 0 {
            let dm = self.max_rtt_us - self.base_rtt_us;
            let da = (self.sum_rtt_us / self.cnt_rtt as u64).saturating_sub(self.base_rtt_us);
            self.last_avg_delay_us = da as f64;
            self.alpha = self.alpha_for(da, dm);
            self.beta = Self::beta_for(da, dm);
        }
        self.rtt_reset(c);
    }
}

impl CongestionControl for Illinois {
    /// Linux 2.6 registered tcp_reno_min_cwnd (rate halving's floor).
    fn min_cwnd(&self, w: &Window) -> u32 {
        reno_min_cwnd(w)
    }

    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.alpha = ALPHA_MAX;
        self.beta = BETA_BASE;
        self.base_rtt_us = 0x7fff_ffff;
        self.max_rtt_us = 0;
        self.acked = 0;
        self.rtt_low = 0;
        self.rtt_above = false;
        self.rtt_reset(c);
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        let cut = (w.cwnd as u64 * self.beta) >> BETA_SHIFT;
        (w.cwnd - cut as u32).max(2)
    }

    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, _c: &Conn, s: &AckSample) {
        self.acked = s.acked;
        let Some(rtt) = s.rtt_ns else { return };
        let rtt_us = (rtt / 1000).min(RTT_MAX_US);
        self.base_rtt_us = self.base_rtt_us.min(rtt_us);
        self.max_rtt_us = self.max_rtt_us.max(rtt_us);
        self.cnt_rtt += 1;
        self.sum_rtt_us += rtt_us;
    }

    fn set_state(&mut self, _w: &mut Window, c: &Conn, new: CaState) {
        if new == CaState::Loss {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.rtt_reset(c);
        }
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        if c.snd_una > self.end_seq {
            self.update_params(w, c);
        }
        if !c.is_cwnd_limited {
            return;
        }
        if w.in_slow_start() {
            slow_start(w, acked);
        } else {
            // cwnd += alpha / cwnd per ACKed segment.
            w.cwnd_cnt += self.acked;
            self.acked = 1;
            let delta = (w.cwnd_cnt as u64 * self.alpha) >> ALPHA_SHIFT;
            if delta >= w.cwnd as u64 {
                w.cwnd = (w.cwnd + (delta / w.cwnd as u64) as u32).min(w.cwnd_clamp);
                w.cwnd_cnt = 0;
            }
        }
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::ALPHA, self.alpha as f64 / ALPHA_SCALE as f64);
        out.number(&state::BETA, self.beta as f64 / BETA_SCALE as f64);
        out.number(&state::AVG_DELAY_MS, self.last_avg_delay_us / 1000.0);
        out.number(
            &state::MAX_DELAY_MS,
            if self.max_rtt_us == 0 {
                f64::NAN
            } else {
                (self.max_rtt_us - self.base_rtt_us.min(self.max_rtt_us)) as f64 / 1000.0
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use crate::time::NS_PER_MS;

    #[test]
    fn alpha_is_high_without_queueing_and_falls_as_delay_grows() {
        let mut h = Harness::new("illinois", 100);
        h.set_cwnd(100, 50);
        // Teach it the largest delay once, then an empty queue.
        h.queue_delay = 100 * NS_PER_MS;
        h.rounds(1);
        h.queue_delay = 0;
        h.rounds(10);
        assert_eq!(h.state("alpha"), 10.0);
        assert_eq!(h.state("beta"), 0.125);
        // Ten rounds at alpha = 10: about +100 segments.
        let before = h.w.cwnd;
        h.rounds(3);
        assert!(h.w.cwnd - before >= 25, "grew {}", h.w.cwnd - before);
        let mut last_alpha = 10.0;
        let mut last_beta = 0.0;
        for q_ms in [5, 20, 40, 80, 100] {
            h.queue_delay = q_ms * NS_PER_MS;
            h.rounds(2);
            let (a, b) = (h.state("alpha"), h.state("beta"));
            assert!(a < last_alpha && b >= last_beta, "queue {q_ms} ms: alpha {a} beta {b}");
            last_alpha = a;
            last_beta = b;
        }
        assert!(last_alpha <= 0.35 && last_beta == 0.5, "alpha {last_alpha} beta {last_beta}");
        // beta = 1/2 at high delay: a loss halves.
        let cwnd = h.w.cwnd;
        h.loss();
        assert_eq!(h.w.cwnd, cwnd - cwnd / 2);
    }

    #[test]
    fn alpha_recovers_only_after_theta_quiet_rounds() {
        let mut h = Harness::new("illinois", 100);
        h.set_cwnd(100, 50);
        h.rounds(1);
        h.queue_delay = 100 * NS_PER_MS;
        h.rounds(2);
        assert!(h.state("alpha") < 1.0);
        h.queue_delay = 0;
        h.rounds(2);
        assert!(h.state("alpha") < 1.0, "one quiet round is not enough");
        h.rounds(6);
        assert_eq!(h.state("alpha"), 10.0);
    }
}
