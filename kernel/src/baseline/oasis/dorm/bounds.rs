//! The per-event set-up of the search: the dominant-resource-fair shares f_j, the branching
//! order and the per-depth suffix bounds (least fairness loss, largest use).
use super::{Ctx, DormState};
use crate::baseline::oasis::ps_for;
use crate::limits::RESOURCES_MAX;
use crate::model::oasis::OasisJob;
use crate::order::{sort_indices_by, sort_indices_by_keys};
use crate::resources::ResourceVec;
use core::cmp::Ordering;

/// f_j by continuous dominant-resource fairness (water-filling): every active job's dominant
/// share rises at the same rate, each capped at the share of its hi_j workers, until some
/// resource of the whole cluster is used up. A worker's bundle counts its b_j / B_j share of
/// a PS.
pub(super) fn fair_shares(d: &mut DormState, ctx: &Ctx<'_>, m: usize) {
    let r = d.r;
    let mut n = 0;
    for k in 0..m {
        let j = d.pack[k] as usize;
        let dj = bundle_share(ctx, &ctx.scn.jobs[j]);
        if dj > 0.0 && d.hi[j] > 0 {
            d.keys[j] = dj * d.hi[j] as f64;
            d.act[n] = j as u32;
            n += 1;
        }
    }
    sort_indices_by_keys(&mut d.act[..n], &d.keys, &mut d.scratch[..n]);
    // Use of resource r at level l: fixed[r] (capped jobs) + l * slope[r] (rising jobs).
    let mut fixed = [0.0f64; RESOURCES_MAX];
    let mut slope = [0.0f64; RESOURCES_MAX];
    let mut level = f64::INFINITY;
    let mut prev = 0.0;
    for k in 0..n {
        let job = &ctx.scn.jobs[d.act[k] as usize];
        let dj = bundle_share(ctx, job);
        for (q, s) in slope.iter_mut().enumerate().take(r) {
            *s += bundle(job, q) / dj;
        }
    }
    for k in 0..n {
        let j = d.act[k] as usize;
        let job = &ctx.scn.jobs[j];
        let cap = d.keys[j];
        let mut reach = f64::INFINITY;
        for q in 0..r {
            if slope[q] > 0.0 {
                reach = reach.min((ctx.total.get(q) - fixed[q]) / slope[q]);
            }
        }
        if reach < cap {
            level = reach.max(prev);
            break;
        }
        let dj = bundle_share(ctx, job);
        for q in 0..r {
            let per = bundle(job, q) / dj;
            fixed[q] += cap * per;
            slope[q] -= per;
        }
        prev = cap;
    }
    for k in 0..n {
        let j = d.act[k] as usize;
        d.fair[j] = d.keys[j].min(level);
    }
}

/// Lexicographic order of two demand vectors.
pub(super) fn cmp_vec(a: &ResourceVec, b: &ResourceVec) -> Ordering {
    for q in 0..a.len().min(b.len()) {
        let c = a.get(q).total_cmp(&b.get(q));
        if c != Ordering::Equal {
            return c;
        }
    }
    a.len().cmp(&b.len())
}

/// Resource q of one worker's bundle: its demand plus its b_j / B_j share of a PS.
fn bundle(job: &OasisJob, q: usize) -> f64 {
    job.worker_demand.get(q) + job.ps_demand.get(q) * job.worker_bw / job.ps_bw
}

/// Dominant share of one worker's bundle over the cluster.
fn bundle_share(ctx: &Ctx<'_>, job: &OasisJob) -> f64 {
    let mut s: f64 = 0.0;
    for q in 0..ctx.total.len() {
        let c = ctx.total.get(q);
        if c > 0.0 {
            s = s.max(bundle(job, q) / c);
        }
    }
    s
}

/// Branching order (largest utilisation at hi_j first, ties by index) and the per-depth
/// suffix bounds: least fairness loss and largest use of the jobs from each depth on.
pub(super) fn order_and_bounds(
    d: &mut DormState,
    ctx: &Ctx<'_>,
    m: usize,
    wcap: &[f64; RESOURCES_MAX],
    pcap: &[f64; RESOURCES_MAX],
) {
    let r = d.r;
    for k in 0..m {
        let j = d.pack[k] as usize;
        let job = &ctx.scn.jobs[j];
        d.act[k] = j as u32;
        d.keys[j] = -ctx.usage(job, d.hi[j], ps_for(job, d.hi[j])).0;
    }
    let (keys, hi, old, jobs) = (&d.keys, &d.hi, &d.old, &ctx.scn.jobs);
    // By utilisation at hi_j, then grouped so that interchangeable jobs are adjacent.
    let class = |a: u32, b: u32| {
        let (ja, jb) = (&jobs[a as usize], &jobs[b as usize]);
        cmp_vec(&ja.worker_demand, &jb.worker_demand)
            .then_with(|| cmp_vec(&ja.ps_demand, &jb.ps_demand))
            .then_with(|| ja.worker_bw.total_cmp(&jb.worker_bw))
            .then_with(|| ja.ps_bw.total_cmp(&jb.ps_bw))
            .then(hi[a as usize].cmp(&hi[b as usize]))
            .then(old[a as usize].cmp(&old[b as usize]))
    };
    // Total (ties end on the index): the shared sort gives the order any sort would.
    sort_indices_by(&mut d.act[..m], &|a, b| {
        keys[a as usize]
            .total_cmp(&keys[b as usize])
            .then_with(|| class(a, b))
            .then(a.cmp(&b))
    });
    for k in 0..m {
        d.twin[k] = k > 0 && class(d.act[k - 1], d.act[k]) == Ordering::Equal;
    }
    let w2 = 2 * r;
    d.min_loss[m] = 0.0;
    for q in 0..w2 {
        d.suf[m * w2 + q] = 0.0;
    }
    for k in (0..m).rev() {
        let j = d.act[k] as usize;
        let job = &ctx.scn.jobs[j];
        let (v, z) = (d.hi[j], ps_for(job, d.hi[j]));
        let short = (d.fair[j] - ctx.usage(job, v, z).1).max(0.0);
        d.min_loss[k] = d.min_loss[k + 1] + short;
        for q in 0..r {
            d.suf[k * w2 + q] = d.suf[(k + 1) * w2 + q] + job.worker_demand.get(q) * v as f64;
            d.suf[k * w2 + r + q] = d.suf[(k + 1) * w2 + r + q] + job.ps_demand.get(q) * z as f64;
        }
    }
    d.rem[..r].copy_from_slice(&wcap[..r]);
    d.rem[r..w2].copy_from_slice(&pcap[..r]);
    d.obj[0] = 0.0;
    d.loss[0] = 0.0;
    d.adj[0] = 0;
}
