//! The result tables of a finished run: flows, series and the algorithms' state
//! (cc_state), RTT samples, links
//! and link series (one row per link, by name), traffic sources.

use super::{Flow, World};
use crate::net::link::Link;
use crate::net::packet::payload_share;
use crate::record::link_table::links_table;
use crate::record::pcap::{PcapSummary, PcapWriter};
use crate::record::recorded::{Recorded, TABLES};
use crate::record::rtt_stats::{self, RttStats};
use crate::record::summary;
use crate::record::table::{Column, Table};
use crate::scenario::{Direction, Scenario};
use crate::tcp::chrono::ChronoTotals;
use crate::time::{nanos, secs, Nanos};
use crate::traffic::series::summary_table;
use crate::traffic::Source;

/// Everything a run produces, as columnar tables.
pub struct Results {
    pub flows: Table,
    pub series: Table,
    /// The algorithms' state beside the series, long: t, flow, var, value, label.
    pub cc_state: Table,
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
    /// Random numbers the run drew (rng::draws_during), building the world
    /// included: 0 when no part of the scenario is random, so that every
    /// seed gives this same result.
    pub random_draws: u64,
    /// The sampled tables the run recorded (the others are empty).
    pub recorded: Recorded,
}

impl Results {
    /// The tables, each with its name (record::recorded::TABLES, in that
    /// order), taken out of the results: what is left are the run's facts.
    pub fn take_tables(&mut self) -> [(&'static str, Table); 8] {
        use std::mem::take;
        let tables = [
            take(&mut self.flows),
            take(&mut self.series),
            take(&mut self.cc_state),
            take(&mut self.rtt),
            take(&mut self.links),
            take(&mut self.link_series),
            take(&mut self.sources),
            take(&mut self.source_series),
        ];
        let mut named = TABLES.into_iter().zip(tables);
        std::array::from_fn(|_| named.next().expect("as many names as tables"))
    }
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
        // The series' tables first: its per-flow bookkeeping is freed before the flows table is made.
        let (series, cc_state) = std::mem::take(&mut self.series).into_tables();
        self.rtt_stats.iter_mut().for_each(RttStats::flush);
        for link in self.links.iter_mut() {
            link.sync(end, &mut self.pool);
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

        let counters: Vec<summary::FlowCounters> = self
            .flows
            .iter()
            .map(|f| summary::FlowCounters {
                start_s: secs(f.start),
                end_s: secs(get_end(f).0),
                completion_s: f.completed_at.map_or(f64::NAN, |t| secs(t - f.start)),
                delivered_bytes: get_end(f).1,
                bytes_sent: get_end(f).2,
                retransmitted_segments: f.sender.stats.retransmitted_segments,
                segments_sent: f.sender.stats.segments_sent,
                timeouts: Some(f.sender.stats.timeouts),
            })
            .collect();
        let active_s = summary::add_flow_columns(&mut flows, &counters);
        rtt_stats::add_columns(&mut flows, &self.rtt_stats);

        // Time limited by each cause until the end of the run (tcp/chrono.rs, Linux TCP_INFO's chrono counters).
        let chrono: Vec<_> = self.flows.iter().map(|f| f.sender.chrono.totals(end)).collect();
        let seconds = |pick: fn(&ChronoTotals) -> Nanos| Column::F64(chrono.iter().map(|t| secs(pick(t))).collect());
        flows.add("busy_s", seconds(|t| t.busy_ns));
        flows.add("rwnd_limited_s", seconds(|t| t.rwnd_limited_ns));
        flows.add("sndbuf_limited_s", seconds(|t| t.sndbuf_limited_ns));
        flows.add("app_limited_s", seconds(|t| t.app_limited_ns));

        let mut links = links_table(self.link_names.iter().map(String::as_str).zip(self.links.iter()));
        let activity: Vec<(f64, f64, u64)> =
            self.flows.iter().zip(&active_s).map(|(f, &a)| (secs(f.start), a, get_end(f).1)).collect();
        add_link_summary(&mut links, &self.links, &self.flows, &activity, end);

        // The recorders' columns are laid out once the rest of the world (flows, links, packets) is
        // freed: the rtt table is a copy of its samples, so a big run would otherwise hold the world,
        // the samples and the table at once, its peak of memory.
        let rtt = std::mem::take(&mut self.rtt);
        let (link_series, link_names) = (std::mem::take(&mut self.link_series), std::mem::take(&mut self.link_names));
        let (source_series, events) = (std::mem::take(&mut self.source_series), self.events.processed());
        let recorded = self.recorded;
        drop(self);
        Results {
            flows,
            series,
            cc_state,
            rtt: rtt.into_table(),
            links,
            link_series: link_series.into_table(&link_names),
            sources,
            source_series: source_series.into_table(),
            pcap,
            events,
            duration: end,
            random_draws: 0, // counted by the caller, around the world's building too
            recorded,
        }
    }
}

/// The links table's payload capacity, goodput of the flows whose data
/// crosses each link, utilization and nominal utilization (record::summary);
/// `activity`: each flow's (start s, active s, delivered bytes).
/// The rates are those each link offered over its flows' window
/// (summary::link_window; the whole run, `end`, for a link no flow's data
/// crosses).
fn add_link_summary(links_table: &mut Table, links: &[Link], flows: &[Flow], activity: &[(f64, f64, u64)], end: Nanos) {
    let rates: Vec<summary::LinkRates> = links
        .iter()
        .enumerate()
        .map(|(l, link)| {
            let crossing = flows.iter().zip(activity).filter(|(f, _)| f.data_route.contains(&(l as u32))).map(
                |(f, &(start, active, delivered))| {
                    (payload_share(f.pcap_meta.mss, f.pcap_meta.timestamps), start, active, delivered)
                },
            );
            summary::link_rates(crossing, |window| {
                let (from, to) = window.map_or((0, end), |(from, to)| (nanos(from), nanos(to)));
                link.offered_rate_bps(from, to)
            })
        })
        .collect();
    summary::add_link_columns(links_table, &rates);
}

#[cfg(test)]
mod tests {
    use crate::record::table::Column;
    use crate::{run, Scenario};

