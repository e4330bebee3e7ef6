//! [`RouteScheduler`]: the event-driven run of CSRP / Aggregated CSRP and the baselines, and its
//! [`Scheduler`] impl. The run: jobs are released into a queue; at each event time (a release, a
//! reserved start, a completion) the policy takes jobs from the queue and places them.
//!
//! - **CSRP** (Algorithm 1): queue in earliest-deadline order ("prioritize high-priority
//!   computing tasks"); per job a binary PSO chooses the start `now + delta` (delta < 2^3),
//!   a compute node per worker among the light-load candidates and, per hop, the next node on
//!   the least-loaded (BW_u / C) or the hop-shortest tree; the fitness is eq. (11) of the
//!   schedule so far plus the candidate, compared lexicographically ([`Fitness`]). A start in
//!   the future reserves the slots (so a job that cannot start now may be planned for later).
//! - **Aggregated CSRP**: CSRP, then Algorithm 2 ([`super::aggregate`], [`super::commit`]) on the chosen paths.
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
use super::aggregate::AggScratch;
use super::cost::Totals;
use super::dijkstra::Dijkstra;
use super::graph::Graph;
use super::lanes::Lanes;
use super::outcome::{JobPlan, RouteOutcome, RouteSummary};
use super::pso::Swarm;
use super::records::{RouteDecision, SummaryRec, TAG_ROUTE_SUMMARY};
use super::scratch::Scratch;
use super::tables::Tables;
#[cfg(doc)]
use super::RouteState;
use super::{Policy, RouteError, NONE, PATH_NODES_MAX, START_BITS, WORKER_DIMS};
use crate::api::{Event, Scheduler};
use crate::error::Limit;
use crate::limits::{check, JOBS_MAX};
use crate::log::LogSink;
use crate::model::route::{PsoParams, RouteJob, RouteScenario};
use crate::num::canon;
use crate::rng::SplitMix64;
use alloc::vec::Vec;

/// The CSRP / baseline scheduler over one scenario: graph, slot lanes, queue, scratch.
#[derive(Clone, Debug)]
pub struct RouteScheduler {
    // The run's parameters.
    pub(super) policy: Policy,
    pub(super) aggregate: bool,
    pub(super) f: f64,
    pub(super) beta: f64,
    pub(super) pso: PsoParams,
    pub(super) rng: SplitMix64,
    pub(super) jobs: Vec<RouteJob>,
    /// Read-only tables built from the scenario.
    pub(super) tables: Tables,
    // The state (see [`RouteState`]): link load, lanes, placements, queue.
    pub(super) g: Graph,
    pub(super) lanes: Lanes,
    pub(super) used_node: Vec<bool>,
    pub(super) totals: Totals,
    pub(super) plans: Vec<JobPlan>,
    pub(super) decided: Vec<bool>,
    pub(super) paths: Vec<(u32, u32)>,
    pub(super) path_nodes: Vec<u32>,
    pub(super) job_links: Vec<(u32, u32)>,
    pub(super) link_arena: Vec<u32>,
    pub(super) queue: Vec<u32>,
    pub(super) live: Vec<u32>,
    pub(super) applied: Vec<bool>,
    pub(super) group_running: Vec<u32>,
    /// Per job: released into the queue ([`Event::JobArrived`]).
    pub(super) released: Vec<bool>,
    /// Slot of the last event.
    pub(super) now: u32,
    // Per-decision scratch.
    pub(super) dj_load: Dijkstra,
    pub(super) dj_tmp: Dijkstra,
    pub(super) swarm: Swarm,
    pub(super) agg: AggScratch,
    pub(super) sc: Scratch,
    /// The open world: node capacity and state, job fates (`super::world`).
    pub(super) ow: super::world::World,
}

impl RouteScheduler {
    /// Builds the scheduler (all allocation happens here).
    pub fn new(s: &RouteScenario, policy: Policy) -> Result<Self, RouteError> {
        check(Limit::Jobs, s.jobs.len(), JOBS_MAX)?;
        if policy == Policy::Csrp {
            let work = pso_work(s.pso.particles, s.pso.iterations, s.jobs.len());
            if work > crate::limits::PSO_WORK_MAX {
                return Err(RouteError::Capacity(crate::CapacityError {
                    limit: Limit::PsoWork,
                    max: crate::limits::PSO_WORK_MAX,
                    got: work,
                    job: None,
                }));
            }
        }
        let g = Graph::new(&s.topology)?;
        let lanes = Lanes::new(&g);
        let (tables, max_w) = Tables::build(&s.jobs, &g)?;
        let (n, nj) = (g.nodes(), s.jobs.len());
        let particles = if policy == Policy::Csrp {
            s.pso.particles as usize
        } else {
            0
        };
        let runs = if policy == Policy::DeadlinePreemptive {
            1 + super::PREEMPT_RERUNS
        } else {
            1
        };
        // Each run of a job pushes its paths and links: room for `runs` runs per worker.
        let total_w: usize = runs * s.jobs.iter().map(|j| j.workers as usize).sum::<usize>();
        Ok(RouteScheduler {
            policy,
            aggregate: s.aggregate && policy == Policy::Csrp,
            f: s.load_factor,
            beta: s.beta,
            pso: s.pso,
            rng: SplitMix64::new(s.seed),
            jobs: s.jobs.clone(),
            ow: super::world::World::new(lanes.off.windows(2).map(|w| w[1] - w[0]), nj),
            lanes,
            used_node: alloc::vec![false; n],
            totals: Totals::default(),
            plans: alloc::vec![JobPlan::EMPTY; nj],
            decided: alloc::vec![false; nj],
            paths: Vec::with_capacity(total_w),
            path_nodes: Vec::with_capacity(total_w * PATH_NODES_MAX),
            job_links: alloc::vec![(0, 0); nj],
            link_arena: Vec::with_capacity(total_w * PATH_NODES_MAX),
            queue: Vec::with_capacity(nj),
            live: Vec::with_capacity(nj),
            applied: alloc::vec![false; nj],
            group_running: alloc::vec![0; tables.group_share.len()],
            released: alloc::vec![false; nj],
            now: 0,
            dj_load: Dijkstra::new(n, g.links()),
            dj_tmp: Dijkstra::new(n, g.links()),
            swarm: Swarm::new(particles, START_BITS + max_w * WORKER_DIMS),
            agg: AggScratch::new(n, max_w),
            sc: Scratch::new(n, tables.computes, max_w),
            tables,
            g,
        })
    }

