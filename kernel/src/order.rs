//! Total-order sort helpers: every sort in the kernel breaks ties by index, so the result
//! depends only on the keys and their positions — never on the sort algorithm or the target.
//!
//! They sort a caller-owned index buffer in place (no allocation). Insertion sort is used for
//! short buffers and a bottom-up merge with caller scratch for long ones; both are stable, and
//! ties fall back to the index, which makes the order total.
use core::cmp::Ordering;

/// Sorts `idx` ascending by `cmp`, which must be a total order on distinct indices (every
/// caller breaks ties by the index itself), so the result is the one any correct sort gives.
///
/// Why a `&dyn` comparator: each closure handed to `sort_by`/`sort_unstable_by` compiles a
/// copy of the standard library's sort of its own (5 to 25 KB of wasm each); the kernel's
/// index sorts share this one copy instead. Not for the hottest loops, where the indirect
/// call per comparison would show.
#[inline(never)]
pub fn sort_indices_by(idx: &mut [u32], cmp: &dyn Fn(u32, u32) -> Ordering) {
    idx.sort_unstable_by(|&a, &b| cmp(a, b));
}

/// Sorts `v` ascending: [`sort_indices_by`] with the natural order. The cold `u32` sorts
/// (arrival slots, trace cuts, the visualiser's chunk slots) share that one copy instead of
/// compiling the standard library's sort for `u32` as well (wasm size); equal `u32`s cannot be
/// told apart, so the result is the one any sort gives.
pub fn sort_u32(v: &mut [u32]) {
    sort_indices_by(v, &|a, b| a.cmp(&b));
}

/// Sorts `v` ascending by the pairs' natural order through [`sort_indices_by`] (a sorted
/// permutation of the positions, then the pairs copied in that order), so the cold
/// `(u32, u32)` sorts (arrival orders, route neighbour lists) do not compile the standard
/// library's sort for pairs (wasm size). Equal pairs cannot be told apart: the result is the
/// one any sort gives. Allocates twice `v`'s length: for constructors, not decision paths.
#[cfg(feature = "alloc")]
pub fn sort_pairs(v: &mut [(u32, u32)]) {
    let mut pos: alloc::vec::Vec<u32> = (0..v.len() as u32).collect();
    sort_indices_by(&mut pos, &|a, b| {
        v[a as usize].cmp(&v[b as usize]).then(a.cmp(&b))
    });
    let sorted: alloc::vec::Vec<(u32, u32)> = pos.iter().map(|&p| v[p as usize]).collect();
    v.copy_from_slice(&sorted);
}

/// Total order on f64 keys: `f64::total_cmp` (so NaN cannot break the order), then the index.
pub fn cmp_f64_then_index(a: (f64, u32), b: (f64, u32)) -> Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

/// Sorts `idx` so that `key(idx[0]) <= key(idx[1]) <= ...`, ties by smaller index.
/// O(n^2) worst case: meant for n up to a few hundred (servers of one pool).
pub fn sort_indices_by_key<F: Fn(u32) -> f64>(idx: &mut [u32], key: F) {
    for i in 1..idx.len() {
        let cur = idx[i];
        let kc = key(cur);
        let mut j = i;
        while j > 0
            && cmp_f64_then_index((kc, cur), (key(idx[j - 1]), idx[j - 1])) == Ordering::Less
        {
            idx[j] = idx[j - 1];
            j -= 1;
        }
        idx[j] = cur;
    }
}

/// Like [`sort_indices_by_key`] with precomputed keys (`keys[i]` is the key of index `i`), in
/// O(n log n) using `scratch` (same length as `idx`). Returns `false` (and leaves `idx` as
/// given) if `scratch` is too short or an index is outside `keys`.
pub fn sort_indices_by_keys(idx: &mut [u32], keys: &[f64], scratch: &mut [u32]) -> bool {
    let n = idx.len();
    if scratch.len() < n || idx.iter().any(|&i| i as usize >= keys.len()) {
        return false;
    }
    let less = |a: u32, b: u32| {
        cmp_f64_then_index((keys[a as usize], a), (keys[b as usize], b)) == Ordering::Less
    };
    let mut width = 1;
    let mut src_is_idx = true;
    while width < n {
        {
            let (src, dst): (&[u32], &mut [u32]) = if src_is_idx {
                (&*idx, &mut scratch[..n])
            } else {
                (&scratch[..n], &mut *idx)
            };
            // `src` and `dst` are distinct buffers; merge runs of `width`.
            let mut start = 0;
            while start < n {
                let mid = (start + width).min(n);
                let end = (start + 2 * width).min(n);
                let (mut i, mut j, mut k) = (start, mid, start);
                while i < mid && j < end {
                    if less(src[j], src[i]) {
                        dst[k] = src[j];
                        j += 1;
                    } else {
                        dst[k] = src[i];
                        i += 1;
                    }
                    k += 1;
                }
                while i < mid {
                    dst[k] = src[i];
                    i += 1;
                    k += 1;
                }
                while j < end {
                    dst[k] = src[j];
                    j += 1;
                    k += 1;
                }
                start = end;
            }
        }
        src_is_idx = !src_is_idx;
        width *= 2;
    }
    if !src_is_idx {
        idx.copy_from_slice(&scratch[..n]);
    }
    true
}

/// Index of the smallest key (ties: smaller index); `None` for an empty slice.
pub fn argmin(keys: &[f64]) -> Option<u32> {
    let mut best: Option<u32> = None;
    for (i, &k) in keys.iter().enumerate() {
        match best {
            None => best = Some(i as u32),
            Some(b) => {
                if cmp_f64_then_index((k, i as u32), (keys[b as usize], b)) == Ordering::Less {
                    best = Some(i as u32)
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn merge_and_insertion_agree(keys in proptest::collection::vec(0u8..6, 0..80)) {
            let keys: std::vec::Vec<f64> = keys.into_iter().map(f64::from).collect();
            let n = keys.len() as u32;
            let mut a: std::vec::Vec<u32> = (0..n).rev().collect();
            let mut b = a.clone();
            let mut scratch = std::vec![0u32; keys.len()];
            sort_indices_by_key(&mut a, |i| keys[i as usize]);
            prop_assert!(sort_indices_by_keys(&mut b, &keys, &mut scratch));
            prop_assert_eq!(&a, &b);
            for w in a.windows(2) {
                let (x, y) = (w[0] as usize, w[1] as usize);
                prop_assert!(keys[x] < keys[y] || (keys[x] == keys[y] && x < y));
            }
        }
    }

    proptest! {
        #[test]
        fn shared_sorts_agree_with_std(v in proptest::collection::vec((0u32..5, 0u32..5), 0..60)) {
            let mut want = v.clone();
            want.sort_unstable();
            let mut got = v.clone();
            sort_pairs(&mut got);
            prop_assert_eq!(&got, &want);
            let mut xs: std::vec::Vec<u32> = v.iter().map(|p| p.0).collect();
            let mut ys = xs.clone();
            xs.sort_unstable();
            sort_u32(&mut ys);
            prop_assert_eq!(xs, ys);
        }
    }

    #[test]
    fn argmin_ties_by_index() {
        assert_eq!(argmin(&[3.0, 1.0, 1.0]), Some(1));
        assert_eq!(argmin(&[]), None);
    }
}
