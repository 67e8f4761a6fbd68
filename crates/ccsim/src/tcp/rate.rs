//! Delivery-rate sampling (Cheng, Cardwell et al., draft-cheng-iccrg-delivery-rate-estimation;
//! Linux net/ipv4/tcp_rate.c).
//!
//! Each transmission snapshots the connection's delivery counters; when the
//! segment is delivered (ACKed or SACKed), the delivered count and elapsed time
//! since that snapshot give a rate sample. The interval is the longer of the
//! send and ACK phases, so ACK compression cannot inflate the rate, and
//! samples taken while the application had nothing to send are marked.
//!
//! Linux takes a sample on every ACK; only an algorithm that owns the window
//! (`cong_control`: BBR) reads it. For the others the sampler only counts
//! deliveries, which is all they observe of it, so results are the same.

use crate::cc::RateSample;
use crate::time::Nanos;

/// The counters at the time a segment was sent (Linux: the skb's tx fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxSnapshot {
    pub delivered: u64,
    pub delivered_time: Nanos,
    pub first_tx_time: Nanos,
    pub app_limited: bool,
}

#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    /// Segments delivered so far.
    pub delivered: u64,
    /// Whether samples are taken (an algorithm reads them), not only deliveries counted.
    sampling: bool,
    delivered_time: Nanos,
    first_tx_time: Nanos,
    /// Nonzero: delivered count at which the current app-limited phase ends.
    app_limited_until: u64,
    // Per-ACK accumulation.
    prior_delivered: u64,
    prior_time: Option<Nanos>,
    send_elapsed: Nanos,
    ack_elapsed: Nanos,
    sample_app_limited: bool,
    sample_rtt: Option<Nanos>,
    sample_sent_at: Nanos,
}

impl RateSampler {
    /// A sampler that takes rate samples if `sampling`, else only counts deliveries.
    pub fn new(sampling: bool) -> RateSampler {
        RateSampler { sampling, ..RateSampler::default() }
    }

