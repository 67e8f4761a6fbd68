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

    /// Puts `value` right behind the last value for which `stays_ahead`
    /// holds (at the front if none does), moving the values behind that one
    /// place back; returns its position from the front. It walks from the
    /// back, moving as it goes, so its cost is the distance from the back:
    /// a jittered delay line inserts a packet a few places from the back of
    /// a thousand, where a binary search over the whole line cost a tenth of
    /// the run.
    pub fn insert_from_back(&mut self, value: T, mut stays_ahead: impl FnMut(&T) -> bool) -> usize {
        self.push_back(value);
        let mut at = self.len - 1;
        while at > 0 {
            let from = self.slot(at - 1);
            if stays_ahead(&self.slots[from]) {
                break;
            }
            let to = self.slot(at);
            self.slots[to] = self.slots[from];
            at -= 1;
        }
        let i = self.slot(at);
        self.slots[i] = value;
        at
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
    /// across growth and wrap-around: values are (key, step), and an insert
    /// goes behind the last value whose key is at most its own.
    #[test]
    fn behaves_as_a_vecdeque() {
        let mut rng = crate::rng::Rng::for_component(5, 1);
        // The last mix grows the ring to thousands, as a delay line holds.
        let starts = [(Ring::new(), 4), (Ring::with_capacity(3), 4), (Ring::with_capacity(64), 4), (Ring::new(), 6)];
        for (start, last_push) in starts {
            let mut ring: Ring<(u64, u64)> = start;
            let mut reference = VecDeque::new();
            for step in 0..20_000u64 {
                match rng.next_u64() % 10 {
                    x if x <= last_push => {
                        ring.push_back((step, step));
                        reference.push_back((step, step));
                    }
                    x if x <= 8 => assert_eq!(ring.pop_front(), reference.pop_front()),
                    _ => {
                        let key = step.saturating_sub(rng.next_u64() % 64);
                        let k = reference.iter().rposition(|&(t, _)| t <= key).map_or(0, |i| i + 1);
                        assert_eq!(ring.insert_from_back((key, step), |&(t, _)| t <= key), k);
                        reference.insert(k, (key, step));
                    }
                }
                assert_eq!(ring.len(), reference.len());
                assert_eq!(ring.front(), reference.front());
            }
            let drained: Vec<(u64, u64)> = std::iter::from_fn(|| ring.pop_front()).collect();
            assert!(drained.iter().eq(reference.iter()));
            assert!(ring.is_empty());
        }
    }
}
