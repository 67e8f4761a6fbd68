//! The per-run metrics of the measurement studies (the SPEC's section 5), one
//! definition each, computed here for the flows and links tables; ccbench's
//! Python reads them from the tables (and applies the same formulas, in
//! `ccbench.metrics`, only to tables that come from elsewhere: the kernel
//! emulator).
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
}
