//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide
//! area networks", CCR 2003), following Linux net/ipv4/tcp_scalable.c.
//!
//! Multiplicative increase, multiplicative decrease: in congestion avoidance
//! every ACKed segment adds a = 0.01 segments, so the window grows by 1% per
//! RTT whatever its size, and a loss cuts it by b = 1/8:
//!     cwnd += 1 per min(cwnd, ai_cnt) ACKed segments   (ai_cnt = 1/a = 100)
//!     ssthresh = cwnd - cwnd / 8
//! Below `ai_cnt` segments the rule falls back to Reno's +1 per RTT.
//!
//! Linux used ai_cnt = 50 while it counted ACKs rather than segments (to
//! make up for delayed ACKs); since it counts ACKed segments (appropriate
//! byte counting) it uses the paper's 100, and so do we.

use super::common::{cong_avoid_ai, reno_min_cwnd, slow_start_if_limited};
use super::RecoveryPolicy;
use super::{CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::IntParam;
    pub const AI_CNT: IntParam = IntParam {
        name: "ai_cnt",
        default: 100,
        min: 1,
        max: 10_000,
        doc: "ACKed segments per +1 segment at large windows (1/a)",
    };
    pub const MD_SHIFT: IntParam = IntParam {
        name: "md_shift",
        default: 3,
        min: 1,
        max: 8,
        doc: "decrease by cwnd >> md_shift on loss (3: b = 1/8)",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const AI_CNT: StateVar = StateVar::integer("ai_cnt", "");
}

pub const INFO: Info = Info {
    name: "scalable",
    reference: "Kelly, CCR 2003; Linux tcp_scalable.c",
    summary: "MIMD: +1% of cwnd per RTT (one segment per 100 ACKed), cut by 1/8 on loss",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Int(&param::AI_CNT), Param::Int(&param::MD_SHIFT)],
    state: &[state::AI_CNT],
    role: Role::General,
    linux: LinuxModule::Mainline("scalable"),
    ns3: Some("ns3::TcpScalable"),
};

pub struct Scalable {
    ai_cnt: u32,
    md_shift: u32,
}

impl Scalable {
    pub fn new(p: &Params) -> Scalable {
        Scalable { ai_cnt: p.int(&param::AI_CNT) as u32, md_shift: p.int(&param::MD_SHIFT) as u32 }
    }
}

impl CongestionControl for Scalable {
    /// Linux 2.6 registered tcp_reno_min_cwnd (rate halving's floor).
    fn min_cwnd(&self, w: &Window) -> u32 {
        reno_min_cwnd(w)
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        (w.cwnd - (w.cwnd >> self.md_shift)).max(2)
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        let acked = slow_start_if_limited(w, c, acked);
        if acked == 0 {
            return;
        }
        let per = w.cwnd.min(self.ai_cnt);
        cong_avoid_ai(w, per, acked);
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::AI_CNT, self.ai_cnt as f64);
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::harness::Harness;

    #[test]
    fn increase_per_rtt_is_proportional_to_the_window() {
        // One RTT at 1000 segments adds 10; at 2000 adds 20: 1% per RTT.
        for cwnd in [1000u32, 2000, 4000] {
            let mut h = Harness::new("scalable", 100);
            h.set_cwnd(cwnd, cwnd);
            h.rounds(1);
            let grown = h.w.cwnd - cwnd;
            assert!((grown as f64 - cwnd as f64 / 100.0).abs() <= 1.0, "cwnd {cwnd} grew {grown}");
        }
        // Over 20 RTTs the window compounds: 1.01^20 = 1.22.
        let mut h = Harness::new("scalable", 100);
        h.set_cwnd(1000, 1000);
        h.rounds(20);
        let ratio = h.w.cwnd as f64 / 1000.0;
        assert!((1.20..1.25).contains(&ratio), "{ratio}");
    }

    #[test]
    fn small_windows_grow_like_reno_and_loss_cuts_an_eighth() {
        let mut h = Harness::new("scalable", 100);
        h.set_cwnd(40, 40);
        h.rounds(1);
        assert_eq!(h.w.cwnd, 41);
        h.set_cwnd(800, 800);
        h.loss();
        assert_eq!(h.w.cwnd, 700);
    }
}
