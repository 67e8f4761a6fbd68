//! Whole-simulator behaviour of the TCP model and the first algorithms:
//! the checks issue 2 lists (utilization and sawtooth, the Mathis model,
//! timeouts with backoff, fairness, determinism).

mod common;
use common::*;

#[test]
fn newreno_fills_a_one_bdp_pipe_with_a_sawtooth() {
    let r = simulate(r#"{"duration": 60, "downlink": {"rate": "10Mbit", "delay": "50ms", "queue": {"size": "1bdp"}},
                        "flows": [{"cc": "newreno"}]}"#);
    let capacity = 10e6 * 1448.0 / 1500.0; // payload share of the wire
    let util = goodput_bps(&r, 0) / capacity;
    assert!(util >= 0.95, "utilization {util:.3}");
    // Sawtooth: each reduction after slow start sets ssthresh to half the
    // window it had reached (Reno's multiplicative decrease).
    let cwnd = series(&r, 0, "cwnd");
    let ssthresh = series(&r, 0, "ssthresh");
    let state = series(&r, 0, "ca_state");
    let (mut peak, mut cuts) = (0.0f64, 0);
    for k in 1..cwnd.len() {
        peak = peak.max(cwnd[k - 1].1);
        let entered_recovery = state[k].1 == 3.0 && state[k - 1].1 != 3.0;
        if entered_recovery {
            if cwnd[k].0 > 5.0 {
                let ratio = ssthresh[k].1 / peak;
                assert!((0.45..=0.55).contains(&ratio), "ssthresh {} after a peak of {peak}", ssthresh[k].1);
                cuts += 1;
            }
            peak = 0.0;
        }
    }
    assert!(cuts >= 3, "expected a sawtooth, saw {cuts} reductions");
}
