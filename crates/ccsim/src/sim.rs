//! The simulation: builds the dumbbell from a scenario, runs the event loop,
//! and gathers the results.
//!
//! Topology (per flow i, direction "down"; "up" swaps the two links):
//!
//!   sender i --access delay--> [downlink: queue, rate, channel, delay] --> receiver i
//!   sender i <--access delay-- [uplink:   queue, rate, channel, delay] <-- receiver i
//!
//! Each link and each access delay line has at most one pending event (its
//! next due time), each sender and receiver one timer; packets wait in the
//! component that holds them, never in the event queue.
//!
//! Traffic sources (crate::traffic: UDP CBR, background load) have one timer
//! each. Their UDP datagrams enter the data link of their direction directly
//! and are counted at a sink on delivery; their TCP transfers become flows
//! appended after the scenario's own (which alone appear in the `flows` and
//! `series` tables; the background's sum is in `sources`).

use crate::cc;
use crate::event::{Event, EventQueue, Timer, TimerCheck};
use crate::net::build::link_config;
use crate::net::delay_line::DelayLine;
use crate::net::link::{Link, LinkCounters};
use crate::net::packet::{Kind, Packet};
use crate::net::queue::Capacity;
use crate::record::pcap::{FlowMeta, PcapSummary, PcapWriter};
use crate::record::series::{FlowSeries, LinkSeries, RttSamples};
use crate::record::table::{Column, Table};
use crate::rng::{stream, Rng};
use crate::scenario::{
    BackgroundKind, BackgroundSpec, BufferSpec, Direction, FlowSpec, InterpolationSpec, PcapLink, RtoStyleSpec,
    Scenario, SizeDistSpec, TransportSpec,
};
use crate::tcp::receiver::{AckAction, EcnEcho, Receiver, ReceiverConfig};
use crate::tcp::rtt::RtoStyle;
use crate::tcp::sender::{Sender, SenderConfig};
use crate::time::{secs, Nanos};
use crate::traffic::intensity::{Intensity, Interpolation};
use crate::traffic::on_off::OnOff;
use crate::traffic::poisson_web::{PoissonWeb, WebTransport};
use crate::traffic::series::{summary_table, SourceSeries};
use crate::traffic::sizes::SizeDist;
use crate::traffic::udp::UdpCbr;
use crate::traffic::{Source, SourceCounters, Transfer};

pub const DOWNLINK: usize = 0;
pub const UPLINK: usize = 1;
const LINK_NAMES: [&str; 2] = ["downlink", "uplink"];

struct Flow {
    group: usize,
    direction: Direction,
    access_delay: Nanos,
    sender: Sender,
    receiver: Receiver,
    sender_timer: Timer,
    delack_timer: Timer,
    /// Access delay lines: toward the bottleneck (data) and back (ACKs).
    line_out: DelayLine,
    line_in: DelayLine,
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
    fn data_link(&self) -> usize {
        match self.direction {
            Direction::Down => DOWNLINK,
            Direction::Up => UPLINK,
        }
    }
    fn ack_link(&self) -> usize {
        1 - self.data_link()
    }
}

/// Everything a run produces, as columnar tables.
pub struct Results {
    pub flows: Table,
    pub series: Table,
    pub rtt: Table,
    pub links: Table,
    pub link_series: Table,
    /// One row per traffic source (UDP, background) and its sampled series.
    pub sources: Table,
    pub source_series: Table,
    /// The packet capture, when `record.pcap` asked for one.
    pub pcap: Option<PcapSummary>,
    /// Events processed (a cost measure) and the simulated duration.
    pub events: u64,
    pub duration: Nanos,
}

pub struct World {
    now: Nanos,
    end: Nanos,
    /// The run seed (algorithms with random choices draw from it per flow).
    seed: u64,
    events: EventQueue,
    links: [Link; 2],
    link_timers: [Timer; 2],
    flows: Vec<Flow>,
    sample_interval: Nanos,
    series: FlowSeries,
    link_series: LinkSeries,
    rtt: Option<RttSamples>,
    packets: Vec<Packet>,
    delivered: Vec<Packet>,
    /// The scenario's own flows are flows[..main_flows]; background transfers follow.
    main_flows: usize,
    sources: Vec<Source>,
    source_counters: Vec<SourceCounters>,
    source_timers: Vec<Timer>,
    /// Per source: TCP transfers under way.
    source_active: Vec<u64>,
    source_series: SourceSeries,
    /// The flow template of background TCP transfers and its source index.
    background_flow: Option<(u32, FlowSpec)>,
    spawn: Vec<Transfer>,
    pcap: Option<PcapWriter>,
    pcap_links: [bool; 2],
}

