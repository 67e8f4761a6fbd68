//! Queue disciplines of a link's buffer: drop-tail (with optional ECN step
//! marking), RED, CoDel, PIE and DualPI2. A closed enum, so the hot path is one match and
//! no dynamic dispatch.

pub mod codel;
pub mod droptail;
pub mod dualpi2;
pub mod fifo;
pub mod pie;
pub mod red;

pub use codel::{Codel, CodelParams};
pub use droptail::DropTail;
pub use dualpi2::{DualPi2, DualPi2Params};
pub use fifo::{Capacity, Fifo, Queued};
pub use pie::{Pie, PieParams};
pub use red::{Red, RedParams};

use crate::net::packet::Packet;
use crate::net::pool::{PacketId, PacketPool};
use crate::time::Nanos;

/// A queue discipline and its parameters, sizes resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueConfig {
    DropTail { capacity: Capacity, ecn_threshold_pkts: Option<u64> },
    Red { capacity: Capacity, params: RedParams },
    Codel { capacity: Capacity, params: CodelParams },
    Pie { capacity: Capacity, params: PieParams },
    DualPi2 { capacity: Capacity, params: DualPi2Params },
}

impl QueueConfig {
    pub fn capacity(&self) -> Capacity {
        match self {
            QueueConfig::DropTail { capacity, .. }
            | QueueConfig::Red { capacity, .. }
            | QueueConfig::Codel { capacity, .. }
            | QueueConfig::Pie { capacity, .. }
            | QueueConfig::DualPi2 { capacity, .. } => *capacity,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            QueueConfig::DropTail { .. } => "droptail",
            QueueConfig::Red { .. } => "red",
            QueueConfig::Codel { .. } => "codel",
            QueueConfig::Pie { .. } => "pie",
            QueueConfig::DualPi2 { .. } => "dualpi2",
        }
    }
}

/// Counts of what a queue did to packets besides queueing them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Packets marked CE instead of dropped.
    pub marks: u64,
    /// Drops decided by the AQM (RED and PIE early drops, CoDel drops), not by a full buffer.
    pub aqm_drops: u64,
    /// Of those, the drops made at dequeue (CoDel, DualPI2), which the link does not see at enqueue.
    pub dequeue_drops: u64,
}

pub enum Queue {
    DropTail(DropTail),
    Red(Red),
    Codel(Codel),
    Pie(Pie),
    DualPi2(DualPi2),
}

impl Queue {
    /// `packet_time_ns`: transmission time of an MTU at the link's mean rate (RED's idle decay).
    pub fn new(config: &QueueConfig, packet_time_ns: f64, rng: crate::rng::Rng) -> Queue {
        match *config {
            QueueConfig::DropTail { capacity, ecn_threshold_pkts } => {
                Queue::DropTail(DropTail::new(capacity).with_mark_threshold(ecn_threshold_pkts))
            }
            QueueConfig::Red { capacity, params } => Queue::Red(Red::new(capacity, params, packet_time_ns, rng)),
            QueueConfig::Codel { capacity, params } => Queue::Codel(Codel::new(capacity, params)),
            QueueConfig::Pie { capacity, params } => {
                Queue::Pie(Pie::new(capacity, params, crate::net::packet::MTU_BYTES, rng))
            }
            QueueConfig::DualPi2 { capacity, params } => {
                Queue::DualPi2(DualPi2::new(capacity, params, crate::net::packet::MTU_BYTES, rng))
            }
        }
    }

    /// Packet `id` arrives at `now` (its `enqueued_at` set); false if it
    /// was dropped (it is still in the pool: the caller frees it).
    #[inline(always)]
    pub fn enqueue(&mut self, now: Nanos, id: PacketId, pool: &mut PacketPool) -> bool {
        match self {
            Queue::DropTail(q) => q.enqueue(id, pool),
            Queue::Red(q) => q.enqueue(now, id, pool),
            Queue::Codel(q) => q.enqueue(id, pool),
            Queue::Pie(q) => q.enqueue(now, id, pool),
            Queue::DualPi2(q) => q.enqueue(now, id, pool),
        }
    }

    /// Packet `p` arrives at an idle link: if this is a drop-tail queue and
    /// it is empty, whether it admits `p` (as `enqueue` would, marks
    /// included), which then goes to the transmitter without being queued
    /// (it would leave at once); None for a queue that must hold it (RED
    /// and CoDel keep state of what passes through).
    #[inline(always)]
    pub fn pass_through(&mut self, p: &mut Packet) -> Option<bool> {
        match self {
            Queue::DropTail(q) if q.fifo().is_empty() => Some(q.admit(p)),
            _ => None,
        }
    }

    /// The next packet to transmit at `now` (CoDel and DualPI2 may drop some
    /// on the way: each is freed from the pool).
    #[inline(always)]
    pub fn dequeue(&mut self, now: Nanos, pool: &mut PacketPool) -> Option<Queued> {
        match self {
            Queue::DropTail(q) => q.dequeue(),
            Queue::Red(q) => q.dequeue(now),
            Queue::Codel(q) => q.dequeue(now, pool),
            Queue::Pie(q) => q.dequeue(now),
            Queue::DualPi2(q) => q.dequeue(now, pool),
        }
    }

    /// The one FIFO of a single-queue discipline (None: DualPI2 has two).
    #[inline]
    fn fifo(&self) -> Option<&Fifo> {
        match self {
            Queue::DropTail(q) => Some(q.fifo()),
            Queue::Red(q) => Some(q.fifo()),
            Queue::Codel(q) => Some(q.fifo()),
            Queue::Pie(q) => Some(q.fifo()),
            Queue::DualPi2(_) => None,
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        match self {
            Queue::DualPi2(q) => q.is_empty(),
            _ => self.fifo().is_none_or(Fifo::is_empty),
        }
    }

    pub fn len_packets(&self) -> usize {
        match self {
            Queue::DualPi2(q) => q.len_packets(),
            _ => self.fifo().map_or(0, Fifo::len_packets),
        }
    }

    pub fn len_bytes(&self) -> u64 {
        match self {
            Queue::DualPi2(q) => q.len_bytes(),
            _ => self.fifo().map_or(0, Fifo::len_bytes),
        }
    }

    pub fn stats(&self) -> QueueStats {
        match self {
            Queue::DropTail(q) => QueueStats { marks: q.marks, ..QueueStats::default() },
            Queue::Red(q) => QueueStats { marks: q.marks, aqm_drops: q.early_drops, dequeue_drops: 0 },
            Queue::Codel(q) => QueueStats { marks: q.marks, aqm_drops: q.drops, dequeue_drops: q.drops },
            Queue::Pie(q) => QueueStats { marks: q.marks, aqm_drops: q.early_drops, dequeue_drops: 0 },
            Queue::DualPi2(q) => QueueStats { marks: q.marks, aqm_drops: q.drops, dequeue_drops: q.drops },
        }
    }
}
