//! A run's count of random draws (`Results::random_draws`) is what lets a
//! campaign run a condition once instead of once per repetition: a run that
//! drew no random number must give the same results with every seed, and a
//! scenario with any random part must draw.

mod common;
use common::simulate;

/// Every table of a run, as text (NaN equals NaN there, unlike f64's ==).
fn tables(r: &ccsim::Results) -> String {
    format!(
        "{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{}",
        r.flows, r.series, r.cc_state, r.rtt, r.links, r.link_series, r.sources, r.source_series, r.events
    )
}

fn with_seed(scenario: &str, seed: u64) -> String {
    format!(r#"{{"seed": {seed}, "duration": 8, {scenario}}}"#)
}

/// (what it is, the scenario's fields after seed and duration, whether it has a random part)
const SCENARIOS: &[(&str, &str, bool)] = &[
    (
        "clean path, cubic and reno",
        r#""downlink": {"rate": "20Mbit", "delay": "20ms", "queue": {"size": "1bdp"}}, "flows": [{"cc": "cubic"}, {"cc": "reno", "start": "1s"}]"#,
        false,
    ),
    (
        "clean path, vegas",
        r#""downlink": {"rate": "20Mbit", "delay": "20ms", "queue": {"size": "1bdp"}}, "flows": [{"cc": "vegas"}]"#,
        false,
    ),
    (
        "codel queue",
        r#""downlink": {"rate": "20Mbit", "delay": "20ms", "queue": {"kind": "codel", "size": "2bdp"}}, "flows": [{"cc": "cubic"}, {"cc": "cubic"}]"#,
        false,
    ),
    (
        "random loss",
        r#""downlink": {"rate": "20Mbit", "delay": "20ms", "loss": {"model": "bernoulli", "p": 0.01}}, "flows": [{"cc": "cubic"}]"#,
        true,
    ),
    (
        "reordering jitter",
        r#""downlink": {"rate": "20Mbit", "delay": "20ms", "jitter": {"distribution": "uniform", "min": "0ms", "max": "4ms", "reorder": true}}, "flows": [{"cc": "reno"}]"#,
        true,
    ),
    (
        "red queue",
        r#""downlink": {"rate": "20Mbit", "delay": "20ms", "queue": {"kind": "red", "size": "2bdp"}}, "flows": [{"cc": "cubic"}, {"cc": "reno"}]"#,
        true,
    ),
    (
        "web traffic",
        r#""downlink": {"rate": "20Mbit", "delay": "20ms"}, "flows": [{"cc": "cubic"}], "background": {"kind": "poisson-web", "load": 0.3, "size": {"dist": "lognormal", "mean": "50KB", "sigma": 1.0}}"#,
        true,
    ),
];

#[test]
fn a_run_without_random_draws_is_the_same_with_every_seed() {
    for (what, scenario, _) in SCENARIOS {
        let a = simulate(&with_seed(scenario, 1));
        if a.random_draws == 0 {
            for seed in [2, 1 << 40] {
                let b = simulate(&with_seed(scenario, seed));
                assert_eq!(b.random_draws, 0, "{what}: seed {seed}");
                assert_eq!(tables(&a), tables(&b), "{what}: seed {seed} changed a run that drew nothing");
            }
        }
    }
}

#[test]
fn a_scenario_draws_exactly_when_it_has_a_random_part() {
    for (what, scenario, random) in SCENARIOS {
        let r = simulate(&with_seed(scenario, 1));
        assert_eq!(r.random_draws > 0, *random, "{what}: {} draws", r.random_draws);
        if *random {
            let other = simulate(&with_seed(scenario, 2));
            assert_ne!(tables(&r), tables(&other), "{what}: another seed should change the run");
        }
    }
}
