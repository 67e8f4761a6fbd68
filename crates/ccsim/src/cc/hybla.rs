//! TCP Hybla (Caini, Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", Int. J. Satellite Communications and Networking,
//! 2004), following Linux net/ipv4/tcp_hybla.c.
//!
//! A long-RTT connection should grow as fast, in segments per second, as a
//! reference connection with RTT0 = 25 ms. With rho = RTT / RTT0 (at least 1),
//! per ACK:
//!     slow start:             cwnd += 2^rho - 1
//!     congestion avoidance:   cwnd += rho^2 / cwnd
//! i.e. rho^2 segments per RTT in congestion avoidance instead of Reno's one.
//! rho comes from the smoothed RTT and is recomputed whenever SRTT reaches a
//! new minimum. Loss response is Reno's (halve). As in Linux the window is
//! capped at 65535 segments. The increments are kept in
//! Linux's fixed point (1/128 segment, rho in 1/8), fractions carried over.
//!
//! Differs from Linux: Linux sets cwnd = rho at connection start from the
//! handshake RTT; there is no handshake here, so
//! the connection starts with the configured initial window and rho is taken
//! from the first RTT samples.

use super::common::{reno_cong_avoid, reno_min_cwnd};
use super::RecoveryPolicy;
use super::{CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window};
use crate::time::{Nanos, NS_PER_MS};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::FloatParam;
    pub const RTT0_MS: FloatParam =
        FloatParam { name: "rtt0_ms", default: 25.0, min: 1.0, max: 10_000.0, doc: "reference RTT, ms" };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const RHO: StateVar = StateVar::float("rho", "");
    pub const MIN_SRTT_MS: StateVar = StateVar::float("min_srtt_ms", "ms");
}

pub const INFO: Info = Info {
    name: "hybla",
    reference: "Caini, Firrincieli, Int. J. Satellite Commun. Netw. 2004; Linux tcp_hybla.c",
    summary: "RTT-fair growth for long paths: rho = RTT/RTT0 (25 ms); slow start +2^rho-1, congestion avoidance +rho^2/cwnd per ACK",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Float(&param::RTT0_MS)],
    state: &[state::RHO, state::MIN_SRTT_MS],
    role: Role::General,
    linux: LinuxModule::Mainline("hybla"),
    ns3: Some("ns3::TcpHybla"),
};

/// 2^(i/8) * 128 for i in 0..8: the fractional part of 2^rho.
const FRACTIONS: [u32; 8] = [128, 139, 152, 165, 181, 197, 215, 234];

pub struct Hybla {
    rtt0_ns: Nanos,
    enabled: bool,
    /// Fractions of a segment (1/128) carried between ACKs.
    cwnd_cents: u32,
    rho: u32,
    rho_3ls: u32,  // rho << 3
    rho2_7ls: u32, // rho^2 << 7
    min_srtt: Nanos,
}

impl Hybla {
    pub fn new(p: &Params) -> Hybla {
        Hybla {
            rtt0_ns: (p.float(&param::RTT0_MS) * NS_PER_MS as f64) as Nanos,
            enabled: true,
            cwnd_cents: 0,
            rho: 0,
            rho_3ls: 0,
            rho2_7ls: 0,
            min_srtt: Nanos::MAX,
        }
    }

    /// Linux hybla_recalc_param: rho from SRTT, in eighths, at least 1.
    fn recalc(&mut self, srtt: Nanos) {
        self.rho_3ls = ((8 * srtt / self.rtt0_ns.max(1)) as u32).max(8);
        self.rho = self.rho_3ls >> 3;
        self.rho2_7ls = (self.rho_3ls * self.rho_3ls) << 1;
    }
}

impl CongestionControl for Hybla {
    /// Linux 2.6 registered tcp_reno_min_cwnd (rate halving's floor).
    fn min_cwnd(&self, w: &Window) -> u32 {
        reno_min_cwnd(w)
    }

