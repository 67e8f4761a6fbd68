//! TCP Westwood+ (Grieco, Mascolo, "Performance evaluation and comparison of
//! Westwood+, New Reno and Vegas TCP congestion control", ACM CCR 2004),
//! following Linux net/ipv4/tcp_westwood.c, which Linux calls "westwood".
//!
//! Reno's window growth, but the reduction on loss is adaptive: the window
//! is set to the bandwidth-delay product the connection was achieving,
//!     ssthresh = max(BWE * RTTmin / MSS, 2)
//! after a fast recovery (cwnd = ssthresh) and after a timeout (cwnd = 1).
//! A loss with an empty queue (a random, non-congestion loss) therefore
//! costs little, while a loss at a full queue drains it.
//!
//! Bandwidth estimate (the "+" of Westwood+): the ACKed bytes are summed over
//! one RTT (at least 50 ms), and each such sample b = bytes / interval feeds
//! two cascaded constant-coefficient low-pass filters,
//!     bw_ns_est = 7/8 bw_ns_est + 1/8 b,   bw_est = 7/8 bw_est + 1/8 bw_ns_est
//! (the first sample fills both). Duplicate ACKs count one segment each, and
//! the cumulative ACK that follows them is reduced by what they counted.
//! RTTmin is the smallest RTT sample, restarted after a timeout. As in Linux
//! the estimator runs on every ACK before the ACK's RTT sample is taken
//! (in_ack_event, then pkts_acked), so RTTmin and the sampling interval use
//! the previous ACK's sample: the restart takes the last sample before the
//! timeout, and the next ACK's min brings in the first new one.
//!
//! Westwood (the original, per-ACK estimator) is `westwood.rs`; it samples
//! every ACK, which ACK compression inflates, the flaw Westwood+ fixes.
//!
//! As in Linux, fast recovery itself halves (Reno's ssthresh, which PRR aims
//! at) and the window jumps to BWE * RTTmin when recovery completes
//! (CA_EVENT_COMPLETE_CWR): the estimate keeps learning during recovery,
//! which matters after slow start, when the filtered estimate still lags the
//! doubling rate. After a timeout ssthresh is BWE * RTTmin at once
//! (CA_EVENT_LOSS; CA_EVENT_FRTO when the RFC 4138 F-RTO of 2.6.22 to 3.9
//! takes the timeout). Those releases answered CA_EVENT_FRTO only: a
//! timeout F-RTO did not take (without SACK, once more than the head was
//! retransmitted) kept Reno's half; `loss_event = 0`, which the kernel
//! presets before 3.10 set, does the same. Without PRR (rate halving, Linux
//! before 3.2) the window comes down during recovery only to BWE * RTTmin
//! (the module's min_cwnd, 2.6 to 3.14), not to Reno's ssthresh.
//!
//! Differs from Linux, on purpose:
//! - Every ACK takes the slow path (westwood_acked_count). Linux's fast path
//!   (westwood_fast_bw, for an ACK that header prediction accepts: in order,
//!   same window, no SACK) adds the whole snd_una advance and leaves the
//!   bytes the duplicate ACKs counted for a later slow-path ACK to give
//!   back; which ACKs take it depends on the receiver's window updates,
//!   which ccbench does not model at that level.
//! - Time and bandwidth are nanoseconds and bytes per second (f64), not
//!   jiffies and bytes per jiffy: no rounding of the RTT up to a jiffy, of
//!   the sample bk / delta down to whole bytes per jiffy, or of the filter's
//!   (7a + b) >> 3.
//! - The RTT handed to pkts_acked is the newest (S)ACKed segment's, else the
//!   timestamp echo's (later Linux's ca_rtt_us), in every preset; 2.6.24 to 3.5
//!   passed only the RTT of cumulatively ACKed, never retransmitted segments.

