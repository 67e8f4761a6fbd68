//! The per-run metrics of the flows and links tables as the core defines
//! them (ccsim::record::summary, record::rtt_stats), column by column, for
//! tables that come without them: the kernel emulator's. Python computes no
//! per-run metric of its own, so a kernel-mode table and a simulated one
//! read the same definitions (the same RTT sketch included).

use ccsim::net::channel::trace::TraceConfig;
use ccsim::net::packet::payload_share;
use ccsim::record::rtt_stats::{add_columns as add_rtt_columns, RttStats};
use ccsim::record::summary::{self, FlowCounters};
use ccsim::record::table::Table;
use ccsim::time::nanos;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeMap;

use crate::arrow_table::ArrowTable;

/// Column `name` of a dict of equally long columns, as floats.
fn column(table: &Bound<'_, PyDict>, name: &str, rows: Option<usize>) -> PyResult<Vec<f64>> {
    let values: Vec<f64> = match table.get_item(name)? {
        Some(c) => c.extract()?,
        None => return Err(PyValueError::new_err(format!("the table has no column {name}"))),
    };
    match rows {
        Some(n) if n != values.len() => {
            Err(PyValueError::new_err(format!("column {name} has {} rows, not {n}", values.len())))
        }
        _ => Ok(values),
    }
}

/// A counter given as a float (the kernel's tables hold NaN for one the
/// running kernel does not report): None then.
fn count(value: f64) -> Option<u64> {
    (!value.is_nan()).then_some(value as u64)
}

/// The counter columns `flow_metrics` reads, in FlowCounters' order (the
/// binding exports them: Python names them from here).
pub const FLOW_COUNTER_COLUMNS: [&str; 8] = [
    "start_s",
    "end_s",
    "completion_s",
    "delivered_bytes",
    "bytes_sent",
    "retransmitted_segments",
    "segments_sent",
    "timeouts",
];

/// The flows table's per-flow metrics (record::summary::add_flow_columns:
/// active_s, goodput_bps, throughput_bps, retrans_pct, timeouts_per_100s)
/// from its counter columns (a dict: start_s, end_s, completion_s,
/// delivered_bytes, bytes_sent, retransmitted_segments, segments_sent,
/// timeouts; timeouts NaN where the kernel does not count them).
#[pyfunction]
pub fn flow_metrics(flows: &Bound<'_, PyDict>) -> PyResult<ArrowTable> {
    let [start_name, rest @ ..] = FLOW_COUNTER_COLUMNS;
    let start = column(flows, start_name, None)?;
    let rows = Some(start.len());
    let [end, completion, delivered, sent, retransmitted, segments, timeouts] =
        rest.map(|name| column(flows, name, rows));
    let (end, completion, delivered, sent) = (end?, completion?, delivered?, sent?);
    let (retransmitted, segments, timeouts) = (retransmitted?, segments?, timeouts?);
    let counters: Vec<FlowCounters> = (0..start.len())
        .map(|i| FlowCounters {
            start_s: start[i],
            end_s: end[i],
            completion_s: completion[i],
            delivered_bytes: delivered[i] as u64,
            bytes_sent: sent[i] as u64,
            retransmitted_segments: retransmitted[i] as u64,
            segments_sent: segments[i] as u64,
            timeouts: count(timeouts[i]),
        })
        .collect();
    let mut table = Table::new();
    summary::add_flow_columns(&mut table, &counters);
    ArrowTable::from_table(table)
}

/// The flows table's RTT statistics (rtt_samples, rtt_mean_ms, ...,
/// queuing_mean_ms: record::rtt_stats::add_columns) of each flow id of
/// `flows`, from per-ACK samples given as two columns, `sample_flow` and
/// `rtt_ms`, in time order: each flow's samples go through the simulator's
/// RttStats, so its percentiles come from the same sketch.
#[pyfunction]
pub fn rtt_stats(flows: Vec<i64>, sample_flow: Vec<i64>, rtt_ms: Vec<f64>) -> PyResult<ArrowTable> {
    if sample_flow.len() != rtt_ms.len() {
        return Err(PyValueError::new_err("sample_flow and rtt_ms differ in length"));
    }
    let mut by_flow: BTreeMap<i64, RttStats> = flows.iter().map(|&f| (f, RttStats::default())).collect();
    for (f, &ms) in sample_flow.iter().zip(&rtt_ms) {
        if let Some(stats) = by_flow.get_mut(f) {
            stats.add(ms);
        }
    }
    by_flow.values_mut().for_each(RttStats::flush);
    let stats: Vec<RttStats> = flows.iter().map(|f| by_flow[f].clone()).collect();
    let mut table = Table::new();
    add_rtt_columns(&mut table, &stats);
    ArrowTable::from_table(table)
}

