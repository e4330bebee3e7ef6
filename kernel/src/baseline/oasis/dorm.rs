//! Dorm on OASiS scenarios, as the OASiS paper's comparison describes it (section V, scheme
//! (iv), after Sun et al.'s Dorm): every job is admitted; upon a job arrival or completion the
//! numbers and placement of workers / parameter servers of the unfinished jobs are recomputed
//! by an MILP that maximises resource utilisation subject to fairness and adjustment-overhead
//! constraints. Between events the allocation stays.
//!
//! The MILP and our readings are in `docs/oasis.md` ("The Dorm baseline"). In short, over the
//! active jobs J (arrived, unfinished) with worker counts X_j in 0..=hi_j and
//! Z_j = ceil(X_j b_j / B_j) parameter servers:
//! - maximise sum_j sum_r (w_j^r X_j + s_j^r Z_j) / C^r (C^r: the cluster's total of resource r);
//! - the per-server capacities hold;
//! - fairness loss sum_j max(0, f_j - sigma_j(X_j)) <= [`DORM_FAIRNESS_LOSS_MAX`] (f_j the
//!   dominant-resource-fair share, sigma_j the dominant share of X_j workers and Z_j PSs);
//! - at most [`DORM_ADJUST_MAX`] jobs that held workers before the event change their count.
//!
//! **Decomposition.** The worker counts are solved exactly; the placement is a first-fit-
//! decreasing packing (jobs by decreasing demand vectors, then index; each unit on the
//! lowest-numbered server where it fits), and a count vector is feasible only if that packing
//! places every unit. The objective depends on the counts only, so this gives up exactly the
//! count vectors that fit the servers by some other placement but not by this packing
//! (`tests/tests/dorm.rs` measures the gap against a brute-force enumeration).
//!
//! **Solver.** Depth-first branch and bound over the jobs (largest possible contribution first,
//! interchangeable jobs adjacent, then index), each job's count tried from high to low and never
//! above an interchangeable predecessor's (symmetry). A node is pruned when the aggregate
//! capacity, the fairness loss (what is lost so far plus the least the remaining jobs can
//! lose: each at its most workers, and a fractional knapsack per pool resource), the adjustment
//! count, or the objective bound (what is gained so far plus, per resource, the smaller of the
//! free capacity and the remaining jobs' largest use, and the same knapsack on utilisation)
//! rules it out; a leaf replaces the incumbent only if it is better by more than 1e-9 and its
//! packing succeeds, so among equal optima the first in this fixed order wins. Integral gangs
//! often cannot meet a tight fairness bound at all; then the bound is doubled, each time a
//! further solve, until an allocation meets it (`solve_passes`; [`DormStats`] counts these
//! events).
//!
//! **Budget.** Before searching, a greedy allocation (the kept counts, plus as many workers as
//! still fit for each job without any) is built; it meets every bound the kept counts meet, and
//! seeds each pass it meets as the incumbent to beat (pruning from the first node without
//! changing the answer). All passes of an event share a node budget ([`DORM_EVENT_NODES`]),
//! like a MILP solver's limit but counted in nodes so that runs repeat bit for bit: an event
//! that reaches it applies the best feasible allocation found and is counted as stopped at the
//! budget, with its optimality gap against an upper bound on the unexplored subtrees. Events
//! within the budget are solved exactly. All buffers are allocated when the runner is built.
use super::{ps_for, useful_workers, OasisBaseline, OasisBaselineOutput, Unit};
use crate::baseline::pool::Pool;
use crate::baseline::{
    dominant_share, BaselineError, Policy, DORM_ADJUST_MAX, DORM_FAIRNESS_LOSS_MAX,
};
use crate::limits::{DORM_ACTIVE_MAX, DORM_EVENT_NODES, RESOURCES_MAX};
use crate::model::oasis::{OasisJob, OasisScenario};
use crate::order::{sort_indices_by, sort_indices_by_keys};
use crate::resources::ResourceVec;
use crate::Slot;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

/// Objective and constraint comparisons tolerate this much floating-point noise.
const EPS: f64 = 1e-9;

/// Entries of a knapsack order per skip block (see `DormState::kmax`).
const BLOCK: usize = 32;

