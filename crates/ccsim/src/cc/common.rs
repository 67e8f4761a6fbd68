//! Window-growth helpers shared by the algorithms, as in Linux tcp_cong.c:
//! slow start, additive increase, and the Reno rules built from them.

use super::{CaState, Conn, Counting, Window};
use crate::time::{Nanos, NS_PER_SEC};

/// Slow start (RFC 5681 3.1 with appropriate byte counting, Linux
/// tcp_slow_start): cwnd grows by one per delivered segment, but not beyond
/// ssthresh. Returns the delivered segments left over for congestion avoidance.
///
/// Counting ACKs (Linux 2.6 to 3.12, `acked` is then 1): +1 per ACK, which
/// may take cwnd one past ssthresh, and nothing is left over.
pub fn slow_start(w: &mut Window, acked: u32) -> u32 {
    if w.counting == Counting::Acks {
        // A credit of one window per ACK; each window of credit is +1.
        w.cwnd_cnt = w.cwnd_cnt.saturating_add(w.cwnd);
        while w.cwnd_cnt >= w.cwnd.max(1) {
            w.cwnd_cnt -= w.cwnd.max(1);
            if w.cwnd < w.cwnd_clamp {
                w.cwnd += 1;
            }
        }
        return 0;
    }
    let cwnd = w.cwnd.saturating_add(acked).min(w.ssthresh);
    let used = cwnd - w.cwnd.min(cwnd);
    w.cwnd = cwnd.min(w.cwnd_clamp);
    acked - used.min(acked)
}

/// Additive increase (Linux tcp_cong_avoid_ai): one segment per `per_window`
/// delivered segments, i.e. +1 per RTT when `per_window` = cwnd.
///
/// Counting ACKs (Linux before 4.0): the ACK after `per_window` counted
/// ones is the +1 and restarts the count, so it takes `per_window` + 1 ACKs.
pub fn cong_avoid_ai(w: &mut Window, per_window: u32, acked: u32) {
    let per_window = per_window.max(1);
    if w.counting == Counting::Acks {
        if w.cwnd_cnt >= per_window {
            if w.cwnd < w.cwnd_clamp {
                w.cwnd += 1;
            }
            w.cwnd_cnt = 0;
        } else {
            w.cwnd_cnt += 1;
        }
        return;
    }
    // Window grew since the counter started (e.g. in slow start): apply a pending +1.
    if w.cwnd_cnt >= per_window {
        w.cwnd_cnt = 0;
        w.cwnd += 1;
    }
    w.cwnd_cnt += acked;
    if w.cwnd_cnt >= per_window {
        let delta = w.cwnd_cnt / per_window;
        w.cwnd_cnt -= delta * per_window;
        w.cwnd += delta;
    }
    w.cwnd = w.cwnd.min(w.cwnd_clamp);
}

/// The common start of `cong_avoid` (Linux tcp_reno_cong_avoid and most
/// modules): nothing unless the window was the limit; in slow start, grow by
/// the ACKed segments up to ssthresh. Returns the ACKed segments left for
/// congestion avoidance (0: nothing more to do).
pub fn slow_start_if_limited(w: &mut Window, c: &Conn, acked: u32) -> u32 {
    if !c.is_cwnd_limited {
        return 0;
    }
    if w.in_slow_start() {
        slow_start(w, acked)
    } else {
        acked
    }
}

/// Reno's window growth (Linux tcp_reno_cong_avoid): slow start below
/// ssthresh, then +1 segment per RTT; nothing when the window was not the limit.
pub fn reno_cong_avoid(w: &mut Window, c: &Conn, acked: u32) {
    let acked = slow_start_if_limited(w, c, acked);
    if acked == 0 {
        return;
    }
    let cwnd = w.cwnd;
    cong_avoid_ai(w, cwnd, acked);
}

/// Reno's floor for rate halving (Linux 2.6 to 3.14 tcp_reno_min_cwnd, the
/// `min_cwnd` of reno and of most modules then): half of ssthresh, so a long
/// recovery without PRR takes the window below ssthresh.
pub fn reno_min_cwnd(w: &Window) -> u32 {
    w.ssthresh / 2
}

/// Reno's multiplicative decrease (RFC 5681 eq. 4 with FlightSize ~ cwnd, Linux
/// tcp_reno_ssthresh): half the window, at least two segments.
pub fn reno_ssthresh(w: &Window) -> u32 {
    (w.cwnd >> 1).max(2)
}

/// Segments per ACK as BIC and CUBIC estimated them while cong_avoid counted
/// ACKs (Linux bictcp_acked, ACK_RATIO_SHIFT 4; CUBIC dropped it in 4.1,
/// "fix stretch ACK bugs"): a moving average over about 16 ACKs, kept in
/// Open, starting at 2 (in the kernel's integer steps an ACK per segment
/// brings it down to 31/16, not 1). Dividing `cnt` (ACKs per +1) by it keeps
/// the growth per delivered segment what the algorithm meant.
#[derive(Clone, Copy, Debug)]
pub struct DelayedAckRatio {
    /// Segments per ACK, times 16.
    sixteenths: u32,
}

