//! Helpers shared by the integration tests: build a scenario from JSON, run
//! it, read the columns the tests check, and require an outside tool.
#![allow(dead_code)]

use ccsim::{run, Results, Scenario};

pub fn scenario(json: &str) -> Scenario {
    Scenario::from_json(json).unwrap_or_else(|e| panic!("bad test scenario: {e}"))
}

pub fn simulate(json: &str) -> Results {
    run(&scenario(json))
}

/// Goodput of flow `i` in bit/s over its active period.
pub fn goodput_bps(r: &Results, i: usize) -> f64 {
    let delivered = r.flows.u64("delivered_bytes")[i] as f64;
    let active = r.flows.f64("end_s")[i] - r.flows.f64("start_s")[i];
    delivered * 8.0 / active
}

/// Samples (t, name) of a mode column (a string column) of the series for flow `i`.
pub fn mode_series(r: &Results, i: u32, column: &str) -> Vec<(f64, String)> {
    let t = r.series.f64("t");
    use ccsim::record::table::Column;
    let (Some(Column::U32(flow)), Some(Column::Str(values))) = (r.series.get("flow"), r.series.get(column)) else {
        panic!("no mode column {column}")
    };
    (0..t.len()).filter(|&k| flow[k] == i).map(|k| (t[k], values[k].clone())).collect()
}

/// Samples (t, value) of a series column for flow `i`.
pub fn series(r: &Results, i: u32, column: &str) -> Vec<(f64, f64)> {
    use ccsim::record::table::Column;
    let t = r.series.f64("t");
    let flow = match r.series.get("flow") {
        Some(Column::U32(v)) => v.clone(),
        _ => panic!("no flow column"),
    };
    let values: Vec<f64> = match r.series.get(column) {
        Some(Column::F64(v)) => v.clone(),
        Some(Column::U32(v)) => v.iter().map(|x| *x as f64).collect(),
        Some(Column::U64(v)) => v.iter().map(|x| *x as f64).collect(),
        _ => panic!("no column {column}"),
    };
    (0..t.len()).filter(|&k| flow[k] == i).map(|k| (t[k], values[k])).collect()
}

/// Whether `program` runs (`program --version` succeeds). Without it a test
/// that needs it panics under CI=true (CI installs every tool, so a missing
/// one is a broken setup) and otherwise prints why it is skipped; the test
/// then returns early, as cargo test has no skip at run time.
pub fn require_tool(program: &str, install: &str) -> bool {
    let runs = std::process::Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success());
    if !runs {
        let reason = format!("needs {program} on the PATH ({install})");
        if std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true")) {
            panic!("{reason}; required under CI=true");
        }
        eprintln!("SKIPPED: {reason}");
    }
    runs
}
