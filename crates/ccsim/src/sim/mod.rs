//! The simulation: builds the network from a scenario, runs the event loop,
//! routes packets from link to link, and gathers the results.
//!
//! Topology (crate::net::topology): named links, each flow with a data route
//! and an ACK route across them. Per flow i:
//!
//!   sender i --access delay--> [link: queue, rate, channel, delay] --> ... [link] --> receiver i
//!   sender i <--access delay-- [link] <-- ... [link] <-- receiver i
//!
//! The dumbbell shorthand is the routes ["downlink"] and ["uplink"] (a "down"
//! flow; "up" swaps them). A packet carries its position on its route (`hop`)
//! and goes on to the next link the instant the previous one delivers it.
//!
//! Each link and each access delay line has at most one pending event (its
//! next due time), each sender and receiver one timer; packets wait in the
//! component that holds them, never in the event queue.
//!
//! Traffic sources (crate::traffic: UDP CBR, background load) have one timer
//! each. Their UDP datagrams enter the first link of their route directly
//! and are counted at a sink on delivery; their TCP transfers become flows
//! appended after the scenario's own (which alone appear in the `flows` and
//! `series` tables; the background's sum is in `sources`).
//!
//! Building the world from a scenario is in `build`, assembling the result
//! tables in `results`; this file keeps the event loop and the routing.

mod background;
mod build;
mod results;

pub use background::{background_schedule, BackgroundSchedule};
pub use results::Results;

use crate::event::{Event, EventQueue, OrderKey, Timer, TimerCheck};
use crate::net::delay_line::DelayLine;
use crate::net::link::Link;
use crate::net::outbox::IntoPool;
use crate::net::packet::{Kind, Packet};
use crate::net::pool::{PacketId, PacketPool};
use crate::record::pcap::{FlowMeta, PcapWriter};
use crate::record::recorded::Recorded;
use crate::record::rtt_samples::RttSamples;
use crate::record::rtt_stats::RttStats;
use crate::record::series::{FlowSeries, LinkSeries, DEFAULT_FLOW_SAMPLES};
use crate::scenario::Scenario;
use crate::tcp::receiver::{Ack, AckAction, Receiver};
use crate::tcp::sender::Sender;
use crate::time::Nanos;
use crate::traffic::series::SourceSeries;
use crate::traffic::{Source, SourceCounters, Transfer};
use build::{make_flow, BackgroundFlow};

struct Flow {
    group: usize,
    /// Link indices the data crosses, in order, and those the ACKs cross.
    data_route: Box<[u32]>,
    ack_route: Box<[u32]>,
    /// The packet capture records this flow (its data route crosses a captured link).
    captured: bool,
    /// The data route starts at a link with the sending host's queue in
    /// front of it (net/host_queue.rs): the sender asks it for room.
    host_queued: bool,
    access_delay: Nanos,
    sender: Sender,
    receiver: Receiver,
    sender_timer: Timer,
    delack_timer: Timer,
    /// Access delay lines: toward the bottleneck (data) and back (ACKs).
    line_out: DelayLine<PacketId>,
    line_in: DelayLine<PacketId>,
    line_out_timer: Timer,
    line_in_timer: Timer,
    size: Option<u64>,
    start: Nanos,
    /// Receiver got the whole transfer.
    completed_at: Option<Nanos>,
    /// (time, delivered bytes, bytes sent) at the end of the active period.
    active_end: Option<(Nanos, u64, u64)>,
    stop: Option<Nanos>,
    /// The traffic source this flow is a transfer of (background TCP).
    source: Option<u32>,
    /// What a packet capture needs to know of the flow.
    pcap_meta: FlowMeta,
}

impl Flow {
    /// The first link of the data route.
    fn data_link(&self) -> usize {
        self.data_route[0] as usize
    }
    /// The first link of the ACK route.
    fn ack_link(&self) -> usize {
        self.ack_route[0] as usize
    }
}

