//! A FIFO ring buffer of small `Copy` values, for the queues and delay lines
//! every packet passes through.
//!
//! Its capacity is a power of two, so a slot's index wraps with a mask
//! instead of VecDeque's compare and subtract, and every slot holds a value
//! (a grown ring fills its new slots with copies of one), so it needs neither
//! `Default` nor unsafe code. It grows like a Vec (doubling) and never shrinks:
//! after the first packets nothing allocates.

/// A ring of `T`, front to back.
#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// Every slot is initialized; slots.len() is 0 or a power of two.
    slots: Vec<T>,
    /// The front's slot, and how many values are held from it on.
    head: usize,
    len: usize,
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Ring { slots: Vec::new(), head: 0, len: 0 }
    }
}

impl<T: Copy> Ring<T> {
    pub fn new() -> Ring<T> {
        Ring::default()
    }

    /// A ring that holds `n` values before it grows.
    pub fn with_capacity(n: usize) -> Ring<T> {
        // Filled at the first push, when there is a value to fill it with.
        let mut r = Ring::new();
        r.slots.reserve_exact(n.next_power_of_two());
        r
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot of the `k`th value from the front.
    #[inline(always)]
    fn slot(&self, k: usize) -> usize {
        (self.head + k) & (self.slots.len() - 1)
    }

    #[inline]
    pub fn push_back(&mut self, value: T) {
        if self.len == self.slots.len() {
            self.grow(value);
        }
        let i = self.slot(self.len);
        self.slots[i] = value;
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let value = self.slots[self.head];
        self.head = self.slot(1);
        self.len -= 1;
        Some(value)
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.slots[self.head])
    }

    /// The number of values from the front for which `pred` holds (it must
    /// hold for a prefix of the ring, as for `slice::partition_point`).
    pub fn partition_point(&self, mut pred: impl FnMut(&T) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(&self.slots[self.slot(mid)]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Puts `value` at position `k` from the front (0..=len), moving the
    /// values behind it one place back: linear in how many there are.
    pub fn insert(&mut self, k: usize, value: T) {
        assert!(k <= self.len, "insert at {k} in a ring of {}", self.len);
        self.push_back(value);
        let mut at = self.len - 1;
        while at > k {
            let (to, from) = (self.slot(at), self.slot(at - 1));
            self.slots[to] = self.slots[from];
            at -= 1;
        }
        let i = self.slot(k);
        self.slots[i] = value;
    }

    /// A full ring doubles its slots (the first time, to what was reserved,
    /// at least 4); the new slots hold copies of `fill`.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let old = self.slots.len();
        let capacity = (2 * old).max(self.slots.capacity().next_power_of_two()).max(4);
        self.slots.resize(capacity, fill);
        // The values that had wrapped to the first slots now follow the others.
        self.slots.copy_within(0..self.head, old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Pushes, pops and inserts in any mix give what a VecDeque gives,
    /// across growth and wrap-around.
    #[test]
    fn behaves_as_a_vecdeque() {
        let mut rng = crate::rng::Rng::for_component(5, 1);
        for start in [Ring::new(), Ring::with_capacity(3), Ring::with_capacity(64)] {
            let mut ring: Ring<u64> = start;
            let mut reference = VecDeque::new();
            for step in 0..20_000u64 {
                match rng.next_u64() % 10 {
                    0..=4 => {
                        ring.push_back(step);
                        reference.push_back(step);
                    }
                    5..=8 => assert_eq!(ring.pop_front(), reference.pop_front()),
                    _ => {
                        let k = (rng.next_u64() % (reference.len() as u64 + 1)) as usize;
                        ring.insert(k, step);
                        reference.insert(k, step);
                    }
                }
                assert_eq!(ring.len(), reference.len());
                assert_eq!(ring.front(), reference.front());
            }
            let drained: Vec<u64> = std::iter::from_fn(|| ring.pop_front()).collect();
            assert!(drained.iter().eq(reference.iter()));
            assert!(ring.is_empty());
        }
    }

    #[test]
    fn partition_point_of_sorted_values() {
        let mut ring = Ring::new();
        // Wrapped: pop some so the values straddle the end of the slots.
        for v in 0..6u64 {
            ring.push_back(v);
        }
        for _ in 0..5 {
            ring.pop_front();
        }
        for v in 6..12u64 {
            ring.push_back(v);
        }
        for x in 0..14 {
            assert_eq!(ring.partition_point(|&v| v <= x), (x + 1).clamp(5, 12) as usize - 5);
        }
    }
}
