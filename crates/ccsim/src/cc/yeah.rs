//! YeAH-TCP, "Yet Another Highspeed TCP" (Baiocchi, Castellani, Vacirca,
//! PFLDnet 2007), following Linux net/ipv4/tcp_yeah.c and its constants.
//!
//! Two modes, chosen once per RTT from a Vegas-style estimate of this flow's
//! backlog at the bottleneck:
//!     Q = cwnd * (RTT_min_last_round - RTT_base) / RTT_min_last_round
//! - Fast mode (Q < alpha = 80 segments and queuing delay < RTT_base / phy,
//!   phy = 8): Scalable TCP's increase, +1 segment per min(cwnd, 100) ACKed.
//! - Slow mode (otherwise): Reno's +1 per RTT, and "precautionary
//!   decongestion": when Q > alpha, cwnd drops by min(Q / gamma, cwnd >> epsilon)
//!   (gamma = 1, epsilon = 1), but not below reno_count, an estimate of what a
//!   competing Reno flow would have.
//!
//! On loss, while YeAH has not been in slow mode for rho = 16 RTTs in a row
//! (no competing Reno flows), the window drops by Q only, bounded to
//! [cwnd >> delta, cwnd / 2] (delta = 3); otherwise by half, like Reno.
//! After zeta = 50 RTTs in fast mode reno_count resets to 2.

use super::common::{cong_avoid_ai, reno_min_cwnd, slow_start};
use super::vegas::VegasRtt;
use super::IntParam;
use super::RecoveryPolicy;
use super::{
    AckSample, CaEvent, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window,
};
use crate::time::Nanos;

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::IntParam;
    pub const ALPHA: IntParam = IntParam {
        name: "alpha",
        default: 80,
        min: 1,
        max: 10_000,
        doc: "queue (segments) above which YeAH slows down and decongests",
    };
    pub const GAMMA: IntParam = IntParam {
        name: "gamma",
        default: 1,
        min: 1,
        max: 64,
        doc: "fraction 1/gamma of the queue removed by decongestion",
    };
    pub const DELTA: IntParam =
        IntParam { name: "delta", default: 3, min: 1, max: 8, doc: "loss: remove at least cwnd >> delta" };
    pub const EPSILON: IntParam =
        IntParam { name: "epsilon", default: 1, min: 1, max: 8, doc: "decongestion removes at most cwnd >> epsilon" };
    pub const PHY: IntParam =
        IntParam { name: "phy", default: 8, min: 1, max: 64, doc: "slow mode when queuing delay > base RTT / phy" };
    pub const RHO: IntParam = IntParam {
        name: "rho",
        default: 16,
        min: 1,
        max: 1000,
        doc: "slow-mode RTTs in a row meaning Reno competition (loss halves)",
    };
    pub const ZETA: IntParam =
        IntParam { name: "zeta", default: 50, min: 1, max: 1000, doc: "fast-mode RTTs after which reno_count resets" };
    pub const SCALABLE_AI_CNT: IntParam = IntParam {
        name: "scalable_ai_cnt",
        default: 100,
        min: 1,
        max: 10_000,
        doc: "fast mode: +1 per min(cwnd, this) ACKed",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const MODE: StateVar = StateVar::mode("mode", &["fast", "slow"]);
    pub const QUEUE_PKTS: StateVar = StateVar::integer("queue_pkts", "segments");
    pub const BASE_RTT_MS: StateVar = StateVar::float("base_rtt_ms", "ms");
    pub const RENO_COUNT: StateVar = StateVar::integer("reno_count", "");
    pub const DOING_RENO_RTTS: StateVar = StateVar::integer("doing_reno_rtts", "");
}

