//! TCP-LP, low priority (Kuzmanovic and Knightly, "TCP-LP: a distributed
//! algorithm for low priority data transfer", INFOCOM 2003), following Linux
//! net/ipv4/tcp_lp.c.
//!
//! TCP-LP uses only the capacity that other (fair-share) flows leave unused.
//! It watches the one-way delay of its data and infers congestion early,
//! before losses, when the smoothed one-way delay exceeds
//!     owd_min + 0.15 * (owd_max - owd_min).
//! On such an early congestion indication it halves cwnd and starts an
//! inference period of 3 RTTs in which it does not grow; a second indication
//! inside the inference period sets cwnd to 1. Outside these it is Reno
//! (losses too). As in Linux, after each indication the delay range restarts
//! from the current smoothed delay (min = sowd, max = 2 sowd), and a new
//! maximum is only taken once it is seen twice (owd_max_rsv), forgetting spikes.
//!
//! Two readings, chosen by the parameter `linux`:
//! - `linux = 1`, Linux tcp_lp.c: the one-way delay of every ACK
//!   with an RTT sample is TSval - TSecr of the ACK, every ACK is tested
//!   against the threshold, and an indication leaves ssthresh alone, so a
//!   flow that has not lost yet slow-starts again into the next indication.
//!   TSecr echoes the *oldest* segment the ACK covers
//!   (RFC 7323), so a delayed ACK that pairs two segments sent apart, or one
//!   held by the receiver's timer, reads as queueing: on short paths the flow
//!   then stays near cwnd 1 to 3, in Linux's module as here (ns-3's port of
//!   it gets 11% of an empty 10 Mbit/s, 20 ms path; see bench/crosscheck.py).
//! - `linux = 0` (default), the paper's intent: the delay sample is that of the
//!   *newest* segment the ACK covers, TSval - (now - its RTT), taken only
//!   from ACKs that cover two or more segments (a receiver's delayed-ACK
//!   timer only ever holds one), and only an ACK with a fresh sample is
//!   tested; the first sample, whose min equals its max, opens the range
//!   (min = sowd, max = 2 sowd) without the halving Linux applies to it; an
//!   indication also sets ssthresh to half the window, so growth after the
//!   inference period is additive (after a drop to one segment, as after a
//!   timeout: slow start up to it).
//!
//! Both ends share the simulator's clock, so there is no clock offset or
//! skew to estimate (Linux's remote-HZ estimator is not needed) and delays
//! are in nanoseconds rather than Linux's milliseconds.

use super::common::{reno_cong_avoid, reno_min_cwnd, reno_ssthresh};
use super::RecoveryPolicy;
use super::{AckSample, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window};
use crate::time::Nanos;

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{BoolParam, FloatParam, IntParam};
    pub const THRESHOLD: FloatParam = FloatParam {
        name: "threshold",
        default: 0.15,
        min: 0.01,
        max: 1.0,
        doc: "early congestion when owd > min + threshold * (max - min)",
    };
    pub const INFERENCE_RTTS: IntParam = IntParam {
        name: "inference_rtts",
        default: 3,
        min: 0,
        max: 100,
        doc: "RTTs after an indication without growth (second one: cwnd 1)",
    };
    pub const LINUX: BoolParam = BoolParam { name: "linux", default: false, doc: "1: Linux's delay (ACK TSval - TSecr) and ssthresh kept on an indication; 0: delay of the newest segment, additive increase after" };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const OWD_MS: StateVar = StateVar::float("owd_ms", "ms");
    pub const OWD_MIN_MS: StateVar = StateVar::float("owd_min_ms", "ms");
    pub const OWD_MAX_MS: StateVar = StateVar::float("owd_max_ms", "ms");
    pub const THRESHOLD_MS: StateVar = StateVar::float("threshold_ms", "ms");
    pub const PHASE: StateVar = StateVar::mode("phase", &["normal", "inference"]);
}

pub const INFO: Info = Info {
    name: "lp",
    reference: "Kuzmanovic & Knightly, INFOCOM 2003; Linux tcp_lp.c",
    summary: "low priority: Reno that halves (or drops to 1) when the one-way delay rises 15% into its observed range",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Float(&param::THRESHOLD), Param::Int(&param::INFERENCE_RTTS), Param::Bool(&param::LINUX)],
    state: &[state::OWD_MS, state::OWD_MIN_MS, state::OWD_MAX_MS, state::THRESHOLD_MS, state::PHASE],
    role: Role::Scavenger,
    linux: LinuxModule::Mainline("lp"),
    ns3: Some("ns3::TcpLp"),
};

pub struct Lp {
    threshold: f64,
    inference_rtts: u64,
    linux: bool,
    /// Smoothed one-way delay, 8 times (Linux sowd << 3).
    sowd8: Nanos,
    owd_min: Nanos,
    owd_max: Nanos,
    owd_max_rsv: Nanos,
    last_drop: Option<Nanos>,
    inference: Nanos,
    within_inference: bool,
}

