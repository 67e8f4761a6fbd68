//! Property tests over random scenarios: whatever the loss, buffer, outages
//! and TCP options, the application receives every byte exactly once and in
//! order, and no flow delivers faster than the bottleneck can carry.

mod common;
use common::*;
use proptest::prelude::*;

#[allow(clippy::too_many_arguments)] // one argument per random dimension of the scenario
fn transfer_json(
    cc: &str,
    size: u64,
    loss: f64,
    buffer_pkts: u32,
    sack: bool,
    delayed_ack: bool,
    mss: u32,
    outage_at: f64,
    outage_ms: u32,
    seed: u64,
) -> String {
    format!(
        r#"{{"duration": 400, "seed": {seed},
            "downlink": {{"rate": "2Mbit", "delay": "15ms", "queue": {{"size": {buffer_pkts}}},
                          "loss": {{"model": "bernoulli", "p": {loss}}},
                          "outages": [{{"start": {outage_at}, "duration": "{outage_ms}ms"}}]}},
            "uplink": {{"rate": "2Mbit", "delay": "15ms", "queue": {{"size": 1000}}}},
            "flows": [{{"cc": "{cc}", "size": {size},
                        "tcp": {{"sack": {sack}, "delayed_ack": {delayed_ack}, "mss": {mss}}}}}]}}"#
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn every_byte_arrives_exactly_once_and_in_order(
        cc in prop::sample::select(vec!["tahoe", "reno", "newreno", "cubic"]),
        size in 1u64..400_000,
        loss in 0.0f64..0.15,
        buffer_pkts in 2u32..40,
        sack: bool,
        delayed_ack: bool,
        mss in prop::sample::select(vec![536u32, 1448, 1460]),
        outage_at in 0.0f64..3.0,
        outage_ms in 0u32..3000,
        seed in 0u64..1000,
    ) {
        let r = simulate(&transfer_json(cc, size, loss, buffer_pkts, sack, delayed_ack, mss, outage_at, outage_ms.max(1), seed));
        let delivered = r.flows.u64("delivered_bytes_total")[0];
        let completed = !r.flows.f64("completion_s")[0].is_nan();
        // In order: the receiver hands bytes over only up to its first hole, so
        // an unfinished transfer has delivered whole segments; exactly once: never more than the file.
        prop_assert!(delivered <= size, "delivered {delivered} of {size}");
        if completed {
            prop_assert_eq!(delivered, size);
        } else {
            prop_assert_eq!(delivered % mss as u64, 0);
        }
        // Light loss and a short outage must not stop a 400 s transfer of at most 400 kB.
        if loss < 0.05 {
            prop_assert!(completed, "transfer of {size} bytes did not complete");
        }
    }

    #[test]
    fn goodput_never_exceeds_capacity(
        cc in prop::sample::select(vec!["reno", "newreno", "cubic"]),
        rate_kbps in 100u64..50_000,
        delay_ms in 1u64..200,
        flows in 1u32..4,
        buffer in 0.1f64..3.0,
        seed in 0u64..1000,
    ) {
        // A queue must hold at least one packet (the scenario check refuses
        // less): slow, short paths with a small multiple of the BDP are skipped.
        let bdp_packets = rate_kbps as f64 * 1000.0 * (2 * delay_ms) as f64 / 1000.0 / 8.0 / 1500.0;
        prop_assume!(buffer * bdp_packets >= 1.1);
        let json = format!(
            r#"{{"duration": 20, "seed": {seed},
                "downlink": {{"rate": "{rate_kbps}kbit", "delay": "{delay_ms}ms", "queue": {{"size": "{buffer}bdp"}}}},
                "flows": [{{"cc": "{cc}", "count": {flows}}}]}}"#
        );
        let r = simulate(&json);
        let capacity = rate_kbps as f64 * 1000.0 * 1448.0 / 1500.0;
        let total: f64 = (0..flows as usize).map(|i| goodput_bps(&r, i)).sum();
        prop_assert!(total <= capacity * 1.0001, "goodput {total} above payload capacity {capacity}");
    }
}