pub struct World {
    now: Nanos,
    end: Nanos,
    /// The run seed (algorithms with random choices draw from it per flow).
    seed: u64,
    events: EventQueue,
    links: Vec<Link>,
    link_names: Vec<String>,
    flows: Vec<Flow>,
    /// The sampled tables this run records (the samples are taken all the same).
    recorded: Recorded,
    sample_interval: Nanos,
    /// The place in the event order of the next series sample (taken by the
    /// loop between events, see `take_samples_before`), None after the last.
    next_sample: Option<OrderKey>,
    series: FlowSeries,
    /// Per scenario flow: an event reached its sender or receiver since its
    /// previous series sample (the sample reads only those flows).
    sample_touched: Vec<bool>,
    link_series: LinkSeries,
    /// The RTT samples the `rtt` table keeps, and per scenario flow the
    /// statistics of every sample.
    rtt: RttSamples,
    rtt_stats: Vec<RttStats>,
    /// What a traffic source emits in one go, before it enters the network.
    packets: Vec<Packet>,
    /// The handles of what a sender emits in one go (written straight into
    /// the pool), before they enter the network.
    sent: Vec<PacketId>,
    /// Every packet inside the network (links, access delay lines), named by handle.
    pool: PacketPool,
    /// The handles a link delivered in one go.
    delivered: Vec<PacketId>,
    /// The scenario's own flows are flows[..main_flows]; background transfers follow.
    main_flows: usize,
    sources: Vec<Source>,
    source_counters: Vec<SourceCounters>,
    source_timers: Vec<Timer>,
    /// Per source: TCP transfers under way.
    source_active: Vec<u64>,
    source_series: SourceSeries,
    /// Per source: the links its datagrams cross, and whether the capture records them.
    source_routes: Vec<Box<[u32]>>,
    source_captured: Vec<bool>,
    background_flow: Option<BackgroundFlow>,
    spawn: Vec<Transfer>,
    pcap: Option<PcapWriter>,
    /// Per link: the packet capture records the traffic crossing it.
    pcap_links: Vec<bool>,
}

/// Whether the event of `timer` with `generation` fires at `now`: a stale
/// event is dropped, and one whose timer was pushed later is scheduled again
/// (as `make` builds it with the new generation) instead of firing.
fn fires(
    events: &mut EventQueue,
    timer: &mut Timer,
    now: Nanos,
    generation: u32,
    make: impl FnOnce(u32) -> Event,
) -> bool {
    match timer.on_event(now, generation) {
        TimerCheck::Stale => false,
        TimerCheck::Reschedule(at, g) => {
            events.schedule(at, make(g));
            false
        }
        TimerCheck::Fire => true,
    }
}

impl World {
    /// Runs to the end of the scenario.
    pub fn run(&mut self) {
        self.run_unless_interrupted(&mut |_| false);
    }

    /// Runs to the end of the scenario unless `interrupted` (asked once every
    /// INTERRUPT_CHECK_EVENTS events with the simulated time reached, so the
    /// loop pays only a counter; a front end shows progress from it) says
    /// stop; returns whether the run reached its end.
    pub fn run_unless_interrupted(&mut self, interrupted: &mut dyn FnMut(Nanos) -> bool) -> bool {
        let mut until_check = INTERRUPT_CHECK_EVENTS;
        while let Some((key, event)) = self.events.pop_keyed() {
            if self.next_sample.is_some_and(|s| s < key) {
                self.take_samples_before(Some(key));
            }
            let t = key.time();
            if t > self.end {
                break;
            }
            self.now = t;
            match event {
                Event::Link { link, generation } => self.on_link_event(link as usize, generation),
                Event::Access { line, generation } => self.on_access_event(line as usize, generation),
                Event::Sender { flow, generation } => self.on_sender_event(flow as usize, generation),
                Event::Receiver { flow, generation } => self.on_delack_event(flow as usize, generation),
                Event::Source { source, generation } => self.on_source_event(source as usize, generation),
            }
            until_check -= 1;
            if until_check == 0 {
                until_check = INTERRUPT_CHECK_EVENTS;
                if interrupted(self.now) {
                    return false;
                }
            }
        }
        self.take_samples_before(None);
        self.now = self.end;
        true
    }

    /// Takes the series samples due before the event at `next` (all of them
    /// when there is none). A sample is no event: its place in the event
    /// order is reserved when the previous one is taken, so it runs exactly
    /// where an event scheduled then would have.
    #[inline(never)]
    fn take_samples_before(&mut self, next: Option<OrderKey>) {
        while let Some(sample) = self.next_sample.filter(|&s| next.is_none_or(|k| s < k)) {
            self.now = sample.time();
            self.on_sample();
        }
    }

    /// Schedules the event a timer asked for, if `arm` asked for one.
    fn schedule_check(events: &mut EventQueue, armed: Option<(Nanos, u32)>, make: impl FnOnce(u32) -> Event) {
        if let Some((at, generation)) = armed {
            events.schedule(at, make(generation));
        }
    }

    /// Schedules link `l`'s next wakeup, after it was handed packets or time,
    /// unless the link says it cannot have changed since it was last armed.
    #[inline(always)]
    fn arm_link(&mut self, l: usize) {
        if self.links[l].wakeup_may_have_moved() {
            self.rearm_link(l);
        }
    }

