//! Streaming statistics of one flow's RTT samples, updated from every sample
//! while the run goes (so they need none of the samples kept).
//!
//! Count, mean, population standard deviation (Welford's online algorithm),
//! minimum and maximum are exact up to floating-point rounding. Percentiles
//! come from a DDSketch (Masson, Rim and Lee, "DDSketch: a fast and
//! fully-mergeable quantile sketch with relative-error guarantees", VLDB
//! 2019; the `sketches-ddsketch` crate): the q-th percentile is within
//! `PERCENTILE_RELATIVE_ERROR` (1%) of the sample of rank floor(q (n - 1))
//! in sorted order (numpy's `method="lower"`), and inside [min, max]. The
//! sketch keeps one counter per 2% band of RTT values: about 2 KiB per flow
//! whose RTTs span a factor of 100.
//!
//! Consecutive samples are often equal (on a fast path most are: the
//! timestamps of one flight of ACKs differ by the same amounts), so a run of
//! equal samples goes into the sketch in one insertion with its count, which
//! leaves the sketch exactly as one insertion per sample would (it keeps only
//! a count per band) and saves the logarithm of each repeat.

use super::table::{Column, Table};
use sketches_ddsketch::{Config, DDSketch};

/// The percentiles' bound: |reported - true| <= this x true.
pub const PERCENTILE_RELATIVE_ERROR: f64 = 0.01;
/// Most sketch bins (never reached by RTTs: 2048 bins of 2% span a factor of 10^17).
const MAX_BINS: u32 = 2048;
/// Smallest value the sketch tells apart from zero, in ms.
const MIN_VALUE_MS: f64 = 1e-9;

/// The percentiles of the flows table, as (column, quantile).
pub const PERCENTILES: [(&str, f64); 4] =
    [("rtt_p50_ms", 0.50), ("rtt_p90_ms", 0.90), ("rtt_p95_ms", 0.95), ("rtt_p99_ms", 0.99)];

/// Running statistics of RTT samples in milliseconds.
#[derive(Clone)]
pub struct RttStats {
    count: u64,
    mean_ms: f64,
    /// Sum of squared differences from the mean (Welford's M2).
    m2: f64,
    min_ms: f64,
    max_ms: f64,
    sketch: DDSketch,
    /// The latest samples, all equal to `run_ms`, not yet in the sketch.
    run_ms: f64,
    run: u64,
}

impl Default for RttStats {
    fn default() -> Self {
        RttStats {
            count: 0,
            mean_ms: 0.0,
            m2: 0.0,
            min_ms: f64::INFINITY,
            max_ms: f64::NEG_INFINITY,
            sketch: DDSketch::new(Config::new(PERCENTILE_RELATIVE_ERROR, MAX_BINS, MIN_VALUE_MS)),
            run_ms: 0.0,
            run: 0,
        }
    }
}

impl RttStats {
    #[inline]
    pub fn add(&mut self, rtt_ms: f64) {
        self.count += 1;
        let delta = rtt_ms - self.mean_ms;
        self.mean_ms += delta / self.count as f64;
        self.m2 += delta * (rtt_ms - self.mean_ms);
        self.min_ms = self.min_ms.min(rtt_ms);
        self.max_ms = self.max_ms.max(rtt_ms);
        if rtt_ms == self.run_ms {
            self.run += 1;
        } else {
            self.flush();
            (self.run_ms, self.run) = (rtt_ms, 1);
        }
    }

    /// Puts the pending run of equal samples into the sketch (percentiles
    /// are exact either way; they are cheaper after a flush).
    pub fn flush(&mut self) {
        if self.run > 0 {
            self.sketch.add_with_count(self.run_ms, self.run);
            self.run = 0;
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    fn when_any(&self, v: f64) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            v
        }
    }

    pub fn mean_ms(&self) -> f64 {
        self.when_any(self.mean_ms)
    }

    /// Population standard deviation (numpy's default `ddof=0`).
    pub fn std_ms(&self) -> f64 {
        self.when_any((self.m2 / self.count as f64).max(0.0).sqrt())
    }

    pub fn min_ms(&self) -> f64 {
        self.when_any(self.min_ms)
    }

    pub fn max_ms(&self) -> f64 {
        self.when_any(self.max_ms)
    }

    /// Mean queuing time: mean of (sample - minimum) = mean - minimum.
    pub fn queuing_mean_ms(&self) -> f64 {
        self.when_any(self.mean_ms - self.min_ms)
    }