/// Counters of Dorm's solves over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DormStats {
    /// Arrival / completion events solved.
    pub events: u32,
    /// Events where no allocation met [`DORM_FAIRNESS_LOSS_MAX`] within the adjustment bound,
    /// so the fairness bound was doubled until one did.
    pub relaxed_fair: u32,
    /// Events where both bounds had to be lifted (no allocation met the adjustment bound at
    /// any fairness bound).
    pub relaxed_all: u32,
    /// The largest fairness bound an event used (infinite after a lifted event).
    pub theta_max: f64,
    /// The fairness bound the latest event used (infinite if it lifted both bounds).
    pub theta_last: f64,
    /// Branch-and-bound nodes over all events.
    pub nodes: u64,
    /// Most nodes of one event.
    pub nodes_event_max: u64,
    /// Nodes of the passes that found no allocation before the fairness bound was doubled
    /// (proving it could not be met, or leaving it undecided at their share of the budget).
    pub nodes_infeasible: u64,
    /// Nodes of the deciding passes after their last incumbent improvement (proving it
    /// optimal, or searching on until the budget ran out).
    pub nodes_proof: u64,
    /// Events solved to proven optimality (the search finished within the budget).
    pub optimal: u32,
    /// Events whose search reached the per-event budget ([`DORM_EVENT_NODES`] unless set):
    /// the best feasible allocation found so far was applied, or a smaller fairness bound was
    /// left undecided.
    pub budget_stops: u32,
    /// The largest relative optimality gap of a budget-stopped event: (upper bound -
    /// incumbent) / upper bound, 0 when every event was solved to optimality.
    pub gap_max: f64,
}

/// Dorm's allocation and solver buffers (all empty for the other policies).
#[derive(Clone, Debug, Default)]
pub(super) struct DormState {
    /// Resources R.
    r: usize,
    /// X_j: the worker count kept between events, per job.
    x: Vec<u32>,
    /// X_j before the event (capped at hi_j), per job.
    old: Vec<u32>,
    /// hi_j: the most workers job j can use and fit on the idle cluster, per job.
    hi: Vec<u32>,
    /// f_j: dominant-resource-fair share of the event, per job.
    fair: Vec<f64>,
    /// Sort keys, per job.
    keys: Vec<f64>,
    /// A leaf's counts, per job (for the packing check).
    cand: Vec<u32>,
    /// Active jobs in packing order: by demands (worker, then PS; so jobs with equal demands
    /// are adjacent), then index.
    pack: Vec<u32>,
    /// Active jobs of the last event (`pack[..pack_len]`).
    pack_len: usize,
    /// Per depth: the job is interchangeable with the one before it (same demands,
    /// bandwidths, hi_j and previous count), so it gets no more workers than that one.
    twin: Vec<bool>,
    /// Active jobs in branching order.
    act: Vec<u32>,
    /// Sort scratch.
    scratch: Vec<u32>,
    /// Next count to try at each depth (-1: exhausted).
    next: Vec<i64>,
    /// Count chosen at each depth on the current path, and in the incumbent.
    val: Vec<u32>,
    best: Vec<u32>,
    /// Per depth: objective, fairness loss and adjustments of the path so far.
    obj: Vec<f64>,
    loss: Vec<f64>,
    adj: Vec<u32>,
    /// Per depth: the least fairness loss the jobs from this depth on can have.
    min_loss: Vec<f64>,
    /// Per depth, 2R values: free worker-pool then PS-pool capacity after the path.
    rem: Vec<f64>,
    /// Per depth, 2R values: the largest worker-pool then PS-pool use of the jobs from this
    /// depth on.
    suf: Vec<f64>,
    /// Knapsack bounds, per value kind (0: utilisation, 1: fairness gain min(f_j, sigma_j)),
    /// pool resource q (worker pool r, then PS pool r) and depth: the most value per unit of
    /// q the job at that depth can get at any count.
    dens: Vec<f64>,
    /// Per kind and depth: the most value the job can get (at hi_j).
    vmax: Vec<f64>,
    /// Per kind and pool resource: the depths in decreasing density (ties by depth).
    kord: Vec<u32>,
    /// Per kind and pool resource: the deepest depth in each block of [`BLOCK`] entries of
    /// `kord` (a bound's scan skips the blocks holding only jobs already on the path).
    kmax: Vec<u32>,
    /// Sort keys by depth.
    dkeys: Vec<f64>,
    /// Per depth: the sum of f_j and of the most fairness gain of the jobs from it on.
    fsuf: Vec<f64>,
    gsuf: Vec<f64>,
    /// The greedy incumbent's counts, per depth.
    inc: Vec<u32>,
    /// Node budget of one event ([`DORM_EVENT_NODES`] unless set).
    budget: u64,
    /// The adjustment bound ([`DORM_ADJUST_MAX`] unless set).
    adjust_max: u32,
    stats: DormStats,
}

