//! The event-driven run: jobs are released into a queue; at each event time (a release, a
//! reserved start, a completion) the policy takes jobs from the queue and places them.
//!
//! - **CSRP** (Algorithm 1): queue in earliest-deadline order ("prioritize high-priority
//!   computing tasks"); per job a binary PSO chooses the start `now + delta` (delta < 2^3),
//!   a compute node per worker among the light-load candidates and, per hop, the next node on
//!   the least-loaded (BW_u / C) or the hop-shortest tree; the fitness is eq. (11) of the
//!   schedule so far plus the candidate, compared lexicographically ([`Fitness`]). A start in
//!   the future reserves the slots (so a job that cannot start now may be planned for later).
//! - **Aggregated CSRP**: CSRP, then Algorithm 2 ([`super::aggregate`]) on the chosen paths.
//! - **FIFO** (strict arrival order, head-of-line blocking), **Fair** (equal shares per PS
//!   tenant: the tenant holding fewest slots first), **Capacity** (per-PS queues with a guaranteed
//!   share proportional to the tenant's demand, elastic beyond it), **Deadline-aware** (least
//!   slack first, no preemption): each places on the nearest available compute nodes from the PS
//!   over the hop-shortest path (section 5.1), starting only now.
//!
//! Compute slots are lanes with a "free from" time: a worker takes a lane free at its start and
//! holds it for the job's duration, so at no time does a node run more than its slots
//! (eqs. 6-7). Paths are evaluated on the link state before the job's own allocation; its
//! bandwidth is added to its links while it runs. Link capacity is not a constraint in the
//! paper (only a cost through eq. 5), so it is not enforced here either.
use super::aggregate::{self, AggScratch};
use super::cost::{network_cost, Fitness, Totals};
use super::dijkstra::{Dijkstra, Weight};
use super::graph::Graph;
use super::pso::Swarm;
use super::{
    RouteError, HOP_BITS, NODE_BITS, NODE_CHOICES, NONE, PATH_NODES_MAX, START_BITS, WORKER_DIMS,
};
use crate::api::{Event, Scheduler};
use crate::error::Limit;
use crate::limits::{check, JOBS_MAX, ROUTE_WORKERS_MAX};
use crate::log::{LogSink, TAG_ROUTE};
use crate::model::route::{NodeKind, PsoParams, RouteJob, RouteScenario};
use crate::num::canon;
use crate::rng::SplitMix64;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

mod state;
pub use state::RouterState;

/// Tag of a placement decision record.
pub const TAG_ROUTE_DECISION: u8 = TAG_ROUTE;
/// Tag of a PSO result record (gbest's fitness).
pub const TAG_ROUTE_PSO: u8 = TAG_ROUTE + 1;
/// Tag of an aggregation record (Algorithm 2).
pub const TAG_ROUTE_AGGREGATION: u8 = TAG_ROUTE + 2;
/// Tag of the final summary record.
pub const TAG_ROUTE_SUMMARY: u8 = TAG_ROUTE + 3;

/// Start offsets a CSRP particle can choose (2^[`START_BITS`]).
const DELTAS: usize = 1 << START_BITS;
/// Candidate compute nodes listed per start offset: the choices plus enough for every worker.
const CAND_MAX: usize = NODE_CHOICES + ROUTE_WORKERS_MAX;
/// Used servers put first in a candidate list (energy: eq. 3), before the nearest unused ones.
const USED_FIRST: usize = NODE_CHOICES / 2;

/// Which scheduler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Policy {
    /// CSRP (Algorithm 1), or Aggregated CSRP when the scenario says `aggregate`.
    Csrp,
    /// FIFO: arrival order, head-of-line blocking.
    Fifo,
    /// Fair: equal share per PS tenant.
    Fair,
    /// Capacity-like: per-PS queues with guaranteed shares.
    Capacity,
    /// Deadline-aware: least slack first.
    Deadline,
}

impl Policy {
    fn code(self) -> u8 {
        self as u8
    }
}

/// What was decided for one job.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobPlan {
    /// e^r: the start slot.
    pub start: u32,
    /// First of its `workers` paths in [`RouteOutcome::paths`].
    pub first_path: u32,
    /// Workers (= paths).
    pub workers: u32,
    /// Aggregation node ([`NONE`] without aggregation).
    pub aggregation: u32,
    /// N of the job (eq. 4 summed over its paths / aggregated segments).
    pub network_cost: f64,
    /// e^r + Delta <= e^d.
    pub deadline_met: bool,
    /// Link-bandwidth units the job puts on the network (sum over links of its flow count).
    pub bandwidth_units: u32,
    /// Units the plain CSRP paths would have used (equal to `bandwidth_units` without
    /// aggregation).
    pub bandwidth_units_plain: u32,
}

/// Eq. (2), (3), N-bar and eq. (11) of a finished run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouteSummary {
    /// R_dv.
    pub deadline_violation_rate: f64,
    /// |S_u|.
    pub servers_used: u32,
    /// N-bar.
    pub avg_network_cost: f64,
    /// Eq. (11).
    pub cost: f64,
}

/// A whole run's decisions: per job (input order) a plan; paths as node lists.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteOutcome {
    /// Per job, input order.
    pub plans: Vec<JobPlan>,
    /// (offset, length) of each path in `path_nodes`.
    pub paths: Vec<(u32, u32)>,
    /// Node ids of all paths, PS first, compute node last.
    pub path_nodes: Vec<u32>,
    /// Totals.
    pub summary: RouteSummary,
}

impl RouteOutcome {
    /// The node list of path `i`.
    pub fn path(&self, i: u32) -> &[u32] {
        match self.paths.get(i as usize) {
            Some(&(o, l)) => self
                .path_nodes
                .get(o as usize..(o + l) as usize)
                .unwrap_or(&[]),
            None => &[],
        }
    }
}

/// A placement decision (tag [`TAG_ROUTE_DECISION`]): e^r, the compute node of each worker,
/// the hops of its paths, N (eq. 4) and the aggregation node. Floats are canonical.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionRec {
    /// Job index.
    pub job: u32,
    /// [`Policy`] code.
    pub policy: u8,
    /// e^r.
    pub start: u32,
    /// Compute node of each worker.
    pub nodes: heapless::Vec<u32, ROUTE_WORKERS_MAX>,
    /// Links over all its paths.
    pub hops: u32,
    /// N of the job.
    pub network_cost: f64,
    /// e^r + Delta <= e^d.
    pub deadline_met: bool,
    /// Aggregation node ([`NONE`] without).
    pub aggregation: u32,
}

