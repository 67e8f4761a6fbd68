//! Whole-simulator signature behaviour of copa and vivace: the queue Copa
//! keeps (about 1/delta packets) and its competitive mode against cubic;
//! Vivace's convergence to a fair share and its tolerance of random loss
//! below its utility's threshold.

mod common;
use common::*;

const PAYLOAD_SHARE: f64 = 1448.0 / 1500.0;

/// Downlink queue lengths (packets) sampled at or after `from_s`.
fn downlink_queue_from(r: &ccsim::Results, from_s: f64) -> Vec<f64> {
    let t = r.link_series.f64("t");
    let q = r.link_series.u64("queue_packets");
    let link = r.link_series.texts("link");
    (0..t.len()).filter(|&k| link[k] == "downlink" && t[k] >= from_s).map(|k| q[k] as f64).collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Flow `i`'s goodput in bit/s between `from_s` and `to_s`, from its delivered-bytes series.
fn goodput_between(r: &ccsim::Results, i: u32, from_s: f64, to_s: f64) -> f64 {
    let d = series(r, i, "delivered_bytes");
    let at = |t: f64| d.iter().take_while(|(s, _)| *s <= t).last().map_or(0.0, |x| x.1);
    (at(to_s) - at(from_s)) * 8.0 / (to_s - from_s)
}

/// Share of flow `i`'s samples after `from_s` in which mode variable `var` is `name`.
fn share_in_mode(r: &ccsim::Results, i: u32, var: &str, name: &str, from_s: f64) -> f64 {
    let m: Vec<_> = mode_series(r, i, var).into_iter().filter(|(t, _)| *t >= from_s).collect();
    m.iter().filter(|(_, l)| l == name).count() as f64 / m.len() as f64
}

fn copa_alone(delta: f64, competitive: bool) -> ccsim::Results {
    let c = competitive as u8;
    simulate(&format!(
        r#"{{"duration": 30, "downlink": {{"rate": "10Mbit", "delay": "20ms", "queue": {{"size": "4bdp"}}}},
             "flows": [{{"cc": "copa", "cc_params": {{"delta": {delta}, "competitive": {c}}}}}]}}"#
    ))
}

#[test]
fn copa_keeps_about_one_over_delta_packets_queued() {
    // Default mode alone (the mode switch off): the target rate 1/(delta dq)
    // at the link rate C gives dq = 1/(delta C), a queue of 1/delta packets
    // (2 and 10), around which the window oscillates by about v/delta per RTT.
    let mut means = Vec::new();
    for delta in [0.5, 0.1] {
        let r = copa_alone(delta, false);
        let q = downlink_queue_from(&r, 10.0);
        let (avg, max) = (mean(&q), q.iter().cloned().fold(0.0, f64::max));
        let util = goodput_between(&r, 0, 10.0, 30.0) / (10e6 * PAYLOAD_SHARE);
        eprintln!("copa delta {delta}: queue mean {avg:.2} max {max} packets, utilization {util:.3}");
        assert!(util > 0.9, "delta {delta}: utilization {util:.3}");
        assert!(max <= 3.0 / delta, "delta {delta}: the queue reached {max} packets");
        means.push(avg);
    }
    // Measured: 2.90 and 13.18 (the sampled queue also counts the packet in service).
    assert!((1.5..=4.0).contains(&means[0]), "delta 0.5: mean queue {:.2}", means[0]);
    assert!((8.0..=18.0).contains(&means[1]), "delta 0.1: mean queue {:.2}", means[1]);
    assert!(means[1] > 3.0 * means[0], "the queue grows with 1/delta: {means:?}");
}

#[test]
fn a_lone_copa_flow_mostly_stays_in_default_mode() {
    // With delta 0.1 the queue swings over about 20 packets and empties
    // every few RTTs: never a buffer filler. With delta 0.5 the swing is
    // about 6 packets, so "nearly empty" (10% of the swing) is within half a
    // packet of the min RTT, which pacing at 2 cwnd/RTT with delayed-ACK
    // pairs (the second of a pair waits half a packet) often misses: the
    // flow then spends part of the time in competitive mode (measured 0.66
    // of the time in default mode; see docs/algorithms-copa-vivace.md).
    let d01 = share_in_mode(&copa_alone(0.1, true), 0, "mode", "default", 10.0);
    let d05 = share_in_mode(&copa_alone(0.5, true), 0, "mode", "default", 10.0);
    eprintln!("lone copa in default mode: delta 0.1 {d01:.2}, delta 0.5 {d05:.2}");
    assert!(d01 > 0.99, "delta 0.1: default mode {d01:.3} of the time");
    assert!(d05 > 0.5, "delta 0.5: default mode {d05:.2} of the time");
}

