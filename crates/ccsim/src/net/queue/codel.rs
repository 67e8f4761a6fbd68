//! CoDel, Controlled Delay (RFC 8289; K. Nichols and V. Jacobson, "Controlling
//! Queue Delay", ACM Queue 2012): an AQM that acts on the sojourn time of the
//! packet at the head of the queue, at dequeue.
//!
//! Model (RFC 8289 sections 4 and 5): when every packet dequeued for at least
//! `interval` has waited at least `target` (and more than one MTU is queued),
//! enter the dropping state and drop; while dropping, drop again at
//!   drop_next = t + interval / sqrt(count)
//! (the control law), leaving the state as soon as a packet's sojourn falls
//! below target. On re-entry soon after leaving (within 16 intervals) count
//! restarts from the drops of the last cycle. With `ecn`, an ECN-capable packet
//! is marked CE instead of dropped and sent on, as Linux's codel_dequeue does.
//!
//! The hard limit (`size` of the queue) drops at the tail on arrival.
//! A packet dropped at dequeue is freed from the pool here.

use super::fifo::{Capacity, Fifo, Queued};
use crate::net::packet::Packet;
use crate::net::pool::{PacketId, PacketPool};
use crate::time::Nanos;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target_ns: Nanos,
    pub interval_ns: Nanos,
    pub ecn: bool,
}

impl Default for CodelParams {
    /// RFC 8289 4.3 and 4.4: 5 ms target, 100 ms interval.
    fn default() -> Self {
        CodelParams { target_ns: 5_000_000, interval_ns: 100_000_000, ecn: false }
    }
}

pub struct Codel {
    fifo: Fifo,
    params: CodelParams,
    /// When the sojourn time will have stayed above target for an interval (None: below target).
    first_above_time: Option<Nanos>,
    drop_next: Nanos,
    count: u32,
    lastcount: u32,
    dropping: bool,
    /// Largest packet seen (RFC 8289's maxpacket).
    max_packet_bytes: u64,
    pub marks: u64,
    pub drops: u64,
}

struct Dequeued {
    p: Option<Queued>,
    ok_to_drop: bool,
}

impl Codel {
    pub fn new(capacity: Capacity, params: CodelParams) -> Codel {
        Codel {
            fifo: Fifo::new(capacity),
            params,
            first_above_time: None,
            drop_next: 0,
            count: 0,
            lastcount: 0,
            dropping: false,
            max_packet_bytes: 1500,
            marks: 0,
            drops: 0,
        }
    }

    /// Adds packet `id` at the tail; false when the hard limit drops it.
    #[inline(never)]
    pub fn enqueue(&mut self, id: PacketId, pool: &PacketPool) -> bool {
        let p = pool.get(id);
        if !self.fifo.fits(p) {
            return false;
        }
        self.max_packet_bytes = self.max_packet_bytes.max(p.wire_bytes as u64);
        self.fifo.push(id, p);
        true
    }

    /// interval / sqrt(count) after `t`.
    fn control_law(&self, t: Nanos, count: u32) -> Nanos {
        t + (self.params.interval_ns as f64 / (count.max(1) as f64).sqrt()) as Nanos
    }

