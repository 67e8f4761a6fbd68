//! TCP Vegas (Brakmo, O'Malley, Peterson, SIGCOMM 1994; Brakmo, Peterson,
//! IEEE JSAC 1995), with the mechanics of Linux net/ipv4/tcp_vegas.c.
//!
//! Once per RTT (a round ends when the ACKs pass the `snd_nxt` of its start):
//!     Expected = cwnd / baseRTT,   Actual = cwnd / RTT,
//!     diff = (Expected - Actual) * baseRTT = cwnd (RTT - baseRTT) / RTT
//! which is the number of this flow's segments queued in the network. With
//! baseRTT the smallest RTT ever seen and RTT the smallest sample of the last
//! round (which filters out delayed-ACK noise, as Linux does):
//! - congestion avoidance: diff < alpha (2): +1 segment; diff > beta (4): -1;
//!   in between: hold. So a lone Vegas flow keeps 2 to 4 segments queued.
//! - slow start: leave it (cwnd set to the actual rate times baseRTT, plus 1)
//!   once diff > gamma (1); the paper grows the window only every other RTT
//!   so that the rate comparison is made on a window that held still.
//! - fewer than 3 RTT samples in the round (e.g. one ACK per round): Reno.
//!
//! Loss detection and recovery are the sender's; on loss ssthresh = cwnd / 2.
//! After recovery, a timeout or an idle restart, Vegas waits for a full round
//! of fresh samples (Linux vegas_enable); an idle restart also forgets baseRTT.
//!
//! Differs from Linux, which follows the 1995 paper loosely: Linux divides by
//! baseRTT (diff = cwnd (RTT - baseRTT) / baseRTT, the segments queued
//! measured at the actual rather than the expected rate) and grows in slow
//! start every RTT. Parameter `linux` = 1 selects both Linux behaviours.

use super::common::{reno_cong_avoid, reno_min_cwnd, reno_ssthresh, slow_start};
use super::RecoveryPolicy;
use super::{
    AckSample, CaEvent, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window,
};
use crate::time::Nanos;

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{BoolParam, IntParam};
    pub const ALPHA: IntParam =
        IntParam { name: "alpha", default: 2, min: 0, max: 1000, doc: "below this many queued segments, +1 per RTT" };
    pub const BETA: IntParam =
        IntParam { name: "beta", default: 4, min: 0, max: 1000, doc: "above this many queued segments, -1 per RTT" };
    pub const GAMMA: IntParam = IntParam {
        name: "gamma",
        default: 1,
        min: 0,
        max: 1000,
        doc: "slow start ends above this many queued segments",
    };
    pub const LINUX: BoolParam = BoolParam {
        name: "linux",
        default: false,
        doc: "1: Linux's diff (divided by baseRTT) and slow start every RTT",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const DIFF: StateVar = StateVar::float("diff", "");
    pub const BASE_RTT_MS: StateVar = StateVar::float("base_rtt_ms", "ms");
    pub const ROUND_MIN_RTT_MS: StateVar = StateVar::float("round_min_rtt_ms", "ms");
    pub const ENABLED: StateVar = StateVar::mode("enabled", &["reno", "vegas"]);
}

pub const INFO: Info = Info {
    name: "vegas",
    reference: "Brakmo, Peterson, IEEE JSAC 1995 (SIGCOMM 1994); Linux tcp_vegas.c",
    summary: "delay-based: keep alpha..beta (2..4) segments queued, diff=(expected-actual)*baseRTT once per RTT; gamma=1 ends slow start",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Int(&param::ALPHA),
        Param::Int(&param::BETA),
        Param::Int(&param::GAMMA),
        Param::Bool(&param::LINUX),
    ],
    state: &[state::DIFF, state::BASE_RTT_MS, state::ROUND_MIN_RTT_MS, state::ENABLED],
    role: Role::General,
    linux: LinuxModule::Mainline("vegas"),
    ns3: Some("ns3::TcpVegas"),
};

/// Vegas's RTT bookkeeping (Linux struct vegas, which tcp_yeah.c reuses):
/// the smallest RTT ever seen (baseRTT), and the number and the smallest of
/// the samples of the current round, which ends when snd_una passes
/// `beg_snd_nxt` (Nanos::MAX: no sample yet).
#[derive(Clone, Copy, Debug)]
pub struct VegasRtt {
    pub beg_snd_nxt: u64,
    pub cnt_rtt: u32,
    pub min_rtt: Nanos,
    pub base_rtt: Nanos,
}