/// The PSO's gbest for one job (tag [`TAG_ROUTE_PSO`]): eq. (11) and its parts (-1 when
/// infeasible).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PsoRec {
    /// Job index.
    pub job: u32,
    /// Eq. (11) of the schedule with gbest.
    pub cost: f64,
    /// Its F-score part.
    pub f_part: f64,
    /// Its network cost.
    pub network: f64,
    /// gbest's start.
    pub start: u32,
}

/// Algorithm 2 on one job (tag [`TAG_ROUTE_AGGREGATION`]): the aggregation node, bandwidth
/// units and N with and without it, and whether it was applied.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AggRec {
    /// Job index.
    pub job: u32,
    /// Aggregation node a.
    pub node: u32,
    /// Its weight (BW_u / C).
    pub weight: f64,
    /// Units of the plain paths.
    pub units_plain: u32,
    /// Units of the aggregated structure.
    pub units_aggregated: u32,
    /// N of the plain paths.
    pub network_plain: f64,
    /// N aggregated.
    pub network_aggregated: f64,
    /// Aggregation applied (no more units and no more N).
    pub applied: bool,
}

/// Every decision record of a routing run, in order (what [`Router`] passes to the callback
/// of [`Scheduler::on_event`]).
#[derive(Clone, Debug, PartialEq)]
// Passed by reference to the callback, never stored by the kernel: boxing the large variant
// would allocate in the decision path.
#[allow(clippy::large_enum_variant)]
pub enum RouteDecision {
    /// The PSO result for a job (CSRP).
    Pso(PsoRec),
    /// Algorithm 2 on a job (Aggregated CSRP).
    Aggregation(AggRec),
    /// A job placed.
    Placed(DecisionRec),
    /// The run's summary, once at the end ([`Scheduler::finish`]).
    Summary(SummaryRec),
}

impl RouteDecision {
    /// The log tag (0x50 range).
    pub fn tag(&self) -> u8 {
        match self {
            RouteDecision::Pso(_) => TAG_ROUTE_PSO,
            RouteDecision::Aggregation(_) => TAG_ROUTE_AGGREGATION,
            RouteDecision::Placed(_) => TAG_ROUTE_DECISION,
            RouteDecision::Summary(_) => TAG_ROUTE_SUMMARY,
        }
    }

    /// Records the decision's record body under [`Self::tag`].
    pub fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), crate::log::LogError> {
        match self {
            RouteDecision::Pso(r) => sink.record(self.tag(), r),
            RouteDecision::Aggregation(r) => sink.record(self.tag(), r),
            RouteDecision::Placed(r) => sink.record(self.tag(), r),
            RouteDecision::Summary(r) => sink.record(self.tag(), r),
        }
    }
}

impl crate::api::Record for RouteDecision {
    fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), crate::log::LogError> {
        RouteDecision::log(self, sink)
    }
}

/// The summary record (tag [`TAG_ROUTE_SUMMARY`]), floats canonical.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SummaryRec {
    /// Deadline violation rate.
    pub rdv: f64,
    /// Servers used.
    pub servers: u32,
    /// N-bar: average network cost.
    pub n_bar: f64,
    /// The objective.
    pub cost: f64,
}

/// Per-decision scratch (all sized at build).
#[derive(Clone, Debug)]
struct Scratch {
    sorted: Vec<u32>,
    cand: Vec<u32>,
    cand_free: Vec<u32>,
    cand_len: [usize; DELTAS],
    taken: Vec<u32>,
    stamp: Vec<u32>,
    gen: u32,
    wnodes: Vec<u32>,
    wpath: Vec<u32>,
    wlen: Vec<u32>,
    wcost: Vec<f64>,
    links: Vec<u32>,
}

/// The CSRP / baseline scheduler over one scenario: graph, slot lanes, queue, scratch.
#[derive(Clone, Debug)]
pub struct Router {
    policy: Policy,
    aggregate: bool,
    f: f64,
    beta: f64,
    pso: PsoParams,
    rng: SplitMix64,
    g: Graph,
    jobs: Vec<RouteJob>,
    /// PS node -> row of the hop tables ([`NONE`] if no job uses it).
    ps_row: Vec<u32>,
    hop_pred: Vec<u32>,
    /// Per PS row: reachable compute nodes by (hops, index), `computes` wide, then its length.
    hop_order: Vec<u32>,
    hop_order_len: Vec<u32>,
    computes: usize,
    lane_off: Vec<u32>,
    lane_free: Vec<u32>,
    used_node: Vec<bool>,
    totals: Totals,
    plans: Vec<JobPlan>,
    decided: Vec<bool>,
    paths: Vec<(u32, u32)>,
    path_nodes: Vec<u32>,
    job_links: Vec<(u32, u32)>,
    link_arena: Vec<u32>,
    queue: Vec<u32>,
    live: Vec<u32>,
    applied: Vec<bool>,
    order: Vec<u32>,
    /// `(release, job)` in `order`: the driver's arrival list, built once so a run allocates
    /// nothing.
    arrivals: Vec<(u32, u32)>,
    group_running: Vec<u32>,
    group_share: Vec<f64>,
    free_at: [u64; DELTAS],
    total_lanes: u64,
    dj_load: Dijkstra,
    dj_tmp: Dijkstra,
    swarm: Swarm,
    agg: AggScratch,
    sc: Scratch,
    /// Per job: released into the queue ([`Event::JobArrived`]).
    released: Vec<bool>,
    /// Slot of the last event.
    now: u32,
}

