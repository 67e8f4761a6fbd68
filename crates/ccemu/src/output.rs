//! The emulator's results as one JSON object: the `links`, `link_series` and
//! `rtt` tables with the simulator's columns (so ccbench builds the same
//! Result), the flows' RTT statistics (`flow_rtt`, the simulator's flows-table
//! columns, a row per flow), and the emulator's own statistics (timer
//! lateness, anomalies).

use crate::forwarder::Direction;
use crate::records::Lateness;
use ccsim::record::pcap::PcapSummary;
use ccsim::record::series::LinkSeries;
use ccsim::record::table::{Column, Table};
use serde_json::{json, Map, Value};

fn column(c: &Column) -> Value {
    match c {
        Column::F64(v) => Value::Array(v.iter().map(|&x| finite_or_null(x)).collect()),
        Column::U64(v) => json!(v),
        Column::U32(v) => json!(v),
        text => json!((0..text.len()).map(|row| text.text(row).expect("a text column")).collect::<Vec<_>>()),
    }
}

pub fn table(t: &Table) -> Value {
    Value::Object(t.columns.iter().map(|(n, c)| (n.clone(), column(c))).collect::<Map<_, _>>())
}

/// The links table, column for column as `ccsim::sim` reports it.
pub fn links_table(dirs: &[Direction]) -> Table {
    ccsim::record::link_table::links_table(dirs.iter().map(|d| (d.name, &d.link)))
}

/// The links' names, by index.
fn link_names(dirs: &[Direction]) -> Vec<String> {
    let mut names = vec![String::new(); dirs.iter().map(|d| d.index as usize + 1).max().unwrap_or(0)];
    for d in dirs {
        names[d.index as usize] = d.name.to_string();
    }
    names
}

/// A number, or null where it is not one (JSON has no NaN).
fn finite_or_null(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

/// A lateness distribution's mean, median, 99th percentile and maximum, in
/// microseconds (`lateness_*_us`).
fn lateness(l: &Lateness) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("lateness_mean_us".into(), finite_or_null(l.mean_us()));
    m.insert("lateness_p50_us".into(), finite_or_null(l.quantile_us(0.5)));
    m.insert("lateness_p99_us".into(), finite_or_null(l.quantile_us(0.99)));
    m.insert("lateness_max_us".into(), finite_or_null(l.max_us()));
    m
}

/// The host's wake-up lateness (host_latency.rs): its marks, `lateness`, and
/// the 98th percentile: a packet crosses the emulator twice (read on
/// arrival, written when due), so a stall can delay twice its share of time
/// in packets, and the host's 98th percentile is the one to set beside the
/// packets' 99th.
fn host_wakeups_json(l: &Lateness) -> Value {
    let mut m = lateness(l);
    m.insert("count".into(), json!(l.count()));
    m.insert("lateness_p98_us".into(), finite_or_null(l.quantile_us(0.98)));
    Value::Object(m)
}

/// What became of the files the emulator was asked to write (None: not asked).
pub struct Files {
    /// The packet records (`packets_file`).
    pub records: Option<Result<(), String>>,
    /// The packet capture (`record.pcap`).
    pub pcap: Option<PcapSummary>,
}

#[allow(clippy::too_many_arguments)]
pub fn results(
    dirs: &[Direction],
    series: LinkSeries,
    (rtt, flow_rtt): (Table, Table),
    end_ns: u64,
    loops: u64,
    sleeps: u64,
    host_wakeups: &Lateness,
    governor: &crate::clock::PriorityGovernor,
    files: Files,
) -> Value {
    let per_link: Vec<Value> = dirs
        .iter()
        .map(|d| {
            let a = d.anomalies;
            let mut link = json!({
                "link": d.name,
                "pool_slots": d.pool_slots(),
                "not_ipv4": a.not_ipv4,
                "overruns": a.overruns,
                "write_failures": a.write_failures,
                "oversize": a.oversize,
                "deliveries": d.lateness.count(),
            });
            link.as_object_mut().expect("an object").extend(lateness(&d.lateness));
            link
        })
        .collect();
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let cpu_s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    json!({
        "links": table(&links_table(dirs)),
        "link_series": table(&series.into_table(&link_names(dirs))),
        "rtt": table(&rtt),
        "flow_rtt": table(&flow_rtt),
        "stats": {
            "duration_s": end_ns as f64 / 1e9,
            "loops": loops,
            "sleeps": sleeps,
            "realtime_at_end": governor.realtime(),
            "priority_switches": governor.switches,
            "cpu_user_s": cpu_s(usage.ru_utime),
            "cpu_system_s": cpu_s(usage.ru_stime),
            "per_link": per_link,
            // How late the host woke a thread of the emulator's priority, on a 1 ms grid (host_latency.rs).
            "host_wakeups": host_wakeups_json(host_wakeups),
            "packet_records_error": match files.records { Some(Err(e)) => Value::String(e), _ => Value::Null },
        },
        "pcap": files.pcap.map(|p| json!({"path": p.path, "packets": p.packets, "error": p.error})),
    })
}