impl Default for VegasRtt {
    fn default() -> Self {
        Self::new()
    }
}

impl VegasRtt {
    pub fn new() -> VegasRtt {
        VegasRtt { beg_snd_nxt: 0, cnt_rtt: 0, min_rtt: Nanos::MAX, base_rtt: Nanos::MAX }
    }

    /// Linux tcp_vegas_init: forget baseRTT and start a round.
    pub fn restart(&mut self, c: &Conn) {
        self.base_rtt = Nanos::MAX;
        self.start_round(c);
    }

    /// Linux tcp_vegas_enable: a fresh measurement round from `snd_nxt`.
    pub fn start_round(&mut self, c: &Conn) {
        self.beg_snd_nxt = c.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = Nanos::MAX;
    }

    pub fn on_sample(&mut self, rtt: Nanos) {
        self.base_rtt = self.base_rtt.min(rtt);
        self.min_rtt = self.min_rtt.min(rtt);
        self.cnt_rtt += 1;
    }

    /// The ACKs have passed the round's end.
    pub fn round_ended(&self, c: &Conn) -> bool {
        c.snd_una > self.beg_snd_nxt
    }
}

pub struct Vegas {
    alpha: u64,
    beta: u64,
    gamma: u64,
    linux: bool,

    doing_vegas_now: bool,
    rtt: VegasRtt,
    /// Paper slow start: grow only in every other round.
    ss_grow_round: bool,
    // Traced values of the last adjustment.
    last_diff: f64,
    last_round_min_rtt: Nanos,
}

impl Vegas {
    pub fn new(p: &Params) -> Vegas {
        Vegas {
            alpha: p.int(&param::ALPHA) as u64,
            beta: p.int(&param::BETA) as u64,
            gamma: p.int(&param::GAMMA) as u64,
            linux: p.flag(&param::LINUX),
            doing_vegas_now: true,
            rtt: VegasRtt::new(),
            ss_grow_round: true,
            last_diff: f64::NAN,
            last_round_min_rtt: 0,
        }
    }

    /// Linux vegas_enable: start taking samples for a fresh round.
    fn enable(&mut self, c: &Conn) {
        self.doing_vegas_now = true;
        self.rtt.start_round(c);
    }

    fn slow_start_allowed(&self) -> bool {
        self.linux || self.ss_grow_round
    }
}

