//! Ranges of segments the scoreboard already marked SACKed, so that an ACK's
//! SACK blocks walk only what is new (Linux's recv_sack_cache in
//! tcp_sacktag_write_queue does the same).
//!
//! In a recovery every ACK repeats its blocks, each grown by a segment or
//! two; walked whole, a block of n segments costs n steps per ACK for a
//! segment or two of news. A SACK mark is never taken back (a segment stays
//! SACKed until it is cumulatively ACKed), so every range once walked stays
//! SACKed, and walking it again can be skipped without changing anything.
//! A few ranges are kept, merged when they touch: the islands the receiver
//! reports.

/// How many ranges are kept (an ACK carries at most four SACK blocks).
const KEPT: usize = 4;

/// Up to KEPT ranges [start, end) of segments known to be SACKed. An empty
/// slot is (0, 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct SackedRanges {
    ranges: [(u64, u64); KEPT],
}

impl SackedRanges {
    /// For segment `seq`: the end of a kept range that holds it (`seq` if
    /// none does), and the lowest start of a kept range above it (u64::MAX
    /// if none).
    #[inline]
    pub fn around(&self, seq: u64) -> (u64, u64) {
        let mut covered_to = seq;
        let mut next_start = u64::MAX;
        for &(start, end) in &self.ranges {
            if start <= seq && seq < end {
                covered_to = covered_to.max(end);
            } else if start > seq {
                next_start = next_start.min(start);
            }
        }
        (covered_to, next_start)
    }

    /// [start, end) is now SACKed: merged into a kept range it overlaps or
    /// touches, else kept in place of the range that ends lowest (the
    /// oldest news, soon below SND.UNA).
    #[inline]
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        for r in self.ranges.iter_mut() {
            if r.0 < r.1 && start <= r.1 && r.0 <= end {
                *r = (r.0.min(start), r.1.max(end));
                return;
            }
        }
        // An empty slot ends at 0, so it goes first.
        let slot = (0..KEPT).min_by_key(|&i| self.ranges[i].1).expect("KEPT > 0");
        self.ranges[slot] = (start, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_covers_its_segments_and_names_the_next_one() {
        let mut r = SackedRanges::default();
        r.insert(10, 20);
        r.insert(30, 35);
        assert_eq!(r.around(5), (5, 10));
        assert_eq!(r.around(10), (20, 30));
        assert_eq!(r.around(19), (20, 30));
        assert_eq!(r.around(20), (20, 30));
        assert_eq!(r.around(34), (35, u64::MAX));
        assert_eq!(r.around(35), (35, u64::MAX));
    }

    #[test]
    fn touching_or_overlapping_ranges_merge() {
        let mut r = SackedRanges::default();
        r.insert(10, 20);
        r.insert(20, 22);
        r.insert(8, 12);
        assert_eq!(r.around(8), (22, u64::MAX));
    }

    #[test]
    fn a_full_set_replaces_the_range_that_ends_lowest() {
        let mut r = SackedRanges::default();
        for k in 0..KEPT as u64 {
            r.insert(100 * k + 10, 100 * k + 20);
        }
        r.insert(1000, 1010);
        assert_eq!(r.around(10), (10, 110), "the lowest range was dropped");
        assert_eq!(r.around(110), (120, 210));
        assert_eq!(r.around(1000), (1010, u64::MAX));
    }

    #[test]
    fn an_empty_range_is_not_kept() {
        let mut r = SackedRanges::default();
        r.insert(5, 5);
        assert_eq!(r.around(5), (5, u64::MAX));
    }
}
