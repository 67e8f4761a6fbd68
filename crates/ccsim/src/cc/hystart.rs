//! HyStart: leave slow start before the first loss (Ha, Rhee, "Taming the
//! elephants: new TCP slow start", Computer Networks 2011), as Linux
//! tcp_cubic.c runs it with both detectors on.
//!
//! Once per round trip (a round ends when the ACKs pass the `snd_nxt` seen at
//! its start), two signals may end slow start by setting ssthresh = cwnd:
//! - ACK train: closely spaced ACKs (at most 2 ms apart) keep arriving for
//!   longer than half the minimum RTT since the round began: the pipe is full;
//! - delay increase: the smallest RTT of the first 8 samples of a round exceeds
//!   the minimum RTT by more than min_rtt/8, clamped to [4, 16] ms.
//!
//! It only runs once cwnd reaches 16 segments (hystart_low_window).
//!
//! Differs from Linux: no GSO/TSO, so the ACK-train threshold carries no
//! extra allowance for ACK compression (Linux's hystart_ack_delay).

use super::Window;
use crate::time::{Nanos, NS_PER_MS};

pub const LOW_WINDOW: u32 = 16;
const ACK_DELTA_NS: Nanos = 2 * NS_PER_MS;
const MIN_SAMPLES: u32 = 8;
const DELAY_THRESH_MIN_NS: Nanos = 4 * NS_PER_MS;
const DELAY_THRESH_MAX_NS: Nanos = 16 * NS_PER_MS;

#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// Slow start was ended by HyStart (until the next reset of the algorithm).
    pub found: bool,
    round_start: Nanos,
    last_ack: Nanos,
    end_seq: u64,
    curr_rtt: Nanos,
    sample_cnt: u32,
}

impl HyStart {
    /// Starts a new round (Linux bictcp_hystart_reset).
    pub fn reset_round(&mut self, now: Nanos, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = Nanos::MAX;
        self.sample_cnt = 0;
    }

    /// Called from cong_avoid in slow start: a new round when the ACK passes end_seq.
    pub fn on_ack_in_slow_start(&mut self, now: Nanos, snd_una: u64, snd_nxt: u64) {
        if snd_una > self.end_seq {
            self.reset_round(now, snd_nxt);
        }
    }

    /// Called with each RTT sample while in slow start and cwnd >= LOW_WINDOW.
    pub fn on_rtt_sample(
        &mut self,
        w: &mut Window,
        now: Nanos,
        rtt: Nanos,
        delay_min: Nanos,
        snd_una: u64,
        snd_nxt: u64,
    ) {
        if self.found || !w.in_slow_start() || w.cwnd < LOW_WINDOW {
            return;
        }
        if snd_una > self.end_seq {
            self.reset_round(now, snd_nxt);
        }
        // ACK train.
        if now.saturating_sub(self.last_ack) <= ACK_DELTA_NS {
            self.last_ack = now;
            let threshold = delay_min / 2;
            if now - self.round_start > threshold {
                self.found = true;
                w.ssthresh = w.cwnd;
                return;
            }
        }
        // Delay increase.
        self.curr_rtt = self.curr_rtt.min(rtt);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = (delay_min / 8).clamp(DELAY_THRESH_MIN_NS, DELAY_THRESH_MAX_NS);
            if self.curr_rtt > delay_min + thresh {
                self.found = true;
                w.ssthresh = w.cwnd;
            }
        }
    }
}
