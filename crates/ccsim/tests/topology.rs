//! Whole-simulator checks of general topologies (`[[links]]` and routes): a
//! dumbbell written as named links runs exactly as the shorthand, the parking
//! lot's known unfairness to the flow that crosses every bottleneck, and
//! jitter at two routers in a row spreading the RTT wider than at one.

mod common;
use ccsim::record::table::Column;
use ccsim::scenario::BufferSpec;
use ccsim::units::{Bytes, Duration};
use ccsim::{run, Results, Scenario};
use common::*;
use std::path::Path;

/// An example scenario file, read as the front end would (TOML to JSON), with `duration` replaced.
fn example(name: &str, duration: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut value: serde_json::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    value["duration"] = duration.into();
    Scenario::from_json(&value.to_string()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn names(r: &Results) -> Vec<String> {
    match r.links.get("link") {
        Some(Column::Str(names)) => names.clone(),
        _ => panic!("no link column"),
    }
}

/// Columns equal value for value (f64 by their bits, so NaN equals NaN).
fn same(a: &Column, b: &Column) -> bool {
    match (a, b) {
        (Column::F64(x), Column::F64(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        _ => a == b,
    }
}

/// The `q` quantile (nearest rank) of `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * q).round() as usize]
}

#[test]
fn a_dumbbell_written_as_links_runs_exactly_as_the_shorthand() {
    let shorthand = r#"{"duration": 5, "seed": 3,
        "downlink": {"rate": "10Mbit", "delay": "20ms", "queue": {"kind": "red"},
                     "jitter": {"distribution": "uniform", "max": "2ms", "reorder": true}, "loss": {"model": "bernoulli", "p": 0.001}},
        "uplink": {"rate": "2Mbit", "delay": "10ms"},
        "flows": [{"cc": "cubic", "access_delay": "5ms"}, {"cc": "reno", "direction": "up", "start": "1s"}],
        "udp": [{"rate": "1Mbit", "start": "2s"}]}"#;
    let links = r#"{"duration": 5, "seed": 3,
        "links": [{"name": "downlink", "rate": "10Mbit", "delay": "20ms", "queue": {"kind": "red"},
                   "jitter": {"distribution": "uniform", "max": "2ms", "reorder": true}, "loss": {"model": "bernoulli", "p": 0.001}},
                  {"name": "uplink", "rate": "2Mbit", "delay": "10ms"}],
        "flows": [{"cc": "cubic", "access_delay": "5ms", "route": ["downlink"], "ack_route": ["uplink"]},
                  {"cc": "reno", "route": ["uplink"], "ack_route": ["downlink"], "start": "1s"}],
        "udp": [{"rate": "1Mbit", "start": "2s", "route": ["downlink"]}]}"#;
    let (a, b) = (simulate(shorthand), simulate(links));
    assert_eq!(a.events, b.events);
    for (name, ta, tb) in [
        ("series", &a.series, &b.series),
        ("rtt", &a.rtt, &b.rtt),
        ("links", &a.links, &b.links),
        ("link_series", &a.link_series, &b.link_series),
        ("source_series", &a.source_series, &b.source_series),
        ("flows", &a.flows, &b.flows),
        ("sources", &a.sources, &b.sources),
    ] {
        assert!(ta.rows() > 0 || name == "source_series", "table {name} is empty");
        assert_eq!(ta.columns.len(), tb.columns.len(), "table {name}");
        for ((na, ca), (nb, cb)) in ta.columns.iter().zip(&tb.columns) {
            assert_eq!(na, nb, "table {name}");
            // The flows and sources tables differ only in their direction labels.
            if na == "direction" {
                assert!(matches!(cb, Column::Str(v) if v.iter().all(|d| d == "route")), "table {name}: {cb:?}");
            } else {
                assert!(same(ca, cb), "table {name}, column {na} differs");
            }
        }
    }
}

/// Three 10 Mbit/s hops in a chain; flow 0 crosses all three, flows 1-3 one
/// hop each, all with a 60 ms base RTT (examples/parking-lot.toml).
///
/// Max-min fairness would give each flow half a hop. Loss-based TCP does
/// not: the long flow is cut back by losses at three queues, each short flow
/// at one. Models put the long flow's share of a hop at 1/4 (proportional
/// fairness) to 1/(1 + sqrt 3) = 37% (Reno's response function, losses at
/// the three queues independent); drop-tail queues that overflow in step
/// beat it down further. So the checks: the long flow gets less than every
/// short flow, less than 40% of a hop (the highest model value, with a
/// margin) but is not starved (more than 2%); each short flow gets more than
/// half a hop; and together they fill each hop (over 90% of its payload
/// capacity, 96.5% of the line rate with 1448-byte segments in 1500 bytes).
#[test]
fn parking_lot_long_flow_gets_less_than_each_one_hop_flow() {
    let r = run(&example("parking-lot.toml", "60s"));
    let hop_bps = 10e6;
    let long = goodput_bps(&r, 0);
    for i in 1..=3 {
        let short = goodput_bps(&r, i);
        assert!(long < short, "long flow {long} bit/s vs flow {i} {short} bit/s");
        assert!(short > 0.5 * hop_bps, "flow {i}: {short} bit/s is not more than half a hop");
        assert!(long + short > 0.9 * 0.965 * hop_bps, "hop {i} is not full: {long} + {short} bit/s");
    }
    assert!(long < 0.4 * hop_bps && long > 0.02 * hop_bps, "long flow {long} bit/s");
    // One row per link, named, in the order of [[links]]; the long flow's
    // data crosses every forward hop, so each one delivers its bytes too.
    assert_eq!(names(&r), ["hop1", "hop2", "hop3", "hop3-back", "hop2-back", "hop1-back"]);
    let delivered = r.links.u64("delivered_bytes");
    let flow_delivered = r.flows.u64("delivered_bytes_total");
    for hop in 0..3 {
        assert!(delivered[hop] > flow_delivered[0] + flow_delivered[hop + 1], "hop {hop}: {delivered:?}");
        assert!(r.links.u64("queue_drops")[hop] > 0, "hop {hop} never overflowed");
    }
    assert_eq!(r.link_series.rows(), 6 * 6001, "a row per link every 10 ms of 60 s");
}

/// examples/wan-two-routers.toml: 100 Mbit/s through two routers, 50 +- 1 ms
/// each way at each (uniform jitter over 0..2 ms on 49 ms, reordering). A
/// light flow (a 100 kB window: about 4 Mbit/s, so nothing queues; no
/// delayed ACKs) samples the path's RTT: 198 ms of propagation plus the
/// jitter of both routers, whose sum is a triangle over 0..4 ms. Its 5-95%
/// spread is 2.74 ms, against 1.8 ms for one router's uniform 0..2 ms
/// (ratio 1.52); serialization and ACK timing add a little to both. Checked:
/// each spread within 0.5 ms of its theory and the ratio over 1.3.
#[test]
fn jitter_at_two_routers_spreads_the_rtt_wider_than_at_one() {
    let spread_ms = |one_router: bool| {
        let mut s = example("wan-two-routers.toml", "20s");
        s.flows[0].tcp.rcv_buf = BufferSpec::Fixed(Bytes(100_000));
        s.flows[0].tcp.delayed_ack = false;
        if one_router {
            s.links[1].jitter = None;
            s.links[1].delay = Duration(50_000_000);
        }
        let r = run(&s);
        assert_eq!(r.flows.u64("timeouts")[0], 0);
        // After slow start (5 s), when the window is steady.
        let rtt: Vec<f64> =
            r.rtt.f64("rtt_ms").iter().zip(r.rtt.f64("t")).filter(|(_, t)| **t > 5.0).map(|(x, _)| *x).collect();
        assert!(rtt.len() > 1000);
        let min = quantile(&rtt, 0.0);
        assert!((198.0..199.5).contains(&min), "min RTT {min} ms");
        quantile(&rtt, 0.95) - quantile(&rtt, 0.05)
    };
    let (two, one) = (spread_ms(false), spread_ms(true));
    assert!((2.74 - 0.5..2.74 + 0.5).contains(&two), "two routers: 5-95% spread {two} ms");
    assert!((1.8 - 0.5..1.8 + 0.5).contains(&one), "one router: 5-95% spread {one} ms");
    assert!(two > 1.3 * one, "two routers {two} ms vs one {one} ms");
}

/// The TCP flows in a pcap file: flow i's sender is 10.1.x.y and receiver
/// 10.2.x.y with x.y = i + 1 (record::pcap); records start at the IPv4 header.
fn flows_in_capture(path: &Path) -> std::collections::BTreeSet<u32> {
    let bytes = std::fs::read(path).unwrap();
    let mut flows = std::collections::BTreeSet::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let captured = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        let ip = &bytes[at + 16..at + 16 + captured];
        for address in [&ip[12..16], &ip[16..20]] {
            if address[0] == 10 && (address[1] == 1 || address[1] == 2) {
                flows.insert((((address[2] as u32) << 8) | address[3] as u32) - 1);
            }
        }
        at += 16 + captured;
    }
    flows
}

