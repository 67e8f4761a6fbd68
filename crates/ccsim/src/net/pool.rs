//! The packets inside the network, each in a slot of one pool, named by a
//! small `PacketId`: queues, transmitters and delay lines pass the 4-byte
//! handle, and a packet is written once when it enters the network and read
//! where it leaves, instead of being copied at every step.
//!
//! Slots are reused last-freed first (a LIFO free list), so the slots in use
//! stay few and warm in the cache; the pool grows to the most packets ever
//! in flight at once and never shrinks or allocates per packet after that.
//! Whoever ends a packet's journey (the link that drops or loses it, the
//! owner it is delivered to) frees its slot.
//!
//! An ACK's SACK blocks are kept in a side table (net/sack_store.rs), named
//! by the packet's `sack` slot: written when the ACK enters the pool
//! (`insert_with_sack`), read through the pool, and released when the
//! packet's slot is freed, so whoever frees a packet frees its blocks
//! without knowing of SACK. ACKs without blocks never touch the table.

use super::packet::{Kind, Packet, SackBlock, SackSlot, NO_SACK};
use super::sack_store::{SackBlocks, SackStore};

/// A packet's slot in the `PacketPool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketId(u32);

impl PacketId {
    /// The handle as a number, for a container that packs it with other fields.
    #[inline(always)]
    pub(crate) fn bits(self) -> u32 {
        self.0
    }

    /// The handle `bits` gave.
    #[inline(always)]
    pub(crate) fn from_bits(bits: u32) -> PacketId {
        PacketId(bits)
    }
}

#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free_slots: Vec<u32>,
    /// The SACK blocks of the ACKs in the pool that carry any.
    sacks: SackStore,
    /// Tests and debug builds check every handle is live when used.
    #[cfg(debug_assertions)]
    live: Vec<bool>,
}

impl PacketPool {
    pub fn new() -> PacketPool {
        PacketPool::default()
    }

    /// Puts `p`, a packet without SACK blocks, in a free slot.
    #[inline]
    pub fn insert(&mut self, p: Packet) -> PacketId {
        debug_assert_eq!(p.sack, NO_SACK, "a packet with SACK blocks enters by insert_with_sack");
        self.insert_slot(p)
    }

    /// Writes `p` into a free slot.
    #[inline(always)]
    fn insert_slot(&mut self, p: Packet) -> PacketId {
        let i = match self.free_slots.pop() {
            Some(i) => i,
            None => self.add_slot(),
        };
        self.slots[i as usize] = p;
        #[cfg(debug_assertions)]
        {
            self.live[i as usize] = true;
        }
        PacketId(i)
    }

    /// Puts ACK `p` in a free slot and its SACK `blocks`, if any, in the
    /// side table, until the slot is freed.
    #[inline]
    pub fn insert_with_sack(&mut self, mut p: Packet, blocks: &SackBlocks) -> PacketId {
        p.sack = self.sacks.insert(*blocks);
        self.insert_slot(p)
    }

    /// A new slot at the end (the pool grows only to the most packets ever
    /// in flight at once), holding a placeholder until it is written.
    #[cold]
    #[inline(never)]
    fn add_slot(&mut self) -> u32 {
        self.slots.push(Packet::new(Kind::Data, 0, 0));
        #[cfg(debug_assertions)]
        self.live.push(false);
        (self.slots.len() - 1) as u32
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        self.check_live(id);
        &self.slots[id.0 as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        self.check_live(id);
        &mut self.slots[id.0 as usize]
    }

    /// The SACK blocks of ACK `id` (none for other packets).
    #[inline]
    pub fn sack_blocks(&self, id: PacketId) -> &[SackBlock] {
        self.sacks.get(self.get(id).sack)
    }

    /// Frees the slot of `id` (and its SACK blocks) and returns its packet.
    #[inline]
    pub fn remove(&mut self, id: PacketId) -> Packet {
        let p = self.slots[id.0 as usize];
        self.free_slot(id, p.sack);
        p
    }

    /// `remove` of an ACK, with a copy of its SACK blocks, for a reader that
    /// writes into the pool while it reads them.
    #[inline]
    pub fn remove_with_sack(&mut self, id: PacketId) -> (Packet, SackBlocks) {
        let p = self.slots[id.0 as usize];
        let blocks = self.sacks.copy(p.sack);
        self.free_slot(id, p.sack);
        (p, blocks)
    }

    /// Frees the slot of `id` and its SACK blocks (its packet was read in place).
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        self.free_slot(id, self.slots[id.0 as usize].sack);
    }

