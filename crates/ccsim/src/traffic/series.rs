//! Per-source sampled series and the per-source summary table of a run's
//! results (the `sources` and `source_series` tables): what each source sent
//! and what its sink received, as the high-speed study read its UDP
//! receiver's report and the 4G study its cell's load.

use super::{Source, SourceCounters};
use crate::record::table::{Column, Table};
use crate::time::{secs, Nanos};

#[derive(Default)]
pub struct SourceSeries {
    t: Vec<f64>,
    source: Vec<u32>,
    bytes_delivered: Vec<u64>,
    delivered_bps: Vec<f64>,
    packets_sent: Vec<u64>,
    queue_drops: Vec<u64>,
    transfers_started: Vec<u64>,
    active_transfers: Vec<u64>,
    multiplier: Vec<f64>,
    /// Per source: (time, bytes delivered) of the previous sample.
    last: Vec<(Nanos, u64)>,
}

impl SourceSeries {
    /// One row per source at `now`; `active[i]`: transfers of source i under way.
    pub fn push(&mut self, now: Nanos, sources: &[Source], counters: &[SourceCounters], active: &[u64]) {
        if self.last.len() < sources.len() {
            self.last.resize(sources.len(), (0, 0));
        }
        for (i, (s, c)) in sources.iter().zip(counters).enumerate() {
            let (t0, b0) = self.last[i];
            let rate = if now > t0 { (c.bytes_delivered - b0) as f64 * 8.0 / secs(now - t0) } else { 0.0 };
            self.last[i] = (now, c.bytes_delivered);
            self.t.push(secs(now));
            self.source.push(i as u32);
            self.bytes_delivered.push(c.bytes_delivered);
            self.delivered_bps.push(rate);
            self.packets_sent.push(c.packets_sent);
            self.queue_drops.push(c.queue_drops);
            self.transfers_started.push(c.transfers_started);
            self.active_transfers.push(active[i]);
            self.multiplier.push(s.multiplier(now));
        }
    }

    pub fn into_table(self) -> Table {
        let mut t = Table::new();
        t.add("t", Column::F64(self.t));
        t.add("source", Column::U32(self.source));
        t.add("bytes_delivered", Column::U64(self.bytes_delivered));
        t.add("delivered_bps", Column::F64(self.delivered_bps));
        t.add("packets_sent", Column::U64(self.packets_sent));
        t.add("queue_drops", Column::U64(self.queue_drops));
        t.add("transfers_started", Column::U64(self.transfers_started));
        t.add("active_transfers", Column::U64(self.active_transfers));
        t.add("multiplier", Column::F64(self.multiplier));
        t
    }
}

/// The `sources` table: one summary row per source. `end` is the run's end.
/// `transport` and `direction` are per source ("down", "up", or "route" for a source on `[[links]]`).
pub fn summary_table(
    sources: &[Source],
    counters: &[SourceCounters],
    transport: &[&str],
    direction: &[&str],
    end: Nanos,
) -> Table {
    let mut t = Table::new();
    let n = sources.len();
    t.add("source", Column::U32((0..n as u32).collect()));
    t.add("kind", Column::Str(sources.iter().map(|s| s.kind().to_string()).collect()));
    t.add("transport", Column::Str(transport.iter().map(|s| s.to_string()).collect()));
    t.add("direction", Column::Str(direction.iter().map(|s| s.to_string()).collect()));
    let period = |s: &Source| {
        let (a, b) = s.active_period();
        (a.min(end), b.min(end))
    };
    t.add("start_s", Column::F64(sources.iter().map(|s| secs(period(s).0)).collect()));
    t.add("stop_s", Column::F64(sources.iter().map(|s| secs(period(s).1)).collect()));
    let u = |f: &dyn Fn(&SourceCounters) -> u64| Column::U64(counters.iter().map(f).collect());
    t.add("packets_sent", u(&|c| c.packets_sent));
    t.add("wire_bytes_sent", u(&|c| c.wire_bytes_sent));
    t.add("bytes_sent", u(&|c| c.bytes_sent));
    t.add("packets_delivered", u(&|c| c.packets_delivered));
    t.add("bytes_delivered", u(&|c| c.bytes_delivered));
    // Datagrams not received by the end of the run: dropped, lost on the channel or still in flight.
    t.add("packets_lost", u(&|c| c.packets_sent - c.packets_delivered.min(c.packets_sent)));
    t.add("queue_drops", u(&|c| c.queue_drops));
    t.add("transfers_started", u(&|c| c.transfers_started));
    t.add("transfers_completed", u(&|c| c.transfers_completed));
    // Delivered payload rate over the source's active period.
    t.add(
        "delivered_bps",
        Column::F64(
            sources
                .iter()
                .zip(counters)
                .map(|(s, c)| {
                    let (a, b) = period(s);
                    if b > a {
                        c.bytes_delivered as f64 * 8.0 / secs(b - a)
                    } else {
                        f64::NAN
                    }
                })
                .collect(),
        ),
    );
    t
}
