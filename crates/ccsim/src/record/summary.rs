//! The per-run metrics of the measurement studies (the SPEC's section 5), one
//! definition each, computed here for the flows and links tables from plain
//! counters: by the simulator (sim/results.rs), and through the binding
//! (crates/ccsim-py/src/per_run.rs) for tables that come without them, the
//! kernel emulator's. ccbench's Python reads them from the tables and has no
//! definition of its own.
//!
//! - active time: a finished file transfer's completion time, otherwise
//!   end - start (end: when the flow stopped, or the end of the run);
//! - goodput: unique payload bytes delivered in order over the active time;
//! - throughput ("sending rate"): payload bytes sent, retransmissions
//!   included, over the active time (it can exceed the link rate);
//! - retransmission percentage: retransmitted / sent segments x 100;
//! - timeouts per 100 s: RTO expirations / active time x 100 s;
//! - a link's payload capacity: the rate it offered while its flows were
//!   active (the window below: a trace's opportunities then, the nominal or
//!   long-run mean rate otherwise) x the payload share of a full segment of
//!   the flows whose data crosses it (`link_payload_share`: flows of
//!   different segment sizes weighted by the payload each delivered);
//! - a link's goodput: the unique payload bytes those flows delivered in
//!   order, over the time from the first one's start to the last one's end
//!   of activity. For flows active together that is the sum of their
//!   goodputs, the studies' definition; for flows that were not (a late
//!   start, transfers that finish at different times) the sum would count
//!   each flow's rate as if it had had the link for the whole time, and
//!   exceed the capacity;
//! - utilization: a link's goodput / its payload capacity; nominal
//!   utilization: the same goodput / the rate it offered (headers counted as
//!   overhead).
//!
//! Every ratio is NaN where its denominator is not positive.

use super::table::{Column, Table};

/// `scale` x numerator / denominator, NaN where the denominator is not positive.
pub fn scaled_ratio(scale: f64, numerator: f64, denominator: f64) -> f64 {
    if denominator > 0.0 {
        scale * numerator / denominator
    } else {
        f64::NAN
    }
}

/// Bytes over seconds, in bit/s.
pub fn rate_bps(bytes: f64, seconds: f64) -> f64 {
    scaled_ratio(8.0, bytes, seconds)
}

/// A flow's active time (`completion_s` NaN: not a finished transfer).
pub fn active_seconds(start_s: f64, end_s: f64, completion_s: f64) -> f64 {
    if completion_s.is_finite() {
        completion_s
    } else {
        end_s - start_s
    }
}

/// Retransmitted / sent segments, in percent.
pub fn retransmission_pct(retransmitted_segments: u64, segments_sent: u64) -> f64 {
    scaled_ratio(100.0, retransmitted_segments as f64, segments_sent as f64)
}

/// A count per 100 s of active time.
pub fn per_100s(count: u64, seconds: f64) -> f64 {
    scaled_ratio(100.0, count as f64, seconds)
}

/// The time a link's flows had it, from their (start s, active s): the
/// first one's start and the last one's end of activity, in seconds; None
/// without flows.
pub fn link_window(flows: impl Iterator<Item = (f64, f64)>) -> Option<(f64, f64)> {
    flows.fold(None, |window, (start, active)| {
        let (first_start, last_end) = window.unwrap_or((f64::INFINITY, f64::NEG_INFINITY));
        Some((first_start.min(start), last_end.max(start + active)))
    })
}

/// A link's goodput from its flows' (start s, active s, delivered bytes):
/// their bytes over their `link_window`; NaN (not measured) without flows:
/// a link that only ACKs cross has no goodput, nor utilization, to report.
pub fn link_goodput_bps(flows: impl Iterator<Item = (f64, f64, u64)> + Clone) -> f64 {
    match link_window(flows.clone().map(|(start, active, _)| (start, active))) {
        Some((first_start, last_end)) => {
            rate_bps(flows.map(|(_, _, delivered)| delivered).sum::<u64>() as f64, last_end - first_start)
        }
        None => f64::NAN,
    }
}

