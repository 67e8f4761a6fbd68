//! A run that records fewer tables is the same run: its summary tables
//! (flows, links, sources) equal those of a run recording everything, bit
//! for bit, and each table it records equals that run's. Checked on the
//! golden scenarios (cross traffic with a lossy ACK path, AQM and ECN, no
//! SACK, reordering, outages) and a UMTS-like link (rate process, ARQ,
//! outage process), which together reach every sampler.

mod common;
use ccsim::record::recorded::Recorded;
use ccsim::{run_unless_interrupted, Results, Scenario};
use std::path::Path;

const UMTS_LIKE: &str = r#"{"name": "umts-like", "duration": 30, "seed": 4,
 "downlink": {"rate_process": {"states": [{"rate": 345600, "mean_holding": 5.0}, {"rate": 57600, "mean_holding": 5.0}]},
              "delay": "150ms", "queue": {"size": "50000B"}, "loss": {"model": "bernoulli", "p": 0.1},
              "arq": {"max_retries": 4, "retry_delay": "80ms", "in_order": true},
              "outage_process": {"mean_interval": 8.0, "distribution": "uniform", "min": 1.0, "max": 2.0}},
 "uplink": {"rate": 57600, "delay": "150ms", "queue": {"size": "20pkt"}, "loss": {"model": "bernoulli", "p": 0.1},
            "arq": {"max_retries": 4, "retry_delay": "80ms", "in_order": true}},
 "flows": [{"cc": "newreno"}, {"cc": "westwood+", "access_delay": "3ms"}]}"#;

fn scenarios() -> Vec<(String, Scenario)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/golden")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out: Vec<(String, Scenario)> = files
        .iter()
        .map(|p| (p.display().to_string(), common::scenario(&std::fs::read_to_string(p).expect("a golden scenario"))))
        .collect();
    out.push(("umts-like".into(), common::scenario(UMTS_LIKE)));
    out
}

fn run(s: &Scenario, recorded: Recorded) -> Results {
    run_unless_interrupted(s, recorded, &mut |_| false).expect("not interrupted")
}

/// Every table's name, rows and Debug text (floats by their shortest
/// round-trip text, so equal text is equal bits, NaN aside, which prints alike).
fn tables(mut r: Results) -> Vec<(&'static str, usize, String)> {
    r.take_tables().into_iter().map(|(name, t)| (name, t.rows(), format!("{t:?}"))).collect()
}

#[test]
fn recording_fewer_tables_changes_no_table_it_records() {
    let choices = [
        Recorded::SUMMARIES_ONLY,
        Recorded::of_tables(["series"]).unwrap(),
        Recorded::of_tables(["rtt"]).unwrap(),
        Recorded::of_tables(["link_series", "source_series"]).unwrap(),
    ];
    for (name, s) in scenarios() {
        let full = run(&s, Recorded::ALL);
        let events = full.events;
        assert!(full.series.rows() > 0 && full.link_series.rows() > 0, "{name}: the full run samples");
        let full_tables = tables(full);
        for recorded in choices {
            let r = run(&s, recorded);
            assert_eq!(r.events, events, "{name} {recorded:?}: the same events");
            for ((table, rows, text), (_, _, full_text)) in tables(r).into_iter().zip(&full_tables) {
                if recorded.records(table) {
                    assert!(&text == full_text, "{name} {recorded:?}: the {table} table differs from the full run's");
                } else {
                    assert_eq!(rows, 0, "{name} {recorded:?}: {table} not recorded, yet has rows");
                }
            }
        }
    }
}
