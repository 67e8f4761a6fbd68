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

/// Samples (t, value) of a link-series column for the named link.
pub fn link_series(r: &Results, link: &str, column: &str) -> Vec<(f64, f64)> {
    use ccsim::record::table::Column;
    let t = r.link_series.f64("t");
    let names = r.link_series.texts("link");
    let values: Vec<f64> = match r.link_series.get(column) {
        Some(Column::U64(v)) => v.iter().map(|x| *x as f64).collect(),
        Some(Column::F64(v)) => v.clone(),
        _ => panic!("no column {column}"),
    };
    (0..t.len()).filter(|&k| names[k] == link).map(|k| (t[k], values[k])).collect()
}

/// The state variable `var` of flow `i` at each of the flow's series rows:
/// (t, value, label), from `cc_state`, which has a row only when the value
/// changed (the value of the latest row at or before t).
pub fn state_rows<'a>(r: &'a Results, i: u32, var: &str) -> Vec<(f64, f64, &'a str)> {
    use ccsim::record::table::Column;
    let s = &r.cc_state;
    let (t, value) = (s.f64("t"), s.f64("value"));
    let (vars, labels) = (s.texts("var"), s.texts("label"));
    let Some(Column::U32(flow)) = s.get("flow") else { panic!("no flow column") };
    assert!(vars.contains(&var), "no state variable {var} in cc_state");
    let changes: Vec<usize> = (0..t.len()).filter(|&k| flow[k] == i && vars[k] == var).collect();
    let Some(Column::U32(series_flow)) = r.series.get("flow") else { panic!("no flow column") };
    let mut latest = 0;
    let mut rows = Vec::new();
    for (&at, _) in r.series.f64("t").iter().zip(series_flow).filter(|(_, f)| **f == i) {
        while latest + 1 < changes.len() && t[changes[latest + 1]] <= at {
            latest += 1;
        }
        match changes.get(latest) {
            Some(&k) if t[k] <= at => rows.push((at, value[k], labels[k])),
            _ => {}
        }
    }
    rows
}

/// Samples (t, name) of a mode variable of flow `i`'s algorithm state (`cc_state`).
pub fn mode_series(r: &Results, i: u32, var: &str) -> Vec<(f64, String)> {
    state_rows(r, i, var).into_iter().map(|(t, _, label)| (t, label.to_string())).collect()
}

/// Samples (t, value) of flow `i`: a series column, or a number of its
/// algorithm's state (`cc_state`) named `cc_<var>`.
pub fn series(r: &Results, i: u32, column: &str) -> Vec<(f64, f64)> {
    use ccsim::record::table::Column;
    if let Some(var) = column.strip_prefix("cc_") {
        return state_rows(r, i, var).into_iter().map(|(t, value, _)| (t, value)).collect();
    }
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
