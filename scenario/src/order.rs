//! Stable sorts of the document layer's cold lists (occupancy spans, renamed servers, the
//! online result's order) through the kernel's one shared sort
//! ([`mlsched_kernel::order::sort_indices_by`]).
//!
//! Why: each closure handed to `sort_by`/`sort_unstable` compiles a copy of the standard
//! library's sort of its own (3 to 8 KB of wasm each, issue 44's web module budget); here only
//! the small permutation step is compiled per element type. The order is the one a stable sort
//! gives: ties end on the position, so the comparison is total and any correct sort agrees.
use core::cmp::Ordering;
use mlsched_kernel::order::sort_indices_by;

/// Sorts `v` stably by `cmp` (equal elements keep their order, as `slice::sort_by`).
///
/// A list longer than `u32::MAX` cannot occur (the positions are `u32`, and the lists sorted
/// here are bounded by the kernel's job, server and slot limits); it would be left as given.
pub(crate) fn sort_by<T>(v: &mut [T], cmp: &dyn Fn(&T, &T) -> Ordering) {
    let Ok(n) = u32::try_from(v.len()) else {
        return;
    };
    let mut pos: Vec<u32> = (0..n).collect();
    sort_indices_by(&mut pos, &|a, b| {
        cmp(&v[a as usize], &v[b as usize]).then(a.cmp(&b))
    });
    // `pos[k]` is the element that goes to `k`; `dest[p]` where the element at `p` goes. Each
    // swap puts one element in its place, so at most n swaps.
    let mut dest = vec![0u32; pos.len()];
    for (k, &p) in pos.iter().enumerate() {
        dest[p as usize] = k as u32;
    }
    for i in 0..dest.len() {
        while dest[i] as usize != i {
            let d = dest[i] as usize;
            v.swap(i, d);
            dest.swap(i, d);
        }
    }
}

/// Sorts `v` ascending by its natural order ([`sort_by`] with `Ord::cmp`).
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, &|a, b| a.cmp(b));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same order as the standard library's stable sort, ties included.
        #[test]
        fn same_as_std(v in proptest::collection::vec((0u8..4, any::<u16>()), 0..200)) {
            let mut want = v.clone();
            want.sort_by_key(|a| a.0);
            let mut got = v.clone();
            sort_by(&mut got, &|a, b| a.0.cmp(&b.0));
            prop_assert_eq!(&got, &want);
            let mut want = v.clone();
            want.sort_unstable();
            let mut got = v;
            sort(&mut got);
            prop_assert_eq!(got, want);
        }
    }
}
