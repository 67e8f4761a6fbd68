//! TCP Westwood, the original (Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP
//! Westwood: bandwidth estimation for enhanced transport over wireless
//! links", ACM MobiCom 2001).
//!
//! Reno's window growth; on loss the window is set from a bandwidth estimate:
//! - after three duplicate ACKs: ssthresh = BWE * RTTmin / MSS (at least 2);
//!   the paper's "if (cwin > ssthresh) cwin = ssthresh" is the sender's
//!   recovery here, which ends with cwnd = ssthresh as Reno's deflation does
//!   (PRR gets there during the recovery, from below too; rate halving only
//!   comes down to it);
//! - after a timeout: ssthresh = the same, cwnd = 1.
//!
//! An ECN echo (which the paper does not consider) reduces to BWE * RTTmin
//! the same way, through the `ssthresh` hook.
//!
//! The estimate is built from every ACK: an ACK at t_k that accounts for d_k
//! bytes gives the sample b_k = d_k / (t_k - t_{k-1}), filtered by the
//! discrete-time (Tustin) version of a first-order low-pass filter with time
//! constant tau:
//!     BWE_k = a_k BWE_{k-1} + (1 - a_k) (b_k + b_{k-1}) / 2,
//!     a_k = (2 tau - dt_k) / (2 tau + dt_k).
//! Since ACKs arrive irregularly, a null sample (b = 0) is inserted for every
//! tau/m without an ACK (m = 2), so the filter keeps its Nyquist condition and
//! the estimate decays when ACKs stop. Duplicate ACKs count one segment each,
//! and the cumulative ACK that follows is reduced by what they counted (as
//! Linux tcp_westwood.c does). RTTmin is the smallest RTT sample.
//!
//! The per-ACK sample is what Westwood+ (`westwood_plus.rs`, Grieco and
//! Mascolo 2004, Linux's "westwood") replaced with one sample per RTT: when
//! ACKs arrive bunched (ACK compression, delayed ACKs), d_k / dt_k
//! overestimates the bandwidth, and this estimator shows it. The inflation
//! is the paper's filter's own: the trapezoid (b_k + b_{k-1}) / 2 weights the
//! previous sample by the current interval, so a bunched ACK's large
//! d_{k-1} / dt_{k-1} followed by a long gap dt_k (or the first null sample)
//! counts d_{k-1} dt_k / dt_{k-1} bytes. It is kept, not corrected: it is the
//! behaviour Westwood+ was introduced to remove (the tests pin the filter to
//! the paper's equation and show the inflation).
//!
//! Choices the paper leaves open: tau = 0.5 s (parameter); m = 2, the least
//! the paper allows (m >= 2); ACKs at the same instant are merged into one
//! sample; the rate of a sample uses the time since the previous real ACK,
//! the filter coefficient the time since the previous (possibly null)
//! sample. A sample is taken in `pkts_acked`, so an ACK that brings neither
//! data nor an RTT sample (with SACK, a duplicate that SACKs nothing new)
//! counts no segment. There is no Linux module for this algorithm.

use super::common::{bdp_segments, reno_cong_avoid, AckedBytes};
use super::RecoveryPolicy;
use super::{AckSample, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window};
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::FloatParam;
    pub const TAU_MS: FloatParam = FloatParam {
        name: "tau_ms",
        default: 500.0,
        min: 1.0,
        max: 100_000.0,
        doc: "time constant of the bandwidth filter, ms",
    };
    pub const M: FloatParam =
        FloatParam { name: "m", default: 2.0, min: 1.0, max: 100.0, doc: "a null sample after tau/m without ACKs" };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const BWE_BPS: StateVar = StateVar::float("bwe_bps", "bit/s");
    pub const RTT_MIN_MS: StateVar = StateVar::float("rtt_min_ms", "ms");
    pub const BW_RTTMIN_PKTS: StateVar = StateVar::integer("bw_rttmin_pkts", "segments");
}

