//! HighSpeed TCP (Floyd, RFC 3649), following Linux net/ipv4/tcp_highspeed.c.
//!
//! Above Low_Window = 38 segments the AIMD parameters depend on the window:
//!     cwnd += a(w) / cwnd per ACKed segment,   on loss cwnd *= 1 - b(w),
//! with b(w) falling logarithmically from 0.5 at w = 38 to 0.1 at w = 83000
//! and a(w) = w^2 p(w) 2 b(w) / (2 - b(w)), p(w) = 0.078 / w^1.2, so that the
//! response function is cwnd = 0.12 / p^0.835. Like Linux we use the table of
//! RFC 3649 Appendix B: row i holds the window bound and b(w) (scaled by 256),
//! and a(w) = i + 1. Below 38 segments the algorithm is Reno.
//!
//! As in Linux, congestion avoidance counts ACKs, not ACKed segments: an ACK
//! adds a(w) / cwnd however many segments it covers (so with delayed ACKs a
//! window grows by about a(w) / 2), and at most one segment.

use super::common::{reno_min_cwnd, slow_start};
use super::RecoveryPolicy;
use super::{CongestionControl, Conn, Info, LinuxModule, Params, Role, StateOut, Window};

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const A: StateVar = StateVar::integer("a", "");
    pub const B: StateVar = StateVar::float("b", "");
}

pub const INFO: Info = Info {
    name: "highspeed",
    reference: "RFC 3649 (Floyd 2003), Appendix B table; Linux tcp_highspeed.c",
    summary: "AIMD whose increase a(w) grows and decrease b(w) shrinks with the window above 38 segments",
    recovery: RecoveryPolicy::NewReno,
    params: &[],
    state: &[state::A, state::B],
    role: Role::General,
    linux: LinuxModule::Mainline("highspeed"),
    ns3: Some("ns3::TcpHighSpeed"),
};

/// RFC 3649 Appendix B: (window upper bound, b(w) * 256); a(w) = row + 1.
const AIMD: [(u32, u32); 72] = [
    (38, 128),
    (118, 112),
    (221, 104),
    (347, 98),
    (495, 93),
    (663, 89),
    (851, 86),
    (1058, 83),
    (1284, 81),
    (1529, 78),
    (1793, 76),
    (2076, 74),
    (2378, 72),
    (2699, 71),
    (3039, 69),
    (3399, 68),
    (3778, 66),
    (4177, 65),
    (4596, 64),
    (5036, 62),
    (5497, 61),
    (5979, 60),
    (6483, 59),
    (7009, 58),
    (7558, 57),
    (8130, 56),
    (8726, 55),
    (9346, 54),
    (9991, 53),
    (10661, 52),
    (11358, 52),
    (12082, 51),
    (12834, 50),
    (13614, 49),
    (14424, 48),
    (15265, 48),
    (16137, 47),
    (17042, 46),
    (17981, 45),
    (18955, 45),
    (19965, 44),
    (21013, 43),
    (22101, 43),
    (23230, 42),
    (24402, 41),
    (25618, 41),
    (26881, 40),
    (28193, 39),
    (29557, 39),
    (30975, 38),
    (32450, 38),
    (33986, 37),
    (35586, 36),
    (37253, 36),
    (38992, 35),
    (40808, 35),
    (42707, 34),
    (44694, 33),
    (46776, 33),
    (48961, 32),
    (51258, 32),
    (53677, 31),
    (56230, 30),
    (58932, 30),
    (61799, 29),
    (64851, 28),
    (68113, 28),
    (71617, 27),
    (75401, 26),
    (79517, 26),
    (84035, 25),
    (89053, 24),
];

pub struct HighSpeed {
    /// Row of the table for the current window: AIMD[ai-1].0 < cwnd <= AIMD[ai].0.
    ai: usize,
}

impl HighSpeed {
    pub fn new(_p: &Params) -> HighSpeed {
        HighSpeed { ai: 0 }
    }

    fn update_row(&mut self, cwnd: u32) {
        // Beyond the table the last row applies.
        let last = AIMD.len() - 1;
        while cwnd > AIMD[self.ai].0 && self.ai < last {
            self.ai += 1;
        }
        while self.ai > 0 && cwnd <= AIMD[self.ai - 1].0 {
            self.ai -= 1;
        }
    }
}

