//! Fuzz target: any bytes as a scenario's JSON must give a scenario or a
//! ScenarioError naming a field, never a panic (overflow, index, allocation).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = ccsim::Scenario::from_json(text) {
            assert!(e.message.len() < 4096, "an error message echoes too much: {} bytes", e.message.len());
        }
    }
});
