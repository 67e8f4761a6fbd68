//! The event queue: a binary min-heap of small plain events ordered by
//! (time, insertion order), so simultaneous events run in the order they were
//! scheduled and every run is deterministic.
//!
//! Timers are cancelled lazily: an event carries the generation of the timer
//! that scheduled it, and a stale event is ignored when it fires (see `Timer`).

use crate::time::Nanos;

/// What happens when an event fires. Small and `Copy`: packets never travel in
/// events, they wait in the component (queue, delay line) that owns them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A link's state machine has something due (transmission end, delivery,
    /// ...); ask `EventQueue::link_fires` (the generation is its timer's, 0
    /// for a link in a slot).
    Link { link: u32, generation: u32 },
    /// The head of a per-flow access delay line arrives.
    Access { line: u32, generation: u32 },
    /// A sender timer (retransmission timeout, pacing, start, stop).
    Sender { flow: u32, generation: u32 },
    /// A receiver's delayed-ACK timer.
    Receiver { flow: u32, generation: u32 },
    /// A traffic source (UDP, background load) wants to act.
    Source { source: u32, generation: u32 },
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    /// (time << 64) | insertion order: one integer comparison orders both.
    key: u128,
    event: Event,
}

/// A 4-ary min-heap (shallower than a binary heap, and its four children
/// share a cache line or two), sifted with a hole instead of swaps.
///
/// A popped event's slot at the root is left vacant until the next call:
/// most handlers schedule an event at once, and that event then takes the
/// root and sinks, one sift instead of the two a removal and an insertion
/// would take.
///
/// The queue keeps the links' timers (`arm_link`, `link_fires`). Link
/// events, nearly every event of a run, skip the heap when there are few
/// links: each link has one slot, since a link's timer has at most one live
/// event (arming schedules only an earlier one, which replaces the later),
/// and the earliest slot is found by a scan. A slot is its link's timer, with
/// no generation to check; with more links each has a `Timer` and its events
/// go through the heap.
///
/// The senders' timers have a heap of their own, indexed by flow
/// (`schedule_sender`): a sender's timer has at most one live event, and
/// arming it earlier (a paced sender does after nearly every segment, its
/// pending event often a retransmission timeout hundreds of milliseconds
/// away) moves that event in place instead of leaving it in the heap,
/// stale, until its time. In the main heap such stale events piled up by
/// the tens of thousands and made every push and pop sift through them.
#[derive(Default)]
pub struct EventQueue {
    heap: Vec<Entry>,
    /// The root slot holds an event already popped.
    root_vacant: bool,
    /// Per link, its pending event and deadline (empty when the links are too many).
    link_slots: Vec<LinkSlot>,
    /// The slot with the smallest key.
    next_link: usize,
    /// Per link, its timer, when the links are too many for slots.
    link_timers: Vec<Timer>,
    /// The senders' pending events: a 4-ary min-heap by key, at most one per flow.
    sender_heap: Vec<SenderEntry>,
    /// The root of `sender_heap` holds an event already popped (as `root_vacant`:
    /// a sender's handler nearly always arms its timer again, and the new
    /// event then takes the root and sinks, one sift instead of two).
    sender_root_vacant: bool,
    /// Per flow, its event's index in `sender_heap` (NOT_QUEUED: none).
    sender_pos: Vec<u32>,
    /// With few flows, per flow its pending event (key EMPTY_SLOT: none)
    /// instead of the heap, as the links' slots (`sender_slots_for`).
    sender_slots: Vec<SenderEntry>,
    /// The slot with the smallest key.
    next_sender: usize,
    next_order: u64,
    processed: u64,
}

/// The index of the slot with the smallest key (the first of equal ones):
/// the slot whose event is due next. The slots are few, so a scan.
#[inline]
fn earliest<T>(slots: &[T], key: impl Fn(&T) -> u128) -> usize {
    let mut best = 0;
    for (i, slot) in slots.iter().enumerate().skip(1) {
        if key(slot) < key(&slots[best]) {
            best = i;
        }
    }
    best
}

/// A sender timer's pending event (`Event::Sender`).
#[derive(Clone, Copy, Debug)]
struct SenderEntry {
    key: u128,
    flow: u32,
    generation: u32,
}

