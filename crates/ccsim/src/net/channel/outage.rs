//! Outages: periods during which the link passes nothing (a handover, a
//! tunnel, a radio link failure). Packets wait in the queue meanwhile; a
//! transmission under way when an outage starts is completed.
//!
//! Two sources, merged: a scheduled list of [start, end) intervals, and a
//! random on/off process whose up times are exponential with mean
//! `mean_interval` (from the end of one outage to the start of the next,
//! the first counted from time 0) and whose durations are fixed, uniform or
//! exponential. The process is generated lazily, in time order, from its own
//! seeded stream, so it is the same whatever traffic the link carries.
//!
//! With `discard`, each outage also resets the link layer: the packets the
//! link's queue holds when the outage is found are lost, as a UMTS RLC reset
//! discards the SDUs of both peer entities (3GPP TS 25.322, 11.4 "Reset
//! procedure") and a radio link failure ends the bearer's buffers. Without
//! it, they wait for the link to come back.
//!
//! With `min_backlog_bytes`, an outage holds the link only while its queue
//! holds at least that much when a transmission would start: a link layer
//! stalls when its transmission window is full of unacknowledged data (UMTS
//! RLC acknowledged mode, 3GPP TS 25.322 9.2.2.3 and 11.3.2: no PDU outside
//! the window), which bulk data does and a trickle of ACKs never does.

use crate::rng::Rng;
use crate::time::Nanos;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DurationDist {
    Fixed { ns: Nanos },
    Uniform { min_ns: Nanos, max_ns: Nanos },
    Exponential { mean_ns: Nanos },
}

impl DurationDist {
    pub fn sample(&self, rng: &mut Rng) -> Nanos {
        match *self {
            DurationDist::Fixed { ns } => ns,
            DurationDist::Uniform { min_ns, max_ns } => min_ns + (rng.uniform() * (max_ns - min_ns) as f64) as Nanos,
            DurationDist::Exponential { mean_ns } => rng.exponential(mean_ns as f64) as Nanos,
        }
    }

    pub fn mean_ns(&self) -> f64 {
        match *self {
            DurationDist::Fixed { ns } => ns as f64,
            DurationDist::Uniform { min_ns, max_ns } => (min_ns + max_ns) as f64 / 2.0,
            DurationDist::Exponential { mean_ns } => mean_ns as f64,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutageProcessConfig {
    pub mean_interval_ns: Nanos,
    pub duration: DurationDist,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutageConfig {
    /// [start, end) intervals, sorted by start.
    pub scheduled: Vec<(Nanos, Nanos)>,
    pub process: Option<OutageProcessConfig>,
    /// Each outage loses what the queue holds (a link-layer reset).
    pub discard: bool,
    /// Outages hold the link only while its queue holds at least this many bytes (0: always).
    pub min_backlog_bytes: u64,
}

struct Process {
    config: OutageProcessConfig,
    /// The current or next outage of the process.
    window: (Nanos, Nanos),
    rng: Rng,
}

impl Process {
    fn new(config: OutageProcessConfig, mut rng: Rng) -> Process {
        let start = rng.exponential(config.mean_interval_ns as f64) as Nanos;
        let end = start + config.duration.sample(&mut rng).max(1);
        Process { config, window: (start, end), rng }
    }

    /// The outage covering `t`, if any (`t` never decreases between calls).
    fn covering(&mut self, t: Nanos) -> Option<Nanos> {
        while self.window.1 <= t {
            let start = self.window.1 + self.rng.exponential(self.config.mean_interval_ns as f64) as Nanos;
            self.window = (start, start + self.config.duration.sample(&mut self.rng).max(1));
        }
        (self.window.0 <= t).then_some(self.window.1)
    }
}

pub struct Outages {
    scheduled: Vec<(Nanos, Nanos)>,
    next: usize,
    process: Option<Process>,
    /// Outages that held the transmitter (each counted once; touching ones merged).
    pub count: u64,
    /// End of the last outage found.
    last_counted_end: Nanos,
}

impl Outages {
    pub fn new(config: &OutageConfig, rng: Rng) -> Outages {
        Outages {
            scheduled: config.scheduled.clone(),
            next: 0,
            process: config.process.map(|c| Process::new(c, rng)),
            count: 0,
            last_counted_end: 0,
        }
    }

    fn covering(&mut self, t: Nanos) -> Option<Nanos> {
        while self.next < self.scheduled.len() && self.scheduled[self.next].1 <= t {
            self.next += 1;
        }
        // Overlapping scheduled outages: the latest end among those covering t.
        let mut end = None;
        for &(s, e) in &self.scheduled[self.next..] {
            if s > t {
                break;
            }
            if e > t {
                end = Some(end.map_or(e, |x: Nanos| x.max(e)));
            }
        }
        let from_process = self.process.as_mut().and_then(|p| p.covering(t));
        match (end, from_process) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether there are any outages at all (the common case is none).
    pub fn any(&self) -> bool {
        !self.scheduled.is_empty() || self.process.is_some()
    }

    /// If the link is out at `t`, when it comes back (chained outages merged); None if it is up.
    /// Calls must come with non-decreasing `t`.
    pub fn blocked_until(&mut self, t: Nanos) -> Option<Nanos> {
        if !self.any() {
            return None;
        }
        if t < self.last_counted_end {
            // Inside the (merged) outage found last time; the sources have moved past it.
            return Some(self.last_counted_end);
        }
        let mut end = self.covering(t)?;
        while let Some(e) = self.covering(end) {
            end = e;
        }
        self.count += 1;
        self.last_counted_end = end;
        Some(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduled_outages_merge_when_they_touch() {
        let config = OutageConfig {
            scheduled: vec![(10, 20), (15, 30), (30, 40), (50, 60)],
            process: None,
            discard: false,
            min_backlog_bytes: 0,
        };
        let mut o = Outages::new(&config, Rng::for_component(1, 1));
        assert_eq!(o.blocked_until(5), None);
        assert_eq!(o.blocked_until(12), Some(40));
        assert_eq!(o.blocked_until(45), None);
        assert_eq!(o.blocked_until(50), Some(60));
        assert_eq!(o.blocked_until(60), None);
        assert_eq!(o.count, 2);
    }

    #[test]
    fn the_random_process_has_its_mean_up_and_down_times() {
        let mean_interval = 1_000_000_000;
        let config = OutageConfig {
            scheduled: vec![],
            process: Some(OutageProcessConfig {
                mean_interval_ns: mean_interval,
                duration: DurationDist::Exponential { mean_ns: 250_000_000 },
            }),
            discard: false,
            min_backlog_bytes: 0,
        };
        let mut o = Outages::new(&config, Rng::for_component(4, 2));
        // Sample the state every ms over 2000 s: the down fraction is 0.25 / 1.25.
        let (mut down, n) = (0u64, 2_000_000u64);
        for k in 0..n {
            down += o.blocked_until(k * 1_000_000).is_some() as u64;
        }
        let fraction = down as f64 / n as f64;
        assert!((fraction - 0.2).abs() < 0.02, "down {fraction}");
        // About 2000 s / 1.25 s outages.
        assert!((1450..1750).contains(&o.count), "{} outages", o.count);
    }
}
