//! Building the world from a validated scenario: links and routes from its
//! lowered network (crate::scenario::lower), flows (sender and receiver from
//! their lowered configs, access delay lines) with their routes, traffic
//! sources, and the packet capture.

use super::{Flow, World};
use crate::cc;
use crate::event::{EventQueue, Timer};
use crate::net::delay_line::DelayLine;
use crate::net::link::Link;
use crate::net::pool::PacketPool;
use crate::net::topology::{Route, Topology};
use crate::record::pcap::{FlowMeta, PcapWriter};
use crate::record::recorded::Recorded;
use crate::record::rtt_samples::RttSamples;
use crate::record::rtt_stats::RttStats;
use crate::record::series::{FlowSeries, LinkSeries};
use crate::rng::{stream, Rng};
use crate::scenario::lower::{self, Network};
use crate::scenario::{BackgroundKind, FlowSpec, Scenario, TransportSpec};
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::Sender;
use crate::traffic::on_off::OnOff;
use crate::traffic::poisson_web::{PoissonWeb, WebTransport};
use crate::traffic::series::SourceSeries;
use crate::traffic::udp::UdpCbr;
use crate::traffic::{Source, SourceCounters};

/// The flow entry background TCP transfers are made from, their source's index and their route.
pub(super) type BackgroundFlow = (u32, FlowSpec, Route);

/// Builds flow `id` (sender and receiver) from its scenario entry and route;
/// `captured_links` are the links the packet capture records.
pub(super) fn make_flow(
    id: u32,
    group: usize,
    spec: &FlowSpec,
    route: &Route,
    captured_links: &[bool],
    source: Option<u32>,
    run_seed: u64,
) -> Flow {
    let t = &spec.tcp;
    let cc_params = lower::cc_params(spec);
    let algorithm = cc::build_for_flow(&spec.cc, &cc_params, t.mss, run_seed, id).expect("validated algorithm");
    let sender_cfg = lower::sender_config(spec, algorithm.needs_ecn());
    let receiver_cfg = lower::receiver_config(spec, route.delay, &sender_cfg, algorithm.needs_ecn());
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
        data_route: route.data.clone().into_boxed_slice(),
        ack_route: route.ack.clone().into_boxed_slice(),
        captured: route.data.iter().any(|&l| captured_links[l as usize]),
        host_queued: false, // set by the caller, who has the links
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
/// [background], with their routes, and the background's TCP flow template
/// (and route) if it has one.
fn make_sources(
    s: &Scenario,
    topology: &Topology,
    links: &[Link],
) -> (Vec<Source>, Vec<Box<[u32]>>, Option<BackgroundFlow>) {
    let end = s.duration.ns();
    let mut sources = Vec::new();
    let mut routes: Vec<Box<[u32]>> = topology.udp.iter().map(|r| r.clone().into_boxed_slice()).collect();
    for u in &s.udp {
        let id = sources.len() as u32;
        let stop = u.stop.map_or(end, |d| d.ns().min(end));
        sources.push(Source::Udp(UdpCbr::new(id, u.rate.bps(), u.packet_size.0 as u32, u.start.ns(), stop)));
    }
    let mut template = None;
    if let (Some(b), Some(route)) = (&s.background, &topology.background) {
        let id = sources.len() as u32;
        routes.push(route.data.clone().into_boxed_slice());
        let link = topology.bottleneck(&route.data, |k| links[k].mean_rate_bps());
        let capacity_bps = links[link].mean_rate_bps().round() as u64;
        let period = (b.start.ns(), b.stop.map_or(end, |d| d.ns().min(end)));
        let intensity = lower::intensity(b);
        let rng = |k: u64| Rng::for_component(s.seed, stream::TRAFFIC_BASE + 16 * id as u64 + k);
        let wire_bytes = b.packet_size.0 as u32;
        let source = match b.kind {
            BackgroundKind::PoissonWeb => {
                let transport = match b.transport {
                    TransportSpec::Tcp => {
                        template = Some((id, lower::background_flow(b), route.clone()));
                        WebTransport::Tcp
                    }
                    TransportSpec::Udp => {
                        let rate_bps = b.rate.map_or(capacity_bps / 10, |r| r.bps());
                        WebTransport::Udp { rate_bps, wire_bytes }
                    }
                };
                Source::Web(PoissonWeb::new(
                    id,
                    b.load,
                    capacity_bps,
                    lower::size_dist(b),
                    transport,
                    intensity,
                    period,
                    (rng(0), rng(1)),
                ))
            }
            BackgroundKind::OnOff => Source::OnOff(OnOff::new(
                id,
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
    (sources, routes, template)
}

impl World {
    /// Builds the world of a validated scenario, which records the sampled
    /// tables `recorded` names.
    pub fn new(s: &Scenario, recorded: Recorded) -> World {
        let Network { topology, links } = lower::network(s);
        let links: Vec<Link> = links
            .into_iter()
            .enumerate()
            .map(|(l, config)| Link::new(config, s.seed, stream::LINK_BASE + l as u64))
            .collect();
        let pcap = s.record.pcap.as_ref().map(|p| PcapWriter::create(&p.path, p.snaplen));
        let pcap_links: Vec<bool> = topology
            .names
            .iter()
            .map(|name| s.record.pcap.as_ref().is_some_and(|p| lower::captures(p, name)))
            .collect();
        let mut flows = Vec::new();
        for (group, spec) in s.flows.iter().enumerate() {
            for _ in 0..spec.count {
                let route = &topology.flows[group];
                let mut flow = make_flow(flows.len() as u32, group, spec, route, &pcap_links, None, s.seed);
                flow.host_queued = links[route.data[0] as usize].has_host_queue();
                flows.push(flow);
            }
        }
        let series = FlowSeries::new(flows.iter().map(|f| f.sender.algorithm().info().state));
        let (sources, source_routes, background_flow) = make_sources(s, &topology, &links);
        let n_sources = sources.len();
        let source_captured = source_routes.iter().map(|r| r.iter().any(|&l| pcap_links[l as usize])).collect();
        let main_flows = flows.len();
        let link_samples = if recorded.link_series { s.duration.ns() / s.record.interval_ns() + 1 } else { 0 };
        let link_sample_rows = links.len() * link_samples as usize;
        let rtt_samples = if recorded.rtt { lower::rtt_samples_per_flow(s.record.rtt_samples) } else { Some(0) };
        let mut w = World {
            now: 0,
            end: s.duration.ns(),
            seed: s.seed,
            events: EventQueue::for_links(links.len()).sender_slots_for(main_flows),
            links,
            link_names: topology.names,
            flows,
            recorded,
            sample_interval: s.record.interval_ns(),
            next_sample: None,
            series,
            sample_touched: vec![true; main_flows],
            link_series: LinkSeries::with_capacity(link_sample_rows),
            rtt: RttSamples::new(rtt_samples, main_flows, s.seed),
            rtt_stats: vec![RttStats::default(); main_flows],
            packets: Vec::new(),
            sent: Vec::new(),
            pool: PacketPool::new(),
            delivered: Vec::new(),
            main_flows,
            sources,
            source_counters: vec![SourceCounters::default(); n_sources],
            source_timers: vec![Timer::default(); n_sources],
            source_active: vec![0; n_sources],
            source_series: SourceSeries::default(),
            source_routes,
            source_captured,
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
        w.next_sample = Some(w.events.reserve(0));
        w
    }
}