impl Router {
    /// Builds the scheduler (all allocation happens here).
    pub fn new(s: &RouteScenario, policy: Policy) -> Result<Self, RouteError> {
        check(Limit::Jobs, s.jobs.len(), JOBS_MAX)?;
        let g = Graph::new(&s.topology)?;
        let n = g.nodes();
        let mut ps_row = alloc::vec![NONE; n];
        let mut rows = 0u32;
        let mut max_w = 1usize;
        for (i, j) in s.jobs.iter().enumerate() {
            check(Limit::RouteWorkers, j.workers as usize, ROUTE_WORKERS_MAX)?;
            max_w = max_w.max(j.workers as usize);
            let slot = ps_row.get_mut(j.ps as usize);
            match slot {
                Some(r) if g.kind(j.ps) == NodeKind::Ps => {
                    if *r == NONE {
                        *r = rows;
                        rows += 1;
                    }
                }
                _ => return Err(RouteError::BadPs { job: i as u32 }),
            }
        }
        let computes = (0..n as u32)
            .filter(|&v| g.kind(v) == NodeKind::Compute)
            .count();
        let rows_u = rows as usize;
        let mut hop_pred = alloc::vec![NONE; rows_u * n];
        let mut hop_order = alloc::vec![0u32; rows_u * computes];
        let mut hop_order_len = alloc::vec![0u32; rows_u];
        let mut reach_slots = alloc::vec![0u32; rows_u];
        let mut dj = Dijkstra::new(n, g.links());
        for ps in 0..n as u32 {
            let r = ps_row[ps as usize];
            if r == NONE {
                continue;
            }
            let r = r as usize;
            dj.run(&g, ps, Weight::Hops)?;
            hop_pred[r * n..(r + 1) * n].copy_from_slice(&dj.preds()[..n]);
            let row = &mut hop_order[r * computes..(r + 1) * computes];
            let mut len = 0usize;
            for v in 0..n as u32 {
                if g.kind(v) == NodeKind::Compute && dj.hops(v) != u32::MAX {
                    row[len] = v;
                    len += 1;
                    reach_slots[r] = reach_slots[r].saturating_add(g.slots(v));
                }
            }
            row[..len].sort_unstable_by_key(|&v| (dj.hops(v), v));
            hop_order_len[r] = len as u32;
        }
        for (i, j) in s.jobs.iter().enumerate() {
            let r = ps_row[j.ps as usize] as usize;
            if reach_slots[r] < j.workers {
                return Err(RouteError::Unreachable {
                    job: i as u32,
                    workers: j.workers,
                    reachable: reach_slots[r],
                });
            }
        }
        let mut lane_off = alloc::vec![0u32; n + 1];
        for v in 0..n {
            lane_off[v + 1] = lane_off[v]
                + g.slots(v as u32)
                    .min(crate::limits::COMPUTE_SLOTS_MAX as u32);
        }
        let lanes = lane_off[n] as usize;
        let total_w: usize = s.jobs.iter().map(|j| j.workers as usize).sum();
        let mut order: Vec<u32> = (0..s.jobs.len() as u32).collect();
        order.sort_unstable_by_key(|&i| (s.jobs[i as usize].release, i));
        // Capacity-like guaranteed shares: proportional to each tenant's demanded slot-time.
        let mut group_share = alloc::vec![0.0; rows_u];
        let mut total_demand = 0.0;
        for j in &s.jobs {
            let d = j.workers as f64 * j.duration as f64;
            group_share[ps_row[j.ps as usize] as usize] += d;
            total_demand += d;
        }
        for x in group_share.iter_mut() {
            *x = if total_demand > 0.0 {
                *x / total_demand
            } else {
                1.0
            };
        }
        let dims = START_BITS + max_w * WORKER_DIMS;
        let nj = s.jobs.len();
        Ok(Router {
            policy,
            aggregate: s.aggregate && policy == Policy::Csrp,
            f: s.load_factor,
            beta: s.beta,
            pso: s.pso,
            rng: SplitMix64::new(s.seed),
            jobs: s.jobs.clone(),
            ps_row,
            hop_pred,
            hop_order,
            hop_order_len,
            computes,
            lane_off,
            lane_free: alloc::vec![0; lanes],
            used_node: alloc::vec![false; n],
            totals: Totals::default(),
            plans: alloc::vec![
                JobPlan {
                    start: 0,
                    first_path: 0,
                    workers: 0,
                    aggregation: NONE,
                    network_cost: 0.0,
                    deadline_met: false,
                    bandwidth_units: 0,
                    bandwidth_units_plain: 0,
                };
                nj
            ],
            decided: alloc::vec![false; nj],
            paths: Vec::with_capacity(total_w),
            path_nodes: Vec::with_capacity(total_w * PATH_NODES_MAX),
            job_links: alloc::vec![(0, 0); nj],
            link_arena: Vec::with_capacity(total_w * PATH_NODES_MAX),
            queue: Vec::with_capacity(nj),
            live: Vec::with_capacity(nj),
            applied: alloc::vec![false; nj],
            arrivals: order
                .iter()
                .map(|&j| (s.jobs[j as usize].release, j))
                .collect(),
            order,
            group_running: alloc::vec![0; rows_u],
            group_share,
            free_at: [lanes as u64; DELTAS],
            total_lanes: lanes as u64,
            dj_load: Dijkstra::new(n, g.links()),
            dj_tmp: Dijkstra::new(n, g.links()),
            swarm: Swarm::new(
                if policy == Policy::Csrp {
                    s.pso.particles as usize
                } else {
                    0
                },
                dims,
            ),
            agg: AggScratch::new(n, max_w),
            released: alloc::vec![false; nj],
            now: 0,
            sc: Scratch {
                sorted: alloc::vec![0; computes],
                cand: alloc::vec![0; DELTAS * CAND_MAX],
                cand_free: alloc::vec![0; DELTAS * CAND_MAX],
                cand_len: [0; DELTAS],
                taken: alloc::vec![0; CAND_MAX],
                stamp: alloc::vec![0; n],
                gen: 0,
                wnodes: alloc::vec![0; max_w],
                wpath: alloc::vec![0; max_w * PATH_NODES_MAX],
                wlen: alloc::vec![0; max_w],
                wcost: alloc::vec![0.0; max_w],
                links: alloc::vec![0; (max_w + 1) * PATH_NODES_MAX],
            },
            g,
        })
    }

    /// The topology and its current link state.
    pub fn graph(&self) -> &Graph {
        &self.g
    }