    /// The topology and its current link state.
    pub fn graph(&self) -> &Graph {
        &self.g
    }

    /// Runs the whole scenario through [`crate::driver::Driver`], recording every decision in
    /// `sink`: releases at their times, `SlotAdvanced` at the scenario's own event times
    /// ([`RouteScheduler::next_event`]: reserved starts, completions), then the summary.
    pub fn run<S: LogSink>(mut self, sink: &mut S) -> Result<RouteOutcome, RouteError> {
        let order = core::mem::take(&mut self.tables.arrivals);
        let mut d = crate::driver::Driver::new(self);
        d.run(&order, sink, &mut |_: &RouteDecision| {})
            .map_err(|e| match e {
                crate::driver::DriverError::Scheduler(e)
                | crate::driver::DriverError::Refused(e) => e,
                crate::driver::DriverError::Log(e) => e.into(),
            })?;
        Ok(d.into_inner().outcome())
    }

    /// The next time something happens on its own: the earliest reserved start of a placed
    /// job or completion of a running one (`None` when nothing is placed and unfinished).
    /// Releases come from the caller. After an open-world event that freed capacity or queued
    /// a job again, the current slot (the queue is tried again there).
    pub fn next_event(&self) -> Option<u32> {
        let mut next: Option<u32> = self.ow.pending.then_some(self.now);
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
        &self.tables.order
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
        // A job cancelled before it arrives never arrives.
        if self.ow.fate[ju].is_none() {
            self.enqueue(j);
        }
        Ok(())
    }

    /// One event time `t`: link loads of jobs starting / ending by `t`, then the policy places
    /// what it can from the queue; every decision record goes to `out`.
    fn step(&mut self, t: u32, out: &mut dyn FnMut(&RouteDecision)) -> Result<(), RouteError> {
        self.check_time(t)?;
        self.ow.pending = false;
        self.advance_links(t);
        self.lanes.refresh_free_at(t);
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
}

/// CSRP and the baselines as an embeddable [`Scheduler`]: `JobArrived(j)` releases job j
/// into the queue (at its release time or later); `SlotAdvanced` at t applies the link load
/// of jobs starting by t, releases that of jobs ended by t, and lets the policy place what it
/// can (PSO, aggregation and placement records go to `out`); `JobFinished` is ignored (the
/// router knows each job's duration). Call `SlotAdvanced` at every release time and at every
/// [`RouteScheduler::next_event`]; [`RouteScheduler::run`] is exactly that loop. [`RouteScheduler::finish`] ends a run.
impl Scheduler for RouteScheduler {
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
            Event::JobCancelled(_)
            | Event::ServerDown(_)
            | Event::ServerUp(_)
            | Event::Capacity(..) => self.open_event(now, event, &mut |d: &RouteDecision| out(d)),
            Event::JobArrived(j) => self.release(now, j),
            Event::SlotAdvanced => self.step(now, &mut |d: &RouteDecision| out(d)),
            Event::JobFinished(_) => self.check_time(now),
        }
    }

    /// [`RouteScheduler::next_event`]: the earliest reserved start or completion.
    fn next_wakeup(&self, _after: Option<u32>) -> Option<u32> {
        self.next_event()
    }

    /// The summary record; in the closed world a job still queued when nothing is left to
    /// happen can never be placed ([`RouteError::Unreachable`]); in the open world (after a
    /// cancel or a server event) it is `Unfinished` (its PS or its slots may be gone).
    fn finish<F: FnMut(&RouteDecision) + ?Sized>(&mut self, out: &mut F) -> Result<(), RouteError> {
        if let Some(&j) = self.queue.first().filter(|_| !self.ow.open) {
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

/// CSRP's PSO work of a run: particles x iterations x jobs ([`crate::limits::PSO_WORK_MAX`]).
pub fn pso_work(particles: u32, iterations: u32, jobs: usize) -> u64 {
    (particles as u64)
        .saturating_mul(iterations as u64)
        .saturating_mul(jobs as u64)
}