pub const INFO: Info = Info {
    name: "yeah",
    reference: "Baiocchi, Castellani, Vacirca, PFLDnet 2007; Linux tcp_yeah.c",
    summary:
        "Scalable increase while the estimated queue is small, Reno with precautionary decongestion when it is not",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Int(&param::ALPHA),
        Param::Int(&param::GAMMA),
        Param::Int(&param::DELTA),
        Param::Int(&param::EPSILON),
        Param::Int(&param::PHY),
        Param::Int(&param::RHO),
        Param::Int(&param::ZETA),
        Param::Int(&param::SCALABLE_AI_CNT),
    ],
    state: &[state::MODE, state::QUEUE_PKTS, state::BASE_RTT_MS, state::RENO_COUNT, state::DOING_RENO_RTTS],
    role: Role::General,
    linux: LinuxModule::Mainline("yeah"),
    ns3: Some("ns3::TcpYeah"),
};

pub struct Yeah {
    alpha: u32,
    gamma: u32,
    delta: u32,
    epsilon: u32,
    phy: u64,
    rho: u32,
    zeta: u32,
    ai_cnt: u32,
    rtt: VegasRtt,
    // YeAH.
    last_q: u32,
    doing_reno_now: u32,
    reno_count: u32,
    fast_count: u32,
}

impl Yeah {
    pub fn new(p: &Params) -> Yeah {
        let u = |param: &IntParam| p.int(param) as u32;
        Yeah {
            alpha: u(&param::ALPHA),
            gamma: u(&param::GAMMA),
            delta: u(&param::DELTA),
            epsilon: u(&param::EPSILON),
            phy: u(&param::PHY) as u64,
            rho: u(&param::RHO),
            zeta: u(&param::ZETA),
            ai_cnt: u(&param::SCALABLE_AI_CNT),
            rtt: VegasRtt::new(),
            last_q: 0,
            doing_reno_now: 0,
            reno_count: 2,
            fast_count: 0,
        }
    }

    /// Once per RTT: estimate the queue and pick the mode.
    fn end_of_round(&mut self, w: &mut Window, c: &Conn) {
        if self.rtt.cnt_rtt > 2 {
            let (rtt, base_rtt) = (self.rtt.min_rtt, self.rtt.base_rtt);
            let queue = (w.cwnd as u64 * (rtt - base_rtt) / rtt) as u32;
            if queue > self.alpha || rtt - base_rtt > base_rtt / self.phy {
                if queue > self.alpha && w.cwnd > self.reno_count {
                    // Precautionary decongestion.
                    let reduction = (queue / self.gamma).min(w.cwnd >> self.epsilon);
                    w.cwnd = (w.cwnd - reduction).max(self.reno_count);
                    w.ssthresh = w.cwnd;
                }
                if self.reno_count <= 2 {
                    self.reno_count = (w.cwnd >> 1).max(2);
                } else {
                    self.reno_count += 1;
                }
                self.doing_reno_now = (self.doing_reno_now + 1).min(0xff_ffff);
            } else {
                self.fast_count += 1;
                if self.fast_count > self.zeta {
                    self.reno_count = 2;
                    self.fast_count = 0;
                }
                self.doing_reno_now = 0;
            }
            self.last_q = queue;
        }
        self.rtt.start_round(c);
    }
}

impl CongestionControl for Yeah {
    /// Linux 2.6 registered tcp_reno_min_cwnd (rate halving's floor).
    fn min_cwnd(&self, w: &Window) -> u32 {
        reno_min_cwnd(w)
    }

    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.rtt.restart(c);
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        let half = (w.cwnd >> 1).max(2);
        let reduction = if self.doing_reno_now < self.rho {
            // No Reno competition: remove our own queue, within [cwnd/8, cwnd/2].
            self.last_q.min(half).max(w.cwnd >> self.delta)
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        w.cwnd.saturating_sub(reduction).max(2)
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        if !c.is_cwnd_limited {
            return;
        }
        let mut acked = acked;
        if w.in_slow_start() {
            acked = slow_start(w, acked);
        }
        if acked > 0 {
            if self.doing_reno_now == 0 {
                let per = w.cwnd.min(self.ai_cnt);
                cong_avoid_ai(w, per, acked);
            } else {
                let per = w.cwnd;
                cong_avoid_ai(w, per, acked);
            }
        }
        if self.rtt.round_ended(c) {
            self.end_of_round(w, c);
        }
    }

