//! Whole-simulator signature behaviour of today's schemes: the PIE AQM
//! (RFC 8033), TCP Prague on a DualPI2 bottleneck (RFC 9330-9332) and BBRv3
//! (draft-cardwell-ccwg-bbr). Each test checks what distinguishes the scheme,
//! against the number its reference states.

mod common;
use ccsim::Results;
use common::*;

fn after(v: &[(f64, f64)], t0: f64) -> Vec<f64> {
    v.iter().filter(|(t, _)| *t >= t0 && !t.is_nan()).map(|(_, x)| *x).filter(|x| !x.is_nan()).collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Bytes flow `i` delivered between `t0` and `t1` (from the sampled series).
fn delivered_between(r: &Results, i: u32, t0: f64, t1: f64) -> f64 {
    let d = series(r, i, "delivered_bytes");
    let at = |t: f64| d.iter().rfind(|(s, _)| *s <= t).map_or(0.0, |(_, v)| *v);
    at(t1) - at(t0)
}

/// RFC 8033 section 4: PIE drives the queueing delay to its target (15 ms)
/// whatever the buffer; a drop-tail buffer of the same size stays full.
#[test]
fn pie_holds_the_queueing_delay_of_several_cubic_flows_near_its_target() {
    let run = |kind: &str| {
        simulate(&format!(
            r#"{{"duration": 30, "seed": 3, "downlink": {{"rate": "20Mbit", "delay": "10ms", "queue": {{"kind": "{kind}", "size": "1000pkt"}}}},
                "flows": [{{"cc": "cubic"}}, {{"cc": "cubic", "start": 1}}, {{"cc": "cubic", "start": 2}}, {{"cc": "cubic", "start": 3}}]}}"#
        ))
    };
    let pie = run("pie");
    let sojourn = mean(&after(&link_series(&pie, "downlink", "sojourn_ms"), 10.0));
    eprintln!("pie: mean queueing delay {sojourn:.1} ms, early drops {}", pie.links.u64("aqm_drops")[0]);
    assert!((8.0..25.0).contains(&sojourn), "PIE mean queueing delay {sojourn:.1} ms, target 15 ms");
    assert!(pie.links.u64("aqm_drops")[0] > 50, "PIE dropped early {}", pie.links.u64("aqm_drops")[0]);
    let total: f64 = (0..4).map(|i| goodput_bps(&pie, i)).sum();
    assert!(total > 0.85 * 20e6 * 1448.0 / 1500.0, "PIE goodput {total}");
    let droptail = run("droptail");
    let full = mean(&after(&link_series(&droptail, "downlink", "sojourn_ms"), 10.0));
    assert!(full > 4.0 * sojourn, "drop-tail {full:.1} ms vs PIE {sojourn:.1} ms");
}

/// RFC 9331 4.3 / the L4S team's tcp_prague.c: on a step-marking queue,
/// Prague answers marks with cwnd -= cwnd alpha/2 once per round and holds
/// the queue near the threshold with a small alpha, not Reno's halving.
#[test]
fn prague_keeps_a_shallow_queue_with_a_small_alpha_on_dualpi2() {
    let r = simulate(
        r#"{"duration": 10, "downlink": {"rate": "50Mbit", "delay": "10ms", "queue": {"kind": "dualpi2"}},
            "flows": [{"cc": "prague"}]}"#,
    );
    let sojourn = mean(&after(&link_series(&r, "downlink", "sojourn_ms"), 3.0));
    eprintln!(
        "prague on dualpi2: sojourn {sojourn:.2} ms, marks {}, goodput {:.1} Mbit/s, alpha {:.3}",
        r.links.u64("ecn_marks")[0],
        goodput_bps(&r, 0) / 1e6,
        mean(&after(&series(&r, 0, "cc_alpha"), 3.0))
    );
    assert!(sojourn < 2.0, "L queue delay {sojourn:.2} ms (step threshold 1 ms)");
    assert_eq!(r.links.u64("queue_drops")[0], 0);
    assert!(r.links.u64("ecn_marks")[0] > 100);
    assert!(goodput_bps(&r, 0) > 0.9 * 50e6 * 1448.0 / 1500.0, "goodput {}", goodput_bps(&r, 0));
    let alpha = mean(&after(&series(&r, 0, "cc_alpha"), 3.0));
    assert!(alpha > 0.005 && alpha < 0.5, "alpha {alpha}");
}

/// RFC 9332 section 2.1: with k = 2 the coupling gives a Classic (cubic) and
/// an L4S (prague) flow of the same base RTT roughly equal windows, so rates
/// within the ratio of their RTTs (cubic's includes the Classic queue's 15 ms).
#[test]
fn prague_and_cubic_share_a_dualpi2_bottleneck_roughly_evenly() {
    let r = simulate(
        r#"{"duration": 40, "seed": 1, "downlink": {"rate": "40Mbit", "delay": "10ms", "queue": {"kind": "dualpi2"}},
            "flows": [{"cc": "prague"}, {"cc": "cubic", "tcp": {"ecn": true}}]}"#,
    );
    let prague = delivered_between(&r, 0, 10.0, 40.0);
    let cubic = delivered_between(&r, 1, 10.0, 40.0);
    let ratio = prague / cubic;
    eprintln!("prague/cubic rate ratio {ratio:.2}");
    assert!((0.4..2.5).contains(&ratio), "prague/cubic {ratio:.2}");
    let total = (prague + cubic) * 8.0 / 30.0;
    assert!(total > 0.9 * 40e6 * 1448.0 / 1500.0, "total {total}");
}