impl Lp {
    pub fn new(p: &Params) -> Lp {
        Lp {
            threshold: p.float(&param::THRESHOLD),
            inference_rtts: p.int(&param::INFERENCE_RTTS) as u64,
            linux: p.flag(&param::LINUX),
            sowd8: 0,
            owd_min: Nanos::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            last_drop: None,
            inference: 0,
            within_inference: false,
        }
    }

    fn threshold_ns(&self) -> Nanos {
        let range = self.owd_max.saturating_sub(self.owd_min);
        self.owd_min.saturating_add((self.threshold * range as f64) as Nanos)
    }

    /// This ACK's one-way delay sample, if it gives one (see the file comment).
    fn one_way_delay(&self, c: &Conn, s: &AckSample) -> Option<Nanos> {
        let rtt = s.rtt_ns?;
        if s.rcv_tsval == 0 {
            return None;
        }
        let owd = if self.linux {
            s.one_way_delay_ns()?
        } else {
            if s.acked < 2 {
                return None;
            }
            let sent = c.now.checked_sub(rtt)?;
            s.rcv_tsval.checked_sub(sent)?
        };
        (owd > 0).then_some(owd)
    }

    /// Linux tcp_lp_rtt_sample: min, max (spike-filtered) and smoothed OWD.
    fn owd_sample(&mut self, owd: Nanos) {
        self.owd_min = self.owd_min.min(owd);
        if owd > self.owd_max {
            if owd > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 { owd } else { self.owd_max_rsv };
                self.owd_max_rsv = owd;
            } else {
                self.owd_max = owd;
            }
        }
        if self.sowd8 != 0 {
            self.sowd8 = self.sowd8 - (self.sowd8 >> 3) + owd; // 7/8 old + 1/8 new
        } else {
            self.sowd8 = owd << 3;
        }
    }
}

impl CongestionControl for Lp {
    /// Linux 2.6 registered tcp_reno_min_cwnd (rate halving's floor).
    fn min_cwnd(&self, w: &Window) -> u32 {
        reno_min_cwnd(w)
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        reno_ssthresh(w)
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        if !self.within_inference {
            reno_cong_avoid(w, c, acked);
        }
    }

    /// Linux tcp_lp_pkts_acked.
    #[inline]
    fn pkts_acked(&mut self, w: &mut Window, c: &Conn, s: &AckSample) {
        let sampled = self.one_way_delay(c, s).map(|owd| self.owd_sample(owd)).is_some();
        // The inference period: 3 RTTs (measured through the echoed timestamp).
        if s.rcv_tsecr > 0 && c.now > s.rcv_tsecr {
            self.inference = self.inference_rtts * (c.now - s.rcv_tsecr);
        }
        self.within_inference = self.last_drop.is_some_and(|t| c.now - t < self.inference);
        if self.sowd8 == 0 {
            return;
        }
        let sowd = self.sowd8 >> 3;
        // Linux also infers congestion from an empty range (the first sample
        // has min = max) and so halves the initial window at once; what that
        // leaves is a usable range, min = sowd and max = 2 sowd (queueing up
        // to 15% of the path's delay allowed). The paper reading opens the
        // range the same way without the cut: with additive increase after
        // it, a cut at the start would take minutes to recover on long paths.
        if !self.linux && self.owd_max <= self.owd_min {
            self.owd_min = sowd;
            self.owd_max = self.sowd8 >> 2;
            self.owd_max_rsv = self.sowd8 >> 2;
            return;
        }
        // Linux tests every ACK; the paper reading only infers congestion
        // from a fresh sample (at one segment in flight it takes none, and
        // would otherwise keep re-reading the last delay as congestion).
        if sowd < self.threshold_ns() || (!self.linux && !sampled) {
            return;
        }
        // Early congestion indication. Restart the delay range from here (as
        // Linux does): while the queue built before the cut drains, the
        // smoothed delay stays high, and against the old range it would
        // read as a second indication within the inference period.
        self.owd_min = sowd;
        self.owd_max = self.sowd8 >> 2;
        self.owd_max_rsv = self.sowd8 >> 2;
        if !self.linux && w.cwnd > 1 {
            // The paper's reading: a halving is followed by additive
            // increase; the drop to one segment is treated as a timeout is,
            // slow start up to half the window it leaves. At one segment
            // already there is nothing left to learn.
            w.ssthresh = (w.cwnd >> 1).max(2);
        }
        w.cwnd = if self.within_inference { 1 } else { (w.cwnd >> 1).max(1) };
        if !self.linux && w.cwnd == 1 {
            // At one segment the paper reading takes no samples (single-
            // segment ACKs), so the smoothed delay would stay at the queue
            // being drained; start it afresh from the next sample.
            self.sowd8 = 0;
        }
        self.last_drop = Some(c.now);
    }

