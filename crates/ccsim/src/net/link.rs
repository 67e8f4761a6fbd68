//! A link: queue, transmitter, channel (outages, loss, link-layer ARQ,
//! jitter) and propagation delay, as one deterministic state machine that is
//! told the time.
//!
//! The simulator drives it from its event queue; the kernel emulator can drive
//! the same code from the wall clock. The owner keeps the packets in a
//! `PacketPool` and hands the link their handles: it calls `enqueue` when a
//! packet arrives, `advance(now)` whenever `next_wakeup()` is due, and
//! forwards the packets `advance` hands back (and frees them at the end of
//! their journey); a packet the link drops or loses, the link frees. Nothing
//! here knows about events or flows, and calls at the same instant give the
//! same result in any order (the
//! transmitter is brought up to `now` before an arrival is queued, as
//! Mahimahi's link queue does).
//!
//! Pipeline of a packet:
//!   enqueue -> queue (drop-tail / RED / CoDel: drops counted as queue drops, AQM drops apart)
//!   -> transmitter (constant rate, trace of opportunities or Markov rate; nothing starts in an
//!      outage, and an outage that resets the link layer loses the queue: residual losses)
//!   -> channel: each try of the frame on the air may be lost (channel losses); ARQ retries
//!      it up to K times (retries), and a frame lost on every try is a residual loss
//!   -> jitter (optional) -> propagation delay line -> delivered.
//!
//! Random streams, each seeded from (run seed, component + offset): loss +0,
//! jitter +0x100, queue (RED) +0x200, outage process +0x300, rate process +0x400.

use super::channel::arq::{Arq, ArqConfig};
use super::channel::jitter::{Jitter, JitterConfig};
use super::channel::loss::{Loss, LossModel};
use super::channel::outage::{OutageConfig, Outages};
use super::channel::rate::{RateConfig, Transmitter};
use super::delay_line::DelayLine;
use super::host_queue::HostQueue;
use super::packet::{Packet, MTU_BYTES};
use super::pool::{PacketId, PacketPool};
use super::queue::{Capacity, Queue, QueueConfig, Queued};
use crate::rng::Rng;
use crate::time::Nanos;

/// A link's configuration with every size resolved to concrete units.
#[derive(Clone, Debug)]
pub struct LinkConfig {
    pub rate: RateConfig,
    pub delay_ns: Nanos,
    pub queue: QueueConfig,
    pub loss: LossModel,
    pub arq: Option<ArqConfig>,
    pub jitter: Option<JitterConfig>,
    pub outages: OutageConfig,
    /// RLC timer-based SDU discard (3GPP TS 25.322 9.7.3.1): a packet that
    /// has waited longer than this when its transmission would start is
    /// discarded (a residual loss) instead of sent. Drop-tail queues only.
    pub discard_timer_ns: Option<Nanos>,
    /// The sending host's interface queue in front of this link, in packets
    /// (host_queue.rs): the link's drop-tail queue then holds the host's
    /// senders back instead of dropping what they send.
    pub host_queue: Option<u32>,
}

impl LinkConfig {
    /// A constant-rate drop-tail link without loss, jitter or outages.
    pub fn simple(rate_bps: u64, delay_ns: Nanos, capacity: Capacity) -> LinkConfig {
        LinkConfig {
            rate: RateConfig::Constant { bps: rate_bps },
            delay_ns,
            queue: QueueConfig::DropTail { capacity, ecn_threshold_pkts: None },
            loss: LossModel::None,
            arq: None,
            jitter: None,
            outages: OutageConfig::default(),
            discard_timer_ns: None,
            host_queue: None,
        }
    }
}

/// Cumulative counters of a link, in packets and bytes on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    pub arrivals: u64,
    pub arrival_bytes: u64,
    /// Every drop at the queue: full buffer, RED early drops, CoDel drops.
    pub queue_drops: u64,
    /// Of those, the drops the AQM decided (RED, CoDel).
    pub aqm_drops: u64,
    pub ecn_marks: u64,
    /// Packets taken from the queue for transmission, and their total wait.
    pub dequeued: u64,
    pub sojourn_ns: u64,
    pub departures: u64,
    pub departure_bytes: u64,
    /// Tries of frames lost on the air.
    pub channel_losses: u64,
    /// Link-layer retransmissions made (ARQ).
    pub arq_retries: u64,
    /// Frames lost for good: lost on every try (without ARQ: every channel loss).
    pub residual_losses: u64,
    /// Outages that held the transmitter.
    pub outages: u64,
    pub delivered: u64,
    pub delivered_bytes: u64,
}

impl LinkCounters {
    /// Packet `p` arrives at the link at `now`: counted, and stamped with
    /// the time its wait in the queue starts.
    #[inline(always)]
    fn arrival(&mut self, now: Nanos, p: &mut Packet) {
        self.arrivals += 1;
        self.arrival_bytes += p.wire_bytes as u64;
        p.enqueued_at = now;
    }
}

/// The frame on the transmitter, with its fate on the channel (drawn when
/// it started, counted when it has left).
#[derive(Clone, Copy, Debug)]
struct Transmission {
    /// When its last bit leaves.
    end: Nanos,
    wire_bytes: u32,
    /// Its tries lost on the air.
    failed_tries: u32,
    /// Lost for good (every try failed).
    lost: bool,
}

