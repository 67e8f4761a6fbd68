//! Whole-simulator tests of UDP constant-bit-rate cross traffic: the
//! high-speed study's design (1 Gbit/s, one TCP flow for 150 s, UDP
//! 200 Mbit/s from 50 s to 100 s) and the source's accounting.

mod common;
use ccsim::record::table::{Column, Table};
use common::*;

/// Payload rate (bit/s) of a cumulative-bytes series over [a, b) seconds.
fn window_rate(points: &[(f64, f64)], a: f64, b: f64) -> f64 {
    let at = |x: f64| points.iter().rev().find(|(t, _)| *t <= x + 1e-9).map_or(0.0, |p| p.1);
    (at(b) - at(a)) * 8.0 / (b - a)
}

fn source_series(r: &ccsim::Results, k: u32, column: &str) -> Vec<(f64, f64)> {
    let s: &Table = &r.source_series;
    let t = s.f64("t");
    let src = match s.get("source") {
        Some(Column::U32(v)) => v.clone(),
        _ => panic!("no source column"),
    };
    let v: Vec<f64> = match s.get(column) {
        Some(Column::U64(v)) => v.iter().map(|x| *x as f64).collect(),
        Some(Column::F64(v)) => v.clone(),
        _ => panic!("no column {column}"),
    };
    (0..t.len()).filter(|&i| src[i] == k).map(|i| (t[i], v[i])).collect()
}

#[test]
fn udp_takes_its_share_and_tcp_recovers_after_it_stops() {
    let r = simulate(
        r#"{"duration": 150, "record": {"interval": "100ms", "rtt_samples": false},
            "downlink": {"rate": "1Gbit", "delay": "10ms"},
            "flows": [{"cc": "cubic"}],
            "udp": [{"rate": "200Mbit", "start": "50s", "stop": "100s"}]}"#,
    );
    let tcp = series(&r, 0, "delivered_bytes");
    let udp = source_series(&r, 0, "bytes_delivered");
    let [t1, t2, t3] = [(0.0, 50.0), (50.0, 100.0), (100.0, 150.0)].map(|(a, b)| window_rate(&tcp, a, b));
    // UDP sent before 100 s may still arrive in the next ~30 ms (queue and delay).
    let [u1, u2, u3] = [(0.0, 50.0), (50.0, 100.1), (100.1, 150.0)].map(|(a, b)| window_rate(&udp, a, b));
    eprintln!(
        "tcp {:.1} {:.1} {:.1} Mbit/s; udp {:.1} {:.1} {:.1} Mbit/s",
        t1 / 1e6,
        t2 / 1e6,
        t3 / 1e6,
        u1 / 1e6,
        u2 / 1e6,
        u3 / 1e6
    );
    let payload_share = 1448.0 / 1500.0;
    // No UDP outside its period; during it the UDP payload rate is close to
    // 200 Mbit/s x 1472/1500 (drop-tail makes it lose a little to TCP's bursts).
    assert_eq!((u1, u3), (0.0, 0.0));
    assert!(u2 > 0.93 * 200e6 * 1472.0 / 1500.0 && u2 <= 200e6 * 1472.0 / 1500.0 + 1.0, "udp {u2}");
    // TCP gets about the remaining 800 Mbit/s, and the link stays full.
    assert!(t2 > 0.9 * 800e6 * payload_share && t2 < 800e6 * payload_share * 1.02, "tcp {t2}");
    assert!((t2 + u2 * 1500.0 / 1472.0 * payload_share) > 0.95 * 1e9 * payload_share);
    // Before and after: TCP alone fills most of the link; cubic recovers.
    assert!(t1 > 0.85 * 1e9 * payload_share, "tcp before {t1}");
    assert!(t3 / t1 > 0.95, "recovery ratio {}", t3 / t1);
    // The summary row counts what was sent and received.
    let sent = r.sources.u64("packets_sent")[0];
    let got = r.sources.u64("packets_delivered")[0];
    let lost = r.sources.u64("packets_lost")[0];
    assert_eq!(sent, (200e6f64 * 50.0 / (1500.0 * 8.0)).ceil() as u64); // one at 50 s, then every 60 us
    assert_eq!(sent, got + lost);
    assert!(r.sources.u64("queue_drops")[0] <= lost);
    match r.sources.get("kind") {
        Some(Column::Str(k)) => assert_eq!(k[0], "udp"),
        _ => panic!("no kind column"),
    }
}

#[test]
fn uplink_udp_alone_is_delivered_in_full_and_is_deterministic() {
    let json = r#"{"duration": 10, "downlink": {"rate": "10Mbit", "delay": "20ms"},
                   "uplink": {"rate": "5Mbit", "delay": "20ms"},
                   "flows": [{"cc": "reno", "start": "9s"}],
                   "udp": [{"rate": "2Mbit", "direction": "up", "packet_size": 500, "start": 1, "stop": 6}]}"#;
    let a = simulate(json);
    let b = simulate(json);
    assert_eq!(a.sources, b.sources);
    assert_eq!(a.source_series, b.source_series);
    // 2 Mbit/s of 500-byte datagrams for 5 s: 2500 datagrams, all delivered.
    assert_eq!(a.sources.u64("packets_sent")[0], 2500);
    assert_eq!(a.sources.u64("packets_delivered")[0], 2500);
    assert_eq!(a.sources.u64("bytes_delivered")[0], 2500 * 472);
    // On the uplink: the downlink saw only the late TCP flow.
    let up_arrivals = a.links.u64("arrivals")[1];
    assert!(up_arrivals >= 2500);
}
