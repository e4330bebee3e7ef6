//! What one entry (a server's prices and free rooms at a slot) offers a demand, and the
//! bounds over a group of entries: unit price sum_r p^r dem^r, fit (constraints 30/31), the
//! room test without division, and the group floor from least prices and least peak prices.
//! Shared by the market ([`super::market`]: its time-major copy's group summaries), the slot
//! trees ([`super::grid`]: their node summaries) and the listings of [`super::fast`].
use crate::limits::RESOURCES_MAX;
use crate::num::floor_fit;
use crate::resources::ResourceVec;

/// sum_r p^r dem^r in index order.
pub(crate) fn unit_of(prices: &[f64], dem: &ResourceVec) -> f64 {
    let mut acc = 0.0;
    for (r, &p) in prices.iter().enumerate() {
        acc += p * dem.get(r);
    }
    acc
}

/// floor(min_r (c^r - g^r) / dem^r) over dem^r > 0; `usage` empty means idle.
///
/// Each quotient is rounded as [`crate::num::floor_eps`] then clamped to `0..=u32::MAX`, without
/// calling `floor` (the sweep computes a fit per usage change, `docs/oasis.md` "Measured"): for
/// y = x + 1e-9, floor(y) <= 0 or NaN iff not y >= 1, floor(y) >= u32::MAX iff y >= u32::MAX
/// (an integer), and in between `y as u32` truncates a positive y, which is its floor. Same
/// result bit for bit.
pub(crate) fn fit_of(cap: &[f64], usage: &[f64], dem: &ResourceVec) -> u32 {
    let mut best = u32::MAX;
    for (r, &c) in cap.iter().enumerate() {
        let d = dem.get(r);
        if d > 0.0 {
            let g = if usage.is_empty() {
                0.0
            } else {
                usage.get(r).copied().unwrap_or(f64::INFINITY)
            };
            best = best.min(floor_fit((c - g) / d));
        }
    }
    best
}

/// [`fit_of`] from the free room c^r - g^r (R values, as the time-major copy holds it): the
/// same quotients, so the same fit bit for bit.
pub(crate) fn fit_free(free: &[f64], dem: &ResourceVec) -> u32 {
    let mut best = u32::MAX;
    for (&f, &d) in free.iter().zip(dem.as_slice()) {
        if d > 0.0 {
            best = best.min(floor_fit(f / d));
        }
    }
    best
}

/// Values per group of the least peak prices ([`super::market::Pool::groups`]): one over all
/// resources, one without each resource.
pub(crate) const PEAKS: usize = RESOURCES_MAX + 1;

/// Lowers `peaks` (R + 1 values) to one entry's peak prices `v` (R values): max_r v^r, then
/// for each r0, max over r != r0 -- the largest price unless r0 holds it, then the second
/// largest (one pass for both; `max` is exact, so ties give the same values).
pub(crate) fn entry_peaks(v: &[f64], peaks: &mut [f64; PEAKS]) {
    let (mut first, mut second, mut at) = (0.0f64, 0.0f64, usize::MAX);
    for (r, &x) in v.iter().enumerate() {
        if x > first {
            (second, first, at) = (first, x, r);
        } else {
            second = second.max(x);
        }
    }
    peaks[0] = peaks[0].min(first);
    for (r0, pk) in peaks.iter_mut().skip(1).take(v.len()).enumerate() {
        *pk = pk.min(if r0 == at { second } else { first });
    }
}

/// The least unit price sum_r p^r dem^r any entry of a group can have, from the group's least
/// prices `least` (R values) and least peak prices `peaks` (R + 1,
/// [`super::market::Pool::groups`]): the larger of sum_r least^r dem^r and (least peak over the
/// demanded resources) x (least positive demand), the latter when every resource, or all but one,
/// is demanded. Both are below the float unit price of every entry: float sums and products of
/// non-negative terms are monotone, and a float sum is at least each of its terms.
pub(crate) fn group_floor(
    least: &[f64],
    peaks: &[f64],
    dem: &ResourceVec,
    peak: Option<(usize, f64)>,
) -> f64 {
    let sum = unit_of(least, dem);
    match peak.and_then(|(i, wmin)| peaks.get(i).map(|&p| p * wmin)) {
        Some(b) if b > sum => b,
        _ => sum,
    }
}

/// Which least peak price bounds a demand's unit prices ([`group_floor`]): the index into a
/// group's [`PEAKS`] values (0 when every resource is demanded, 1 + r0 when all but r0 are)
/// and the least positive demand; `None` when two or more resources are not demanded.
pub(crate) fn peak_of(dem: &ResourceVec, nr: usize) -> Option<(usize, f64)> {
    let d = dem.as_slice().get(..nr)?;
    let mut off = None;
    let mut wmin = f64::INFINITY;
    for (r, &w) in d.iter().enumerate() {
        if w > 0.0 {
            wmin = wmin.min(w);
        } else if off.replace(r).is_some() {
            return None;
        }
    }
    wmin.is_finite().then_some((off.map_or(0, |r| r + 1), wmin))
}