    fn init(&mut self, w: &mut Window, _c: &Conn) {
        // Linux caps the window at 65535 segments (slow start adds up to 2^16 per ACK).
        w.cwnd_clamp = w.cwnd_clamp.min(65535);
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        (w.cwnd >> 1).max(2)
    }

    fn set_state(&mut self, _w: &mut Window, _c: &Conn, new: CaState) {
        self.enabled = new == CaState::Open;
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        if c.srtt_ns > 0 && c.srtt_ns < self.min_srtt {
            self.recalc(c.srtt_ns);
            self.min_srtt = c.srtt_ns;
        }
        if !c.is_cwnd_limited {
            return;
        }
        if !self.enabled || self.rho == 0 {
            reno_cong_avoid(w, c, acked);
            return;
        }
        let rho_fractions = self.rho_3ls - (self.rho << 3);
        let slow_start = w.in_slow_start();
        let increment = if slow_start {
            // 2^rho - 1, in 1/128 segment.
            (1u32 << self.rho.min(16)) * FRACTIONS[rho_fractions as usize] - 128
        } else {
            let inc = self.rho2_7ls / w.cwnd.max(1);
            if inc < 128 {
                w.cwnd_cnt += 1;
            }
            inc
        };
        w.cwnd += increment >> 7;
        self.cwnd_cents += increment % 128;
        while self.cwnd_cents >= 128 {
            w.cwnd += 1;
            self.cwnd_cents -= 128;
            w.cwnd_cnt = 0;
        }
        // An increment that rounds to nothing: fall back to +1 per window.
        if increment == 0 && w.cwnd_cnt >= w.cwnd {
            w.cwnd += 1;
            w.cwnd_cnt = 0;
        }
        if slow_start {
            w.cwnd = w.cwnd.min(w.ssthresh);
        }
        w.cwnd = w.cwnd.min(w.cwnd_clamp);
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::RHO, if self.rho_3ls == 0 { f64::NAN } else { self.rho_3ls as f64 / 8.0 });
        out.number(
            &state::MIN_SRTT_MS,
            if self.min_srtt == Nanos::MAX { f64::NAN } else { self.min_srtt as f64 / 1e6 },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;

    #[test]
    fn congestion_avoidance_grows_rho_squared_per_rtt() {
        // 600 ms: rho = 24, +576 segments per RTT in congestion avoidance.
        let mut h = Harness::new("hybla", 600);
        h.set_cwnd(1000, 500);
        h.rounds(1);
        assert_eq!(h.state("rho"), 24.0);
        let before = h.w.cwnd;
        h.rounds(1);
        let grew = (h.w.cwnd - before) as f64;
        // +rho^2/w per ACK over w0 ACKs: w1^2 = w0^2 + 2 rho^2 w0.
        let w0 = before as f64;
        let expect = (w0 * w0 + 2.0 * 576.0 * w0).sqrt() - w0;
        assert!((grew - expect).abs() / expect < 0.05, "grew {grew} in one RTT, expected {expect:.0}");
        // At the reference RTT, rho = 1 and Hybla is Reno.
        let mut h = Harness::new("hybla", 25);
        h.set_cwnd(100, 50);
        h.rounds(2);
        let before = h.w.cwnd;
        h.rounds(3);
        // Linux's fixed point truncates rho^2/cwnd to 1/128 per ACK: a little under +1 per RTT.
        assert!((2..=3).contains(&(h.w.cwnd - before)), "{}", h.w.cwnd - before);
    }

    #[test]
    fn slow_start_increment_is_two_to_the_rho_minus_one() {
        // 100 ms: rho = 4, each ACK adds 15 segments in slow start.
        let mut h = Harness::new("hybla", 100);
        h.ack(1_000_000);
        assert_eq!(h.state("rho"), 4.0);
        let before = h.w.cwnd;
        h.ack(1_000_000);
        assert_eq!(h.w.cwnd - before, 15);
    }
}
