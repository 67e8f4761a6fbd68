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
//!   whole segments.

use super::sender::SenderConfig;

#[derive(Clone, Debug, Default)]
pub struct SendBuffer {
    /// The automatic buffer (bytes) as grown so far: it never shrinks.
    auto_bytes: u64,
    /// `auto_bytes` in segments (divided when it grows, not per send).
    auto_segments: u64,
}

impl SendBuffer {
    /// Linux tcp_new_space: room for twice the window (or the initial
    /// window), up to wmem_max.
    pub fn grow(&mut self, cfg: &SenderConfig, cwnd: u32) {
        let want = 2 * cwnd.max(cfg.init_cwnd) as u64 * segment_truesize(cfg);
        let room = want.min(cfg.wmem_max);
        if room > self.auto_bytes {
            self.auto_bytes = room;
            self.auto_segments = self.auto_bytes / segment_truesize(cfg);
        }
    }

    /// Upper bound on outstanding segments.
    pub fn segments(&self, cfg: &SenderConfig) -> u64 {
        let segments = match cfg.snd_buf {
            Some(payload) => payload / cfg.mss as u64,
            None => self.auto_segments,
        };
        segments.max(1)
    }
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
        b.grow(&cfg, 100);
        assert_eq!(b.segments(&cfg), 200);
        // A recovery cuts the window; Linux's sk_sndbuf stays (tcp_new_space
        // only grows it), so the sender can still send new data while the
        // lost segments hold snd_una back.
        b.grow(&cfg, 50);
        assert_eq!(b.segments(&cfg), 200);
    }

    #[test]
    fn the_automatic_buffer_counts_skb_truesize_against_wmem_max() {
        // Linux charges each queued skb's truesize to sk_wmem_queued: on 6.18 a
        // 4 MB buffer held 2.70 MB of 1448-byte segments (ccemu, wan-100ms).
        let cfg = config();
        let mut b = SendBuffer::default();
        b.grow(&cfg, 1400);
        assert_eq!(b.segments(&cfg), 4_194_304 / 2248, "wmem_max in truesize, not 2896 payload segments");
    }

    #[test]
    fn a_fixed_buffer_is_a_payload_limit() {
        let mut cfg = config();
        cfg.snd_buf = Some(10 * 1448);
        let mut b = SendBuffer::default();
        b.grow(&cfg, 100);
        assert_eq!(b.segments(&cfg), 10);
    }
}
