//! Drop-tail FIFO queue with a capacity in packets or bytes: the bottleneck
//! buffer of a router or a modem. An arriving packet that does not fit is dropped.
//!
//! Optional ECN step marking (the DCTCP switch of Alizadeh et al. 2010 and
//! RFC 8257 3.1): an ECN-capable packet that arrives to find at least K
//! packets queued is marked CE instead of being delayed silently.

use super::fifo::{Capacity, Fifo, Queued};
use crate::net::packet::Packet;
use crate::net::pool::{PacketId, PacketPool};

pub struct DropTail {
    fifo: Fifo,
    /// Mark CE on ECT packets arriving at a queue of at least this many packets.
    mark_threshold: Option<u64>,
    /// Packets marked CE so far.
    pub marks: u64,
}

impl DropTail {
    pub fn new(capacity: Capacity) -> DropTail {
        DropTail { fifo: Fifo::new(capacity), mark_threshold: None, marks: 0 }
    }

    /// Turns on ECN step marking at `k` packets.
    pub fn with_mark_threshold(mut self, k: Option<u64>) -> DropTail {
        self.mark_threshold = k;
        self
    }

    /// Adds packet `id` at the tail; false (and the packet is dropped) when it does not fit.
    /// Always inlined: it is the arrival every sent packet makes at a busy link.
    #[inline(always)]
    pub fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool) -> bool {
        let p = pool.get_mut(id);
        if !self.admit(p) {
            return false;
        }
        self.fifo.push(id, p);
        true
    }

    /// Whether `p` fits, marked CE if it arrives at the marking threshold.
    #[inline(always)]
    pub fn admit(&mut self, p: &mut Packet) -> bool {
        if !self.fifo.fits(p) {
            return false;
        }
        if p.ect && self.mark_threshold.is_some_and(|k| self.fifo.len_packets() as u64 >= k) {
            p.ce = true;
            self.marks += 1;
        }
        true
    }

    #[inline]
    pub fn dequeue(&mut self) -> Option<Queued> {
        self.fifo.pop()
    }

    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Kind;

    #[test]
    fn drops_at_the_tail_when_full() {
        let mut pool = PacketPool::new();
        let mut add = |q: &mut DropTail, p: Packet| {
            let id = pool.insert(p);
            q.enqueue(id, &mut pool)
        };
        let mut q = DropTail::new(Capacity::Packets(2));
        let p = Packet::new(Kind::Data, 0, 1500);
        assert!(add(&mut q, p) && add(&mut q, p));
        assert!(!add(&mut q, p));
        assert_eq!(q.fifo().len_packets(), 2);
        let mut q = DropTail::new(Capacity::Bytes(3000));
        assert!(add(&mut q, p) && add(&mut q, p) && !add(&mut q, Packet::new(Kind::Ack, 0, 52)));
        let head = q.dequeue().unwrap();
        assert_eq!(pool.get(head.id).wire_bytes, 1500);
        assert_eq!(head.wire_bytes, 1500);
        assert_eq!(q.fifo().len_bytes(), 1500);
    }

    #[test]
    fn marks_ect_packets_above_the_threshold() {
        let mut pool = PacketPool::new();
        let mut q = DropTail::new(Capacity::Packets(10)).with_mark_threshold(Some(2));
        let mut p = Packet::new(Kind::Data, 0, 1500);
        p.ect = true;
        for _ in 0..4 {
            let id = pool.insert(p);
            q.enqueue(id, &mut pool);
        }
        let marked: Vec<bool> = (0..4).map(|_| pool.get(q.dequeue().unwrap().id).ce).collect();
        assert_eq!(marked, vec![false, false, true, true]);
        assert_eq!(q.marks, 2);
    }
}
