//! Galloping searches in sorted runs: a commit's next touched cell, or a block's first
//! breakpoint at a booked slot, is usually near where the last search ended.

/// The first index at or after `from` where `pred` fails, `pred` holding on a prefix of `v`
/// that reaches at least `from`: steps of 1, 2, 4, ... from `from`, then a bisection of the
/// last step (cheap when the index is near, as a commit's next touched cell usually is).
pub(super) fn gallop<T>(v: &[T], from: usize, pred: impl Fn(&T) -> bool) -> usize {
    let (mut lo, mut hi, mut step) = (from, from, 1usize);
    while let Some(x) = v.get(hi) {
        if !pred(x) {
            break;
        }
        lo = hi + 1;
        hi = from.saturating_add(step);
        step = step.saturating_mul(2);
    }
    let hi = hi.min(v.len()).max(lo);
    lo + v.get(lo..hi).map_or(0, |w| w.partition_point(pred))
}

/// `v.partition_point(pred)` (`pred` holding on a prefix) by galloping from the end: steps
/// of 1, 2, 4, ... back from `v.len()`, then a bisection of the last step.
pub(super) fn gallop_back<T>(v: &[T], pred: impl Fn(&T) -> bool) -> usize {
    let (mut lo, mut hi, mut step) = (0usize, v.len(), 1usize);
    while hi > 0 {
        let i = hi.saturating_sub(step);
        if v.get(i).is_some_and(&pred) {
            lo = i + 1;
            break;
        }
        hi = i;
        step = step.saturating_mul(2);
    }
    lo + v.get(lo..hi).map_or(0, |w| w.partition_point(pred))
}
