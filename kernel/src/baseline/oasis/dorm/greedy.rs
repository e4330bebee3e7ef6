//! The greedy allocation that seeds every pass it meets: the kept counts, then as many workers
//! as still fit for each job without any.
use super::search::rest_bound;
use super::{Ctx, DormState, EPS};
use crate::baseline::oasis::ps_for;
use crate::baseline::DORM_FAIRNESS_LOSS_MAX;
use crate::model::oasis::OasisJob;

/// The greedy allocation of an event (counts by depth in `d.inc`) and what it scores.
pub(super) struct Greedy {
    /// Utilisation objective.
    pub(super) obj: f64,
    /// Fairness loss.
    pub(super) loss: f64,
    /// Jobs with kept workers whose count changed.
    pub(super) adj: u32,
    /// Upper bound on any allocation of the event (capacity only).
    pub(super) root: f64,
}

impl Greedy {
    /// Whether it meets fairness bound `theta` and adjustment bound `amax`.
    pub(super) fn meets(&self, theta: f64, amax: u32) -> bool {
        self.loss <= theta + EPS && self.adj <= amax
    }

    /// The least fairness bound of the doubling sequence it meets (infinite if it breaks the
    /// adjustment bound `amax`).
    pub(super) fn ladder(&self, amax: u32) -> f64 {
        if self.adj > amax {
            return f64::INFINITY;
        }
        let mut theta = DORM_FAIRNESS_LOSS_MAX;
        while self.loss > theta + EPS {
            theta *= 2.0;
        }
        theta
    }
}

/// The greedy allocation: the kept counts (or none, should they no longer pack first fit:
/// first fit is not monotone, so the jobs that left can break it), then, in branching order,
/// each job without workers gets the most workers (with their PSs) that still fit on the
/// pools. Adding workers to a job without kept workers lowers no one's fairness and adjusts
/// no one, so it meets every bound the kept counts meet. If the whole does not pack in the
/// packing order (the fill was placed after the kept units), the kept counts stay alone.
pub(super) fn greedy(d: &mut DormState, ctx: &mut Ctx<'_>, m: usize) -> Greedy {
    for k in 0..m {
        let j = d.act[k] as usize;
        d.cand[j] = d.old[j];
    }
    let kept = ctx.place_all(&d.pack[..m], &d.cand);
    for k in 0..m {
        let j = d.act[k] as usize;
        d.inc[k] = if kept { d.old[j] } else { 0 };
        d.cand[j] = d.inc[k];
    }
    if !kept {
        ctx.workers.reset();
        ctx.ps.reset();
    }
    let mut filled = false;
    for k in 0..m {
        if d.inc[k] > 0 {
            continue;
        }
        let j = d.act[k] as usize;
        let job = &ctx.scn.jobs[j];
        let mut v = ctx.workers.room(&job.worker_demand, d.hi[j]);
        let ps_room = ctx.ps.room(&job.ps_demand, u32::MAX);
        while v > 0 && ps_for(job, v) > ps_room {
            v -= 1;
        }
        for _ in 0..v {
            ctx.workers.place_first(&job.worker_demand);
        }
        for _ in 0..ps_for(job, v) {
            ctx.ps.place_first(&job.ps_demand);
        }
        d.inc[k] = v;
        d.cand[j] = v;
        filled |= v > 0;
    }
    if filled && !ctx.packs(&d.pack[..m], &d.cand) {
        for k in 0..m {
            d.inc[k] = if kept { d.old[d.act[k] as usize] } else { 0 };
        }
    }
    ctx.workers.reset();
    ctx.ps.reset();
    let (mut obj, mut loss, mut adj) = (0.0, 0.0, 0u32);
    for k in 0..m {
        let j = d.act[k] as usize;
        let job = &ctx.scn.jobs[j];
        let v = d.inc[k];
        let (u, sigma) = ctx.usage(job, v, ps_for(job, v));
        obj += u;
        loss += (d.fair[j] - sigma).max(0.0);
        adj += u32::from(d.old[j] > 0 && v != d.old[j]);
    }
    Greedy {
        obj,
        loss,
        adj,
        root: rest_bound(d, ctx, m, 0, 0),
    }
}

/// The most workers job j can use (`useful`) that fit, with their PSs, on the idle pools.
pub(super) fn hi_alone(ctx: &Ctx<'_>, job: &OasisJob, useful: u32) -> u32 {
    let mut v = ctx.workers.room(&job.worker_demand, useful);
    while v > 0 && ctx.ps.room(&job.ps_demand, ps_for(job, v)) < ps_for(job, v) {
        v -= 1;
    }
    v
}