impl DormState {
    /// Buffers for `n` jobs over `r` resources if `policy` is Dorm, nothing otherwise.
    pub(super) fn new(policy: Policy, n: usize, r: usize) -> Self {
        if policy != Policy::Dorm {
            return DormState::default();
        }
        let cap = n.min(DORM_ACTIVE_MAX);
        DormState {
            r,
            x: vec![0; n],
            old: vec![0; n],
            hi: vec![0; n],
            fair: vec![0.0; n],
            keys: vec![0.0; n],
            cand: vec![0; n],
            pack: vec![0; cap],
            pack_len: 0,
            twin: vec![false; cap],
            act: vec![0; cap],
            scratch: vec![0; cap],
            next: vec![0; cap + 1],
            val: vec![0; cap],
            best: vec![0; cap],
            obj: vec![0.0; cap + 1],
            loss: vec![0.0; cap + 1],
            adj: vec![0; cap + 1],
            min_loss: vec![0.0; cap + 1],
            rem: vec![0.0; (cap + 1) * 2 * r],
            suf: vec![0.0; (cap + 1) * 2 * r],
            dens: vec![0.0; 2 * 2 * r * cap],
            vmax: vec![0.0; 2 * cap],
            kord: vec![0; 2 * 2 * r * cap],
            kmax: vec![0; 2 * 2 * r * cap.div_ceil(BLOCK)],
            dkeys: vec![0.0; cap],
            fsuf: vec![0.0; cap + 1],
            gsuf: vec![0.0; cap + 1],
            inc: vec![0; cap],
            budget: DORM_EVENT_NODES,
            adjust_max: DORM_ADJUST_MAX,
            stats: DormStats::default(),
        }
    }
}

/// The problem of one event: the scenario, the cluster totals and the pools to pack into.
struct Ctx<'s> {
    scn: &'s OasisScenario,
    /// C^r: worker plus PS capacity.
    total: &'s ResourceVec,
    workers: &'s mut Pool,
    ps: &'s mut Pool,
}

impl Ctx<'_> {
    /// (utilisation term, dominant share) of job j holding v workers and z PSs.
    fn usage(&self, job: &OasisJob, v: u32, z: u32) -> (f64, f64) {
        let mut a = job.worker_demand;
        let mut util = 0.0;
        for (r, x) in a.as_mut_slice().iter_mut().enumerate() {
            *x = *x * v as f64 + job.ps_demand.get(r) * z as f64;
            let c = self.total.get(r);
            if c > 0.0 {
                util += *x / c;
            }
        }
        (util, dominant_share(&a, self.total))
    }

    /// First-fit packing of the counts `cand` of the jobs `pack` (in that order): `true` if
    /// every unit is placed. The pools are left reset.
    fn packs(&mut self, pack: &[u32], cand: &[u32]) -> bool {
        let ok = self.place_all(pack, cand);
        self.workers.reset();
        self.ps.reset();
        ok
    }

    /// Like [`Ctx::packs`], but the pools keep what was placed (up to a failure).
    fn place_all(&mut self, pack: &[u32], cand: &[u32]) -> bool {
        self.workers.reset();
        self.ps.reset();
        for &j in pack {
            let job = &self.scn.jobs[j as usize];
            let v = cand[j as usize];
            for _ in 0..v {
                if self.workers.place_first(&job.worker_demand).is_none() {
                    return false;
                }
            }
            for _ in 0..ps_for(job, v) {
                if self.ps.place_first(&job.ps_demand).is_none() {
                    return false;
                }
            }
        }
        true
    }
}