    /// A segment leaves now with `packets_out` segments already outstanding.
    pub fn on_send(&mut self, now: Nanos, packets_out: u32) -> TxSnapshot {
        if packets_out == 0 {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        TxSnapshot {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            app_limited: self.app_limited_until != 0,
        }
    }

    /// Starts the accumulation for one ACK.
    pub fn begin_ack(&mut self) {
        self.prior_time = None;
        self.prior_delivered = 0;
        self.sample_rtt = None;
    }

    /// `count` segments are delivered now, the most recently sent of them at
    /// `sent_at` with snapshot `tx` (one segment, or a run sent in order:
    /// scoreboard::Removed; of such a run only its last could be the sample).
    #[inline]
    pub fn on_delivered(&mut self, now: Nanos, count: u32, sent_at: Nanos, tx: &TxSnapshot) {
        self.delivered += count as u64;
        if !self.sampling {
            return;
        }
        self.delivered_time = now;
        // Use the most recently sent of the segments this ACK delivers.
        if self.prior_time.is_none()
            || sent_at > self.sample_sent_at
            || (sent_at == self.sample_sent_at && tx.delivered >= self.prior_delivered)
        {
            self.prior_delivered = tx.delivered;
            self.prior_time = Some(tx.delivered_time);
            self.sample_app_limited = tx.app_limited;
            self.send_elapsed = sent_at.saturating_sub(tx.first_tx_time);
            self.ack_elapsed = now.saturating_sub(tx.delivered_time);
            self.sample_rtt = Some(now.saturating_sub(sent_at));
            self.sample_sent_at = sent_at;
            self.first_tx_time = sent_at;
        }
    }

    /// Finishes the sample of this ACK (Linux tcp_rate_gen).
    pub fn end_ack(
        &mut self,
        acked_sacked: u32,
        losses: u32,
        prior_in_flight: u32,
        min_rtt: Option<Nanos>,
    ) -> RateSample {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let mut rs = RateSample {
            delivered: -1,
            interval_ns: 0,
            is_app_limited: self.sample_app_limited,
            acked_sacked,
            losses,
            prior_in_flight,
            rtt_ns: self.sample_rtt,
            prior_delivered: self.prior_delivered,
        };
        let Some(_) = self.prior_time else { return rs };
        let interval = self.send_elapsed.max(self.ack_elapsed);
        // An interval shorter than the minimum RTT means mis-estimation (e.g. stretched ACKs).
        if interval == 0 || min_rtt.is_some_and(|m| interval < m) {
            return rs;
        }
        rs.delivered = (self.delivered - self.prior_delivered) as i64;
        rs.interval_ns = interval;
        rs
    }

    /// The sender ran out of data with room in the window: mark the phase app-limited.
    pub fn on_app_limited(&mut self, in_flight: u32) {
        self.app_limited_until = (self.delivered + in_flight as u64).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    /// Sends `n` segments at `at`, returning their snapshots.
    fn send(r: &mut RateSampler, at: Nanos, n: u32, packets_out: u32) -> Vec<(Nanos, TxSnapshot)> {
        (0..n).map(|i| (at, r.on_send(at, packets_out + i))).collect()
    }

    fn deliver(
        r: &mut RateSampler,
        now: Nanos,
        segments: &[(Nanos, TxSnapshot)],
        min_rtt: Option<Nanos>,
    ) -> RateSample {
        r.begin_ack();
        for (sent_at, tx) in segments {
            r.on_delivered(now, 1, *sent_at, tx);
        }
        r.end_ack(segments.len() as u32, 0, 10, min_rtt)
    }

    #[test]
    fn a_flight_acked_after_one_rtt_gives_its_size_per_rtt() {
        let mut r = RateSampler::new(true);
        let flight = send(&mut r, 0, 10, 0);
        let rs = deliver(&mut r, 100 * NS_PER_MS, &flight, None);
        assert_eq!((rs.delivered, rs.interval_ns), (10, 100 * NS_PER_MS));
        assert_eq!(rs.rate_segments_per_sec(), Some(100.0));
        assert_eq!(rs.rtt_ns, Some(100 * NS_PER_MS));
        assert!(!rs.is_app_limited);
    }

    #[test]
    fn the_interval_is_the_longer_of_the_send_and_ack_phases() {
        let mut r = RateSampler::new(true);
        // A flight leaves over 90 ms; its first segment is ACKed at 100 ms.
        let flight: Vec<_> =
            (0..10u64).map(|i| (i * 10 * NS_PER_MS, r.on_send(i * 10 * NS_PER_MS, i as u32))).collect();
        deliver(&mut r, 100 * NS_PER_MS, &flight[..1], None);
        // A segment sent then is ACKed 10 ms later (a compressed ACK): the
        // send phase since the flight's start (100 ms) is the interval, not 10 ms.
        let late = vec![(100 * NS_PER_MS, r.on_send(100 * NS_PER_MS, 9))];
        let rs = deliver(&mut r, 110 * NS_PER_MS, &late, None);
        assert_eq!(rs.delivered, 1);
        assert_eq!(rs.interval_ns, 100 * NS_PER_MS);
    }

    #[test]
    fn a_sample_shorter_than_the_minimum_rtt_is_not_valid() {
        let mut r = RateSampler::new(true);
        let flight = send(&mut r, 0, 10, 0);
        let rs = deliver(&mut r, 50 * NS_PER_MS, &flight, Some(80 * NS_PER_MS));
        assert_eq!(rs.delivered, -1);
        assert_eq!(rs.rate_segments_per_sec(), None);
    }

    #[test]
    fn a_sampler_that_only_counts_counts_the_same_deliveries() {
        let (mut sampling, mut counting) = (RateSampler::new(true), RateSampler::new(false));
        for r in [&mut sampling, &mut counting] {
            let flight = send(r, 0, 10, 0);
            deliver(r, 100 * NS_PER_MS, &flight[..4], None);
            r.on_delivered(120 * NS_PER_MS, 3, flight[9].0, &flight[9].1);
        }
        assert_eq!((sampling.delivered, counting.delivered), (7, 7));
    }

    #[test]
    fn samples_of_an_app_limited_phase_are_marked_until_it_is_delivered() {
        let mut r = RateSampler::new(true);
        r.on_app_limited(0);
        let limited = send(&mut r, 0, 2, 0);
        assert!(limited.iter().all(|(_, tx)| tx.app_limited));
        let rs = deliver(&mut r, 100 * NS_PER_MS, &limited, None);
        assert!(rs.is_app_limited);
        // The phase ended with those deliveries: new data is not marked.
        let next = send(&mut r, 100 * NS_PER_MS, 1, 0);
        assert!(!next[0].1.app_limited);
    }
}
