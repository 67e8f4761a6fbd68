//! Drop-tail FIFO queue with a capacity in packets or bytes: the bottleneck
//! buffer of a router or a modem. A ring buffer, so no allocation per packet.
//!
//! Optional ECN step marking (the DCTCP switch of Alizadeh et al. 2010 and
//! RFC 8257 3.1): an ECN-capable packet that arrives to find at least K
//! packets queued is marked CE instead of being delayed silently.

use super::packet::Packet;
use std::collections::VecDeque;

/// The limit of a queue, resolved to concrete units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capacity {
    Packets(u64),
    Bytes(u64),
}

pub struct DropTail {
    capacity: Capacity,
    /// Mark CE on ECT packets arriving at a queue of at least this many packets.
    mark_threshold: Option<u64>,
    /// Packets marked CE so far.
    pub marks: u64,
    packets: VecDeque<Packet>,
    bytes: u64,
}

impl DropTail {
    pub fn new(capacity: Capacity) -> DropTail {
        let hint = match capacity {
            Capacity::Packets(p) => p.min(1 << 16) as usize,
            Capacity::Bytes(b) => (b / 1500).min(1 << 16) as usize,
        };
        DropTail { capacity, mark_threshold: None, marks: 0, packets: VecDeque::with_capacity(hint + 1), bytes: 0 }
    }

    /// Turns on ECN step marking at `k` packets.
    pub fn with_mark_threshold(mut self, k: Option<u64>) -> DropTail {
        self.mark_threshold = k;
        self
    }

    /// Adds `p` at the tail; false (and the packet is dropped) when it does not fit.
    #[inline]
    pub fn enqueue(&mut self, mut p: Packet) -> bool {
        let fits = match self.capacity {
            Capacity::Packets(limit) => (self.packets.len() as u64) < limit,
            Capacity::Bytes(limit) => self.bytes + p.wire_bytes as u64 <= limit,
        };
        if fits {
            if p.ect && self.mark_threshold.is_some_and(|k| self.packets.len() as u64 >= k) {
                p.ce = true;
                self.marks += 1;
            }
            self.bytes += p.wire_bytes as u64;
            self.packets.push_back(p);
        }
        fits
    }

    #[inline]
    pub fn dequeue(&mut self) -> Option<Packet> {
        let p = self.packets.pop_front()?;
        self.bytes -= p.wire_bytes as u64;
        Some(p)
    }

    pub fn len_packets(&self) -> usize {
        self.packets.len()
    }

    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Kind;

    #[test]
    fn drops_at_the_tail_when_full() {
        let mut q = DropTail::new(Capacity::Packets(2));
        let p = Packet::new(Kind::Data, 0, 1500);
        assert!(q.enqueue(p) && q.enqueue(p));
        assert!(!q.enqueue(p));
        assert_eq!(q.len_packets(), 2);
        let mut q = DropTail::new(Capacity::Bytes(3000));
        assert!(q.enqueue(p) && q.enqueue(p) && !q.enqueue(Packet::new(Kind::Ack, 0, 52)));
        assert_eq!(q.dequeue().map(|p| p.wire_bytes), Some(1500));
        assert_eq!(q.len_bytes(), 1500);
    }

    #[test]
    fn marks_ect_packets_above_the_threshold() {
        let mut q = DropTail::new(Capacity::Packets(10)).with_mark_threshold(Some(2));
        let mut p = Packet::new(Kind::Data, 0, 1500);
        p.ect = true;
        for _ in 0..4 {
            q.enqueue(p);
        }
        let marked: Vec<bool> = (0..4).map(|_| q.dequeue().unwrap().ce).collect();
        assert_eq!(marked, vec![false, false, true, true]);
        assert_eq!(q.marks, 2);
    }
}