impl OasisBaseline<'_> {
    /// One Dorm slot: re-solve on an arrival at `t` or a completion in `t - 1`, then place the
    /// kept allocation (the same first-fit-decreasing packing the solve checked).
    pub(super) fn dorm(
        &mut self,
        t: Slot,
        out: &mut dyn FnMut(&OasisBaselineOutput),
    ) -> Result<(), BaselineError> {
        let arrival = self.scn.jobs.iter().any(|j| j.arrival == t);
        if arrival || self.replan {
            self.replan = false;
            self.dorm_solve(t)?;
        }
        for k in 0..self.dorm.pack_len {
            let j = self.dorm.pack[k] as usize;
            let x = self.dorm.x[j];
            if x > 0 && self.arrived(j, t) {
                self.dorm_place(j, x, t, out);
            }
        }
        Ok(())
    }

    /// First-fit placement of job j's x workers and their PSs (the packing the solve checked).
    fn dorm_place(&mut self, j: usize, x: u32, t: Slot, out: &mut dyn FnMut(&OasisBaselineOutput)) {
        let job = &self.scn.jobs[j];
        let unit = |ps, server| {
            OasisBaselineOutput::Unit(Unit {
                slot: t,
                job: j as u32,
                ps,
                server,
            })
        };
        for _ in 0..x {
            if let Some(h) = self.workers.place_first(&job.worker_demand) {
                self.jobs[j].workers += 1;
                // As for the other baselines: the restart fingerprint counts units.
                self.restarts.place(j, 0, 0);
                self.spans.mark(j, h);
                out(&unit(false, h));
            }
        }
        for _ in 0..ps_for(job, x) {
            if let Some(k) = self.ps.place_first(&job.ps_demand) {
                self.jobs[j].ps += 1;
                self.restarts.place(j, 1, 0);
                out(&unit(true, k));
            }
        }
    }

    /// Dorm's worker count per job (input order) since the last event.
    pub fn dorm_allocation(&self) -> &[u32] {
        &self.dorm.x
    }

    /// The dominant-resource-fair share f_j of each job at the last event (0 for jobs that
    /// were not active).
    pub fn dorm_fair_shares(&self) -> &[f64] {
        &self.dorm.fair
    }

    /// Dorm's solver counters so far.
    pub fn dorm_stats(&self) -> DormStats {
        self.dorm.stats
    }

    /// Sets the node budget of one event (default [`DORM_EVENT_NODES`]): an event whose
    /// search reaches it applies the best feasible allocation found so far (tests raise it to
    /// solve exactly, or lower it to exercise the stop).
    pub fn set_dorm_event_nodes(&mut self, budget: u64) {
        self.dorm.budget = budget;
    }

    /// Sets the adjustment bound (default [`DORM_ADJUST_MAX`]): at most `max` jobs that held
    /// workers before an event change their count.
    pub fn set_dorm_adjust_max(&mut self, max: u32) {
        self.dorm.adjust_max = max;
    }

    /// Solves the event at `t` and keeps its allocation in `dorm.x`.
    fn dorm_solve(&mut self, t: Slot) -> Result<(), BaselineError> {
        let n = self.jobs.len();
        let mut m = 0usize;
        for j in 0..n {
            self.dorm.fair[j] = 0.0;
            if !self.arrived(j, t) {
                self.dorm.x[j] = 0;
                continue;
            }
            if m < self.dorm.pack.len() {
                self.dorm.pack[m] = j as u32;
            }
            m += 1;
        }
        if m > self.dorm.pack.len() {
            return Err(BaselineError::DormActive {
                slot: t,
                active: m as u32,
            });
        }
        let r = self.dorm.r;
        let mut wcap = [0.0; RESOURCES_MAX];
        let mut pcap = [0.0; RESOURCES_MAX];
        let (wt, pt) = (self.workers.total(r)?, self.ps.total(r)?);
        for k in 0..r {
            wcap[k] = wt.get(k);
            pcap[k] = pt.get(k);
        }
        let mut ctx = Ctx {
            scn: self.scn,
            total: &self.total,
            workers: &mut self.workers,
            ps: &mut self.ps,
        };
        let d = &mut self.dorm;
        d.pack_len = m;
        let jobs = &ctx.scn.jobs;
        // The shared `&dyn` sort, not a closure sort of its own (wasm size): the order is
        // total (ties end on the index), so it is the one any correct sort gives.
        sort_indices_by(&mut d.pack[..m], &|a, b| {
            let (ja, jb) = (&jobs[a as usize], &jobs[b as usize]);
            cmp_vec(&jb.worker_demand, &ja.worker_demand)
                .then_with(|| cmp_vec(&jb.ps_demand, &ja.ps_demand))
                .then(a.cmp(&b))
        });
        for k in 0..m {
            let j = d.pack[k] as usize;
            let job = &ctx.scn.jobs[j];
            d.hi[j] = hi_alone(&ctx, job, useful_workers(job, &self.jobs[j]));
            d.old[j] = d.x[j].min(d.hi[j]);
        }
        fair_shares(d, &ctx, m);
        order_and_bounds(d, &ctx, m, &wcap, &pcap);
        knapsack_items(d, &ctx, m);
        let mut nodes = 0u64;
        solve_passes(d, &mut ctx, m, &mut nodes);
        d.stats.events += 1;
        d.stats.nodes += nodes;
        d.stats.nodes_event_max = d.stats.nodes_event_max.max(nodes);
        for k in 0..m {
            let j = d.act[k] as usize;
            d.x[j] = d.best[k];
        }
        Ok(())
    }
}