/// The base RTT used to size BDP queues: both links' delays plus the
/// shortest flow's access delay, twice.
fn base_rtt(s: &Scenario) -> Nanos {
    let access = s.flows.iter().map(|f| f.access_delay.ns()).min().unwrap_or(0);
    s.downlink.delay.ns() + s.uplink().delay.ns() + 2 * access
}

/// Builds flow `id` (sender and receiver) from its scenario entry.
fn make_flow(id: u32, group: usize, spec: &FlowSpec, source: Option<u32>, run_seed: u64) -> Flow {
    let t = &spec.tcp;
    let algorithm = cc::build_for_flow(&spec.cc, &spec.cc_params, t.mss, run_seed, id).expect("validated algorithm");
    let sender_cfg = SenderConfig {
        mss: t.mss,
        init_cwnd: t.init_cwnd,
        sack: t.sack,
        timestamps: t.timestamps,
        prr: t.prr,
        pacing: t.pacing,
        ecn: t.ecn || algorithm.needs_ecn(),
        rto_style: match t.rto_style {
            RtoStyleSpec::Linux => RtoStyle::Linux,
            RtoStyleSpec::Rfc6298 => RtoStyle::Rfc6298,
        },
        initial_rto: t.initial_rto.ns(),
        min_rto: t.min_rto.ns(),
        max_rto: t.max_rto.ns(),
        snd_buf: match t.snd_buf {
            BufferSpec::Fixed(b) => Some(b.0),
            BufferSpec::Auto(_) => None,
        },
        wmem_max: t.wmem_max.0,
        start: spec.start.ns(),
        stop: spec.stop.map(|d| d.ns()),
        size: spec.size.map(|b| b.0),
    };
    let (rcv_buf, autotune) = match t.rcv_buf {
        BufferSpec::Fixed(b) => (b.0, false),
        BufferSpec::Auto(_) => (t.rmem_default.0, true),
    };
    let receiver_cfg = ReceiverConfig {
        mss: t.mss,
        sack: t.sack,
        timestamps: t.timestamps,
        delayed_ack: t.delayed_ack,
        delack_segments: t.delack_segments,
        delack_timeout: t.delack_timeout.ns(),
        rcv_buf,
        rcv_buf_max: t.rmem_max.0.max(rcv_buf),
        autotune,
        // Algorithms that need ECN (dctcp) get the accurate echo of RFC 8257 3.2.
        ecn_echo: if algorithm.needs_ecn() { EcnEcho::Dctcp } else { EcnEcho::Classic },
    };
    let pcap_meta = FlowMeta {
        mss: t.mss,
        timestamps: t.timestamps,
        sack: t.sack,
        ecn: sender_cfg.ecn,
        size: spec.size.map(|b| b.0),
        rcv_buf_max: receiver_cfg.rcv_buf_max,
    };
    Flow {
        group,
        direction: spec.direction,
        access_delay: spec.access_delay.ns(),
        sender: Sender::new(id, sender_cfg, algorithm),
        receiver: Receiver::new(id, receiver_cfg),
        sender_timer: Timer::default(),
        delack_timer: Timer::default(),
        line_out: DelayLine::new(),
        line_in: DelayLine::new(),
        line_out_timer: Timer::default(),
        line_in_timer: Timer::default(),
        size: spec.size.map(|b| b.0),
        start: spec.start.ns(),
        completed_at: None,
        active_end: None,
        stop: spec.stop.map(|d| d.ns()),
        source,
        pcap_meta,
    }
}

