//! The transmitter's rate: constant, a trace of delivery opportunities
//! (`trace.rs`), or a random Markov-modulated rate.
//!
//! Markov-modulated rate: a continuous-time Markov chain over states, each
//! with a rate (bit/s, zero allowed) and a mean holding time; holding times are
//! exponential, and on leaving a state the next one is drawn uniformly from
//! the others (two states: they alternate). The chain starts in the first
//! state listed, or (`stationary_start`) in a state drawn with its long-run
//! share of time, h_i / sum(h): the jumps visit every state equally often,
//! and holding times are memoryless, so the chain is then stationary from
//! time 0 (each run starts where a long-running process would be). Time-average rate: sum(h_i r_i) / sum(h_i). A packet's
//! transmission time integrates the rate over the states it spans, so a rate
//! change in the middle of a packet is exact. The chain is drawn lazily, in
//! time order, from its own seeded stream: the same whatever the traffic.

use super::dch::{Dch, DchConfig};
use super::trace::{TraceConfig, TraceRate};
use crate::rng::Rng;
use crate::time::{Nanos, Serializer, NS_PER_SEC};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateState {
    pub rate_bps: u64,
    pub mean_holding_ns: Nanos,
}

#[derive(Clone, Debug, PartialEq)]
pub enum RateConfig {
    Constant {
        bps: u64,
    },
    Trace(TraceConfig),
    Markov {
        states: Vec<RateState>,
        stationary_start: bool,
    },
    /// A UMTS DCH whose bearer follows the link's buffer (`dch.rs`).
    Dch(DchConfig),
}

impl RateConfig {
    /// Long-run mean rate in bit/s.
    pub fn mean_rate_bps(&self) -> f64 {
        match self {
            RateConfig::Constant { bps } => *bps as f64,
            RateConfig::Trace(t) => t.mean_rate_bps(),
            RateConfig::Markov { states, .. } => {
                let h: f64 = states.iter().map(|s| s.mean_holding_ns as f64).sum();
                states.iter().map(|s| s.mean_holding_ns as f64 * s.rate_bps as f64).sum::<f64>() / h
            }
            // The rate depends on the traffic: its nominal (highest) bearer.
            RateConfig::Dch(d) => d.top_rate_bps() as f64,
        }
    }

    /// The rate offered over (`from`, `to`], in bit/s: what a link's
    /// utilization is measured against. A trace's opportunities in that
    /// interval (a run may play only part of it); otherwise the long-run
    /// mean: a constant rate is its own, and a random rate process's nominal
    /// rate is its mean, as the studies measured against a channel's nominal
    /// rate.
    pub fn offered_rate_bps(&self, from: Nanos, to: Nanos) -> f64 {
        match self {
            RateConfig::Trace(t) => t.window_rate_bps(from, to),
            _ => self.mean_rate_bps(),
        }
    }
}

pub struct MarkovRate {
    states: Vec<RateState>,
    state: usize,
    /// End of the current state's holding time.
    state_end: Nanos,
    rng: Rng,
}

impl MarkovRate {
    pub fn new(states: Vec<RateState>, stationary_start: bool, mut rng: Rng) -> MarkovRate {
        let state = if stationary_start { Self::stationary_state(&states, &mut rng) } else { 0 };
        let state_end = Self::holding(&states[state], &mut rng);
        MarkovRate { states, state, state_end, rng }
    }

    /// A state drawn with its long-run share of time (proportional to its mean holding time).
    fn stationary_state(states: &[RateState], rng: &mut Rng) -> usize {
        let total: f64 = states.iter().map(|s| s.mean_holding_ns as f64).sum();
        let mut x = rng.uniform() * total;
        for (i, s) in states.iter().enumerate() {
            x -= s.mean_holding_ns as f64;
            if x < 0.0 {
                return i;
            }
        }
        states.len() - 1
    }

    fn holding(s: &RateState, rng: &mut Rng) -> Nanos {
        (rng.exponential(s.mean_holding_ns as f64) as Nanos).max(1)
    }

    fn next_state(&mut self) {
        let n = self.states.len();
        if n > 1 {
            let k = (self.rng.uniform() * (n - 1) as f64) as usize;
            self.state = (self.state + 1 + k.min(n - 2)) % n;
        }
        self.state_end += Self::holding(&self.states[self.state], &mut self.rng);
    }