pub struct Link {
    config: LinkConfig,
    queue: Queue,
    tx: Transmitter,
    /// The frame being sent; the packet itself is already on the wire (or
    /// lost): see `fixed_delay`.
    in_service: Option<Transmission>,
    /// The transmitter is held by an outage until then.
    resume_at: Option<Nanos>,
    /// The next transmission follows the previous one without idle time.
    back_to_back: bool,
    outages: Outages,
    /// `outages.any()`, kept apart so the common case costs one test.
    has_outages: bool,
    /// The transmitter's rate follows the queue's occupancy (a UMTS DCH):
    /// it is told each change.
    observes_queue: bool,
    loss: Loss,
    /// No loss, ARQ or jitter: every frame comes out exactly the delay
    /// after it leaves, with nothing to draw (the common case: one test).
    plain_channel: bool,
    arq: Option<Arq>,
    jitter: Option<Jitter>,
    /// Frames on the wire. Only the handle: an entry of two words is written
    /// straight into the line, where one with the frame's size beside it was
    /// assembled on the stack and copied, a stall on every frame (the size is
    /// read from the pool as the frame exits, where its owner reads it next).
    wire: DelayLine<PacketId>,
    /// Transmissions are completed lazily: a frame's fate on the channel
    /// (its tries on the air, the ARQ's release, its jitter) is drawn in the
    /// order frames are sent, whenever that is done, and no frame leaves
    /// the wire sooner than the delay after leaving the transmitter. So a
    /// frame goes on the wire (or is lost) as its transmission starts
    /// (`transmit`), and the transmitter only needs to be brought up to date
    /// when a packet arrives, when the wire's head is due, when the frame
    /// being sent has been gone for the delay (a frame after it may overtake
    /// the head), or when someone looks (`sync`). This saves an event per
    /// packet; the results are the same as completing each frame on time.
    /// `fixed_delay`: every frame comes out exactly the delay after it
    /// leaves (no ARQ, no jitter), so a new frame never overtakes the head.
    fixed_delay: bool,
    /// `next_wakeup` may have changed since the owner last re-armed the link
    /// (`wakeup_rearmed`): an arrival at a busy link leaves it where it was,
    /// so the owner need not look again.
    wakeup_moved: bool,
    /// Drops at enqueue (full buffer or RED).
    enqueue_drops: u64,
    counters: LinkCounters,
    /// The sending host's queue in front of the link, if it has one.
    host: Option<HostQueue>,
}

impl Link {
    /// `seed` and `component` name the link's random streams (see the header).
    pub fn new(config: LinkConfig, seed: u64, component: u64) -> Link {
        let stream = |offset: u64| Rng::for_component(seed, component + offset);
        let mean_rate = config.rate.mean_rate_bps().max(1.0);
        let packet_time_ns = MTU_BYTES as f64 * 8.0 * 1e9 / mean_rate;
        Link {
            queue: Queue::new(&config.queue, packet_time_ns, stream(0x200)),
            tx: Transmitter::new(&config.rate, stream(0x400)),
            in_service: None,
            resume_at: None,
            back_to_back: false,
            outages: Outages::new(&config.outages, stream(0x300)),
            has_outages: !config.outages.scheduled.is_empty() || config.outages.process.is_some(),
            observes_queue: matches!(config.rate, RateConfig::Dch(_)),
            loss: Loss::new(config.loss, stream(0)),
            plain_channel: config.loss == LossModel::None && config.arq.is_none() && config.jitter.is_none(),
            arq: config.arq.map(Arq::new),
            jitter: config.jitter.map(|j| Jitter::new(j, stream(0x100))),
            wire: DelayLine::new(),
            fixed_delay: config.arq.is_none() && config.jitter.is_none(),
            wakeup_moved: true,
            enqueue_drops: 0,
            counters: LinkCounters::default(),
            host: config.host_queue.map(HostQueue::new),
            config,
        }
    }

    pub fn config(&self) -> &LinkConfig {
        &self.config
    }

    /// The long-run mean rate of the transmitter, in bit/s.
    pub fn mean_rate_bps(&self) -> f64 {
        self.config.rate.mean_rate_bps()
    }

    /// The rate the transmitter offered over (`from`, `to`], in bit/s (RateConfig::offered_rate_bps).
    pub fn offered_rate_bps(&self, from: Nanos, to: Nanos) -> f64 {
        self.config.rate.offered_rate_bps(from, to)
    }

    /// Packet `id` of `pool` arrives at the link's queue at `now`. Returns
    /// false if it was dropped (and freed).
    #[inline(always)]
    pub fn enqueue(&mut self, now: Nanos, id: PacketId, pool: &mut PacketPool) -> bool {
        // The usual arrival, inline where the owner sends: the transmitter
        // is busy (and not behind) and a drop-tail queue takes the packet.
        if let (Some(tr), Queue::DropTail(q)) = (self.in_service, &mut self.queue) {
            if tr.end > now && !self.observes_queue {
                self.counters.arrival(now, pool.get_mut(id));
                if q.enqueue(id, pool) {
                    return true;
                }
                return self.refuse(id, pool);
            }
        }
        self.enqueue_other(now, id, pool)
    }

    /// Whether the sending host's queue (host_queue.rs) stands in front of the link.
    pub fn has_host_queue(&self) -> bool {
        self.host.is_some()
    }

    /// How many packets the sending host's queue in front of the link has
    /// room for now (u32::MAX without one).
    #[inline]
    pub fn host_room(&self) -> u32 {
        self.host.as_ref().map_or(u32::MAX, HostQueue::room)
    }

    /// `n` packets were sent toward the link through the host's queue; each
    /// then arrives with `enqueue_from_host`.
    #[inline]
    pub fn host_sent(&mut self, n: u32) {
        if let Some(h) = self.host.as_mut() {
            h.sent(n);
        }
    }