    /// Runs the whole scenario through [`crate::driver::Driver`], recording every decision in
    /// `sink`: releases at their times, `SlotAdvanced` at the scenario's own event times
    /// ([`Router::next_event`]: reserved starts, completions), then the summary.
    pub fn run<S: LogSink>(mut self, sink: &mut S) -> Result<RouteOutcome, RouteError> {
        let order = core::mem::take(&mut self.arrivals);
        let mut d = crate::driver::Driver::new(self);
        d.run(&order, sink, &mut |_: &RouteDecision| {})
            .map_err(|e| match e {
                crate::driver::DriverError::Scheduler(e) => e,
                crate::driver::DriverError::Log(e) => e.into(),
            })?;
        Ok(d.into_inner().outcome())
    }

    /// The next time something happens on its own: the earliest reserved start of a placed
    /// job or completion of a running one (`None` when nothing is placed and unfinished).
    /// Releases come from the caller.
    pub fn next_event(&self) -> Option<u32> {
        let mut next: Option<u32> = None;
        for &j in &self.live {
            let (Some(p), Some(jb)) = (self.plans.get(j as usize), self.jobs.get(j as usize))
            else {
                continue;
            };
            let e = if self.applied.get(j as usize) == Some(&true) {
                p.start.saturating_add(jb.duration)
            } else {
                p.start
            };
            next = Some(next.map_or(e, |n| n.min(e)));
        }
        next
    }

    /// Jobs released and not yet placed, in the policy's queue order.
    pub fn queued(&self) -> &[u32] {
        &self.queue
    }

    /// Job indices by release time (ties by index): the order to release them in.
    pub fn release_order(&self) -> &[u32] {
        &self.order
    }

    fn check_time(&mut self, now: u32) -> Result<(), RouteError> {
        if now < self.now {
            return Err(RouteError::EventTime { job: NONE, now });
        }
        self.now = now;
        Ok(())
    }

    /// Releases job `j` into the queue at `now` (its release time or later).
    fn release(&mut self, now: u32, j: u32) -> Result<(), RouteError> {
        let ju = j as usize;
        let release = self
            .jobs
            .get(ju)
            .ok_or(RouteError::UnknownJob { job: j })?
            .release;
        if now < release {
            return Err(RouteError::EventTime { job: j, now });
        }
        match self.released.get_mut(ju) {
            Some(r) if !*r => *r = true,
            _ => return Err(RouteError::AlreadyReleased { job: j }),
        }
        self.check_time(now)?;
        self.enqueue(j);
        Ok(())
    }

    /// One event time `t`: link loads of jobs starting / ending by `t`, then the policy places
    /// what it can from the queue; every decision record goes to `out`.
    fn step(&mut self, t: u32, out: &mut dyn FnMut(&RouteDecision)) -> Result<(), RouteError> {
        self.check_time(t)?;
        self.advance_links(t);
        self.refresh_free_at(t);
        self.schedule(t, out)
    }

    /// Ends the run: logs the summary record (eqs. 2, 3, 11) and returns every plan and path.
    pub fn finish<S: LogSink>(self, sink: &mut S) -> Result<RouteOutcome, RouteError> {
        sink.record(TAG_ROUTE_SUMMARY, &self.summary_rec())?;
        Ok(self.outcome())
    }

    fn summary(&self) -> RouteSummary {
        let t = &self.totals;
        RouteSummary {
            deadline_violation_rate: super::cost::violation_rate(t.violations, t.jobs),
            servers_used: t.servers,
            avg_network_cost: t.n_bar(),
            cost: t.cost(self.beta),
        }
    }

    fn summary_rec(&self) -> SummaryRec {
        let summary = self.summary();
        SummaryRec {
            rdv: canon(summary.deadline_violation_rate),
            servers: summary.servers_used,
            n_bar: canon(summary.avg_network_cost),
            cost: canon(summary.cost),
        }
    }

    /// The run's plans, paths and summary (after the driver has finished it).
    pub fn outcome(mut self) -> RouteOutcome {
        RouteOutcome {
            summary: self.summary(),
            plans: core::mem::take(&mut self.plans),
            paths: core::mem::take(&mut self.paths),
            path_nodes: core::mem::take(&mut self.path_nodes),
        }
    }

    /// Applies bandwidth of jobs starting by `t` and releases that of jobs ended by `t`.
    fn advance_links(&mut self, t: u32) {
        let mut i = 0;
        while i < self.live.len() {
            let j = self.live[i] as usize;
            let end = self.plans[j].start.saturating_add(self.jobs[j].duration);
            if self.applied[j] && end <= t {
                self.apply(j, -1.0);
                let r = self.ps_row[self.jobs[j].ps as usize] as usize;
                self.group_running[r] -= self.jobs[j].workers;
                self.live.remove(i);
                continue;
            }
            i += 1;
        }
        for i in 0..self.live.len() {
            let j = self.live[i] as usize;
            if !self.applied[j] && self.plans[j].start <= t {
                self.apply(j, 1.0);
                self.applied[j] = true;
            }
        }
    }

    fn apply(&mut self, j: usize, sign: f64) {
        let (o, l) = self.job_links[j];
        let bw = sign * self.jobs[j].bandwidth;
        for k in o..o + l {
            let link = self.link_arena[k as usize];
            self.g.add_used(link, bw);
        }
    }

    fn enqueue(&mut self, j: u32) {
        let key = |r: &Router, x: u32| -> (u64, u64, u32) {
            let jb = &r.jobs[x as usize];
            match r.policy {
                Policy::Csrp => (jb.deadline as u64, jb.release as u64, x),
                // Slack = deadline - duration - now; `now` is common to all, so order by the rest.
                Policy::Deadline => (
                    (jb.deadline as u64 + u32::MAX as u64) - jb.duration as u64,
                    jb.release as u64,
                    x,
                ),
                _ => (jb.release as u64, 0, x),
            }
        };
        let k = key(self, j);
        let pos = self.queue.partition_point(|&x| key(self, x) < k);
        // Capacity nj was reserved at build: never reallocates.
        self.queue.insert(pos, j);
    }

    /// free_at[d] = lanes free at t + d.
    fn refresh_free_at(&mut self, t: u32) {
        self.free_at = [0; DELTAS];
        for &f in &self.lane_free {
            let d = f.saturating_sub(t) as usize;
            for x in self.free_at.iter_mut().skip(d) {
                *x += 1;
            }
        }
    }

