//! Random loss of frames on the air: independent (Bernoulli) or bursty
//! (Gilbert-Elliott).
//!
//! Gilbert-Elliott (E. N. Gilbert 1960, E. O. Elliott 1963; the
//! parametrisation of Hasslinger and Hohlfeld 2008 and of Linux netem's
//! `loss gemodel p r 1-h 1-k`): a two-state Markov chain stepped once per frame.
//!   Good --p--> Bad,  Bad --r--> Good
//!   a frame is lost with probability `loss_good` (netem's 1-k) in Good and
//!   `loss_bad` (netem's 1-h) in Bad.
//! Each frame first draws its loss in the current state, then the chain moves.
//! Stationary: P(Bad) = p / (p + r); loss rate = (r loss_good + p loss_bad) / (p + r).
//! The simple Gilbert model is loss_good = 0, loss_bad = 1: then losses come in
//! bursts of geometric length with mean 1/r, and a loss rate of p / (p + r).

use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossModel {
    None,
    Bernoulli { p: f64 },
    GilbertElliott { p: f64, r: f64, loss_good: f64, loss_bad: f64 },
}

impl LossModel {
    /// The simple Gilbert model with a given mean loss rate and mean burst length (frames).
    pub fn gilbert_from_mean(mean_loss: f64, mean_burst: f64) -> LossModel {
        let r = 1.0 / mean_burst;
        let p = r * mean_loss / (1.0 - mean_loss);
        LossModel::GilbertElliott { p, r, loss_good: 0.0, loss_bad: 1.0 }
    }

    /// Long-run fraction of frames lost.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott { p, r, loss_good, loss_bad } => {
                if p + r == 0.0 {
                    loss_good
                } else {
                    (r * loss_good + p * loss_bad) / (p + r)
                }
            }
        }
    }
}

/// A loss model with its state and random stream.
pub struct Loss {
    model: LossModel,
    bad: bool,
    rng: Rng,
}

impl Loss {
    /// Starts in the Good state.
    pub fn new(model: LossModel, rng: Rng) -> Loss {
        Loss { model, bad: false, rng }
    }

    pub fn model(&self) -> LossModel {
        self.model
    }

    /// Whether the next frame is lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self.model {
            LossModel::None => false,
            LossModel::Bernoulli { p } => self.rng.chance(p),
            LossModel::GilbertElliott { p, r, loss_good, loss_bad } => {
                let lost = self.rng.chance(if self.bad { loss_bad } else { loss_good });
                let flip = self.rng.chance(if self.bad { r } else { p });
                self.bad ^= flip;
                lost
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loss rate and mean length of runs of consecutive losses over n frames.
    fn measure(model: LossModel, n: usize) -> (f64, f64) {
        let mut l = Loss::new(model, Rng::for_component(3, 4));
        let (mut lost, mut bursts, mut prev) = (0usize, 0usize, false);
        for _ in 0..n {
            let x = l.lose();
            lost += x as usize;
            bursts += (x && !prev) as usize;
            prev = x;
        }
        (lost as f64 / n as f64, lost as f64 / bursts.max(1) as f64)
    }

    #[test]
    fn bernoulli_rate() {
        let (rate, _) = measure(LossModel::Bernoulli { p: 0.02 }, 1_000_000);
        assert!((rate - 0.02).abs() < 0.001, "{rate}");
        assert_eq!(measure(LossModel::None, 1000).0, 0.0);
    }

    #[test]
    fn gilbert_has_its_stationary_rate_and_burst_length() {
        // 2% loss in bursts of 4 frames on average.
        let model = LossModel::gilbert_from_mean(0.02, 4.0);
        assert!((model.mean_loss() - 0.02).abs() < 1e-12);
        let (rate, burst) = measure(model, 4_000_000);
        // Std error of the rate ~ sqrt(rate * burst / n) ~ 1.4e-4; of the burst ~ 0.03.
        assert!((rate - 0.02).abs() < 0.001, "loss rate {rate}");
        assert!((burst - 4.0).abs() < 0.15, "mean burst {burst}");
    }

    #[test]
    fn gilbert_elliott_general_form() {
        let model = LossModel::GilbertElliott { p: 0.01, r: 0.1, loss_good: 0.001, loss_bad: 0.5 };
        let expected = (0.1 * 0.001 + 0.01 * 0.5) / 0.11;
        assert!((model.mean_loss() - expected).abs() < 1e-12);
        let (rate, _) = measure(model, 4_000_000);
        assert!((rate - expected).abs() < 0.05 * expected, "loss rate {rate}, expected {expected}");
    }
}
