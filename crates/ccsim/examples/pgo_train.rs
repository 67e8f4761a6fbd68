//! The training run of a profile-guided build (`scripts/build-pgo`): runs a
//! broad set of scenarios so that the compiler, built with
//! `-Cprofile-generate`, records which branches and calls the simulator takes
//! in practice, and a second build with `-Cprofile-use` lays out and inlines
//! the code for them (LLVM's instrumentation PGO, as rustc and CPython ship).
//!
//! The set is meant to look like users' runs, not like the speed suite's:
//! every registered algorithm on a clean and on a lossy path (an algorithm
//! left out would be compiled as cold code), the golden scenarios (AQM with
//! ECN, jitter with reordering, outages and timeouts, cross traffic, SACK off),
//! a link-layer ARQ link, many flows on one bottleneck, and fast dumbbells.
//! Results are discarded; only the profile counts.
//!   cargo run --release -p ccsim --example pgo_train
use ccsim::{run, Scenario};

/// The golden scenarios of crates/ccsim/tests/golden.rs, as committed.
const GOLDEN: [&str; 6] = [
    include_str!("../tests/golden/cross-traffic.json"),
    include_str!("../tests/golden/ecn-aqm-bbr.json"),
    include_str!("../tests/golden/no-sack-recovery.json"),
    include_str!("../tests/golden/reordering-jitter.json"),
    include_str!("../tests/golden/timeouts-and-outages.json"),
    include_str!("../tests/golden/two-flows-sack-loss.json"),
];

/// A dumbbell of `count` flows of `cc` over `rate` with a 1-BDP drop-tail
/// buffer, and `loss` random loss on the downlink when above zero.
fn dumbbell(cc: &str, count: u32, rate: &str, delay: &str, loss: f64, duration_s: f64) -> String {
    let ecn = ccsim::cc::lookup(cc).is_some_and(|info| info.name == "dctcp");
    let loss = if loss > 0.0 { format!(r#", "loss": {{"model": "bernoulli", "p": {loss}}}"#) } else { String::new() };
    format!(
        r#"{{"duration": {duration_s}, "seed": 1,
            "downlink": {{"rate": "{rate}", "delay": "{delay}", "queue": {{"size": "1bdp"}}{loss}}},
            "flows": [{{"cc": "{cc}", "count": {count}, "tcp": {{"ecn": {ecn}}}}}]}}"#
    )
}

fn training_set() -> Vec<(String, String)> {
    let mut set = Vec::new();
    for info in ccsim::cc::registry() {
        set.push((format!("{} clean", info.name), dumbbell(info.name, 2, "100Mbit", "20ms", 0.0, 4.0)));
        set.push((format!("{} lossy", info.name), dumbbell(info.name, 2, "20Mbit", "40ms", 0.005, 4.0)));
    }
    for (i, json) in GOLDEN.iter().enumerate() {
        set.push((format!("golden {i}"), json.to_string()));
    }
    set.push((
        "arq with jitter".into(),
        r#"{"duration": 8, "seed": 5,
            "downlink": {"rate": "20Mbit", "delay": "20ms", "queue": {"size": "100pkt"},
                         "loss": {"model": "bernoulli", "p": 0.05},
                         "arq": {"max_retries": 3, "retry_delay": "5ms", "in_order": false},
                         "jitter": {"distribution": "uniform", "min": "0ms", "max": "3ms", "reorder": true}},
            "flows": [{"cc": "cubic"}, {"cc": "bbr"}, {"cc": "newreno", "tcp": {"sack": false}}]}"#
            .into(),
    ));
    set.push(("many flows".into(), dumbbell("cubic", 128, "100Mbit", "10ms", 0.0, 4.0)));
    set.push(("1 Gbit/s cubic".into(), dumbbell("cubic", 8, "1Gbit", "10ms", 0.0, 3.0)));
    set.push(("1 Gbit/s bbr".into(), dumbbell("bbr", 4, "1Gbit", "10ms", 0.0, 2.0)));
    set
}

fn main() {
    for (name, json) in training_set() {
        let scenario = Scenario::from_json(&json).unwrap_or_else(|e| panic!("training scenario {name}: {e}"));
        let started = std::time::Instant::now();
        let r = run(&scenario);
        eprintln!("{name:<24} {:>9} events {:>6.2} s", r.events, started.elapsed().as_secs_f64());
    }
}
