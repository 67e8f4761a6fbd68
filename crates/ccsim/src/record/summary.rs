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
//! - a link's payload capacity: its rate x the mean payload share of a full
//!   segment of the flows whose data crosses it; utilization: the sum of
//!   those flows' goodputs / that capacity, nominal utilization: the same
//!   sum / the link's rate (headers counted as overhead).
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

/// The sum of goodputs over a capacity (bit/s both).
pub fn utilization(goodput_sum_bps: f64, capacity_bps: f64) -> f64 {
    scaled_ratio(1.0, goodput_sum_bps, capacity_bps)
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
    }
}
