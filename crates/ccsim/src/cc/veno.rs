//! TCP Veno (Fu, Liew, "TCP Veno: TCP enhancement for transmission over
//! wireless access networks", IEEE JSAC 2003), following Linux
//! net/ipv4/tcp_veno.c.
//!
//! Reno, plus a Vegas-style estimate of this flow's backlog at the bottleneck,
//!     N = cwnd (RTT - baseRTT) / RTT     (= (Expected - Actual) * baseRTT),
//! with baseRTT the smallest RTT sample and RTT the smallest sample since the
//! previous ACK. N tells a random loss from a congestion loss:
//! - on loss: N < beta (3 segments: the queue is nearly empty, the loss was
//!   random): ssthresh = cwnd * 4/5; else (congestion): cwnd / 2;
//! - congestion avoidance: N < beta: +1 segment per RTT (Reno); N >= beta:
//!   +1 every other RTT, since the link is already full.
//!
//! Fewer than 3 RTT samples since the connection (re)started: plain Reno.
//! N is kept in half segments as Linux does (beta = 3 << 1).
//!
//! Differs from Linux: none intended. (Linux resets the round minimum on
//! every ACK and never resets the sample count; both kept. So an ACK with no
//! RTT sample since the reset, e.g. the first one in Open after a recovery,
//! sees the whole window as backlog, as in Linux.)

use super::common::{cong_avoid_ai, reno_cong_avoid, slow_start};
use super::RecoveryPolicy;
use super::{
    AckSample, CaEvent, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window,
};
use crate::time::Nanos;

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::FloatParam;
    pub const BETA: FloatParam = FloatParam {
        name: "beta",
        default: 3.0,
        min: 0.0,
        max: 1000.0,
        doc: "backlog (segments) separating random from congestion loss",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const BACKLOG: StateVar = StateVar::float("backlog", "");
    pub const BASE_RTT_MS: StateVar = StateVar::float("base_rtt_ms", "ms");
    pub const CONGESTIVE: StateVar = StateVar::mode("congestive", &["random", "congestive"]);
}

pub const INFO: Info = Info {
    name: "veno",
    reference: "Fu, Liew, IEEE JSAC 2003; Linux tcp_veno.c",
    summary: "Reno with a backlog estimate N: random loss (N < 3) cuts to 4/5, congestion halves; +1 every other RTT when N >= 3",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Float(&param::BETA)],
    state: &[state::BACKLOG, state::BASE_RTT_MS, state::CONGESTIVE],
    role: Role::General,
    linux: LinuxModule::Mainline("veno"),
    ns3: Some("ns3::TcpVeno"),
};

/// Veno variables are kept with one fractional bit (Linux V_PARAM_SHIFT).
const V_PARAM_SHIFT: u32 = 1;

pub struct Veno {
    beta: u64, // << 1
    doing_veno_now: bool,
    cnt_rtt: u32,
    min_rtt: Nanos,
    base_rtt: Nanos,
    inc: bool,
    diff: u64, // << 1
}

impl Veno {
    pub fn new(p: &Params) -> Veno {
        Veno {
            beta: (p.float(&param::BETA) * (1 << V_PARAM_SHIFT) as f64).round() as u64,
            doing_veno_now: true,
            cnt_rtt: 0,
            min_rtt: Nanos::MAX,
            base_rtt: Nanos::MAX,
            inc: true,
            diff: 0,
        }
    }
}