/// The payload share of a full segment on a link, from its flows' (payload
/// share of a full segment, delivered bytes): where their shares differ,
/// their delivered payload over the wire bytes it took in full segments
/// (sum d / sum d/s), so that a link their data filled reads 100% whichever
/// flow took most of it (the shares' mean would read above 100% when the
/// flow with the larger share took more); otherwise (one share for all, or
/// nothing delivered) the shares' mean; 1 without flows.
pub fn link_payload_share(flows: impl Iterator<Item = (f64, u64)>) -> f64 {
    let (mut shares, mut n, mut first, mut one_share) = (0.0, 0usize, None, true);
    let (mut delivered, mut wire) = (0u64, 0.0);
    for (share, bytes) in flows {
        shares += share;
        n += 1;
        one_share &= *first.get_or_insert(share) == share;
        delivered += bytes;
        wire += bytes as f64 / share;
    }
    if n == 0 {
        return 1.0;
    }
    if delivered == 0 || one_share {
        return shares / n as f64;
    }
    delivered as f64 / wire
}

/// A link's goodput over a capacity (bit/s both).
pub fn utilization(goodput_bps: f64, capacity_bps: f64) -> f64 {
    scaled_ratio(1.0, goodput_bps, capacity_bps)
}

/// The counters of a flow that its metrics come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowCounters {
    pub start_s: f64,
    pub end_s: f64,
    /// NaN: not a finished transfer.
    pub completion_s: f64,
    pub delivered_bytes: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub segments_sent: u64,
    /// None: not counted (a kernel that does not report it).
    pub timeouts: Option<u64>,
}

/// Adds the flows table's metrics, a row per flow of `flows`: active_s,
/// goodput_bps, throughput_bps, retrans_pct and timeouts_per_100s (NaN for
/// timeouts not counted); returns the active times.
pub fn add_flow_columns(table: &mut Table, flows: &[FlowCounters]) -> Vec<f64> {
    let active_s: Vec<f64> = flows.iter().map(|f| active_seconds(f.start_s, f.end_s, f.completion_s)).collect();
    let per_flow = |m: &dyn Fn(&FlowCounters, f64) -> f64| {
        Column::F64(flows.iter().zip(&active_s).map(|(f, &a)| m(f, a)).collect())
    };
    table.add("active_s", Column::F64(active_s.clone()));
    table.add("goodput_bps", per_flow(&|f, a| rate_bps(f.delivered_bytes as f64, a)));
    table.add("throughput_bps", per_flow(&|f, a| rate_bps(f.bytes_sent as f64, a)));
    table.add("retrans_pct", per_flow(&|f, _| retransmission_pct(f.retransmitted_segments, f.segments_sent)));
    table.add("timeouts_per_100s", per_flow(&|f, a| f.timeouts.map_or(f64::NAN, |t| per_100s(t, a))));
    active_s
}

/// A link's rates over its flows' window, in bit/s: what it offered, its
/// payload capacity and its flows' goodput.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkRates {
    pub offered_bps: f64,
    pub capacity_bps: f64,
    pub goodput_bps: f64,
}

/// A link's rates from the flows whose data crosses it, as (payload share of
/// a full segment, start s, active s, delivered bytes); `offered_rate_bps`:
/// the rate the link offered over their `link_window` (None without flows:
/// the caller's whole run).
pub fn link_rates(
    flows: impl Iterator<Item = (f64, f64, f64, u64)> + Clone,
    offered_rate_bps: impl FnOnce(Option<(f64, f64)>) -> f64,
) -> LinkRates {
    let share = link_payload_share(flows.clone().map(|(share, _, _, delivered)| (share, delivered)));
    let offered = offered_rate_bps(link_window(flows.clone().map(|(_, start, active, _)| (start, active))));
    LinkRates {
        offered_bps: offered,
        capacity_bps: offered * share,
        goodput_bps: link_goodput_bps(flows.map(|(_, start, active, delivered)| (start, active, delivered))),
    }
}