    /// Schedules link `l`'s next wakeup, whether or not it says it may have moved.
    #[inline(always)]
    fn rearm_link(&mut self, l: usize) {
        Self::rearm(l, &mut self.links[l], &mut self.events);
    }

    /// `rearm_link` of `link`, link number `l`, for a caller that holds it.
    #[inline(always)]
    fn rearm(l: usize, link: &mut Link, events: &mut EventQueue) {
        link.wakeup_rearmed();
        if let Some(t) = link.next_wakeup() {
            events.arm_link(l, t);
        }
    }

    /// Records `p` in the packet capture if `captured` (its flow's or
    /// source's route crosses a captured link). The capture point is the
    /// sending side: TCP data as its sender emits it and ACKs as they reach
    /// the sender (what tcpdump on the sender's host records), UDP datagrams
    /// as their source emits them. Data and datagrams carry no SACK blocks
    /// (ACKs are captured in `on_ack_at_sender`).
    #[inline]
    fn capture(&mut self, captured: bool, p: &Packet) {
        if captured {
            if let Some(pcap) = self.pcap.as_mut() {
                pcap.capture(self.now, p, &[]);
            }
        }
    }

    fn arm_source(&mut self, k: usize) {
        match self.sources[k].next_wakeup() {
            Some(t) => {
                let armed = self.source_timers[k].arm(t.max(self.now));
                Self::schedule_check(&mut self.events, armed, |g| Event::Source { source: k as u32, generation: g });
            }
            None => self.source_timers[k].cancel(),
        }
    }

    fn on_source_event(&mut self, k: usize, generation: u32) {
        if !fires(&mut self.events, &mut self.source_timers[k], self.now, generation, |g| Event::Source {
            source: k as u32,
            generation: g,
        }) {
            return;
        }
        let mut out = std::mem::take(&mut self.packets);
        let mut spawn = std::mem::take(&mut self.spawn);
        self.sources[k].advance(self.now, &mut self.source_counters[k], &mut out, &mut spawn);
        if !out.is_empty() {
            let l = self.source_routes[k][0] as usize;
            let captured = self.source_captured[k];
            for mut p in out.drain(..) {
                let c = &mut self.source_counters[k];
                c.packets_sent += 1;
                c.wire_bytes_sent += p.wire_bytes as u64;
                c.bytes_sent += p.payload as u64;
                self.capture(captured, &p);
                p.hop = 0;
                let id = self.pool.insert(p);
                if !self.links[l].enqueue(self.now, id, &mut self.pool) {
                    self.source_counters[k].queue_drops += 1;
                }
            }
            self.arm_link(l);
        }
        for t in spawn.drain(..) {
            self.start_transfer(k, t);
        }
        self.packets = out;
        self.spawn = spawn;
        self.arm_source(k);
    }

    /// Starts a background TCP transfer of source `k` now.
    fn start_transfer(&mut self, k: usize, t: Transfer) {
        let Some((source, spec, route)) = self.background_flow.as_mut() else { return };
        spec.start = crate::units::Duration(self.now);
        spec.size = Some(crate::units::Bytes(t.size_bytes));
        let id = self.flows.len() as u32;
        let mut flow = make_flow(id, *source as usize, spec, route, &self.pcap_links, Some(k as u32), self.seed);
        flow.host_queued = self.links[route.data[0] as usize].has_host_queue();
        if let Some(pcap) = self.pcap.as_mut() {
            pcap.register_flow(id, flow.pcap_meta);
        }
        self.flows.push(flow);
        self.source_active[k] += 1;
        self.arm_sender(id as usize);
    }

    /// Schedules flow `i`'s sender timer for its next wakeup. Inlined (as
    /// `emit` and `Sender::send` are) where an ACK is handled: these calls
    /// cost more CPU time than their instructions show (bench/versus.py).
    #[inline(always)]
    fn arm_sender(&mut self, i: usize) {
        let f = &mut self.flows[i];
        match f.sender.next_wakeup(self.now) {
            Some(t) => {
                if let Some((at, generation)) = f.sender_timer.arm(t.max(self.now)) {
                    self.events.schedule_sender(i as u32, at, generation);
                }
            }
            None => f.sender_timer.cancel(),
        }
    }

    fn on_link_event(&mut self, l: usize, generation: u32) {
        if !self.events.link_fires(l, generation, self.now) {
            return;
        }
        let link = &mut self.links[l];
        let first = link.advance_to_first(self.now, &mut self.pool, &mut self.delivered);
        Self::rearm(l, link, &mut self.events);
        let Some(first) = first else { return };
        self.on_link_delivery(first);
        // The others, by index: a delivery never reaches another link's
        // `advance`, so the list stays as it is until cleared (and is not
        // moved out and back). There rarely are any: the check spares the
        // usual event the loop's setup and the clear (0.2% of instructions).
        if !self.delivered.is_empty() {
            for k in 0..self.delivered.len() {
                self.on_link_delivery(self.delivered[k]);
            }
            self.delivered.clear();
        }
    }

