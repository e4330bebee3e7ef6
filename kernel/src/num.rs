//! Numeric conventions shared by every algorithm (`docs/semantics.md`).
//!
//! Integer roundings absorb float noise the same way everywhere: `ceil(x)` is taken of
//! `x - 1e-9` and `floor(x)` of `x + 1e-9`. Costs and payoffs are compared with a relative
//! tolerance of 1e-12 only where the paper's rule is a comparison.

/// Absolute slack used by [`ceil_eps`] and [`floor_eps`].
pub const ROUND_EPS: f64 = 1e-9;
/// Relative tolerance of [`less`] / [`greater`].
pub const CMP_REL_EPS: f64 = 1e-12;

/// ceil(x - 1e-9), via `libm` so every target rounds alike.
pub fn ceil_eps(x: f64) -> f64 {
    libm::ceil(x - ROUND_EPS)
}

/// floor(x + 1e-9), via `libm`.
pub fn floor_eps(x: f64) -> f64 {
    libm::floor(x + ROUND_EPS)
}

/// floor(x + 1e-9) clamped to `0..=u32::MAX` (NaN: 0), exactly as [`floor_eps`] then a clamp
/// would give it, without the call: for y = x + 1e-9 >= 1 the float-to-integer cast truncates
/// toward zero, which is the floor of a positive number, and saturates at `u32::MAX` (fit
/// counts: how many copies of a demand fit a free capacity).
#[inline]
pub fn floor_fit(x: f64) -> u32 {
    let y = x + ROUND_EPS;
    if y >= u32::MAX as f64 {
        u32::MAX
    } else if y >= 1.0 {
        y as u32
    } else {
        0 // below 1, or NaN
    }
}

/// `a < b` by more than 1e-12 relative: a < b - 1e-12 max(1, |b|). Infinities compare as usual.
pub fn less(a: f64, b: f64) -> bool {
    a < less_bound(b)
}

/// The bound `less` compares against: `less(a, b)` is exactly `a < less_bound(b)`, so a loop
/// comparing many `a` against one `b` computes it once.
pub fn less_bound(b: f64) -> f64 {
    if b == f64::INFINITY {
        return b;
    }
    b - CMP_REL_EPS * max1(b)
}

/// `a > b` by more than 1e-12 relative: a > b + 1e-12 max(1, |b|).
pub fn greater(a: f64, b: f64) -> bool {
    if b == f64::NEG_INFINITY {
        return a > b;
    }
    a > b + CMP_REL_EPS * max1(b)
}

fn max1(b: f64) -> f64 {
    let m = libm::fabs(b);
    if m > 1.0 {
        m
    } else {
        1.0
    }
}

/// max(a, b) for non-NaN inputs, as a plain compare (`a` on ties). `f64::max` has NaN-ignoring
/// semantics that wasm32 lowers to a call to `fmax`; on hot loops over validated finite values
/// this compare is the same result without the call.
#[inline]
pub fn max_finite(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// min(a, b) for non-NaN inputs, as a plain compare (`a` on ties); see [`max_finite`].
#[inline]
pub fn min_finite(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// Canonical float for hashing and logs: -0.0 becomes 0.0 (NaN never reaches a log: inputs are
/// validated finite).
pub fn canon(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x
    }
}

/// A finite, non-negative f64 converted to u32 after `ceil_eps`, or `None` if out of range.
pub fn ceil_u32(x: f64) -> Option<u32> {
    let c = ceil_eps(x);
    if c.is_finite() && (0.0..=u32::MAX as f64).contains(&c) {
        Some(c as u32)
    } else if c.is_finite() && c < 0.0 {
        Some(0)
    } else {
        None
    }
}

/// The largest x in [lo, hi] with `ok(x)`, for a predicate true at `lo` and non-increasing in x
/// (true up to some x, false beyond): by binary search, O(log(hi - lo)) calls of `ok`.
pub fn last_true(lo: u128, hi: u128, ok: impl Fn(u128) -> bool) -> u128 {
    debug_assert!(lo <= hi && ok(lo));
    // Invariant: ok(lo); ok(x) false for every x > hi.
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn rounding_absorbs_noise() {
        assert_eq!(ceil_eps(3.0000000001), 3.0);
        assert_eq!(ceil_eps(3.1), 4.0);
        assert_eq!(floor_eps(2.9999999999), 3.0);
        assert_eq!(floor_eps(2.5), 2.0);
        assert_eq!(ceil_u32(-0.5), Some(0));
        assert_eq!(ceil_u32(f64::NAN), None);
    }
    #[test]
    fn tolerant_compare() {
        assert!(!less(1.0, 1.0 + 1e-14));
        assert!(less(1.0, 1.1));
        assert!(greater(2.0, 1.0));
        assert!(!greater(1.0 + 1e-14, 1.0));
        assert!(less(5.0, f64::INFINITY));
        assert_eq!(canon(-0.0).to_bits(), 0.0f64.to_bits());
    }
    #[test]
    fn last_true_finds_the_boundary() {
        assert_eq!(last_true(0, 100, |x| x <= 37), 37);
        assert_eq!(last_true(0, 100, |x| x == 0), 0);
        assert_eq!(last_true(5, 5, |_| true), 5);
        assert_eq!(last_true(0, u128::MAX, |_| true), u128::MAX);
        assert_eq!(last_true(0, u128::MAX, |x| x < 1 << 100), (1 << 100) - 1);
    }
}