    fn schedule(&mut self, t: u32, sink: &mut dyn FnMut(&RouteDecision)) -> Result<(), RouteError> {
        match self.policy {
            Policy::Fifo => {
                while let Some(&j) = self.queue.first() {
                    if !self.try_baseline(j, t, sink)? {
                        break;
                    }
                    self.queue.remove(0);
                }
            }
            Policy::Deadline => {
                let mut i = 0;
                while i < self.queue.len() {
                    if self.try_baseline(self.queue[i], t, sink)? {
                        self.queue.remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
            Policy::Fair | Policy::Capacity => loop {
                let mut best: Option<(usize, (bool, f64, usize))> = None;
                for (i, &j) in self.queue.iter().enumerate() {
                    if self.jobs[j as usize].workers as u64 > self.free_at[0] {
                        continue;
                    }
                    let k = self.group_key(j, i);
                    if !matches!(best, Some((_, b)) if !lex_less(k, b)) {
                        best = Some((i, k));
                    }
                }
                let Some((i, _)) = best else { break };
                let j = self.queue[i];
                if self.try_baseline(j, t, sink)? {
                    self.queue.remove(i);
                } else {
                    // Not reachable now: skip it for this event by trying the others in order.
                    let mut started = false;
                    for q in 0..self.queue.len() {
                        if q != i && self.try_baseline(self.queue[q], t, sink)? {
                            self.queue.remove(q);
                            started = true;
                            break;
                        }
                    }
                    if !started {
                        break;
                    }
                }
            },
            Policy::Csrp => {
                let mut i = 0;
                while i < self.queue.len() {
                    let j = self.queue[i];
                    if self.jobs[j as usize].workers as u64 <= self.free_at[DELTAS - 1]
                        && self.try_csrp(j, t, sink)?
                    {
                        self.queue.remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
        }
        Ok(())
    }

    fn group_key(&self, j: u32, pos: usize) -> (bool, f64, usize) {
        let jb = &self.jobs[j as usize];
        let r = self.ps_row[jb.ps as usize] as usize;
        let running = self.group_running[r] as f64;
        if self.policy == Policy::Fair {
            return (false, running, pos);
        }
        let share = self.group_share[r] * self.total_lanes as f64;
        let over = running + jb.workers as f64 > share;
        (over, running / share.max(1e-300), pos)
    }

    /// Baselines: nearest free compute nodes (hops from the PS, ties by index), hop-shortest
    /// paths, start now. Returns false if fewer than `workers` slots are free now.
    fn try_baseline(
        &mut self,
        j: u32,
        t: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<bool, RouteError> {
        let jb = self.jobs[j as usize];
        if jb.workers as u64 > self.free_at[0] {
            return Ok(false);
        }
        let n = self.g.nodes();
        let r = self.ps_row[jb.ps as usize] as usize;
        let len = self.hop_order_len[r] as usize;
        let mut k = 0usize;
        for q in 0..len {
            if k == jb.workers as usize {
                break;
            }
            let v = self.hop_order[r * self.computes + q];
            let free = self.free_lanes(v, t);
            for _ in 0..free.min(jb.workers - k as u32) {
                self.sc.wnodes[k] = v;
                k += 1;
            }
        }
        if k < jb.workers as usize {
            return Ok(false);
        }
        for w in 0..k {
            let pred = &self.hop_pred[r * n..(r + 1) * n];
            let out = &mut self.sc.wpath[w * PATH_NODES_MAX..(w + 1) * PATH_NODES_MAX];
            let l = tree_path(pred, jb.ps, self.sc.wnodes[w], out)
                .ok_or(RouteError::PathTooLong { job: j })?;
            self.sc.wlen[w] = l as u32;
            self.sc.wcost[w] = self.path_cost(w)?;
        }
        self.commit(j, t, t, sink)?;
        Ok(true)
    }

    fn path_cost(&mut self, w: usize) -> Result<f64, RouteError> {
        let l = self.sc.wlen[w] as usize;
        let nodes = &self.sc.wpath[w * PATH_NODES_MAX..w * PATH_NODES_MAX + l];
        let links = &mut self.sc.links[w * PATH_NODES_MAX..(w + 1) * PATH_NODES_MAX];
        let h = aggregate::links_of(&self.g, nodes, links).ok_or(RouteError::Scratch)?;
        Ok(network_cost(&self.g, &links[..h], self.f))
    }

    fn free_lanes(&self, v: u32, s: u32) -> u32 {
        let (a, b) = (self.lane_off[v as usize], self.lane_off[v as usize + 1]);
        self.lane_free[a as usize..b as usize]
            .iter()
            .filter(|&&f| f <= s)
            .count() as u32
    }

    /// CSRP for job `j` at time `t`: candidate lists, the PSO, then commit gbest if feasible.
    fn try_csrp(
        &mut self,
        j: u32,
        t: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<bool, RouteError> {
        let jb = self.jobs[j as usize];
        self.dj_load.run(&self.g, jb.ps, Weight::Load)?;
        self.build_candidates(j, t);
        let n = self.g.nodes();
        let r = self.ps_row[jb.ps as usize] as usize;
        let dims = START_BITS + jb.workers as usize * WORKER_DIMS;
        let Router {
            swarm,
            rng,
            g,
            hop_pred,
            dj_load,
            sc,
            used_node,
            totals,
            pso,
            f,
            beta,
            ..
        } = self;
        let ctx = Ctx {
            g,
            job: &jb,
            t,
            pred_h: &hop_pred[r * n..(r + 1) * n],
            pred_l: dj_load.preds(),
            used: used_node,
            totals: *totals,
            f: *f,
            beta: *beta,
        };
        let best = swarm.run(pso, dims, rng, |bits| decode(&ctx, bits, sc))?;
        sink(&RouteDecision::Pso(PsoRec {
            job: j,
            cost: canon(finite(best.cost)),
            f_part: canon(finite(best.f_part)),
            network: canon(finite(best.network)),
            start: best.start,
        }));
        if best.infeasible {
            return Ok(false);
        }
        // Decode gbest again into the scratch (deterministic: same bits, same state).
        let again = decode(&ctx, swarm.best(dims), sc);
        if again.infeasible {
            return Err(RouteError::Scratch);
        }
        let start = again.start;
        self.commit(j, t, start, sink)?;
        Ok(true)
    }

    /// Candidate compute nodes per start offset: up to [`USED_FIRST`] already-used servers
    /// with a free slot, nearest first on the light-load tree, then the nearest unused ones,
    /// until [`NODE_CHOICES`] nodes and enough slots for every worker are listed.
    fn build_candidates(&mut self, j: u32, t: u32) {
        let jb = self.jobs[j as usize];
        let r = self.ps_row[jb.ps as usize] as usize;
        let len = self.hop_order_len[r] as usize;
        let row = &self.hop_order[r * self.computes..r * self.computes + len];
        self.sc.sorted[..len].copy_from_slice(row);
        let dj = &self.dj_load;
        self.sc.sorted[..len].sort_unstable_by(|&a, &b| {
            dj.dist(a)
                .total_cmp(&dj.dist(b))
                .then(dj.hops(a).cmp(&dj.hops(b)))
                .then(a.cmp(&b))
        });
        for d in 0..DELTAS {
            let s = t.saturating_add(d as u32);
            let base = d * CAND_MAX;
            let mut n = 0usize;
            let mut cum = 0u32;
            self.sc.gen = self.sc.gen.wrapping_add(1);
            if self.sc.gen == 0 {
                self.sc.stamp.fill(0);
                self.sc.gen = 1;
            }
            let gen = self.sc.gen;
            // Pass 0: used servers (at most USED_FIRST); pass 1: unused; pass 2: the rest.
            for pass in 0..3 {
                let mut used_listed = 0usize;
                for q in 0..len {
                    let done = n >= NODE_CHOICES && cum >= jb.workers;
                    if done || n == CAND_MAX || (pass == 0 && used_listed == USED_FIRST) {
                        break;
                    }
                    let v = self.sc.sorted[q];
                    let used = self.used_node[v as usize];
                    let want = match pass {
                        0 => used,
                        1 => !used,
                        _ => true,
                    };
                    if !want || self.sc.stamp[v as usize] == gen {
                        continue;
                    }
                    let free = self.free_lanes(v, s);
                    if free == 0 {
                        continue;
                    }
                    self.sc.stamp[v as usize] = gen;
                    used_listed += used as usize;
                    self.sc.cand[base + n] = v;
                    self.sc.cand_free[base + n] = free;
                    n += 1;
                    cum += free;
                }
            }
            self.sc.cand_len[d] = n;
        }
    }

    /// Takes lanes, records paths and links, updates totals, logs the decision.
    fn commit(
        &mut self,
        j: u32,
        t: u32,
        start: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        let jb = self.jobs[j as usize];
        let w = jb.workers as usize;
        let end = start.saturating_add(jb.duration);
        for k in 0..w {
            let v = self.sc.wnodes[k] as usize;
            let (a, b) = (self.lane_off[v] as usize, self.lane_off[v + 1] as usize);
            // Best fit: the lane free latest but by `start` (keeps early lanes for others).
            let mut pick: Option<usize> = None;
            for x in a..b {
                let f = self.lane_free[x];
                if f <= start && !matches!(pick, Some(p) if f <= self.lane_free[p]) {
                    pick = Some(x);
                }
            }
            let x = pick.ok_or(RouteError::Scratch)?;
            let old = self.lane_free[x];
            for (d, c) in self.free_at.iter_mut().enumerate() {
                let s = t.saturating_add(d as u32);
                *c = *c - (old <= s) as u64 + (end <= s) as u64;
            }
            self.lane_free[x] = end;
        }
        let mut n_plain = 0.0;
        let mut units_plain = 0u32;
        for k in 0..w {
            n_plain += self.sc.wcost[k];
            units_plain += self.sc.wlen[k].saturating_sub(1);
        }
        let mut network = n_plain;
        let mut units = units_plain;
        let mut agg_node = NONE;
        let first_path = self.paths.len() as u32;
        let link_off = self.link_arena.len() as u32;
        let mut applied_agg = false;
        if self.aggregate {
            if let Some((node, n_agg, u_agg)) = self.try_aggregate(j, sink, n_plain, units_plain)? {
                network = n_agg;
                units = u_agg;
                agg_node = node;
                applied_agg = true;
            }
        }
        if !applied_agg {
            for k in 0..w {
                let l = self.sc.wlen[k] as usize;
                push_path(
                    &mut self.paths,
                    &mut self.path_nodes,
                    &self.sc.wpath[k * PATH_NODES_MAX..k * PATH_NODES_MAX + l],
                )?;
                for i in 0..l.saturating_sub(1) {
                    let a = self.sc.wpath[k * PATH_NODES_MAX + i];
                    let b = self.sc.wpath[k * PATH_NODES_MAX + i + 1];
                    let link = self.g.link_between(a, b).ok_or(RouteError::Scratch)?;
                    push_cap(&mut self.link_arena, link)?;
                }
            }
        }
        let mut new_servers = 0u32;
        for k in 0..w {
            let v = self.sc.wnodes[k] as usize;
            if !self.used_node[v] {
                self.used_node[v] = true;
                new_servers += 1;
            }
        }
        let met = start as u64 + jb.duration as u64 <= jb.deadline as u64;
        self.totals = self.totals.with(network, new_servers, !met);
        self.plans[j as usize] = JobPlan {
            start,
            first_path,
            workers: jb.workers,
            aggregation: agg_node,
            network_cost: network,
            deadline_met: met,
            bandwidth_units: units,
            bandwidth_units_plain: units_plain,
        };
        self.decided[j as usize] = true;
        self.job_links[j as usize] = (link_off, self.link_arena.len() as u32 - link_off);
        let r = self.ps_row[jb.ps as usize] as usize;
        self.group_running[r] += jb.workers;
        if self.live.len() == self.live.capacity() {
            return Err(RouteError::Scratch);
        }
        self.live.push(j);
        if start <= t {
            self.apply(j as usize, 1.0);
            self.applied[j as usize] = true;
        }
        let mut nodes = heapless::Vec::new();
        let mut hops = 0u32;
        for k in 0..w {
            nodes
                .push(self.sc.wnodes[k])
                .map_err(|_| RouteError::Scratch)?;
            hops += self.sc.wlen[k].saturating_sub(1);
        }
        sink(&RouteDecision::Placed(DecisionRec {
            job: j,
            policy: self.policy.code(),
            start,
            nodes,
            hops,
            network_cost: canon(network),
            deadline_met: met,
            aggregation: agg_node,
        }));
        Ok(())
    }

    /// Algorithm 2 on the decoded paths; on success writes the aggregated paths and links and
    /// returns (node, N, bandwidth units).
    fn try_aggregate(
        &mut self,
        j: u32,
        sink: &mut dyn FnMut(&RouteDecision),
        n_plain: f64,
        units_plain: u32,
    ) -> Result<Option<(u32, f64, u32)>, RouteError> {
        let jb = self.jobs[j as usize];
        let w = jb.workers as usize;
        let mut views: [&[u32]; ROUTE_WORKERS_MAX] = [&[]; ROUTE_WORKERS_MAX];
        for (k, v) in views.iter_mut().enumerate().take(w) {
            let l = self.sc.wlen[k] as usize;
            *v = &self.sc.wpath[k * PATH_NODES_MAX..k * PATH_NODES_MAX + l];
        }
        let Some(choice) =
            aggregate::choose(&self.g, jb.ps, &views[..w], &mut self.dj_tmp, &mut self.agg)?
        else {
            return Ok(None);
        };
        // Segments: the trunk once, each distinct node's branch once; their links form the
        // multicast structure (each link carries the job's flow once).
        let g = &self.g;
        let tl = choice.trunk_len as usize;
        let mut seg_links = [0u32; PATH_NODES_MAX];
        let h = aggregate::links_of(g, &self.agg.trunk[..tl], &mut seg_links)
            .ok_or(RouteError::Scratch)?;
        let mut n_agg = network_cost(g, &seg_links[..h], self.f);
        // The distinct links, in a small linear set (at most (1 + workers) PATH_NODES_MAX).
        let mut set_len = 0usize;
        let set = &mut self.sc.links;
        let mut add = |l: u32, set: &mut Vec<u32>| -> Result<(), RouteError> {
            if !set[..set_len].contains(&l) {
                if set_len == set.len() {
                    return Err(RouteError::Scratch);
                }
                set[set_len] = l;
                set_len += 1;
            }
            Ok(())
        };
        for &l in &seg_links[..h] {
            add(l, set)?;
        }
        let nd = self.agg.distinct().len();
        for k in 0..nd {
            let bl = self.agg.branch_len[k] as usize;
            let br = &self.agg.branches[k * PATH_NODES_MAX..k * PATH_NODES_MAX + bl];
            let hb = aggregate::links_of(g, br, &mut seg_links).ok_or(RouteError::Scratch)?;
            n_agg += network_cost(g, &seg_links[..hb], self.f);
            for &l in &seg_links[..hb] {
                add(l, set)?;
            }
        }
        let units_agg = set_len as u32;
        let applied = units_agg <= units_plain && n_agg <= n_plain;
        sink(&RouteDecision::Aggregation(AggRec {
            job: j,
            node: choice.node,
            weight: canon(choice.weight),
            units_plain,
            units_aggregated: units_agg,
            network_plain: canon(n_plain),
            network_aggregated: canon(n_agg),
            applied,
        }));
        if !applied {
            return Ok(None);
        }
        for i in 0..set_len {
            let l = self.sc.links[i];
            push_cap(&mut self.link_arena, l)?;
        }
        // Each worker's path: trunk ++ its node's branch (without repeating a), loop-erased.
        for k in 0..w {
            let c = self.sc.wnodes[k];
            let bi = self
                .agg
                .distinct()
                .iter()
                .position(|x| x.0 == c)
                .ok_or(RouteError::Scratch)?;
            let bl = self.agg.branch_len[bi] as usize;
            let mut buf = [0u32; 2 * PATH_NODES_MAX];
            buf[..tl].copy_from_slice(&self.agg.trunk[..tl]);
            let br = &self.agg.branches[bi * PATH_NODES_MAX..bi * PATH_NODES_MAX + bl];
            let mut len = tl;
            for &v in br.iter().skip(1) {
                buf[len] = v;
                len += 1;
            }
            let len = aggregate::loop_erase(&mut buf, len);
            if len > PATH_NODES_MAX {
                return Err(RouteError::PathTooLong { job: j });
            }
            push_path(&mut self.paths, &mut self.path_nodes, &buf[..len])?;
        }
        Ok(Some((choice.node, n_agg, units_agg)))
    }
}

/// CSRP and the baselines as an embeddable [`Scheduler`]: `JobArrived(j)` releases job j
/// into the queue (at its release time or later); `SlotAdvanced` at t applies the link load
/// of jobs starting by t, releases that of jobs ended by t, and lets the policy place what it
/// can (PSO, aggregation and placement records go to `out`); `JobFinished` is ignored (the
/// router knows each job's duration). Call `SlotAdvanced` at every release time and at every
/// [`Router::next_event`]; [`Router::run`] is exactly that loop. [`Router::finish`] ends a run.
impl Scheduler for Router {
    type Job = u32;
    type Decision<'a> = RouteDecision;
    type Error = RouteError;

    fn on_event<F: FnMut(&RouteDecision) + ?Sized>(
        &mut self,
        now: u32,
        event: Event<u32>,
        out: &mut F,
    ) -> Result<(), RouteError> {
        match event {
            Event::JobArrived(j) => self.release(now, j),
            Event::SlotAdvanced => self.step(now, &mut |d: &RouteDecision| out(d)),
            Event::JobFinished(_) => self.check_time(now),
        }
    }

    /// [`Router::next_event`]: the earliest reserved start or completion.
    fn next_wakeup(&self, _after: Option<u32>) -> Option<u32> {
        self.next_event()
    }

    /// The summary record; a job still queued when nothing is left to happen can never be
    /// placed ([`RouteError::Unreachable`]).
    fn finish<F: FnMut(&RouteDecision) + ?Sized>(&mut self, out: &mut F) -> Result<(), RouteError> {
        if let Some(&j) = self.queue.first() {
            return Err(RouteError::Unreachable {
                job: j,
                workers: self.jobs[j as usize].workers,
                reachable: 0,
            });
        }
        out(&RouteDecision::Summary(self.summary_rec()));
        Ok(())
    }
}

fn lex_less(a: (bool, f64, usize), b: (bool, f64, usize)) -> bool {
    a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)) == core::cmp::Ordering::Less
}

fn finite(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        -1.0
    }
}

fn push_cap(v: &mut Vec<u32>, x: u32) -> Result<(), RouteError> {
    if v.len() == v.capacity() {
        return Err(RouteError::Scratch);
    }
    v.push(x);
    Ok(())
}

fn push_path(
    paths: &mut Vec<(u32, u32)>,
    nodes: &mut Vec<u32>,
    p: &[u32],
) -> Result<(), RouteError> {
    if paths.len() == paths.capacity() || nodes.len() + p.len() > nodes.capacity() {
        return Err(RouteError::Scratch);
    }
    paths.push((nodes.len() as u32, p.len() as u32));
    nodes.extend_from_slice(p);
    Ok(())
}

/// The tree path src -> v (`pred` rooted at src) into `out`, or `None` if too long/unreachable.
fn tree_path(pred: &[u32], src: u32, v: u32, out: &mut [u32]) -> Option<usize> {
    let mut len = 0usize;
    let mut x = v;
    while x != src {
        if len + 1 >= out.len() || x == NONE {
            return None;
        }
        out[len] = x;
        len += 1;
        x = *pred.get(x as usize)?;
    }
    out[len] = src;
    len += 1;
    out[..len].reverse();
    Some(len)
}

/// What a position is evaluated against.
struct Ctx<'a> {
    g: &'a Graph,
    job: &'a RouteJob,
    t: u32,
    pred_h: &'a [u32],
    pred_l: &'a [u32],
    used: &'a [bool],
    totals: Totals,
    f: f64,
    beta: f64,
}

fn bits_value(bits: &[u8]) -> usize {
    bits.iter()
        .enumerate()
        .fold(0usize, |acc, (i, &b)| acc | ((b as usize & 1) << i))
}

/// Decodes a particle (eq. 12) into start, compute nodes and loop-erased paths (in `sc`), and
/// returns its fitness: eq. (11) of the schedule so far plus this candidate.
fn decode(ctx: &Ctx<'_>, bits: &[u8], sc: &mut Scratch) -> Fitness {
    let w = ctx.job.workers as usize;
    if bits.len() < START_BITS + w * WORKER_DIMS {
        return Fitness::WORST;
    }
    let d = bits_value(&bits[..START_BITS]);
    let start = ctx.t.saturating_add(d as u32);
    let n = sc.cand_len[d];
    let base = d * CAND_MAX;
    let total: u32 = sc.cand_free[base..base + n].iter().sum();
    if n == 0 || total < ctx.job.workers {
        return Fitness::WORST;
    }
    sc.taken[..n].fill(0);
    sc.gen = sc.gen.wrapping_add(1);
    if sc.gen == 0 {
        sc.stamp.fill(0);
        sc.gen = 1;
    }
    let mut new_servers = 0u32;
    let mut network = 0.0;
    for k in 0..w {
        let wb = &bits[START_BITS + k * WORKER_DIMS..START_BITS + (k + 1) * WORKER_DIMS];
        let mut i = bits_value(&wb[..NODE_BITS]) % n.min(NODE_CHOICES);
        // The chosen candidate is full: the next one (cyclically) with a free slot.
        let mut tries = 0;
        while sc.taken[i] >= sc.cand_free[base + i] && tries < n {
            i = (i + 1) % n;
            tries += 1;
        }
        sc.taken[i] += 1;
        let v = sc.cand[base + i];
        sc.wnodes[k] = v;
        if !ctx.used.get(v as usize).copied().unwrap_or(true) && sc.stamp[v as usize] != sc.gen {
            sc.stamp[v as usize] = sc.gen;
            new_servers += 1;
        }
        let Some(len) = walk(
            ctx,
            v,
            &wb[NODE_BITS..],
            &mut sc.wpath[k * PATH_NODES_MAX..(k + 1) * PATH_NODES_MAX],
        ) else {
            return Fitness::WORST;
        };
        sc.wlen[k] = len as u32;
        let links = &mut sc.links[k * PATH_NODES_MAX..(k + 1) * PATH_NODES_MAX];
        let Some(h) = aggregate::links_of(
            ctx.g,
            &sc.wpath[k * PATH_NODES_MAX..k * PATH_NODES_MAX + len],
            links,
        ) else {
            return Fitness::WORST;
        };
        let c = network_cost(ctx.g, &links[..h], ctx.f);
        sc.wcost[k] = c;
        network += c;
    }
    let met = start as u64 + ctx.job.duration as u64 <= ctx.job.deadline as u64;
    ctx.totals
        .with(network, new_servers, !met)
        .fitness(ctx.beta, network, start)
}

/// The hop dimensions: walk from compute node `c` back to the PS; at hop i, bit 1 follows the
/// light-load tree, 0 the hop-shortest tree (beyond [`HOP_BITS`]: hop-shortest, which always
/// reaches the PS). Loops are erased as they close. Writes PS -> c into `out`.
fn walk(ctx: &Ctx<'_>, c: u32, hop_bits: &[u8], out: &mut [u32]) -> Option<usize> {
    let ps = ctx.job.ps;
    let mut len = 0usize;
    out[len] = c;
    len += 1;
    let mut v = c;
    let limit = HOP_BITS + ctx.g.nodes() + 1;
    for step in 0..limit {
        if v == ps {
            out[..len].reverse();
            return Some(len);
        }
        let b = hop_bits.get(step).copied().unwrap_or(0);
        let mut nx = if b == 1 {
            ctx.pred_l.get(v as usize).copied().unwrap_or(NONE)
        } else {
            NONE
        };
        if nx == NONE {
            nx = ctx.pred_h.get(v as usize).copied().unwrap_or(NONE);
        }
        if nx == NONE {
            return None;
        }
        match out[..len].iter().position(|&x| x == nx) {
            Some(q) => len = q + 1,
            None => {
                if len == out.len() {
                    return None;
                }
                out[len] = nx;
                len += 1;
            }
        }
        v = nx;
    }
    None
}