    /// The rate in force at `t` (`t` not before the last call's).
    pub fn rate_at(&mut self, t: Nanos) -> u64 {
        while self.state_end <= t {
            self.next_state();
        }
        self.states[self.state].rate_bps
    }

    /// When `bytes` started at `start` have left, integrating the rate.
    #[inline(never)]
    pub fn finish_time(&mut self, start: Nanos, bytes: u32) -> Nanos {
        self.rate_at(start);
        // Work left in bit-nanoseconds-per-second units: bits * 1e9.
        let mut need = bytes as u128 * 8 * NS_PER_SEC as u128;
        let mut t = start;
        loop {
            let rate = self.states[self.state].rate_bps as u128;
            let available = rate * (self.state_end - t) as u128;
            if available >= need {
                return t + need.div_ceil(rate) as Nanos;
            }
            need -= available;
            t = self.state_end;
            self.next_state();
        }
    }
}

pub enum Transmitter {
    Constant(Serializer),
    Trace(TraceRate),
    Markov(MarkovRate),
    /// Boxed: its state is larger than the other variants'.
    Dch(Box<Dch>),
}

impl Transmitter {
    pub fn new(config: &RateConfig, rng: Rng) -> Transmitter {
        match config {
            RateConfig::Constant { bps } => Transmitter::Constant(Serializer::new(*bps)),
            RateConfig::Trace(t) => Transmitter::Trace(TraceRate::new(t.clone())),
            RateConfig::Markov { states, stationary_start } => {
                Transmitter::Markov(MarkovRate::new(states.clone(), *stationary_start, rng))
            }
            RateConfig::Dch(d) => Transmitter::Dch(Box::new(Dch::new(d.clone()))),
        }
    }

    /// When a packet of `bytes` starting at `start` has left the transmitter;
    /// `back_to_back`: it follows the previous packet without idle time.
    #[inline(always)]
    pub fn finish_time(&mut self, start: Nanos, bytes: u32, back_to_back: bool) -> Nanos {
        match self {
            Transmitter::Constant(s) => start + s.ns(bytes),
            Transmitter::Trace(t) => t.finish_time(start, bytes, back_to_back),
            Transmitter::Markov(m) => m.finish_time(start, bytes),
            Transmitter::Dch(d) => d.finish_time(start, bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markov_rate_integrates_across_state_changes() {
        let states = vec![
            RateState { rate_bps: 8_000_000, mean_holding_ns: 1_000_000 },
            RateState { rate_bps: 0, mean_holding_ns: 1_000_000 },
        ];
        let mut m = MarkovRate::new(states, false, Rng::for_component(1, 2));
        // Send 1000-byte packets back to back for a long time: the mean rate is 4 Mbit/s.
        let mut t = 0;
        let n = 200_000u64;
        for _ in 0..n {
            t = m.finish_time(t, 1000);
        }
        let rate = (n * 8000) as f64 / (t as f64 / 1e9);
        let expected = RateConfig::Markov { states: m.states.clone(), stationary_start: false }.mean_rate_bps();
        assert_eq!(expected, 4e6);
        assert!((rate - expected).abs() < 0.02 * expected, "{rate}");
    }

    #[test]
    fn exact_within_one_state() {
        let states = vec![RateState { rate_bps: 12_000_000, mean_holding_ns: u64::MAX / 4 }];
        let mut m = MarkovRate::new(states, false, Rng::for_component(1, 2));
        assert_eq!(m.finish_time(0, 1500), 1_000_000);
        assert_eq!(m.finish_time(5_000_000, 1500), 6_000_000);
    }

    #[test]
    fn a_stationary_start_draws_the_first_state_by_its_share_of_time() {
        let states = vec![
            RateState { rate_bps: 384_000, mean_holding_ns: 1_000_000_000 },
            RateState { rate_bps: 128_000, mean_holding_ns: 3_000_000_000 },
        ];
        let n = 20_000u64;
        let mut in_second = 0;
        for seed in 0..n {
            let first = MarkovRate::new(states.clone(), false, Rng::for_component(seed, 4));
            assert_eq!(first.state, 0);
            let m = MarkovRate::new(states.clone(), true, Rng::for_component(seed, 4));
            in_second += (m.state == 1) as u64;
        }
        // The second state holds 3/4 of the time: binomial sd over 20,000 draws is 0.003.
        let share = in_second as f64 / n as f64;
        assert!((share - 0.75).abs() < 0.015, "{share}");
    }
}