/// The PROBE_BW phases as traced, with consecutive repeats folded.
fn phase_sequence(r: &Results, i: u32) -> Vec<String> {
    let modes = mode_series(r, i, "mode");
    let phases = mode_series(r, i, "phase");
    let mut seq: Vec<String> = Vec::new();
    for ((_, m), (_, p)) in modes.iter().zip(&phases) {
        if m == "probe_bw" && seq.last() != Some(p) {
            seq.push(p.clone());
        }
    }
    seq
}

/// draft-cardwell-ccwg-bbr 4.3.3: PROBE_BW cycles DOWN, CRUISE, REFILL, UP.
#[test]
fn bbr3_cycles_through_the_four_probe_bw_phases_in_order() {
    let r = simulate(
        r#"{"duration": 30, "record": {"interval": "2ms"}, "downlink": {"rate": "20Mbit", "delay": "10ms", "queue": {"size": "2bdp"}},
            "flows": [{"cc": "bbr3"}]}"#,
    );
    let seq = phase_sequence(&r, 0);
    eprintln!("bbr3 phases: {:?}", &seq[..seq.len().min(12)]);
    assert!(seq.len() >= 8, "{seq:?}");
    let next = |p: &str| match p {
        "down" => ["cruise", "refill"],
        "cruise" => ["refill", "refill"],
        "refill" => ["up", "up"],
        _ => ["down", "down"],
    };
    for w in seq.windows(2) {
        assert!(next(&w[0]).contains(&w[1].as_str()), "{} then {}: {seq:?}", w[0], w[1]);
    }
    for p in ["up", "down", "cruise", "refill"] {
        assert!(seq.iter().any(|s| s == p), "{p} never seen: {seq:?}");
    }
    assert!(goodput_bps(&r, 0) > 0.9 * 20e6 * 1448.0 / 1500.0, "goodput {}", goodput_bps(&r, 0));
}

/// draft-cardwell-ccwg-bbr 4.5.10.2 (BBRLossThresh = 2%): a probe whose
/// round lost more than 2% of its flight cuts inflight_hi to about the
/// flight (at least beta = 0.7 of the BDP); random loss well below 2% of a
/// round (0.2% of a 167-packet flight: 0.3 packets against 3.3) leaves it unset.
#[test]
fn bbr3_cuts_inflight_hi_after_a_round_with_loss_above_two_percent() {
    let run = |p: f64| {
        simulate(&format!(
            r#"{{"duration": 20, "seed": 2, "downlink": {{"rate": "100Mbit", "delay": "10ms", "queue": {{"size": "10bdp"}}, "loss": {{"model": "bernoulli", "p": {p}}}}},
                "flows": [{{"cc": "bbr3"}}]}}"#
        ))
    };
    let bdp = 100e6 / 8.0 / 1500.0 * 0.02;
    let hi = |r: &Results| after(&series(r, 0, "cc_inflight_hi"), 5.0);
    let h = hi(&run(0.05));
    let mut finite: Vec<f64> = h.iter().copied().filter(|x| x.is_finite()).collect();
    finite.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = finite.get(finite.len() / 2).copied().unwrap_or(f64::NAN);
    eprintln!("5% loss: inflight_hi set in {} of {} samples, median {median:.1} (BDP {bdp:.1})", finite.len(), h.len());
    assert!(finite.len() as f64 > 0.9 * h.len() as f64, "inflight_hi was never cut under 5% loss");
    assert!(median < 1.5 * bdp, "inflight_hi median {median:.1}, BDP {bdp:.1}");
    let hc = hi(&run(0.002));
    let cut = hc.iter().filter(|x| x.is_finite()).count();
    eprintln!("0.2% loss: inflight_hi set in {cut} of {} samples", hc.len());
    assert!(cut < hc.len() / 2, "0.2% loss (below 2%) cut inflight_hi: {cut} of {}", hc.len());
}

/// draft-cardwell-ccwg-bbr 4.3.4 (BBRProbeRTTInterval = 5 s, cwnd
/// BBRProbeRTTCwndGain = 0.5 BDP): a bulk flow that keeps a queue enters
/// PROBE_RTT about every 5 s and halves its window there (v1: every 10 s, 4 packets).
#[test]
fn bbr3_probes_rtt_every_five_seconds_at_half_the_bdp() {
    let r = simulate(
        r#"{"duration": 32, "record": {"interval": "5ms"}, "downlink": {"rate": "20Mbit", "delay": "10ms", "queue": {"size": "2bdp"}},
            "flows": [{"cc": "bbr3"}]}"#,
    );
    let modes = mode_series(&r, 0, "mode");
    let cwnd = series(&r, 0, "cwnd");
    let mut entries = Vec::new();
    let mut min_cwnd_in_probe = f64::INFINITY;
    for (k, (t, m)) in modes.iter().enumerate() {
        if m == "probe_rtt" {
            if k == 0 || modes[k - 1].1 != "probe_rtt" {
                entries.push(*t);
            }
            min_cwnd_in_probe = min_cwnd_in_probe.min(cwnd[k].1);
        }
    }
    let gaps: Vec<f64> = entries.windows(2).map(|w| w[1] - w[0]).collect();
    eprintln!("bbr3 PROBE_RTT at {entries:?}, cwnd there {min_cwnd_in_probe}");
    assert!(entries.len() >= 5, "{entries:?}");
    assert!(gaps.iter().all(|g| (4.9..5.6).contains(g)), "gaps {gaps:?}");
    let bdp = 20e6 / 8.0 / 1500.0 * 0.02;
    assert!((0.4 * bdp..=0.65 * bdp).contains(&min_cwnd_in_probe), "cwnd {min_cwnd_in_probe}, BDP {bdp:.1}");
}
