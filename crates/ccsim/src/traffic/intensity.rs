//! An intensity profile: a multiplier of a background source's load over
//! simulated time, given as (time, multiplier) points, either held until the
//! next point ("step", piecewise constant) or interpolated ("linear").
//! Before the first point the first multiplier holds, after the last the last.
//!
//! This is how a run reproduces the 4G study's day periods (early morning,
//! forenoon, afternoon, evening: rising cell load): one point per period.

use crate::time::Nanos;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Interpolation {
    #[default]
    Step,
    Linear,
}

#[derive(Clone, Debug)]
pub struct Intensity {
    /// Sorted by time; never empty (a constant profile is one point).
    points: Vec<(Nanos, f64)>,
    interpolation: Interpolation,
    max: f64,
}

impl Intensity {
    /// A constant multiplier of 1.
    pub fn constant() -> Intensity {
        Intensity::new(Vec::new(), Interpolation::Step)
    }

    /// `points` need not be sorted; an empty list is the constant 1.
    pub fn new(mut points: Vec<(Nanos, f64)>, interpolation: Interpolation) -> Intensity {
        if points.is_empty() {
            points.push((0, 1.0));
        }
        points.sort_by_key(|p| p.0);
        let max = points.iter().map(|p| p.1).fold(0.0, f64::max);
        Intensity { points, interpolation, max }
    }

    /// The multiplier at time `t`.
    pub fn at(&self, t: Nanos) -> f64 {
        let p = &self.points;
        // Index of the first point after t.
        let k = p.partition_point(|&(pt, _)| pt <= t);
        if k == 0 {
            return p[0].1;
        }
        if k == p.len() || self.interpolation == Interpolation::Step {
            return p[k - 1].1;
        }
        let ((t0, m0), (t1, m1)) = (p[k - 1], p[k]);
        m0 + (m1 - m0) * (t - t0) as f64 / (t1 - t0) as f64
    }

    /// The largest multiplier anywhere (bounds the thinning of arrivals).
    pub fn max(&self) -> f64 {
        self.max
    }

    /// The next time after `t` at which the multiplier changes (step) or may
    /// change (linear), if any.
    pub fn next_change_after(&self, t: Nanos) -> Option<Nanos> {
        self.points.iter().map(|p| p.0).find(|&pt| pt > t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_and_linear_profiles() {
        let pts = vec![(10, 2.0), (0, 1.0), (20, 0.0)];
        let s = Intensity::new(pts.clone(), Interpolation::Step);
        assert_eq!([s.at(0), s.at(5), s.at(10), s.at(19), s.at(25)], [1.0, 1.0, 2.0, 2.0, 0.0]);
        let l = Intensity::new(pts, Interpolation::Linear);
        assert_eq!([l.at(0), l.at(5), l.at(15), l.at(20), l.at(99)], [1.0, 1.5, 1.0, 0.0, 0.0]);
        assert_eq!(l.max(), 2.0);
        assert_eq!(Intensity::constant().at(123), 1.0);
        assert_eq!(s.next_change_after(10), Some(20));
    }
}