/// The solves of one event, leaving the allocation in `d.best` (by depth): the fairness bound
/// [`DORM_FAIRNESS_LOSS_MAX`] doubled until an allocation meets it with the adjustment bound
/// (once it exceeds the sum of the fair shares every allocation meets it, and the kept
/// allocation meets the adjustment bound if it still packs), then, should even that fail, both
/// bounds lifted. All passes share the event's node budget. A pass the greedy allocation does
/// not meet may use a quarter of what is left before it has found an allocation; if it has
/// not by then, the bound is left undecided and doubled (the event then counts as stopped at
/// the budget), so a hard infeasibility proof cannot starve the bounds that can be met. A pass
/// that reaches the budget otherwise ends the event ([`stop_at_budget`]).
fn solve_passes(d: &mut DormState, ctx: &mut Ctx<'_>, m: usize, nodes: &mut u64) {
    let g = greedy(d, ctx, m);
    let total_fair: f64 = (0..m).map(|k| d.fair[d.pack[k] as usize]).sum();
    let mut theta = DORM_FAIRNESS_LOSS_MAX;
    let mut amax = d.adjust_max;
    // A smaller fairness bound was left undecided.
    let mut undecided = false;
    loop {
        let seed = g.meets(theta, amax).then_some(g.obj);
        let before = *nodes;
        let left = d.budget.saturating_sub(before);
        let soft = if seed.is_some() { left } else { left / 4 };
        let limits = (before.saturating_add(soft), d.budget);
        let pass = branch_and_bound(d, ctx, m, (theta, amax), seed, limits, nodes);
        let open = pass.stopped.is_some() && pass.found.is_none() && seed.is_none();
        if pass.stopped.is_some() && !open {
            d.stats.nodes_proof += *nodes - pass.last;
            stop_at_budget(d, &g, theta, &pass, seed);
            return;
        }
        if !open && (pass.found.is_some() || seed.is_some()) {
            if pass.found.is_none() {
                // Nothing beat the greedy allocation by more than the tolerance.
                d.best[..m].copy_from_slice(&d.inc[..m]);
            }
            d.stats.nodes_proof += *nodes - pass.last;
            if undecided {
                // Optimal at this bound, but a smaller one was not ruled out.
                d.stats.budget_stops += 1;
            } else {
                d.stats.optimal += 1;
            }
            used_theta(&mut d.stats, theta);
            return;
        }
        d.stats.nodes_infeasible += *nodes - before;
        undecided |= open;
        if theta > total_fair + EPS {
            // Not even the kept allocation meets the adjustment bound: lift both bounds (the
            // greedy seed meets them, so this pass always decides).
            theta = f64::INFINITY;
            amax = u32::MAX;
        } else {
            theta *= 2.0;
        }
    }
}

/// Records the fairness bound an event used.
fn used_theta(st: &mut DormStats, theta: f64) {
    if theta.is_infinite() {
        st.relaxed_all += 1;
    } else if theta > DORM_FAIRNESS_LOSS_MAX {
        st.relaxed_fair += 1;
    }
    st.theta_max = st.theta_max.max(theta);
    st.theta_last = theta;
}

