//! Traffic sources besides the scenario's own TCP flows: UDP constant-bit-rate
//! cross traffic and the background load of other users.
//!
//! A source is a deterministic state machine told the time, like a link: the
//! simulator asks `next_wakeup()`, calls `advance(now, ..)` when it is due and
//! routes what comes back: UDP datagrams (`Kind::Udp`, `flow` = the source
//! index) go straight onto the source's data link and are counted at a sink
//! when the link delivers them; TCP transfers are started by the simulator as
//! ordinary Sender/Receiver pairs attributed to the source.
//!
//! Kinds (one file each): `udp` (CBR with start/stop, the high-speed study's
//! 200 Mbit/s from 50 s to 100 s), `poisson_web` (Poisson arrivals of
//! heavy-tailed transfers, the usual web-traffic model), `on_off` (UDP
//! sources alternating exponential on and off periods). Background intensity
//! follows an `intensity::Intensity` profile (time-of-day load).

pub mod cbr;
pub mod intensity;
pub mod on_off;
pub mod poisson_web;
pub mod series;
pub mod sizes;
pub mod udp;

use crate::net::packet::Packet;
use crate::time::Nanos;

/// What the simulator must start on behalf of a source: one TCP transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    pub size_bytes: u64,
}

/// Cumulative counters of a source, kept by the simulator (sent, sink) and
/// the source (transfers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SourceCounters {
    /// UDP datagrams (TCP transfers: data segments) handed to the link, and their bytes on the wire.
    pub packets_sent: u64,
    pub wire_bytes_sent: u64,
    /// Payload bytes sent (UDP payload; TCP: bytes sent, retransmissions included).
    pub bytes_sent: u64,
    /// UDP datagrams the sink received and their payload bytes; for TCP
    /// transfers, data segments that reached the receiver (duplicates
    /// included) and payload bytes delivered in order to its application.
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// UDP datagrams (TCP transfers: data segments) a queue refused.
    pub queue_drops: u64,
    /// Transfers (web objects, on periods) begun and finished.
    pub transfers_started: u64,
    pub transfers_completed: u64,
}

/// One traffic source of a run.
pub enum Source {
    Udp(udp::UdpCbr),
    Web(poisson_web::PoissonWeb),
    OnOff(on_off::OnOff),
}

impl Source {
    /// The earliest time `advance` has something to do; None: never again.
    pub fn next_wakeup(&self) -> Option<Nanos> {
        match self {
            Source::Udp(s) => s.next_wakeup(),
            Source::Web(s) => s.next_wakeup(),
            Source::OnOff(s) => s.next_wakeup(),
        }
    }

    /// Does whatever is due at `now`: datagrams to send go to `out`, TCP
    /// transfers to start go to `spawn`.
    pub fn advance(&mut self, now: Nanos, c: &mut SourceCounters, out: &mut Vec<Packet>, spawn: &mut Vec<Transfer>) {
        match self {
            Source::Udp(s) => s.advance(now, out),
            Source::Web(s) => s.advance(now, c, out, spawn),
            Source::OnOff(s) => s.advance(now, c, out),
        }
    }

    /// Short name of the kind, for the results' `sources` table.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Udp(_) => "udp",
            Source::Web(_) => "poisson-web",
            Source::OnOff(_) => "on-off",
        }
    }

    /// The intensity multiplier now (1 for sources without a profile).
    pub fn multiplier(&self, now: Nanos) -> f64 {
        match self {
            Source::Udp(_) => 1.0,
            Source::Web(s) => s.intensity.at(now),
            Source::OnOff(s) => s.intensity.at(now),
        }
    }

    /// [start, stop) of the source's activity.
    pub fn active_period(&self) -> (Nanos, Nanos) {
        match self {
            Source::Udp(s) => (s.start, s.stop),
            Source::Web(s) => (s.start, s.stop),
            Source::OnOff(s) => (s.start, s.stop),
        }
    }
}
