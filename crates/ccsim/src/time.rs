//! Simulated time: an integer count of nanoseconds since the start of a run.
//!
//! Integer time keeps event ordering exact and runs bit-for-bit reproducible;
//! floats appear only where a formula needs them (and never decide ordering).

/// A point in simulated time or a duration, in nanoseconds.
pub type Nanos = u64;

pub const NS_PER_US: Nanos = 1_000;
pub const NS_PER_MS: Nanos = 1_000_000;
pub const NS_PER_SEC: Nanos = 1_000_000_000;

/// Seconds (for reporting and formulas) from nanoseconds.
#[inline]
pub fn secs(t: Nanos) -> f64 {
    t as f64 / NS_PER_SEC as f64
}

/// Nanoseconds, to the nearest, from seconds (a reported time read back).
#[inline]
pub fn nanos(seconds: f64) -> Nanos {
    (seconds * NS_PER_SEC as f64).round() as Nanos
}

/// Serialization at a constant rate: the time `bytes` take at `rate_bps`, in
/// whole nanoseconds, with the remainder of `bits * 1e9 / rate` carried to the
/// next packet so a long run does not drift.
///
/// A link sends packets of a few sizes over and over, so the division is
/// done once per size: for the same size as the last packet, the whole part
/// and remainder are reused and only the carry is added (the remainder and
/// the carry are each below the rate, so their sum adds at most one).
#[derive(Clone, Copy, Debug)]
pub struct Serializer {
    rate_bps: u64,
    /// The leftover of the last packets' `bits * 1e9 mod rate`.
    carry: u64,
    /// The last size divided and its quotient and remainder.
    last_bytes: u32,
    last_whole_ns: Nanos,
    last_rem: u64,
}

impl Serializer {
    pub fn new(rate_bps: u64) -> Serializer {
        assert!(rate_bps > 0, "a serializer needs a positive rate");
        Serializer { rate_bps, carry: 0, last_bytes: 0, last_whole_ns: 0, last_rem: 0 }
    }

    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// The time to serialize `bytes`, carrying the remainder.
    #[inline]
    pub fn ns(&mut self, bytes: u32) -> Nanos {
        if bytes != self.last_bytes {
            let bits_ns = bytes as u128 * 8 * NS_PER_SEC as u128;
            let rate = self.rate_bps as u128;
            self.last_bytes = bytes;
            self.last_whole_ns = (bits_ns / rate) as Nanos;
            self.last_rem = (bits_ns % rate) as u64;
        }
        let rem = self.last_rem as u128 + self.carry as u128;
        if rem >= self.rate_bps as u128 {
            self.carry = (rem - self.rate_bps as u128) as u64;
            self.last_whole_ns + 1
        } else {
            self.carry = rem as u64;
            self.last_whole_ns
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_over_many_packets() {
        // 1500 bytes at 3 Mbit/s is 4 ms exactly; 1 byte at 3 bit/s is 2.666.. s.
        assert_eq!(Serializer::new(3_000_000).ns(1500), 4 * NS_PER_MS);
        let mut s = Serializer::new(3);
        let total: u64 = (0..3).map(|_| s.ns(1)).sum();
        assert_eq!(total, 8 * NS_PER_SEC);
    }

    /// The reused division gives what dividing each packet's bits plus the
    /// carry would, for mixed sizes and awkward rates.
    #[test]
    fn reusing_the_last_division_matches_dividing_every_packet() {
        let mut rng = crate::rng::Rng::for_component(7, 1);
        for rate in [1u64, 3, 7_777_777, 1_000_000_000, 9_999_999_967, u64::MAX / 2] {
            let mut s = Serializer::new(rate);
            let mut carry: u128 = 0;
            for _ in 0..2000 {
                let bytes = [52u32, 1500, 1500, 64, 9000][(rng.next_u64() % 5) as usize];
                let numerator = bytes as u128 * 8 * NS_PER_SEC as u128 + carry;
                let expected = (numerator / rate as u128) as Nanos;
                carry = numerator % rate as u128;
                assert_eq!(s.ns(bytes), expected, "rate {rate}, {bytes} bytes");
            }
        }
    }
}