impl Default for DelayedAckRatio {
    fn default() -> DelayedAckRatio {
        DelayedAckRatio { sixteenths: 2 << 4 }
    }
}

impl DelayedAckRatio {
    /// An ACK that delivered `acked` segments: ratio = (15 ratio + acked) / 16.
    pub fn on_acked(&mut self, state: Option<CaState>, acked: u32) {
        if state == Some(CaState::Open) && acked > 0 {
            self.sixteenths = self.sixteenths - (self.sixteenths >> 4) + acked;
        }
    }

    /// `cnt` ACKed segments per +1 as ACKs per +1, at least 1.
    pub fn acks_per_increment(&self, cnt: u32) -> u32 {
        ((u64::from(cnt) << 4) / u64::from(self.sixteenths)).max(1) as u32
    }
}

/// Bytes an ACK accounts for, for the bandwidth estimators of westwood and
/// westwood+ (Linux westwood_acked_count): a duplicate ACK counts one
/// segment, which the next cumulative ACK gives back.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckedBytes {
    snd_una: u64,
    /// Bytes counted by duplicate ACKs and not yet given back.
    accounted: u64,
}

impl AckedBytes {
    /// Starts counting from `snd_una` (segments).
    pub fn reset(&mut self, snd_una: u64) {
        self.snd_una = snd_una;
        self.accounted = 0;
    }

    pub fn count(&mut self, c: &Conn) -> u64 {
        let mss = c.mss as u64;
        let mut bytes = (c.snd_una - self.snd_una.min(c.snd_una)) * mss;
        if bytes == 0 {
            self.accounted += mss;
            bytes = mss;
        }
        if bytes > mss {
            if self.accounted >= bytes {
                self.accounted -= bytes;
                bytes = mss;
            } else {
                bytes -= self.accounted;
                self.accounted = 0;
            }
        }
        self.snd_una = c.snd_una;
        bytes
    }
}

/// A bandwidth (bytes per second) times an RTT in segments, at least 2
/// (Westwood's ssthresh, Linux tcp_westwood_bw_rttmin).
pub fn bdp_segments(bytes_per_sec: f64, rtt: Nanos, mss: u32) -> u32 {
    let pkts = bytes_per_sec * rtt as f64 / NS_PER_SEC as f64 / mss as f64;
    (pkts as u32).max(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
        let mut w = Window { ssthresh: 12, cwnd_clamp: 1000, ..Window::new(10) };
        assert_eq!(slow_start(&mut w, 5), 3);
        assert_eq!(w.cwnd, 12);
    }

    #[test]
    fn additive_increase_is_one_segment_per_window() {
        let mut w = Window { ssthresh: 5, cwnd_clamp: 1000, ..Window::new(10) };
        for _ in 0..10 {
            cong_avoid_ai(&mut w, 10, 1);
        }
        assert_eq!(w.cwnd, 11);
        assert_eq!(w.cwnd_cnt, 0);
    }

    fn counting_acks(cwnd: u32, ssthresh: u32) -> Window {
        Window { ssthresh, counting: Counting::Acks, ..Window::new(cwnd) }
    }

    #[test]
    fn counting_acks_slow_start_is_one_per_ack_and_may_pass_ssthresh() {
        let mut w = counting_acks(10, 12);
        // A delayed ACK of two segments is one ACK: +1, not +2.
        assert_eq!(slow_start(&mut w, 1), 0);
        assert_eq!(w.cwnd, 11);
        assert!(w.in_slow_start(), "cwnd <= ssthresh is still slow start");
        slow_start(&mut w, 1);
        slow_start(&mut w, 1);
        assert_eq!(w.cwnd, 13, "Linux 2.6 tcp_slow_start is not capped at ssthresh");
        assert!(!w.in_slow_start());
    }

    #[test]
    fn counting_acks_additive_increase_takes_one_ack_more_than_the_window() {
        let mut w = counting_acks(10, 5);
        for _ in 0..10 {
            cong_avoid_ai(&mut w, 10, 1);
        }
        assert_eq!((w.cwnd, w.cwnd_cnt), (10, 10), "ten ACKs are counted, none grows");
        cong_avoid_ai(&mut w, 10, 1);
        assert_eq!((w.cwnd, w.cwnd_cnt), (11, 0));
    }

    #[test]
    fn the_delayed_ack_ratio_follows_segments_per_ack_in_open_only() {
        let mut ratio = DelayedAckRatio::default();
        assert_eq!(ratio.acks_per_increment(40), 20, "starts at two segments per ACK");
        for _ in 0..200 {
            ratio.on_acked(Some(CaState::Open), 4);
        }
        assert_eq!(ratio.acks_per_increment(40), 10);
        for _ in 0..200 {
            ratio.on_acked(Some(CaState::Recovery), 1);
        }
        assert_eq!(ratio.acks_per_increment(40), 10, "not kept outside Open");
        for _ in 0..200 {
            ratio.on_acked(Some(CaState::Open), 1);
        }
        // The kernel's integer average stops at 31/16 coming down: 640 / 31.
        assert_eq!(ratio.acks_per_increment(40), 20);
        assert_eq!(ratio.acks_per_increment(1), 1, "never 0");
    }
}
