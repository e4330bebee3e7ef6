//! Feasible-solution categories Psi = {(K_1, ..., K_S) | sum K_i = K, K_i >= 1} (Liu et al.,
//! Section IV-C): Algorithm 1's enumeration order, abs(Psi) = C(K-1, S-1), and unranking (the
//! n-th category of that order without enumerating the others) for JPS.
//!
//! Algorithm 1 is a mixed-radix counter: K_2 changes fastest, K_S slowest, and K_1 takes the
//! remainder. So the categories with a given K_S form one contiguous block, ordered by the
//! categories of (K - K_S, S - 1): that recursion gives [`unrank`] and [`rank`].
use super::PlacementError;

/// C(n, r) exactly, or `None` when it exceeds `u64::MAX`.
///
/// Uses the product formula C(n, i+1) = C(n, i) (n - i) / (i + 1), exact at every step, with
/// u128 intermediates.
pub fn binomial(n: u64, r: u64) -> Option<u64> {
    if r > n {
        return Some(0);
    }
    let r = r.min(n - r);
    let mut c: u128 = 1;
    for i in 0..r {
        c = c * u128::from(n - i) / u128::from(i + 1);
        if c > u128::from(u64::MAX) {
            return None;
        }
    }
    Some(c as u64)
}

/// abs(Psi) = C(K-1, S-1) for K workers and S jobs (eq. in Section IV-C).
pub fn count(k: u32, s: u32) -> Result<u64, PlacementError> {
    if s == 0 || k < s {
        return Err(PlacementError::FewerWorkersThanJobs {
            workers: k,
            jobs: s,
        });
    }
    binomial(u64::from(k) - 1, u64::from(s) - 1).ok_or(PlacementError::CategoryCountOverflow {
        workers: k,
        jobs: s,
    })
}

/// Algorithm 1's initial category {K - S + 1, 1, ..., 1} written into `out` (length S).
pub fn first(k: u32, out: &mut [u32]) {
    let s = out.len() as u32;
    for x in out.iter_mut() {
        *x = 1;
    }
    if let Some(x) = out.first_mut() {
        *x = k + 1 - s;
    }
}

/// Algorithm 1's step (lines 3-9): the next category after `cat`, in place. Returns `false`
/// when every K_2..K_S wrapped back to 1, i.e. the enumeration is complete.
pub fn next(k: u32, cat: &mut [u32]) -> bool {
    let s = cat.len();
    if s < 2 {
        return false;
    }
    // suffix = sum_{j > p} K_j, maintained as p climbs.
    let mut suffix: u32 = cat[2..].iter().sum();
    let mut p = 1;
    loop {
        // eq. (15) with 0-based p: K_hat = K - p - sum_{j > p} K_j.
        let hat = k.saturating_sub(p as u32).saturating_sub(suffix);
        if cat[p] < hat {
            cat[p] += 1;
            break;
        }
        cat[p] = 1;
        p += 1;
        if p == s {
            first(k, cat);
            return false;
        }
        suffix -= cat[p];
    }
    let rest: u32 = cat[1..].iter().sum();
    cat[0] = k - rest;
    true
}

/// Writes the `n`-th (0-based) category of Algorithm 1's order into `out` (length S).
///
/// Position p (from S-1 down to 1) takes the smallest v such that the blocks of values
/// 1..v-1 hold at most n categories; the block of value u holds C(rem - u - 1, p - 1)
/// categories (compositions of the remainder into p positive parts).
pub fn unrank(k: u32, n: u64, out: &mut [u32]) -> Result<(), PlacementError> {
    let s = out.len() as u32;
    let total = count(k, s)?;
    if n >= total {
        return Err(PlacementError::CategoryIndex {
            index: n,
            count: total,
        });
    }
    let mut n = n;
    let mut rem = u64::from(k);
    for p in (1..out.len()).rev() {
        let p64 = p as u64;
        let mut v = 1u64;
        // v can go up to rem - p (the other p parts need one each); n < total bounds the loop.
        while v < rem - p64 {
            let block = binomial(rem - v - 1, p64 - 1).unwrap_or(u64::MAX);
            if n < block {
                break;
            }
            n -= block;
            v += 1;
        }
        out[p] = v as u32;
        rem -= v;
    }
    if let Some(x) = out.first_mut() {
        *x = rem as u32;
    }
    Ok(())
}

/// The 0-based index of `cat` in Algorithm 1's order (inverse of [`unrank`]).
pub fn rank(k: u32, cat: &[u32]) -> u64 {
    let mut n = 0u64;
    let mut rem = u64::from(k);
    for p in (1..cat.len()).rev() {
        let p64 = p as u64;
        for u in 1..u64::from(cat[p]) {
            n = n.saturating_add(binomial(rem - u - 1, p64 - 1).unwrap_or(u64::MAX));
        }
        rem = rem.saturating_sub(u64::from(cat[p]));
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    #[test]
    fn k5_s3_order_matches_paper() {
        let mut c = vec![0u32; 3];
        first(5, &mut c);
        let mut all: Vec<Vec<u32>> = vec![c.clone()];
        while next(5, &mut c) {
            all.push(c.clone());
        }
        let want: Vec<Vec<u32>> = vec![
            vec![3, 1, 1],
            vec![2, 2, 1],
            vec![1, 3, 1],
            vec![2, 1, 2],
            vec![1, 2, 2],
            vec![1, 1, 3],
        ];
        assert_eq!(all, want);
        assert_eq!(count(5, 3).unwrap(), 6);
        for (n, w) in want.iter().enumerate() {
            let mut u = vec![0u32; 3];
            unrank(5, n as u64, &mut u).unwrap();
            assert_eq!(&u, w);
            assert_eq!(rank(5, w), n as u64);
        }
    }

    #[test]
    fn paper_counts() {
        assert_eq!(count(15, 4).unwrap(), 364);
        assert_eq!(count(30, 4).unwrap(), 3654);
        assert!(count(3, 4).is_err());
        assert!(count(1024, 64).is_err());
        let mut u = vec![0u32; 4];
        unrank(15, 363, &mut u).unwrap();
        assert_eq!(u, vec![1, 1, 1, 12]);
        unrank(15, 0, &mut u).unwrap();
        assert_eq!(u, vec![12, 1, 1, 1]);
    }
}