    /// Frees slot `id`, whose packet's SACK blocks are in `sack`.
    #[inline(always)]
    fn free_slot(&mut self, id: PacketId, sack: SackSlot) {
        self.check_live(id);
        #[cfg(debug_assertions)]
        {
            self.live[id.0 as usize] = false;
        }
        self.sacks.release(sack);
        self.free_slots.push(id.0);
    }

    /// Packets in the pool now.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free_slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// ACKs in the pool with SACK blocks in the side table.
    pub fn sacks_in_use(&self) -> usize {
        self.sacks.in_use()
    }

    /// Entries of the side table, in use or free: the most ACKs with blocks
    /// that were in the pool at one time.
    pub fn sack_slots(&self) -> usize {
        self.sacks.slots()
    }

    #[inline(always)]
    fn check_live(&self, _id: PacketId) {
        #[cfg(debug_assertions)]
        assert!(self.live[_id.0 as usize], "packet slot {} used after it was freed", _id.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_the_last_freed_slot_and_keeps_the_others() {
        let mut pool = PacketPool::new();
        let a = pool.insert(Packet::new(Kind::Data, 1, 100));
        let b = pool.insert(Packet::new(Kind::Data, 2, 200));
        assert_eq!(pool.remove(a).flow, 1);
        let c = pool.insert(Packet::new(Kind::Ack, 3, 52));
        assert_eq!(c, a);
        assert_eq!((pool.get(b).flow, pool.get(c).flow, pool.len()), (2, 3, 2));
        pool.get_mut(b).ce = true;
        assert!(pool.remove(b).ce);
        assert_eq!(pool.len(), 1);
    }

    #[test]
    fn a_copy_goes_to_a_freed_slot_or_a_new_one() {
        let mut pool = PacketPool::new();
        let mut p = Packet::new(Kind::Data, 7, 1500);
        let a = pool.insert(p);
        p.seq = 9;
        let b = pool.insert(p);
        assert_ne!(a, b);
        assert_eq!((pool.get(a).seq, pool.get(b).seq, pool.get(b).flow), (0, 9, 7));
        pool.free(a);
        assert_eq!(pool.insert(p), a);
        assert_eq!((pool.get(a).seq, pool.len()), (9, 2));
    }

    #[test]
    fn sack_blocks_are_kept_beside_their_ack_and_freed_with_it() {
        let mut pool = PacketPool::new();
        let ack = Packet::new(Kind::Ack, 0, 64);
        let plain = pool.insert_with_sack(ack, &SackBlocks::default());
        let a = pool.insert_with_sack(ack, &SackBlocks::of(&[(5, 6)]));
        let b = pool.insert_with_sack(ack, &SackBlocks::of(&[(9, 12), (5, 7)]));
        // An ACK without blocks takes no entry.
        assert_eq!((pool.sack_blocks(plain), pool.sacks_in_use()), (&[][..], 2));
        assert_eq!(pool.sack_blocks(b), &[SackBlock { start: 9, end: 12 }, SackBlock { start: 5, end: 7 }]);
        // Freed with the packet, however its slot is freed.
        pool.free(a);
        pool.free(plain);
        assert_eq!(pool.sacks_in_use(), 1);
        // The freed entry is taken again, so the table stays as small as what is in flight.
        let c = pool.insert_with_sack(ack, &SackBlocks::of(&[(20, 21)]));
        assert_eq!((pool.sack_blocks(c), pool.sack_slots()), (&[SackBlock { start: 20, end: 21 }][..], 2));
        let (p, copied) = pool.remove_with_sack(b);
        assert_eq!((p.kind, copied), (Kind::Ack, SackBlocks::of(&[(9, 12), (5, 7)])));
        assert_eq!(pool.remove(c).kind, Kind::Ack);
        assert_eq!((pool.sacks_in_use(), pool.len()), (0, 0));
        // A packet in a slot that held an ACK with blocks has none.
        let d = pool.insert(Packet::new(Kind::Data, 0, 1500));
        assert_eq!(pool.sack_blocks(d), &[]);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "used after it was freed")]
    fn a_freed_handle_cannot_be_used() {
        let mut pool = PacketPool::new();
        let a = pool.insert(Packet::new(Kind::Data, 1, 100));
        pool.remove(a);
        pool.get(a);
    }
}
