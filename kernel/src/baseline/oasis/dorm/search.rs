//! The depth-first branch and bound of one pass: each job's count from high to low, pruned by
//! capacity, fairness loss, adjustments and the objective bound; a leaf is kept only if its
//! first-fit packing succeeds.
use super::knapsack::{knapsack, knapsack_prunes};
use super::{Ctx, DormState, EPS};
use crate::baseline::oasis::ps_for;

/// How one pass of the search ended.
pub(super) struct Pass {
    /// The objective of the best leaf that met the bounds (its counts in `d.best`, by depth).
    pub(super) found: Option<f64>,
    /// The node count when that leaf was found (or when the pass began).
    pub(super) last: u64,
    /// `Some(upper bound on the open subtrees)` if the pass stopped at the node budget.
    pub(super) stopped: Option<f64>,
}

/// Depth-first branch and bound for fairness bound `theta` and adjustment bound `amax`,
/// exact unless `nodes` (counted across the passes of one event) reaches `hard`, or `soft`
/// before a leaf is found. `seed`, the objective of a known allocation meeting both bounds, prunes from the
/// start; only leaves better than it by more than the tolerance are taken, so the answer is
/// the one the unseeded search gives.
pub(super) fn branch_and_bound(
    d: &mut DormState,
    ctx: &mut Ctx<'_>,
    m: usize,
    (theta, amax): (f64, u32),
    seed: Option<f64>,
    (soft, hard): (u64, u64),
    nodes: &mut u64,
) -> Pass {
    // Leaves must beat best + EPS: a seed lets in any leaf within EPS below it, as the first
    // leaf of an unseeded search would be.
    let mut best: Option<f64> = seed.map(|g| g - 2.0 * EPS);
    let mut pass = Pass {
        found: None,
        last: *nodes,
        stopped: None,
    };
    let mut depth = 0usize;
    if m > 0 {
        d.next[0] = top(d, ctx, 0) as i64;
    }
    loop {
        if depth == m {
            if best.is_none_or(|b| d.obj[m] > b + EPS) && leaf_packs(d, ctx, m) {
                best = Some(d.obj[m]);
                pass.found = best;
                pass.last = *nodes;
                d.best[..m].copy_from_slice(&d.val[..m]);
            }
            if depth == 0 {
                break;
            }
            depth -= 1;
            continue;
        }
        let v = d.next[depth];
        if v < 0 {
            if depth == 0 {
                break;
            }
            depth -= 1;
            continue;
        }
        if *nodes >= hard || (*nodes >= soft && pass.found.is_none()) {
            pass.stopped = Some(open_bound(d, ctx, m, depth));
            break;
        }
        d.next[depth] = v - 1;
        *nodes += 1;
        match child(d, ctx, m, depth, v as u32, theta, amax, best) {
            Step::Descend => {
                d.val[depth] = v as u32;
                depth += 1;
                if depth < m {
                    d.next[depth] = top(d, ctx, depth) as i64;
                }
            }
            Step::Skip => {}
            // Fewer workers only lose more fairness and bound no higher: none is better.
            Step::Cut => d.next[depth] = -1,
        }
    }
    pass
}

/// An upper bound on the objective of every allocation the stopped search has not ruled out:
/// for each depth k up to `depth` on the current path, the path's objective before k, job k at
/// its next untried count (fewer workers never use more), and [`rest_bound`] of the jobs after
/// k in the free capacity before k. Fairness and adjustments are relaxed.
fn open_bound(d: &DormState, ctx: &Ctx<'_>, m: usize, depth: usize) -> f64 {
    let mut upper = f64::NEG_INFINITY;
    for k in 0..=depth.min(m.saturating_sub(1)) {
        let v = d.next[k];
        if v < 0 {
            continue;
        }
        let job = &ctx.scn.jobs[d.act[k] as usize];
        let g = ctx.usage(job, v as u32, ps_for(job, v as u32)).0;
        upper = upper.max(d.obj[k] + g + rest_bound(d, ctx, m, k + 1, k));
    }
    upper
}

/// The objective bound of the jobs from depth `from` on with the free capacity of path state
/// `at`: the smaller of, per resource, free capacity against the jobs' largest use, and the
/// fractional knapsack on utilisation.
pub(super) fn rest_bound(d: &DormState, ctx: &Ctx<'_>, m: usize, from: usize, at: usize) -> f64 {
    let (r, w2) = (d.r, 2 * d.r);
    let free = &d.rem[at * w2..(at + 1) * w2];
    let mut cap = 0.0;
    for q in 0..r {
        let c = ctx.total.get(q);
        if c > 0.0 {
            let w = free[q].max(0.0).min(d.suf[from * w2 + q]);
            let p = free[r + q].max(0.0).min(d.suf[from * w2 + r + q]);
            cap += (w + p) / c;
        }
    }
    let mut knap = f64::INFINITY;
    for (q, &f) in free.iter().enumerate() {
        knap = knap.min(knapsack(d, m, 0, q, from, f));
    }
    cap.min(knap)
}

