//! Packets (their pool handles, with what the owner reads when they exit)
//! on a wire (propagation) or an access link, kept in order of exit time,
//! ties in order of arrival.
//!
//! With a constant delay every packet is appended at the back (one compare);
//! a packet that must leave before some already on the line (jitter with
//! reordering, out-of-order link-layer delivery) is inserted at its place,
//! usually near the back. Only the head needs a timer: one pending event per
//! line, not per packet.

use crate::time::Nanos;
use std::collections::VecDeque;

/// `T`: what each entry carries (a pool handle, or a handle and its size).
pub struct DelayLine<T> {
    in_flight: VecDeque<(Nanos, T)>,
}

impl<T> Default for DelayLine<T> {
    fn default() -> Self {
        DelayLine { in_flight: VecDeque::new() }
    }
}

impl<T: Copy> DelayLine<T> {
    pub fn new() -> DelayLine<T> {
        DelayLine::default()
    }

    /// Puts `p` on the line, to come out at `exit_at`, after every packet
    /// already on it that exits at or before that time.
    #[inline]
    pub fn push(&mut self, exit_at: Nanos, p: T) {
        match self.in_flight.back() {
            Some((t, _)) if *t > exit_at => self.insert_sorted(exit_at, p),
            _ => self.in_flight.push_back((exit_at, p)),
        }
    }

    /// The rare case (reordering): insert after every packet exiting at or before `exit_at`.
    #[cold]
    #[inline(never)]
    fn insert_sorted(&mut self, exit_at: Nanos, p: T) {
        let at = self.in_flight.partition_point(|(t, _)| *t <= exit_at);
        self.in_flight.insert(at, (exit_at, p));
    }

    #[inline]
    pub fn head_time(&self) -> Option<Nanos> {
        self.in_flight.front().map(|(t, _)| *t)
    }

    /// Takes the head packet if it is due at `now`.
    #[inline]
    pub fn pop_due(&mut self, now: Nanos) -> Option<T> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Kind, Packet};
    use crate::net::pool::PacketPool;

    #[test]
    fn leaves_by_exit_time_then_arrival_order() {
        let mut pool = PacketPool::new();
        let mut line = DelayLine::new();
        for (k, t) in [5u64, 3, 5, 1, 4].iter().enumerate() {
            line.push(*t, pool.insert(Packet::new(Kind::Data, k as u32, 100)));
        }
        let order: Vec<u32> = std::iter::from_fn(|| line.pop_due(10)).map(|id| pool.get(id).flow).collect();
        assert_eq!(order, vec![3, 1, 4, 0, 2]);
    }
}
