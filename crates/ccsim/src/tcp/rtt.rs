//! RTT estimation and the retransmission timer (RFC 6298).
//!
//!   first sample R:  SRTT = R, RTTVAR = R/2
//!   later samples:   RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|,  SRTT = 7/8 SRTT + 1/8 R
//!   RTO = SRTT + max(G, 4 RTTVAR), at least the minimum RTO, doubled per
//!   backoff, at most the maximum RTO.
//!
//! Karn's rule lives with the caller: only segments never retransmitted give
//! samples (or timestamps echo, which are unambiguous); a valid sample also
//! clears the backoff, as Linux does in tcp_ack_update_rtt.
//! Two ways to apply the minimum (`RtoStyle`): the RFC's floor,
//! RTO = max(SRTT + 4 RTTVAR, min), as ns-3 does; or Linux's, which puts the
//! minimum inside the variance term, RTO = SRTT + max(4 RTTVAR, min)
//! (tcp_set_rto: rttvar >= tcp_rto_min), so a path with a steady RTT but a
//! queue that can still grow does not time out spuriously. Linux is the default.

use crate::time::{Nanos, NS_PER_MS};

/// Clock granularity G of RFC 6298 (Linux: one jiffy).
const GRANULARITY_NS: Nanos = NS_PER_MS;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoStyle {
    /// RTO = SRTT + max(4 RTTVAR, min RTO): Linux.
    Linux,
    /// RTO = max(SRTT + max(G, 4 RTTVAR), min RTO): RFC 6298 (and ns-3).
    Rfc6298,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    style: RtoStyle,
    srtt: Option<Nanos>,
    rttvar: Nanos,
    min_rtt: Option<Nanos>,
    latest: Option<Nanos>,
    backoff: u32,
    initial_rto: Nanos,
    min_rto: Nanos,
    max_rto: Nanos,
}

impl RttEstimator {
    pub fn new(style: RtoStyle, initial_rto: Nanos, min_rto: Nanos, max_rto: Nanos) -> RttEstimator {
        RttEstimator {
            style,
            srtt: None,
            rttvar: 0,
            min_rtt: None,
            latest: None,
            backoff: 0,
            initial_rto,
            min_rto,
            max_rto,
        }
    }

    pub fn on_sample(&mut self, rtt: Nanos) {
        let rtt = rtt.max(1);
        self.latest = Some(rtt);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = rtt / 2;
            }
            Some(srtt) => {
                let err = srtt.abs_diff(rtt);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * srtt + rtt) / 8);
            }
        }
        self.backoff = 0;
    }

    /// A retransmission timeout fired: double the timer (exponential backoff).
    pub fn on_timeout(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
    }

    pub fn rto(&self) -> Nanos {
        let base = match (self.srtt, self.style) {
            (Some(srtt), RtoStyle::Rfc6298) => srtt + GRANULARITY_NS.max(4 * self.rttvar),
            (Some(srtt), RtoStyle::Linux) => srtt + self.min_rto.max(4 * self.rttvar),
            (None, _) => self.initial_rto,
        };
        let base = base.clamp(self.min_rto, self.max_rto);
        base.saturating_mul(1 << self.backoff).min(self.max_rto)
    }

    pub fn srtt(&self) -> Option<Nanos> {
        self.srtt
    }
    pub fn rttvar(&self) -> Nanos {
        self.rttvar
    }
    pub fn min_rtt(&self) -> Option<Nanos> {
        self.min_rtt
    }
    pub fn latest(&self) -> Option<Nanos> {
        self.latest
    }
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_first_and_later_samples() {
        let mut r = RttEstimator::new(RtoStyle::Rfc6298, 1_000 * NS_PER_MS, 200 * NS_PER_MS, 120_000 * NS_PER_MS);
        assert_eq!(r.rto(), 1_000 * NS_PER_MS);
        r.on_sample(100 * NS_PER_MS);
        assert_eq!(r.srtt(), Some(100 * NS_PER_MS));
        assert_eq!(r.rttvar(), 50 * NS_PER_MS);
        assert_eq!(r.rto(), 300 * NS_PER_MS);
        r.on_sample(180 * NS_PER_MS);
        assert_eq!(r.srtt(), Some(110 * NS_PER_MS));
        assert_eq!(r.rttvar(), (3 * 50 + 80) * NS_PER_MS / 4);
    }

    #[test]
    fn linux_style_adds_the_minimum_to_srtt() {
        let mut r = RttEstimator::new(RtoStyle::Linux, 1_000 * NS_PER_MS, 200 * NS_PER_MS, 120_000 * NS_PER_MS);
        for _ in 0..50 {
            r.on_sample(100 * NS_PER_MS);
        }
        assert_eq!(r.rto(), 300 * NS_PER_MS);
    }

    #[test]
    fn backoff_doubles_until_a_valid_sample() {
        let mut r = RttEstimator::new(RtoStyle::Rfc6298, 1_000 * NS_PER_MS, 200 * NS_PER_MS, 120_000 * NS_PER_MS);
        for _ in 0..20 {
            r.on_sample(10 * NS_PER_MS);
        }
        assert_eq!(r.rto(), 200 * NS_PER_MS);
        r.on_timeout();
        r.on_timeout();
        assert_eq!(r.rto(), 800 * NS_PER_MS);
        for _ in 0..20 {
            r.on_timeout();
        }
        assert_eq!(r.rto(), 120_000 * NS_PER_MS);
        r.on_sample(10 * NS_PER_MS);
        assert_eq!(r.rto(), 200 * NS_PER_MS);
    }
}