    /// RFC 8289 5.4 dodequeue: the head packet and whether CoDel may drop it.
    fn do_dequeue(&mut self, now: Nanos) -> Dequeued {
        let Some(q) = self.fifo.pop() else {
            self.first_above_time = None;
            return Dequeued { p: None, ok_to_drop: false };
        };
        let sojourn = now.saturating_sub(q.enqueued_at);
        let mut ok_to_drop = false;
        if sojourn < self.params.target_ns || self.fifo.len_bytes() <= self.max_packet_bytes {
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + self.params.interval_ns),
                Some(t) if now >= t => ok_to_drop = true,
                Some(_) => {}
            }
        }
        Dequeued { p: Some(q), ok_to_drop }
    }

    /// Marks `p` if ECN allows it (true: send it on), else counts it dropped.
    fn signal(&mut self, p: &mut Packet) -> bool {
        if self.params.ecn && p.ect {
            p.ce = true;
            self.marks += 1;
            true
        } else {
            self.drops += 1;
            false
        }
    }

    /// RFC 8289 5.5 dequeue: the next packet to send, dropping on the way as
    /// the state machine says (each dropped packet is freed from `pool`).
    #[inline(never)]
    pub fn dequeue(&mut self, now: Nanos, pool: &mut PacketPool) -> Option<Queued> {
        let mut r = self.do_dequeue(now);
        let Some(mut p) = r.p else {
            // An empty queue ends a dropping state (RFC 8289: ok_to_drop is false).
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !r.ok_to_drop {
                // Sojourn time below target: leave the dropping state.
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if self.signal(pool.get_mut(p.id)) {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                    return Some(p);
                }
                pool.free(p.id);
                r = self.do_dequeue(now);
                let Some(next) = r.p else {
                    self.dropping = false;
                    return None;
                };
                p = next;
                if !r.ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                }
            }
        } else if r.ok_to_drop {
            let marked = self.signal(pool.get_mut(p.id));
            if !marked {
                pool.free(p.id);
                r = self.do_dequeue(now);
            }
            self.dropping = true;
            // Restart near the drop rate of the last cycle if it ended recently.
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = if delta > 1
                && delta < u32::MAX / 2
                && now.saturating_sub(self.drop_next) < 16 * self.params.interval_ns
            {
                delta
            } else {
                1
            };
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
            if !marked {
                return r.p;
            }
        }
        Some(p)
    }

    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Kind;
    use crate::time::NS_PER_MS;

    fn packet(at: Nanos) -> Packet {
        let mut p = Packet::new(Kind::Data, 0, 1500);
        p.enqueued_at = at;
        p
    }

    /// A CoDel queue with a packet pool: packets in by value.
    struct Bench {
        q: Codel,
        pool: PacketPool,
    }

    impl Bench {
        fn new(params: CodelParams) -> Bench {
            let capacity = Capacity::Packets(100_000);
            Bench { q: Codel::new(capacity, params), pool: PacketPool::new() }
        }

        fn enqueue(&mut self, p: Packet) {
            let id = self.pool.insert(p);
            assert!(self.q.enqueue(id, &self.pool));
        }

        /// Whether a packet was sent (it is freed at once).
        fn dequeue(&mut self, now: Nanos) -> bool {
            let sent = self.q.dequeue(now, &mut self.pool);
            sent.map(|q| self.pool.remove(q.id)).is_some()
        }
    }

    #[test]
    fn drops_after_an_interval_above_target_then_by_the_control_law() {
        let mut q = Bench::new(CodelParams::default());
        // A standing queue: packets arrive every ms and are served every ms, 50 ms late.
        let mut drop_times = Vec::new();
        for t in 0..2000u64 {
            q.enqueue(packet(t * NS_PER_MS));
            q.enqueue(packet(t * NS_PER_MS)); // twice the service rate keeps the queue growing
            if t >= 50 {
                let before = q.q.drops;
                q.dequeue(t * NS_PER_MS);
                if q.q.drops > before {
                    drop_times.push(t);
                }
            }
        }
        // First drop one interval after the sojourn first exceeded target (at t = 50 ms).
        assert_eq!(drop_times[0], 150);
        // Then gaps shrink as interval / sqrt(count): 100, 70.7, 57.7, 50, ...
        let gaps: Vec<u64> = drop_times.windows(2).map(|w| w[1] - w[0]).take(4).collect();
        assert_eq!(gaps, vec![100, 71, 58, 50]);
    }

    #[test]
    fn leaves_the_dropping_state_when_sojourn_is_below_target() {
        let mut q = Bench::new(CodelParams::default());
        for _ in 0..10 {
            q.enqueue(packet(0));
        }
        // All waited 1 ms: nothing dropped however long it runs.
        for k in 0..10 {
            assert!(q.dequeue(NS_PER_MS + k));
        }
        assert_eq!(q.q.drops, 0);
        assert!(q.pool.is_empty());
    }

    #[test]
    fn ecn_marks_instead_of_dropping() {
        let mut q = Bench::new(CodelParams { ecn: true, ..CodelParams::default() });
        for t in 0..1000u64 {
            let mut p = packet(t * NS_PER_MS);
            p.ect = true;
            q.enqueue(p);
            q.enqueue(p);
            q.dequeue(t * NS_PER_MS + 50 * NS_PER_MS);
        }
        assert_eq!(q.q.drops, 0);
        assert!(q.q.marks >= 5, "marks {}", q.q.marks);
    }
}
