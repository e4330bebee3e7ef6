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
//!
//! | file | what |
//! |---|---|
//! | here | [`DormStats`], the solver's buffers, the event's problem (cluster totals, pools, first-fit packing) |
//! | `event` | the runner's hooks: solve on an arrival or completion, place the kept allocation first fit |
//! | `passes` | the fairness bound doubled until met, the event's node budget, the stop at it |
//! | `greedy` | the greedy allocation that seeds each pass |
//! | `bounds` | dominant-resource-fair shares f_j, branching order, per-depth suffix bounds |
//! | `knapsack` | fractional knapsack bounds on utilisation and fairness gain |
//! | `search` | the depth-first branch and bound of one pass |
mod bounds;
mod event;
mod greedy;
mod knapsack;
mod passes;
mod search;

use super::ps_for;
use crate::baseline::pool::Pool;
#[cfg(doc)]
use crate::baseline::DORM_FAIRNESS_LOSS_MAX;
use crate::baseline::{dominant_share, Policy, DORM_ADJUST_MAX};
use crate::limits::{DORM_ACTIVE_MAX, DORM_EVENT_NODES};
use crate::model::oasis::{OasisJob, OasisScenario};
use crate::resources::ResourceVec;
use alloc::vec;
use alloc::vec::Vec;

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

/// The problem of one Dorm event (per job, by input index; meaningful for `active` only).
#[derive(Clone, Copy, Debug)]
pub struct DormEvent<'a> {
    /// J: the active jobs, in packing order.
    pub active: &'a [u32],
    /// hi_j: the most workers job j can use and fit on the idle cluster.
    pub hi: &'a [u32],
    /// X_j^old: job j's count before the event (capped at hi_j).
    pub old: &'a [u32],
    /// f_j: job j's dominant-resource-fair share.
    pub fair: &'a [f64],
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
    /// One more job (a submission): the per-job buffers grow by one entry, and the per-depth
    /// buffers to what [`Self::new`] sizes for the new job count (the kept allocation `x`,
    /// the last event's packing order and the counters stay).
    pub(super) fn push_job(&mut self) {
        if self.r == 0 {
            return;
        }
        let n = self.x.len() + 1;
        let mut grown = DormState::new(Policy::Dorm, n, self.r);
        grown.x[..n - 1].copy_from_slice(&self.x);
        grown.fair[..n - 1].copy_from_slice(&self.fair);
        let m = self.pack.len().min(grown.pack.len());
        grown.pack[..m].copy_from_slice(&self.pack[..m]);
        grown.pack_len = self.pack_len;
        grown.budget = self.budget;
        grown.adjust_max = self.adjust_max;
        grown.stats = self.stats;
        *self = grown;
    }

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