    /// A packet a link delivered: on to the next link of its route, or to
    /// its end (receiver, sender, UDP sink).
    fn on_link_delivery(&mut self, id: PacketId) {
        let p = self.pool.get_mut(id);
        let (kind, i, next) = (p.kind, p.flow as usize, p.hop as usize + 1);
        match kind {
            Kind::Data => {
                let f = &self.flows[i];
                match f.data_route.get(next) {
                    None => self.on_data_at_receiver(i, id),
                    Some(&l) => {
                        p.hop = next as u8;
                        let source = f.source.map(|k| k as usize);
                        self.forward(id, l as usize, source);
                    }
                }
            }
            Kind::Ack => {
                let f = &mut self.flows[i];
                match f.ack_route.get(next) {
                    None if f.access_delay > 0 => {
                        f.line_in.push(self.now + f.access_delay, id);
                        self.arm_line(i, true);
                    }
                    None => self.on_ack_at_sender(i, id),
                    Some(&l) => {
                        p.hop = next as u8;
                        self.forward(id, l as usize, None);
                    }
                }
            }
            Kind::Udp => match self.source_routes[i].get(next) {
                None => {
                    let c = &mut self.source_counters[i];
                    c.packets_delivered += 1;
                    c.bytes_delivered += p.payload as u64;
                    self.pool.free(id);
                }
                Some(&l) => {
                    p.hop = next as u8;
                    self.forward(id, l as usize, Some(i));
                }
            },
        }
    }

    /// Packet `id` goes on to link `l`, the next of its route; if it is
    /// refused, that is a drop of traffic source `source`, if any.
    fn forward(&mut self, id: PacketId, l: usize, source: Option<usize>) {
        if !self.links[l].enqueue(self.now, id, &mut self.pool) {
            if let Some(k) = source {
                self.source_counters[k].queue_drops += 1;
            }
        }
        self.arm_link(l);
    }

    fn arm_line(&mut self, i: usize, inbound: bool) {
        let f = &mut self.flows[i];
        let (line, timer) =
            if inbound { (&f.line_in, &mut f.line_in_timer) } else { (&f.line_out, &mut f.line_out_timer) };
        if let Some(t) = line.head_time() {
            let armed = timer.arm(t);
            let id = (2 * i + inbound as usize) as u32;
            Self::schedule_check(&mut self.events, armed, |g| Event::Access { line: id, generation: g });
        }
    }

    fn on_access_event(&mut self, id: usize, generation: u32) {
        let (i, inbound) = (id / 2, id % 2 == 1);
        let f = &mut self.flows[i];
        let timer = if inbound { &mut f.line_in_timer } else { &mut f.line_out_timer };
        if !fires(&mut self.events, timer, self.now, generation, |g| Event::Access { line: id as u32, generation: g }) {
            return;
        }
        loop {
            let f = &mut self.flows[i];
            let line = if inbound { &mut f.line_in } else { &mut f.line_out };
            let Some(id) = line.pop_due(self.now) else { break };
            if inbound {
                self.on_ack_at_sender(i, id);
            } else {
                let l = self.flows[i].data_link();
                if self.flows[i].host_queued {
                    self.links[l].enqueue_from_host(self.now, id, &mut self.pool);
                } else if !self.links[l].enqueue(self.now, id, &mut self.pool) {
                    self.count_background_drop(i);
                }
                self.arm_link(l);
            }
        }
        self.arm_line(i, inbound);
    }

    fn on_sender_event(&mut self, i: usize, generation: u32) {
        match self.flows[i].sender_timer.on_event(self.now, generation) {
            TimerCheck::Fire => {}
            TimerCheck::Stale => return,
            TimerCheck::Reschedule(at, generation) => {
                self.events.schedule_sender(i as u32, at, generation);
                return;
            }
        }
        self.touch(i);
        let mut sent = std::mem::take(&mut self.sent);
        let room = self.host_room(i);
        self.flows[i].sender.on_timer(self.now, &mut IntoPool { pool: &mut self.pool, sent: &mut sent, room });
        let f = &mut self.flows[i];
        if f.active_end.is_none() && f.stop.is_some_and(|s| self.now >= s) {
            f.active_end = Some((self.now, f.receiver.delivered_bytes, f.sender.stats.bytes_sent));
        }
        self.emit(i, &mut sent);
        self.sent = sent;
        self.arm_sender(i);
    }