    /// Packet `id`, sent through the host's queue, arrives at `now`: the
    /// link's queue takes it if it fits and nothing is held before it;
    /// otherwise it waits in the host's queue (never dropped).
    pub fn enqueue_from_host(&mut self, now: Nanos, id: PacketId, pool: &mut PacketPool) {
        if self.next_transmitter_event().is_some_and(|t| t <= now) {
            self.catch_up(now, pool);
        }
        let host = self.host.as_mut().expect("a link with a host queue");
        let fits = match &self.queue {
            Queue::DropTail(q) => q.fifo().fits(pool.get(id)),
            _ => unreachable!("a host queue feeds a drop-tail queue (scenario checks)"),
        };
        if host.is_holding() || !fits {
            host.hold(id);
            return;
        }
        host.admitted();
        let taken = self.enqueue(now, id, pool);
        debug_assert!(taken, "a packet that fits is taken");
    }

    /// The link's queue has room again at `t`: held packets of the host's
    /// queue move in, oldest first, as far as they fit.
    #[inline(never)]
    fn take_from_host(&mut self, t: Nanos, pool: &mut PacketPool) {
        let (Some(host), Queue::DropTail(q)) = (self.host.as_mut(), &mut self.queue) else { return };
        while let Some(id) = host.first_held() {
            if !q.fifo().fits(pool.get(id)) {
                break;
            }
            host.next_held();
            self.counters.arrival(t, pool.get_mut(id));
            let taken = q.enqueue(id, pool);
            debug_assert!(taken);
        }
    }

    /// `enqueue` of any other arrival.
    #[inline(never)]
    fn enqueue_other(&mut self, now: Nanos, id: PacketId, pool: &mut PacketPool) -> bool {
        if self.next_transmitter_event().is_some_and(|t| t <= now) {
            self.catch_up(now, pool);
        }
        let p = pool.get_mut(id);
        self.counters.arrival(now, p);
        let idle = self.in_service.is_none() && self.resume_at.is_none();
        if idle {
            // The frame joins a wire that already has a head (which stays
            // the wakeup) unless an outage can hold it, or ARQ or jitter can
            // make it overtake the head.
            if !self.fixed_delay || self.wire.is_empty() || self.has_outages {
                self.wakeup_moved = true;
            }
            // Straight to the transmitter, as the queue would hand it over at once.
            if !self.has_outages {
                if let Some(admitted) = self.queue.pass_through(p) {
                    if !admitted {
                        return self.refuse(id, pool);
                    }
                    let head = Queued { id, wire_bytes: p.wire_bytes, enqueued_at: now };
                    self.back_to_back = false;
                    self.transmit(now, head, pool);
                    return true;
                }
            }
        }
        if !self.queue.enqueue(now, id, pool) {
            return self.refuse(id, pool);
        }
        if self.observes_queue {
            let on_air = self.in_service.map_or(0, |tr| tr.wire_bytes);
            self.tell_occupancy(now, on_air);
        }
        if idle {
            self.back_to_back = false;
            self.start_transmission(now, pool);
        }
        true
    }

    /// The queue refused packet `id`: a drop at enqueue (returns false).
    #[inline]
    fn refuse(&mut self, id: PacketId, pool: &mut PacketPool) -> bool {
        self.enqueue_drops += 1;
        self.lose(id, pool);
        false
    }

    /// Whether the owner must look at `next_wakeup` again: something may
    /// have changed it since `wakeup_rearmed`.
    #[inline]
    pub fn wakeup_may_have_moved(&self) -> bool {
        self.wakeup_moved
    }

    /// The owner has looked at `next_wakeup` and armed its timer for it.
    #[inline]
    pub fn wakeup_rearmed(&mut self) {
        self.wakeup_moved = false;
    }

    /// When the transmitter next has something to do (a packet's end, an outage's end).
    #[inline]
    fn next_transmitter_event(&self) -> Option<Nanos> {
        match self.in_service {
            Some(tr) => Some(tr.end),
            None => self.resume_at,
        }
    }

