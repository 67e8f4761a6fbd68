//! The ranges of segments the scoreboard has marked SACKed, all of them, so
//! that an ACK's SACK blocks walk only the segments that are new (Linux's
//! recv_sack_cache in tcp_sacktag_write_queue serves the same end).
//!
//! In a recovery every ACK repeats its blocks, each grown by a segment or
//! two; walked whole, a block of n segments costs n steps per ACK for a
//! segment or two of news. A SACK mark is never taken back (a segment stays
//! SACKed until it is cumulatively ACKed), so the ranges only grow and
//! merge, and lose their part below SND.UNA. A flow that keeps losing holds
//! many islands at once, and an ACK's blocks need not be the ones the last
//! ACK reported: every range is kept, sorted, so that a block that
//! reports nothing new costs a binary search rather than a walk.

/// How many of the highest ranges a block is looked for in before a
/// binary search (an ACK carries at most four blocks).
const LOOK_BACK: usize = 4;

/// Every range [start, end) of SACKed segments, sorted, disjoint and not
/// touching (touching ranges are merged). Ranges wholly below SND.UNA are
/// dropped by `forget_below`; one that straddles it may stay.
#[derive(Clone, Debug, Default)]
pub struct SackedRanges {
    ranges: Vec<(u64, u64)>,
}

impl SackedRanges {
    /// [start, end) is being SACKed: calls `on_new` with each part of it
    /// not SACKed before, in sequence order, as [from, to), then records
    /// the whole range.
    #[inline]
    pub fn mark(&mut self, start: u64, end: u64, mut on_new: impl FnMut(u64, u64)) {
        if start >= end {
            return;
        }
        // The first range that ends at or after `start`: it and those after
        // it that start at or before `end` touch the block.
        let first = self.first_ending_at_or_after(start);
        let mut seq = start;
        let mut k = first;
        while k < self.ranges.len() && self.ranges[k].0 <= end {
            let (r_start, r_end) = self.ranges[k];
            if seq < r_start {
                on_new(seq, r_start);
            }
            seq = seq.max(r_end);
            k += 1;
        }
        if seq < end {
            on_new(seq, end);
        }
        // Ranges first..k merge with the block into one.
        if k == first {
            self.ranges.insert(first, (start, end));
        } else {
            let merged = (start.min(self.ranges[first].0), end.max(self.ranges[k - 1].1));
            self.ranges[first] = merged;
            // Most often the block touched one range only: nothing to remove.
            if k > first + 1 {
                self.ranges.drain(first + 1..k);
            }
        }
    }

    /// The index of the first range that ends at or after `seq`. An ACK's
    /// blocks are most often the highest ranges (the latest, growing, and
    /// the highest others, RFC 2018), so the last few are looked at before a
    /// binary search over all.
    #[inline]
    fn first_ending_at_or_after(&self, seq: u64) -> usize {
        let n = self.ranges.len();
        let mut i = n;
        while i > 0 && n - i < LOOK_BACK {
            if self.ranges[i - 1].1 < seq {
                return i;
            }
            i -= 1;
        }
        self.ranges[..i].partition_point(|r| r.1 < seq)
    }

    /// SND.UNA is now `una`: the ranges wholly below it are dropped.
    #[inline]
    pub fn forget_below(&mut self, una: u64) {
        if self.ranges.first().is_some_and(|r| r.1 <= una) {
            let below = self.ranges.partition_point(|r| r.1 <= una);
            self.ranges.drain(..below);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mark(start, end)`'s new parts.
    fn mark(r: &mut SackedRanges, start: u64, end: u64) -> Vec<(u64, u64)> {
        let mut new = Vec::new();
        r.mark(start, end, |from, to| new.push((from, to)));
        new
    }

    #[test]
    fn a_block_walks_only_what_is_new() {
        let mut r = SackedRanges::default();
        assert_eq!(mark(&mut r, 10, 20), [(10, 20)]);
        assert_eq!(mark(&mut r, 10, 20), [], "reported again: nothing new");
        assert_eq!(mark(&mut r, 10, 22), [(20, 22)], "grown at its end");
        assert_eq!(mark(&mut r, 30, 35), [(30, 35)]);
        assert_eq!(mark(&mut r, 5, 40), [(5, 10), (22, 30), (35, 40)]);
        assert_eq!(r.ranges, [(5, 40)]);
    }

    #[test]
    fn touching_or_overlapping_ranges_merge_and_others_stay_apart() {
        let mut r = SackedRanges::default();
        mark(&mut r, 10, 20);
        mark(&mut r, 30, 40);
        mark(&mut r, 50, 60);
        assert_eq!(mark(&mut r, 20, 22), [(20, 22)]);
        assert_eq!(mark(&mut r, 8, 12), [(8, 10)]);
        assert_eq!(r.ranges, [(8, 22), (30, 40), (50, 60)]);
        assert_eq!(mark(&mut r, 25, 26), [(25, 26)]);
        assert_eq!(r.ranges, [(8, 22), (25, 26), (30, 40), (50, 60)]);
        assert_eq!(mark(&mut r, 40, 50), [(40, 50)], "joins the two ranges it touches");
        assert_eq!(r.ranges, [(8, 22), (25, 26), (30, 60)]);
    }

    #[test]
    fn many_islands_are_all_kept() {
        let mut r = SackedRanges::default();
        for k in 0..100 {
            mark(&mut r, 10 * k, 10 * k + 5);
        }
        for k in 0..100 {
            assert_eq!(mark(&mut r, 10 * k, 10 * k + 5), [], "island {k}");
        }
        assert_eq!(mark(&mut r, 3, 12), [(5, 10)]);
        assert_eq!(r.ranges.len(), 99);
    }

    #[test]
    fn ranges_below_snd_una_are_forgotten() {
        let mut r = SackedRanges::default();
        mark(&mut r, 10, 20);
        mark(&mut r, 30, 40);
        r.forget_below(20);
        assert_eq!(r.ranges, [(30, 40)]);
        r.forget_below(35);
        assert_eq!(r.ranges, [(30, 40)], "a range that straddles SND.UNA stays");
    }

    #[test]
    fn an_empty_block_marks_nothing() {
        let mut r = SackedRanges::default();
        assert_eq!(mark(&mut r, 5, 5), []);
        assert!(r.ranges.is_empty());
    }
}
