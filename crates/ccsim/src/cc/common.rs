//! Window-growth helpers shared by the algorithms, as in Linux tcp_cong.c:
//! slow start, additive increase, and the Reno rules built from them.

use super::{Conn, Window};
use crate::time::{Nanos, NS_PER_SEC};

/// Slow start (RFC 5681 3.1 with appropriate byte counting, Linux
/// tcp_slow_start): cwnd grows by one per delivered segment, but not beyond
/// ssthresh. Returns the delivered segments left over for congestion avoidance.
pub fn slow_start(w: &mut Window, acked: u32) -> u32 {
    let cwnd = w.cwnd.saturating_add(acked).min(w.ssthresh);
    let used = cwnd - w.cwnd.min(cwnd);
    w.cwnd = cwnd.min(w.cwnd_clamp);
    acked - used.min(acked)
}

/// Additive increase (Linux tcp_cong_avoid_ai): one segment per `per_window`
/// delivered segments, i.e. +1 per RTT when `per_window` = cwnd.
pub fn cong_avoid_ai(w: &mut Window, per_window: u32, acked: u32) {
    let per_window = per_window.max(1);
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

/// Reno's multiplicative decrease (RFC 5681 eq. 4 with FlightSize ~ cwnd, Linux
/// tcp_reno_ssthresh): half the window, at least two segments.
pub fn reno_ssthresh(w: &Window) -> u32 {
    (w.cwnd >> 1).max(2)
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
        let mut w = Window { cwnd: 10, ssthresh: 12, cwnd_cnt: 0, cwnd_clamp: 1000 };
        assert_eq!(slow_start(&mut w, 5), 3);
        assert_eq!(w.cwnd, 12);
    }

    #[test]
    fn additive_increase_is_one_segment_per_window() {
        let mut w = Window { cwnd: 10, ssthresh: 5, cwnd_cnt: 0, cwnd_clamp: 1000 };
        for _ in 0..10 {
            cong_avoid_ai(&mut w, 10, 1);
        }
        assert_eq!(w.cwnd, 11);
        assert_eq!(w.cwnd_cnt, 0);
    }
}