/// Ends an event whose pass at fairness bound `theta` reached the node budget. `found` is the
/// objective of the pass's best leaf (in `d.best`), `seed` the greedy allocation's if it meets
/// the pass's bounds, `bound` an upper bound on the pass's open subtrees; the better of the two
/// is applied. With neither, the greedy allocation is applied at the least doubled fairness
/// bound it meets, and the gap is measured against the relaxation's bound at the root (any
/// bound Dorm would reach may allow more).
fn stop_at_budget(d: &mut DormState, g: &Greedy, theta: f64, pass: &Pass, seed: Option<f64>) {
    let m = d.pack_len;
    let bound = pass.stopped.unwrap_or(f64::INFINITY);
    let (inc, upper, used) = match (pass.found, seed) {
        (Some(f), s) if s.is_none_or(|greedy| f > greedy + EPS) => (f, bound.max(f), theta),
        (_, Some(_)) => {
            d.best[..m].copy_from_slice(&d.inc[..m]);
            (g.obj, bound.max(g.obj), theta)
        }
        // No allocation meeting the pass's bounds (`(Some, None)` is the first arm's; this
        // is not reached from `solve_passes`, which doubles the bound instead).
        (_, None) => {
            d.best[..m].copy_from_slice(&d.inc[..m]);
            (g.obj, g.root.max(g.obj), g.ladder(d.adjust_max).max(theta))
        }
    };
    let gap = if upper > EPS {
        ((upper - inc) / upper).max(0.0)
    } else {
        0.0
    };
    d.stats.budget_stops += 1;
    d.stats.gap_max = d.stats.gap_max.max(gap);
    used_theta(&mut d.stats, used);
}

/// The greedy allocation of an event (counts by depth in `d.inc`) and what it scores.
struct Greedy {
    /// Utilisation objective.
    obj: f64,
    /// Fairness loss.
    loss: f64,
    /// Jobs with kept workers whose count changed.
    adj: u32,
    /// Upper bound on any allocation of the event (capacity only).
    root: f64,
}

impl Greedy {
    /// Whether it meets fairness bound `theta` and adjustment bound `amax`.
    fn meets(&self, theta: f64, amax: u32) -> bool {
        self.loss <= theta + EPS && self.adj <= amax
    }

    /// The least fairness bound of the doubling sequence it meets (infinite if it breaks the
    /// adjustment bound `amax`).
    fn ladder(&self, amax: u32) -> f64 {
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
fn greedy(d: &mut DormState, ctx: &mut Ctx<'_>, m: usize) -> Greedy {
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
fn hi_alone(ctx: &Ctx<'_>, job: &OasisJob, useful: u32) -> u32 {
    let mut v = ctx.workers.room(&job.worker_demand, useful);
    while v > 0 && ctx.ps.room(&job.ps_demand, ps_for(job, v)) < ps_for(job, v) {
        v -= 1;
    }
    v
}

/// f_j by continuous dominant-resource fairness (water-filling): every active job's dominant
/// share rises at the same rate, each capped at the share of its hi_j workers, until some
/// resource of the whole cluster is used up. A worker's bundle counts its b_j / B_j share of
/// a PS.
fn fair_shares(d: &mut DormState, ctx: &Ctx<'_>, m: usize) {
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
fn cmp_vec(a: &ResourceVec, b: &ResourceVec) -> Ordering {
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
fn order_and_bounds(
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

/// The knapsack items of each job: for each value kind and pool resource q, the largest value
/// per unit of q over its counts 1..=hi_j (infinite if it uses none of q), and its largest
/// value; then each (kind, q)'s depths in decreasing density. Any allocation of the jobs from
/// a depth on gets at most the fractional knapsack over these items with q's free capacity.
fn knapsack_items(d: &mut DormState, ctx: &Ctx<'_>, m: usize) {
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
fn knapsack(d: &DormState, m: usize, kind: usize, q: usize, depth: usize, free: f64) -> f64 {
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
fn knapsack_prunes(
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

/// How one pass of the search ended.
struct Pass {
    /// The objective of the best leaf that met the bounds (its counts in `d.best`, by depth).
    found: Option<f64>,
    /// The node count when that leaf was found (or when the pass began).
    last: u64,
    /// `Some(upper bound on the open subtrees)` if the pass stopped at the node budget.
    stopped: Option<f64>,
}

/// Depth-first branch and bound for fairness bound `theta` and adjustment bound `amax`,
/// exact unless `nodes` (counted across the passes of one event) reaches `hard`, or `soft`
/// before a leaf is found. `seed`, the objective of a known allocation meeting both bounds, prunes from the
/// start; only leaves better than it by more than the tolerance are taken, so the answer is
/// the one the unseeded search gives.
fn branch_and_bound(
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
fn rest_bound(d: &DormState, ctx: &Ctx<'_>, m: usize, from: usize, at: usize) -> f64 {
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
