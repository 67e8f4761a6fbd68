//! The result tables of a finished run: flows, series, RTT samples, links
//! and link series (one row per link, by name), traffic sources.

use super::{Flow, World};
use crate::net::topology::Direction;
use crate::record::link_table::links_table;
use crate::record::pcap::{PcapSummary, PcapWriter};
use crate::record::table::{Column, Table};
use crate::scenario::Scenario;
use crate::tcp::chrono::ChronoTotals;
use crate::time::{secs, Nanos};
use crate::traffic::series::summary_table;
use crate::traffic::Source;

/// Everything a run produces, as columnar tables.
pub struct Results {
    pub flows: Table,
    pub series: Table,
    pub rtt: Table,
    pub links: Table,
    pub link_series: Table,
    /// One row per traffic source (UDP, background) and its sampled series.
    pub sources: Table,
    pub source_series: Table,
    /// The packet capture, when `record.pcap` asked for one.
    pub pcap: Option<PcapSummary>,
    /// Events processed (a cost measure) and the simulated duration.
    pub events: u64,
    pub duration: Nanos,
}

/// "down" or "up" for the dumbbell's flows and sources, "route" for those on `[[links]]`.
fn direction_label(direction: Option<Direction>) -> &'static str {
    match direction {
        Some(Direction::Down) => "down",
        Some(Direction::Up) => "up",
        None => "route",
    }
}

impl World {
    /// The results of a finished run.
    pub fn results(mut self, s: &Scenario) -> Results {
        let end = self.end;
        for link in self.links.iter_mut() {
            link.sync(end);
        }
        // Background TCP transfers: their bytes sent add to their source's row.
        for f in &self.flows[self.main_flows..] {
            if let Some(k) = f.source {
                self.source_counters[k as usize].bytes_sent += f.sender.stats.bytes_sent;
                self.source_counters[k as usize].packets_sent += f.sender.stats.segments_sent;
            }
        }
        let transport: Vec<&str> = self
            .sources
            .iter()
            .enumerate()
            .map(|(k, src)| match src {
                Source::Web(_) if self.background_flow.as_ref().is_some_and(|(id, _, _)| *id as usize == k) => "tcp",
                _ => "udp",
            })
            .collect();
        let direction: Vec<&str> = s
            .udp
            .iter()
            .map(|u| u.direction)
            .chain(s.background.as_ref().map(|b| b.direction))
            .map(direction_label)
            .collect();
        let sources = summary_table(&self.sources, &self.source_counters, &transport, &direction, end);
        let pcap = self.pcap.take().map(PcapWriter::finish);
        self.flows.truncate(self.main_flows);
        let mut flows = Table::new();
        let n = self.flows.len();
        let mut cols: Vec<(&str, Vec<f64>)> = Vec::new();
        let get_end = |f: &Flow| f.active_end.unwrap_or((end, f.receiver.delivered_bytes, f.sender.stats.bytes_sent));
        flows.add("flow", Column::U32((0..n as u32).collect()));
        flows.add("group", Column::U32(self.flows.iter().map(|f| f.group as u32).collect()));
        flows.add("cc", Column::Str(self.flows.iter().map(|f| f.sender.algorithm().info().name.to_string()).collect()));
        flows.add(
            "direction",
            Column::Str(self.flows.iter().map(|f| direction_label(s.flows[f.group].direction).to_string()).collect()),
        );
        cols.push(("start_s", self.flows.iter().map(|f| secs(f.start)).collect()));
        cols.push(("end_s", self.flows.iter().map(|f| secs(get_end(f).0)).collect()));
        cols.push(("size_bytes", self.flows.iter().map(|f| f.size.map_or(f64::NAN, |s| s as f64)).collect()));
        cols.push((
            "completion_s",
            self.flows.iter().map(|f| f.completed_at.map_or(f64::NAN, |t| secs(t - f.start))).collect(),
        ));
        cols.push((
            "base_rtt_ms",
            self.flows.iter().map(|f| f.sender.rtt.min_rtt().map_or(f64::NAN, |r| r as f64 / 1e6)).collect(),
        ));
        for (name, v) in cols {
            flows.add(name, Column::F64(v));
        }
        let u = |f: &dyn Fn(&Flow) -> u64| Column::U64(self.flows.iter().map(f).collect());
        flows.add("delivered_bytes", u(&|f| get_end(f).1));
        flows.add("bytes_sent", u(&|f| get_end(f).2));
        flows.add("delivered_bytes_total", u(&|f| f.receiver.delivered_bytes));
        flows.add("segments_sent", u(&|f| f.sender.stats.segments_sent));
        flows.add("retransmitted_segments", u(&|f| f.sender.stats.retransmitted_segments));
        flows.add("timeouts", u(&|f| f.sender.stats.timeouts));
        flows.add("fast_recoveries", u(&|f| f.sender.stats.fast_recoveries));
        flows.add("undone_recoveries", u(&|f| f.sender.stats.undone_recoveries));
        flows.add("ecn_reductions", u(&|f| f.sender.stats.ecn_reductions));
        flows.add("acks_received", u(&|f| f.sender.stats.acks_received));
        flows.add("duplicate_segments", u(&|f| f.receiver.duplicate_segments));

        // Time limited by each cause until the end of the run (tcp/chrono.rs, Linux TCP_INFO's chrono counters).
        let chrono: Vec<_> = self.flows.iter().map(|f| f.sender.chrono.totals(end)).collect();
        let seconds = |pick: fn(&ChronoTotals) -> Nanos| Column::F64(chrono.iter().map(|t| secs(pick(t))).collect());
        flows.add("busy_s", seconds(|t| t.busy_ns));
        flows.add("rwnd_limited_s", seconds(|t| t.rwnd_limited_ns));
        flows.add("sndbuf_limited_s", seconds(|t| t.sndbuf_limited_ns));
        flows.add("app_limited_s", seconds(|t| t.app_limited_ns));

        let links = links_table(self.link_names.iter().map(String::as_str).zip(self.links.iter()));

        Results {
            flows,
            series: self.series.into_table(),
            rtt: self.rtt.unwrap_or_default().into_table(),
            links,
            link_series: self.link_series.into_table(),
            sources,
            source_series: self.source_series.into_table(),
            pcap,
            events: self.events.processed(),
            duration: end,
        }
    }
}