    /// ACK `id` reaches flow `i`'s sender (the end of its journey: freed).
    fn on_ack_at_sender(&mut self, i: usize, id: PacketId) {
        self.touch(i);
        // Taken out of the pool first, with its SACK blocks: what the sender
        // sends goes into it.
        let (ack, sack) = self.pool.remove_with_sack(id);
        if let Some(pcap) = self.pcap.as_mut() {
            if self.flows[i].captured {
                pcap.capture(self.now, &ack, sack.as_slice());
            }
        }
        let mut sent = std::mem::take(&mut self.sent);
        let room = self.host_room(i);
        let f = &mut self.flows[i];
        let out = &mut IntoPool { pool: &mut self.pool, sent: &mut sent, room };
        f.sender.on_ack(self.now, &ack, sack.as_slice(), out);
        if let Some(rtt) = f.sender.last_rtt_sample {
            if let Some(stats) = self.rtt_stats.get_mut(i) {
                stats.add(rtt as f64 / 1e6);
                self.rtt.push(self.now, i, rtt);
            }
        }
        self.emit(i, &mut sent);
        self.sent = sent;
        self.arm_sender(i);
    }

    /// Sends the sender's packets (in the pool, named in `sent`) toward the
    /// bottleneck, and empties `sent` (inlined: see `arm_sender`).
    #[inline(always)]
    fn emit(&mut self, i: usize, sent: &mut Vec<PacketId>) {
        if sent.is_empty() {
            return;
        }
        if let Some(pcap) = self.pcap.as_mut() {
            if self.flows[i].captured {
                for &id in sent.iter() {
                    pcap.capture(self.now, self.pool.get(id), &[]);
                }
            }
        }
        let f = &mut self.flows[i];
        if let Some(k) = f.source {
            let c = &mut self.source_counters[k as usize];
            c.wire_bytes_sent += sent.iter().map(|&id| self.pool.get(id).wire_bytes as u64).sum::<u64>();
        }
        // A packet starts its route at hop 0 (Packet::new's). Through the
        // sending host's queue it counts against that queue until the link's
        // queue takes it (held, never dropped: the sender asked for room).
        if f.host_queued {
            self.links[f.data_link()].host_sent(sent.len() as u32);
        }
        if f.access_delay > 0 {
            let at = self.now + f.access_delay;
            for &id in sent.iter() {
                f.line_out.push(at, id);
            }
            self.arm_line(i, false);
        } else if f.host_queued {
            let l = f.data_link();
            for &id in sent.iter() {
                self.links[l].enqueue_from_host(self.now, id, &mut self.pool);
            }
            self.arm_link(l);
        } else {
            let l = f.data_link();
            let (link, background) = (&mut self.links[l], f.source);
            for &id in sent.iter() {
                if !link.enqueue(self.now, id, &mut self.pool) {
                    if let Some(k) = background {
                        self.source_counters[k as usize].queue_drops += 1;
                    }
                }
            }
            self.arm_link(l);
        }
        sent.clear();
    }

    /// How many packets flow `i`'s sender may send now: the room in the
    /// sending host's queue (net/host_queue.rs), u32::MAX without one.
    #[inline(always)]
    fn host_room(&self, i: usize) -> u32 {
        let f = &self.flows[i];
        if f.host_queued {
            self.links[f.data_link()].host_room()
        } else {
            u32::MAX
        }
    }

    /// A data segment of flow `i` was refused by a queue: a drop of its
    /// background source, if it is a background transfer.
    fn count_background_drop(&mut self, i: usize) {
        if let Some(k) = self.flows[i].source {
            self.source_counters[k as usize].queue_drops += 1;
        }
    }

    /// Flow `i`'s sender or receiver handles an event: its next series sample reads it.
    #[inline]
    fn touch(&mut self, i: usize) {
        if let Some(touched) = self.sample_touched.get_mut(i) {
            *touched = true;
        }
    }

