//! The send buffer: how far new data may run ahead of SND.UNA because the
//! application can queue only so much (Linux sk_sndbuf, charged with each
//! queued skb's truesize in sk_wmem_queued).
//!
//! - Automatic (`snd_buf = "auto"`): Linux tcp_new_space / tcp_sndbuf_expand
//!   grow the buffer to room for twice the window, up to wmem_max, and never
//!   shrink it, so a window cut in recovery keeps the room the larger window
//!   gave. Room is counted as Linux counts it, in skb truesize: payload plus
//!   `snd_skb_overhead` per segment, so wmem_max holds fewer segments than its
//!   size in payload (4 MB: 1865 segments of 1448 bytes, not 2896).
//! - Fixed (`snd_buf` in bytes, as SO_SNDBUF sets it): that much payload, in
//!   whole segments of one skb each (a link without segmentation offload, as
//!   the studies' modems had), refilled as Linux wakes a writer: once the
//!   buffer is full the application sleeps until the queue (sent and not yet
//!   acknowledged, plus unsent) falls to the writable line of
//!   sk_stream_is_writeable, free room at least half of what is queued, that
//!   is two thirds of sk_sndbuf; it then fills the buffer again. With
//!   sk_sndbuf at N - 1/2 segments of truesize (what kernel mode sets for N
//!   segments of payload) that line is (2N - 1) / 3 segments, so the queue
//!   swings between about two thirds of N and N. The automatic buffer has no
//!   such swing: its growth keeps the writer awake (and its size was measured
//!   where Linux's writer waits, at the line).

use super::config::SenderConfig;

#[derive(Clone, Debug, Default)]
pub struct SendBuffer {
    /// The automatic buffer (bytes) as grown so far: it never shrinks.
    auto_bytes: u64,
    /// `auto_bytes` in segments (divided when it grows, not per send).
    auto_segments: u64,
    /// A fixed buffer: the end of the data the application has written
    /// (a sequence number, in segments).
    written_end: u64,
}

impl SendBuffer {
    /// Linux tcp_check_space, before the sender sends: an automatic buffer
    /// grows (tcp_new_space: room for twice the window, or the initial
    /// window, up to wmem_max); the writer of a fixed one wakes if the queue
    /// from `una` is down to the writable line (sk_stream_write_space).
    pub fn update(&mut self, cfg: &SenderConfig, cwnd: u32, una: u64) {
        match fixed_segments(cfg) {
            Some(n) => {
                if self.written_end.saturating_sub(una) <= (2 * n - 1) / 3 {
                    self.written_end = una + n;
                }
            }
            None => {
                let want = 2 * cwnd.max(cfg.init_cwnd) as u64 * segment_truesize(cfg);
                let room = want.min(cfg.wmem_max);
                if room > self.auto_bytes {
                    self.auto_bytes = room;
                    self.auto_segments = self.auto_bytes / segment_truesize(cfg);
                }
            }
        }
    }

    /// New data must stay below this sequence number (segments).
    pub fn limit(&self, cfg: &SenderConfig, una: u64) -> u64 {
        if cfg.snd_buf.is_some() {
            self.written_end
        } else {
            una + self.auto_segments.max(1)
        }
    }
}

/// A fixed buffer's size in segments (at least one).
fn fixed_segments(cfg: &SenderConfig) -> Option<u64> {
    cfg.snd_buf.map(|payload| (payload / cfg.mss as u64).max(1))
}

/// What one segment takes in the automatic send buffer: its skb truesize.
fn segment_truesize(cfg: &SenderConfig) -> u64 {
    cfg.mss as u64 + cfg.snd_skb_overhead
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SenderConfig {
        let mut cfg = crate::tcp::driver::Driver::new("reno", 10).s.cfg;
        cfg.mss = 1448;
        cfg.snd_skb_overhead = 800;
        cfg.wmem_max = 4_194_304;
        cfg
    }

    #[test]
    fn the_automatic_buffer_keeps_the_room_a_larger_window_gave_it() {
        let cfg = config();
        let mut b = SendBuffer::default();
        b.update(&cfg, 100, 0);
        assert_eq!(b.limit(&cfg, 0), 200);
        // A recovery cuts the window; Linux's sk_sndbuf stays (tcp_new_space
        // only grows it), so the sender can still send new data while the
        // lost segments hold snd_una back.
        b.update(&cfg, 50, 0);
        assert_eq!(b.limit(&cfg, 0), 200);
        assert_eq!(b.limit(&cfg, 30), 230, "room beyond snd_una");
    }

    #[test]
    fn the_automatic_buffer_counts_skb_truesize_against_wmem_max() {
        // Linux charges each queued skb's truesize to sk_wmem_queued: on 6.18 a
        // 4 MB buffer held 2.70 MB of 1448-byte segments (ccemu, wan-100ms).
        let cfg = config();
        let mut b = SendBuffer::default();
        b.update(&cfg, 1400, 0);
        assert_eq!(b.limit(&cfg, 0), 4_194_304 / 2248, "wmem_max in truesize, not 2896 payload segments");
    }

    #[test]
    fn a_fixed_buffer_holds_its_payload_and_is_refilled_at_the_writable_line() {
        let mut cfg = config();
        cfg.snd_buf = Some(10 * 1448);
        let mut b = SendBuffer::default();
        b.update(&cfg, 100, 0);
        assert_eq!(b.limit(&cfg, 0), 10, "the writer fills the buffer: 10 segments of payload");
        // The queue falls as ACKs free it; the writer sleeps above (2N - 1) / 3 = 6.
        for una in 1..4 {
            b.update(&cfg, 100, una);
            assert_eq!(b.limit(&cfg, una), 10, "asleep with {} queued", 10 - una);
        }
        b.update(&cfg, 100, 4);
        assert_eq!(b.limit(&cfg, 4), 14, "6 queued: awake, the buffer is full again");
    }

    #[test]
    fn a_sender_with_a_fixed_buffer_waits_for_its_writer() {
        // Linux: an application blocked on a full SO_SNDBUF is woken only at
        // the writable line, so an ACK of one segment sends nothing new.
        let mut d = crate::tcp::driver::Driver::new("reno", 20);
        d.s.cfg.snd_buf = Some(10 * 1000);
        assert_eq!(d.start(), (0..10).collect::<Vec<u64>>());
        assert!(d.ack(10, 1, &[]).is_empty(), "9 queued: the writer sleeps");
        assert!(d.ack(1, 3, &[]).is_empty(), "7 queued: still asleep");
        assert_eq!(d.ack(1, 4, &[]), (10..14).collect::<Vec<u64>>(), "6 queued: refilled to 10");
    }
}
