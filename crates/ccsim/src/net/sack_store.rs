//! The SACK blocks of the ACKs on their way, kept beside the packets rather
//! than in them: only ACKs after a loss or reordering carry blocks (RFC 2018),
//! so the common packet holds a 4-byte slot number instead of three 16-byte
//! blocks it would copy at every hop.
//!
//! The packet pool (net/pool.rs) owns the one store: it puts an ACK's blocks
//! in it when the ACK enters the pool and releases the slot when the ACK's
//! own slot is freed, wherever its journey ends (at the sender, or in a link
//! that drops or loses it). Freed slots are reused (a free list), so the
//! store holds at most the ACKs with blocks that are on their way at one time.

use super::packet::{SackBlock, SackSlot, MAX_SACK_BLOCKS, NO_SACK};

/// Up to three blocks of one ACK, in the order the receiver chose (RFC 2018:
/// the latest first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    count: u8,
    blocks: [SackBlock; MAX_SACK_BLOCKS],
}

impl SackBlocks {
    /// Appends a block; the caller keeps to MAX_SACK_BLOCKS.
    pub fn push(&mut self, b: SackBlock) {
        self.blocks[self.count as usize] = b;
        self.count += 1;
    }

    pub fn as_slice(&self) -> &[SackBlock] {
        &self.blocks[..self.count as usize]
    }

    pub fn len(&self) -> usize {
        self.count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

#[cfg(test)]
impl SackBlocks {
    /// The blocks [start, end) of `ranges`, in order.
    pub(crate) fn of(ranges: &[(u64, u64)]) -> SackBlocks {
        let mut b = SackBlocks::default();
        for &(start, end) in ranges {
            b.push(SackBlock { start, end });
        }
        b
    }
}

/// Blocks in slots named by `SackSlot`, for the packet pool.
#[derive(Default)]
pub struct SackStore {
    entries: Vec<SackBlocks>,
    free: Vec<SackSlot>,
}

impl SackStore {
    pub fn new() -> SackStore {
        SackStore::default()
    }

    /// Keeps `blocks` and returns their slot (`NO_SACK` when there are none).
    #[inline]
    pub fn insert(&mut self, blocks: SackBlocks) -> SackSlot {
        if blocks.is_empty() {
            return NO_SACK;
        }
        match self.free.pop() {
            Some(slot) => {
                self.entries[slot as usize] = blocks;
                slot
            }
            None => {
                self.entries.push(blocks);
                (self.entries.len() - 1) as SackSlot
            }
        }
    }

    /// The blocks in `slot` (none for `NO_SACK`).
    #[inline]
    pub fn get(&self, slot: SackSlot) -> &[SackBlock] {
        match slot {
            NO_SACK => &[],
            _ => self.entries[slot as usize].as_slice(),
        }
    }

    /// A copy of the blocks in `slot` (none for `NO_SACK`), for a reader
    /// that outlives the slot.
    #[inline]
    pub fn copy(&self, slot: SackSlot) -> SackBlocks {
        match slot {
            NO_SACK => SackBlocks::default(),
            _ => self.entries[slot as usize],
        }
    }

    /// The ACK of `slot` is gone (processed or lost): its slot may be reused.
    #[inline]
    pub fn release(&mut self, slot: SackSlot) {
        if slot != NO_SACK {
            debug_assert!(!self.free.contains(&slot), "SACK slot {slot} released twice");
            self.free.push(slot);
        }
    }

    /// Slots holding the blocks of an ACK still on its way.
    pub fn in_use(&self) -> usize {
        self.entries.len() - self.free.len()
    }

    /// Slots made so far, in use or free: the most ACKs with blocks that
    /// were on their way at one time.
    pub fn slots(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_blocks_until_released_and_reuses_freed_slots() {
        let mut store = SackStore::new();
        assert_eq!(store.insert(SackBlocks::default()), NO_SACK);
        assert_eq!(store.get(NO_SACK), &[]);
        let a = store.insert(SackBlocks::of(&[(5, 6)]));
        let b = store.insert(SackBlocks::of(&[(9, 12), (5, 7)]));
        assert_ne!(a, b);
        assert_eq!(store.get(b), &[SackBlock { start: 9, end: 12 }, SackBlock { start: 5, end: 7 }]);
        assert_eq!(store.in_use(), 2);
        store.release(a);
        store.release(NO_SACK);
        assert_eq!(store.in_use(), 1);
        // The freed slot is taken again, so the store stays as small as what is in flight.
        let c = store.insert(SackBlocks::of(&[(20, 21)]));
        assert_eq!(c, a);
        assert_eq!(store.get(c), &[SackBlock { start: 20, end: 21 }]);
        assert_eq!(store.get(b).len(), 2);
    }
}