    /// The earliest time at which `advance` has something to do.
    #[inline]
    pub fn next_wakeup(&self) -> Option<Nanos> {
        match (self.in_service, self.wire.head_time()) {
            // The frames after the one being sent reach the far end no sooner
            // than the delay after it has left: with a fixed delay that is
            // after the head, which is then the wakeup.
            (Some(_), Some(head)) if self.fixed_delay => Some(head),
            (Some(tr), head) => {
                let next_frame = tr.end + self.config.delay_ns;
                Some(head.map_or(next_frame, |h| h.min(next_frame)))
            }
            (None, head) => match (self.resume_at, head) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// Runs the link up to `now`, appending the handles of delivered packets
    /// to `out` in order (they stay in `pool`: the owner frees them).
    pub fn advance(&mut self, now: Nanos, pool: &mut PacketPool, out: &mut Vec<PacketId>) {
        let at = out.len();
        if let Some(first) = self.advance_to_first(now, pool, out) {
            out.insert(at, first);
        }
    }

    /// `advance`, for the owner's event loop: the first packet delivered is
    /// returned, the others (rarely any) appended to `out`, so the usual
    /// event passes no list.
    #[inline(always)]
    pub fn advance_to_first(&mut self, now: Nanos, pool: &mut PacketPool, out: &mut Vec<PacketId>) -> Option<PacketId> {
        self.run_transmitter(now, pool);
        let first = self.deliver_due(now, pool)?;
        while let Some(id) = self.deliver_due(now, pool) {
            out.push(id);
        }
        Some(first)
    }

    /// The packet at the wire's end, if one is due at `now`, counted as delivered.
    #[inline(always)]
    fn deliver_due(&mut self, now: Nanos, pool: &PacketPool) -> Option<PacketId> {
        let id = self.wire.pop_due(now)?;
        self.counters.delivered += 1;
        self.counters.delivered_bytes += pool.get(id).wire_bytes as u64;
        Some(id)
    }

    /// `run_transmitter` for an arrival that finds the transmitter behind
    /// (the usual case on a busy link).
    #[inline(never)]
    fn catch_up(&mut self, now: Nanos, pool: &mut PacketPool) {
        self.run_transmitter(now, pool);
    }

    /// Brings the transmitter up to `now` without delivering anything, so the
    /// queue length and counters are current (before sampling or reporting).
    /// `next_wakeup` stays valid.
    pub fn sync(&mut self, now: Nanos, pool: &mut PacketPool) {
        self.run_transmitter(now, pool);
    }

    /// Packets inside the link (queued, or on the wire, where the frame
    /// being sent already is): what it holds of the pool.
    pub fn packets_inside(&self) -> usize {
        self.queue.len_packets() + self.wire.len() + self.host.as_ref().map_or(0, HostQueue::held_len)
    }

    /// Completes the transmissions due by `now` and starts the next ones.
    #[inline(always)]
    fn run_transmitter(&mut self, now: Nanos, pool: &mut PacketPool) {
        self.wakeup_moved = true;
        loop {
            if let Some(tr) = self.in_service {
                if tr.end > now {
                    return;
                }
                self.in_service = None;
                self.depart(tr);
                self.back_to_back = true;
                self.start_transmission(tr.end, pool);
                if self.observes_queue && self.in_service.is_none() {
                    self.tell_occupancy(tr.end, 0);
                }
            } else if let Some(at) = self.resume_at {
                if at > now {
                    return;
                }
                self.resume_at = None;
                self.back_to_back = false;
                self.start_transmission(at, pool);
                if self.in_service.is_none() && self.resume_at.is_none() {
                    return;
                }
            } else {
                return;
            }
        }
    }

    // The transmitter's hot path is inlined into the owner's event loop; what
    // only some links do (outages, RED and CoDel, varying rates, losses, ARQ
    // and jitter) is in functions of their own that take the whole link, so
    // the common path does not carry their state.

    /// Starts sending the head of the queue at `t`, unless an outage holds it.
    #[inline(always)]
    fn start_transmission(&mut self, t: Nanos, pool: &mut PacketPool) {
        if self.has_outages && self.outage_holds(t, pool) {
            return;
        }
        match &mut self.queue {
            Queue::DropTail(q) => {
                if let Some(head) = q.dequeue() {
                    if self.config.discard_timer_ns.is_some() {
                        self.transmit_unless_stale(t, head, pool);
                    } else {
                        self.transmit(t, head, pool);
                    }
                    if self.host.is_some() {
                        self.take_from_host(t, pool);
                    }
                }
            }
            _ => self.start_aqm_transmission(t, pool),
        }
    }

    /// Whether an outage holds the transmitter at `t` (then `resume_at` says
    /// until when, and a link-layer reset has lost the queue).
    #[inline(never)]
    fn outage_holds(&mut self, t: Nanos, pool: &mut PacketPool) -> bool {
        if self.queue.is_empty() || self.queue.len_bytes() < self.config.outages.min_backlog_bytes {
            return false;
        }
        let known = self.outages.count;
        let Some(end) = self.outages.blocked_until(t) else { return false };
        if self.config.outages.discard && self.outages.count != known {
            self.discard_queue(t, pool);
        }
        self.resume_at = Some(end);
        true
    }

    /// With an RLC discard timer: the head and those after it that waited
    /// longer than the timer are discarded (residual losses, their flows'
    /// segments only); the first fresh one is sent.
    #[inline(never)]
    fn transmit_unless_stale(&mut self, t: Nanos, head: Queued, pool: &mut PacketPool) {
        let limit = self.config.discard_timer_ns.expect("called with a discard timer");
        let mut next = Some(head);
        while let Some(h) = next {
            if t - h.enqueued_at <= limit {
                self.transmit(t, h, pool);
                return;
            }
            self.counters.dequeued += 1;
            self.counters.sojourn_ns += t - h.enqueued_at;
            self.counters.residual_losses += 1;
            self.lose(h.id, pool);
            next = match &mut self.queue {
                Queue::DropTail(q) => q.dequeue(),
                _ => None,
            };
        }
        if self.observes_queue {
            self.tell_occupancy(t, 0);
        }
    }

    /// `start_transmission` of a RED or CoDel queue (CoDel may drop some first).
    #[inline(never)]
    fn start_aqm_transmission(&mut self, t: Nanos, pool: &mut PacketPool) {
        if let Some(head) = self.queue.dequeue(t, pool) {
            self.transmit(t, head, pool);
        }
    }

    /// Starts sending `head`, taken from the queue, at `t`.
    #[inline(always)]
    fn transmit(&mut self, t: Nanos, head: Queued, pool: &mut PacketPool) {
        let Queued { id, wire_bytes, enqueued_at } = head;
        self.counters.dequeued += 1;
        self.counters.sojourn_ns += t - enqueued_at;
        if self.observes_queue {
            self.tell_occupancy(t, wire_bytes);
        }
        let end = match &mut self.tx {
            Transmitter::Constant(s) => t + s.ns(wire_bytes),
            _ => self.varying_finish_time(t, wire_bytes),
        };
        // The frame's fate does not depend on when it is drawn (`fixed_delay`):
        // it is drawn now and the packet goes on the wire at once, instead
        // of waiting on the transmitter. It is counted as departed at `end`.
        let mut tr = Transmission { end, wire_bytes, failed_tries: 0, lost: false };
        if self.plain_channel {
            self.wire.push(end + self.config.delay_ns, id);
        } else {
            self.over_the_air(&mut tr, id, pool);
        }
        self.in_service = Some(tr);
    }

    /// Tells a transmitter whose rate follows the traffic volume what the
    /// link layer's buffer holds from `t` on: the queue and the `on_air`
    /// bytes of the frame being sent (after an arrival, the start or end of
    /// a transmission, a reset).
    #[inline(never)]
    fn tell_occupancy(&mut self, t: Nanos, on_air: u32) {
        if let Transmitter::Dch(d) = &mut self.tx {
            d.observe(t, self.queue.len_bytes() + on_air as u64);
        }
    }

    /// When a frame of `bytes` started at `t` has left a trace, Markov or DCH transmitter.
    #[inline(never)]
    fn varying_finish_time(&mut self, t: Nanos, bytes: u32) -> Nanos {
        self.tx.finish_time(t, bytes, self.back_to_back)
    }

    /// Frame `id` (`tr`) on a channel that is not plain (loss, ARQ or
    /// jitter): its tries on the air, then the wire, or lost for good (and freed).
    #[inline(never)]
    fn over_the_air(&mut self, tr: &mut Transmission, id: PacketId, pool: &mut PacketPool) {
        let ready = match &mut self.arq {
            None => {
                let lost = self.loss.lose();
                tr.failed_tries = lost as u32;
                (!lost).then_some(tr.end)
            }
            Some(arq) => {
                let o = arq.send(tr.end, &mut self.loss);
                tr.failed_tries = o.failed_tries;
                o.delivered_at
            }
        };
        match ready {
            Some(at) => {
                let exit = self.wire_exit(at);
                self.wire.push(exit, id);
            }
            None => {
                tr.lost = true;
                self.lose(id, pool);
            }
        }
    }

    /// A link-layer reset at the start of an outage: what the queue holds is
    /// lost for good (counted as residual losses).
    #[inline(never)]
    fn discard_queue(&mut self, t: Nanos, pool: &mut PacketPool) {
        while let Some(q) = self.queue.dequeue(t, pool) {
            self.lose(q.id, pool);
            self.counters.residual_losses += 1;
        }
        if self.host.is_some() {
            self.take_from_host(t, pool);
        }
        if self.observes_queue {
            self.tell_occupancy(t, 0);
        }
    }

    /// Packet `id` is lost inside the link: it is freed (with whatever the
    /// pool keeps beside it).
    #[inline]
    fn lose(&mut self, id: PacketId, pool: &mut PacketPool) {
        pool.free(id);
    }

    /// The frame `tr` has left the transmitter (it is already on the wire,
    /// or lost): its losses on the channel are counted now.
    #[inline(always)]
    fn depart(&mut self, tr: Transmission) {
        self.counters.departures += 1;
        self.counters.departure_bytes += tr.wire_bytes as u64;
        if tr.failed_tries > 0 {
            self.counters.channel_losses += tr.failed_tries as u64;
            // Every failed try is retried, but the last of a frame lost for good.
            if self.arq.is_some() {
                self.counters.arq_retries += (tr.failed_tries - tr.lost as u32) as u64;
            }
            self.counters.residual_losses += tr.lost as u64;
        }
    }

    /// When a frame ready to cross the wire at `ready` comes out at the far
    /// end: the delay, then the jitter's draw.
    #[inline]
    fn wire_exit(&mut self, ready: Nanos) -> Nanos {
        let exit = ready + self.config.delay_ns;
        match &mut self.jitter {
            None => exit,
            Some(j) => j.apply(exit),
        }
    }

    /// Cumulative counters, with the queue's own (AQM drops, marks) merged in.
    pub fn counters(&self) -> LinkCounters {
        let q = self.queue.stats();
        LinkCounters {
            queue_drops: self.enqueue_drops + q.dequeue_drops,
            aqm_drops: q.aqm_drops,
            ecn_marks: q.marks,
            outages: self.outages.count,
            ..self.counters
        }
    }

    pub fn queue_packets(&self) -> usize {
        self.queue.len_packets()
    }

    pub fn queue_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }

    /// Packets marked CE by the queue so far.
    pub fn ecn_marks(&self) -> u64 {
        self.queue.stats().marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::channel::jitter::JitterDist;
    use crate::net::channel::trace::TraceConfig;
    use crate::net::packet::Kind;
    use crate::rng::Rng;
    use crate::time::NS_PER_MS;

    /// A link with the pool of its packets: packets in by value, out by value.
    struct Bench {
        l: Link,
        pool: PacketPool,
    }

    impl Bench {
        fn new(config: LinkConfig) -> Bench {
            Bench { l: Link::new(config, 1, 1), pool: PacketPool::new() }
        }

        fn enqueue(&mut self, now: Nanos, p: Packet) -> bool {
            let id = self.pool.insert(p);
            self.l.enqueue(now, id, &mut self.pool)
        }

        /// Advances to `now` and takes the packets delivered.
        fn advance(&mut self, now: Nanos) -> Vec<Packet> {
            let mut ids = Vec::new();
            self.l.advance(now, &mut self.pool, &mut ids);
            ids.into_iter().map(|id| self.pool.remove(id)).collect()
        }

        /// Runs to `end`, with the delivery time of each packet; every packet
        /// is then either delivered or freed by the link.
        fn run_until(&mut self, end: Nanos, out: &mut Vec<(Nanos, Packet)>) {
            while let Some(t) = self.l.next_wakeup() {
                if t > end {
                    break;
                }
                out.extend(self.advance(t).into_iter().map(|p| (t, p)));
            }
            assert_eq!(self.pool.len(), self.l.packets_inside());
        }
    }

    fn link(outages: Vec<(Nanos, Nanos)>) -> Bench {
        let mut config = LinkConfig::simple(12_000_000, 10 * NS_PER_MS, Capacity::Packets(3)); // 1500 bytes = 1 ms
        config.outages.scheduled = outages;
        Bench::new(config)
    }

    #[test]
    fn serializes_then_propagates_and_drops_tail() {
        let mut l = link(vec![]);
        let p = Packet::new(Kind::Data, 0, 1500);
        for _ in 0..5 {
            l.enqueue(0, p);
        }
        // One in service, three queued, one dropped.
        assert_eq!(l.l.counters().queue_drops, 1);
        let mut out = Vec::new();
        l.run_until(u64::MAX, &mut out);
        let times: Vec<Nanos> = out.iter().map(|(t, _)| *t / NS_PER_MS).collect();
        assert_eq!(times, vec![11, 12, 13, 14]);
    }

    #[test]
    fn a_frame_lost_on_the_air_is_freed_at_once_and_counted_when_it_has_left() {
        // Every frame of a link that loses everything.
        let config = LinkConfig {
            loss: LossModel::Bernoulli { p: 1.0 },
            ..LinkConfig::simple(12_000_000, 0, Capacity::Packets(10))
        };
        let mut l = Bench::new(config);
        l.enqueue(0, Packet::new(Kind::Ack, 4, 64));
        l.enqueue(0, Packet::new(Kind::Ack, 5, 64));
        assert_eq!(l.pool.len(), 1, "the first is known lost as its transmission starts");
        assert_eq!(l.l.counters().channel_losses, 0, "but counted when it has left");
        assert!(l.advance(10 * NS_PER_MS).is_empty());
        assert!(l.pool.is_empty(), "the lost packets are freed");
        let c = l.l.counters();
        assert_eq!((c.departures, c.channel_losses, c.residual_losses), (2, 2, 2));
    }

    /// An arrival that says the wakeup cannot have moved leaves `next_wakeup`
    /// where the owner last armed it, on plain links and on lossy ones, with
    /// ARQ, outages or jitter, with the owner's samples (`sync`) in between.
    #[test]
    fn an_unmoved_wakeup_is_the_one_last_armed() {
        let lossy = LinkConfig {
            loss: LossModel::Bernoulli { p: 0.2 },
            ..LinkConfig::simple(12_000_000, 10 * NS_PER_MS, Capacity::Packets(5))
        };
        let arq = LinkConfig {
            arq: Some(ArqConfig { max_retries: 2, retry_delay_ns: NS_PER_MS, in_order: true, tti_ns: 0 }),
            ..lossy.clone()
        };
        let mut outages = LinkConfig::simple(12_000_000, 0, Capacity::Packets(5));
        outages.outages.scheduled = vec![(20 * NS_PER_MS, 10 * NS_PER_MS), (60 * NS_PER_MS, 5 * NS_PER_MS)];
        let mut rng = Rng::for_component(7, 1);
        let short = LinkConfig::simple(12_000_000, NS_PER_MS, Capacity::Packets(5));
        // Jitter or retries far above the delay: a frame sent to an idle link
        // often overtakes the wire's head.
        let jitter = LinkConfig {
            jitter: Some(JitterConfig {
                dist: JitterDist::Uniform { min_ns: 0, max_ns: 10 * NS_PER_MS },
                reorder: true,
            }),
            ..short.clone()
        };
        let slow_arq = LinkConfig {
            arq: Some(ArqConfig { max_retries: 2, retry_delay_ns: 5 * NS_PER_MS, in_order: true, tti_ns: 0 }),
            loss: LossModel::Bernoulli { p: 0.3 },
            ..short.clone()
        };
        let plain = LinkConfig::simple(12_000_000, 10 * NS_PER_MS, Capacity::Packets(5));
        for config in [plain, short, lossy, arq, outages, jitter, slow_arq] {
            let mut l = Bench::new(config);
            let (mut now, mut armed, mut skipped) = (0, None, 0);
            for step in 0..3000 {
                now += rng.next_u64() % (2 * NS_PER_MS);
                while let Some(t) = l.l.next_wakeup().filter(|&t| t <= now) {
                    l.advance(t);
                    l.l.wakeup_rearmed();
                    armed = l.l.next_wakeup();
                }
                if step % 7 == 0 {
                    l.l.sync(now, &mut l.pool);
                }
                l.enqueue(now, Packet::new(Kind::Data, 0, 100 + (rng.next_u64() % 1400) as u32));
                if l.l.wakeup_may_have_moved() {
                    l.l.wakeup_rearmed();
                    armed = l.l.next_wakeup();
                } else {
                    assert_eq!(l.l.next_wakeup(), armed, "step {step}");
                    skipped += 1;
                }
            }
            assert!(skipped > 100, "{skipped}");
        }
    }

    /// Each frame comes out exactly when its own draws on the channel say
    /// (its tries, the ARQ's release, its jitter, drawn in the order frames
    /// are sent), on links with jitter or ARQ that a later frame may
    /// overtake, when the owner wakes the link only at `next_wakeup`: a
    /// frame that overtakes the wire's head, sent after it or on an idle
    /// link, is not delivered late. The draws are made again here from the
    /// link's own streams (Link::new: seed 1, component 1: loss +0, jitter +0x100).
    #[test]
    fn each_frame_comes_out_when_its_draws_say() {
        let jitter = JitterConfig { dist: JitterDist::Uniform { min_ns: 0, max_ns: 3 * NS_PER_MS }, reorder: true };
        let plain = LinkConfig::simple(12_000_000, 10 * NS_PER_MS, Capacity::Packets(100));
        let arq = |in_order| ArqConfig { max_retries: 2, retry_delay_ns: 2 * NS_PER_MS, in_order, tti_ns: 0 };
        let lossy = LinkConfig { loss: LossModel::Bernoulli { p: 0.3 }, ..plain.clone() };
        let configs = [
            LinkConfig { jitter: Some(jitter), ..plain.clone() },
            LinkConfig { arq: Some(arq(false)), ..lossy.clone() },
            LinkConfig { arq: Some(arq(true)), jitter: Some(jitter), ..lossy.clone() },
        ];
        for config in configs {
            let mut l = Bench::new(config.clone());
            let mut jitter = config.jitter.map(|j| Jitter::new(j, Rng::for_component(1, 1 + 0x100)));
            let mut loss = Loss::new(config.loss, Rng::for_component(1, 1));
            let mut arq = config.arq.map(Arq::new);
            let mut rng = Rng::for_component(9, 9);
            let (mut now, mut free_at) = (0, 0);
            let mut expected = Vec::new();
            let mut delivered = Vec::new();
            for k in 0..2000u32 {
                // Bursts, short gaps and gaps longer than the delay (no arrival
                // brings the transmitter up to date meanwhile): 1500 bytes take 1 ms.
                now += match rng.next_u64() % 3 {
                    0 => 0,
                    1 => rng.next_u64() % (3 * NS_PER_MS),
                    _ => rng.next_u64() % (30 * NS_PER_MS),
                };
                while let Some(t) = l.l.next_wakeup().filter(|&t| t <= now) {
                    delivered.extend(l.advance(t).into_iter().map(|p| (t, p.flow)));
                }
                assert!(l.enqueue(now, Packet::new(Kind::Data, k, 1500)));
                let end = now.max(free_at) + NS_PER_MS;
                free_at = end;
                let ready = match &mut arq {
                    Some(a) => a.send(end, &mut loss).delivered_at,
                    None => Some(end),
                };
                if let Some(at) = ready {
                    let exit = at + 10 * NS_PER_MS;
                    expected.push((jitter.as_mut().map_or(exit, |j| j.apply(exit)), k));
                }
            }
            let mut rest = Vec::new();
            l.run_until(u64::MAX, &mut rest);
            delivered.extend(rest.into_iter().map(|(t, p)| (t, p.flow)));
            expected.sort(); // by exit, then in the order sent (ties)
            assert!(expected.windows(2).any(|w| w[0].1 > w[1].1), "frames overtake one another");
            assert!(expected.len() < 2000 || arq.is_none(), "some frames are lost for good");
            assert_eq!(delivered, expected, "{config:?}");
        }
    }

    /// The event loop's `advance_to_first` hands over what `advance` does, in
    /// the same order: the first packet returned, the others appended.
    #[test]
    fn advance_to_first_gives_the_first_delivery_and_appends_the_rest() {
        let run = |first_apart: bool| {
            let mut l = link(vec![]);
            for flow in 0..3 {
                l.enqueue(0, Packet::new(Kind::Data, flow, 1500));
            }
            // Something already in the list stays first.
            let mut out = vec![l.pool.insert(Packet::new(Kind::Data, 9, 100))];
            if first_apart {
                let first = l.l.advance_to_first(20 * NS_PER_MS, &mut l.pool, &mut out);
                out.insert(1, first.expect("three are due"));
            } else {
                l.l.advance(20 * NS_PER_MS, &mut l.pool, &mut out);
            }
            out.iter().map(|&id| l.pool.get(id).flow).collect::<Vec<_>>()
        };
        assert_eq!(run(true), vec![9, 0, 1, 2]);
        assert_eq!(run(false), vec![9, 0, 1, 2]);
    }

    /// A packet that finds the link idle skips the drop-tail queue, yet is
    /// refused, marked and counted as if it had passed through it.
    #[test]
    fn an_arrival_at_an_idle_link_is_queued_in_all_but_name() {
        let config = |capacity, k| LinkConfig {
            queue: QueueConfig::DropTail { capacity, ecn_threshold_pkts: k },
            ..LinkConfig::simple(12_000_000, 10 * NS_PER_MS, capacity)
        };
        let mut ect = Packet::new(Kind::Data, 0, 1500);
        ect.ect = true;
        let mut l = Bench::new(config(Capacity::Packets(2), Some(0)));
        assert!(l.enqueue(0, ect) && l.enqueue(0, ect));
        let out = l.advance(20 * NS_PER_MS);
        assert_eq!(out.iter().map(|p| p.ce).collect::<Vec<_>>(), vec![true, true]);
        let c = l.l.counters();
        assert_eq!((c.ecn_marks, c.dequeued, c.sojourn_ns), (2, 2, NS_PER_MS));
        let mut l = Bench::new(config(Capacity::Bytes(1000), None));
        assert!(!l.enqueue(0, ect));
        assert!(l.enqueue(0, Packet::new(Kind::Ack, 0, 52)));
        assert_eq!(l.l.counters().queue_drops, 1);
        for capacity in [Capacity::Packets(0), Capacity::Bytes(0)] {
            let mut l = Bench::new(config(capacity, None));
            assert!(!l.enqueue(0, Packet::new(Kind::Ack, 0, 52)));
            assert!(l.pool.is_empty());
        }
    }

    /// RLC timer-based discard: the packets that waited longer than the
    /// timer are lost, those of the flows behind them go on.
    #[test]
    fn the_discard_timer_loses_only_the_packets_that_waited_too_long() {
        let config = LinkConfig {
            discard_timer_ns: Some(2_500_000),
            ..LinkConfig::simple(12_000_000, 10 * NS_PER_MS, Capacity::Packets(10))
        };
        let mut l = Bench::new(config);
        for flow in 0..5 {
            l.enqueue(0, Packet::new(Kind::Data, flow, 1500));
        }
        // 1 ms each: flows 3 and 4 would start at 3 ms, after 2.5 ms of waiting.
        l.enqueue(3 * NS_PER_MS, Packet::new(Kind::Data, 5, 1500));
        let mut out = Vec::new();
        l.run_until(u64::MAX, &mut out);
        let got: Vec<(Nanos, u32)> = out.iter().map(|(t, p)| (*t / NS_PER_MS, p.flow)).collect();
        assert_eq!(got, vec![(11, 0), (12, 1), (13, 2), (14, 5)]);
        assert_eq!(l.l.counters().residual_losses, 2);
        assert!(l.pool.is_empty());
    }

    #[test]
    fn outage_holds_packets_until_it_ends() {
        let mut l = link(vec![(0, 50 * NS_PER_MS)]);
        l.enqueue(0, Packet::new(Kind::Data, 0, 1500));
        let mut out = Vec::new();
        l.run_until(u64::MAX, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, 61 * NS_PER_MS);
        assert_eq!(l.l.counters().outages, 1);
    }

    #[test]
    fn an_outage_that_resets_the_link_layer_loses_the_queue() {
        for discard in [false, true] {
            let mut config = LinkConfig::simple(12_000_000, 10 * NS_PER_MS, Capacity::Packets(10));
            config.outages.scheduled = vec![(NS_PER_MS / 2, 50 * NS_PER_MS)];
            config.outages.discard = discard;
            let mut l = Bench::new(config);
            for _ in 0..4 {
                l.enqueue(0, Packet::new(Kind::Data, 0, 1500));
            }
            // During the outage: queued behind it, whether or not the queue was reset.
            l.enqueue(20 * NS_PER_MS, Packet::new(Kind::Data, 0, 1500));
            let mut out = Vec::new();
            l.run_until(u64::MAX, &mut out);
            let times: Vec<Nanos> = out.iter().map(|(t, _)| *t / NS_PER_MS).collect();
            if discard {
                // The first frame was on the air and completes; the three queued are lost.
                assert_eq!(times, vec![11, 61]);
                assert_eq!(l.l.counters().residual_losses, 3);
            } else {
                assert_eq!(times, vec![11, 61, 62, 63, 64]);
                assert_eq!(l.l.counters().residual_losses, 0);
            }
            assert!(l.pool.is_empty());
        }
    }

    #[test]
    fn an_outage_with_a_minimum_backlog_spares_a_trickle() {
        let mut config = LinkConfig::simple(12_000_000, 10 * NS_PER_MS, Capacity::Packets(10));
        config.outages.scheduled = vec![(0, 50 * NS_PER_MS)];
        config.outages.min_backlog_bytes = 3000;
        let mut l = Bench::new(config);
        // A lone packet (1500 bytes queued) goes through the outage.
        l.enqueue(0, Packet::new(Kind::Data, 0, 1500));
        let mut out = Vec::new();
        l.run_until(20 * NS_PER_MS, &mut out);
        assert_eq!(out.iter().map(|(t, _)| *t / NS_PER_MS).collect::<Vec<_>>(), vec![11]);
        // A burst of three: the first finds the queue below the backlog and
        // goes; the other two (3000 bytes) are held until the outage ends.
        for _ in 0..3 {
            l.enqueue(20 * NS_PER_MS, Packet::new(Kind::Data, 0, 1500));
        }
        l.run_until(u64::MAX, &mut out);
        let times: Vec<Nanos> = out.iter().map(|(t, _)| *t / NS_PER_MS).collect();
        assert_eq!(times, vec![11, 31, 61, 62]);
    }

    #[test]
    fn arrivals_at_the_same_instant_do_not_depend_on_call_order() {
        // A trace link: a packet arriving exactly at an opportunity misses it
        // (Mahimahi), whether or not the owner advanced the link first.
        let config = LinkConfig {
            rate: RateConfig::Trace(TraceConfig { opportunities_ms: vec![1].into(), bytes_per_opportunity: 1504 }),
            ..LinkConfig::simple(1, 0, Capacity::Packets(10))
        };
        let mut a = Bench::new(config.clone());
        let mut b = Bench::new(config);
        let p = Packet::new(Kind::Data, 0, 1000);
        a.enqueue(0, p);
        b.enqueue(0, p);
        let out_a = a.advance(NS_PER_MS);
        a.enqueue(NS_PER_MS, p);
        b.enqueue(NS_PER_MS, p);
        let out_b = b.advance(NS_PER_MS);
        assert_eq!((out_a.len(), out_b.len()), (1, 1));
        let (mut rest_a, mut rest_b) = (Vec::new(), Vec::new());
        a.run_until(u64::MAX, &mut rest_a);
        b.run_until(u64::MAX, &mut rest_b);
        // The second packet could not use the 504 bytes left at 1 ms: it leaves at 2 ms.
        let times = |v: &Vec<(Nanos, Packet)>| v.iter().map(|(t, _)| *t).collect::<Vec<_>>();
        assert_eq!(times(&rest_a), vec![2 * NS_PER_MS]);
        assert_eq!(times(&rest_b), vec![2 * NS_PER_MS]);
        assert_eq!(a.l.counters().delivered, 2);
    }
}
