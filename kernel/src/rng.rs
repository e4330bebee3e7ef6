//! The kernel's only source of randomness: SplitMix64 (Steele, Lea, Flood 2014), an integer
//! generator with a 64-bit state. Same seed => same stream on every target; no floats are used
//! to produce integers, and [`SplitMix64::next_f64`] builds its value from the top 53 bits.
use serde::{Deserialize, Serialize};

/// SplitMix64: `state += 0x9E3779B97F4A7C15`, then two xor-shift-multiply rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed` (the scenario's `seed`).
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n) without modulo bias (Lemire's multiply-shift with rejection);
    /// returns 0 for n = 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let threshold = n.wrapping_neg() % n;
        loop {
            let x = self.next_u64();
            let m = (x as u128) * (n as u128);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// Uniform in [lo, hi) (returns lo when hi <= lo).
    pub fn range_f64(&mut self, lo: f64, hi: f64) -> f64 {
        if hi <= lo {
            lo
        } else {
            lo + (hi - lo) * self.next_f64()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn reference_stream() {
        // Published SplitMix64 outputs for seed 1234567.
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
        assert_eq!(r.next_u64(), 9817491932198370423);
    }
    #[test]
    fn below_is_in_range() {
        let mut r = SplitMix64::new(9);
        for n in 1..200u64 {
            assert!(r.below(n) < n);
        }
        let x = r.next_f64();
        assert!((0.0..1.0).contains(&x));
    }
}