pub const INFO: Info = Info {
    name: "westwood",
    reference: "Mascolo, Casetti, Gerla, Sanadidi, Wang, ACM MobiCom 2001",
    summary:
        "The original per-ACK Westwood, not Linux's `westwood` module (that one is Westwood+: use `westwood+`); Reno growth; on loss ssthresh = BWE * RTTmin with BWE filtered from every ACK, which bunched ACKs inflate",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Float(&param::TAU_MS), Param::Float(&param::M)],
    state: &[state::BWE_BPS, state::RTT_MIN_MS, state::BW_RTTMIN_PKTS],
    // Its bandwidth estimate overestimates under ACK compression; superseded by
    // westwood+ (Grieco, Mascolo 2004), the one Linux ships.
    role: Role::Historical,
    linux: LinuxModule::SimulatorOnly { why: "the original per-ACK Westwood (Linux's westwood is westwood+)" },
    ns3: None,
};

pub struct Westwood {
    tau_s: f64,
    null_gap_ns: Nanos,

    /// Bytes per second.
    bwe: f64,
    last_sample: f64,
    /// Time of the last (real or null) sample and of the last real ACK.
    last_sample_at: Nanos,
    last_ack_at: Nanos,
    pending_bytes: u64,
    acked: AckedBytes,
    started: bool,
    rtt_min: Nanos,
    mss: u32,
}

impl Westwood {
    pub fn new(p: &Params) -> Westwood {
        let tau_ns = p.float(&param::TAU_MS) * NS_PER_MS as f64;
        Westwood {
            tau_s: tau_ns / NS_PER_SEC as f64,
            null_gap_ns: (tau_ns / p.float(&param::M)) as Nanos,
            bwe: 0.0,
            last_sample: 0.0,
            last_sample_at: 0,
            last_ack_at: 0,
            pending_bytes: 0,
            acked: AckedBytes::default(),
            started: false,
            rtt_min: 0,
            mss: p.mss(),
        }
    }

    fn filter(&mut self, sample: f64, dt_ns: Nanos) {
        let dt = dt_ns as f64 / NS_PER_SEC as f64;
        let a = (2.0 * self.tau_s - dt) / (2.0 * self.tau_s + dt);
        self.bwe = a * self.bwe + (1.0 - a) * (sample + self.last_sample) / 2.0;
        self.last_sample = sample;
    }

    fn bw_rttmin(&self) -> u32 {
        bdp_segments(self.bwe, self.rtt_min, self.mss)
    }
}