/// The largest count worth trying at `depth`: hi_j, and no more workers than the free
/// worker-pool capacity holds.
fn top(d: &DormState, ctx: &Ctx<'_>, depth: usize) -> u32 {
    let j = d.act[depth] as usize;
    let job = &ctx.scn.jobs[j];
    let base = depth * 2 * d.r;
    let mut v = d.hi[j];
    if d.twin[depth] {
        // Symmetry: any allocation can swap the counts of interchangeable jobs (same
        // objective, loss, adjustments, and the same units in the packing sequence).
        v = v.min(d.val[depth - 1]);
    }
    for q in 0..d.r {
        let w = job.worker_demand.get(q);
        if w > 0.0 {
            let fit = libm::floor((d.rem[base + q].max(0.0) + EPS) / w);
            if fit < v as f64 {
                v = fit as u32;
            }
        }
    }
    v
}

/// What to do with one tentative count.
enum Step {
    /// Feasible and promising: go one job deeper.
    Descend,
    /// Infeasible (capacity or adjustments): try the next lower count.
    Skip,
    /// Neither this count nor any lower one can beat the incumbent or meet the fairness bound.
    Cut,
}

/// Evaluates count `v` for the job at `depth`, writing the path state of `depth + 1`.
#[allow(clippy::too_many_arguments)]
fn child(
    d: &mut DormState,
    ctx: &Ctx<'_>,
    m: usize,
    depth: usize,
    v: u32,
    theta: f64,
    amax: u32,
    best: Option<f64>,
) -> Step {
    let r = d.r;
    let w2 = 2 * r;
    let j = d.act[depth] as usize;
    let job = &ctx.scn.jobs[j];
    let z = ps_for(job, v);
    let (base, nb) = (depth * w2, (depth + 1) * w2);
    let mut fits = true;
    for q in 0..r {
        let a = d.rem[base + q] - job.worker_demand.get(q) * v as f64;
        let b = d.rem[base + r + q] - job.ps_demand.get(q) * z as f64;
        fits &= a >= -EPS && b >= -EPS;
        d.rem[nb + q] = a;
        d.rem[nb + r + q] = b;
    }
    if !fits {
        return Step::Skip;
    }
    let (g, sigma) = ctx.usage(job, v, z);
    let loss = d.loss[depth] + (d.fair[j] - sigma).max(0.0);
    if loss + d.min_loss[depth + 1] > theta + EPS {
        return Step::Cut;
    }
    let adj = d.adj[depth] + u32::from(d.old[j] > 0 && v != d.old[j]);
    if adj > amax {
        return Step::Skip;
    }
    // Fairness with capacity: the remaining jobs gain at most the knapsack bound.
    if theta.is_finite() {
        let fs = d.fsuf[depth + 1];
        let short = |gain: f64| loss + (fs - gain) > theta + EPS;
        if short(d.gsuf[depth + 1]) || knapsack_prunes(d, m, 1, depth + 1, short) {
            return Step::Skip;
        }
    }
    let obj = d.obj[depth] + g;
    if let Some(b) = best {
        let mut bound = obj;
        for q in 0..r {
            let c = ctx.total.get(q);
            if c > 0.0 {
                let w = d.rem[nb + q].max(0.0).min(d.suf[nb + q]);
                let p = d.rem[nb + r + q].max(0.0).min(d.suf[nb + r + q]);
                bound += (w + p) / c;
            }
        }
        if bound <= b + EPS {
            return Step::Cut;
        }
        // Fewer workers of this job may leave room for denser ones: only this count goes.
        if knapsack_prunes(d, m, 0, depth + 1, |rest| obj + rest <= b + EPS) {
            return Step::Skip;
        }
    }
    d.obj[depth + 1] = obj;
    d.loss[depth + 1] = loss;
    d.adj[depth + 1] = adj;
    Step::Descend
}

/// Whether the path's counts pack first fit on the servers.
fn leaf_packs(d: &mut DormState, ctx: &mut Ctx<'_>, m: usize) -> bool {
    for k in 0..m {
        d.cand[d.act[k] as usize] = d.val[k];
    }
    ctx.packs(&d.pack[..m], &d.cand)
}
