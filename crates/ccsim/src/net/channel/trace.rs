//! A link rate given by a trace of delivery opportunities, read as Mahimahi's
//! link queue reads it (K. Winstein et al., mahimahi src/frontend/link_queue.cc).
//!
//! The trace is a non-decreasing list of millisecond timestamps; each entry
//! is one opportunity to send `bytes_per_opportunity` bytes (Mahimahi: 1504,
//! its largest TUN payload), a timestamp listed k times is k opportunities in
//! that millisecond, and the trace repeats with a period of its last
//! timestamp. As in Mahimahi:
//!   - an opportunity serves only packets that arrived before it; one that
//!     finds the queue empty is lost;
//!   - a packet may span opportunities (the bytes sent carry over), and the
//!     bytes of an opportunity left after a packet completes go to the next
//!     queued packet, so small packets share an opportunity;
//!   - a packet leaves at the time of the opportunity that completes it.
//!
//! So the trace "1" is one 1504-byte opportunity per ms: 12.032 Mbit/s.

use crate::time::{Nanos, NS_PER_MS};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceConfig {
    pub opportunities_ms: Vec<u64>,
    pub bytes_per_opportunity: u32,
}

impl TraceConfig {
    /// Mean capacity over one period, in bit/s.
    pub fn mean_rate_bps(&self) -> f64 {
        let period_ms = *self.opportunities_ms.last().unwrap_or(&1) as f64;
        self.opportunities_ms.len() as f64 * self.bytes_per_opportunity as f64 * 8.0 * 1000.0 / period_ms
    }
}

pub struct TraceRate {
    config: TraceConfig,
    period_ns: Nanos,
    /// Next opportunity: index into the trace and the start of its period.
    index: usize,
    base_ns: Nanos,
    /// Bytes left in the opportunity that completed the last packet, and its time.
    leftover_bytes: u32,
    leftover_at: Nanos,
}

impl TraceRate {
    pub fn new(config: TraceConfig) -> TraceRate {
        let period_ns = config.opportunities_ms.last().copied().unwrap_or(1).max(1) * NS_PER_MS;
        TraceRate { config, period_ns, index: 0, base_ns: 0, leftover_bytes: 0, leftover_at: 0 }
    }

    #[inline]
    fn next_time(&self) -> Nanos {
        self.base_ns + self.config.opportunities_ms[self.index] * NS_PER_MS
    }

    #[inline]
    fn step(&mut self) {
        self.index += 1;
        if self.index == self.config.opportunities_ms.len() {
            self.index = 0;
            self.base_ns += self.period_ns;
        }
    }

    /// Moves the cursor to the first opportunity strictly after `t`.
    fn seek_after(&mut self, t: Nanos) {
        if self.next_time() > t {
            return;
        }
        // Whole periods at once, then a binary search in the period.
        if t >= self.base_ns + self.period_ns {
            self.base_ns += (t - self.base_ns) / self.period_ns * self.period_ns;
            self.index = 0;
        }
        let within = t - self.base_ns;
        let ops = &self.config.opportunities_ms;
        self.index += ops[self.index..].partition_point(|&ms| ms * NS_PER_MS <= within);
        if self.index == ops.len() {
            self.index = 0;
            self.base_ns += self.period_ns;
            // Opportunities at time 0 of the next period coincide with the end of this one.
            while self.next_time() <= t {
                self.step();
            }
        }
    }

    /// When a packet of `bytes` that starts service at `start` has fully left.
    /// `back_to_back`: it follows the previous packet at once (no idle time), so
    /// it may use the rest of that packet's last opportunity.
    #[inline(never)]
    pub fn finish_time(&mut self, start: Nanos, bytes: u32, back_to_back: bool) -> Nanos {
        let mut need = bytes;
        if back_to_back && self.leftover_at == start {
            let used = need.min(self.leftover_bytes);
            need -= used;
            self.leftover_bytes -= used;
            if need == 0 {
                return start;
            }
        } else {
            self.seek_after(start);
        }
        loop {
            let t = self.next_time();
            self.step();
            let used = need.min(self.config.bytes_per_opportunity);
            need -= used;
            if need == 0 {
                self.leftover_bytes = self.config.bytes_per_opportunity - used;
                self.leftover_at = t;
                return t;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(ops: &[u64]) -> TraceRate {
        TraceRate::new(TraceConfig { opportunities_ms: ops.to_vec(), bytes_per_opportunity: 1504 })
    }

    #[test]
    fn a_trace_of_one_is_twelve_mbit() {
        let config = TraceConfig { opportunities_ms: vec![1], bytes_per_opportunity: 1504 };
        assert_eq!(config.mean_rate_bps(), 12_032_000.0);
        let mut t = trace(&[1]);
        // Back-to-back 1504-byte packets leave one per ms from 1 ms on.
        let mut at = 0;
        let mut times = Vec::new();
        for k in 0..5 {
            at = t.finish_time(at, 1504, k > 0);
            times.push(at / NS_PER_MS);
        }
        assert_eq!(times, vec![1, 2, 3, 4, 5]);
    }

    #[test]
    fn partial_packets_carry_over_and_small_ones_share() {
        let mut t = trace(&[1]);
        // 1000 bytes at ms 1 leaves 504; a back-to-back 500-byte packet fits in them.
        assert_eq!(t.finish_time(0, 1000, false), NS_PER_MS);
        assert_eq!(t.finish_time(NS_PER_MS, 500, true), NS_PER_MS);
        // 4 bytes left; a 1500-byte packet takes them and 1496 of the next opportunity.
        assert_eq!(t.finish_time(NS_PER_MS, 1500, true), 2 * NS_PER_MS);
        // 8 bytes left at 2 ms: a 3000-byte packet needs 8 + 1504 + 1488: done at 4 ms.
        assert_eq!(t.finish_time(2 * NS_PER_MS, 3000, true), 4 * NS_PER_MS);
        // After idling, the leftover is gone and only opportunities after the start count.
        assert_eq!(t.finish_time(4 * NS_PER_MS, 10, false), 5 * NS_PER_MS);
        assert_eq!(t.finish_time(7_500_000, 10, false), 8 * NS_PER_MS);
    }

    #[test]
    fn repeated_lines_and_wraparound() {
        // Two opportunities at 2 ms, one at 5 ms; period 5 ms.
        let mut t = trace(&[2, 2, 5]);
        let mut at = 0;
        let mut times = Vec::new();
        for k in 0..7 {
            at = t.finish_time(at, 1504, k > 0);
            times.push(at / NS_PER_MS);
        }
        assert_eq!(times, vec![2, 2, 5, 7, 7, 10, 12]);
        // Seeking far ahead: 1000 periods later, strictly after 5002 ms.
        assert_eq!(t.finish_time(5002 * NS_PER_MS, 100, false), 5005 * NS_PER_MS);
        // A trace starting at 0: the opportunity at 0 of the next period coincides with the end.
        let mut t = trace(&[0, 3]);
        assert_eq!(t.finish_time(NS_PER_MS, 1504, false), 3 * NS_PER_MS);
        assert_eq!(t.finish_time(3 * NS_PER_MS, 1504, true), 3 * NS_PER_MS);
        assert_eq!(t.finish_time(3 * NS_PER_MS, 1504, true), 6 * NS_PER_MS);
    }
}