    /// Data segment `id` reaches flow `i`'s receiver (the end of its journey: freed).
    fn on_data_at_receiver(&mut self, i: usize, id: PacketId) {
        self.touch(i);
        let now = self.now;
        let f = &mut self.flows[i];
        let delivered_before = f.receiver.delivered_bytes;
        let action = f.receiver.on_data(now, self.pool.get(id));
        self.pool.free(id);
        if let Some(k) = f.source {
            let c = &mut self.source_counters[k as usize];
            c.packets_delivered += 1;
            c.bytes_delivered += f.receiver.delivered_bytes - delivered_before;
        }
        if f.completed_at.is_none() && f.size.is_some_and(|s| f.receiver.delivered_bytes >= s) {
            f.completed_at = Some(now);
            f.active_end = Some((now, f.receiver.delivered_bytes, f.sender.stats.bytes_sent));
            if let Some(k) = f.source {
                self.source_counters[k as usize].transfers_completed += 1;
                self.source_active[k as usize] -= 1;
            }
        }
        let f = match f.receiver.has_early_ack() {
            false => f,
            true => {
                self.send_early_ack(i);
                &mut self.flows[i]
            }
        };
        match action {
            AckAction::None => {}
            AckAction::Send => {
                f.delack_timer.cancel();
                let ack = f.receiver.ack(now);
                self.send_ack(i, ack);
            }
            AckAction::Delay(at) => {
                if f.delack_timer.deadline().is_none() {
                    let armed = f.delack_timer.arm(at);
                    Self::schedule_check(&mut self.events, armed, |g| Event::Receiver {
                        flow: i as u32,
                        generation: g,
                    });
                }
            }
        }
    }

    /// Sends the ACK flow `i`'s receiver made before the one its segment
    /// asks for (DCTCP's echo of a CE change).
    #[inline(never)]
    fn send_early_ack(&mut self, i: usize) {
        let f = &mut self.flows[i];
        if let Some(early) = f.receiver.take_early_ack() {
            f.delack_timer.cancel();
            self.send_ack(i, early);
        }
    }

    /// Sends `ack`, made by flow `i`'s receiver, on the flow's ACK route.
    #[inline(always)]
    fn send_ack(&mut self, i: usize, mut ack: Ack) {
        ack.packet.hop = 0;
        let l = self.flows[i].ack_link();
        let id = self.pool.insert_with_sack(ack.packet, &ack.sack);
        self.links[l].enqueue(self.now, id, &mut self.pool);
        self.arm_link(l);
    }

    fn on_delack_event(&mut self, i: usize, generation: u32) {
        if !fires(&mut self.events, &mut self.flows[i].delack_timer, self.now, generation, |g| Event::Receiver {
            flow: i as u32,
            generation: g,
        }) {
            return;
        }
        self.touch(i);
        if let Some(ack) = self.flows[i].receiver.on_delack_timer(self.now) {
            self.send_ack(i, ack);
        }
    }

    fn on_sample(&mut self) {
        let now = self.now;
        let next = now + self.sample_interval;
        if self.recorded.flow_series {
            if now == 0 {
                // Room for a row per flow and sample (the change-only rows are
                // often fewer: capped at what a default interval keeps).
                let samples = self.end / self.sample_interval + 1;
                let rows = (self.main_flows as u64).saturating_mul(samples).min(DEFAULT_FLOW_SAMPLES);
                self.series.reserve(rows as usize);
            }
            let flows = &self.flows;
            self.series.sample(now, next > self.end, &mut self.sample_touched, |i| {
                let f = &flows[i];
                let active = now >= f.start && f.active_end.is_none();
                (&f.sender, active.then(|| (f.receiver.delivered_bytes, f.receiver.rcv_buf())))
            });
        }
        // Brought up to date whatever is recorded: the run is the same either way.
        for (l, link) in self.links.iter_mut().enumerate() {
            link.sync(now, &mut self.pool);
            if self.recorded.link_series {
                self.link_series.push(now, l, link);
            }
        }
        if self.recorded.source_series && !self.sources.is_empty() {
            self.source_series.push(now, &self.sources, &self.source_counters, &self.source_active);
        }
        self.next_sample = (next <= self.end).then(|| self.events.reserve(next));
    }
}

/// Events between two calls of the interrupt check of
/// `run_unless_interrupted` (a few milliseconds of simulation).
pub const INTERRUPT_CHECK_EVENTS: u32 = 1 << 16;

/// Runs a validated scenario, recording every table.
pub fn run(s: &Scenario) -> Results {
    let (mut r, draws) = crate::rng::draws_during(|| {
        let mut w = World::new(s, Recorded::ALL);
        w.run();
        w.results(s)
    });
    r.random_draws = draws;
    r
}

