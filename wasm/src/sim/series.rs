//! Usage and prices as piecewise-constant series: per resource and server, the slots where the
//! value changes. A trace of tens of thousands of slots (the Zhou et al. openb import at hour
//! slots: 28,672 slots x 1,213 servers x 4 resources) would be ~140 million numbers dense; its
//! series hold a few per job placement, so the page can keep and draw all of it.
//!
//! A series is flat, `[t0, v0, t1, v1, ...]` with `t0 = 0` and increasing `t`: the value is
//! `v_i` over slots `t_i .. t_{i+1}` (the last one up to the timeline's end).

/// Dense `[r][s][t]` matrices are handed to JS only up to this many numbers; larger timelines
/// carry their series alone (`Timeline::usage_series`).
pub const DENSE_MAX: usize = 1 << 21;

/// The series of a dense row.
pub fn compress(row: &[f64]) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    for (t, &v) in row.iter().enumerate() {
        if out.last().is_none_or(|last| last.to_bits() != v.to_bits()) {
            out.extend([t as f64, v]);
        }
    }
    if out.is_empty() {
        out.extend([0.0, 0.0]);
    }
    out
}

/// The value of `series` at slot `t` (0 for an empty series).
pub fn at(series: &[f64], t: u32) -> f64 {
    let n = series.len() / 2;
    // The number of change points at or before t; the last of them holds t's value.
    let k = partition_point(n, |i| series[2 * i] <= t as f64);
    k.checked_sub(1).map_or(0.0, |i| series[2 * i + 1])
}

fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The dense row of `series` over `steps` slots.
pub fn expand(series: &[f64], steps: u32) -> Vec<f64> {
    let mut row = vec![0.0; steps as usize];
    for (i, pair) in series.chunks_exact(2).enumerate() {
        let end = series
            .get(2 * i + 2)
            .map_or(steps as usize, |&t| t as usize);
        let start = (pair[0] as usize).min(end);
        row[start..end.min(steps as usize)].fill(pair[1]);
    }
    row
}

/// The series of a sum of constant amounts `(start, end, amount)` over slots `start..end`,
/// added in the given order (the engine's trace builds its prices the same way).
pub use mlsched_scenario::engine::trace::series_of_intervals as of_intervals;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let row = [0.0, 0.0, 2.5, 2.5, 1.0, 0.0];
        let s = compress(&row);
        assert_eq!(s, vec![0.0, 0.0, 2.0, 2.5, 4.0, 1.0, 5.0, 0.0]);
        assert_eq!(expand(&s, 6), row);
        assert_eq!((0..6).map(|t| at(&s, t)).collect::<Vec<_>>(), row);
        let iv = of_intervals(&[(2, 5, 1.0), (2, 4, 1.5)], 6);
        assert_eq!(iv, s);
    }
}