#[test]
fn a_capture_of_a_named_link_holds_the_flows_whose_data_crosses_it() {
    let dir = std::env::temp_dir().join(format!("ccsim-topology-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (link, expected) in [("hop2", vec![0, 2]), ("hop3", vec![0, 3]), ("all", vec![0, 1, 2, 3])] {
        let mut s = example("parking-lot.toml", "2s");
        let path = dir.join(format!("{link}.pcap"));
        let spec = format!(r#"{{"path": {:?}, "link": "{link}"}}"#, path.to_str().unwrap());
        s.record.pcap = Some(serde_json::from_str(&spec).unwrap());
        let r = run(&s);
        assert!(r.pcap.as_ref().is_some_and(|p| p.error.is_none() && p.packets > 0), "{link}");
        assert_eq!(flows_in_capture(&path).into_iter().collect::<Vec<_>>(), expected, "link {link}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// UDP crossing two links: the slower second link's queue drops what it
/// cannot carry, those drops count as the source's, and the sink receives
/// the second link's rate. A background routed over the same links takes
/// its load as a fraction of the slowest one.
#[test]
fn udp_and_background_follow_their_routes() {
    let r = simulate(
        r#"{"duration": 10,
            "links": [{"name": "fast", "rate": "20Mbit", "delay": "5ms", "queue": {"size": "50pkt"}},
                      {"name": "slow", "rate": "5Mbit", "delay": "5ms", "queue": {"size": "50pkt"}},
                      {"name": "back", "rate": "20Mbit", "delay": "10ms"}],
            "flows": [{"cc": "cubic", "route": ["fast"], "ack_route": ["back"], "size": "100KB"}],
            "udp": [{"rate": "8Mbit", "route": ["fast", "slow"]}],
            "background": {"kind": "on-off", "load": 0.2, "route": ["fast", "slow"], "packet_size": 1000}}"#,
    );
    let delivered_bps = |k: usize| r.sources.u64("bytes_delivered")[k] as f64 * 8.0 / 10.0;
    let drops = r.sources.u64("queue_drops");
    let slow = names(&r).iter().position(|n| n == "slow").unwrap();
    assert!(drops[0] > 0 && drops[0] <= r.links.u64("queue_drops")[slow], "UDP drops {drops:?}");
    assert_eq!(r.links.u64("queue_drops")[0], 0, "the fast link has room");
    // Together they get the slow link's rate (payload: 1472 of 1500 and 972 of 1000 bytes).
    let total = delivered_bps(0) + delivered_bps(1);
    assert!((4.5e6..5.0e6).contains(&total), "{total} bit/s over a 5 Mbit/s link");
    // On-off sources offer 0.2 x 5 Mbit/s on average: a fifth of the slow link, not of the fast one.
    let offered_bps = r.sources.u64("wire_bytes_sent")[1] as f64 * 8.0 / 10.0;
    assert!((0.5e6..1.5e6).contains(&offered_bps), "background offered {offered_bps} bit/s");
    assert!(matches!(r.sources.get("direction"), Some(Column::Str(d)) if d == &["route", "route"]));
}