const NOT_QUEUED: u32 = u32::MAX;

/// A link's timer as a slot: what `Timer` keeps, where the pending event's
/// key is its `scheduled` time.
#[derive(Clone, Copy, Debug)]
struct LinkSlot {
    /// EMPTY_SLOT: no event pending.
    key: u128,
    /// When the link wants to be woken (it may have moved past the event's time).
    deadline: Nanos,
}

const EMPTY_SLOT: u128 = u128::MAX;

const ARITY: usize = 4;

/// Up to this many links get a slot each; more go through the heap (a scan
/// of the slots would cost more than the heap saves).
pub const MAX_SLOTTED_LINKS: usize = 8;

/// Up to this many senders get a slot each, as the links do; more go
/// through the senders' heap.
pub const MAX_SLOTTED_SENDERS: usize = 8;

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// A queue for a world of `links` links.
    pub fn for_links(links: usize) -> Self {
        let (slots, timers) = if links <= MAX_SLOTTED_LINKS { (links, 0) } else { (0, links) };
        EventQueue {
            link_slots: vec![LinkSlot { key: EMPTY_SLOT, deadline: 0 }; slots],
            link_timers: vec![Timer::default(); timers],
            ..Self::default()
        }
    }

    /// Schedules `event`; a link's events are scheduled by `arm_link` instead.
    #[inline]
    pub fn schedule(&mut self, at: Nanos, event: Event) {
        debug_assert!(!matches!(event, Event::Link { .. }), "link events come from arm_link");
        self.push(at, event);
    }

    /// Gives each of `senders` flows a slot for its sender's event if they
    /// are few; a flow numbered beyond them later (a background transfer)
    /// moves every sender to the heap.
    pub fn sender_slots_for(mut self, senders: usize) -> Self {
        if senders <= MAX_SLOTTED_SENDERS {
            let empty = SenderEntry { key: EMPTY_SLOT, flow: 0, generation: 0 };
            self.sender_slots = (0..senders as u32).map(|flow| SenderEntry { flow, ..empty }).collect();
        }
        self
    }

    /// Moves the pending sender events from the slots to the heap (for good).
    #[cold]
    fn unslot_senders(&mut self) {
        for entry in std::mem::take(&mut self.sender_slots) {
            if entry.key != EMPTY_SLOT {
                self.sender_pos.resize(self.sender_pos.len().max(entry.flow as usize + 1), NOT_QUEUED);
                let hole = self.sender_heap.len();
                self.sender_heap.push(entry);
                self.sender_sift_up(hole, entry);
            }
        }
        self.next_sender = 0;
    }

    /// Schedules flow `flow`'s sender event at `at` with `generation`,
    /// replacing the flow's pending one, if any (its timer moved, so it was
    /// stale: see `Timer::arm`). The new event takes its place in the order
    /// as `schedule` would give it: events pop exactly as if the stale one
    /// were still there, only it no longer pops.
    #[inline]
    pub fn schedule_sender(&mut self, flow: u32, at: Nanos, generation: u32) {
        let key = self.next_key(at);
        let entry = SenderEntry { key, flow, generation };
        let f = flow as usize;
        if !self.sender_slots.is_empty() {
            if let Some(slot) = self.sender_slots.get_mut(f) {
                let later = key > slot.key;
                *slot = entry;
                if key < self.sender_slots[self.next_sender].key {
                    self.next_sender = f;
                } else if later && f == self.next_sender {
                    self.next_sender = earliest(&self.sender_slots, |e| e.key);
                }
                return;
            }
            self.unslot_senders();
        }
        if f >= self.sender_pos.len() {
            self.sender_pos.resize(f + 1, NOT_QUEUED);
        }
        if self.sender_root_vacant {
            self.sender_root_vacant = false;
            if self.sender_pos[f] == NOT_QUEUED {
                self.sender_sift_down(0, entry);
                return;
            }
            self.close_sender_root();
        }
        match self.sender_pos[f] {
            NOT_QUEUED => {
                let hole = self.sender_heap.len();
                self.sender_heap.push(entry);
                self.sender_sift_up(hole, entry);
            }
            pos if key < self.sender_heap[pos as usize].key => self.sender_sift_up(pos as usize, entry),
            pos => self.sender_sift_down(pos as usize, entry),
        }
    }

    /// Puts `entry` at `hole` of the senders' heap, or above it where it belongs.
    #[inline]
    fn sender_sift_up(&mut self, mut hole: usize, entry: SenderEntry) {
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            let p = self.sender_heap[parent];
            if p.key <= entry.key {
                break;
            }
            self.sender_heap[hole] = p;
            self.sender_pos[p.flow as usize] = hole as u32;
            hole = parent;
        }
        self.sender_heap[hole] = entry;
        self.sender_pos[entry.flow as usize] = hole as u32;
    }

    /// Puts `entry` at `hole` of the senders' heap, or below it where it belongs.
    ///
    /// A paced sender's event, rescheduled a pacing gap after each wake,
    /// sinks most of the heap's depth (with 1000 paced flows this was 15% of
    /// all instructions); a full set of four children, all but the last
    /// set, is compared in two pairs and their winners, without a loop.
    #[inline]
    fn sender_sift_down(&mut self, mut hole: usize, entry: SenderEntry) {
        let n = self.sender_heap.len();
        loop {
            let first = hole * ARITY + 1;
            if first >= n {
                break;
            }
            let best = match self.sender_heap.get(first..first + ARITY) {
                Some(&[k0, k1, k2, k3]) => {
                    // The first of equal keys, as the loop below.
                    let a = if k1.key < k0.key { (1, k1.key) } else { (0, k0.key) };
                    let b = if k3.key < k2.key { (3, k3.key) } else { (2, k2.key) };
                    first + if b.1 < a.1 { b.0 } else { a.0 }
                }
                _ => {
                    let mut best = first;
                    for c in first + 1..n {
                        if self.sender_heap[c].key < self.sender_heap[best].key {
                            best = c;
                        }
                    }
                    best
                }
            };
            let b = self.sender_heap[best];
            if b.key >= entry.key {
                break;
            }
            self.sender_heap[hole] = b;
            self.sender_pos[b.flow as usize] = hole as u32;
            hole = best;
        }
        self.sender_heap[hole] = entry;
        self.sender_pos[entry.flow as usize] = hole as u32;
    }

    /// Removes the senders' earliest event (leaving the root vacant) and returns it.
    #[inline]
    fn pop_sender(&mut self) -> SenderEntry {
        let top = self.sender_heap[0];
        self.sender_pos[top.flow as usize] = NOT_QUEUED;
        self.sender_root_vacant = true;
        top
    }

    /// Fills the vacant root of the senders' heap with its last event.
    #[inline]
    fn close_sender_root(&mut self) {
        let last = self.sender_heap.pop().expect("a vacant root is a slot");
        if !self.sender_heap.is_empty() {
            self.sender_sift_down(0, last);
        }
    }

    /// Sets link `link`'s deadline to `at` (as `Timer::arm`): an event is
    /// scheduled unless one is pending at or before `at`.
    #[inline(always)]
    pub fn arm_link(&mut self, link: usize, at: Nanos) {
        if let Some(slot) = self.link_slots.get_mut(link) {
            slot.deadline = at;
            if slot.key == EMPTY_SLOT || (slot.key >> 64) as Nanos > at {
                self.fill_link_slot(link, at);
            }
        } else {
            self.arm_link_timer(link, at);
        }
    }

    /// `arm_link` of a link with a timer instead of a slot.
    #[inline(never)]
    fn arm_link_timer(&mut self, link: usize, at: Nanos) {
        if let Some((at, generation)) = self.link_timers[link].arm(at) {
            self.push(at, Event::Link { link: link as u32, generation });
        }
    }

    /// Whether the popped event `generation` of link `link` fires at `now`
    /// (as `Timer::on_event`): one that came before the deadline, which
    /// moved later, is scheduled again at the deadline instead.
    #[inline]
    pub fn link_fires(&mut self, link: usize, generation: u32, now: Nanos) -> bool {
        if let Some(slot) = self.link_slots.get(link) {
            if slot.deadline <= now {
                return true;
            }
            self.fill_link_slot(link, slot.deadline);
            return false;
        }
        match self.link_timers[link].on_event(now, generation) {
            TimerCheck::Fire => true,
            TimerCheck::Stale => false,
            TimerCheck::Reschedule(at, generation) => {
                self.push(at, Event::Link { link: link as u32, generation });
                false
            }
        }
    }

    /// Gives link `link`'s slot a new event at `at`.
    #[inline]
    fn fill_link_slot(&mut self, link: usize, at: Nanos) {
        let key = self.next_key(at);
        self.link_slots[link].key = key;
        if key < self.link_slots[self.next_link].key {
            self.next_link = link;
        }
    }

    /// The order key of an event at `at` scheduled now: its time, then ties
    /// in the order they were scheduled.
    #[inline]
    fn next_key(&mut self, at: Nanos) -> u128 {
        let key = ((at as u128) << 64) | self.next_order as u128;
        self.next_order += 1;
        key
    }

    /// Puts `event` in the heap.
    #[inline]
    fn push(&mut self, at: Nanos, event: Event) {
        let key = self.next_key(at);
        let entry = Entry { key, event };
        if self.root_vacant {
            self.root_vacant = false;
            self.sift_down_from_root(entry);
            return;
        }
        let mut hole = self.heap.len();
        self.heap.push(entry);
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            if self.heap[parent].key <= key {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = entry;
    }

    /// A place in the order for something the caller runs itself at `at`
    /// (without an event): it comes after every event scheduled before this
    /// call and before every one scheduled after, as an event scheduled now
    /// would. Compare it with the keys `pop_keyed` returns.
    #[inline]
    pub fn reserve(&mut self, at: Nanos) -> OrderKey {
        let key = ((at as u128) << 64) | self.next_order as u128;
        self.next_order += 1;
        OrderKey(key)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Nanos, Event)> {
        self.pop_keyed().map(|(key, event)| (key.time(), event))
    }

    /// The next event with its place in the order.
    #[inline]
    pub fn pop_keyed(&mut self) -> Option<(OrderKey, Event)> {
        if self.root_vacant {
            self.root_vacant = false;
            let last = self.heap.pop().expect("a vacant root is a slot");
            if !self.heap.is_empty() {
                self.sift_down_from_root(last);
            }
        }
        let slotted = !self.sender_slots.is_empty();
        let sender_key = if slotted {
            self.sender_slots[self.next_sender].key
        } else {
            if self.sender_root_vacant {
                self.sender_root_vacant = false;
                self.close_sender_root();
            }
            self.sender_heap.first().map_or(EMPTY_SLOT, |e| e.key)
        };
        let heap_key = self.heap.first().map_or(EMPTY_SLOT, |e| e.key);
        if let Some(&LinkSlot { key, .. }) = self.link_slots.get(self.next_link) {
            if key < heap_key.min(sender_key) {
                let link = self.next_link;
                self.link_slots[link].key = EMPTY_SLOT;
                self.next_link = earliest(&self.link_slots, |e| e.key);
                self.processed += 1;
                return Some((OrderKey(key), Event::Link { link: link as u32, generation: 0 }));
            }
        }
        if sender_key < heap_key {
            let SenderEntry { key, flow, generation } = if slotted {
                let slot = &mut self.sender_slots[self.next_sender];
                let entry = *slot;
                slot.key = EMPTY_SLOT;
                self.next_sender = earliest(&self.sender_slots, |e| e.key);
                entry
            } else {
                self.pop_sender()
            };
            self.processed += 1;
            return Some((OrderKey(key), Event::Sender { flow, generation }));
        }
        let top = *self.heap.first()?;
        self.root_vacant = true;
        self.processed += 1;
        Some((OrderKey(top.key), top.event))
    }

    /// Puts `entry` at the root (which must be vacant or hold an event no
    /// longer wanted) and sinks it to its place.
    #[inline]
    fn sift_down_from_root(&mut self, entry: Entry) {
        let n = self.heap.len();
        let mut hole = 0;
        loop {
            let first = hole * ARITY + 1;
            if first >= n {
                break;
            }
            let end = (first + ARITY).min(n);
            let mut best = first;
            for c in first + 1..end {
                if self.heap[c].key < self.heap[best].key {
                    best = c;
                }
            }
            if self.heap[best].key >= entry.key {
                break;
            }
            self.heap[hole] = self.heap[best];
            hole = best;
        }
        self.heap[hole] = entry;
    }

    /// Number of events popped so far (a cost measure for benchmarks).
    pub fn processed(&self) -> u64 {
        self.processed
    }
}

