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

/// Time to serialize `bytes` at `rate_bps`, split into whole nanoseconds and a
/// remainder carried to the next packet so a long run does not drift.
///
/// `carry` holds the leftover of `bits * 1e9 mod rate`; the caller keeps it.
#[inline]
pub fn serialization_ns(bytes: u32, rate_bps: u64, carry: &mut u64) -> Nanos {
    let numerator = bytes as u128 * 8 * NS_PER_SEC as u128 + *carry as u128;
    let rate = rate_bps as u128;
    *carry = (numerator % rate) as u64;
    (numerator / rate) as Nanos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_over_many_packets() {
        // 1500 bytes at 3 Mbit/s is 4 ms exactly; 1 byte at 3 bit/s is 2.666.. s.
        let mut carry = 0;
        assert_eq!(serialization_ns(1500, 3_000_000, &mut carry), 4 * NS_PER_MS);
        let mut carry = 0;
        let total: u64 = (0..3).map(|_| serialization_ns(1, 3, &mut carry)).sum();
        assert_eq!(total, 8 * NS_PER_SEC);
    }
}