/// `fit_free(free, dem) > 0`, mostly without dividing: per resource with dem^r > 0, a free
/// room f >= dem^r gives a quotient >= 1 (division rounds monotonically and 1 is a float),
/// f < dem^r / 2 one <= 1/2 (floor 0 even after + 1e-9); only in between is the quotient
/// computed. `free` must hold R values.
#[inline]
pub(crate) fn has_room(free: &[f64], dem: &ResourceVec) -> bool {
    for (&f, &d) in free.iter().zip(dem.as_slice()) {
        if d > 0.0 {
            if f >= d {
                continue;
            }
            if f < 0.5 * d || floor_fit(f / d) == 0 {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::floor_eps;
    use crate::oasis::market::GROUP;
    use alloc::vec;
    use alloc::vec::Vec;

    /// `fit_of` without `floor` and `has_room` without most divisions agree with the rounding
    /// of `floor_eps` on quotients around every integer boundary, 0, huge values and NaN.
    #[test]
    fn fits_round_as_floor_eps() {
        let literal = |x: f64| {
            let k = floor_eps(x);
            if k <= 0.0 || k.is_nan() {
                0
            } else if k >= u32::MAX as f64 {
                u32::MAX
            } else {
                k as u32
            }
        };
        let mut xs = vec![
            0.0,
            -0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
        ];
        for k in [
            0.5f64,
            1.0,
            2.0,
            3.0,
            7.0,
            4294967294.0,
            4294967295.0,
            4294967296.0,
        ] {
            for e in [0.0, 1e-9, 2e-9, 1e-12, 1e-15, 1e-6] {
                xs.extend([k - e, k + e, f64::from_bits(k.to_bits() - 1)]);
            }
        }
        for &x in &xs {
            assert_eq!(floor_fit(x), literal(x), "x = {x:e}");
        }
        let dem = ResourceVec::from_slice(&[0.25, 0.0, 3.0]).unwrap();
        let cap = [4.0, 0.0, 12.0];
        for a in 0..=40 {
            for b in 0..=130 {
                let g = [a as f64 * 0.1, 5.0, b as f64 * 0.1 - 1e-10 * (b % 3) as f64];
                let free: Vec<f64> = cap.iter().zip(&g).map(|(c, g)| c - g).collect();
                let fit = fit_of(&cap, &g, &dem);
                assert_eq!(fit_free(&free, &dem), fit);
                assert_eq!(has_room(&free, &dem), fit > 0);
            }
        }
    }

    fn rv(v: &[f64]) -> ResourceVec {
        ResourceVec::from_slice(v).unwrap()
    }

    /// A group's floor (`group_floor` with `peak_of`) is never above the float unit price of
    /// any of its entries: random groups of up to `GROUP` entries, prices over many orders of
    /// magnitude (as eq. (22) gives), demands with every resource, all but one, or fewer.
    #[test]
    fn group_floors_bound_every_entry() {
        let mut g = crate::rng::SplitMix64::new(7);
        let nr = 5;
        let mut tight = 0u32;
        for _ in 0..20_000 {
            let n = 1 + (g.next_u64() % GROUP as u64) as usize;
            let mut px = alloc::vec::Vec::new();
            for _ in 0..n * nr {
                // 1e-3 .. 1e12, sometimes exactly the idle price 1e-3
                let e = if g.next_u64() % 4 == 0 {
                    0.0
                } else {
                    g.next_f64() * 15.0
                };
                px.push(1e-3 * libm::pow(10.0, e));
            }
            let mut least = [f64::INFINITY; RESOURCES_MAX];
            let mut peaks = [f64::INFINITY; PEAKS];
            for v in px.chunks_exact(nr) {
                for (m, &x) in least.iter_mut().zip(v) {
                    *m = m.min(x);
                }
                entry_peaks(v, &mut peaks);
            }
            let zeros = g.next_u64() % 3; // resources not demanded
            let mut d = [0.0; 5];
            for (r, x) in d.iter_mut().enumerate() {
                if r as u64 >= zeros {
                    *x = 0.1 + g.next_f64() * 100.0;
                }
            }
            // shuffle which resources are not demanded
            d.rotate_left((g.next_u64() % nr as u64) as usize);
            let dem = rv(&d);
            let floor = group_floor(&least[..nr], &peaks[..nr + 1], &dem, peak_of(&dem, nr));
            let best = px
                .chunks_exact(nr)
                .map(|v| unit_of(v, &dem))
                .fold(f64::INFINITY, f64::min);
            assert!(
                floor <= best,
                "floor {floor} above an entry's unit price {best}"
            );
            tight += u32::from(floor >= 0.5 * best && unit_of(&least[..nr], &dem) < 0.5 * best);
        }
        // the peak floor is what makes it useful: within 2x of the true least where the sum
        // of least prices alone is not (4,088 of the 20,000 with this seed)
        assert!(tight > 2_000, "{tight}");
    }
}