impl CongestionControl for Vegas {
    /// Linux 2.6 registered tcp_reno_min_cwnd (rate halving's floor).
    fn min_cwnd(&self, w: &Window) -> u32 {
        reno_min_cwnd(w)
    }

    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.doing_vegas_now = true;
        self.rtt.restart(c);
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        reno_ssthresh(w)
    }

    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, _c: &Conn, s: &AckSample) {
        if let Some(rtt) = s.rtt_ns {
            self.rtt.on_sample(rtt + 1); // never zero
        }
    }

    fn set_state(&mut self, _w: &mut Window, c: &Conn, new: CaState) {
        if new == CaState::Open {
            self.enable(c);
        } else {
            self.doing_vegas_now = false;
        }
    }

    fn cwnd_event(&mut self, w: &mut Window, c: &Conn, event: CaEvent) {
        if event == CaEvent::TxStart {
            self.init(w, c);
        }
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        if !self.doing_vegas_now {
            reno_cong_avoid(w, c, acked);
            return;
        }
        if self.rtt.round_ended(c) {
            // The once-per-RTT adjustment.
            let growth_round = self.ss_grow_round;
            self.ss_grow_round = !self.ss_grow_round;
            if self.rtt.cnt_rtt <= 2 {
                // Too few samples (delayed ACKs only): behave as Reno.
                reno_cong_avoid(w, c, acked);
            } else {
                let rtt = self.rtt.min_rtt as u128;
                let base = self.rtt.base_rtt as u128;
                let cwnd = w.cwnd as u128;
                let target_cwnd = (cwnd * base / rtt) as u32;
                let diff = if self.linux { cwnd * (rtt - base) / base } else { cwnd * (rtt - base) / rtt } as u64;
                self.last_diff = diff as f64;
                self.last_round_min_rtt = self.rtt.min_rtt;
                if diff > self.gamma && w.in_slow_start() {
                    // Going too fast: match the actual rate and leave slow start.
                    w.cwnd = w.cwnd.min(target_cwnd + 1);
                    w.ssthresh = w.ssthresh.min(w.cwnd);
                } else if w.in_slow_start() {
                    if self.linux || growth_round {
                        slow_start(w, acked);
                    }
                } else if diff > self.beta {
                    w.cwnd = w.cwnd.saturating_sub(1);
                    w.ssthresh = w.ssthresh.min(w.cwnd);
                } else if diff < self.alpha {
                    w.cwnd += 1;
                }
                w.cwnd = w.cwnd.clamp(2, w.cwnd_clamp);
                // Linux tcp_current_ssthresh: remember 3/4 of the window in ssthresh.
                w.ssthresh = w.current_ssthresh();
            }
            self.rtt.start_round(c);
        } else if w.in_slow_start() && self.slow_start_allowed() {
            slow_start(w, acked);
        }
    }

    fn state(&self, out: &mut StateOut) {
        let ms = |t: Nanos| if t == Nanos::MAX || t == 0 { f64::NAN } else { t as f64 / 1e6 };
        out.number(&state::DIFF, self.last_diff);
        out.number(&state::BASE_RTT_MS, ms(self.rtt.base_rtt));
        out.number(&state::ROUND_MIN_RTT_MS, ms(self.last_round_min_rtt));
        out.mode(&state::ENABLED, self.doing_vegas_now as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use crate::time::NS_PER_MS;

    #[test]
    fn congestion_avoidance_holds_between_alpha_and_beta() {
        // 100 ms path, window 50 in congestion avoidance.
        let mut h = Harness::new("vegas", 100);
        h.set_cwnd(50, 20);
        h.rounds(2);
        // No queue: diff = 0 < alpha, +1 per RTT.
        let w = h.w.cwnd;
        h.rounds(4);
        assert_eq!(h.w.cwnd, w + 4);
        // 6 ms of queue on a 100 ms path with ~56 segments: diff = 56*6/106 = 3: hold.
        h.queue_delay = 6 * NS_PER_MS;
        h.rounds(2);
        let w = h.w.cwnd;
        h.rounds(4);
        assert_eq!(h.w.cwnd, w, "diff {}", h.state("diff"));
        assert!((2.0..=4.0).contains(&h.state("diff")));
        // 20 ms of queue: diff = 56*20/120 = 9 > beta: -1 per RTT.
        h.queue_delay = 20 * NS_PER_MS;
        h.rounds(2);
        let w = h.w.cwnd;
        h.rounds(4);
        assert_eq!(h.w.cwnd, w - 4);
        assert_eq!(h.state("base_rtt_ms").round(), 100.0);
    }

    #[test]
    fn slow_start_grows_every_other_round_and_ends_at_gamma() {
        let mut h = Harness::new("vegas", 100);
        h.rounds(4);
        // Four rounds, two of them growth rounds: about 10 * 2^2, where Reno would be at 10 * 2^4.
        assert!((38..=50).contains(&h.w.cwnd), "cwnd {}", h.w.cwnd);
        let params = [("linux".to_string(), 1.0)].into_iter().collect();
        let mut linux = Harness::with_params("vegas", 100, &params);
        linux.rounds(4);
        assert_eq!(linux.w.cwnd, 160);
        // A queue of 10 ms: diff = cwnd * 10 / 110 > gamma: leave slow start,
        // with the window matched to the actual rate (cwnd * baseRTT / RTT + 1).
        h.queue_delay = 10 * NS_PER_MS;
        let mut peak = h.w.cwnd;
        while h.w.in_slow_start() {
            peak = h.w.cwnd;
            h.ack(NS_PER_MS);
        }
        let expect = (peak as u64 * 100_000_001 / 110_000_001) as u32 + 1;
        assert_eq!(h.w.cwnd, expect.min(peak), "peak {peak}");
    }

    #[test]
    fn linux_flavour_divides_by_base_rtt() {
        let params = [("linux".to_string(), 1.0)].into_iter().collect();
        let mut h = Harness::with_params("vegas", 100, &params);
        h.set_cwnd(100, 20);
        h.rounds(1);
        h.queue_delay = 5 * NS_PER_MS;
        h.rounds(3);
        // Linux: 100 * 5 / 100 = 5 > beta; the paper's formula would give 100 * 5 / 105 = 4.
        assert!(h.state("diff") >= 5.0);
    }
}
