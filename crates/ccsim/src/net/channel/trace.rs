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
//!
//! The text of a trace file is read by `parse_mahimahi` and checked by
//! `check_opportunities` (the one definition of a usable trace: the Python
//! front end reads files through them, via the binding).

use crate::time::{Nanos, NS_PER_MS};
use std::sync::Arc;

/// Bytes one delivery opportunity carries in Mahimahi (its largest TUN payload).
pub const MAHIMAHI_BYTES_PER_OPPORTUNITY: u32 = 1504;

/// Why a trace cannot be used. `entry`: the index of the offending timestamp
/// (in a file, line `entry + 1`), or None when the trace as a whole is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    pub entry: Option<usize>,
    pub message: String,
}

impl TraceError {
    fn at(entry: usize, message: String) -> TraceError {
        TraceError { entry: Some(entry), message }
    }

    fn whole(message: &str) -> TraceError {
        TraceError { entry: None, message: message.to_string() }
    }
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.entry {
            Some(i) => write!(f, "line {}: {}", i + 1, self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The largest timestamp (a period of 1,000,000 s, far beyond any run): its
/// nanoseconds and their sums stay far from the u64 limit, never wrapped.
pub const MAX_TIMESTAMP_MS: u64 = 1_000_000_000;

/// What Mahimahi's link queue needs of a trace: at least one timestamp, none
/// smaller than the one before it, and a last one above 0 (the period).
pub fn check_opportunities(opportunities_ms: &[u64]) -> Result<(), TraceError> {
    let Some(&last) = opportunities_ms.last() else {
        return Err(TraceError::whole("the trace is empty; it needs at least one millisecond timestamp"));
    };
    if let Some(i) = opportunities_ms.windows(2).position(|w| w[1] < w[0]) {
        let (before, after) = (opportunities_ms[i], opportunities_ms[i + 1]);
        return Err(TraceError::at(i + 1, format!("{after} comes after {before}; timestamps must not decrease")));
    }
    if let Some(i) = opportunities_ms.iter().position(|&ms| ms > MAX_TIMESTAMP_MS) {
        return Err(TraceError::at(i, format!("too large a timestamp (at most {MAX_TIMESTAMP_MS} ms)")));
    }
    if last == 0 {
        return Err(TraceError::whole(
            "the last timestamp is 0; a trace must last at least 1 ms (its period is the last timestamp)",
        ));
    }
    Ok(())
}

/// The timestamps of a trace file's text (Mahimahi `mm-link` format): one
/// non-negative integer per line; spaces around a number and the newline
/// ending the last line are fine, blank lines are not (a text of only white
/// space is an empty trace). Checked with `check_opportunities`.
pub fn parse_mahimahi(text: &str) -> Result<Vec<u64>, TraceError> {
    let mut opportunities_ms = Vec::new();
    if !text.trim().is_empty() {
        let mut lines: Vec<&str> = text.split('\n').collect();
        if lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop(); // what follows the newline that ends the last line
        }
        for (i, raw) in lines.into_iter().enumerate() {
            let line = raw.trim();
            if line.is_empty() {
                return Err(TraceError::at(i, "empty line; every line must be one millisecond timestamp".into()));
            }
            if !line.bytes().all(|b| b.is_ascii_digit()) {
                // The line's text is not echoed: a trace path may name any
                // file (a secret's first line must not reach the terminal).
                return Err(TraceError::at(
                    i,
                    "not a timestamp; expected a non-negative integer number of milliseconds".into(),
                ));
            }
            let ms = line
                .parse()
                .map_err(|_| TraceError::at(i, format!("too large a timestamp (at most {MAX_TIMESTAMP_MS} ms)")))?;
            opportunities_ms.push(ms);
        }
    }
    check_opportunities(&opportunities_ms)?;
    Ok(opportunities_ms)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceConfig {
    pub opportunities_ms: Arc<[u64]>,
    pub bytes_per_opportunity: u32,
}

impl TraceConfig {
    /// A trace checked with `check_opportunities`, with opportunities of at
    /// least one byte.
    pub fn checked(opportunities_ms: Vec<u64>, bytes_per_opportunity: u32) -> Result<TraceConfig, TraceError> {
        check_opportunities(&opportunities_ms)?;
        if bytes_per_opportunity == 0 {
            return Err(TraceError::whole("bytes_per_opportunity must be at least 1 byte (Mahimahi: 1504)"));
        }
        Ok(TraceConfig { opportunities_ms: opportunities_ms.into(), bytes_per_opportunity })
    }

    /// Mean capacity over one period, in bit/s.
    pub fn mean_rate_bps(&self) -> f64 {
        let period_ms = *self.opportunities_ms.last().unwrap_or(&1) as f64;
        self.opportunities_ms.len() as f64 * self.bytes_per_opportunity as f64 * 8.0 * 1000.0 / period_ms
    }

    /// Opportunities at or before `t` since time 0, the trace repeating with
    /// its period (an entry `ms` of period k comes at k x period + ms).
    pub fn opportunities_until(&self, t: Nanos) -> u64 {
        let ops = &self.opportunities_ms;
        let period_ns = ops.last().copied().unwrap_or(1).max(1) * NS_PER_MS;
        let (periods, within) = (t / period_ns, t % period_ns);
        periods * ops.len() as u64 + ops.partition_point(|&ms| ms * NS_PER_MS <= within) as u64
    }

    /// Mean capacity over (`from`, `to`], in bit/s: the opportunities the
    /// trace offers then. A run shorter than the trace's period plays only
    /// part of it, whose rate may be far from the period's mean; the
    /// period's mean where the interval is empty.
    pub fn window_rate_bps(&self, from: Nanos, to: Nanos) -> f64 {
        if to <= from {
            return self.mean_rate_bps();
        }
        let opportunities = self.opportunities_until(to) - self.opportunities_until(from);
        opportunities as f64 * self.bytes_per_opportunity as f64 * 8.0 / crate::time::secs(to - from)
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
        TraceRate::new(TraceConfig { opportunities_ms: ops.into(), bytes_per_opportunity: 1504 })
    }

    fn parse_error(text: &str) -> String {
        parse_mahimahi(text).unwrap_err().to_string()
    }

    #[test]
    fn a_window_counts_the_opportunities_the_trace_offers_in_it() {
        // 0, 2, 2, 5 ms, repeating every 5 ms: times 0, 2, 2, 5 | 5, 7, 7, 10 | ...
        let c = TraceConfig { opportunities_ms: vec![0, 2, 2, 5].into(), bytes_per_opportunity: 1000 };
        let ms = NS_PER_MS;
        assert_eq!(c.opportunities_until(0), 1);
        assert_eq!(c.opportunities_until(2 * ms - 1), 1);
        assert_eq!(c.opportunities_until(2 * ms), 3);
        assert_eq!(c.opportunities_until(5 * ms), 5); // the period's end and the next one's 0
        assert_eq!(c.opportunities_until(7 * ms), 7);
        assert_eq!(c.opportunities_until(10 * ms), 9);
        // (2 ms, 7 ms]: 5, 5, 7, 7 = four opportunities of 8000 bits in 5 ms.
        assert!((c.window_rate_bps(2 * ms, 7 * ms) - 4.0 * 8000.0 / 0.005).abs() < 1e-6);
        // Whole periods give the period's mean.
        assert!((c.window_rate_bps(5 * ms, 25 * ms) - c.mean_rate_bps()).abs() < 1e-6);
        assert_eq!(c.window_rate_bps(3 * ms, 3 * ms), c.mean_rate_bps());
        // A busy first half: its window's rate is above the period's mean.
        let front = TraceConfig { opportunities_ms: vec![1, 2, 3, 100].into(), bytes_per_opportunity: 1504 };
        assert!(front.window_rate_bps(0, 10 * ms) > 5.0 * front.mean_rate_bps());
    }

    #[test]
    fn trace_files_parse_to_their_timestamps() {
        assert_eq!(parse_mahimahi("1\n"), Ok(vec![1]));
        assert_eq!(parse_mahimahi("0\n2\n2\n 5 \r\n"), Ok(vec![0, 2, 2, 5]));
        assert_eq!(parse_mahimahi("3\n4"), Ok(vec![3, 4]));
        assert_eq!(parse_mahimahi("3\n4\n  "), Ok(vec![3, 4]));
    }

    #[test]
    fn bad_trace_files_name_the_line_and_the_value() {
        assert_eq!(parse_error(""), "the trace is empty; it needs at least one millisecond timestamp");
        assert_eq!(parse_error(" \n\n"), parse_error(""));
        assert_eq!(parse_error("1\n\n2\n"), "line 2: empty line; every line must be one millisecond timestamp");
        assert_eq!(parse_error("1\n\n"), "line 2: empty line; every line must be one millisecond timestamp");
        assert!(parse_error("1\nabc\n").starts_with("line 2: not a timestamp"));
        assert!(!parse_error("1\nroot:x:0:0:root:/root:/bin/bash\n").contains("root"));
        assert!(parse_error("1\n18446744073710\n").contains("too large a timestamp"));
        assert!(parse_error("1\n-3\n").starts_with("line 2: not a timestamp"));
        assert!(parse_error("1.5\n").starts_with("line 1: not a timestamp"));
        assert_eq!(parse_error("99999999999999999999\n"), "line 1: too large a timestamp (at most 1000000000 ms)");
        assert_eq!(parse_error("5\n3\n"), "line 2: 3 comes after 5; timestamps must not decrease");
        assert!(parse_error("0\n0\n").starts_with("the last timestamp is 0"));
    }

    #[test]
    fn a_checked_trace_needs_opportunities_of_at_least_a_byte() {
        assert_eq!(TraceConfig::checked(vec![1], 1504).map(|c| c.mean_rate_bps()), Ok(12_032_000.0));
        assert!(TraceConfig::checked(vec![1], 0).unwrap_err().message.contains("at least 1 byte"));
        assert_eq!(TraceConfig::checked(vec![], 1504).unwrap_err().entry, None);
        assert_eq!(TraceConfig::checked(vec![4, 2, 1], 1504).unwrap_err().entry, Some(1));
    }

    #[test]
    fn a_trace_of_one_is_twelve_mbit() {
        let config = TraceConfig { opportunities_ms: vec![1].into(), bytes_per_opportunity: 1504 };
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