impl CongestionControl for Veno {
    fn init(&mut self, _w: &mut Window, _c: &Conn) {
        self.base_rtt = Nanos::MAX;
        self.inc = true;
        self.doing_veno_now = true;
        self.min_rtt = Nanos::MAX;
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        if self.diff < self.beta {
            // Random loss: the queue was (nearly) empty.
            (w.cwnd * 4 / 5).max(2)
        } else {
            (w.cwnd >> 1).max(2)
        }
    }

    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, _c: &Conn, s: &AckSample) {
        let Some(rtt) = s.rtt_ns else { return };
        let rtt = rtt + 1;
        self.base_rtt = self.base_rtt.min(rtt);
        self.min_rtt = self.min_rtt.min(rtt);
        self.cnt_rtt += 1;
    }

    fn set_state(&mut self, _w: &mut Window, _c: &Conn, new: CaState) {
        self.doing_veno_now = new == CaState::Open;
        if self.doing_veno_now {
            self.min_rtt = Nanos::MAX;
        }
    }

    fn cwnd_event(&mut self, w: &mut Window, c: &Conn, event: CaEvent) {
        if event == CaEvent::TxStart {
            self.init(w, c);
        }
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        if !self.doing_veno_now {
            reno_cong_avoid(w, c, acked);
            return;
        }
        if !c.is_cwnd_limited {
            return;
        }
        if self.cnt_rtt <= 2 {
            reno_cong_avoid(w, c, acked);
        } else {
            // No sample since the last ACK (min_rtt still "infinite", as on
            // the first ACK after veno_enable): the target is ~0 and the
            // whole window counts as backlog, as in Linux.
            let cwnd = w.cwnd as u64;
            let target = ((cwnd as u128 * self.base_rtt as u128) << V_PARAM_SHIFT) / self.min_rtt as u128;
            self.diff = (cwnd << V_PARAM_SHIFT).saturating_sub(target as u64);
            let mut acked = acked;
            if w.in_slow_start() {
                acked = slow_start(w, acked);
            }
            if acked > 0 {
                if self.diff < self.beta {
                    // Not congested: Reno's +1 per RTT.
                    let cwnd = w.cwnd;
                    cong_avoid_ai(w, cwnd, acked);
                } else if w.cwnd_cnt >= w.cwnd {
                    // Congested: +1 every other RTT.
                    if self.inc && w.cwnd < w.cwnd_clamp {
                        w.cwnd += 1;
                        self.inc = false;
                    } else {
                        self.inc = true;
                    }
                    w.cwnd_cnt = 0;
                } else {
                    w.cwnd_cnt += acked;
                }
            }
            w.cwnd = w.cwnd.clamp(2, w.cwnd_clamp);
        }
        self.min_rtt = Nanos::MAX;
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::BACKLOG, self.diff as f64 / (1 << V_PARAM_SHIFT) as f64);
        out.number(
            &state::BASE_RTT_MS,
            if self.base_rtt == Nanos::MAX { f64::NAN } else { self.base_rtt as f64 / 1e6 },
        );
        out.mode(&state::CONGESTIVE, (self.diff >= self.beta) as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use crate::cc::CaState;
    use crate::time::NS_PER_MS;

    /// Veno in congestion avoidance after three rounds without a queue: no backlog.
    fn with_an_empty_queue() -> Harness {
        let mut h = Harness::new("veno", 100);
        h.set_cwnd(100, 50);
        h.rounds(3);
        assert!(h.state("backlog") < 3.0);
        h
    }

    #[test]
    fn random_loss_with_an_empty_queue_cuts_only_a_fifth() {
        let mut h = with_an_empty_queue();
        let cwnd = h.w.cwnd;
        h.loss();
        assert_eq!(h.w.cwnd, cwnd * 4 / 5);
    }

    /// Linux tcp_veno_cong_avoid computes `target_cwnd = cwnd * basertt << 1 /
    /// minrtt` on every ACK once cntrtt > 2, even when minrtt is still
    /// 0x7fffffff because no sample came since it was reset: on the ACK that
    /// returns to Open, tcp_veno_state -> veno_enable resets minrtt after
    /// tcp_veno_pkts_acked took the sample, so diff is the whole window
    /// (congestive) and a loss right then halves.
    #[test]
    fn without_a_fresh_sample_the_whole_window_is_backlog() {
        let mut h = with_an_empty_queue();
        h.timeout();
        let mut before = h.w.cwnd;
        while h.state == CaState::Loss {
            before = h.w.cwnd;
            h.ack(NS_PER_MS);
        }
        // diff is taken on the window before this ACK grows it.
        assert_eq!(h.state("backlog"), before as f64);
        assert_eq!(h.mode("congestive"), "congestive");
        let cwnd = h.w.cwnd;
        h.loss();
        assert_eq!(h.w.cwnd, cwnd / 2);
        // The next ACK brings a sample: an empty queue again.
        h.ack(NS_PER_MS);
        assert!(h.state("backlog") < 3.0);
    }

    #[test]
    fn congestion_loss_halves_and_growth_slows_when_backlogged() {
        let mut h = Harness::new("veno", 100);
        h.set_cwnd(100, 50);
        h.rounds(2);
        // 10 ms of queue: N = 100 * 10 / 110 = 9 segments.
        h.queue_delay = 10 * NS_PER_MS;
        h.rounds(1);
        assert!(h.state("backlog") >= 3.0);
        let before = h.w.cwnd;
        h.rounds(8);
        let grew = h.w.cwnd - before;
        assert!((3..=5).contains(&grew), "+1 every other RTT: grew {grew} in 8 RTTs");
        let cwnd = h.w.cwnd;
        h.loss();
        assert_eq!(h.w.cwnd, cwnd / 2);
    }
}
