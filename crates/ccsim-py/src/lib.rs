//! Python bindings of ccsim, the `ccbench._ccsim` module. Deliberately thin:
//! one call runs one scenario (with the GIL released) and returns its tables
//! as Arrow record batches (arrow_table.rs); a few more hand Python the facts the core owns
//! (Mahimahi trace parsing and checks, the payload share of a segment, the
//! per-run metrics of tables that come without them: per_run.rs, "did you
//! mean" hints) so they are defined once. Everything a person touches
//! lives in Python.

use ccsim::cc::{Param, StateKind};
use ccsim::net::channel::trace::{self, TraceConfig, MAHIMAHI_BYTES_PER_OPPORTUNITY};
use ccsim::scenario::shared_traces::{with_shared_traces, STAND_IN_PREFIX};
use ccsim::{Recorded, Scenario};
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::sync::Arc;

mod arrow_table;
mod per_run;
use arrow_table::ArrowTable;

pyo3::create_exception!(_ccsim, ScenarioError, PyValueError, "A scenario field is invalid.");
pyo3::create_exception!(_ccsim, TraceError, PyValueError, "A trace that cannot be used.");

fn scenario_error(e: ccsim::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    Python::with_gil(|py| {
        let v = err.value(py);
        let _ = v.setattr("path", e.path.clone());
        let _ = v.setattr("detail", e.message.clone());
    });
    err
}

/// `entry`: index of the offending timestamp (a file's line entry + 1) or None; `detail`: what is wrong.
fn trace_error(e: trace::TraceError) -> PyErr {
    let err = TraceError::new_err(e.to_string());
    Python::with_gil(|py| {
        let v = err.value(py);
        let _ = v.setattr("entry", e.entry);
        let _ = v.setattr("detail", e.message.clone());
    });
    err
}

/// A trace's opportunities (milliseconds) read once, to be handed to `run`
/// with each scenario over it instead of written into every scenario's text.
#[pyclass(frozen, module = "ccbench._ccsim")]
struct SharedTrace(Arc<[u64]>);

#[pymethods]
impl SharedTrace {
    /// From a list (a traces.Opportunities), read item by item as the list
    /// holds them (not through its iterator); a number that is no u64 is an
    /// OverflowError or TypeError.
    #[new]
    fn new(opportunities_ms: &Bound<'_, PyList>) -> PyResult<SharedTrace> {
        let read: PyResult<Vec<u64>> = opportunities_ms.iter().map(|ms| ms.extract::<u64>()).collect();
        Ok(SharedTrace(read?.into()))
    }

    fn __len__(&self) -> usize {
        self.0.len()
    }
}

/// Checks a scenario given as JSON; returns it with every default filled in
/// (JSON). `traces`: as `run`'s; each keeps its stand-in in what is returned.
#[pyfunction]
#[pyo3(signature = (json, traces = None))]
fn validate(json: &str, traces: Option<Vec<Py<SharedTrace>>>) -> PyResult<String> {
    with_shared_traces(shared(traces), || {
        let s = Scenario::from_json(json).map_err(scenario_error)?;
        serde_json::to_string(&s).map_err(|e| PyValueError::new_err(e.to_string()))
    })
}

/// The traces a caller handed over, for `with_shared_traces`.
fn shared(traces: Option<Vec<Py<SharedTrace>>>) -> Vec<Arc<[u64]>> {
    traces.unwrap_or_default().iter().map(|t| t.get().0.clone()).collect()
}

