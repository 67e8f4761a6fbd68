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

use super::packet::{Kind, Packet};

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
    /// Tests and debug builds check every handle is live when used.
    #[cfg(debug_assertions)]
    live: Vec<bool>,
}

impl PacketPool {
    pub fn new() -> PacketPool {
        PacketPool::default()
    }

    /// Puts `p` in a free slot.
    #[inline]
    pub fn insert(&mut self, p: Packet) -> PacketId {
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

    /// Frees the slot of `id` and returns its packet.
    #[inline]
    pub fn remove(&mut self, id: PacketId) -> Packet {
        let p = self.slots[id.0 as usize];
        self.free(id);
        p
    }

    /// Frees the slot of `id` (its packet was read in place).
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        self.check_live(id);
        #[cfg(debug_assertions)]
        {
            self.live[id.0 as usize] = false;
        }
        self.free_slots.push(id.0);
    }

    /// Packets in the pool now.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free_slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    #[cfg(debug_assertions)]
    #[should_panic(expected = "used after it was freed")]
    fn a_freed_handle_cannot_be_used() {
        let mut pool = PacketPool::new();
        let a = pool.insert(Packet::new(Kind::Data, 1, 100));
        pool.remove(a);
        pool.get(a);
    }
}