/// The traffic sources of a scenario: its [[udp]] entries, then its
/// [background], with the background's TCP flow template if it has one.
fn make_sources(s: &Scenario, links: &[Link; 2]) -> (Vec<Source>, Option<(u32, FlowSpec)>) {
    let end = s.duration.ns();
    let mut sources = Vec::new();
    for u in &s.udp {
        let id = sources.len() as u32;
        let stop = u.stop.map_or(end, |d| d.ns().min(end));
        sources.push(Source::Udp(UdpCbr::new(
            id,
            u.direction,
            u.rate.bps(),
            u.packet_size.0 as u32,
            u.start.ns(),
            stop,
        )));
    }
    let mut template = None;
    if let Some(b) = &s.background {
        let id = sources.len() as u32;
        let link = match b.direction {
            Direction::Down => DOWNLINK,
            Direction::Up => UPLINK,
        };
        let capacity_bps = links[link].mean_rate_bps().round() as u64;
        let period = (b.start.ns(), b.stop.map_or(end, |d| d.ns().min(end)));
        let intensity = Intensity::new(
            b.profile.iter().map(|(t, m)| (t.ns(), *m)).collect(),
            match b.interpolation {
                InterpolationSpec::Step => Interpolation::Step,
                InterpolationSpec::Linear => Interpolation::Linear,
            },
        );
        let rng = |k: u64| Rng::for_component(s.seed, stream::TRAFFIC_BASE + 16 * id as u64 + k);
        let wire_bytes = b.packet_size.0 as u32;
        let source = match b.kind {
            BackgroundKind::PoissonWeb => {
                let transport = match b.transport {
                    TransportSpec::Tcp => {
                        template = Some((id, background_flow_spec(b)));
                        WebTransport::Tcp
                    }
                    TransportSpec::Udp => {
                        let rate_bps = b.rate.map_or(capacity_bps / 10, |r| r.bps());
                        WebTransport::Udp { rate_bps, wire_bytes }
                    }
                };
                Source::Web(PoissonWeb::new(
                    id,
                    b.direction,
                    b.load,
                    capacity_bps,
                    size_dist(b),
                    transport,
                    intensity,
                    period,
                    (rng(0), rng(1)),
                ))
            }
            BackgroundKind::OnOff => Source::OnOff(OnOff::new(
                id,
                b.direction,
                b.load,
                capacity_bps,
                b.sources,
                (b.on.ns(), b.off.ns()),
                wire_bytes,
                intensity,
                period,
                rng(0),
            )),
        };
        sources.push(source);
    }
    (sources, template)
}

fn size_dist(b: &BackgroundSpec) -> SizeDist {
    let mean = b.size.mean.0 as f64;
    match b.size.dist {
        SizeDistSpec::Pareto => SizeDist::Pareto { mean, alpha: b.size.shape },
        SizeDistSpec::Lognormal => SizeDist::Lognormal { mean, sigma: b.size.sigma },
        SizeDistSpec::Exponential => SizeDist::Exponential { mean },
        SizeDistSpec::Fixed => SizeDist::Fixed { bytes: mean },
    }
}

/// The flow entry every background TCP transfer is built from (start and size set per transfer).
fn background_flow_spec(b: &BackgroundSpec) -> FlowSpec {
    FlowSpec {
        cc: b.cc.clone(),
        cc_params: b.cc_params.clone(),
        count: 1,
        direction: b.direction,
        start: Default::default(),
        stop: None,
        size: None,
        access_delay: Default::default(),
        tcp: b.tcp.clone(),
    }
}

impl World {
    /// Builds the world of a validated scenario.
    pub fn new(s: &Scenario) -> World {
        let rtt = base_rtt(s);
        let links = [
            Link::new(link_config(&s.downlink, rtt), s.seed, stream::LINK_BASE),
            Link::new(link_config(&s.uplink(), rtt), s.seed, stream::LINK_BASE + 1),
        ];
        let mut flows = Vec::new();
        for (group, spec) in s.flows.iter().enumerate() {
            for _ in 0..spec.count {
                flows.push(make_flow(flows.len() as u32, group, spec, None, s.seed));
            }
        }
        let series = FlowSeries::new(flows.iter().map(|f| f.sender.algorithm().info().state));
        let (sources, background_flow) = make_sources(s, &links);
        let n_sources = sources.len();
        let pcap = s.record.pcap.as_ref().map(|p| PcapWriter::create(&p.path, p.snaplen));
        let pcap_links = match s.record.pcap.as_ref().map(|p| p.link) {
            None => [false, false],
            Some(PcapLink::Downlink) => [true, false],
            Some(PcapLink::Uplink) => [false, true],
            Some(PcapLink::Both) => [true, true],
        };
        let main_flows = flows.len();
        let mut w = World {
            now: 0,
            end: s.duration.ns(),
            seed: s.seed,
            events: EventQueue::new(),
            links,
            link_timers: [Timer::default(); 2],
            flows,
            sample_interval: s.record.interval.ns(),
            series,
            link_series: LinkSeries::default(),
            rtt: s.record.rtt_samples.then(RttSamples::default),
            packets: Vec::new(),
            delivered: Vec::new(),
            main_flows,
            sources,
            source_counters: vec![SourceCounters::default(); n_sources],
            source_timers: vec![Timer::default(); n_sources],
            source_active: vec![0; n_sources],
            source_series: SourceSeries::default(),
            background_flow,
            spawn: Vec::new(),
            pcap,
            pcap_links,
        };
        for i in 0..w.flows.len() {
            if let Some(pcap) = w.pcap.as_mut() {
                pcap.register_flow(i as u32, w.flows[i].pcap_meta);
            }
            w.arm_sender(i);
        }
        for k in 0..w.sources.len() {
            w.arm_source(k);
        }
        w.events.schedule(0, Event::Sample);
        w
    }