/// Runs a scenario given as JSON; returns a dict of tables (ArrowTable:
/// `pyarrow.record_batch(t)` reads one without copying) and a few run facts.
/// A packet capture (`record.pcap.path`, a relative name) is written under
/// `capture_dir` (default: the working directory). `progress`, if given, is
/// called with the simulated seconds reached every INTERRUPT_CHECK_EVENTS
/// events (an exception it raises stops the run and is raised here).
/// `tables`, if given, names the sampled tables to record (ccsim::Recorded):
/// the dict has only those and the summaries (flows, links, sources), which
/// are the same as a run recording everything gives. The normalized
/// scenario is `validate`'s: a caller that has it (from `validate`, whose
/// output reads back to itself) does not pay for writing it again, which
/// for a trace is megabytes of numbers per run. `traces`: traces read once
/// (SharedTrace) that the scenario's `"opportunities_ms": "shared:N"` stand
/// for (ccsim::scenario::shared_traces).
#[pyfunction]
#[pyo3(signature = (json, capture_dir = None, progress = None, tables = None, traces = None))]
fn run<'py>(
    py: Python<'py>,
    json: &str,
    capture_dir: Option<std::path::PathBuf>,
    progress: Option<Py<PyAny>>,
    tables: Option<Vec<String>>,
    traces: Option<Vec<Py<SharedTrace>>>,
) -> PyResult<Bound<'py, PyDict>> {
    let recorded = match &tables {
        Some(names) => Recorded::of_tables(names.iter().map(String::as_str)).map_err(PyValueError::new_err)?,
        None => Recorded::ALL,
    };
    let mut s = with_shared_traces(shared(traces), || Scenario::from_json(json)).map_err(scenario_error)?;
    if let (Some(dir), Some(pcap)) = (capture_dir, s.record.pcap.as_mut()) {
        pcap.path = dir.join(&pcap.path).to_string_lossy().into_owned();
    }
    let started = std::time::Instant::now();
    // Every INTERRUPT_CHECK_EVENTS events the core asks whether to stop: the
    // GIL is taken briefly to run Python's signal handlers, so Ctrl-C raises
    // KeyboardInterrupt here instead of waiting for the end of the run, and
    // to report the simulated time to `progress`.
    let mut pending: Option<PyErr> = None;
    let finished = py.allow_threads(|| {
        ccsim::run_unless_interrupted(&s, recorded, &mut |now_ns| {
            Python::with_gil(|py| {
                py.check_signals()?;
                match &progress {
                    Some(f) => f.call1(py, (now_ns as f64 / 1e9,)).map(drop),
                    None => Ok(()),
                }
            })
            .map_err(|e| pending = Some(e))
            .is_err()
        })
    });
    let mut r = match (finished, pending) {
        (Some(r), _) => r,
        (None, pending) => return Err(pending.unwrap_or_else(|| PyKeyboardInterrupt::new_err("run interrupted"))),
    };
    let wall = started.elapsed().as_secs_f64();
    let d = PyDict::new(py);
    for (name, table) in r.take_tables() {
        if r.recorded.records(name) {
            d.set_item(name, ArrowTable::from_table(table)?)?;
        }
    }
    match r.pcap {
        Some(p) => {
            let pd = PyDict::new(py);
            pd.set_item("path", p.path)?;
            pd.set_item("packets", p.packets)?;
            pd.set_item("error", p.error)?;
            d.set_item("pcap", pd)?;
        }
        None => d.set_item("pcap", py.None())?,
    }
    d.set_item("events", r.events)?;
    d.set_item("random_draws", r.random_draws)?;
    d.set_item("duration_s", r.duration as f64 / 1e9)?;
    d.set_item("wall_seconds", wall)?;
    Ok(d)
}

/// The schedule of a scenario's `[background]` as the simulator offers it
/// (sim::background_schedule), for kernel mode: a dict of two byte strings of
/// little-endian u64 pairs, "transfers" (start ns, payload bytes) and
/// "datagrams" (send ns, bytes on the wire), in time order, and the source's
/// counts "transfers_started" and "transfers_finished"; None without one.
#[pyfunction]
fn background_schedule<'py>(py: Python<'py>, json: &str) -> PyResult<Option<Bound<'py, PyDict>>> {
    let s = Scenario::from_json(json).map_err(scenario_error)?;
    let Some(schedule) = py.allow_threads(|| ccsim::sim::background_schedule(&s)) else { return Ok(None) };
    let packed = |pairs: Vec<(u64, u64)>| -> Vec<u8> {
        pairs.into_iter().flat_map(|(a, b)| a.to_le_bytes().into_iter().chain(b.to_le_bytes())).collect()
    };
    let datagrams = schedule.datagrams.iter().map(|&(t, b)| (t, b as u64)).collect();
    let d = PyDict::new(py);
    d.set_item("transfers", PyBytes::new(py, &packed(schedule.transfers)))?;
    d.set_item("datagrams", PyBytes::new(py, &packed(datagrams)))?;
    d.set_item("transfers_started", schedule.transfers_started)?;
    d.set_item("transfers_finished", schedule.transfers_finished)?;
    Ok(Some(d))
}

/// The JSON Schema of scenario files (draft-07), as JSON text.
#[pyfunction]
fn scenario_schema() -> String {
    ccsim::scenario::json_schema::scenario_json_schema().to_string()
}

