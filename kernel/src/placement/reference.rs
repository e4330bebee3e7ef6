//! Paper-literal references (tests and benchmarks only).
//!
//! - [`literal_market`]: Algorithm 2's loop exactly as printed: each job prefers exactly its top
//!   K_i workers (ties by lower index), a worker is competed when two jobs prefer it, the
//!   lowest competed worker is raised by max(1, max_i (V_i - V_i^k)). It cycles on Table II
//!   (`docs/placement.md`), so it is capped and returns `None` then.
//! - [`per_worker_instance`]: the same instance with one class per worker, on which
//!   [`super::Market`] is the per-worker tie-aware market of `docs/placement.md` without any grouping.
//! - [`brute_force`]: every assignment with the category's counts (tiny inputs): the
//!   max-throughput oracle for the exact solver.
use super::Instance;
use alloc::vec;
use alloc::vec::Vec;

/// sum_top(Gamma, n): the sum of the n largest values (eq. 20).
pub fn sum_top(values: &[f64], n: usize, skip: Option<usize>) -> f64 {
    let mut v: Vec<f64> = values
        .iter()
        .enumerate()
        .filter(|(k, _)| Some(*k) != skip)
        .map(|(_, &x)| x)
        .collect();
    v.sort_by(|a, b| b.total_cmp(a));
    v.iter().take(n).sum()
}

/// Algorithm 2 lines 2-15 as printed; `Some(job_of)` if it stops within `cap` rounds.
pub fn literal_market(inst: &Instance, cat: &[u32], cap: u32) -> Option<Vec<u32>> {
    let (s, k) = (inst.s, inst.k);
    let mut price = vec![0.0; k];
    for _ in 0..cap {
        let gamma: Vec<Vec<f64>> = (0..s)
            .map(|i| (0..k).map(|w| inst.rho(i, w) - price[w]).collect())
            .collect();
        // preferred_graph: top K_i by Gamma, ties by lower index.
        let mut prefers = vec![vec![false; k]; s];
        for i in 0..s {
            let mut idx: Vec<usize> = (0..k).collect();
            idx.sort_by(|&a, &b| gamma[i][b].total_cmp(&gamma[i][a]).then(a.cmp(&b)));
            for &w in idx.iter().take(cat[i] as usize) {
                prefers[i][w] = true;
            }
        }
        let competed = (0..k).find(|&w| (0..s).filter(|&i| prefers[i][w]).count() > 1);
        let Some(w) = competed else {
            let mut job_of = vec![0u32; k];
            for i in 0..s {
                for x in 0..k {
                    if prefers[i][x] {
                        job_of[x] = i as u32;
                    }
                }
            }
            return Some(job_of);
        };
        let mut best: f64 = 0.0;
        for i in (0..s).filter(|&i| prefers[i][w]) {
            let n = cat[i] as usize;
            let d = sum_top(&gamma[i], n, None) - sum_top(&gamma[i], n, Some(w));
            best = best.max(d);
        }
        price[w] += best.max(1.0);
    }
    None
}

/// The instance with one class per worker (no grouping of identical columns).
pub fn per_worker_instance(inst: &Instance) -> Instance {
    let mut out = inst.clone();
    let (s, k) = (inst.s, inst.k);
    let c = &mut out.classes;
    c.of = (0..k as u32).collect();
    c.members = (0..k as u32).collect();
    c.start = (0..=k as u32).collect();
    c.rho = inst.rho.clone();
    c.order = Vec::with_capacity(s * k);
    for i in 0..s {
        let mut idx: Vec<u32> = (0..k as u32).collect();
        idx.sort_by(|&a, &b| {
            inst.rho(i, b as usize)
                .total_cmp(&inst.rho(i, a as usize))
                .then(a.cmp(&b))
        });
        c.order.extend_from_slice(&idx);
    }
    out
}

/// Max total throughput over every assignment with the category's counts (tiny K only).
pub fn brute_force(inst: &Instance, cat: &[u32]) -> f64 {
    let (s, k) = (inst.s, inst.k);
    let mut job_of = vec![0usize; k];
    let mut best = f64::NEG_INFINITY;
    loop {
        let mut counts = vec![0u32; s];
        for &j in &job_of {
            counts[j] += 1;
        }
        if counts == cat {
            let t: f64 = job_of
                .iter()
                .enumerate()
                .map(|(w, &j)| inst.rho(j, w))
                .sum();
            best = best.max(t);
        }
        let mut d = 0;
        loop {
            if d == k {
                return best;
            }
            job_of[d] += 1;
            if job_of[d] < s {
                break;
            }
            job_of[d] = 0;
            d += 1;
        }
    }
}