    fn state(&self, out: &mut StateOut) {
        let ms = |t: Nanos| if t == Nanos::MAX { f64::NAN } else { t as f64 / 1e6 };
        out.number(&state::OWD_MS, ms(self.sowd8 >> 3));
        out.number(&state::OWD_MIN_MS, ms(self.owd_min));
        out.number(&state::OWD_MAX_MS, ms(self.owd_max));
        out.number(&state::THRESHOLD_MS, if self.owd_min == Nanos::MAX { f64::NAN } else { ms(self.threshold_ns()) });
        out.mode(&state::PHASE, self.within_inference as usize);
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::harness::Harness;
    use crate::time::NS_PER_MS;
    use std::collections::BTreeMap;

    fn lp(linux: f64, rtt_ms: u64) -> Harness {
        Harness::with_params("lp", rtt_ms, &BTreeMap::from([("linux".to_string(), linux)]))
    }

    #[test]
    fn halves_when_the_one_way_delay_rises_then_waits_before_growing() {
        let mut h = lp(1.0, 100);
        h.set_cwnd(40, 20);
        h.rounds(3); // the first indication (an empty range) happens at once, as in Linux
        let settled = h.state("owd_ms");
        assert!((settled - 50.0).abs() < 0.5, "owd {settled}");
        let before = h.w.cwnd;
        h.rounds(2);
        assert!(h.w.cwnd > before, "Reno growth with a flat delay");
        // A queue of 10 ms (20% of the 50 ms one-way delay): early congestion.
        let grown = h.w.cwnd;
        h.queue_delay = 10 * NS_PER_MS;
        h.rounds(1);
        assert!(h.w.cwnd <= grown / 2 + 1, "{grown} -> {}", h.w.cwnd);
        assert_eq!(h.mode("phase"), "inference", "inference period after the cut");
        // No growth during the inference period.
        let cut = h.w.cwnd;
        h.queue_delay = 0;
        h.rounds(1);
        assert!(h.w.cwnd <= cut, "grew during inference: {cut} -> {}", h.w.cwnd);
    }

    #[test]
    fn a_second_indication_within_the_inference_period_sets_cwnd_to_one() {
        let mut h = lp(1.0, 100);
        h.set_cwnd(40, 20);
        h.rounds(4);
        h.queue_delay = 10 * NS_PER_MS;
        h.rounds(1);
        assert_eq!(h.mode("phase"), "inference");
        h.queue_delay = 30 * NS_PER_MS;
        for _ in 0..10 {
            h.ack(NS_PER_MS);
        }
        assert_eq!(h.w.cwnd, 1);
        assert_eq!(h.mode("phase"), "inference");
    }

    #[test]
    fn linux_keeps_ssthresh_on_an_indication_the_paper_reading_sets_it() {
        for (linux, expect_ssthresh_set) in [(1.0, false), (0.0, true)] {
            let mut h = lp(linux, 100);
            h.set_cwnd(40, 1000);
            // ACKs of two segments each (the paper reading takes no sample
            // from single-segment ACKs), first on an empty queue, then 20 ms
            // of queue: the smoothed delay crosses the threshold. In Linux's
            // reading the first sample (an empty range) is an indication;
            // wait out its inference period.
            for _ in 0..60 {
                h.rate_ack(10 * NS_PER_MS, 2, 40, 100 * NS_PER_MS, false);
            }
            let cwnd = h.w.cwnd;
            h.queue_delay = 20 * NS_PER_MS;
            for _ in 0..40 {
                h.rate_ack(NS_PER_MS, 2, 40, 100 * NS_PER_MS, false);
                if h.w.cwnd < cwnd {
                    break;
                }
            }
            assert_eq!(h.w.cwnd, cwnd / 2, "linux={linux}: halved");
            assert_eq!(h.w.ssthresh == h.w.cwnd, expect_ssthresh_set, "linux={linux}: ssthresh {}", h.w.ssthresh);
        }
    }

    #[test]
    fn the_paper_reading_takes_no_delay_sample_from_single_segment_acks() {
        // A receiver's delayed-ACK timer only ever holds one segment, so an
        // ACK of one segment may carry the hold as delay.
        let mut h = lp(0.0, 100);
        h.set_cwnd(10, 1000);
        h.rounds(3);
        assert!(h.state("owd_ms") == 0.0, "sampled {} ms", h.state("owd_ms"));
        h.rate_ack(NS_PER_MS, 2, 10, 100 * NS_PER_MS, false);
        assert!((h.state("owd_ms") - 50.0).abs() < 0.5, "owd {} ms", h.state("owd_ms"));
    }
}
