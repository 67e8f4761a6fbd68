//! Drop-tail FIFO queue with a capacity in packets or bytes: the bottleneck
//! buffer of a router or a modem. A ring buffer, so no allocation per packet.

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
    packets: VecDeque<Packet>,
    bytes: u64,
}

impl DropTail {
    pub fn new(capacity: Capacity) -> DropTail {
        let hint = match capacity {
            Capacity::Packets(p) => p.min(1 << 16) as usize,
            Capacity::Bytes(b) => (b / 1500).min(1 << 16) as usize,
        };
        DropTail { capacity, packets: VecDeque::with_capacity(hint + 1), bytes: 0 }
    }

    /// Adds `p` at the tail; false (and the packet is dropped) when it does not fit.
    #[inline]
    pub fn enqueue(&mut self, p: Packet) -> bool {
        let fits = match self.capacity {
            Capacity::Packets(limit) => (self.packets.len() as u64) < limit,
            Capacity::Bytes(limit) => self.bytes + p.wire_bytes as u64 <= limit,
        };
        if fits {
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
}