/// Runs a validated scenario, recording the sampled tables `recorded` names
/// (the others come out empty), unless `interrupted` (asked every
/// INTERRUPT_CHECK_EVENTS events with the simulated time reached) says stop:
/// then None, with no results.
pub fn run_unless_interrupted(
    s: &Scenario,
    recorded: Recorded,
    interrupted: &mut dyn FnMut(Nanos) -> bool,
) -> Option<Results> {
    let (r, draws) = crate::rng::draws_during(|| {
        let mut w = World::new(s, recorded);
        w.run_unless_interrupted(interrupted).then(|| w.results(s))
    });
    r.map(|r| Results { random_draws: draws, ..r })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_run() -> Scenario {
        let json = r#"{"duration": 30, "downlink": {"rate": "50Mbit", "delay": "10ms"}, "flows": [{"cc": "cubic"}]}"#;
        Scenario::from_json(json).unwrap()
    }

    #[test]
    fn an_interrupt_stops_the_run_at_the_next_check() {
        let mut checks = 0;
        let stopped = run_unless_interrupted(&long_run(), Recorded::ALL, &mut |_| {
            checks += 1;
            true
        });
        assert!(stopped.is_none());
        assert_eq!(checks, 1);
    }

    #[test]
    fn an_uninterrupted_run_asks_every_few_thousand_events_and_finishes() {
        let mut checks = 0u64;
        let r = run_unless_interrupted(&long_run(), Recorded::ALL, &mut |_| {
            checks += 1;
            false
        })
        .expect("not interrupted");
        // `events` also counts the one event popped past the end.
        assert!(checks > 0 && checks.abs_diff(r.events / INTERRUPT_CHECK_EVENTS as u64) <= 1, "{checks} checks");
    }

    /// Every packet a link drops or loses, and every one that reaches its
    /// end, is freed: what the pool holds at the end is exactly what is still
    /// inside the links and the access delay lines (debug builds also check
    /// that no freed slot is used again). An ACK's SACK blocks go with it:
    /// once what is inside is freed too, the pool's side table is empty,
    /// and it never held more than the ACKs on their way at one time.
    #[test]
    fn the_pool_holds_exactly_the_packets_inside_the_network() {
        let lossy = r#"{"duration": 6, "seed": 5,
            "downlink": {"rate": "20Mbit", "delay": "20ms", "queue": {"size": "30pkt"},
                         "loss": {"model": "bernoulli", "p": 0.05},
                         "arq": {"max_retries": 2, "retry_delay": "5ms", "in_order": false},
                         "jitter": {"distribution": "uniform", "min": "0ms", "max": "3ms", "reorder": true}},
            "uplink": {"rate": "1Mbit", "delay": "20ms", "queue": {"size": "5pkt"},
                       "loss": {"model": "bernoulli", "p": 0.02}},
            "flows": [{"cc": "cubic", "count": 3}, {"cc": "reno", "access_delay": "2ms"}]}"#;
        let codel = r#"{"duration": 6, "seed": 6,
            "downlink": {"rate": "50Mbit", "delay": "10ms", "queue": {"kind": "codel", "size": "200pkt"},
                         "outages": [{"start": "2s", "duration": "300ms"}]},
            "flows": [{"cc": "cubic", "count": 2}, {"cc": "bbr", "access_delay": "5ms"}],
            "udp": [{"rate": "30Mbit", "start": "1s", "stop": "4s"}]}"#;
        let held = r#"{"duration": 6, "seed": 7,
            "downlink": {"rate": "10Mbit", "delay": "20ms"},
            "uplink": {"rate": "300kbit", "delay": "20ms", "queue": {"size": "4pkt"}, "host_queue": 3,
                       "loss": {"model": "bernoulli", "p": 0.02}},
            "flows": [{"cc": "cubic", "direction": "up", "count": 2},
                      {"cc": "reno", "direction": "up", "access_delay": "2ms"}]}"#;
        for json in [lossy, codel, held] {
            let mut w = World::new(&Scenario::from_json(json).unwrap(), Recorded::ALL);
            w.run();
            let mut inside: usize = w.flows.iter().map(|f| f.line_out.len() + f.line_in.len()).sum();
            for link in w.links.iter_mut() {
                link.sync(w.end, &mut w.pool);
                inside += link.packets_inside();
            }
            let c = w.links[0].counters();
            assert!(json == held || c.queue_drops > 0 || c.aqm_drops > 0, "{c:?}");
            assert!(inside > 0);
            assert_eq!(w.pool.len(), inside);
            free_what_is_inside(&mut w);
            assert!(w.pool.is_empty());
            assert_eq!(w.pool.sacks_in_use(), 0);
            // ACKs with blocks were sent, and their entries reused.
            let acks: u64 = w.flows.iter().map(|f| f.receiver.acks_sent).sum();
            let entries = w.pool.sack_slots() as u64;
            assert!(entries > 0 && 50 * entries < acks, "{entries} entries for {acks} ACKs");
        }
    }

    /// Frees every packet still in `w`'s links and access delay lines, as
    /// if each reached the end of its journey unread.
    fn free_what_is_inside(w: &mut World) {
        let mut delivered = Vec::new();
        for f in w.flows.iter_mut() {
            for line in [&mut f.line_out, &mut f.line_in] {
                while let Some(id) = line.pop_due(Nanos::MAX) {
                    w.pool.free(id);
                }
            }
        }
        for link in w.links.iter_mut() {
            while let Some(t) = link.next_wakeup() {
                link.advance(t, &mut w.pool, &mut delivered);
                delivered.drain(..).for_each(|id| w.pool.free(id));
            }
        }
    }

    /// One reno flow up a 200 kbit/s link whose 10-packet buffer holds
    /// the sending host back (its own 4-packet queue in front), or drops.
    fn behind_a_modem(host_queue: bool) -> World {
        let host = if host_queue { r#", "host_queue": 4"# } else { "" };
        let json = format!(
            r#"{{"duration": 30, "seed": 3,
                "downlink": {{"rate": "10Mbit", "delay": "50ms"}},
                "uplink": {{"rate": "200kbit", "delay": "50ms", "queue": {{"size": "10pkt"}}{host}}},
                "flows": [{{"cc": "reno", "direction": "up", "tcp": {{"kernel": "2.6.24"}}}}]}}"#
        );
        let mut w = World::new(&Scenario::from_json(&json).unwrap(), Recorded::ALL);
        w.run();
        w
    }

    /// The mechanism of net/host_queue.rs: the modem's buffer never drops
    /// what the host sends; the host's full queue refuses segments instead,
    /// and the sender reduces its window without a loss or a retransmission,
    /// so the window stays near what the two queues and the path hold.
    #[test]
    fn a_full_host_queue_reduces_the_window_without_a_loss() {
        let dropped = behind_a_modem(false);
        assert!(dropped.links[1].counters().queue_drops > 0);
        assert!(dropped.flows[0].sender.stats.retransmitted_segments > 0);

        let held = behind_a_modem(true);
        let (link, s) = (held.links[1].counters(), &held.flows[0].sender);
        assert_eq!((link.queue_drops, s.stats.retransmitted_segments, s.stats.timeouts), (0, 0, 0));
        assert!(s.stats.local_drops > 0, "{:?}", s.stats);
        // Path: 200 kbit/s x 100 ms is about 2 segments; the queues hold 10 + 4.
        assert!(s.w.cwnd <= 17, "cwnd {} beyond the path and both queues", s.w.cwnd);
        // The link is kept busy: what is held enters its buffer as it drains.
        let goodput = held.flows[0].receiver.delivered_bytes as f64 * 8.0 / 30.0;
        assert!(goodput > 0.9 * 200e3 * 1448.0 / 1500.0, "goodput {goodput}");
    }

    /// A flow that finds the host's queue full of another flow's packets and
    /// has nothing in flight tries again later (Linux's probe timer) and gets
    /// its share.
    #[test]
    fn a_flow_refused_with_nothing_in_flight_starts_later() {
        let json = r#"{"duration": 30, "seed": 4,
            "downlink": {"rate": "10Mbit", "delay": "50ms"},
            "uplink": {"rate": "200kbit", "delay": "50ms", "queue": {"size": "10pkt"}, "host_queue": 2},
            "flows": [{"cc": "reno", "direction": "up", "tcp": {"kernel": "2.6.24"}},
                      {"cc": "reno", "direction": "up", "start": "5s", "tcp": {"kernel": "2.6.24"}}]}"#;
        let mut w = World::new(&Scenario::from_json(json).unwrap(), Recorded::ALL);
        w.run();
        let late = w.flows[1].receiver.delivered_bytes as f64 * 8.0 / 25.0;
        assert!(w.flows[1].sender.stats.local_drops > 0, "{:?}", w.flows[1].sender.stats);
        // Less than half: the earlier flow's ACKs come more often, and each
        // lets it take the room the link has just made (as in Linux before TSQ).
        assert!(late > 0.1 * 200e3, "the late flow got {late} bit/s");
        assert_eq!(w.links[1].counters().queue_drops, 0);
    }

    #[test]
    fn each_check_is_told_the_simulated_time_reached() {
        let scenario = long_run();
        let mut times_ns = Vec::new();
        run_unless_interrupted(&scenario, Recorded::ALL, &mut |now_ns| {
            times_ns.push(now_ns);
            false
        })
        .expect("not interrupted");
        assert!(times_ns.len() >= 2, "{} checks", times_ns.len());
        assert!(times_ns.windows(2).all(|w| w[0] < w[1]), "not increasing: {times_ns:?}");
        assert!(times_ns[0] > 0 && *times_ns.last().unwrap() <= scenario.duration.ns());
    }
}
