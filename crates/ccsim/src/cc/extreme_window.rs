//! The exact minimum (or maximum) of the samples of the last `win`
//! nanoseconds, for a window whose length changes from sample to sample
//! (Copa's standing RTT is the minimum RTT over the last srtt/2, and srtt
//! moves). A monotone deque: each sample is pushed once and popped once, so
//! an update is O(1) amortized; the deque keeps only the samples that may
//! still become the extreme (strictly increasing values for a minimum), as
//! genericCC's rtt-window.cc (the Copa authors' code) does. Unlike `minmax`'s
//! three-sample filter it is exact, which a window of a fraction of an RTT
//! needs: the filter's sub-windows would be shorter than the spacing of ACKs.

use crate::time::Nanos;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct ExtremeWindow {
    /// (time, value), times increasing; values increasing (min) or decreasing (max).
    samples: VecDeque<(Nanos, Nanos)>,
    max: bool,
}

impl ExtremeWindow {
    /// A window of the smallest sample.
    pub fn min() -> ExtremeWindow {
        ExtremeWindow { samples: VecDeque::with_capacity(64), max: false }
    }

    /// A window of the largest sample.
    pub fn max() -> ExtremeWindow {
        ExtremeWindow { samples: VecDeque::with_capacity(64), max: true }
    }

    /// `a` would replace `b` as the extreme (ties keep the newer sample).
    fn beats(&self, a: Nanos, b: Nanos) -> bool {
        if self.max {
            a >= b
        } else {
            a <= b
        }
    }

    /// Adds `value` seen at `now` (times never go back) and forgets the
    /// samples older than `win`; the newest sample always stays.
    pub fn update(&mut self, now: Nanos, value: Nanos, win: Nanos) {
        while self.samples.back().is_some_and(|&(_, v)| self.beats(value, v)) {
            self.samples.pop_back();
        }
        self.samples.push_back((now, value));
        self.expire(now, win);
    }

    /// Forgets the samples older than `win` at `now`, keeping the newest.
    pub fn expire(&mut self, now: Nanos, win: Nanos) {
        while self.samples.len() > 1 && self.samples.front().is_some_and(|&(t, _)| now.saturating_sub(t) > win) {
            self.samples.pop_front();
        }
    }

    /// The extreme of the window (None before the first sample).
    pub fn get(&self) -> Option<Nanos> {
        self.samples.front().map(|&(_, v)| v)
    }

    pub fn clear(&mut self) {
        self.samples.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimum_of_the_window_follows_the_samples_out_of_it() {
        let mut w = ExtremeWindow::min();
        w.update(0, 50, 10);
        w.update(4, 70, 10);
        w.update(8, 60, 10);
        assert_eq!(w.get(), Some(50));
        w.update(11, 80, 10); // the 50 at t=0 is older than 10
        assert_eq!(w.get(), Some(60));
        w.update(30, 90, 10); // everything else expired: the newest stays
        assert_eq!(w.get(), Some(90));
        // A shorter window applies from the next update.
        w.update(31, 95, 10);
        w.update(35, 99, 2);
        assert_eq!(w.get(), Some(99));
    }

    #[test]
    fn the_maximum_mirrors_the_minimum() {
        let mut w = ExtremeWindow::max();
        for (t, v) in [(0, 5), (1, 9), (2, 7), (3, 8)] {
            w.update(t, v, 100);
        }
        assert_eq!(w.get(), Some(9));
        w.update(102, 1, 100); // 9 (t=1) is now 101 old
        assert_eq!(w.get(), Some(8));
    }
}
