//! Web-like background load: transfers arrive as a Poisson process whose
//! rate follows an intensity profile, with heavy-tailed sizes (see `sizes`).
//! The classic model of many independent users (Paxson and Floyd 1995:
//! session arrivals are Poisson; object sizes heavy-tailed, which is what
//! makes the aggregate bursty at every time scale).
//!
//! Arrival rate at multiplier 1: lambda = load x capacity / (8 x mean size),
//! so the offered payload load is `load` of the bottleneck on average. A
//! time-varying rate lambda(t) = lambda x m(t) is drawn by thinning (Lewis
//! and Shedler 1979): candidates at the constant rate lambda x max(m), each
//! kept with probability m(t) / max(m); this is exact for any profile.
//!
//! Transport: TCP transfers are started by the simulator as ordinary flows
//! (the background's own algorithm, default cubic); UDP transfers are sent as
//! a burst at a fixed peak rate, unresponsive to loss.

use super::cbr::Cbr;
use super::intensity::Intensity;
use super::sizes::SizeDist;
use super::udp::datagram;
use super::{SourceCounters, Transfer};
use crate::net::packet::{Packet, UDP_IP_HEADER_BYTES};
use crate::rng::Rng;
use crate::time::{Nanos, NS_PER_SEC};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WebTransport {
    Tcp,
    /// Each transfer is a UDP burst at `rate_bps` of `wire_bytes` datagrams.
    Udp {
        rate_bps: u64,
        wire_bytes: u32,
    },
}

/// A UDP transfer in progress.
struct Burst {
    cbr: Cbr,
    remaining_bytes: u64,
}

pub struct PoissonWeb {
    pub id: u32,
    pub start: Nanos,
    pub stop: Nanos,
    pub intensity: Intensity,
    /// Arrivals per second at multiplier 1.
    pub base_arrivals_per_s: f64,
    sizes: SizeDist,
    transport: WebTransport,
    next_candidate: Option<Nanos>,
    arrivals_rng: Rng,
    sizes_rng: Rng,
    bursts: Vec<Burst>,
    seq: u64,
}

