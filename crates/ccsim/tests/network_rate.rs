//! Whole-simulator checks of the link's rate sources and outages: a Mahimahi
//! trace delivers its mean capacity, "1" is 12 Mbit/s, a Markov
//! rate keeps to its states, and outages longer than the RTO cause timeouts
//! with exponential backoff while short ones do not.

mod common;
use ccsim::Results;
use common::*;

/// A Mahimahi trace shipped with ccbench (python/ccbench/presets/traces/, see
/// its README for the source), read here in the test: the core never reads files.
fn read_trace(name: &str) -> Vec<u64> {
    let path = format!("{}/../../python/ccbench/presets/traces/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read the test trace {path}: {e}"));
    text.lines().map(|l| l.trim().parse().unwrap_or_else(|_| panic!("bad line {l:?} in {path}"))).collect()
}

fn link_u64(r: &Results, column: &str, link: usize) -> u64 {
    r.links.u64(column)[link]
}

fn trace_json(ops: &[u64]) -> String {
    let list: Vec<String> = ops.iter().map(|x| x.to_string()).collect();
    format!(r#"{{"opportunities_ms": [{}]}}"#, list.join(","))
}

#[test]
fn a_cellular_trace_delivers_its_mean_capacity() {
    let ops = read_trace("ATT-LTE-driving-2016.down");
    let period_s = *ops.last().unwrap() as f64 / 1000.0;
    let mean_bps = ops.len() as f64 * 1504.0 * 8.0 / period_s;
    assert!((mean_bps / 1e6 - 4.572).abs() < 0.001, "{mean_bps}");
    // Two periods, four cubic flows and a deep buffer keep the queue from running dry.
    let duration = 2.0 * period_s;
    let r = simulate(&format!(
        r#"{{"duration": {duration}, "downlink": {{"trace": {}, "delay": "20ms", "queue": {{"size": "3000pkt"}}}},
            "uplink": {{"rate": "100Mbit", "delay": "20ms"}},
            "flows": [{{"cc": "cubic", "count": 4}}], "record": {{"rtt_samples": false, "interval": "1s"}}}}"#,
        trace_json(&ops)
    ));
    let rate_bps = r.links.f64("rate_bps")[0];
    assert!((rate_bps - mean_bps).abs() < 1.0, "reported rate {rate_bps}");
    let sent_bps = link_u64(&r, "departure_bytes", 0) as f64 * 8.0 / duration;
    let ratio = sent_bps / mean_bps;
    eprintln!("trace: sent {:.3} Mbit/s of a mean {:.3} Mbit/s ({ratio:.4})", sent_bps / 1e6, mean_bps / 1e6);
    assert!(
        (0.99..=1.0).contains(&ratio),
        "delivered {:.3} Mbit/s of {:.3}: {ratio:.4}",
        sent_bps / 1e6,
        mean_bps / 1e6
    );
}

#[test]
fn a_run_shorter_than_its_trace_is_measured_against_the_part_it_played() {
    // The LTE trace's first 20 s offer more than its 120 s mean (6.87 against
    // 4.57 Mbit/s): utilization against the mean came to above 100%.
    let ops = read_trace("ATT-LTE-driving-2016.down");
    // Opportunities in (0, 20 s]: those at 0 come before anything was sent.
    let played = ops.iter().filter(|&&ms| ms > 0 && ms <= 20_000).count() as f64;
    let offered_bps = played * 1504.0 * 8.0 / 20.0;
    let r = simulate(&format!(
        r#"{{"duration": 20, "downlink": {{"trace": {}, "delay": "20ms", "queue": {{"size": "1000pkt"}}}},
            "uplink": {{"rate": "100Mbit", "delay": "20ms"}},
            "flows": [{{"cc": "cubic"}}], "record": {{"rtt_samples": false}}}}"#,
        trace_json(&ops)
    ));
    let (mean, offered) = (r.links.f64("rate_bps")[0], r.links.f64("offered_rate_bps")[0]);
    assert!(offered > 1.1 * mean, "offered {offered} against a mean of {mean}");
    assert!((offered - offered_bps).abs() < 1.0, "offered {offered}, expected {offered_bps}");
    let (capacity, goodput) = (r.links.f64("capacity_bps")[0], r.links.f64("goodput_bps")[0]);
    assert!((capacity - offered * 1448.0 / 1500.0).abs() < 1e-6, "{capacity}");
    let (u, nominal) = (r.links.f64("utilization")[0], r.links.f64("nominal_utilization")[0]);
    assert!(u > 0.9 && u <= 1.0, "utilization {u}");
    assert_eq!((u, nominal), (goodput / capacity, goodput / offered));
    // The uplink carries no flow's data: its window is the whole run (the
    // constant rate offers its own rate).
    assert_eq!(r.links.f64("offered_rate_bps")[1], 100e6);
}

#[test]
fn flows_of_different_segment_sizes_never_use_more_than_a_constant_link() {
    // A full-size flow takes most of the link beside one of 100-byte
    // segments (66% payload against 96.5%): the mean of their shares made
    // the payload capacity 8.1 Mbit/s, and the link read 114% utilized.
    let r = simulate(
        r#"{"duration": 20, "downlink": {"rate": "10Mbit", "delay": "20ms", "queue": {"size": "1bdp"}},
            "flows": [{"cc": "cubic"}, {"cc": "reno", "tcp": {"mss": 100, "snd_buf": 20000}}],
            "record": {"rtt_samples": false}}"#,
    );
    let (capacity, goodput, u) =
        (r.links.f64("capacity_bps")[0], r.links.f64("goodput_bps")[0], r.links.f64("utilization")[0]);
    assert!(goodput_bps(&r, 0) > 10.0 * goodput_bps(&r, 1), "{} {}", goodput_bps(&r, 0), goodput_bps(&r, 1));
    assert!(u > 0.9 && u <= 1.0, "utilization {u}: {goodput} of a payload capacity of {capacity}");
    // The capacity's share: the payload over the wire bytes it took in full segments.
    let delivered = r.flows.u64("delivered_bytes");
    let wire = delivered[0] as f64 * 1500.0 / 1448.0 + delivered[1] as f64 * 152.0 / 100.0;
    let share = (delivered[0] + delivered[1]) as f64 / wire;
    assert!((capacity - 10e6 * share).abs() < 1e-3, "capacity {capacity}, expected {}", 10e6 * share);
}