/// A place in the event order: (time, insertion order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct OrderKey(u128);

impl OrderKey {
    pub fn time(self) -> Nanos {
        (self.0 >> 64) as Nanos
    }
}

/// A re-armable one-shot timer with lazy cancellation.
///
/// `deadline` is when the owner wants to be woken; at most one live event is in
/// the queue for it. Moving the deadline later does not touch the queue: the
/// early event fires, sees the deadline is not yet due and re-schedules itself.
/// Moving it earlier schedules a new event and bumps the generation, which
/// turns the old one stale.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    deadline: Option<Nanos>,
    scheduled: Option<Nanos>,
    generation: u32,
}

impl Timer {
    pub fn deadline(&self) -> Option<Nanos> {
        self.deadline
    }

    /// Sets the deadline; returns `Some((at, generation))` when the caller must
    /// schedule an event for it.
    #[inline]
    #[must_use]
    pub fn arm(&mut self, at: Nanos) -> Option<(Nanos, u32)> {
        self.deadline = Some(at);
        match self.scheduled {
            Some(s) if s <= at => None,
            _ => {
                self.generation = self.generation.wrapping_add(1);
                self.scheduled = Some(at);
                Some((at, self.generation))
            }
        }
    }

    #[inline]
    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    /// Called when an event of this timer fires at `now`. Returns `Fire` when
    /// the owner's deadline is due, `Reschedule` when the event came early
    /// (the deadline moved later) and `Stale` when it was superseded.
    #[inline]
    pub fn on_event(&mut self, now: Nanos, generation: u32) -> TimerCheck {
        if generation != self.generation || self.scheduled != Some(now) {
            return TimerCheck::Stale;
        }
        self.scheduled = None;
        match self.deadline {
            None => TimerCheck::Stale,
            Some(d) if d <= now => {
                self.deadline = None;
                TimerCheck::Fire
            }
            Some(d) => {
                self.generation = self.generation.wrapping_add(1);
                self.scheduled = Some(d);
                TimerCheck::Reschedule(d, self.generation)
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerCheck {
    Fire,
    Reschedule(Nanos, u32),
    Stale,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(5, Event::Sender { flow: 1, generation: 0 });
        q.schedule(5, Event::Sender { flow: 2, generation: 0 });
        q.schedule(3, Event::Source { source: 0, generation: 0 });
        assert_eq!(q.pop(), Some((3, Event::Source { source: 0, generation: 0 })));
        assert_eq!(q.pop(), Some((5, Event::Sender { flow: 1, generation: 0 })));
        assert_eq!(q.pop(), Some((5, Event::Sender { flow: 2, generation: 0 })));
    }

    #[test]
    fn a_reserved_place_sits_between_the_events_scheduled_before_and_after_it() {
        let mut q = EventQueue::new();
        let early = Event::Sender { flow: 1, generation: 0 };
        let late = Event::Sender { flow: 2, generation: 0 };
        q.schedule(5, early);
        let place = q.reserve(5);
        q.schedule(5, late);
        q.schedule(4, late);
        assert_eq!(place.time(), 5);
        let popped: Vec<_> = std::iter::from_fn(|| q.pop_keyed()).collect();
        let before: Vec<_> = popped.iter().filter(|(key, _)| *key < place).map(|(_, e)| *e).collect();
        assert_eq!(before, [late, early]);
        assert!(popped.iter().all(|(key, _)| *key != place));
        assert_eq!(q.processed(), 3, "a reserved place is not an event");
    }

    #[test]
    fn pops_in_time_then_insertion_order_for_many_events() {
        let mut q = EventQueue::new();
        let mut rng = crate::rng::Rng::for_component(1, 1);
        let mut expect = Vec::new();
        for i in 0..2000u32 {
            let at = rng.next_u64() % 50;
            q.schedule(at, Event::Source { source: i, generation: 0 });
            expect.push((at, i));
        }
        expect.sort();
        let got: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| match e {
                Event::Source { source, .. } => (t, source),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(got, expect);
    }

    /// Pops and schedules interleaved (a popped root is refilled by the
    /// next schedule or removed by the next pop) keep the order a sorted
    /// reference gives.
    #[test]
    fn interleaved_pops_and_schedules_keep_the_order() {
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut rng = crate::rng::Rng::for_component(2, 1);
        let (mut now, mut order) = (0u64, 0u64);
        for i in 0..20_000u32 {
            let action = rng.next_u64() % 3;
            if action < 2 || reference.is_empty() {
                let at = now + rng.next_u64() % 40;
                q.schedule(at, Event::Source { source: i, generation: 0 });
                reference.insert((at, order, i));
                order += 1;
            } else {
                let (at, _, source) = reference.pop_first().unwrap();
                assert_eq!(q.pop(), Some((at, Event::Source { source, generation: 0 })));
                now = at;
            }
        }
        while let Some((at, _, source)) = reference.pop_first() {
            assert_eq!(q.pop(), Some((at, Event::Source { source, generation: 0 })));
        }
        assert_eq!(q.pop(), None);
        assert_eq!(q.pop(), None);
    }

    /// Link timers, in slots (few links) or through the heap (many), and
    /// other events pop in the order a sorted reference with `Timer`'s rules
    /// gives: arming earlier than the pending event replaces it (in the heap
    /// the replaced one stays, stale: it pops but does not fire), arming later
    /// leaves it, and a link event that comes before its deadline is
    /// scheduled again at the deadline instead of firing.
    #[test]
    fn link_timers_and_other_events_pop_in_one_order() {
        #[derive(Debug)]
        enum Expected {
            Source(u32),
            Link(usize),
            Stale(usize),
        }
        for links in [3, MAX_SLOTTED_LINKS + 1] {
            let slotted = links <= MAX_SLOTTED_LINKS;
            let mut q = EventQueue::for_links(links);
            let mut reference = std::collections::BTreeMap::<(u64, u64), Expected>::new();
            let mut pending: Vec<Option<(u64, u64)>> = vec![None; links];
            let mut deadline = vec![0u64; links];
            let mut rng = crate::rng::Rng::for_component(3, 1);
            let (mut now, mut order, mut step) = (0u64, 0u64, 0u32);
            let mut fired = [0u32; 2];
            loop {
                let action = match step {
                    0..30_000 => rng.next_u64() % 4,
                    _ if reference.is_empty() => break,
                    _ => 3,
                };
                step += 1;
                match action {
                    0 => {
                        let at = now + rng.next_u64() % 40;
                        q.schedule(at, Event::Source { source: step, generation: 0 });
                        reference.insert((at, order), Expected::Source(step));
                        order += 1;
                    }
                    1 => {
                        let link = (rng.next_u64() % links as u64) as usize;
                        let at = now + rng.next_u64() % 40;
                        q.arm_link(link, at);
                        deadline[link] = at;
                        if pending[link].is_none_or(|(t, _)| at < t) {
                            if let Some(old) = pending[link] {
                                let replaced = reference.remove(&old);
                                assert!(matches!(replaced, Some(Expected::Link(l)) if l == link));
                                if !slotted {
                                    reference.insert(old, Expected::Stale(link));
                                }
                            }
                            reference.insert((at, order), Expected::Link(link));
                            pending[link] = Some((at, order));
                            order += 1;
                        }
                    }
                    _ => {
                        let Some(((at, _), expected)) = reference.pop_first() else {
                            assert_eq!(q.pop(), None);
                            continue;
                        };
                        let (t, event) = q.pop().expect("an event");
                        assert_eq!(t, at);
                        now = at;
                        match (expected, event) {
                            (Expected::Source(source), Event::Source { source: s, .. }) => assert_eq!(s, source),
                            (Expected::Stale(link), Event::Link { link: l, generation }) => {
                                assert_eq!(l as usize, link);
                                assert!(!q.link_fires(link, generation, at));
                            }
                            (Expected::Link(link), Event::Link { link: l, generation }) => {
                                assert_eq!(l as usize, link);
                                pending[link] = None;
                                let fires = q.link_fires(link, generation, at);
                                assert_eq!(fires, deadline[link] <= at);
                                fired[fires as usize] += 1;
                                if !fires {
                                    reference.insert((deadline[link], order), Expected::Link(link));
                                    pending[link] = Some((deadline[link], order));
                                    order += 1;
                                }
                            }
                            other => panic!("{other:?}"),
                        }
                    }
                }
            }
            assert_eq!(q.pop(), None);
            assert!(fired[0] > 100 && fired[1] > 100, "{fired:?}");
        }
    }

    /// Sender timers (`schedule_sender`, one pending event per flow, moved
    /// in place) and other events pop in the order a reference gives where
    /// each sender event goes into one sorted set with its key and a
    /// superseded one stays there, stale (as it did in the heap): the live
    /// events come in the same order, and the stale ones no longer come.
    #[test]
    fn sender_timers_pop_in_the_order_stale_events_would_leave() {
        // Slots, the heap (shallow and deep), and slots for fewer flows than
        // arm timers (moved to the heap).
        for (flows, slots) in [(6u32, 6), (40, 0), (12, 4), (300, 0)] {
            sender_timers_pop_in_order(flows, slots);
        }
    }

    fn sender_timers_pop_in_order(flows: u32, slots: usize) {
        let mut q = EventQueue::for_links(2).sender_slots_for(slots);
        let mut reference = std::collections::BTreeMap::<(u64, u64), (Event, bool)>::new();
        let mut generation = vec![0u32; flows as usize];
        let mut live: Vec<Option<(u64, u64)>> = vec![None; flows as usize];
        let mut rng = crate::rng::Rng::for_component(4, 1);
        let (mut now, mut order, mut step, mut stale) = (0u64, 0u64, 0u32, 0u32);
        loop {
            let action = match step {
                0..40_000 => rng.next_u64() % 4,
                _ if reference.is_empty() => break,
                _ => 3,
            };
            step += 1;
            match action {
                0 => {
                    let at = now + rng.next_u64() % 40;
                    q.schedule(at, Event::Source { source: step, generation: 0 });
                    reference.insert((at, order), (Event::Source { source: step, generation: 0 }, true));
                    order += 1;
                }
                1 | 2 => {
                    let flow = (rng.next_u64() % flows as u64) as u32;
                    let at = now + rng.next_u64() % if action == 1 { 20 } else { 400 };
                    let f = flow as usize;
                    generation[f] += 1;
                    q.schedule_sender(flow, at, generation[f]);
                    if let Some(old) = live[f].take() {
                        reference.get_mut(&old).expect("pending").1 = false;
                    }
                    let event = Event::Sender { flow, generation: generation[f] };
                    reference.insert((at, order), (event, true));
                    live[f] = Some((at, order));
                    order += 1;
                }
                _ => {
                    let Some(((at, key_order), (event, is_live))) = reference.pop_first() else {
                        assert_eq!(q.pop(), None);
                        continue;
                    };
                    if !is_live {
                        stale += 1;
                        continue;
                    }
                    if let Event::Sender { flow, .. } = event {
                        assert_eq!(live[flow as usize], Some((at, key_order)));
                        live[flow as usize] = None;
                    }
                    assert_eq!(q.pop(), Some((at, event)));
                    now = at;
                }
            }
        }
        assert_eq!(q.pop(), None);
        assert!(stale > 1000, "{stale} superseded events");
    }

    #[test]
    fn timer_moved_later_reschedules_and_moved_earlier_supersedes() {
        let mut t = Timer::default();
        let (at, g) = t.arm(10).unwrap();
        assert!(t.arm(20).is_none());
        assert_eq!(t.on_event(at, g), TimerCheck::Reschedule(20, g + 1));
        assert_eq!(t.on_event(20, g + 1), TimerCheck::Fire);
        let (_, g1) = t.arm(50).unwrap();
        let (at2, g2) = t.arm(30).unwrap();
        assert_eq!(t.on_event(50, g1), TimerCheck::Stale);
        assert_eq!(t.on_event(at2, g2), TimerCheck::Fire);
    }
}