use super::common::{bdp_segments, reno_cong_avoid, reno_ssthresh, AckedBytes};
use super::RecoveryPolicy;
use super::{AckSample, CaEvent, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window};
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{BoolParam, FloatParam};
    pub const MIN_INTERVAL_MS: FloatParam = FloatParam {
        name: "min_interval_ms",
        default: 50.0,
        min: 1.0,
        max: 10_000.0,
        doc: "shortest bandwidth sampling interval (Linux TCP_WESTWOOD_RTT_MIN), ms",
    };
    pub const LOSS_EVENT: BoolParam = BoolParam {
        name: "loss_event",
        default: true,
        doc: "1: a timeout F-RTO does not take also sets ssthresh = BWE * RTTmin (CA_EVENT_LOSS, Linux 3.10+); \
              0: it keeps Reno's half (2.6.22 to 3.9 answer CA_EVENT_FRTO only)",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const BWE_BPS: StateVar = StateVar::float("bwe_bps", "bit/s");
    pub const RTT_MIN_MS: StateVar = StateVar::float("rtt_min_ms", "ms");
    pub const BW_RTTMIN_PKTS: StateVar = StateVar::integer("bw_rttmin_pkts", "segments");
}

pub const INFO: Info = Info {
    name: "westwood+",
    reference: "Grieco, Mascolo, ACM CCR 2004; Linux tcp_westwood.c (named westwood there)",
    summary: "Linux's `westwood` module (tcp_westwood.c) is this Westwood+; Reno growth; on loss ssthresh = BWE * RTTmin, BWE sampled once per RTT and low-pass filtered (7/8)",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Float(&param::MIN_INTERVAL_MS), Param::Bool(&param::LOSS_EVENT)],
    state: &[state::BWE_BPS, state::RTT_MIN_MS, state::BW_RTTMIN_PKTS],
    role: Role::General,
    linux: LinuxModule::Mainline("westwood"),
    ns3: Some("ns3::TcpWestwoodPlus"),
};

/// Linux TCP_WESTWOOD_INIT_RTT: a deliberately long first guess (20 s).
const INIT_RTT_NS: Nanos = 20 * NS_PER_SEC;

pub struct WestwoodPlus {
    min_interval_ns: Nanos,
    /// Answer CaEvent::Loss (Linux 3.10+), not only CaEvent::Frto.
    loss_event: bool,
    /// Bytes per second: the first filter stage and the estimate.
    bw_ns_est: f64,
    bw_est: f64,
    /// Start of the current sampling interval, and the bytes ACKed in it.
    rtt_win_sx: Nanos,
    bk: u64,
    /// Cumulative ACK point seen last (segments) and dupACK bytes already counted.
    acked: AckedBytes,
    first_ack: bool,
    rtt: Nanos,
    rtt_min: Nanos,
    reset_rtt_min: bool,
    mss: u32,
}

impl WestwoodPlus {
    pub fn new(p: &Params) -> WestwoodPlus {
        WestwoodPlus {
            min_interval_ns: (p.float(&param::MIN_INTERVAL_MS) * NS_PER_MS as f64) as Nanos,
            loss_event: p.flag(&param::LOSS_EVENT),
            bw_ns_est: 0.0,
            bw_est: 0.0,
            rtt_win_sx: 0,
            bk: 0,
            acked: AckedBytes::default(),
            first_ack: true,
            rtt: INIT_RTT_NS,
            rtt_min: INIT_RTT_NS,
            reset_rtt_min: true,
            mss: p.mss(),
        }
    }

    /// Linux westwood_update_window: close the sampling interval once it is
    /// longer than an RTT (and 50 ms), and filter its bandwidth sample.
    fn update_window(&mut self, c: &Conn) {
        if self.first_ack {
            self.acked.reset(c.snd_una);
            self.first_ack = false;
        }
        let delta = c.now.saturating_sub(self.rtt_win_sx);
        if self.rtt > 0 && delta > self.rtt.max(self.min_interval_ns) {
            let sample = self.bk as f64 * NS_PER_SEC as f64 / delta as f64;
            if self.bw_ns_est == 0.0 && self.bw_est == 0.0 {
                self.bw_ns_est = sample;
                self.bw_est = sample;
            } else {
                self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
                self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
            }
            self.bk = 0;
            self.rtt_win_sx = c.now;
        }
    }

