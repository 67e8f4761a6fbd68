//! The per-ACK RTT samples the `rtt` table keeps, per flow: all of them,
//! none, or a uniform random sample of at most N (a reservoir, Li's
//! "Algorithm L", ACM TOMS 20(4), 1994: O(1) per sample, a random draw only
//! per sample taken). The reservoir draws from the run's rng, one stream per
//! flow, so the same seed keeps the same rows.
//!
//! Rows come out per flow (in flow order), each flow's in time order.

use super::table::{Column, Table};
use crate::rng::{stream, Rng};
use crate::time::{secs, Nanos};

/// One flow's kept samples: (time, RTT).
struct FlowSamples {
    kept: Vec<(Nanos, Nanos)>,
    /// Samples offered so far.
    seen: u64,
    /// Reservoir state: the index (in `seen` order) of the next sample to
    /// take, and Algorithm L's W.
    next_taken: u64,
    w: f64,
    rng: Rng,
}

/// The RTT samples of every flow (the default: of no flow).
#[derive(Default)]
pub struct RttSamples {
    /// At most this many per flow (None: all; Some(0): none).
    per_flow: Option<u64>,
    flows: Vec<FlowSamples>,
}

impl RttSamples {
    /// For `flows` flows of a run seeded with `seed`, keeping at most
    /// `per_flow` samples of each (None: all; Some(0): none).
    pub fn new(per_flow: Option<u64>, flows: usize, seed: u64) -> RttSamples {
        let flows = if per_flow == Some(0) {
            Vec::new()
        } else {
            (0..flows)
                .map(|i| FlowSamples {
                    kept: Vec::new(),
                    seen: 0,
                    next_taken: 0,
                    w: 1.0,
                    rng: Rng::for_component(seed, stream::RTT_SAMPLES_BASE + i as u64),
                })
                .collect()
        };
        RttSamples { per_flow, flows }
    }

    /// Offers flow `flow`'s sample `rtt` taken at `now` (flows beyond those
    /// given to `new` are not recorded). Inline where every ACK calls it, for
    /// the default of keeping none; the keeping is out of line.
    #[inline(always)]
    pub fn push(&mut self, now: Nanos, flow: usize, rtt: Nanos) {
        if flow < self.flows.len() {
            self.keep(now, flow, rtt);
        }
    }

    /// `push` of a flow whose samples are kept (all, or a reservoir's).
    #[inline(never)]
    fn keep(&mut self, now: Nanos, flow: usize, rtt: Nanos) {
        let f = &mut self.flows[flow];
        let index = f.seen;
        f.seen += 1;
        match self.per_flow {
            None => f.kept.push((now, rtt)),
            Some(k) if index < k => {
                f.kept.push((now, rtt));
                if index + 1 == k {
                    f.w = (f.rng.uniform_open().ln() / k as f64).exp();
                    f.next_taken = index + 1 + skip(&mut f.rng, f.w);
                }
            }
            Some(k) => {
                if index == f.next_taken {
                    let slot = (f.rng.uniform() * k as f64) as usize;
                    f.kept[slot.min(k as usize - 1)] = (now, rtt);
                    f.w *= (f.rng.uniform_open().ln() / k as f64).exp();
                    f.next_taken = index + 1 + skip(&mut f.rng, f.w);
                }
            }
        }
    }

    pub fn into_table(self) -> Table {
        let rows: usize = self.flows.iter().map(|f| f.kept.len()).sum();
        let (mut t, mut flow, mut rtt_ms) =
            (Vec::with_capacity(rows), Vec::with_capacity(rows), Vec::with_capacity(rows));
        for (i, mut f) in self.flows.into_iter().enumerate() {
            f.kept.sort_unstable();
            for (at, rtt) in f.kept {
                t.push(secs(at));
                flow.push(i as u32);
                rtt_ms.push(rtt as f64 / 1e6);
            }
        }
        let mut table = Table::new();
        table.add("t", Column::F64(t));
        table.add("flow", Column::U32(flow));
        table.add("rtt_ms", Column::F64(rtt_ms));
        table
    }
}

/// Algorithm L: how many samples to pass over before the next one taken.
fn skip(rng: &mut Rng, w: f64) -> u64 {
    let s = (rng.uniform_open().ln() / (1.0 - w).ln()).floor();
    if s.is_finite() && s < 1e18 {
        s as u64
    } else {
        u64::MAX / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(per_flow: Option<u64>, seed: u64, n: u64) -> Table {
        let mut s = RttSamples::new(per_flow, 2, seed);
        for i in 0..n {
            s.push(i * 1000, (i % 2) as usize, 1_000_000 + i);
        }
        s.into_table()
    }

    #[test]
    fn a_reservoir_keeps_at_most_n_per_flow_the_same_for_the_same_seed() {
        let a = offer(Some(100), 7, 10_000);
        assert_eq!(a.rows(), 200);
        assert_eq!(a, offer(Some(100), 7, 10_000));
        assert_ne!(a, offer(Some(100), 8, 10_000));
        let t = a.f64("t");
        assert!(t[..100].windows(2).all(|w| w[0] < w[1]), "each flow's rows in time order");
        // Fewer samples than the reservoir holds: all of them.
        assert_eq!(offer(Some(100), 7, 50), offer(None, 7, 50));
    }

    #[test]
    fn a_reservoir_samples_uniformly_over_the_run() {
        // Flow 0's samples are the even i; a uniform sample of 1000 of 50,000
        // has its mean index near the middle (standard error about 900).
        let t = offer(Some(1000), 3, 100_000);
        let mean_index = t.f64("t")[..1000].iter().map(|s| s * 1e6).sum::<f64>() / 1000.0;
        assert!((mean_index - 50_000.0).abs() < 3_000.0, "{mean_index}");
    }

    #[test]
    fn all_keeps_every_sample_and_none_keeps_nothing() {
        assert_eq!(offer(None, 1, 1234).rows(), 1234);
        let none = offer(Some(0), 1, 1234);
        assert_eq!((none.rows(), none.columns.len()), (0, 3));
    }
}
