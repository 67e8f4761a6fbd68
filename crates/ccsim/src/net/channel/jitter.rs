//! Delay jitter: a random extra delay per packet, on top of the propagation
//! delay, drawn from a uniform, normal (truncated at zero) or exponential
//! distribution.
//!
//! Two modes:
//!   reorder = true:  each packet is delayed independently, as Linux netem
//!                    does with `delay D J` and no rate: a packet may overtake
//!                    an earlier one (the delay line then sorts by exit time,
//!                    ties by arrival order).
//!   reorder = false: exit = max(previous exit, own exit): jitter without
//!                    reordering, as a link-layer that delivers in order.
//! The normal distribution is truncated by redrawing negative values (not
//! clamped to zero, which would put a mass at zero); its mean is then a
//! little above `mean` when `std` is not small against it.

use crate::rng::Rng;
use crate::time::Nanos;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JitterDist {
    Uniform { min_ns: Nanos, max_ns: Nanos },
    Normal { mean_ns: f64, std_ns: f64 },
    Exponential { mean_ns: f64 },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JitterConfig {
    pub dist: JitterDist,
    pub reorder: bool,
}

pub struct Jitter {
    config: JitterConfig,
    last_exit: Nanos,
    rng: Rng,
}

impl Jitter {
    pub fn new(config: JitterConfig, rng: Rng) -> Jitter {
        Jitter { config, last_exit: 0, rng }
    }

    /// One draw of the extra delay.
    pub fn sample_ns(&mut self) -> Nanos {
        match self.config.dist {
            JitterDist::Uniform { min_ns, max_ns } => min_ns + (self.rng.uniform() * (max_ns - min_ns) as f64) as Nanos,
            JitterDist::Normal { mean_ns, std_ns } => {
                // Redraw below zero; give up after many tries (only if mean << 0, which validation forbids).
                for _ in 0..64 {
                    let x = mean_ns + std_ns * self.rng.normal();
                    if x >= 0.0 {
                        return x as Nanos;
                    }
                }
                0
            }
            JitterDist::Exponential { mean_ns } => self.rng.exponential(mean_ns) as Nanos,
        }
    }

    /// The exit time of a packet due at `t` without jitter.
    #[inline]
    pub fn apply(&mut self, t: Nanos) -> Nanos {
        let exit = t + self.sample_ns();
        if self.config.reorder {
            exit
        } else {
            self.last_exit = self.last_exit.max(exit);
            self.last_exit
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mean, standard deviation, smallest and largest of 200,000 draws, and the share of draws that are zero.
    fn stats(dist: JitterDist) -> (f64, f64, f64, f64, f64) {
        let mut j = Jitter::new(JitterConfig { dist, reorder: true }, Rng::for_component(8, 8));
        let xs: Vec<f64> = (0..200_000).map(|_| j.sample_ns() as f64).collect();
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        let lo = xs.iter().cloned().fold(f64::MAX, f64::min);
        let hi = xs.iter().cloned().fold(f64::MIN, f64::max);
        let zero_share = xs.iter().filter(|&&x| x == 0.0).count() as f64 / n;
        (mean, var.sqrt(), lo, hi, zero_share)
    }

    #[test]
    fn distributions_have_their_moments() {
        let (m, s, lo, hi, _) = stats(JitterDist::Uniform { min_ns: 1_000_000, max_ns: 3_000_000 });
        assert!((m - 2e6).abs() < 1e4 && (s - 2e6 / 12f64.sqrt()).abs() < 1e4, "{m} {s}");
        assert!((1e6..1.001e6).contains(&lo) && hi <= 3e6 && hi > 2.999e6, "uniform range [{lo}, {hi}]");
        let (m, s, ..) = stats(JitterDist::Exponential { mean_ns: 2e6 });
        assert!((m - 2e6).abs() < 2e4 && (s - 2e6).abs() < 4e4, "{m} {s}");
        let (m, s, ..) = stats(JitterDist::Normal { mean_ns: 10e6, std_ns: 1e6 });
        assert!((m - 10e6).abs() < 1e4 && (s - 1e6).abs() < 1e4, "{m} {s}");
    }

    /// Negative normal draws are redrawn, not clamped: clamping would put half of
    /// N(0, 1 ms) at exactly zero and give the mean of a clamped normal (0.40 ms);
    /// redrawing gives the half-normal's mean std * sqrt(2 / pi) (0.80 ms).
    #[test]
    fn normal_jitter_is_truncated_by_redrawing() {
        let (m, _, _, _, zero_share) = stats(JitterDist::Normal { mean_ns: 0.0, std_ns: 1e6 });
        assert!(zero_share < 1e-3, "{zero_share} of the draws are zero");
        assert!((m - 1e6 * (2.0 / std::f64::consts::PI).sqrt()).abs() < 1e4, "{m}");
    }

    #[test]
    fn order_preserving_mode_never_reorders() {
        let dist = JitterDist::Uniform { min_ns: 0, max_ns: 5_000_000 };
        for reorder in [false, true] {
            let mut j = Jitter::new(JitterConfig { dist, reorder }, Rng::for_component(8, 9));
            let exits: Vec<Nanos> = (0..1000u64).map(|i| j.apply(i * 100_000)).collect();
            let inversions = exits.windows(2).filter(|w| w[1] < w[0]).count();
            assert_eq!(inversions == 0, !reorder, "reorder {reorder}: {inversions} inversions");
        }
    }
}
