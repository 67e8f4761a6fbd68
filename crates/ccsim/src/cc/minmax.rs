//! Windowed running maximum over a sliding window (Kathleen Nichols'
//! algorithm, as Linux lib/win_minmax.c): the best, second-best and
//! third-best samples of the window, each from a later sub-window, so the
//! maximum of the last `win` time units is known in O(1) memory and time.
//! BBR keeps its bottleneck-bandwidth estimate in one, with time counted in
//! round trips.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u64,
    v: u64,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    /// The maximum of the window.
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// Forgets everything: `v` at time `t` is the only sample.
    pub fn reset(&mut self, t: u64, v: u64) -> u64 {
        self.s = [Sample { t, v }; 3];
        v
    }

    /// Adds sample `v` taken at time `t` to a window of length `win`; returns the maximum.
    pub fn update(&mut self, win: u64, t: u64, v: u64) -> u64 {
        let val = Sample { t, v };
        // A new maximum, or nothing left in the window: start over.
        if v >= self.s[0].v || t.saturating_sub(self.s[2].t) > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// Ages the three samples so each covers its share of the window.
    fn subwin_update(&mut self, win: u64, val: Sample) -> u64 {
        let dt = val.t.saturating_sub(self.s[0].t);
        if dt > win {
            // The best sample left the window: promote the others.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.saturating_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window passed without a second choice: take one.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_maximum_of_the_last_window() {
        let mut m = WindowedMax::default();
        m.reset(0, 0);
        assert_eq!(m.update(10, 1, 100), 100);
        for t in 2..=11 {
            assert_eq!(m.update(10, t, 50), 100, "t {t}");
        }
        // At t = 12 the sample of t = 1 is more than 10 old: the max is now 50.
        assert_eq!(m.update(10, 12, 40), 50);
        // Once the 50s age out, the later smaller samples take over.
        let mut last = 0;
        for t in 13..=30 {
            last = m.update(10, t, 40);
        }
        assert_eq!(last, 40);
    }

    #[test]
    fn matches_a_brute_force_window_maximum_within_its_tolerance() {
        // The three-sample filter trades exactness for O(1) state: it never
        // reports more than the maximum of the last two windows, nor less
        // than the newest sample.
        let mut rng = crate::rng::Rng::for_component(1, 1);
        let mut m = WindowedMax::default();
        m.reset(0, 0);
        let mut hist = vec![0u64];
        let win = 10;
        for t in 1..2000u64 {
            let v = rng.next_u64() % 1000;
            hist.push(v);
            let got = m.update(win, t, v);
            let loose = *hist[(t.saturating_sub(2 * win)) as usize..].iter().max().unwrap();
            assert!(got >= v && got <= loose, "t {t}: {got} not in [{v}, {loose}]");
        }
    }
}
