//! The `links` result table: one row per link with its configuration and
//! counters. One definition for the simulator and the kernel emulator, so
//! both report the same columns.

use crate::net::link::{Link, LinkCounters};
use crate::net::queue::Capacity;
use crate::record::table::{Column, Table};
use crate::time::secs;

/// The links table of `links`, each with its name, in the order given.
pub fn links_table<'a>(links: impl IntoIterator<Item = (&'a str, &'a Link)>) -> Table {
    let (names, links): (Vec<&str>, Vec<&Link>) = links.into_iter().unzip();
    let mut t = Table::new();
    t.add("link", Column::Str(names.iter().map(|n| n.to_string()).collect()));
    t.add("rate_bps", Column::F64(links.iter().map(|l| l.mean_rate_bps()).collect()));
    t.add("delay_s", Column::F64(links.iter().map(|l| secs(l.config().delay_ns)).collect()));
    t.add("queue_kind", Column::Str(links.iter().map(|l| l.config().queue.kind().to_string()).collect()));
    t.add(
        "queue_capacity",
        Column::Str(
            links
                .iter()
                .map(|l| match l.config().queue.capacity() {
                    Capacity::Packets(p) => format!("{p}pkt"),
                    Capacity::Bytes(b) => format!("{b}B"),
                })
                .collect(),
        ),
    );
    let counters: Vec<LinkCounters> = links.iter().map(|l| l.counters()).collect();
    let counter = |f: &dyn Fn(&LinkCounters) -> u64| Column::U64(counters.iter().map(f).collect());
    t.add("arrivals", counter(&|c| c.arrivals));
    t.add("queue_drops", counter(&|c| c.queue_drops));
    t.add("aqm_drops", counter(&|c| c.aqm_drops));
    t.add("ecn_marks", counter(&|c| c.ecn_marks));
    t.add("departures", counter(&|c| c.departures));
    t.add("departure_bytes", counter(&|c| c.departure_bytes));
    t.add("channel_losses", counter(&|c| c.channel_losses));
    t.add("arq_retries", counter(&|c| c.arq_retries));
    t.add("residual_losses", counter(&|c| c.residual_losses));
    t.add("outages", counter(&|c| c.outages));
    t.add("delivered", counter(&|c| c.delivered));
    t.add("delivered_bytes", counter(&|c| c.delivered_bytes));
    t.add(
        "mean_sojourn_ms",
        Column::F64(
            counters
                .iter()
                .map(|c| if c.dequeued == 0 { f64::NAN } else { c.sojourn_ns as f64 / c.dequeued as f64 / 1e6 })
                .collect(),
        ),
    );
    t
}
