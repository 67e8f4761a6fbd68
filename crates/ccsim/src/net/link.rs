//! A link: queue, transmitter, channel (loss, outages) and propagation delay,
//! as one deterministic state machine that is told the time.
//!
//! The simulator drives it from its event queue; the kernel emulator can drive
//! the same code from the wall clock. The owner calls `enqueue` when a packet
//! arrives, `advance(now)` whenever `next_wakeup()` is due, and forwards the
//! packets `advance` hands back. Nothing here knows about events or flows.
//!
//! Pipeline of a packet:
//!   enqueue -> queue (drop-tail: dropped when full, counted as a queue drop)
//!   -> transmitter (serialization at the link rate; nothing starts during an outage)
//!   -> channel (random loss: counted as a channel loss, apart from queue drops)
//!   -> propagation delay line -> delivered.

use super::delay_line::DelayLine;
use super::packet::Packet;
use super::queue::{Capacity, DropTail};
use crate::rng::Rng;
use crate::time::{serialization_ns, Nanos};

/// Random loss on the channel.
#[derive(Clone, Debug, PartialEq)]
pub enum ChannelLoss {
    None,
    Bernoulli { p: f64 },
}

/// A link's configuration with every size resolved to concrete units.
#[derive(Clone, Debug)]
pub struct LinkConfig {
    pub rate_bps: u64,
    pub delay_ns: Nanos,
    pub capacity: Capacity,
    /// ECN step-marking threshold in packets (None: no marking).
    pub ecn_threshold: Option<u64>,
    pub loss: ChannelLoss,
    /// [start, end) intervals during which nothing is transmitted, sorted.
    pub outages: Vec<(Nanos, Nanos)>,
}

/// Cumulative counters of a link, in packets and bytes on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    pub queue_drops: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    pub channel_losses: u64,
    pub delivered: u64,
}

pub struct Link {
    config: LinkConfig,
    queue: DropTail,
    /// The packet being serialized and when its last bit leaves.
    in_service: Option<(Nanos, Packet)>,
    /// Sub-nanosecond remainder of serialization times (see `time::serialization_ns`).
    tx_carry: u64,
    wire: DelayLine,
    next_outage: usize,
    rng: Rng,
    pub counters: LinkCounters,
}

impl Link {
    pub fn new(config: LinkConfig, rng: Rng) -> Link {
        Link {
            queue: DropTail::new(config.capacity).with_mark_threshold(config.ecn_threshold),
            config,
            in_service: None,
            tx_carry: 0,
            wire: DelayLine::new(),
            next_outage: 0,
            rng,
            counters: LinkCounters::default(),
        }
    }

    pub fn config(&self) -> &LinkConfig {
        &self.config
    }

    /// A packet arrives at the link's queue at `now`. Returns false if it was dropped.
    #[inline]
    pub fn enqueue(&mut self, now: Nanos, mut p: Packet) -> bool {
        self.counters.arrivals += 1;
        self.counters.arrival_bytes += p.wire_bytes as u64;
        p.enqueued_at = now;
        if !self.queue.enqueue(p) {
            self.counters.queue_drops += 1;
            return false;
        }
        if self.in_service.is_none() {
            self.start_transmission(now);
        }
        true
    }

    /// The earliest time at which `advance` has something to do.
    #[inline]
    pub fn next_wakeup(&self) -> Option<Nanos> {
        let tx = match self.in_service {
            Some((end, _)) => Some(end),
            None if !self.queue.is_empty() => self.outage_end_after_blocking(),
            None => None,
        };
        match (tx, self.wire.head_time()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Runs the link up to `now`, appending delivered packets to `out` in order.
    pub fn advance(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        loop {
            match self.in_service {
                Some((end, p)) if end <= now => {
                    self.in_service = None;
                    self.counters.departures += 1;
                    self.counters.departure_bytes += p.wire_bytes as u64;
                    if self.channel_loses() {
                        self.counters.channel_losses += 1;
                    } else {
                        self.wire.push(end + self.config.delay_ns, p);
                    }
                    self.start_transmission(end);
                }
                None if !self.queue.is_empty() => {
                    // Blocked by an outage: resume when it ends, if that is due.
                    match self.outage_end_after_blocking() {
                        Some(t) if t <= now => self.start_transmission(t),
                        _ => break,
                    }
                    if self.in_service.is_none() {
                        break;
                    }
                }
                _ => break,
            }
        }
        while let Some(p) = self.wire.pop_due(now) {
            self.counters.delivered += 1;
            out.push(p);
        }
    }

    /// Starts sending the head of the queue at `t`, unless an outage holds it.
    fn start_transmission(&mut self, t: Nanos) {
        if self.in_outage(t) {
            return;
        }
        if let Some(p) = self.queue.dequeue() {
            let tx = serialization_ns(p.wire_bytes, self.config.rate_bps, &mut self.tx_carry);
            self.in_service = Some((t + tx, p));
        }
    }

    fn in_outage(&mut self, t: Nanos) -> bool {
        let outages = &self.config.outages;
        while self.next_outage < outages.len() && outages[self.next_outage].1 <= t {
            self.next_outage += 1;
        }
        self.next_outage < outages.len() && outages[self.next_outage].0 <= t
    }

    /// When the transmitter is idle with packets waiting, the end of the outage holding it.
    fn outage_end_after_blocking(&self) -> Option<Nanos> {
        self.config.outages.get(self.next_outage).map(|o| o.1)
    }

    fn channel_loses(&mut self) -> bool {
        match self.config.loss {
            ChannelLoss::None => false,
            ChannelLoss::Bernoulli { p } => self.rng.chance(p),
        }
    }

    pub fn queue_packets(&self) -> usize {
        self.queue.len_packets()
    }

    pub fn queue_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }

    /// Packets marked CE by the queue so far.
    pub fn ecn_marks(&self) -> u64 {
        self.queue.marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Kind;
    use crate::time::NS_PER_MS;

    fn link(outages: Vec<(Nanos, Nanos)>) -> Link {
        let config = LinkConfig {
            rate_bps: 12_000_000, // 1500 bytes = 1 ms
            delay_ns: 10 * NS_PER_MS,
            capacity: Capacity::Packets(3),
            ecn_threshold: None,
            loss: ChannelLoss::None,
            outages,
        };
        Link::new(config, Rng::for_component(1, 1))
    }

    fn run_until(l: &mut Link, end: Nanos, out: &mut Vec<(Nanos, Packet)>) {
        let mut buf = Vec::new();
        while let Some(t) = l.next_wakeup() {
            if t > end {
                break;
            }
            l.advance(t, &mut buf);
            out.extend(buf.drain(..).map(|p| (t, p)));
        }
    }

    #[test]
    fn serializes_then_propagates_and_drops_tail() {
        let mut l = link(vec![]);
        let p = Packet::new(Kind::Data, 0, 1500);
        for _ in 0..5 {
            l.enqueue(0, p);
        }
        // One in service, three queued, one dropped.
        assert_eq!(l.counters.queue_drops, 1);
        let mut out = Vec::new();
        run_until(&mut l, u64::MAX, &mut out);
        let times: Vec<Nanos> = out.iter().map(|(t, _)| *t / NS_PER_MS).collect();
        assert_eq!(times, vec![11, 12, 13, 14]);
    }

    #[test]
    fn outage_holds_packets_until_it_ends() {
        let mut l = link(vec![(0, 50 * NS_PER_MS)]);
        l.enqueue(0, Packet::new(Kind::Data, 0, 1500));
        let mut out = Vec::new();
        run_until(&mut l, u64::MAX, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, 61 * NS_PER_MS);
    }
}
