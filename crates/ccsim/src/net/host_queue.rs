//! The sending host's own interface queue in front of a link whose buffer
//! flow-controls it.
//!
//! A laptop that reaches a UMTS network through a card on a USB serial port
//! runs PPP: TCP hands its segments to the ppp0 interface's qdisc, whose
//! limit is the device's txqueuelen, 3 packets (Linux
//! drivers/net/ppp_generic.c, ppp_setup), and ppp_generic holds one more
//! frame while its channel cannot take it (ppp_start_xmit stops the queue).
//! The card takes data only as fast as its own buffer drains onto the air, so
//! when that buffer is full the host's queue backs up instead of the card
//! dropping anything, and once the qdisc is full the next segment is dropped
//! on the host: `dev_queue_xmit` returns NET_XMIT_DROP and TCP enters CWR
//! without a loss (Linux tcp_transmit_skb: `tcp_enter_cwr` when the device
//! refuses; the segment stays unsent and goes again later).
//!
//! Here the link's queue is the card's buffer and a `HostQueue` is the host's:
//! a sender whose route starts at such a link asks for room before each
//! segment (`room`); what it sends is counted until the link's queue takes it
//! (`sent`, then admitted at once or `hold`); each time the link takes a
//! packet from its queue it takes the oldest held one in (`next_held`). The
//! link never drops what the host sends; the host's senders see the full
//! queue instead.

use super::pool::PacketId;
use std::collections::VecDeque;

pub struct HostQueue {
    capacity: u32,
    /// Packets sent by the host's senders that the link's queue has not
    /// taken yet: on their way to it, or held here.
    occupancy: u32,
    /// Packets waiting for room in the link's queue, oldest first.
    held: VecDeque<PacketId>,
}

impl HostQueue {
    pub fn new(capacity: u32) -> HostQueue {
        HostQueue { capacity, occupancy: 0, held: VecDeque::new() }
    }

    /// How many more packets the host's senders may send now.
    #[inline]
    pub fn room(&self) -> u32 {
        self.capacity.saturating_sub(self.occupancy)
    }

    /// `n` packets were sent toward the link.
    #[inline]
    pub fn sent(&mut self, n: u32) {
        self.occupancy += n;
    }

    /// Whether packets wait for room (an arrival then waits behind them).
    #[inline]
    pub fn is_holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// A sent packet reached the link and its queue took it.
    #[inline]
    pub fn admitted(&mut self) {
        self.occupancy -= 1;
    }

    /// A sent packet reached the link and waits for room in its queue.
    pub fn hold(&mut self, id: PacketId) {
        debug_assert!((self.held.len() as u32) < self.occupancy, "held beyond what was sent");
        self.held.push_back(id);
    }

    /// The oldest held packet, now taken by the link's queue.
    pub fn next_held(&mut self) -> Option<PacketId> {
        let id = self.held.pop_front()?;
        self.occupancy -= 1;
        Some(id)
    }

    /// How many packets wait for room.
    pub fn held_len(&self) -> usize {
        self.held.len()
    }

    /// The oldest held packet, left where it is.
    pub fn first_held(&self) -> Option<PacketId> {
        self.held.front().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Kind, Packet};
    use crate::net::pool::PacketPool;

    #[test]
    fn room_counts_what_was_sent_until_the_link_takes_it() {
        let mut pool = PacketPool::new();
        let mut h = HostQueue::new(4);
        h.sent(3);
        assert_eq!(h.room(), 1);
        h.admitted(); // the first fitted in the link's queue
        let (a, b) = (pool.insert(Packet::new(Kind::Data, 0, 1500)), pool.insert(Packet::new(Kind::Data, 1, 1500)));
        h.hold(a);
        h.hold(b);
        assert_eq!(h.room(), 2);
        assert!(h.is_holding());
        assert_eq!(h.next_held(), Some(a), "oldest first");
        assert_eq!(h.room(), 3);
        assert_eq!(h.next_held(), Some(b));
        assert_eq!((h.next_held(), h.room()), (None, 4));
    }
}
