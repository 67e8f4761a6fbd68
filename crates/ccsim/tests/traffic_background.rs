//! Whole-simulator tests of background load: Poisson web-like TCP transfers
//! and on/off UDP sources whose intensity follows a time-of-day profile.

mod common;
use ccsim::record::table::Column;
use common::*;

fn source_col(r: &ccsim::Results, column: &str) -> Vec<(f64, f64)> {
    let s = &r.source_series;
    let t = s.f64("t");
    let v: Vec<f64> = match s.get(column) {
        Some(Column::U64(v)) => v.iter().map(|x| *x as f64).collect(),
        Some(Column::F64(v)) => v.clone(),
        _ => panic!("no column {column}"),
    };
    t.iter().copied().zip(v).collect()
}

/// Increase of a cumulative column over [a, b).
fn delta(points: &[(f64, f64)], a: f64, b: f64) -> f64 {
    let at = |x: f64| points.iter().rev().find(|(t, _)| *t <= x + 1e-9).map_or(0.0, |p| p.1);
    at(b) - at(a)
}

const WEB: &str = r#"{"duration": 120, "seed": 7, "record": {"interval": "100ms"},
    "downlink": {"rate": "10Mbit", "delay": "25ms", "queue": {"size": "2bdp"}},
    "flows": [{"cc": "cubic", "size": "20KB"}],
    "background": {"kind": "poisson-web", "load": 0.3, "size": {"dist": "lognormal", "mean": "50KB", "sigma": 1.0},
                   "profile": [[0, 0.5], ["60s", 1.5]]}}"#;

#[test]
fn web_arrivals_and_load_follow_the_profile() {
    let r = simulate(WEB);
    let started = source_col(&r, "transfers_started");
    // 0.3 x 10 Mbit/s / 400 kbit = 7.5 transfers/s at multiplier 1.
    let (first, second) = (delta(&started, 0.0, 60.0), delta(&started, 60.0, 120.0));
    for (got, want) in [(first, 0.5 * 7.5 * 60.0), (second, 1.5 * 7.5 * 60.0)] {
        assert!((got - want).abs() < 4.0 * want.sqrt(), "arrivals {first} then {second}");
    }
    // Delivered load follows: about 1.5 and 4.5 Mbit/s of payload.
    let bytes = source_col(&r, "bytes_delivered");
    let rate = |a: f64, b: f64| delta(&bytes, a, b) * 8.0 / (b - a);
    let (r1, r2) = (rate(5.0, 60.0), rate(65.0, 120.0));
    eprintln!("background {:.2} then {:.2} Mbit/s, {first} and {second} transfers", r1 / 1e6, r2 / 1e6);
    assert!(r1 > 0.9e6 && r1 < 2.2e6, "{r1}");
    assert!(r2 > 3.3e6 && r2 < 5.7e6, "{r2}");
    // The multiplier column shows the profile.
    let m = source_col(&r, "multiplier");
    assert_eq!(m.iter().find(|p| p.0 >= 30.0).unwrap().1, 0.5);
    assert_eq!(m.iter().find(|p| p.0 >= 90.0).unwrap().1, 1.5);
    // Background transfers are not rows of the flows table; they are the source's.
    assert_eq!(r.flows.rows(), 1);
    assert_eq!(r.sources.rows(), 1);
    match r.sources.get("transport") {
        Some(Column::Str(v)) => assert_eq!(v[0], "tcp"),
        _ => panic!(),
    }
    let done = r.sources.u64("transfers_completed")[0] as f64;
    assert!(done > 0.95 * (first + second), "{done} of {}", first + second);
}

#[test]
fn background_is_deterministic_per_seed() {
    let a = simulate(WEB);
    let b = simulate(WEB);
    assert_eq!(a.sources, b.sources);
    assert_eq!(a.flows, b.flows);
    let c = simulate(&WEB.replace(r#""seed": 7"#, r#""seed": 8"#));
    assert_ne!(a.sources.u64("transfers_started"), c.sources.u64("transfers_started"));
}

#[test]
fn on_off_udp_load_follows_a_linear_profile_and_slows_a_tcp_flow() {
    let base = r#"{"duration": 100, "record": {"interval": "100ms"},
        "downlink": {"rate": "20Mbit", "delay": "10ms"},
        "flows": [{"cc": "cubic"}] BG}"#;
    let alone = simulate(&base.replace("BG", ""));
    let r = simulate(&base.replace(
        "BG",
        r#", "background": {"kind": "on-off", "load": 0.5, "sources": 20, "on": "200ms", "off": "300ms",
                            "profile": [[0, 0.0], [100, 1.0]], "interpolation": "linear"}"#,
    ));
    let bytes = source_col(&r, "bytes_delivered");
    let rate = |a: f64, b: f64| delta(&bytes, a, b) * 8.0 / (b - a);
    // Load ramps from 0 to 10 Mbit/s of wire rate: mean multiplier 0.1 in the
    // first 20 s, 0.9 in the last 20 s (payload is 1472/1500 of it).
    let (early, late) = (rate(0.0, 20.0), rate(80.0, 100.0));
    eprintln!("on-off {:.2} then {:.2} Mbit/s", early / 1e6, late / 1e6);
    let payload = 1472.0 / 1500.0;
    assert!((early / (1e6 * payload) - 1.0).abs() < 0.3, "{early}");
    assert!((late / (9e6 * payload) - 1.0).abs() < 0.15, "{late}");
    // The TCP flow gives way to it.
    let g_alone = goodput_bps(&alone, 0);
    let g = goodput_bps(&r, 0);
    assert!(g < g_alone - 3e6, "tcp {g} with background, {g_alone} alone");
}

#[test]
fn tcp_background_rows_count_segments_on_the_wire_delivered_and_dropped() {
    let r = simulate(
        r#"{"duration": 20, "seed": 3,
            "downlink": {"rate": "10Mbit", "delay": "25ms", "queue": {"size": 8}},
            "flows": [{"cc": "reno"}],
            "background": {"kind": "poisson-web", "load": 0.4, "size": {"dist": "lognormal", "mean": "100KB", "sigma": 1.0}}}"#,
    );
    let col = |name: &str| r.sources.u64(name)[0];
    let (sent, delivered, lost, drops) =
        (col("packets_sent"), col("packets_delivered"), col("packets_lost"), col("queue_drops"));
    assert!(delivered > 0 && delivered <= sent, "{delivered} of {sent} delivered");
    assert_eq!(lost, sent - delivered);
    // Every segment carries headers on the wire.
    assert!(col("wire_bytes_sent") > col("bytes_sent") && col("bytes_delivered") > 0);
    // The small queue drops some of the transfers' segments: counted for the
    // source, within the link's drops and the segments not received.
    let link_drops: u64 = r.links.u64("queue_drops").iter().sum();
    assert!(drops > 0 && drops <= link_drops && drops <= lost, "{drops} drops, {link_drops} at the link, {lost} lost");
}
