//! The room tests of the slot trees: [`RoomLevels`], the key resource and thresholds whose
//! per-level largest free rooms each node keeps, and [`room_code`], a free room rounded down
//! to one byte.
use super::ROOM_LEVELS;
use alloc::vec::Vec;

/// The joint room test of a pool's slot tree: a key resource and thresholds of its free room
/// (decreasing, at most [`ROOM_LEVELS`]); each node keeps, per threshold theta_k, the largest
/// free rooms over its servers whose key free room is at least theta_k. Any thresholds are
/// exact (a job's servers with room are all at the level of its demand); thresholds at the
/// jobs' demands make it tightest ([`RoomLevels::of`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RoomLevels {
    pub(crate) key: usize,
    pub(crate) theta: Vec<f64>,
}

impl RoomLevels {
    /// For demands `dem` (one per job) on servers of capacities `cap` (server-major, R each):
    /// the key resource is the one whose mean demand is the largest share of its mean
    /// capacity; the thresholds are its distinct positive demands (evenly spaced among them
    /// beyond [`ROOM_LEVELS`]), each a little below the demand so that the demand itself is
    /// at its level.
    pub(crate) fn of<'a>(
        dem: impl Iterator<Item = &'a [f64]> + Clone,
        cap: &[f64],
        nr: usize,
    ) -> Self {
        let mut best = (0usize, 0.0f64);
        for r in 0..nr {
            let (mut sd, mut nd) = (0.0f64, 0usize);
            for d in dem.clone() {
                sd += d.get(r).copied().unwrap_or(0.0);
                nd += 1;
            }
            let caps = cap.iter().skip(r).step_by(nr.max(1));
            let (sc, nc) = caps.fold((0.0f64, 0usize), |a, &c| (a.0 + c, a.1 + 1));
            if nd == 0 || nc == 0 || sc <= 0.0 {
                continue;
            }
            let share = (sd / nd as f64) / (sc / nc as f64);
            if share > best.1 {
                best = (r, share);
            }
        }
        let key = best.0;
        let mut v: Vec<f64> = dem
            .filter_map(|d| d.get(key).copied())
            .filter(|&x| x > 0.0 && x.is_finite())
            .collect();
        v.sort_by(|a, b| b.total_cmp(a));
        v.dedup_by(|a, b| a.to_bits() == b.to_bits());
        let theta = if v.len() <= ROOM_LEVELS {
            v
        } else {
            (0..ROOM_LEVELS)
                .map(|k| v[k * (v.len() - 1) / (ROOM_LEVELS - 1)])
                .collect()
        };
        RoomLevels {
            key,
            theta: theta.into_iter().map(|x| x * (1.0 - 1e-6)).collect(),
        }
    }
}

/// A free room `f` rounded down to one byte, monotone in `f`: 0 up to 2^-16 (and for -inf, a server
/// out of the tree), then 8 steps per power of two (the exponent and the top three bits of the
/// mantissa) up to 2^16, 255 from there. A server with room for a demand `d` has f >= d (1 - 2e-9)
/// ([`Grid::room_level`](super::Grid::room_level)), so its code is at least that value's: a code
/// below it proves no room, reading a byte.
pub(crate) fn room_code(f: f64) -> u8 {
    const LOW: f64 = 1.0 / 65536.0;
    if f.is_nan() || f < LOW {
        return 0;
    }
    if f >= 65536.0 {
        return 255;
    }
    let bits = f.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023; // -16..=15: f is normal here
    let m = ((bits >> 49) & 7) as i64;
    ((e + 16) * 8 + m + 1).clamp(1, 254) as u8
}
