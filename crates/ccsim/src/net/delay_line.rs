//! Packets (their pool handles, with what the owner reads when they exit)
//! on a wire (propagation) or an access link, kept in order of exit time,
//! ties in order of arrival.
//!
//! With a constant delay every packet is appended at the back (one compare);
//! a packet that must leave before some already on the line (jitter with
//! reordering, out-of-order link-layer delivery) is inserted at its place,
//! usually near the back. Only the head needs a timer: one pending event per
//! line, not per packet.

use crate::net::ring::Ring;
use crate::time::Nanos;

/// `T`: what each entry carries (a pool handle, or a handle and its size).
///
/// The exit times of the head and the back are kept beside the entries: the
/// owner looks at the head more often than it takes it (a link's wakeup,
/// each `pop_due` that finds nothing due) and every push compares with the
/// back, and a field is cheaper to read than a ring buffer's slot.
pub struct DelayLine<T> {
    in_flight: Ring<(Nanos, T)>,
    /// The head's exit time; None when the line is empty.
    head_at: Option<Nanos>,
    /// The back's exit time (stale when the line is empty).
    back_at: Nanos,
}

impl<T> Default for DelayLine<T> {
    fn default() -> Self {
        DelayLine { in_flight: Ring::default(), head_at: None, back_at: 0 }
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
        if self.head_at.is_some() && self.back_at > exit_at {
            self.insert_sorted(exit_at, p);
            return;
        }
        self.in_flight.push_back((exit_at, p));
        self.back_at = exit_at;
        if self.head_at.is_none() {
            self.head_at = Some(exit_at);
        }
    }

    /// The rare case (reordering): insert after every packet exiting at or before `exit_at`.
    #[cold]
    #[inline(never)]
    fn insert_sorted(&mut self, exit_at: Nanos, p: T) {
        let at = self.in_flight.insert_from_back((exit_at, p), |(t, _)| *t <= exit_at);
        if at == 0 {
            self.head_at = Some(exit_at);
        }
    }

    #[inline]
    pub fn head_time(&self) -> Option<Nanos> {
        self.head_at
    }

    /// Takes the head packet if it is due at `now`.
    #[inline]
    pub fn pop_due(&mut self, now: Nanos) -> Option<T> {
        match self.head_at {
            Some(t) if t <= now => {
                let (_, p) = self.in_flight.pop_front()?;
                self.head_at = self.in_flight.front().map(|(t, _)| *t);
                Some(p)
            }
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

    /// The head's time kept beside the entries follows every push (at the
    /// back or before the head) and every pop, and an emptied line starts afresh.
    #[test]
    fn the_head_time_follows_pushes_and_pops() {
        let mut line = DelayLine::new();
        assert_eq!(line.head_time(), None);
        line.push(5, 'a');
        line.push(7, 'b');
        assert_eq!(line.head_time(), Some(5));
        line.push(2, 'c');
        assert_eq!(line.head_time(), Some(2));
        assert_eq!(line.pop_due(4), Some('c'));
        assert_eq!((line.head_time(), line.pop_due(4)), (Some(5), None));
        assert_eq!((line.pop_due(9), line.pop_due(9), line.pop_due(9)), (Some('a'), Some('b'), None));
        assert_eq!(line.head_time(), None);
        line.push(1, 'd');
        line.push(3, 'e');
        assert_eq!((line.head_time(), line.len()), (Some(1), 2));
        assert_eq!((line.pop_due(3), line.pop_due(3)), (Some('d'), Some('e')));
    }
}
