//! A constant-bit-rate pacer: when the next datagram of a fixed wire size
//! leaves so that the long-run rate is exact. Shared by every UDP source.
//!
//! Gaps come from `time::Serializer`, which carries the sub-nanosecond
//! remainder from one datagram to the next, so a 200 Mbit/s source sends
//! exactly 200 Mbit/s over any long window, with no drift.

use crate::time::{Nanos, Serializer};

#[derive(Clone, Copy, Debug)]
pub struct Cbr {
    pub wire_bytes: u32,
    /// When the next datagram is due.
    pub next_at: Nanos,
    gaps: Serializer,
}

impl Cbr {
    pub fn new(rate_bps: u64, wire_bytes: u32, first_at: Nanos) -> Cbr {
        Cbr { wire_bytes, next_at: first_at, gaps: Serializer::new(rate_bps.max(1)) }
    }

    /// Moves past one datagram sent at `next_at`.
    #[inline]
    pub fn step(&mut self) {
        self.next_at += self.gaps.ns(self.wire_bytes).max(1);
    }

    /// Changes the rate from the next gap on.
    pub fn set_rate(&mut self, rate_bps: u64) {
        if rate_bps.max(1) != self.gaps.rate_bps() {
            self.gaps = Serializer::new(rate_bps.max(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_SEC;

    #[test]
    fn long_run_rate_is_exact() {
        // 1500-byte datagrams at 7 Mbit/s: 583.33.. per second.
        let mut c = Cbr::new(7_000_000, 1500, 0);
        let mut n = 0u64;
        while c.next_at < 3 * NS_PER_SEC {
            c.step();
            n += 1;
        }
        assert_eq!(n, 1750);
    }
}