    fn set_state(&mut self, _w: &mut Window, c: &Conn, new: CaState) {
        if new == CaState::Open {
            self.rtt.start_round(c);
        }
    }

    fn cwnd_event(&mut self, w: &mut Window, c: &Conn, event: CaEvent) {
        if event == CaEvent::TxStart {
            self.init(w, c);
        }
    }

    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, _c: &Conn, s: &AckSample) {
        if let Some(rtt) = s.rtt_ns {
            self.rtt.on_sample(rtt.max(1));
        }
    }

    fn state(&self, out: &mut StateOut) {
        out.mode(&state::MODE, (self.doing_reno_now > 0) as usize);
        out.number(&state::QUEUE_PKTS, self.last_q as f64);
        out.number(
            &state::BASE_RTT_MS,
            if self.rtt.base_rtt == Nanos::MAX { f64::NAN } else { self.rtt.base_rtt as f64 / 1e6 },
        );
        out.number(&state::RENO_COUNT, self.reno_count as f64);
        out.number(&state::DOING_RENO_RTTS, self.doing_reno_now as f64);
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::harness::Harness;
    use crate::time::NS_PER_MS;

    #[test]
    fn switches_to_slow_mode_when_the_queue_exceeds_its_threshold() {
        let mut h = Harness::new("yeah", 100);
        h.set_cwnd(500, 500);
        h.rounds(3);
        assert_eq!(h.mode("mode"), "fast", "fast mode on an empty queue");
        // Fast mode is Scalable: about +1% per RTT at 500 segments (1 per 100 ACKed).
        let before = h.w.cwnd;
        h.rounds(1);
        assert!((4..=7).contains(&(h.w.cwnd - before)), "grew {}", h.w.cwnd - before);
        // 10 ms of queue at 100 ms base RTT: Q = cwnd * 10/110 ~ 46 < 80 and
        // 10 ms < base/8 = 12.5 ms: still fast.
        h.queue_delay = 10 * NS_PER_MS;
        h.rounds(3);
        assert_eq!(h.mode("mode"), "fast");
        let q = h.state("queue_pkts");
        assert!((40.0..55.0).contains(&q), "Q {q}");
        // 20 ms: Q ~ 85 > alpha = 80: slow mode, and decongestion cuts the window by Q.
        h.queue_delay = 20 * NS_PER_MS;
        let before = h.w.cwnd;
        h.rounds(2);
        assert_eq!(h.mode("mode"), "slow");
        assert!(h.state("queue_pkts") > 80.0);
        assert!(h.w.cwnd + 60 < before, "decongestion: {} -> {}", before, h.w.cwnd);
        assert!(
            h.w.ssthresh + 60 < before && h.w.cwnd - h.w.ssthresh <= 3,
            "ssthresh {} cwnd {}",
            h.w.ssthresh,
            h.w.cwnd
        );
        // Back to an empty queue: fast again.
        h.queue_delay = 0;
        h.rounds(3);
        assert_eq!(h.mode("mode"), "fast");
    }

    #[test]
    fn loss_without_competition_removes_only_the_queue() {
        let mut h = Harness::new("yeah", 100);
        h.set_cwnd(400, 400);
        h.rounds(2);
        h.queue_delay = 5 * NS_PER_MS; // Q ~ 19 segments, fast mode
        h.rounds(3);
        let q = h.state("queue_pkts") as u32;
        let before = h.w.cwnd;
        h.loss();
        // Reduction = max(Q, cwnd/8) = cwnd/8 here (Q < cwnd/8).
        assert_eq!(h.w.cwnd, before - (q.max(before >> 3)).min(before / 2));
        assert!(h.w.cwnd > before * 3 / 4);
    }
}