    /// Runs to the end of the scenario.
    pub fn run(&mut self) {
        while let Some((t, event)) = self.events.pop() {
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
                Event::Sample => self.on_sample(),
            }
        }
        self.now = self.end;
    }

    fn schedule_check(events: &mut EventQueue, armed: Option<(Nanos, u32)>, make: impl FnOnce(u32) -> Event) {
        if let Some((at, generation)) = armed {
            events.schedule(at, make(generation));
        }
    }

    fn arm_link(&mut self, l: usize) {
        if let Some(t) = self.links[l].next_wakeup() {
            let armed = self.link_timers[l].arm(t);
            Self::schedule_check(&mut self.events, armed, |g| Event::Link { link: l as u32, generation: g });
        }
    }

    /// Records `p` in the packet capture if it is on for link `l`. The capture
    /// point is the sending side: TCP data as its sender emits it and ACKs as
    /// they reach the sender (what tcpdump on the sender's host records),
    /// UDP datagrams as their source emits them.
    #[inline]
    fn capture(&mut self, l: usize, p: &Packet) {
        if self.pcap_links[l] {
            if let Some(pcap) = self.pcap.as_mut() {
                pcap.capture(self.now, p);
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
        match self.source_timers[k].on_event(self.now, generation) {
            TimerCheck::Stale => return,
            TimerCheck::Reschedule(at, g) => {
                self.events.schedule(at, Event::Source { source: k as u32, generation: g });
                return;
            }
            TimerCheck::Fire => {}
        }
        let mut out = std::mem::take(&mut self.packets);
        let mut spawn = std::mem::take(&mut self.spawn);
        self.sources[k].advance(self.now, &mut self.source_counters[k], &mut out, &mut spawn);
        if !out.is_empty() {
            let l = match self.sources[k].direction() {
                Direction::Down => DOWNLINK,
                Direction::Up => UPLINK,
            };
            for p in out.drain(..) {
                let c = &mut self.source_counters[k];
                c.packets_sent += 1;
                c.wire_bytes_sent += p.wire_bytes as u64;
                c.bytes_sent += p.payload as u64;
                self.capture(l, &p);
                if !self.links[l].enqueue(self.now, p) {
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
        let Some((source, spec)) = self.background_flow.as_mut() else { return };
        spec.start = crate::units::Duration(self.now);
        spec.size = Some(crate::units::Bytes(t.size_bytes));
        let id = self.flows.len() as u32;
        let flow = make_flow(id, *source as usize, spec, Some(k as u32), self.seed);
        if let Some(pcap) = self.pcap.as_mut() {
            pcap.register_flow(id, flow.pcap_meta);
        }
        self.flows.push(flow);
        self.source_active[k] += 1;
        self.arm_sender(id as usize);
    }

    fn arm_sender(&mut self, i: usize) {
        let f = &mut self.flows[i];
        match f.sender.next_wakeup(self.now) {
            Some(t) => {
                let armed = f.sender_timer.arm(t.max(self.now));
                Self::schedule_check(&mut self.events, armed, |g| Event::Sender { flow: i as u32, generation: g });
            }
            None => f.sender_timer.cancel(),
        }
    }

    fn on_link_event(&mut self, l: usize, generation: u32) {
        match self.link_timers[l].on_event(self.now, generation) {
            TimerCheck::Stale => return,
            TimerCheck::Reschedule(at, g) => {
                self.events.schedule(at, Event::Link { link: l as u32, generation: g });
                return;
            }
            TimerCheck::Fire => {}
        }
        let mut delivered = std::mem::take(&mut self.delivered);
        self.links[l].advance(self.now, &mut delivered);
        self.arm_link(l);
        for p in delivered.drain(..) {
            self.on_link_delivery(p);
        }
        self.delivered = delivered;
    }

    fn on_link_delivery(&mut self, p: Packet) {
        let i = p.flow as usize;
        match p.kind {
            Kind::Data => self.on_data_at_receiver(i, p),
            Kind::Ack => {
                if self.flows[i].access_delay > 0 {
                    let f = &mut self.flows[i];
                    f.line_in.push(self.now + f.access_delay, p);
                    self.arm_line(i, true);
                } else {
                    self.on_ack_at_sender(i, p);
                }
            }
            Kind::Udp => {
                let c = &mut self.source_counters[p.flow as usize];
                c.packets_delivered += 1;
                c.bytes_delivered += p.payload as u64;
            }
        }
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
        match timer.on_event(self.now, generation) {
            TimerCheck::Stale => return,
            TimerCheck::Reschedule(at, g) => {
                self.events.schedule(at, Event::Access { line: id as u32, generation: g });
                return;
            }
            TimerCheck::Fire => {}
        }
        loop {
            let f = &mut self.flows[i];
            let line = if inbound { &mut f.line_in } else { &mut f.line_out };
            let Some(p) = line.pop_due(self.now) else { break };
            if inbound {
                self.on_ack_at_sender(i, p);
            } else {
                let l = self.flows[i].data_link();
                self.links[l].enqueue(self.now, p);
                self.arm_link(l);
            }
        }
        self.arm_line(i, inbound);
    }

    fn on_sender_event(&mut self, i: usize, generation: u32) {
        match self.flows[i].sender_timer.on_event(self.now, generation) {
            TimerCheck::Stale => return,
            TimerCheck::Reschedule(at, g) => {
                self.events.schedule(at, Event::Sender { flow: i as u32, generation: g });
                return;
            }
            TimerCheck::Fire => {}
        }
        let mut out = std::mem::take(&mut self.packets);
        self.flows[i].sender.on_timer(self.now, &mut out);
        let f = &mut self.flows[i];
        if f.active_end.is_none() && f.stop.is_some_and(|s| self.now >= s) {
            f.active_end = Some((self.now, f.receiver.delivered_bytes, f.sender.stats.bytes_sent));
        }
        self.emit(i, &mut out);
        self.packets = out;
        self.arm_sender(i);
    }

    fn on_ack_at_sender(&mut self, i: usize, p: Packet) {
        if self.pcap.is_some() {
            self.capture(self.flows[i].data_link(), &p);
        }
        let mut out = std::mem::take(&mut self.packets);
        let f = &mut self.flows[i];
        f.sender.on_ack(self.now, &p, &mut out);
        if let (Some(rtt), Some(samples)) = (f.sender.last_rtt_sample, self.rtt.as_mut()) {
            samples.push(self.now, i as u32, rtt);
        }
        self.emit(i, &mut out);
        self.packets = out;
        self.arm_sender(i);
    }

    /// Sends the sender's packets toward the bottleneck.
    fn emit(&mut self, i: usize, out: &mut Vec<Packet>) {
        if out.is_empty() {
            return;
        }
        if self.pcap.is_some() {
            let l = self.flows[i].data_link();
            for p in out.iter() {
                self.capture(l, p);
            }
        }
        let f = &mut self.flows[i];
        if f.access_delay > 0 {
            for p in out.drain(..) {
                f.line_out.push(self.now + f.access_delay, p);
            }
            self.arm_line(i, false);
        } else {
            let l = f.data_link();
            for p in out.drain(..) {
                self.links[l].enqueue(self.now, p);
            }
            self.arm_link(l);
        }
    }

    fn on_data_at_receiver(&mut self, i: usize, p: Packet) {
        let now = self.now;
        let f = &mut self.flows[i];
        let delivered_before = f.receiver.delivered_bytes;
        let action = f.receiver.on_data(now, &p);
        if let Some(k) = f.source {
            self.source_counters[k as usize].bytes_delivered += f.receiver.delivered_bytes - delivered_before;
        }
        if let Some(early) = f.receiver.take_early_ack() {
            f.delack_timer.cancel();
            self.send_ack(i, early);
        }
        let f = &mut self.flows[i];
        if f.completed_at.is_none() && f.size.is_some_and(|s| f.receiver.delivered_bytes >= s) {
            f.completed_at = Some(now);
            f.active_end = Some((now, f.receiver.delivered_bytes, f.sender.stats.bytes_sent));
            if let Some(k) = f.source {
                self.source_counters[k as usize].transfers_completed += 1;
                self.source_active[k as usize] -= 1;
            }
        }
        match action {
            AckAction::None => {}
            AckAction::Send(ack) => {
                f.delack_timer.cancel();
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

    fn send_ack(&mut self, i: usize, ack: Packet) {
        let l = self.flows[i].ack_link();
        self.links[l].enqueue(self.now, ack);
        self.arm_link(l);
    }

    fn on_delack_event(&mut self, i: usize, generation: u32) {
        match self.flows[i].delack_timer.on_event(self.now, generation) {
            TimerCheck::Stale => return,
            TimerCheck::Reschedule(at, g) => {
                self.events.schedule(at, Event::Receiver { flow: i as u32, generation: g });
                return;
            }
            TimerCheck::Fire => {}
        }
        if let Some(ack) = self.flows[i].receiver.on_delack_timer(self.now) {
            self.send_ack(i, ack);
        }
    }

    fn on_sample(&mut self) {
        for f in &self.flows[..self.main_flows] {
            let active = self.now >= f.start && f.active_end.is_none();
            if active {
                self.series.push(self.now, &f.sender, f.receiver.delivered_bytes, f.receiver.rcv_buf());
            }
        }
        for (l, (link, name)) in self.links.iter_mut().zip(LINK_NAMES).enumerate() {
            link.sync(self.now);
            self.link_series.push(self.now, l, name, link);
        }
        if !self.sources.is_empty() {
            self.source_series.push(self.now, &self.sources, &self.source_counters, &self.source_active);
        }
        let next = self.now + self.sample_interval;
        if next <= self.end {
            self.events.schedule(next, Event::Sample);
        }
    }

    /// The results of a finished run.
    pub fn results(mut self, s: &Scenario) -> Results {
        let end = self.end;
        for link in self.links.iter_mut() {
            link.sync(end);
        }
        // Background TCP transfers: their bytes sent add to their source's row.
        for f in &self.flows[self.main_flows..] {
            if let Some(k) = f.source {
                self.source_counters[k as usize].bytes_sent += f.sender.stats.bytes_sent;
                self.source_counters[k as usize].packets_sent += f.sender.stats.segments_sent;
            }
        }
        let transport: Vec<&str> = self
            .sources
            .iter()
            .enumerate()
            .map(|(k, src)| match src {
                Source::Web(_) if self.background_flow.as_ref().is_some_and(|(id, _)| *id as usize == k) => "tcp",
                _ => "udp",
            })
            .collect();
        let sources = summary_table(&self.sources, &self.source_counters, &transport, end);
        let pcap = self.pcap.take().map(PcapWriter::finish);
        self.flows.truncate(self.main_flows);
        let mut flows = Table::new();
        let n = self.flows.len();
        let mut cols: Vec<(&str, Vec<f64>)> = Vec::new();
        let get_end = |f: &Flow| f.active_end.unwrap_or((end, f.receiver.delivered_bytes, f.sender.stats.bytes_sent));
        flows.add("flow", Column::U32((0..n as u32).collect()));
        flows.add("group", Column::U32(self.flows.iter().map(|f| f.group as u32).collect()));
        flows.add("cc", Column::Str(self.flows.iter().map(|f| f.sender.algorithm().info().name.to_string()).collect()));
        flows.add(
            "direction",
            Column::Str(self.flows.iter().map(|f| format!("{:?}", f.direction).to_lowercase()).collect()),
        );
        cols.push(("start_s", self.flows.iter().map(|f| secs(f.start)).collect()));
        cols.push(("end_s", self.flows.iter().map(|f| secs(get_end(f).0)).collect()));
        cols.push(("size_bytes", self.flows.iter().map(|f| f.size.map_or(f64::NAN, |s| s as f64)).collect()));
        cols.push((
            "completion_s",
            self.flows.iter().map(|f| f.completed_at.map_or(f64::NAN, |t| secs(t - f.start))).collect(),
        ));
        cols.push((
            "base_rtt_ms",
            self.flows.iter().map(|f| f.sender.rtt.min_rtt().map_or(f64::NAN, |r| r as f64 / 1e6)).collect(),
        ));
        for (name, v) in cols {
            flows.add(name, Column::F64(v));
        }
        let u = |f: &dyn Fn(&Flow) -> u64| Column::U64(self.flows.iter().map(f).collect());
        flows.add("delivered_bytes", u(&|f| get_end(f).1));
        flows.add("bytes_sent", u(&|f| get_end(f).2));
        flows.add("delivered_bytes_total", u(&|f| f.receiver.delivered_bytes));
        flows.add("segments_sent", u(&|f| f.sender.stats.segments_sent));
        flows.add("retransmitted_segments", u(&|f| f.sender.stats.retransmitted_segments));
        flows.add("timeouts", u(&|f| f.sender.stats.timeouts));
        flows.add("fast_recoveries", u(&|f| f.sender.stats.fast_recoveries));
        flows.add("undone_recoveries", u(&|f| f.sender.stats.undone_recoveries));
        flows.add("ecn_reductions", u(&|f| f.sender.stats.ecn_reductions));
        flows.add("acks_received", u(&|f| f.sender.stats.acks_received));
        flows.add("duplicate_segments", u(&|f| f.receiver.duplicate_segments));

        let mut links = Table::new();
        let specs = [s.downlink.clone(), s.uplink()];
        links.add("link", Column::Str(LINK_NAMES.iter().map(|s| s.to_string()).collect()));
        links.add("rate_bps", Column::F64(self.links.iter().map(|l| l.mean_rate_bps()).collect()));
        links.add("delay_s", Column::F64(specs.iter().map(|s| secs(s.delay.ns())).collect()));
        links.add("queue_kind", Column::Str(self.links.iter().map(|l| l.config().queue.kind().to_string()).collect()));
        links.add(
            "queue_capacity",
            Column::Str(
                self.links
                    .iter()
                    .map(|l| match l.config().queue.capacity() {
                        Capacity::Packets(p) => format!("{p}pkt"),
                        Capacity::Bytes(b) => format!("{b}B"),
                    })
                    .collect(),
            ),
        );
        let counters: Vec<_> = self.links.iter().map(|l| l.counters()).collect();
        let lc = |f: &dyn Fn(&LinkCounters) -> u64| Column::U64(counters.iter().map(f).collect());
        links.add("arrivals", lc(&|c| c.arrivals));
        links.add("queue_drops", lc(&|c| c.queue_drops));
        links.add("aqm_drops", lc(&|c| c.aqm_drops));
        links.add("ecn_marks", lc(&|c| c.ecn_marks));
        links.add("departures", lc(&|c| c.departures));
        links.add("departure_bytes", lc(&|c| c.departure_bytes));
        links.add("channel_losses", lc(&|c| c.channel_losses));
        links.add("arq_retries", lc(&|c| c.arq_retries));
        links.add("residual_losses", lc(&|c| c.residual_losses));
        links.add("outages", lc(&|c| c.outages));
        links.add("delivered", lc(&|c| c.delivered));
        links.add("delivered_bytes", lc(&|c| c.delivered_bytes));
        links.add(
            "mean_sojourn_ms",
            Column::F64(
                counters
                    .iter()
                    .map(|c| if c.dequeued == 0 { f64::NAN } else { c.sojourn_ns as f64 / c.dequeued as f64 / 1e6 })
                    .collect(),
            ),
        );

        Results {
            flows,
            series: self.series.into_table(),
            rtt: self.rtt.unwrap_or_default().into_table(),
            links,
            link_series: self.link_series.into_table(),
            sources,
            source_series: self.source_series.into_table(),
            pcap,
            events: self.events.processed(),
            duration: end,
        }
    }
}

/// Runs a validated scenario.
pub fn run(s: &Scenario) -> Results {
    let mut w = World::new(s);
    w.run();
    w.results(s)
}
