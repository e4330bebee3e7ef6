//! Paper-literal references (tests and benchmarks only).
//!
//! - [`literal_market`]: Algorithm 2's loop exactly as printed: each job prefers exactly its top
//!   K_i workers (ties by lower index), a worker is competed when two jobs prefer it, the
//!   lowest competed worker is raised by max(1, max_i (V_i - V_i^k)). It cycles on Table II
//!   (`docs/placement.md`), so it is capped and returns `None` then.
//! - [`market`]: the tie-aware matching market of `docs/placement.md` per worker (no classes),
//!   with eqs. (19)-(22) computed here: Gamma_ik = rho_ik - p_k, the demand sets, the
//!   b-matching that decides clearing, the eq. (22) raise and the Hungarian set step.
//! - [`brute_force`]: every assignment with the category's counts (tiny inputs): the
//!   max-throughput oracle for the exact solver.
//!
//! Independent of the fast path: everything reads the model scenario (rho_ik is job i's
//! `throughput[k]`); nothing here uses `super::Instance`, `super::Market`, the exact solver or
//! the scheduler (`tests/tests/reference_independence.rs` scans this file). The fast market on
//! one class per worker is built by `super::per_worker::per_worker_instance`.
use crate::model::placement::PlacementScenario;
use alloc::vec;
use alloc::vec::Vec;

