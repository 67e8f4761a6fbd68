//! The checks the Python front end runs through the binding (trace files,
//! "did you mean" hints) say what the scenario's own validation says, so a
//! trace or a name is judged the same way whichever side sees it first.

use ccsim::cc;
use ccsim::net::channel::trace::check_opportunities;
use ccsim::suggest::did_you_mean;
use ccsim::Scenario;

fn trace_scenario(opportunities_ms: &[u64]) -> String {
    let list: Vec<String> = opportunities_ms.iter().map(u64::to_string).collect();
    format!(
        r#"{{"duration": 1, "downlink": {{"trace": {{"opportunities_ms": [{}]}}, "delay": "10ms"}},
            "flows": [{{"cc": "cubic"}}]}}"#,
        list.join(",")
    )
}

#[test]
fn a_trace_fails_the_scenario_check_as_it_fails_the_trace_check() {
    for ops in [&[][..], &[5, 3], &[1, 4, 2], &[0, 0], &[0, 2, 2, 5]] {
        let scenario = Scenario::from_json(&trace_scenario(ops));
        match check_opportunities(ops) {
            Ok(()) => assert!(scenario.is_ok(), "{ops:?}"),
            Err(e) => {
                let s = scenario.expect_err("the scenario check accepts what the trace check rejects");
                let field = "downlink.trace.opportunities_ms";
                let path = e.entry.map_or(field.to_string(), |i| format!("{field}[{i}]"));
                assert_eq!((s.path, s.message), (path, e.message), "{ops:?}");
            }
        }
    }
}

#[test]
fn an_unknown_algorithm_gets_the_hint_did_you_mean_gives() {
    let known: Vec<&str> = cc::registry().iter().map(|a| a.name).collect();
    for name in ["cubc", "Vgeas", "bbr3", "htpc", "xyzzy"] {
        let hint = did_you_mean(name, &known);
        let message = ccsim::scenario::unknown_algorithm_message(name);
        assert!(message.starts_with(&format!("unknown algorithm '{name}'{hint}; known: ")), "{message}");
    }
}