/// Adds the links table's metrics, a row per link of `rates`:
/// offered_rate_bps, capacity_bps, goodput_bps, utilization and
/// nominal_utilization.
pub fn add_link_columns(table: &mut Table, rates: &[LinkRates]) {
    let column = |m: &dyn Fn(&LinkRates) -> f64| Column::F64(rates.iter().map(m).collect());
    table.add("offered_rate_bps", column(&|r| r.offered_bps));
    table.add("capacity_bps", column(&|r| r.capacity_bps));
    table.add("goodput_bps", column(&|r| r.goodput_bps));
    table.add("utilization", column(&|r| utilization(r.goodput_bps, r.capacity_bps)));
    table.add("nominal_utilization", column(&|r| utilization(r.goodput_bps, r.offered_bps)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_definitions_by_hand() {
        assert_eq!(rate_bps(1_000_000.0, 2.0), 4e6);
        assert!(rate_bps(5.0, 0.0).is_nan());
        assert_eq!(active_seconds(1.0, 10.0, f64::NAN), 9.0);
        assert_eq!(active_seconds(1.0, 10.0, 3.5), 3.5);
        assert_eq!(retransmission_pct(5, 200), 2.5);
        assert!(retransmission_pct(0, 0).is_nan());
        assert_eq!(per_100s(3, 50.0), 6.0);
        assert_eq!(utilization(56.44e3, 64e3), 56.44e3 / 64e3);
        // Flows active together: their goodputs' sum.
        assert_eq!(link_goodput_bps([(0.0, 2.0, 1000), (0.0, 2.0, 3000)].into_iter()), 16_000.0);
        // One from 0 to 10 s, one from 5 to 10 s: 10 s of link, not 15.
        assert_eq!(link_goodput_bps([(0.0, 10.0, 10_000), (5.0, 5.0, 5_000)].into_iter()), 12_000.0);
        // Two transfers from 0 s, done at 1 and 4 s: 4 s.
        assert_eq!(link_goodput_bps([(0.0, 1.0, 1000), (0.0, 4.0, 1000)].into_iter()), 4_000.0);
        assert!(link_goodput_bps(std::iter::empty()).is_nan());
        assert!(utilization(link_goodput_bps(std::iter::empty()), 64e3).is_nan());
        assert_eq!(link_window([(1.0, 2.0), (0.5, 1.0), (2.0, 0.5)].into_iter()), Some((0.5, 3.0)));
        assert_eq!(link_window(std::iter::empty()), None);
        // One share for all: that share; none: 1.
        assert_eq!(link_payload_share([(0.9, 0), (0.9, 500)].into_iter()), 0.9);
        assert_eq!(link_payload_share(std::iter::empty()), 1.0);
        // 900 payload bytes at 0.9 (1000 wire bytes) and 50 at 0.5 (100): 950 of 1100.
        assert_eq!(link_payload_share([(0.9, 900), (0.5, 50)].into_iter()), 950.0 / 1100.0);
        // Nothing delivered: the shares' mean.
        assert_eq!(link_payload_share([(0.9, 0), (0.5, 0)].into_iter()), 0.7);
    }

    fn column(table: &Table, name: &str) -> Vec<f64> {
        match table.columns.iter().find(|(n, _)| n == name) {
            Some((_, Column::F64(v))) => v.clone(),
            _ => panic!("no float column {name}"),
        }
    }

    #[test]
    fn flow_columns_by_hand_and_timeouts_not_counted() {
        let bulk = FlowCounters {
            start_s: 0.0,
            end_s: 10.0,
            completion_s: f64::NAN,
            delivered_bytes: 10_000_000,
            bytes_sent: 11_000_000,
            retransmitted_segments: 3,
            segments_sent: 200,
            timeouts: Some(2),
        };
        let file = FlowCounters { start_s: 1.0, end_s: 3.0, completion_s: 2.0, timeouts: None, ..bulk };
        let mut table = Table::new();
        assert_eq!(add_flow_columns(&mut table, &[bulk, file]), vec![10.0, 2.0]);
        assert_eq!(column(&table, "goodput_bps"), vec![8e6, 40e6]);
        assert_eq!(column(&table, "throughput_bps"), vec![8.8e6, 44e6]);
        assert_eq!(column(&table, "retrans_pct"), vec![1.5, 1.5]);
        let timeouts = column(&table, "timeouts_per_100s");
        assert!(timeouts[0] == 20.0 && timeouts[1].is_nan());
    }

    #[test]
    fn link_rates_over_the_flows_window_or_the_whole_run() {
        let mut asked = None;
        let rates = link_rates([(0.5, 0.0, 10.0, 10_000), (0.5, 5.0, 5.0, 5_000)].into_iter(), |w| {
            asked = Some(w);
            64e3
        });
        assert_eq!(asked, Some(Some((0.0, 10.0))));
        assert_eq!(rates, LinkRates { offered_bps: 64e3, capacity_bps: 32e3, goodput_bps: 12_000.0 });
        let idle = link_rates(std::iter::empty(), |w| if w.is_none() { 1e6 } else { 0.0 });
        assert_eq!((idle.offered_bps, idle.capacity_bps), (1e6, 1e6));
        let mut table = Table::new();
        add_link_columns(&mut table, &[rates, idle]);
        let utilization = column(&table, "utilization");
        assert!(utilization[0] == 12_000.0 / 32e3 && utilization[1].is_nan());
        assert_eq!(column(&table, "nominal_utilization")[0], 12_000.0 / 64e3);
    }
}
