//! Competing TCP flows with staggered start and stop, as the high-speed
//! study's TCP/TCP runs: flow 1 runs 0-100 s, flow 2 runs 25-125 s.

mod common;
use common::*;

fn window_rate(points: &[(f64, f64)], a: f64, b: f64) -> f64 {
    let at = |x: f64| points.iter().rev().find(|(t, _)| *t <= x + 1e-9).map_or(0.0, |p| p.1);
    let from = points.iter().find(|(t, _)| *t >= a - 1e-9).map_or(0.0, |p| if p.0 > a + 0.2 { 0.0 } else { at(a) });
    (at(b) - from) * 8.0 / (b - a)
}

fn staggered(cc1: &str, cc2: &str) -> ccsim::Results {
    simulate(&format!(
        r#"{{"duration": 125, "record": {{"interval": "100ms", "rtt_samples": false}},
            "downlink": {{"rate": "100Mbit", "delay": "10ms"}},
            "flows": [{{"cc": "{cc1}", "stop": "100s"}}, {{"cc": "{cc2}", "start": "25s"}}]}}"#
    ))
}

#[test]
fn staggered_pairs_share_then_take_over() {
    let full = 100e6 * 1448.0 / 1500.0;
    for (cc1, cc2) in [("cubic", "cubic"), ("cubic", "reno"), ("reno", "cubic")] {
        let r = staggered(cc1, cc2);
        let d1 = series(&r, 0, "delivered_bytes");
        let d2 = series(&r, 1, "delivered_bytes");
        let f1_alone = window_rate(&d1, 0.0, 25.0);
        let f1_shared = window_rate(&d1, 25.0, 100.0);
        let f2_shared = window_rate(&d2, 25.0, 100.0);
        let f2_alone = window_rate(&d2, 100.0, 125.0);
        eprintln!(
            "{cc1}/{cc2}: flow 1 {:.1} then {:.1}; flow 2 {:.1} then {:.1} Mbit/s",
            f1_alone / 1e6,
            f1_shared / 1e6,
            f2_shared / 1e6,
            f2_alone / 1e6
        );
        assert!(f1_alone > 0.85 * full, "{cc1}/{cc2} flow 1 alone {f1_alone}");
        assert!(f2_alone > 0.85 * full, "{cc1}/{cc2} flow 2 alone {f2_alone}");
        // Both get a real share while they compete, and together fill the link.
        assert!(f1_shared > 0.15 * full && f2_shared > 0.15 * full, "{cc1}/{cc2} shares {f1_shared} {f2_shared}");
        assert!(f1_shared + f2_shared > 0.9 * full, "{cc1}/{cc2} sum");
        // Summary rows cover each flow's own active period.
        assert_eq!((r.flows.f64("start_s")[1], r.flows.f64("end_s")[0]), (25.0, 100.0));
        // Flow 1 sends nothing new after its stop; flow 2 nothing before its start.
        assert!(series(&r, 1, "delivered_bytes").iter().all(|(t, _)| *t >= 25.0));
        let sent1 = series(&r, 0, "bytes_sent");
        assert!(sent1.iter().all(|(t, _)| *t <= 100.0 + 1e-9));
    }
}
