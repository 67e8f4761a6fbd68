//! Seeded random numbers, one independent stream per component.
//!
//! Every random process (a link's loss, a flow's start jitter, ...) draws from
//! its own generator seeded from (run seed, component id), so adding a flow
//! never changes another component's random sequence. The generator is
//! xoshiro256** (Blackman and Vigna), seeded through SplitMix64 as its authors
//! recommend; both are a few lines and fully specified, so results stay
//! identical across platforms and library versions.

/// Stable identifiers of the random streams of a run (the "component id").
pub mod stream {
    pub const LINK_BASE: u64 = 0x1000;
    pub const TRAFFIC_BASE: u64 = 0x3000;
    /// The `rtt` table's reservoir of flow i: RTT_SAMPLES_BASE + i.
    pub const RTT_SAMPLES_BASE: u64 = 0x5A3D_0000_0000;
}

use std::cell::Cell;

thread_local! {
    /// Numbers drawn on this thread, from every stream: a run's count of them
    /// (`draws_during`) says whether its seed mattered at all.
    static DRAWS: Cell<u64> = const { Cell::new(0) };
}

/// Runs `f` and returns what it returned and how many random numbers it drew
/// (on this thread, from any stream). A run that drew none gave the same
/// result as it would with any other seed: a campaign runs such a condition
/// once, not once per repetition.
pub fn draws_during<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = DRAWS.with(Cell::get);
    let out = f();
    (out, DRAWS.with(Cell::get) - before)
}

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// The stream of component `component` in a run seeded with `seed`.
    pub fn for_component(seed: u64, component: u64) -> Rng {
        let mut state = seed ^ component.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut s = [0u64; 4];
        for word in s.iter_mut() {
            *word = splitmix64(&mut state);
        }
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        DRAWS.with(|d| d.set(d.get() + 1));
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in (0, 1]: safe to take the logarithm of.
    #[inline]
    pub fn uniform_open(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// True with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Standard normal (Box-Muller; one value per call keeps the stream simple).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_draws(seed: u64, component: u64) -> Vec<u64> {
        let mut r = Rng::for_component(seed, component);
        (0..4).map(|_| r.next_u64()).collect()
    }

    #[test]
    fn streams_are_reproducible_and_independent() {
        assert_eq!(first_draws(7, 1), first_draws(7, 1));
        assert_ne!(first_draws(7, 1), first_draws(7, 2));
        assert_ne!(first_draws(7, 1), first_draws(8, 1));
    }

    #[test]
    fn draws_during_counts_every_number_drawn_from_any_stream() {
        let (_, none) = draws_during(|| Rng::for_component(1, 1));
        assert_eq!(none, 0, "making a stream draws nothing");
        let ((), n) = draws_during(|| {
            let (mut a, mut b) = (Rng::for_component(1, 1), Rng::for_component(1, 2));
            a.next_u64();
            b.uniform();
            b.chance(0.5);
            a.normal(); // two uniforms
        });
        assert_eq!(n, 5);
        assert_eq!(draws_during(|| Rng::for_component(3, 3).chance(0.0)).1, 0, "chance(0) draws nothing");
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = Rng::for_component(1, 1);
        let n = 200_000;
        let mean = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
    }
}