/// Every algorithm: name, reference, summary, role (and what it requires of the path), its Linux
/// module (mainline or not, or why there is none) and ns-3 TypeId, parameters and traced state.
#[pyfunction]
fn algorithms<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for info in ccsim::cc::registry() {
        let d = PyDict::new(py);
        d.set_item("name", info.name)?;
        d.set_item("reference", info.reference)?;
        d.set_item("summary", info.summary)?;
        d.set_item("role", info.role.name())?;
        d.set_item("requires", info.role.requires().to_vec())?;
        d.set_item("linux_module", info.linux.name())?;
        d.set_item("linux_mainline", matches!(info.linux, ccsim::cc::LinuxModule::Mainline(_)))?;
        d.set_item("linux_note", info.linux.note())?;
        d.set_item("ns3", info.ns3)?;
        let params = PyList::empty(py);
        for p in info.params {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name())?;
            pd.set_item("kind", p.kind())?;
            match p {
                Param::Float(f) => {
                    pd.set_item("default", f.default)?;
                    pd.set_item("min", f.min)?;
                    pd.set_item("max", f.max)?;
                }
                Param::Int(i) => {
                    pd.set_item("default", i.default)?;
                    pd.set_item("min", i.min)?;
                    pd.set_item("max", i.max)?;
                }
                Param::Bool(b) => {
                    pd.set_item("default", b.default)?;
                    pd.set_item("min", py.None())?;
                    pd.set_item("max", py.None())?;
                }
            }
            pd.set_item("doc", p.doc())?;
            params.append(pd)?;
        }
        d.set_item("params", params)?;
        let state = PyList::empty(py);
        for v in info.state {
            let sd = PyDict::new(py);
            sd.set_item("name", v.name)?;
            match v.kind {
                StateKind::Float { unit } => {
                    sd.set_item("kind", "float")?;
                    sd.set_item("unit", unit)?;
                }
                StateKind::Integer { unit } => {
                    sd.set_item("kind", "integer")?;
                    sd.set_item("unit", unit)?;
                }
                StateKind::Mode { names } => {
                    sd.set_item("kind", "mode")?;
                    sd.set_item("names", names.to_vec())?;
                }
            }
            state.append(sd)?;
        }
        d.set_item("state", state)?;
        out.append(d)?;
    }
    Ok(out)
}

/// Every kernel preset (`tcp.kernel`): name, the `tcp` fields and cc
/// parameters it sets with their kernel sources, and what ccbench does not
/// model of those releases.
#[pyfunction]
fn kernels<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let presets = PyList::empty(py);
    for k in ccsim::scenario::kernel_presets::PRESETS {
        let d = PyDict::new(py);
        d.set_item("name", k.name)?;
        let sets = PyList::empty(py);
        for v in k.tcp {
            sets.append((v.field, v.value.display(), v.source))?;
        }
        for &(cc, param, value, source) in k.cc_params {
            sets.append((format!("{cc}.{param}"), format!("{value}"), source))?;
        }
        d.set_item("sets", sets)?;
        presets.append(d)?;
    }
    let out = PyDict::new(py);
    out.set_item("presets", presets)?;
    out.set_item("not_modelled", ccsim::scenario::kernel_presets::NOT_MODELLED.to_vec())?;
    Ok(out)
}

/// The millisecond timestamps of a Mahimahi trace file's text, checked;
/// raises TraceError.
#[pyfunction]
fn parse_mahimahi_trace(text: &str) -> PyResult<Vec<u64>> {
    trace::parse_mahimahi(text).map_err(trace_error)
}

/// Mean capacity of a trace over one period, in bit/s; raises TraceError.
#[pyfunction]
#[pyo3(signature = (opportunities_ms, bytes_per_opportunity = MAHIMAHI_BYTES_PER_OPPORTUNITY))]
fn trace_mean_rate_bps(opportunities_ms: Vec<u64>, bytes_per_opportunity: u32) -> PyResult<f64> {
    Ok(TraceConfig::checked(opportunities_ms, bytes_per_opportunity).map_err(trace_error)?.mean_rate_bps())
}

/// Mean capacity of a trace over (`from_s`, `to_s`] seconds of a run, in
/// bit/s (what a link's utilization is measured against); raises TraceError.
#[pyfunction]
#[pyo3(signature = (opportunities_ms, from_s, to_s, bytes_per_opportunity = MAHIMAHI_BYTES_PER_OPPORTUNITY))]
fn trace_window_rate_bps(
    opportunities_ms: Vec<u64>,
    from_s: f64,
    to_s: f64,
    bytes_per_opportunity: u32,
) -> PyResult<f64> {
    let trace = TraceConfig::checked(opportunities_ms, bytes_per_opportunity).map_err(trace_error)?;
    Ok(trace.window_rate_bps(ccsim::time::nanos(from_s.max(0.0)), ccsim::time::nanos(to_s.max(0.0))))
}

/// Share of a full data segment's wire bytes that is payload: mss / (mss + headers).
#[pyfunction]
fn payload_share(mss_bytes: u32, timestamps: bool) -> f64 {
    ccsim::net::packet::payload_share(mss_bytes, timestamps)
}