    /// ssthresh = BWE * RTTmin in segments, at least 2.
    fn bw_rttmin(&self) -> u32 {
        bdp_segments(self.bw_est, self.rtt_min, self.mss)
    }
}

impl CongestionControl for WestwoodPlus {
    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.bw_ns_est = 0.0;
        self.bw_est = 0.0;
        self.bk = 0;
        self.first_ack = true;
        self.rtt = INIT_RTT_NS;
        self.rtt_min = INIT_RTT_NS;
        self.reset_rtt_min = true;
        self.rtt_win_sx = c.now;
        self.acked.reset(c.snd_una);
        self.mss = c.mss;
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        reno_ssthresh(w)
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        reno_cong_avoid(w, c, acked)
    }

    /// Linux 2.6 to 3.14 `.min_cwnd = tcp_westwood_bw_rttmin`: rate halving
    /// (no PRR) stops at BWE * RTTmin, not at Reno's ssthresh.
    fn min_cwnd(&self, _w: &Window) -> u32 {
        self.bw_rttmin()
    }

    fn cwnd_event(&mut self, w: &mut Window, _c: &Conn, event: CaEvent) {
        match event {
            // After a timeout ssthresh comes from the estimate, and RTTmin
            // restarts at the next ACK (the path may have changed): Linux
            // 3.10+ on CA_EVENT_LOSS; 2.6.22 to 3.9 on CA_EVENT_FRTO only,
            // so a timeout without F-RTO kept tcp_reno_ssthresh's half.
            CaEvent::Frto | CaEvent::Loss if event == CaEvent::Frto || self.loss_event => {
                w.ssthresh = self.bw_rttmin();
                self.reset_rtt_min = true;
            }
            CaEvent::CompleteCwr => {
                w.ssthresh = self.bw_rttmin();
                w.cwnd = w.ssthresh;
            }
            _ => {}
        }
    }

    /// Linux tcp_westwood_ack (its slow path, westwood_acked_count, for every
    /// ACK). It runs before pkts_acked, so the sampling interval and RTTmin
    /// see the RTT of the previous ACK, as in Linux.
    #[inline]
    fn in_ack_event(&mut self, _w: &mut Window, c: &Conn) {
        self.update_window(c);
        self.bk += self.acked.count(c);
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }

    /// Linux tcp_westwood_pkts_acked: keep the ACK's RTT sample.
    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, _c: &Conn, s: &AckSample) {
        if let Some(rtt) = s.rtt_ns {
            if rtt > 0 {
                self.rtt = rtt;
            }
        }
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::BWE_BPS, self.bw_est * 8.0);
        out.number(&state::RTT_MIN_MS, self.rtt_min as f64 / 1e6);
        out.number(&state::BW_RTTMIN_PKTS, self.bw_rttmin() as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;
    use crate::cc::CaEvent;
    use crate::time::NS_PER_MS;
    use std::collections::BTreeMap;

    #[test]
    fn estimate_converges_to_the_delivery_rate() {
        // 100 segments per 100 ms RTT = 1000 segments/s.
        let mut h = Harness::new("westwood+", 100);
        h.set_cwnd(100, 50);
        h.w.cwnd_clamp = 100; // hold the window so the rate is fixed
        h.rounds(60);
        let expect_bps = 1000.0 * 1448.0 * 8.0;
        let bwe = h.state("bwe_bps");
        assert!((bwe - expect_bps).abs() / expect_bps < 0.03, "bwe {bwe} vs {expect_bps}");
        assert_eq!(h.state("rtt_min_ms"), 100.0);
    }

    #[test]
    fn loss_with_an_empty_queue_keeps_the_pipe_full() {
        // Window 100 on a 100 ms path, no queue: BWE * RTTmin = 100 segments.
        let mut h = Harness::new("westwood+", 100);
        h.set_cwnd(100, 50);
        h.w.cwnd_clamp = 100;
        h.rounds(60);
        h.loss();
        assert!(h.w.ssthresh >= 97, "ssthresh {} (reno would say 50)", h.w.ssthresh);
    }

    #[test]
    fn loss_at_a_full_queue_drains_it() {
        // 100 segments in flight over an RTT of 100 ms base + 100 ms queue:
        // the pipe holds 50 of them, so ssthresh = 50 (BWE * RTTmin), not cwnd/2 by rule.
        let mut h = Harness::new("westwood+", 100);
        h.set_cwnd(100, 50);
        h.w.cwnd_clamp = 100;
        h.rounds(2);
        h.queue_delay = 100 * NS_PER_MS;
        h.rounds(60);
        h.loss();
        assert!((48..=52).contains(&h.w.ssthresh), "ssthresh {}", h.w.ssthresh);
    }

    #[test]
    fn timeout_sets_ssthresh_from_the_estimate_and_relearns_rtt_min() {
        let mut h = Harness::new("westwood+", 100);
        h.set_cwnd(100, 50);
        h.w.cwnd_clamp = 100;
        h.rounds(60);
        // A queue builds before the timeout: the last RTT sample is 200 ms.
        h.queue_delay = 100 * NS_PER_MS;
        h.ack(NS_PER_MS);
        assert_eq!(h.state("rtt_min_ms"), 100.0);
        h.timeout();
        assert_eq!(h.w.cwnd, 1);
        assert!(h.w.ssthresh >= 97, "ssthresh {}", h.w.ssthresh);
        // The path got longer (150 ms) and the queue drained. Linux resets
        // RTTmin in in_ack_event, before pkts_acked brings the ACK's own
        // sample: the first ACK restarts it from the 200 ms the timeout left,
        // the next one takes the 150 ms of the first.
        h.queue_delay = 0;
        h.rtt = 150 * NS_PER_MS;
        h.ack(150 * NS_PER_MS);
        assert_eq!(h.state("rtt_min_ms"), 200.0);
        h.ack(NS_PER_MS);
        assert_eq!(h.state("rtt_min_ms"), 150.0);
    }

    #[test]
    fn before_3_10_a_timeout_without_frto_halves_as_reno() {
        // Linux 2.6.22 to 3.9: tcp_westwood_event answers CA_EVENT_FRTO, not CA_EVENT_LOSS.
        let params = BTreeMap::from([("loss_event".to_string(), 0.0)]);
        let mut h = Harness::with_params("westwood+", 100, &params);
        h.set_cwnd(100, 50);
        h.w.cwnd_clamp = 100;
        h.rounds(60);
        h.timeout();
        assert_eq!((h.w.cwnd, h.w.ssthresh), (1, 50));
        // The F-RTO's event still brings BWE * RTTmin.
        let c = h.conn();
        h.alg.cwnd_event(&mut h.w, &c, CaEvent::Frto);
        assert!(h.w.ssthresh >= 97, "ssthresh {}", h.w.ssthresh);
    }

    #[test]
    fn back_to_back_timeouts_leave_the_next_fast_recovery_a_reno_halving() {
        let mut h = Harness::new("westwood+", 100);
        h.set_cwnd(100, 50);
        h.w.cwnd_clamp = 100;
        h.rounds(60);
        h.timeout();
        let after_first = h.w.ssthresh;
        assert!(after_first >= 97, "ssthresh {after_first}");
        // The retransmission is lost too: the second timeout keeps the first's ssthresh.
        h.timeout();
        assert_eq!(h.w.ssthresh, after_first);
        h.w.cwnd_clamp = 68;
        h.rounds(20);
        assert_eq!(h.w.cwnd, 68);
        // Fast recovery aims at Reno's half (BWE * RTTmin comes when it completes).
        let c = h.conn();
        assert_eq!(h.alg.ssthresh(&h.w, &c), 34);
    }
}
