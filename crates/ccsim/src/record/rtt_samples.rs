//! The per-ACK RTT samples the `rtt` table keeps, per flow: all of them,
//! none, or a uniform random sample of at most N (a reservoir, Li's
//! "Algorithm L", ACM TOMS 20(4), 1994: O(1) per sample, a random draw only
//! per sample taken). The reservoir draws from the run's rng, one stream per
//! flow, so the same seed keeps the same rows.
//!
//! A sample taken is appended to one log shared by every flow, in the order
//! taken, and the flows' rows are sorted out once, at the end: with many
//! flows, a vector per flow had each sample write to a cold place in memory
//! (4096 flows at 1 Gbit/s for 10 s, bench/recording_cost.py's (a): the
//! default recording took 5% more CPU time that way). The reservoir's
//! replacements go to the log too, naming the row they take the place of.
//!
//! Rows come out per flow (in flow order), each flow's in time order.

use super::table::{Column, Table};
use crate::rng::{stream, Rng};
use crate::scenario::RttSamplesSpec;
use crate::time::{secs, Nanos};

/// A sample taken: flow `flow`'s RTT `rtt` at `at`, kept as the flow's next
/// row or, from a full reservoir, in place of its row `slot`.
#[derive(Clone, Copy)]
struct Taken {
    at: Nanos,
    rtt: Nanos,
    flow: u32,
    /// NEXT_ROW, or the reservoir's row it replaces.
    slot: u32,
}

const NEXT_ROW: u32 = u32::MAX;

/// A flow's reservoir once it is full: Algorithm L's state.
struct Reservoir {
    /// The index (in offered order) of the next sample to take.
    next_taken: u64,
    w: f64,
    rng: Rng,
}

/// The RTT samples of every flow (the default: of no flow).
#[derive(Default)]
pub struct RttSamples {
    /// At most this many per flow (None: all; Some(0): none). Below
    /// u32::MAX, so a slot fits a `Taken` (a flow would need four billion
    /// samples for a larger reservoir to keep other rows).
    per_flow: Option<u64>,
    /// Per flow: the samples offered so far (empty when none are kept).
    seen: Vec<u64>,
    /// Per flow: its reservoir's state, drawn when it fills.
    reservoirs: Vec<Option<Reservoir>>,
    seed: u64,
    log: Vec<Taken>,
}

impl RttSamples {
    /// For `flows` flows of a run seeded with `seed`.
    pub fn new(spec: RttSamplesSpec, flows: usize, seed: u64) -> RttSamples {
        let per_flow = match spec {
            RttSamplesSpec::All => None,
            RttSamplesSpec::None => Some(0),
            RttSamplesSpec::PerFlow(n) => Some(n.min(NEXT_ROW as u64 - 1)),
        };
        let flows = if per_flow == Some(0) { 0 } else { flows };
        RttSamples {
            per_flow,
            seen: vec![0; flows],
            reservoirs: (0..flows).map(|_| None).collect(),
            seed,
            log: Vec::new(),
        }
    }

    /// Offers flow `flow`'s sample `rtt` taken at `now` (flows beyond those
    /// given to `new` are not recorded). Inline where every ACK calls it, for
    /// the default of keeping none; the keeping is out of line.
    #[inline(always)]
    pub fn push(&mut self, now: Nanos, flow: usize, rtt: Nanos) {
        if flow < self.seen.len() {
            self.keep(now, flow, rtt);
        }
    }

    /// `push` of a flow whose samples are kept (all, or a reservoir's).
    #[inline(never)]
    fn keep(&mut self, now: Nanos, flow: usize, rtt: Nanos) {
        let index = self.seen[flow];
        self.seen[flow] += 1;
        let next_row = Taken { at: now, rtt, flow: flow as u32, slot: NEXT_ROW };
        match self.per_flow {
            None => self.log.push(next_row),
            Some(k) if index < k => {
                self.log.push(next_row);
                if index + 1 == k {
                    let mut rng = Rng::for_component(self.seed, stream::RTT_SAMPLES_BASE + flow as u64);
                    let w = (rng.uniform_open().ln() / k as f64).exp();
                    let next_taken = index + 1 + skip(&mut rng, w);
                    self.reservoirs[flow] = Some(Reservoir { next_taken, w, rng });
                }
            }
            Some(k) => {
                let r = self.reservoirs[flow].as_mut().expect("a full reservoir has its state");
                if index == r.next_taken {
                    let slot = ((r.rng.uniform() * k as f64) as u64).min(k - 1);
                    self.log.push(Taken { slot: slot as u32, ..next_row });
                    r.w *= (r.rng.uniform_open().ln() / k as f64).exp();
                    r.next_taken = index + 1 + skip(&mut r.rng, r.w);
                }
            }
        }
    }