/// Bytes of IP and TCP headers on a data segment (with the timestamp option
/// if `timestamps`), as the core sizes packets.
#[pyfunction]
fn data_header_bytes(timestamps: bool) -> u32 {
    ccsim::net::packet::tcp_header_bytes(timestamps, 0)
}

/// A duration as scenario files write it ("50ms", "2min", "1.5") in seconds,
/// read by the core's parser (units.rs); raises ValueError.
#[pyfunction]
fn duration_seconds(text: &str) -> PyResult<f64> {
    serde_json::from_value::<ccsim::units::Duration>(serde_json::Value::String(text.to_owned()))
        .map(|d| d.ns() as f64 / 1e9)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// "; did you mean 'x'?" for the known name closest to `name`, or "".
#[pyfunction]
fn did_you_mean(name: &str, known: Vec<String>) -> String {
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    ccsim::suggest::did_you_mean(name, &known)
}

/// Runs the kernel-mode emulator (crates/ccemu) with `argv` (without a
/// program name) and returns its exit status. Meant for a process of its own
/// (`python -m ccbench.emulate.ccemu`): the emulator takes over SIGINT and
/// SIGTERM and reads its protocol on stdin. The GIL is released meanwhile.
#[cfg(target_os = "linux")]
#[pyfunction]
fn emulator_main(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.allow_threads(|| ccemu::run(&argv))
}

#[pymodule]
fn _ccsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ArrowTable>()?;
    m.add_class::<SharedTrace>()?;
    m.add("SHARED_TRACE_PREFIX", STAND_IN_PREFIX)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(background_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(kernels, m)?)?;
    m.add_function(wrap_pyfunction!(parse_mahimahi_trace, m)?)?;
    m.add_function(wrap_pyfunction!(trace_mean_rate_bps, m)?)?;
    m.add_function(wrap_pyfunction!(trace_window_rate_bps, m)?)?;
    m.add_function(wrap_pyfunction!(payload_share, m)?)?;
    m.add_function(wrap_pyfunction!(data_header_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(per_run::flow_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(per_run::rtt_stats, m)?)?;
    m.add_function(wrap_pyfunction!(per_run::link_metrics, m)?)?;
    m.add("RTT_STAT_COLUMNS", per_run::rtt_stat_columns())?;
    m.add("FLOW_COUNTER_COLUMNS", per_run::FLOW_COUNTER_COLUMNS.to_vec())?;
    m.add("FLOW_METRIC_COLUMNS", per_run::flow_metric_columns())?;
    m.add("LINK_METRIC_COLUMNS", per_run::link_metric_columns())?;
    // Packet sizes (net::packet), for what Python sizes or estimates.
    m.add("MTU_BYTES", ccsim::net::packet::MTU_BYTES)?;
    m.add("TCP_IP_HEADER_BYTES", ccsim::net::packet::TCP_IP_HEADER_BYTES)?;
    m.add("TIMESTAMP_OPTION_BYTES", ccsim::net::packet::TIMESTAMP_OPTION_BYTES)?;
    m.add("UDP_IP_HEADER_BYTES", ccsim::net::packet::UDP_IP_HEADER_BYTES)?;
    // A flow's `tcp.mss` when a scenario does not set it.
    m.add("DEFAULT_MSS_BYTES", ccsim::scenario::TcpSpec::default().mss)?;
    m.add_function(wrap_pyfunction!(did_you_mean, m)?)?;
    m.add_function(wrap_pyfunction!(duration_seconds, m)?)?;
    m.add("MAHIMAHI_BYTES_PER_OPPORTUNITY", MAHIMAHI_BYTES_PER_OPPORTUNITY)?;
    // The series' default interval (record::series::default_interval_ns), for what a run prints.
    m.add("DEFAULT_SERIES_INTERVAL_S", ccsim::record::series::DEFAULT_INTERVAL_NS as f64 / 1e9)?;
    m.add("DEFAULT_SERIES_FLOW_SAMPLES", ccsim::record::series::DEFAULT_FLOW_SAMPLES)?;
    m.add("MAX_SEED", ccsim::scenario::MAX_SEED)?;
    // A run's tables, in the order they are saved (run_result.TABLES).
    m.add("TABLES", ccsim::record::recorded::TABLES.to_vec())?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // An emulator binary named by CCBENCH_CCEMU must have been built from the same sources (emulate/runner.py).
    m.add("SOURCE_ID", ccsim::SOURCE_ID)?;
    #[cfg(target_os = "linux")]
    m.add_function(wrap_pyfunction!(emulator_main, m)?)?;
    Ok(())
}