fn copa_against_cubic(competitive: bool) -> ccsim::Results {
    let c = competitive as u8;
    simulate(&format!(
        r#"{{"duration": 60, "downlink": {{"rate": "20Mbit", "delay": "20ms", "queue": {{"size": "4bdp"}}}},
             "flows": [{{"cc": "cubic"}}, {{"cc": "copa", "cc_params": {{"competitive": {c}}}}}]}}"#
    ))
}

#[test]
fn copa_switches_to_competitive_mode_against_cubic_on_a_deep_buffer() {
    let r = copa_against_cubic(true);
    let competitive = share_in_mode(&r, 1, "mode", "competitive", 10.0);
    let inv_delta: Vec<f64> =
        series(&r, 1, "cc_delta").into_iter().filter(|x| x.0 >= 10.0).map(|x| 1.0 / x.1).collect();
    let max_inv = inv_delta.iter().cloned().fold(0.0, f64::max);
    let share = goodput_between(&r, 1, 10.0, 60.0) / (20e6 * PAYLOAD_SHARE);
    let alone = copa_against_cubic(false);
    let share_alone = goodput_between(&alone, 1, 10.0, 60.0) / (20e6 * PAYLOAD_SHARE);
    eprintln!(
        "copa vs cubic: competitive {competitive:.2} of the time, 1/delta up to {max_inv:.1}, share {share:.3} (without the switch {share_alone:.3})"
    );
    // Measured: 0.79 of the time, 1/delta up to 60, share 0.35 against 0.04.
    assert!(competitive > 0.7, "competitive {competitive:.2} of the time");
    assert!(max_inv > 4.0, "1/delta never grew: {max_inv}");
    assert!(share > 2.0 * share_alone, "share {share:.3} vs {share_alone:.3} without the switch");
}

#[test]
fn vivace_flows_converge_to_a_fair_share() {
    let r = simulate(
        r#"{"duration": 60, "downlink": {"rate": "20Mbit", "delay": "20ms", "queue": {"size": "1bdp"}},
            "flows": [{"cc": "vivace"}, {"cc": "vivace", "start": 10}]}"#,
    );
    let a = goodput_between(&r, 0, 30.0, 60.0);
    let b = goodput_between(&r, 1, 30.0, 60.0);
    let jain = (a + b).powi(2) / (2.0 * (a * a + b * b));
    let util = (a + b) / (20e6 * PAYLOAD_SHARE);
    eprintln!("vivace pair: {a:.0} and {b:.0} bit/s, Jain {jain:.3}, utilization {util:.3}");
    assert!(jain > 0.9, "Jain index {jain:.3}");
    assert!(util > 0.8, "utilization {util:.3}");
}

fn vivace_under_loss(p: f64) -> f64 {
    let r = simulate(&format!(
        r#"{{"duration": 60, "downlink": {{"rate": "100Mbit", "delay": "15ms", "queue": {{"size": "1bdp"}},
                                          "loss": {{"model": "bernoulli", "p": {p}}}}},
             "flows": [{{"cc": "vivace"}}]}}"#
    ));
    let rate = series(&r, 0, "cc_rate_bps").into_iter().filter(|x| x.0 >= 30.0).map(|x| x.1).collect::<Vec<_>>();
    mean(&rate) / 100e6
}

#[test]
fn vivace_keeps_its_rate_under_random_loss_below_its_utility_threshold() {
    // du/dx = 0.9 x^-0.1 - 11.35 p at x = 100 Mbit/s changes sign at p = 5.0%:
    // below it the utility still grows with the rate, well above it the rate
    // falls until x^-0.1 offsets the loss term (at 10%: 0.9 x^-0.1 = 1.135,
    // x = 0.1 Mbit/s, the 0.5 Mbit/s floor). Measured (rate over capacity,
    // 30 to 60 s): 0.89 at 1%, 0.50 at 3%, 0.02 at 10%. Near the threshold
    // the per-MI loss rate of about 260 packets is noisy (+-1.1% at 3%)
    // against the small utility gradient between the probes, so the rate
    // climbs slowly (a random walk with a small upward drift): in a 300 s
    // run at 3% it holds 0.79 to 0.83 of capacity from 60 s on, at 4% 0.2
    // to 0.3 (bench/today_figures.py).
    let low = vivace_under_loss(0.01);
    let mid = vivace_under_loss(0.03);
    let high = vivace_under_loss(0.10);
    eprintln!("vivace rate / capacity under random loss: 1% {low:.3}, 3% {mid:.3}, 10% {high:.3}");
    assert!(low > 0.8, "loss 1%: rate {low:.3} of capacity");
    assert!(mid > 0.3 && mid < low, "loss 3%: rate {mid:.3} of capacity");
    assert!(high < 0.1, "loss 10%: rate {high:.3} of capacity");
}