impl PoissonWeb {
    /// `load`: mean offered payload rate as a fraction of `capacity_bps`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: u32,
        load: f64,
        capacity_bps: u64,
        sizes: SizeDist,
        transport: WebTransport,
        intensity: Intensity,
        (start, stop): (Nanos, Nanos),
        (arrivals_rng, sizes_rng): (Rng, Rng),
    ) -> PoissonWeb {
        let base_arrivals_per_s = load * capacity_bps as f64 / (8.0 * sizes.mean());
        let mut w = PoissonWeb {
            id,
            start,
            stop,
            intensity,
            base_arrivals_per_s,
            sizes,
            transport,
            next_candidate: None,
            arrivals_rng,
            sizes_rng,
            bursts: Vec::new(),
            seq: 0,
        };
        w.next_candidate = w.draw_candidate(start);
        w
    }

    /// The next candidate arrival after `t` at the bounding rate.
    fn draw_candidate(&mut self, t: Nanos) -> Option<Nanos> {
        let rate = self.base_arrivals_per_s * self.intensity.max();
        if rate <= 0.0 || !rate.is_finite() {
            return None;
        }
        let gap = self.arrivals_rng.exponential(NS_PER_SEC as f64 / rate);
        let at = t.saturating_add(gap.round().min(u64::MAX as f64 / 2.0) as Nanos);
        (at < self.stop).then_some(at)
    }

    pub fn next_wakeup(&self) -> Option<Nanos> {
        let bursts = self.bursts.iter().map(|b| b.cbr.next_at).min();
        match (self.next_candidate, bursts) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn advance(&mut self, now: Nanos, c: &mut SourceCounters, out: &mut Vec<Packet>, spawn: &mut Vec<Transfer>) {
        while let Some(t) = self.next_candidate.filter(|&t| t <= now) {
            let keep = self.intensity.at(t) / self.intensity.max();
            if keep >= 1.0 || self.arrivals_rng.uniform() < keep {
                let size_bytes = self.sizes.sample(&mut self.sizes_rng);
                c.transfers_started += 1;
                match self.transport {
                    WebTransport::Tcp => spawn.push(Transfer { size_bytes }),
                    WebTransport::Udp { rate_bps, wire_bytes } => {
                        self.bursts.push(Burst { cbr: Cbr::new(rate_bps, wire_bytes, t), remaining_bytes: size_bytes })
                    }
                }
            }
            self.next_candidate = self.draw_candidate(t);
        }
        let mut k = 0;
        while k < self.bursts.len() {
            let b = &mut self.bursts[k];
            while b.cbr.next_at <= now && b.remaining_bytes > 0 {
                let full = b.cbr.wire_bytes - UDP_IP_HEADER_BYTES;
                let payload = b.remaining_bytes.min(full as u64) as u32;
                out.push(datagram(self.id, payload + UDP_IP_HEADER_BYTES, self.seq));
                self.seq += 1;
                b.remaining_bytes -= payload as u64;
                b.cbr.step();
            }
            if b.remaining_bytes == 0 {
                c.transfers_completed += 1;
                self.bursts.swap_remove(k);
            } else {
                k += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::intensity::Interpolation;

    fn web(transport: WebTransport, intensity: Intensity, stop_s: u64) -> PoissonWeb {
        PoissonWeb::new(
            0,
            0.5,
            10_000_000,
            SizeDist::Fixed { bytes: 12_500.0 },
            transport,
            intensity,
            (0, stop_s * NS_PER_SEC),
            (Rng::for_component(1, 1), Rng::for_component(1, 2)),
        )
    }

    fn arrivals_per_window(w: &mut PoissonWeb, window_s: u64, windows: usize) -> Vec<u64> {
        let (mut c, mut out, mut spawn) = (SourceCounters::default(), Vec::new(), Vec::new());
        let mut counts = vec![0u64; windows];
        while let Some(t) = w.next_wakeup() {
            w.advance(t, &mut c, &mut out, &mut spawn);
            let k = (t / (window_s * NS_PER_SEC)) as usize;
            if k < windows {
                counts[k] += spawn.len() as u64;
            }
            spawn.clear();
            out.clear();
        }
        counts
    }

    #[test]
    fn arrival_rate_is_load_over_mean_size_and_follows_the_profile() {
        // 0.5 x 10 Mbit/s / 100 kbit per transfer = 50 arrivals/s at multiplier 1.
        let profile =
            Intensity::new(vec![(0, 0.5), (100 * NS_PER_SEC, 2.0), (200 * NS_PER_SEC, 1.0)], Interpolation::Step);
        let mut w = web(WebTransport::Tcp, profile, 300);
        assert_eq!(w.base_arrivals_per_s, 50.0);
        let counts = arrivals_per_window(&mut w, 100, 3);
        // Expected 2500, 10000, 5000; Poisson std is sqrt of that.
        for (got, want) in counts.iter().zip([2500.0, 10000.0, 5000.0]) {
            assert!((*got as f64 - want).abs() < 4.0 * f64::sqrt(want), "{counts:?}");
        }
    }

    #[test]
    fn udp_transfers_send_their_size_at_their_rate() {
        let mut w = web(WebTransport::Udp { rate_bps: 1_000_000, wire_bytes: 1500 }, Intensity::constant(), 20);
        let (mut c, mut out, mut spawn) = (SourceCounters::default(), Vec::new(), Vec::new());
        while let Some(t) = w.next_wakeup() {
            w.advance(t, &mut c, &mut out, &mut spawn);
        }
        assert!(spawn.is_empty());
        assert_eq!(c.transfers_started, c.transfers_completed);
        let payload: u64 = out.iter().map(|p| p.payload as u64).sum();
        assert_eq!(payload, c.transfers_started * 12_500);
    }
}