    /// The q-th quantile (0 <= q <= 1) within PERCENTILE_RELATIVE_ERROR; NaN without samples.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        let mut sketch = std::borrow::Cow::Borrowed(&self.sketch);
        if self.run > 0 {
            sketch.to_mut().add_with_count(self.run_ms, self.run);
        }
        match sketch.quantile(q) {
            Ok(Some(v)) => v.clamp(self.min_ms, self.max_ms),
            _ => f64::NAN,
        }
    }
}

/// Adds the flows table's RTT statistics, a row per flow of `stats` (from
/// every sample of each): the simulator's and the kernel emulator's.
pub fn add_columns(table: &mut Table, stats: &[RttStats]) {
    let column = |m: &dyn Fn(&RttStats) -> f64| Column::F64(stats.iter().map(m).collect());
    table.add("rtt_samples", Column::U64(stats.iter().map(RttStats::count).collect()));
    table.add("rtt_mean_ms", column(&RttStats::mean_ms));
    table.add("rtt_std_ms", column(&RttStats::std_ms));
    table.add("rtt_min_ms", column(&RttStats::min_ms));
    for (name, q) in PERCENTILES {
        table.add(name, column(&|s| s.quantile_ms(q)));
    }
    table.add("rtt_max_ms", column(&RttStats::max_ms));
    table.add("queuing_mean_ms", column(&RttStats::queuing_mean_ms));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lower_percentile(sorted: &[f64], q: f64) -> f64 {
        sorted[(q * (sorted.len() - 1) as f64) as usize]
    }

    proptest! {
        #[test]
        fn moments_are_exact_and_percentiles_within_the_bound(
            samples in prop::collection::vec(0.05f64..5_000.0, 1..400)
        ) {
            let mut s = RttStats::default();
            samples.iter().for_each(|&x| s.add(x));
            let n = samples.len() as f64;
            let mean = samples.iter().sum::<f64>() / n;
            let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
            prop_assert_eq!(s.count(), samples.len() as u64);
            prop_assert!(close(s.mean_ms(), mean), "mean {} vs {}", s.mean_ms(), mean);
            prop_assert!(close(s.std_ms(), var.sqrt()), "std {} vs {}", s.std_ms(), var.sqrt());
            let mut sorted = samples.clone();
            sorted.sort_by(f64::total_cmp);
            prop_assert_eq!(s.min_ms(), sorted[0]);
            prop_assert_eq!(s.max_ms(), *sorted.last().unwrap());
            prop_assert!(close(s.queuing_mean_ms(), mean - sorted[0]));
            for (_, q) in PERCENTILES {
                let want = lower_percentile(&sorted, q);
                let got = s.quantile_ms(q);
                prop_assert!(
                    (got - want).abs() <= PERCENTILE_RELATIVE_ERROR * want * (1.0 + 1e-12),
                    "p{} {} vs {}", q * 100.0, got, want
                );
            }
        }
    }

    proptest! {
        /// Runs of equal samples (what makes the batching pay) give the
        /// percentiles of a sketch fed one sample at a time, flushed or not.
        #[test]
        fn runs_of_equal_samples_give_the_percentiles_of_single_insertions(
            runs in prop::collection::vec((0.05f64..5_000.0, 1usize..20), 1..100),
            flush_every in 1usize..50,
        ) {
            let mut s = RttStats::default();
            let mut single = DDSketch::new(Config::new(PERCENTILE_RELATIVE_ERROR, MAX_BINS, MIN_VALUE_MS));
            let mut n = 0;
            for (x, count) in runs {
                for _ in 0..count {
                    s.add(x);
                    single.add(x);
                    n += 1;
                    if n % flush_every == 0 {
                        s.flush();
                    }
                }
            }
            for q in [0.01, 0.25, 0.5, 0.9, 0.95, 0.99] {
                let want = single.quantile(q).unwrap().unwrap().clamp(s.min_ms(), s.max_ms());
                prop_assert_eq!(s.quantile_ms(q).to_bits(), want.to_bits(), "p{}", q * 100.0);
            }
        }
    }

    #[test]
    fn no_samples_give_nan_and_a_zero_count() {
        let s = RttStats::default();
        assert_eq!(s.count(), 0);
        assert!(s.mean_ms().is_nan() && s.std_ms().is_nan() && s.min_ms().is_nan() && s.quantile_ms(0.5).is_nan());
    }
}
