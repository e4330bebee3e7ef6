//! The fractional knapsack bounds of the search: per job and pool resource the largest value
//! per unit, the depths in decreasing density, and the greedy sums that bound (and prune)
//! the jobs from a depth on.
use super::{Ctx, DormState, BLOCK};
use crate::baseline::oasis::ps_for;
use crate::order::sort_indices_by_keys;

/// The knapsack items of each job: for each value kind and pool resource q, the largest value
/// per unit of q over its counts 1..=hi_j (infinite if it uses none of q), and its largest
/// value; then each (kind, q)'s depths in decreasing density. Any allocation of the jobs from
/// a depth on gets at most the fractional knapsack over these items with q's free capacity.
pub(super) fn knapsack_items(d: &mut DormState, ctx: &Ctx<'_>, m: usize) {
    let r = d.r;
    let cap = d.pack.len();
    let nq = 2 * r;
    d.fsuf[m] = 0.0;
    d.gsuf[m] = 0.0;
    for k in (0..m).rev() {
        let j = d.act[k] as usize;
        let job = &ctx.scn.jobs[j];
        for kind in 0..2 {
            for q in 0..nq {
                d.dens[(kind * nq + q) * cap + k] = 0.0;
            }
        }
        for v in 1..=d.hi[j] {
            let z = ps_for(job, v);
            let (g, sigma) = ctx.usage(job, v, z);
            let values = [g, d.fair[j].min(sigma)];
            for q in 0..nq {
                let u = if q < r {
                    job.worker_demand.get(q) * v as f64
                } else {
                    job.ps_demand.get(q - r) * z as f64
                };
                for (kind, &val) in values.iter().enumerate() {
                    let at = (kind * nq + q) * cap + k;
                    let rho = if u > 0.0 { val / u } else { f64::INFINITY };
                    if rho > d.dens[at] {
                        d.dens[at] = rho;
                    }
                }
            }
        }
        let (g, sigma) = ctx.usage(job, d.hi[j], ps_for(job, d.hi[j]));
        d.vmax[k] = g;
        d.vmax[cap + k] = d.fair[j].min(sigma);
        d.fsuf[k] = d.fsuf[k + 1] + d.fair[j];
        d.gsuf[k] = d.gsuf[k + 1] + d.vmax[cap + k];
    }
    for kq in 0..2 * nq {
        let ord = &mut d.kord[kq * cap..kq * cap + m];
        for (k, o) in ord.iter_mut().enumerate() {
            *o = k as u32;
            d.dkeys[k] = -d.dens[kq * cap + k];
        }
        sort_indices_by_keys(ord, &d.dkeys, &mut d.scratch[..m]);
        let nb = cap.div_ceil(BLOCK);
        for (b, block) in d.kord[kq * cap..kq * cap + m].chunks(BLOCK).enumerate() {
            d.kmax[kq * nb + b] = block.iter().copied().max().unwrap_or(0);
        }
    }
}

/// The depths from `depth` on in the knapsack order of (kind, pool resource) `kq`, skipping
/// whole blocks of depths above (deep in the search, most of the order is the path's own jobs).
fn items(d: &DormState, kq: usize, m: usize, depth: usize) -> impl Iterator<Item = usize> + '_ {
    let cap = d.pack.len();
    let nb = cap.div_ceil(BLOCK);
    d.kord[kq * cap..kq * cap + m]
        .chunks(BLOCK)
        .zip(&d.kmax[kq * nb..(kq + 1) * nb])
        .filter(move |(_, &deepest)| deepest as usize >= depth)
        .flat_map(|(block, _)| block.iter().map(|&k| k as usize))
        .filter(move |&k| k >= depth)
}

/// The fractional knapsack bound of value `kind` over pool resource `q` for the jobs from
/// `depth` on, with `free` units of q.
pub(super) fn knapsack(
    d: &DormState,
    m: usize,
    kind: usize,
    q: usize,
    depth: usize,
    free: f64,
) -> f64 {
    knapsack_sum(d, m, kind * 2 * d.r + q, depth, free, |_| false)
}

/// The greedy sum behind [`knapsack`] over value-and-resource row `kq`: items by decreasing
/// density, the first that does not fit taken fractionally. `stop` sees the running total after
/// each item taken and ends the sum early when it returns true (the total so far is returned).
fn knapsack_sum(
    d: &DormState,
    m: usize,
    kq: usize,
    depth: usize,
    free: f64,
    mut stop: impl FnMut(f64) -> bool,
) -> f64 {
    let cap = d.pack.len();
    let kind = kq / (2 * d.r);
    let mut left = free.max(0.0);
    let mut total = 0.0;
    for k in items(d, kq, m, depth) {
        let v = d.vmax[kind * cap + k];
        if v <= 0.0 {
            continue;
        }
        let rho = d.dens[kq * cap + k];
        if rho == f64::INFINITY {
            total += v;
        } else if v / rho <= left {
            total += v;
            left -= v / rho;
        } else {
            // Densities decrease from here on: the rest of q is worth at most this rate.
            total += rho * left;
            break;
        }
        if stop(total) {
            break;
        }
    }
    total
}

/// Whether the knapsack bound of value `kind` over some pool resource, for the jobs from
/// `depth` on with the free capacity of path state `depth`, is `small` enough to prune. The
/// same sums as [`knapsack`], in the same order, but a resource's sum stops as soon as it is no
/// longer small (`small` must hold for every total below one it holds for): the least bound
/// over the resources is small exactly when one of them is, and most sums end after a few
/// items, which is where the search spent most of its time.
pub(super) fn knapsack_prunes(
    d: &DormState,
    m: usize,
    kind: usize,
    depth: usize,
    small: impl Fn(f64) -> bool,
) -> bool {
    let w2 = 2 * d.r;
    (0..w2).any(|q| {
        let free = d.rem[depth * w2 + q];
        small(knapsack_sum(d, m, kind * w2 + q, depth, free, |t| {
            !small(t)
        }))
    })
}