    pub fn into_table(self) -> Table {
        // Each flow's rows start where the rows of the flows before it end.
        let kept = |seen: u64| self.per_flow.map_or(seen, |k| seen.min(k)) as usize;
        let mut start = Vec::with_capacity(self.seen.len() + 1);
        start.push(0);
        for &seen in &self.seen {
            start.push(start[start.len() - 1] + kept(seen));
        }
        let rows = start[start.len() - 1];
        // The log in order: a flow's next row fills its next place, a
        // replacement overwrites its slot, as the reservoir would have.
        let mut filled = start.clone();
        let mut by_flow = vec![(0, 0); rows];
        for t in self.log {
            let f = t.flow as usize;
            let place = if t.slot == NEXT_ROW {
                filled[f] += 1;
                filled[f] - 1
            } else {
                start[f] + t.slot as usize
            };
            by_flow[place] = (t.at, t.rtt);
        }
        let (mut t, mut flow, mut rtt_ms) =
            (Vec::with_capacity(rows), Vec::with_capacity(rows), Vec::with_capacity(rows));
        for (i, range) in start.windows(2).enumerate() {
            let samples = &mut by_flow[range[0]..range[1]];
            samples.sort_unstable();
            for &(at, rtt) in samples.iter() {
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

    fn offer(spec: RttSamplesSpec, seed: u64, n: u64) -> Table {
        let mut s = RttSamples::new(spec, 2, seed);
        for i in 0..n {
            s.push(i * 1000, (i % 2) as usize, 1_000_000 + i);
        }
        s.into_table()
    }

    #[test]
    fn a_reservoir_keeps_at_most_n_per_flow_the_same_for_the_same_seed() {
        let a = offer(RttSamplesSpec::PerFlow(100), 7, 10_000);
        assert_eq!(a.rows(), 200);
        assert_eq!(a, offer(RttSamplesSpec::PerFlow(100), 7, 10_000));
        assert_ne!(a, offer(RttSamplesSpec::PerFlow(100), 8, 10_000));
        let t = a.f64("t");
        assert!(t[..100].windows(2).all(|w| w[0] < w[1]), "each flow's rows in time order");
        // Fewer samples than the reservoir holds: all of them.
        assert_eq!(offer(RttSamplesSpec::PerFlow(100), 7, 50), offer(RttSamplesSpec::All, 7, 50));
    }

    #[test]
    fn a_reservoir_samples_uniformly_over_the_run() {
        // Flow 0's samples are the even i; a uniform sample of 1000 of 50,000
        // has its mean index near the middle (standard error about 900).
        let t = offer(RttSamplesSpec::PerFlow(1000), 3, 100_000);
        let mean_index = t.f64("t")[..1000].iter().map(|s| s * 1e6).sum::<f64>() / 1000.0;
        assert!((mean_index - 50_000.0).abs() < 3_000.0, "{mean_index}");
    }

    /// The reservoir kept in place, a vector per flow (how the rows were
    /// kept before the log): the rows must be the same.
    fn in_place(k: Option<u64>, flows: usize, seed: u64, offers: &[(usize, Nanos, Nanos)]) -> Vec<(u32, Nanos, Nanos)> {
        let mut kept: Vec<Vec<(Nanos, Nanos)>> = vec![Vec::new(); flows];
        let mut state: Vec<(u64, u64, f64, Rng)> =
            (0..flows).map(|i| (0, 0, 1.0, Rng::for_component(seed, stream::RTT_SAMPLES_BASE + i as u64))).collect();
        for &(f, at, rtt) in offers {
            let (seen, next_taken, w, rng) = &mut state[f];
            let index = *seen;
            *seen += 1;
            match k {
                None => kept[f].push((at, rtt)),
                Some(k) if index < k => {
                    kept[f].push((at, rtt));
                    if index + 1 == k {
                        *w = (rng.uniform_open().ln() / k as f64).exp();
                        *next_taken = index + 1 + skip(rng, *w);
                    }
                }
                Some(k) if index == *next_taken => {
                    let slot = ((rng.uniform() * k as f64) as usize).min(k as usize - 1);
                    kept[f][slot] = (at, rtt);
                    *w *= (rng.uniform_open().ln() / k as f64).exp();
                    *next_taken = index + 1 + skip(rng, *w);
                }
                Some(_) => {}
            }
        }
        let mut rows = Vec::new();
        for (f, mut samples) in kept.into_iter().enumerate() {
            samples.sort_unstable();
            rows.extend(samples.into_iter().map(|(at, rtt)| (f as u32, at, rtt)));
        }
        rows
    }

    proptest::proptest! {
        #[test]
        fn the_log_keeps_the_rows_a_reservoir_in_place_keeps(
            k in proptest::option::of(1u64..40),
            seed in 0u64..1000,
            offers in proptest::collection::vec((0usize..4, 0u64..1_000_000), 0..1500),
        ) {
            // Times rise with the offers (ties included), as a run's do.
            let offers: Vec<(usize, Nanos, Nanos)> =
                offers.iter().enumerate().map(|(i, &(f, rtt))| (f, i as Nanos / 2, rtt)).collect();
            let spec = k.map_or(RttSamplesSpec::All, RttSamplesSpec::PerFlow);
            let mut samples = RttSamples::new(spec, 4, seed);
            for &(f, at, rtt) in &offers {
                samples.push(at, f, rtt);
            }
            let rows = in_place(k, 4, seed, &offers);
            let mut expected = Table::new();
            expected.add("t", Column::F64(rows.iter().map(|&(_, at, _)| secs(at)).collect()));
            expected.add("flow", Column::U32(rows.iter().map(|&(f, _, _)| f).collect()));
            expected.add("rtt_ms", Column::F64(rows.iter().map(|&(_, _, rtt)| rtt as f64 / 1e6).collect()));
            proptest::prop_assert_eq!(samples.into_table(), expected);
        }
    }

    #[test]
    fn all_keeps_every_sample_and_none_keeps_nothing() {
        assert_eq!(offer(RttSamplesSpec::All, 1, 1234).rows(), 1234);
        let none = offer(RttSamplesSpec::None, 1, 1234);
        assert_eq!((none.rows(), none.columns.len()), (0, 3));
    }
}
