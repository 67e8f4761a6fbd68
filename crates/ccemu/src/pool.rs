//! The real bytes of the packets inside a link, beside the `Packet` the link
//! model moves: a ring of fixed-size slots, one per arrival, allocated once.
//!
//! The link may drop a packet anywhere inside it (AQM at dequeue, channel
//! loss) without telling the owner, so slots are never freed explicitly:
//! arrival number `n` takes slot `n % slots`, and the packet carries `n`
//! (in `Packet::seq`). On delivery the slot is checked to still hold arrival
//! `n`; if a later arrival has reused it (more packets inside the link than
//! the ring holds), the packet is counted as an overrun and not written.

pub const SLOT_BYTES: usize = 2048;

pub struct Pool {
    bytes: Vec<u8>,
    lengths: Vec<u16>,
    owners: Vec<u64>,
    mask: u64,
    next_arrival: u64,
}

impl Pool {
    /// A ring of at least `slots` slots (rounded up to a power of two).
    pub fn new(slots: usize) -> Pool {
        let n = slots.max(2).next_power_of_two();
        Pool {
            bytes: vec![0; n * SLOT_BYTES],
            lengths: vec![0; n],
            owners: vec![u64::MAX; n],
            mask: n as u64 - 1,
            next_arrival: 0,
        }
    }

    pub fn slots(&self) -> usize {
        self.lengths.len()
    }

    /// The slot of the next arrival, to read a packet into; `commit` keeps it.
    #[inline]
    pub fn next_buffer(&mut self) -> &mut [u8] {
        let i = (self.next_arrival & self.mask) as usize;
        &mut self.bytes[i * SLOT_BYTES..(i + 1) * SLOT_BYTES]
    }

    /// Keeps the `len` bytes read into `next_buffer`; returns the arrival number.
    #[inline]
    pub fn commit(&mut self, len: usize) -> u64 {
        let n = self.next_arrival;
        let i = (n & self.mask) as usize;
        self.lengths[i] = len as u16;
        self.owners[i] = n;
        self.next_arrival += 1;
        n
    }

    /// The bytes of arrival `n`, or `None` if its slot has been reused.
    #[inline]
    pub fn get_mut(&mut self, n: u64) -> Option<&mut [u8]> {
        let i = (n & self.mask) as usize;
        if self.owners[i] != n {
            return None;
        }
        let len = self.lengths[i] as usize;
        Some(&mut self.bytes[i * SLOT_BYTES..i * SLOT_BYTES + len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(pool: &mut Pool, byte: u8) -> u64 {
        pool.next_buffer()[..3].fill(byte);
        pool.commit(3)
    }

    #[test]
    fn keeps_bytes_until_the_ring_wraps() {
        let mut pool = Pool::new(3);
        assert_eq!(pool.slots(), 4);
        let a = put(&mut pool, 1);
        let b = put(&mut pool, 2);
        assert_eq!(pool.get_mut(a).unwrap(), &[1, 1, 1]);
        for k in 0..3 {
            put(&mut pool, 10 + k);
        }
        // Arrival a's slot was taken by the fifth arrival; b's is still its own.
        assert!(pool.get_mut(a).is_none());
        assert_eq!(pool.get_mut(b).unwrap(), &[2, 2, 2]);
    }
}