/// The names of the flows table's RTT statistics, in order.
pub fn rtt_stat_columns() -> Vec<String> {
    let mut table = Table::new();
    add_rtt_columns(&mut table, &[]);
    table.columns.into_iter().map(|(name, _)| name).collect()
}

/// The flows table's metric columns, named by the core (summary::add_flow_columns).
pub fn flow_metric_columns() -> Vec<String> {
    let mut table = Table::new();
    summary::add_flow_columns(&mut table, &[]);
    table.columns.into_iter().map(|(name, _)| name).collect()
}

/// The links table's metric columns, named by the core (summary::add_link_columns).
pub fn link_metric_columns() -> Vec<String> {
    let mut table = Table::new();
    summary::add_link_columns(&mut table, &[]);
    table.columns.into_iter().map(|(name, _)| name).collect()
}

/// The links table's metrics (offered_rate_bps, capacity_bps, goodput_bps,
/// utilization, nominal_utilization) as the simulator computes them, for a
/// links table without them. Per link: `rate_bps` (its nominal rate, or a
/// rate process's long-run mean), `traces` (a trace's opportunities in ms
/// and bytes per opportunity, or None) and `crossing` (the rows of the flows
/// whose data crosses it); `flows`: a dict of columns start_s, active_s,
/// delivered_bytes, mss, timestamps; `duration_s`: the run's (the window of
/// a link no flow's data crosses). A link offers, over its flows' window
/// (summary::link_window), a trace's opportunities then, otherwise its
/// `rate_bps`.
#[pyfunction]
pub fn link_metrics(
    rate_bps: Vec<f64>,
    traces: Vec<Option<(Vec<u64>, u32)>>,
    crossing: Vec<Vec<usize>>,
    flows: &Bound<'_, PyDict>,
    duration_s: f64,
) -> PyResult<ArrowTable> {
    if traces.len() != rate_bps.len() || crossing.len() != rate_bps.len() {
        return Err(PyValueError::new_err("rate_bps, traces and crossing differ in length"));
    }
    let start = column(flows, "start_s", None)?;
    let rows = Some(start.len());
    let [active, delivered, mss, timestamps] =
        ["active_s", "delivered_bytes", "mss", "timestamps"].map(|name| column(flows, name, rows));
    let (active, delivered, mss, timestamps) = (active?, delivered?, mss?, timestamps?);
    if let Some(&row) = crossing.iter().flatten().find(|&&row| row >= start.len()) {
        return Err(PyValueError::new_err(format!("no flow at row {row}")));
    }
    let mut rates = Vec::with_capacity(rate_bps.len());
    for ((&rate, trace), rows) in rate_bps.iter().zip(traces).zip(&crossing) {
        let trace = match trace {
            Some((opportunities_ms, bytes)) => {
                Some(TraceConfig::checked(opportunities_ms, bytes).map_err(|e| PyValueError::new_err(e.to_string()))?)
            }
            None => None,
        };
        let flows = rows
            .iter()
            .map(|&i| (payload_share(mss[i] as u32, timestamps[i] != 0.0), start[i], active[i], delivered[i] as u64));
        rates.push(summary::link_rates(flows, |window| {
            let (from, to) = window.map_or((0, nanos(duration_s)), |(from, to)| (nanos(from), nanos(to)));
            trace.map_or(rate, |t| t.window_rate_bps(from, to))
        }));
    }
    let mut table = Table::new();
    summary::add_link_columns(&mut table, &rates);
    ArrowTable::from_table(table)
}