#[test]
fn a_trace_of_one_line_is_a_twelve_mbit_link() {
    let r = simulate(
        r#"{"duration": 30, "downlink": {"trace": {"opportunities_ms": [1]}, "delay": "20ms", "queue": {"size": "2bdp"}},
                        "flows": [{"cc": "cubic", "count": 2}], "record": {"rtt_samples": false}}"#,
    );
    assert_eq!(r.links.f64("rate_bps")[0], 12_032_000.0);
    let sent_bps = link_u64(&r, "departure_bytes", 0) as f64 * 8.0 / 30.0;
    eprintln!("trace \"1\": sent {:.4} Mbit/s", sent_bps / 1e6);
    assert!(sent_bps <= 12_032_000.0 && sent_bps > 0.99 * 12_032_000.0, "{sent_bps}");
    // The mirrored uplink runs on the same trace.
    assert_eq!(r.links.f64("rate_bps")[1], 12_032_000.0);
}

#[test]
fn a_markov_rate_moves_between_its_states() {
    let r = simulate(
        r#"{"duration": 120, "downlink": {"rate_process": {"states": [
                           {"rate": "4Mbit", "mean_holding": "3s"}, {"rate": "16Mbit", "mean_holding": "3s"}]},
                         "delay": "20ms", "queue": {"size": "300pkt"}},
                         "uplink": {"rate": "100Mbit", "delay": "20ms"},
                         "flows": [{"cc": "cubic", "count": 2}], "record": {"rtt_samples": false, "interval": "200ms"}}"#,
    );
    assert_eq!(r.links.f64("rate_bps")[0], 10e6);
    let names = r.link_series.texts("link");
    let rates: Vec<f64> = r
        .link_series
        .f64("delivered_rate_bps")
        .iter()
        .zip(&names)
        .filter(|(_, n)| **n == "downlink")
        .map(|(x, _)| *x)
        .skip(5)
        .collect();
    // Never above the fast state; often near each state's rate.
    assert!(rates.iter().all(|&x| x <= 16.2e6), "max {}", rates.iter().cloned().fold(0.0, f64::max));
    let near = |target: f64| rates.iter().filter(|&&x| (x - target).abs() < 0.1 * target).count();
    assert!(
        near(4e6) > rates.len() / 5 && near(16e6) > rates.len() / 5,
        "{} near 4, {} near 16 of {}",
        near(4e6),
        near(16e6),
        rates.len()
    );
    let sent_bps = link_u64(&r, "departure_bytes", 0) as f64 * 8.0 / 120.0;
    assert!(sent_bps > 0.7 * 10e6 && sent_bps < 1.3 * 10e6, "{sent_bps}");
}

fn outage_run(outage: &str) -> Results {
    simulate(&format!(
        r#"{{"duration": 30, "downlink": {{"rate": "10Mbit", "delay": "25ms", "queue": {{"size": "1bdp"}}, {outage}}},
            "flows": [{{"cc": "cubic"}}], "record": {{"rtt_samples": false}}}}"#
    ))
}

#[test]
fn outages_longer_than_the_rto_cause_timeouts_with_backoff() {
    // RTO is about 300 ms here (Linux: srtt + max(4 rttvar, 200 ms)). Slow
    // start's overshoot already costs a timeout; count the ones the outage adds.
    let base = outage_run(r#""outages": []"#).flows.u64("timeouts")[0];
    let long = outage_run(r#""outages": [{"start": 10, "duration": 3}]"#);
    let timeouts = long.flows.u64("timeouts")[0] - base;
    // Backoff: RTO, 2 RTO, 4 RTO, ... fit 2 to 4 expiries into 3 s; a fixed RTO would fire about 10 times.
    eprintln!("3 s outage: {timeouts} timeouts beyond the {base} of the outage-free run");
    assert!((2..=5).contains(&timeouts), "{timeouts} timeouts in a 3 s outage");
    assert_eq!(link_u64(&long, "outages", 0), 1);
    // Nothing was lost on the link: the queue held the packets through the outage.
    assert_eq!(link_u64(&long, "channel_losses", 0), 0);

    let short = outage_run(r#""outages": [{"start": 10, "duration": 0.03}]"#);
    assert_eq!(short.flows.u64("timeouts")[0], base);
    assert_eq!(link_u64(&short, "outages", 0), 1);
}

#[test]
fn random_outages_are_seeded_and_cause_timeouts() {
    let process = r#""outage_process": {"mean_interval": "4s", "distribution": "uniform", "min": "1s", "max": "2s"}"#;
    let a = outage_run(process);
    let b = outage_run(process);
    assert_eq!(a.flows.u64("timeouts"), b.flows.u64("timeouts"));
    assert_eq!(a.links.u64("delivered_bytes"), b.links.u64("delivered_bytes"));
    // About 30 s / 5.5 s outages (only those that met a waiting packet are counted).
    let n = link_u64(&a, "outages", 0);
    assert!((2..=12).contains(&n), "{n} outages");
    assert!(a.flows.u64("timeouts")[0] >= n / 2, "{} timeouts for {n} outages of 1-2 s", a.flows.u64("timeouts")[0]);
}