    fn run_with(rtt_samples: &str) -> super::Results {
        let json = format!(
            r#"{{"duration": 3, "seed": 5, "downlink": {{"rate": "20Mbit", "delay": "10ms", "queue": {{"size": "30pkt"}}}},
                "flows": [{{"cc": "cubic", "count": 2}}], "record": {{"rtt_samples": {rtt_samples}}}}}"#
        );
        run(&Scenario::from_json(&json).unwrap())
    }

    #[test]
    fn flow_rtt_statistics_cover_every_sample_whatever_the_table_keeps() {
        let all = run_with(r#""all""#);
        let none = run_with(r#""none""#);
        let few = run_with("50");
        assert_eq!(none.rtt.rows(), 0);
        assert_eq!(few.rtt.rows(), 100);
        let Some(Column::U64(counts)) = all.flows.get("rtt_samples") else { panic!("no rtt_samples column") };
        assert_eq!(counts.iter().sum::<u64>() as usize, all.rtt.rows());
        for t in [&none, &few] {
            // (Compared as text: NaN cells are equal there.)
            assert_eq!(
                format!("{:?}", t.flows),
                format!("{:?}", all.flows),
                "the rtt table's setting changes no flow cell"
            );
        }
        // The mean from the kept samples equals the column's.
        let (flow, rtt) = (all.rtt.get("flow"), all.rtt.f64("rtt_ms"));
        let Some(Column::U32(flow)) = flow else { panic!() };
        let flow0: Vec<f64> = rtt.iter().zip(flow).filter(|(_, f)| **f == 0).map(|(r, _)| *r).collect();
        let mean = flow0.iter().sum::<f64>() / flow0.len() as f64;
        assert!((all.flows.f64("rtt_mean_ms")[0] - mean).abs() < 1e-9 * mean);
    }

    #[test]
    fn goodput_and_utilization_follow_their_definitions() {
        let r = run_with(r#""none""#);
        let f = &r.flows;
        for i in 0..2 {
            let active = f.f64("end_s")[i] - f.f64("start_s")[i];
            assert_eq!(f.f64("active_s")[i], active);
            assert_eq!(f.f64("goodput_bps")[i], f.u64("delivered_bytes")[i] as f64 * 8.0 / active);
        }
        let goodput: f64 = f.f64("goodput_bps").iter().sum();
        let downlink = 0;
        // The flows were active together: the link's goodput is their sum.
        assert!((r.links.f64("goodput_bps")[downlink] - goodput).abs() < 1e-9 * goodput);
        let capacity = 20e6 * 1448.0 / 1500.0;
        assert!((r.links.f64("capacity_bps")[downlink] - capacity).abs() < 1e-6);
        assert!((r.links.f64("utilization")[downlink] - goodput / capacity).abs() < 1e-12);
        assert!(r.links.f64("utilization")[downlink] > 0.8);
        // Only ACKs cross the uplink: its goodput and utilization are not measured, not 0.
        let uplink = 1;
        for column in ["goodput_bps", "utilization", "nominal_utilization"] {
            assert!(r.links.f64(column)[uplink].is_nan(), "{column}: {}", r.links.f64(column)[uplink]);
        }
        assert!(r.links.f64("capacity_bps")[uplink] > 0.0);
    }
}