impl CongestionControl for HighSpeed {
    /// Linux 2.6 registered tcp_reno_min_cwnd (rate halving's floor).
    fn min_cwnd(&self, w: &Window) -> u32 {
        reno_min_cwnd(w)
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        let cut = ((w.cwnd as u64 * AIMD[self.ai].1 as u64) >> 8) as u32;
        (w.cwnd - cut).max(2)
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        if !c.is_cwnd_limited {
            return;
        }
        if w.in_slow_start() {
            slow_start(w, acked);
            return;
        }
        self.update_row(w.cwnd);
        // cwnd += a(w) / cwnd per ACK, whatever it covers, and at most one
        // segment per ACK (Linux hstcp_cong_avoid counts ACKs, not segments).
        if w.cwnd < w.cwnd_clamp {
            w.cwnd_cnt += self.ai as u32 + 1;
            if w.cwnd_cnt >= w.cwnd {
                w.cwnd_cnt -= w.cwnd;
                w.cwnd += 1;
            }
        }
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::A, (self.ai + 1) as f64);
        out.number(&state::B, AIMD[self.ai].1 as f64 / 256.0);
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::harness::Harness;

    /// RFC 3649 section 5: a(w) and b(w) from the response function.
    fn rfc_ab(w: f64) -> (f64, f64) {
        let b = (0.1 - 0.5) * (w.ln() - 38f64.ln()) / (83000f64.ln() - 38f64.ln()) + 0.5;
        let p = 0.078 / w.powf(1.2);
        (w * w * p * 2.0 * b / (2.0 - b), b)
    }

    #[test]
    fn increase_and_decrease_follow_rfc_3649_at_large_windows() {
        for cwnd in [1000u32, 5000, 20000, 60000] {
            let (a, b) = rfc_ab(cwnd as f64);
            let mut h = Harness::new("highspeed", 100);
            h.set_cwnd(cwnd, cwnd);
            h.rounds(1);
            let grown = (h.w.cwnd - cwnd) as f64;
            assert!((grown - a).abs() <= 0.15 * a + 1.0, "w {cwnd}: grew {grown}, RFC a(w) = {a:.1}");
            assert!((h.state("a") - a).abs() <= 0.15 * a + 1.0, "table a(w) {} vs RFC {a:.1}", h.state("a"));
            let before = h.w.cwnd;
            h.loss();
            let cut = 1.0 - h.w.cwnd as f64 / before as f64;
            assert!((cut - b).abs() < 0.02, "w {cwnd}: cut {cut:.3}, RFC b(w) = {b:.3}");
        }
    }

    /// Linux hstcp_cong_avoid adds `ca->ai + 1` to snd_cwnd_cnt once per call
    /// and ignores `acked`, then `if (snd_cwnd_cnt >= snd_cwnd)` adds one
    /// segment: a(w) / cwnd per ACK, not per ACKed segment. With delayed ACKs
    /// (two segments each) a window of data grows cwnd by about a(w) / 2.
    #[test]
    fn increase_is_per_ack_not_per_acked_segment() {
        let mut h = Harness::new("highspeed", 100);
        h.set_cwnd(1000, 1000);
        h.rounds(1); // single-segment ACKs: about a(1000) = 8 segments
        assert_eq!(h.state("a"), 8.0);
        let start = h.w.cwnd;
        h.w.cwnd_cnt = 0;
        // One window in delayed ACKs of two segments: start / 2 ACKs, 8 counted
        // each, so about 4 segments (counting each segment would give 7 or 8).
        for _ in 0..start / 2 {
            let c = h.conn();
            h.alg.cong_avoid(&mut h.w, |_| c, 2);
        }
        let grown = h.w.cwnd - start;
        assert!((3..=4).contains(&grown), "grew {grown} in one window of delayed ACKs");
    }

    #[test]
    fn below_low_window_it_is_reno() {
        let mut h = Harness::new("highspeed", 100);
        h.set_cwnd(30, 30);
        h.rounds(2);
        assert_eq!(h.w.cwnd, 32);
        h.loss();
        assert_eq!(h.w.cwnd, 16);
    }
}
