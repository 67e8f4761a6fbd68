//! Where a sender puts the packets it sends.
//!
//! In the simulation a sender writes each packet straight into its slot of
//! the `PacketPool` (`IntoPool`). A packet first made in a list and then
//! copied to the pool was read back, 64 bytes at a time, right after its
//! fields were written one by one: a store-forwarding stall on every packet
//! sent, most of the cost of handing it to the network. Tests keep what a
//! sender sends in a plain `Vec<Packet>`.

use super::packet::Packet;
use super::pool::{PacketId, PacketPool};

pub trait Outbox {
    /// Sends `p`.
    fn send(&mut self, p: Packet);

    /// Whether the sending host's queue takes one more packet now
    /// (host_queue.rs); a sender that finds it full sends nothing more.
    fn has_room(&self) -> bool {
        true
    }
}

impl Outbox for Vec<Packet> {
    #[inline]
    fn send(&mut self, p: Packet) {
        self.push(p);
    }
}

/// Packets go into `pool`, their handles into `sent` in the order sent
/// (empty when the sender is called); `room`: how many the host's queue
/// takes (u32::MAX without one).
pub struct IntoPool<'a> {
    pub pool: &'a mut PacketPool,
    pub sent: &'a mut Vec<PacketId>,
    pub room: u32,
}

impl Outbox for IntoPool<'_> {
    #[inline(always)]
    fn send(&mut self, p: Packet) {
        self.sent.push(self.pool.insert(p));
    }

    #[inline(always)]
    fn has_room(&self) -> bool {
        (self.sent.len() as u32) < self.room
    }
}

/// A test outbox behind a host queue of `room` packets.
#[cfg(test)]
pub struct Limited {
    pub sent: Vec<Packet>,
    pub room: usize,
}

#[cfg(test)]
impl Outbox for Limited {
    fn send(&mut self, p: Packet) {
        self.sent.push(p);
    }

    fn has_room(&self) -> bool {
        self.sent.len() < self.room
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Kind;

    #[test]
    fn into_pool_keeps_each_packet_in_the_pool_and_its_handle_in_order() {
        let (mut pool, mut sent) = (PacketPool::new(), Vec::new());
        let mut out = IntoPool { pool: &mut pool, sent: &mut sent, room: u32::MAX };
        for flow in 0..3 {
            out.send(Packet::new(Kind::Data, flow, 1500));
        }
        let flows: Vec<u32> = sent.iter().map(|&id| pool.get(id).flow).collect();
        assert_eq!(flows, [0, 1, 2]);
    }
}
