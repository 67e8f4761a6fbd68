//! A constant-delay FIFO: packets on a wire (propagation) or an access link.
//!
//! Since every packet waits the same time, they leave in the order they came
//! and only the head needs a timer: one pending event per line, not per packet.

use super::packet::Packet;
use crate::time::Nanos;
use std::collections::VecDeque;

#[derive(Default)]
pub struct DelayLine {
    in_flight: VecDeque<(Nanos, Packet)>,
}

impl DelayLine {
    pub fn new() -> DelayLine {
        DelayLine { in_flight: VecDeque::new() }
    }

    /// Puts `p` on the line, to come out at `exit_at` (not earlier than the
    /// packets already on it, which a constant delay guarantees).
    #[inline]
    pub fn push(&mut self, exit_at: Nanos, p: Packet) {
        debug_assert!(self.in_flight.back().map_or(true, |(t, _)| *t <= exit_at));
        self.in_flight.push_back((exit_at, p));
    }

    #[inline]
    pub fn head_time(&self) -> Option<Nanos> {
        self.in_flight.front().map(|(t, _)| *t)
    }

    /// Takes the head packet if it is due at `now`.
    #[inline]
    pub fn pop_due(&mut self, now: Nanos) -> Option<Packet> {
        match self.in_flight.front() {
            Some((t, _)) if *t <= now => self.in_flight.pop_front().map(|(_, p)| p),
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.in_flight.len()
    }

    pub fn is_empty(&self) -> bool {
        self.in_flight.is_empty()
    }
}
