//! Runs a scenario (JSON file given as the first argument) and prints each
//! flow's sampled cwnd, ssthresh, RTT and state: a quick look while developing.
//!   cargo run --release -p ccsim --example trace -- scenario.json [from_s] [to_s] [column,column...]
//! Extra series columns, or the algorithm's state as `cc_<var>` (e.g. `cc_dwnd,cc_diff`, from the
//! cc_state table), are printed after the fixed ones.
use ccsim::record::table::Column;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("scenario file");
    let from: f64 = args.get(2).map_or(0.0, |s| s.parse().unwrap());
    let to: f64 = args.get(3).map_or(f64::MAX, |s| s.parse().unwrap());
    let extra: Vec<String> = args.get(4).map_or(Vec::new(), |s| s.split(',').map(String::from).collect());
    let s = ccsim::Scenario::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
    let start = std::time::Instant::now();
    let r = ccsim::run(&s);
    eprintln!("{} events in {:.3} s", r.events, start.elapsed().as_secs_f64());
    let t = r.series.f64("t");
    let flows = match r.series.get("flow") {
        Some(Column::U32(v)) => v.clone(),
        _ => panic!("no flow column"),
    };
    let col = |name: &str| -> Vec<f64> {
        if let Some(var) = name.strip_prefix("cc_") {
            // The state rows of `var`, by (t, flow): one per series row of a flow whose algorithm has it.
            let (st, sv, vars) = (r.cc_state.f64("t"), r.cc_state.f64("value"), r.cc_state.texts("var"));
            let Some(Column::U32(sf)) = r.cc_state.get("flow") else { panic!("no flow column in cc_state") };
            let by_row: std::collections::HashMap<(u64, u32), f64> =
                (0..st.len()).filter(|&k| vars[k] == var).map(|k| ((st[k].to_bits(), sf[k]), sv[k])).collect();
            return (0..t.len())
                .map(|k| by_row.get(&(t[k].to_bits(), flows[k])).copied().unwrap_or(f64::NAN))
                .collect();
        }
        match r.series.get(name) {
            Some(Column::F64(v)) => v.clone(),
            Some(Column::U32(v)) => v.iter().map(|x| *x as f64).collect(),
            Some(Column::U64(v)) => v.iter().map(|x| *x as f64).collect(),
            _ => vec![f64::NAN; t.len()],
        }
    };
    let (flow, cwnd, ssth, srtt, infl, state, deliv) = (
        col("flow"),
        col("cwnd"),
        col("ssthresh"),
        col("srtt_ms"),
        col("in_flight"),
        col("ca_state"),
        col("delivered_bytes"),
    );
    let extra_cols: Vec<Vec<f64>> = extra.iter().map(|name| col(name)).collect();
    for k in 0..t.len() {
        if t[k] >= from && t[k] <= to {
            print!(
                "{:8.3} f{} cwnd {:6} ssth {:6} srtt {:8.2} infl {:6} st {} deliv {}",
                t[k], flow[k], cwnd[k], ssth[k], srtt[k], infl[k], state[k], deliv[k]
            );
            for (name, c) in extra.iter().zip(&extra_cols) {
                print!(" {name} {:.2}", c[k]);
            }
            println!();
        }
    }
    for (name, c) in &r.flows.columns {
        println!("{name}: {c:?}");
    }
    for (name, c) in &r.links.columns {
        println!("link {name}: {c:?}");
    }
}
