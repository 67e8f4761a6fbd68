//! Fuzz target: any text as a Mahimahi trace must parse or give a TraceError,
//! never a panic; a parsed trace has a finite, positive mean rate.
#![no_main]

use ccsim::net::channel::trace::{parse_mahimahi, TraceConfig, MAHIMAHI_BYTES_PER_OPPORTUNITY};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(ops) = parse_mahimahi(text) {
            let config = TraceConfig::checked(ops, MAHIMAHI_BYTES_PER_OPPORTUNITY).expect("a parsed trace is valid");
            let rate = config.mean_rate_bps();
            assert!(rate.is_finite() && rate > 0.0, "{rate}");
        }
    }
});
