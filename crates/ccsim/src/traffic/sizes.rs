//! Transfer sizes of background web-like traffic.
//!
//! Web object and flow sizes are heavy-tailed (Crovella and Bestavros,
//! "Self-similarity in World Wide Web traffic", IEEE/ACM ToN 1997: Pareto
//! tails with shape 1.1-1.3; Paxson and Floyd, "Wide-area traffic: the
//! failure of Poisson modeling", 1995). Offered are Pareto (default, shape
//! 1.5: heavy-tailed with a finite mean that a run of minutes approaches,
//! where 1.1-1.3 would need hours), lognormal (the body of measured flow-size
//! distributions), exponential and fixed. Every law is parameterized by its
//! mean so that load = arrival rate x mean size holds exactly.

use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeDist {
    /// Pareto with shape `alpha` > 1 and scale x_m = mean (alpha - 1) / alpha.
    Pareto {
        mean: f64,
        alpha: f64,
    },
    /// Lognormal with log-space standard deviation `sigma`; mu = ln(mean) - sigma^2 / 2.
    Lognormal {
        mean: f64,
        sigma: f64,
    },
    Exponential {
        mean: f64,
    },
    Fixed {
        bytes: f64,
    },
}

impl SizeDist {
    pub fn mean(&self) -> f64 {
        match *self {
            SizeDist::Pareto { mean, .. } | SizeDist::Lognormal { mean, .. } | SizeDist::Exponential { mean } => mean,
            SizeDist::Fixed { bytes } => bytes,
        }
    }

    /// One size in bytes (at least 1).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let x = match *self {
            SizeDist::Pareto { mean, alpha } => {
                let xm = mean * (alpha - 1.0) / alpha;
                // Inverse CDF: x = x_m / U^(1/alpha), U in (0, 1].
                xm / (1.0 - rng.uniform()).powf(1.0 / alpha)
            }
            SizeDist::Lognormal { mean, sigma } => (mean.ln() - sigma * sigma / 2.0 + sigma * rng.normal()).exp(),
            SizeDist::Exponential { mean } => rng.exponential(mean),
            SizeDist::Fixed { bytes } => bytes,
        };
        // Cap far beyond any run (1 TB) so a u64 conversion never saturates oddly.
        x.clamp(1.0, 1e12).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_of(d: SizeDist, n: usize) -> f64 {
        let mut r = Rng::for_component(3, 9);
        (0..n).map(|_| d.sample(&mut r) as f64).sum::<f64>() / n as f64
    }

    #[test]
    fn sample_means_match_the_parameter() {
        let m = mean_of(SizeDist::Lognormal { mean: 50_000.0, sigma: 1.0 }, 200_000);
        assert!((m / 50_000.0 - 1.0).abs() < 0.02, "{m}");
        let m = mean_of(SizeDist::Exponential { mean: 10_000.0 }, 200_000);
        assert!((m / 10_000.0 - 1.0).abs() < 0.02, "{m}");
        // Shape 2.5 has finite variance, so the sample mean settles quickly.
        let m = mean_of(SizeDist::Pareto { mean: 100_000.0, alpha: 2.5 }, 400_000);
        assert!((m / 100_000.0 - 1.0).abs() < 0.03, "{m}");
    }

    #[test]
    fn pareto_has_its_tail() {
        // P(X > 10 x_m) = 10^-alpha.
        let d = SizeDist::Pareto { mean: 3000.0, alpha: 1.5 };
        let xm = 1000.0;
        let mut r = Rng::for_component(4, 1);
        let n = 200_000;
        let over = (0..n).filter(|_| d.sample(&mut r) as f64 > 10.0 * xm).count() as f64 / n as f64;
        assert!((over / 10f64.powf(-1.5) - 1.0).abs() < 0.05, "{over}");
    }
}