impl CongestionControl for Westwood {
    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.last_sample_at = c.now;
        self.last_ack_at = c.now;
        self.acked.reset(c.snd_una);
        self.mss = c.mss;
        self.started = true;
    }

    fn ssthresh(&mut self, _w: &Window, _c: &Conn) -> u32 {
        self.bw_rttmin()
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        reno_cong_avoid(w, c, acked)
    }

    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, c: &Conn, s: &AckSample) {
        if let Some(rtt) = s.rtt_ns {
            if rtt > 0 && (self.rtt_min == 0 || rtt < self.rtt_min) {
                self.rtt_min = rtt;
            }
        }
        self.pending_bytes += self.acked.count(c);
        if c.now == self.last_ack_at {
            return; // merged with the next ACK
        }
        // Null samples for every tau/m without ACKs.
        while c.now - self.last_sample_at > self.null_gap_ns {
            self.filter(0.0, self.null_gap_ns);
            self.last_sample_at += self.null_gap_ns;
        }
        let rate = self.pending_bytes as f64 * NS_PER_SEC as f64 / (c.now - self.last_ack_at) as f64;
        self.filter(rate, c.now - self.last_sample_at);
        self.pending_bytes = 0;
        self.last_sample_at = c.now;
        self.last_ack_at = c.now;
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::BWE_BPS, self.bwe * 8.0);
        out.number(&state::RTT_MIN_MS, if self.rtt_min == 0 { f64::NAN } else { self.rtt_min as f64 / 1e6 });
        out.number(&state::BW_RTTMIN_PKTS, self.bw_rttmin() as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;

    #[test]
    fn per_ack_estimate_tracks_evenly_spaced_acks() {
        // 100 segments per 100 ms: ACKs 1 ms apart, 1448 bytes each.
        let mut h = Harness::new("westwood", 100);
        h.set_cwnd(100, 50);
        h.w.cwnd_clamp = 100;
        h.rounds(30);
        let expect_bps = 1000.0 * 1448.0 * 8.0;
        let bwe = h.state("bwe_bps");
        assert!((bwe - expect_bps).abs() / expect_bps < 0.02, "bwe {bwe} vs {expect_bps}");
        h.loss();
        assert!(h.w.ssthresh >= 98, "ssthresh {}", h.w.ssthresh);
    }

    /// The paper's equation (3) with its virtual null samples, computed here
    /// independently over (interval since the previous sample, sample) pairs.
    fn paper_filter(samples: &[(f64, f64)], tau_s: f64) -> f64 {
        let (mut bwe, mut previous) = (0.0, 0.0);
        for &(dt_s, b) in samples {
            let alpha = (2.0 * tau_s - dt_s) / (2.0 * tau_s + dt_s);
            bwe = alpha * bwe + (1.0 - alpha) * (b + previous) / 2.0;
            previous = b;
        }
        bwe
    }

    #[test]
    fn estimate_is_the_papers_filter_with_null_samples_after_tau_over_m() {
        // Three ACKs 10 ms apart, then 600 ms of silence (two null samples,
        // 250 ms apart, tau = 500 ms, m = 2), then one ACK: b_k = d_k over the
        // time since the previous real ACK, alpha_k over the time since the
        // previous (null) sample.
        let mut h = Harness::new("westwood", 100);
        h.set_cwnd(100, 50);
        for _ in 0..3 {
            h.ack(10_000_000);
        }
        h.ack(600_000_000);
        let d = 1448.0;
        let expect_bytes_per_s = paper_filter(
            &[(0.01, d / 0.01), (0.01, d / 0.01), (0.01, d / 0.01), (0.25, 0.0), (0.25, 0.0), (0.1, d / 0.6)],
            0.5,
        );
        let bwe = h.state("bwe_bps") / 8.0;
        assert!((bwe - expect_bytes_per_s).abs() < 1e-9 * expect_bytes_per_s, "{bwe} vs {expect_bytes_per_s}");
    }

    #[test]
    fn estimate_decays_with_null_samples_when_acks_stop() {
        let mut h = Harness::new("westwood", 100);
        h.set_cwnd(100, 50);
        h.w.cwnd_clamp = 100;
        h.rounds(30);
        let before = h.state("bwe_bps");
        // Two seconds of silence, then one ACK: eight null samples have pulled the estimate down.
        h.ack(2_000_000_000);
        let after = h.state("bwe_bps");
        assert!(after < 0.3 * before, "{after} vs {before}");
    }

    #[test]
    fn bunched_acks_inflate_the_per_ack_estimate_but_not_westwood_plus() {
        // The same 1000 segments/s, but ACKs arrive in bursts of 10 at 0.1 ms
        // spacing every 10 ms (ACK compression).
        let run = |name: &str| {
            let mut h = Harness::new(name, 100);
            h.set_cwnd(100, 50);
            h.w.cwnd_clamp = 100;
            for _ in 0..300 {
                h.ack(9_100_000);
                for _ in 0..9 {
                    h.ack(100_000);
                }
            }
            h.state("bwe_bps") / (1000.0 * 1448.0 * 8.0)
        };
        let westwood = run("westwood");
        let plus = run("westwood+");
        assert!(westwood > 1.5, "westwood estimate / true rate = {westwood}");
        assert!((plus - 1.0).abs() < 0.05, "westwood+ estimate / true rate = {plus}");
    }
}