/// rho_ik: job i's throughput on worker k (eq. 19's value before prices).
fn rho(scn: &PlacementScenario, i: usize, k: usize) -> f64 {
    scn.jobs[i].throughput[k]
}

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
pub fn literal_market(scn: &PlacementScenario, cat: &[u32], cap: u32) -> Option<Vec<u32>> {
    let (s, k) = (scn.jobs.len(), scn.workers.len());
    let mut price = vec![0.0; k];
    for _ in 0..cap {
        let gamma: Vec<Vec<f64>> = (0..s)
            .map(|i| (0..k).map(|w| rho(scn, i, w) - price[w]).collect())
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

/// Max total throughput over every assignment with the category's counts (tiny K only).
pub fn brute_force(scn: &PlacementScenario, cat: &[u32]) -> f64 {
    let (s, k) = (scn.jobs.len(), scn.workers.len());
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
                .map(|(w, &j)| rho(scn, j, w))
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

/// Tolerance of valuation ties: 1e-9 relative.
fn tie(x: f64) -> f64 {
    1e-9 * libm::fabs(x).max(1.0)
}

/// Job i's demand at valuations `g` (Gamma_i): theta_i = its K_i-th best valuation, the workers
/// valued strictly above it, those tied at it, and how many of the tied it needs.
fn demand(g: &[f64], want: usize) -> (Vec<usize>, Vec<usize>, usize) {
    let mut v: Vec<f64> = g.to_vec();
    v.sort_by(|a, b| b.total_cmp(a));
    let theta = v[want - 1];
    let strict: Vec<usize> = (0..g.len())
        .filter(|&k| g[k] > theta + tie(theta))
        .collect();
    let tied: Vec<usize> = (0..g.len())
        .filter(|&k| libm::fabs(g[k] - theta) <= tie(theta))
        .collect();
    let need = want - strict.len();
    (strict, tied, need)
}

/// The per-worker tie-aware market (`docs/placement.md`, "The matching market"): job i buys K_i
/// = `cat[i]` workers; per round, Gamma_ik = rho_ik - p_k, each job demands its strict set and
/// `need` of its tied set; the market clears when disjoint bundles exist (b-matching by
/// augmenting paths), and returns the worker -> job assignment. Otherwise: a worker strictly
/// demanded by two jobs (the lowest) or the lowest worker of a constricted set (the tied workers
/// reached from a job left short, a Hall violator) rises by eq. (22),
/// max(1, max_i over its demanders (sum_top(Gamma_i, K_i) - sum_top(Gamma_i \ k, K_i)));
/// when that is the bare unit and the worker came from a constricted set, the whole set rises
/// by the least amount that ties a job of it with a worker outside (the Hungarian dual step).
/// `None` after `cap` raises.
pub fn market(scn: &PlacementScenario, cat: &[u32], cap: u32) -> Option<Vec<u32>> {
    let (s, k) = (scn.jobs.len(), scn.workers.len());
    let mut price = vec![0.0; k];
    for _ in 0..=cap {
        let gamma: Vec<Vec<f64>> = (0..s)
            .map(|i| (0..k).map(|w| rho(scn, i, w) - price[w]).collect())
            .collect();
        let dem: Vec<(Vec<usize>, Vec<usize>, usize)> =
            (0..s).map(|i| demand(&gamma[i], cat[i] as usize)).collect();
        let mut holder = vec![u32::MAX; k];
        let mut conflict: Option<usize> = None;
        for (i, d) in dem.iter().enumerate() {
            for &w in &d.0 {
                if holder[w] != u32::MAX {
                    conflict = Some(conflict.map_or(w, |c: usize| c.min(w)));
                }
                holder[w] = i as u32;
            }
        }
        let demanders = |w: usize| -> Vec<usize> {
            (0..s)
                .filter(|&i| dem[i].0.contains(&w) || dem[i].1.contains(&w))
                .collect()
        };
        let eq22 = |w: usize| -> f64 {
            let mut best: f64 = 0.0;
            for i in demanders(w) {
                let n = cat[i] as usize;
                best = best.max(sum_top(&gamma[i], n, None) - sum_top(&gamma[i], n, Some(w)));
            }
            best
        };
        if let Some(w) = conflict {
            // Eq. (22); below the unit, by exactly max_i (Gamma_iw - Gamma_i's (K_i+1)-th
            // best): w then ties for its keenest demander instead of overshooting (a unit
            // raise on identical workers only rotates the tie).
            let d = eq22(w);
            price[w] += if d >= 1.0 { d } else { d.max(tie(d)) };
            continue;
        }
        // b-matching of the tied workers not held strictly: job i takes dem[i].2 of them.
        let mut owner = holder.clone();
        let mut got = vec![0usize; s];
        let mut short: Option<usize> = None;
        for i in 0..s {
            while got[i] < dem[i].2 {
                let mut seen = vec![false; k];
                if augment(i, &dem, &holder, &mut owner, &mut seen) {
                    got[i] += 1;
                } else {
                    short = Some(i);
                    break;
                }
            }
            if short.is_some() {
                break;
            }
        }
        let Some(i0) = short else {
            return Some(owner);
        };
        // Constricted set: the tied workers (and their jobs) reachable from job i0 (it is never
        // empty: job i0 is short, so it has tied workers and all are taken).
        let mut jobs_in = vec![false; s];
        let mut set = vec![false; k];
        let mut stack = vec![i0];
        jobs_in[i0] = true;
        while let Some(i) = stack.pop() {
            for &w in &dem[i].1 {
                if set[w] {
                    continue;
                }
                // A tied worker held strictly by another job is over-demanded too, but
                // cannot move: it joins the set, its holder is not searched from.
                set[w] = true;
                if holder[w] != u32::MAX {
                    continue;
                }
                let o = owner[w];
                if o != u32::MAX && !jobs_in[o as usize] {
                    jobs_in[o as usize] = true;
                    stack.push(o as usize);
                }
            }
        }
        let w = (0..k).find(|&w| set[w])?;
        let d = eq22(w);
        if d >= 1.0 {
            price[w] += d;
            continue;
        }
        // The set step: raise the whole set by the least amount that creates a new tie: a job
        // of it with a worker outside (neither in the set nor held strictly by it), or the
        // holder of a strictly held worker of the set with its K_i-th valuation (then it can
        // let the worker go). The unit when no such tie exists.
        let mut step = f64::INFINITY;
        for w in (0..k).filter(|&w| set[w] && holder[w] != u32::MAX) {
            let h = holder[w] as usize;
            let mut v: Vec<f64> = gamma[h].clone();
            v.sort_by(|a, b| b.total_cmp(a));
            let gap = gamma[h][w] - v[cat[h] as usize - 1];
            if gap > tie(v[cat[h] as usize - 1]) {
                step = step.min(gap);
            }
        }
        for i in (0..s).filter(|&i| jobs_in[i]) {
            let theta = dem[i]
                .1
                .iter()
                .map(|&x| gamma[i][x])
                .fold(f64::NEG_INFINITY, f64::max);
            for x in (0..k).filter(|&x| !set[x] && !dem[i].0.contains(&x)) {
                let gap = theta - gamma[i][x];
                if gap > tie(theta) {
                    step = step.min(gap);
                }
            }
        }
        if !step.is_finite() {
            step = 1.0;
        }
        for x in (0..k).filter(|&x| set[x]) {
            price[x] += step;
        }
    }
    None
}

/// One augmenting path for job i over the tied workers not held strictly (Kuhn's algorithm).
fn augment(
    i: usize,
    dem: &[(Vec<usize>, Vec<usize>, usize)],
    holder: &[u32],
    owner: &mut [u32],
    seen: &mut [bool],
) -> bool {
    for &w in &dem[i].1 {
        if holder[w] != u32::MAX || seen[w] {
            continue;
        }
        seen[w] = true;
        let o = owner[w];
        if o == u32::MAX || augment(o as usize, dem, holder, owner, seen) {
            owner[w] = i as u32;
            return true;
        }
    }
    false
}
