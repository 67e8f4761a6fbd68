//! The FIFO buffer under every queue discipline: a ring buffer of packet
//! handles with a hard limit in packets or bytes that keeps count of its
//! bytes. It allocates once (sized from the limit) and never per packet.
//!
//! Each handle is kept with the packet's size and arrival time, which is all
//! a link needs at the head: the packet itself, written long before, is not
//! read back from the pool (on a busy link it has left the cache).

use crate::net::packet::Packet;
use crate::net::pool::PacketId;
use crate::net::ring::Ring;
use crate::time::Nanos;

/// The limit of a queue, resolved to concrete units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capacity {
    Packets(u64),
    Bytes(u64),
}

impl Capacity {
    /// The limit in packets of `packet_bytes` each (for reports and AQM thresholds).
    pub fn packets_of(self, packet_bytes: u64) -> u64 {
        match self {
            Capacity::Packets(p) => p,
            Capacity::Bytes(b) => b / packet_bytes.max(1),
        }
    }
}

/// A packet waiting in a queue, with what the link reads when it leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub id: PacketId,
    pub wire_bytes: u32,
    /// When it entered the queue (its `enqueued_at`).
    pub enqueued_at: Nanos,
}

/// How the ring keeps a `Queued`: two words, the arrival time and the
/// handle packed with the size. A push writes them straight into the ring,
/// where the three fields of a `Queued` were assembled on the stack and
/// copied with a wider load than their stores, a stall on every packet.
#[derive(Clone, Copy)]
struct Entry(Nanos, u64);

impl Entry {
    #[inline(always)]
    fn of(q: Queued) -> Entry {
        Entry(q.enqueued_at, (q.id.bits() as u64) << 32 | q.wire_bytes as u64)
    }

    #[inline(always)]
    fn queued(self) -> Queued {
        Queued { id: PacketId::from_bits((self.1 >> 32) as u32), wire_bytes: self.1 as u32, enqueued_at: self.0 }
    }
}

pub struct Fifo {
    capacity: Capacity,
    packets: Ring<Entry>,
    bytes: u64,
}

impl Fifo {
    pub fn new(capacity: Capacity) -> Fifo {
        let hint = capacity.packets_of(1500).min(1 << 16) as usize;
        Fifo { capacity, packets: Ring::with_capacity(hint + 1), bytes: 0 }
    }

    pub fn capacity(&self) -> Capacity {
        self.capacity
    }

    /// Whether `p` fits under the limit.
    #[inline]
    pub fn fits(&self, p: &Packet) -> bool {
        match self.capacity {
            Capacity::Packets(limit) => (self.packets.len() as u64) < limit,
            Capacity::Bytes(limit) => self.bytes + p.wire_bytes as u64 <= limit,
        }
    }

    /// Appends packet `id`, which is `p`; the caller has checked `fits`.
    #[inline]
    pub fn push(&mut self, id: PacketId, p: &Packet) {
        self.bytes += p.wire_bytes as u64;
        self.packets.push_back(Entry::of(Queued { id, wire_bytes: p.wire_bytes, enqueued_at: p.enqueued_at }));
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Queued> {
        let q = self.packets.pop_front()?.queued();
        self.bytes -= q.wire_bytes as u64;
        Some(q)
    }

    /// When the head packet arrived (None: empty).
    #[inline]
    pub fn head_enqueued_at(&self) -> Option<Nanos> {
        self.packets.front().map(|e| e.0)
    }

    #[inline]
    pub fn len_packets(&self) -> usize {
        self.packets.len()
    }

    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
}
