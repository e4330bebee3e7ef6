//! Preemptive edge-cloud chunk scheduling (Wang et al. 2022, "Preemptive Scheduling for
//! Distributed Machine Learning Jobs in Edge-Cloud Networks"), kind `"preempt"`.
//!
//! A job j arriving at r_j has D_j data chunks; each chunk trains E_j B_j mini-batches on one
//! worker, p_jdsw = E_j B_j / n_jsw slots, occupying ceil(p) whole slots. Per slot (A_online,
//! Algorithm 1): the jobs arriving now are dispatched chunk by chunk by [`Policy::Greedy`]
//! (A_greedy, Algorithm 2: argmin of Q, eq. 5), then A_ps (Algorithm 5) gives every job running
//! in this slot one parameter server.
//!
//! Semantics (`docs/preempt.md`, with our reading of the listings):
//! - edge worker plans run highest gamma first, preemptively at slot granularity: a new chunk
//!   runs in [t*, t* + ceil(p)), t* = max(end of the last A1 chunk, t0), t0 = r_j + Delta_js, and
//!   every planned slot >= t* of the lower-gamma chunks (A2) moves ceil(p) slots later;
//! - the cloud has unlimited workers (a fresh one per chunk, no queue): Q = Delta/D + p/D;
//!   zeta_j = 1 (rate without the 2q/b term) only when chunk 1 already picks the cloud;
//! - exact greedy: the candidate Q-values C_j are computed once per job; after a chunk lands on
//!   a worker only that worker's entry is recomputed (no other plan changed).
//!
//! [`PreemptScheduler`] implements [`crate::api::Scheduler`]; [`run_all`] drives it over a whole
//! scenario. Decisions are [`PreemptDecision`]s, each with its log tag (range 0x40).
//! Randomness (A_ps, random dispatch): [`crate::rng::SplitMix64`] seeded from the scenario.
mod dispatch;
pub mod plan;
mod ps;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod snapshot;

use crate::api::{Event, Scheduler};
use crate::error::{CapacityError, Limit};
use crate::log::TAG_PREEMPT;
use crate::model::preempt::PreemptScenario;
use crate::rng::SplitMix64;
use crate::Slot;
use alloc::vec::Vec;
use plan::{PlanError, Plans};
use serde::{Deserialize, Serialize};

/// Tag of a [`CandidateRec`] (one entry of C_j).
pub const TAG_CANDIDATE: u8 = TAG_PREEMPT;
/// Tag of a [`DispatchRec`].
pub const TAG_DISPATCH: u8 = TAG_PREEMPT + 1;
/// Tag of a [`PsRec`].
pub const TAG_PS: u8 = TAG_PREEMPT + 2;
/// Tag of a [`PsMissRec`].
pub const TAG_PS_MISS: u8 = TAG_PREEMPT + 3;

/// Which dispatch rule runs (worker plans and A_ps are the same for all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Policy {
    /// A_greedy (the paper): argmin of Q (eq. 5), preemptive highest-gamma-first plans.
    Greedy,
    /// Every chunk on the cloud with zeta_j = 1.
    AllCloud,
    /// Nearest edge server (smallest Delta_js, ties lowest index), its worker that frees
    /// earliest, appended without preemption; the cloud only if no edge worker is eligible.
    EdgeFifo,
    /// Each chunk on a uniformly random eligible worker (edge or cloud) with the seeded PRNG;
    /// edge plans stay preemptive highest-gamma-first.
    Random,
}

/// Errors of the preemptive scheduler.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreemptError {
    /// Building the scheduler would exceed a fixed capacity of [`crate::limits`].
    Capacity(CapacityError),
    /// The decision log refused a record.
    Log(crate::log::LogError),
    /// An event named a job index outside the scenario.
    UnknownJob {
        /// index
        job: u32,
    },
    /// A job was announced in a slot other than its r_j.
    WrongSlot {
        /// index
        job: u32,
        /// r_j
        arrival: Slot,
        /// slot of the event
        now: Slot,
    },
    /// A job was announced (dispatched) a second time.
    AlreadyDispatched {
        /// index
        job: u32,
    },
    /// No worker (edge or cloud) is eligible for a chunk of the job.
    NoEligibleWorker {
        /// index
        job: u32,
    },
    /// An event came with a slot before the previous event's.
    TimeWentBack {
        /// slot of the event
        now: Slot,
    },
}

impl core::fmt::Display for PreemptError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            PreemptError::Capacity(e) => e.fmt(f),
            PreemptError::Log(e) => write!(f, "decision log: {e}"),
            PreemptError::UnknownJob { job } => write!(f, "job index {job} is not in the scenario"),
            PreemptError::WrongSlot { job, arrival, now } => write!(
                f,
                "job index {job} arrives at slot {arrival} but was announced at slot {now}"
            ),
            PreemptError::AlreadyDispatched { job } => {
                write!(f, "job index {job} was already dispatched")
            }
            PreemptError::NoEligibleWorker { job } => write!(
                f,
                "job index {job}: no eligible worker (every rate is 0 for this chunk)"
            ),
            PreemptError::TimeWentBack { now } => {
                write!(f, "event at slot {now} is earlier than the previous event")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for PreemptError {}

impl From<PlanError> for PreemptError {
    fn from(e: PlanError) -> Self {
        match e {
            PlanError::TooLong(c) => PreemptError::Capacity(c),
            // Two segments per chunk are reserved and each chunk is placed once.
            PlanError::PoolFull | PlanError::OutOfRange => PreemptError::Capacity(CapacityError {
                limit: Limit::PreemptTotalChunks,
                max: crate::limits::PREEMPT_TOTAL_CHUNKS_MAX as u64,
                got: u64::MAX,
                job: None,
            }),
        }
    }
}

/// One entry of C_j (Algorithm 2, lines 3-8): Q of chunk 1 of `job` on one candidate worker.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CandidateRec {
    /// Job index.
    pub job: u32,
    /// Server s.
    pub server: u32,
    /// Worker w (0 for the cloud).
    pub worker: u32,
    /// Q_jd1sw.
    pub q: f64,
    /// t* on that worker.
    pub t_star: Slot,
}

/// One chunk's dispatch y_jdsw: where it goes, its Q (alpha_jd) and why.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DispatchRec {
    /// Job index.
    pub job: u32,
    /// Chunk d (0-based).
    pub chunk: u32,
    /// Server s*.
    pub server: u32,
    /// Worker w* (on the cloud: the fresh worker's number).
    pub worker: u32,
    /// True on the cloud.
    pub cloud: bool,
    /// zeta_j as decided so far.
    pub zeta: bool,
    /// alpha_jd: the chosen Q (the minimum of C_j).
    pub q: f64,
    /// The chosen worker's Q recomputed after placing (the only entry of C_j that changes;
    /// +inf on the cloud, which takes the rest of the job).
    pub q_next: f64,
    /// First slot t*.
    pub start: Slot,
    /// Slots ceil(p_jdsw).
    pub len: u32,
    /// Chunks of other jobs split (preempted) by this placement.
    pub preempted: u32,
}

/// z_jsp(t) = 1: `job` uses PS `ps` of `server` in `slot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PsRec {
    /// Slot t.
    pub slot: Slot,
    /// Job index.
    pub job: u32,
    /// Server s.
    pub server: u32,
    /// PS p on s.
    pub ps: u32,
    /// Kept from slot t - 1 (Algorithm 5, line 3).
    pub kept: bool,
}

/// A running job found no free eligible PS in `slot` (counted, not hidden).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PsMissRec {
    /// Slot t.
    pub slot: Slot,
    /// Job index.
    pub job: u32,
}

/// Every decision the scheduler makes, in order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum PreemptDecision {
    /// An entry of C_j (explanation of the dispatches that follow).
    Candidate(CandidateRec),
    /// A chunk placed.
    Dispatch(DispatchRec),
    /// A PS assigned for one slot.
    Ps(PsRec),
    /// No PS available.
    PsMiss(PsMissRec),
}

impl PreemptDecision {
    /// The log tag (0x40 range).
    pub fn tag(&self) -> u8 {
        match self {
            PreemptDecision::Candidate(_) => TAG_CANDIDATE,
            PreemptDecision::Dispatch(_) => TAG_DISPATCH,
            PreemptDecision::Ps(_) => TAG_PS,
            PreemptDecision::PsMiss(_) => TAG_PS_MISS,
        }
    }

    /// Records the decision (its record body only, floats canonical) in `sink` under [`Self::tag`].
    pub fn log<S: crate::log::LogSink>(&self, sink: &mut S) -> Result<(), crate::log::LogError> {
        use crate::num::canon;
        match *self {
            PreemptDecision::Candidate(mut r) => {
                r.q = canon(r.q);
                sink.record(self.tag(), &r)
            }
            PreemptDecision::Dispatch(mut r) => {
                r.q = canon(r.q);
                r.q_next = canon(r.q_next);
                sink.record(self.tag(), &r)
            }
            PreemptDecision::Ps(r) => sink.record(self.tag(), &r),
            PreemptDecision::PsMiss(r) => sink.record(self.tag(), &r),
        }
    }
}

/// Where a chunk ended up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// Placed yet?
    pub placed: bool,
    /// Server s.
    pub server: u32,
    /// Worker w (cloud: fresh worker number).
    pub worker: u32,
    /// On the cloud (contiguous [start, end)).
    pub cloud: bool,
    /// Cloud chunks: first slot (edge chunks: see the plan's segments).
    pub start: Slot,
    /// Cloud chunks: last slot + 1.
    pub end: Slot,
}

/// One candidate of C_j in the scratch table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Cand {
    server: u32,
    worker: u32,
    /// global edge worker index, or NIL for the cloud
    gw: u32,
    q: f64,
    t_star: Slot,
}

/// The preemptive scheduler (A_online with A_greedy / A_ps, or a baseline dispatch).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PreemptScheduler {
    scn: PreemptScenario,
    policy: Policy,
    /// Global edge worker index of worker 0 of each server.
    worker_base: Vec<u32>,
    /// Global chunk index of chunk 0 of each job.
    chunk_base: Vec<u32>,
    /// Global PS index of PS 0 of each server.
    ps_base: Vec<u32>,
    plans: Plans,
    place: Vec<Placement>,
    /// zeta_j per job.
    zeta: Vec<bool>,
    dispatched: Vec<bool>,
    /// Cloud chunks' common window [start, end) per job (start = end = 0 if none).
    cloud_window: Vec<(Slot, Slot)>,
    /// Largest cloud window end so far.
    cloud_end: Slot,
    /// Per job: slot + 1 it last ran in (0 = never), and the PS it had then.
    last_run: Vec<Slot>,
    last_ps: Vec<u32>,
    /// Per job: this slot's PS (global index or NIL), scratch for A_ps.
    cur_ps: Vec<u32>,
    /// Per PS: slot + 1 it was last taken in.
    ps_taken: Vec<Slot>,
    cand: Vec<Cand>,
    cloud_workers: u32,
    arrived: Vec<u32>,
    /// Distinct arrival slots, ascending (summaries are rebuilt before each).
    arrival_slots: Vec<Slot>,
    rng: SplitMix64,
    dispatch_rng: SplitMix64,
    now: Slot,
    /// Preemptions (chunk splits) so far.
    pub preemptions: u64,
    /// Slots in which a running job found no PS.
    pub ps_misses: u64,
    /// Restart time in slots a preempted (split) chunk pays before it resumes
    /// (`docs/restart.md`; 0 = none). Configuration, not state: not in a snapshot, kept by
    /// the scheduler a snapshot is restored into.
    #[serde(skip)]
    restart: u32,
}

impl PreemptScheduler {
    /// Builds the scheduler for a validated scenario; every buffer a decision needs is
    /// allocated here, sized by the scenario (limits checked).
    pub fn new(scn: &PreemptScenario, policy: Policy) -> Result<Self, PreemptError> {
        let cap =
            |limit, got, max| crate::limits::check(limit, got, max).map_err(PreemptError::Capacity);
        cap(
            Limit::EdgeServers,
            scn.servers.len(),
            crate::limits::EDGE_SERVERS_MAX,
        )?;
        cap(Limit::Jobs, scn.jobs.len(), crate::limits::JOBS_MAX)?;
        let mut worker_base = Vec::with_capacity(scn.servers.len());
        let mut ps_base = Vec::with_capacity(scn.servers.len());
        let (mut nw, mut np) = (0u32, 0u32);
        for s in &scn.servers {
            cap(
                Limit::WorkersPerServer,
                s.workers as usize,
                crate::limits::WORKERS_PER_SERVER_MAX,
            )?;
            cap(
                Limit::PsPerServer,
                s.ps as usize,
                crate::limits::PS_PER_SERVER_MAX,
            )?;
            worker_base.push(nw);
            ps_base.push(np);
            nw += if s.cloud { 0 } else { s.workers };
            np += s.ps;
        }
        let mut chunk_base = Vec::with_capacity(scn.jobs.len());
        let mut nc = 0usize;
        for (i, j) in scn.jobs.iter().enumerate() {
            crate::limits::check(Limit::Chunks, j.chunks as usize, crate::limits::CHUNKS_MAX)
                .map_err(|e| PreemptError::Capacity(e.for_job(i as u32)))?;
            chunk_base.push(nc as u32);
            nc += j.chunks as usize;
        }
        cap(
            Limit::PreemptTotalChunks,
            nc,
            crate::limits::PREEMPT_TOTAL_CHUNKS_MAX,
        )?;
        let nj = scn.jobs.len();
        let mut arrival_slots: Vec<Slot> = scn.jobs.iter().map(|j| j.arrival).collect();
        crate::order::sort_u32(&mut arrival_slots);
        arrival_slots.dedup();
        Ok(PreemptScheduler {
            scn: scn.clone(),
            policy,
            worker_base,
            chunk_base,
            ps_base,
            plans: Plans::new(nw as usize, nc),
            place: alloc::vec![Placement::default(); nc],
            zeta: alloc::vec![false; nj],
            dispatched: alloc::vec![false; nj],
            cloud_window: alloc::vec![(0, 0); nj],
            cloud_end: 0,
            last_run: alloc::vec![0; nj],
            last_ps: alloc::vec![plan::NIL; nj],
            cur_ps: alloc::vec![plan::NIL; nj],
            ps_taken: alloc::vec![0; np as usize],
            cand: Vec::with_capacity(nw as usize + scn.servers.len()),
            cloud_workers: 0,
            arrived: Vec::with_capacity(nj),
            arrival_slots,
            rng: SplitMix64::new(scn.seed),
            dispatch_rng: SplitMix64::new(scn.seed ^ 0x5EED_D15B_A7C4_0000),
            now: 0,
            preemptions: 0,
            ps_misses: 0,
            restart: 0,
        })
    }

    /// Every preemption (a chunk split on an edge worker) costs `slots` of restart time: the
    /// rest of the chunk resumes that much later ([`plan::Plans::insert_restart`]).
    pub fn with_restart(mut self, slots: u32) -> Self {
        self.restart = slots;
        self
    }

    /// Restores every build-time reservation (pools and scratch). `clone` and a serde restore
    /// keep lengths, not capacities; without this call the first decisions after them
    /// re-reserve (allocate) once.
    pub fn reserve(&mut self) {
        self.plans.reserve();
        self.reserve_scratch();
    }

    /// The scenario scheduled.
    pub fn scenario(&self) -> &PreemptScenario {
        &self.scn
    }

    /// The worker plans (segments per edge worker).
    pub fn plans(&self) -> &Plans {
        &self.plans
    }

    /// Global chunk index of chunk `d` of job `j`.
    pub fn chunk_index(&self, j: usize, d: u32) -> Option<u32> {
        self.chunk_base.get(j).map(|b| b + d)
    }

    /// Global edge worker index of worker `w` of server `s`.
    pub fn worker_index(&self, s: usize, w: u32) -> Option<u32> {
        self.worker_base.get(s).map(|b| b + w)
    }

    /// Where chunk `c` (global index) was placed.
    pub fn placement(&self, c: u32) -> Option<Placement> {
        self.place.get(c as usize).copied()
    }

    /// The end (last slot + 1) of chunk `c` as planned now.
    pub fn chunk_end(&self, c: u32) -> Slot {
        match self.place.get(c as usize) {
            Some(p) if p.cloud => p.end,
            Some(p) if p.placed => self.plans.chunks.get(c as usize).map_or(0, |x| x.end),
            _ => 0,
        }
    }

    /// c_j: the end of the last slot in which a chunk of job `j` runs (0 if not dispatched).
    pub fn completion(&self, j: usize) -> Slot {
        let (Some(&b), Some(job)) = (self.chunk_base.get(j), self.scn.jobs.get(j)) else {
            return 0;
        };
        (b..b + job.chunks)
            .map(|c| self.chunk_end(c))
            .max()
            .unwrap_or(0)
    }

    /// zeta_j of job `j`.
    pub fn zeta(&self, j: usize) -> bool {
        self.zeta.get(j).copied().unwrap_or(false)
    }

    /// Wake-ups: every slot from 0 until every job has arrived and every chunk has finished
    /// (A_ps runs per slot). Used by [`Scheduler::next_wakeup`].
    fn wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        let Some(t) = after else { return Some(0) };
        let n = t.checked_add(1)?;
        let arriving = self.arrival_slots.last().is_some_and(|&a| a >= n);
        (arriving || n < self.horizon_end()).then_some(n)
    }

    /// The last slot + 1 any chunk is planned in.
    pub fn horizon_end(&self) -> Slot {
        self.plans.max_end.max(self.cloud_end)
    }

    fn check_time(&mut self, now: Slot) -> Result<(), PreemptError> {
        if now < self.now {
            return Err(PreemptError::TimeWentBack { now });
        }
        self.now = now;
        Ok(())
    }
}

impl Scheduler for PreemptScheduler {
    /// The job's index in the scenario.
    type Job = u32;
    type Decision<'a> = PreemptDecision;
    type Error = PreemptError;

    /// `JobArrived(j)` at r_j: dispatch its chunks (A_greedy or the baseline);
    /// `SlotAdvanced` at t: A_ps for slot t (call after the arrivals of t); `JobFinished` is
    /// ignored (the plans know when chunks end).
    fn on_event<F: FnMut(&PreemptDecision) + ?Sized>(
        &mut self,
        now: Slot,
        event: Event<u32>,
        out: &mut F,
    ) -> Result<(), PreemptError> {
        let out: &mut dyn FnMut(&PreemptDecision) = &mut |d: &PreemptDecision| out(d);
        self.check_time(now)?;
        match event {
            Event::JobArrived(j) => self.dispatch_job(j, now, out),
            Event::SlotAdvanced => {
                self.assign_ps(now, out);
                // Between slots (not inside a dispatch): keep each worker's segments
                // contiguous once a quarter of the pool is new.
                let fresh = self.plans.fresh();
                if fresh >= 64 && fresh * 4 >= self.plans.segment_count() {
                    self.plans.compact();
                }
                // Jobs arrive next slot: prepare the per-worker summaries their C_j reads.
                let next = now.saturating_add(1);
                if self.arrival_slots.binary_search(&next).is_ok() {
                    self.plans.rebuild_summaries(next);
                }
                Ok(())
            }
            Event::JobFinished(_) => Ok(()),
        }
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.wakeup(after)
    }
}

impl crate::api::Record for PreemptDecision {
    fn log<S: crate::log::LogSink>(&self, sink: &mut S) -> Result<(), crate::log::LogError> {
        PreemptDecision::log(self, sink)
    }
}

/// A_online (Algorithm 1) over the whole scenario through [`crate::driver::Driver`]: per slot,
/// the arrivals of the slot in input order, then A_ps; runs until every chunk has finished.
/// Every decision goes to `out`.
pub fn run_all(
    sched: &mut PreemptScheduler,
    out: &mut dyn FnMut(&PreemptDecision),
) -> Result<(), PreemptError> {
    let order = crate::driver::arrival_order(sched.scn.jobs.iter().map(|j| j.arrival));
    let mut d = crate::driver::Driver::new(&mut *sched);
    d.run(&order, &mut crate::log::HashSink::new(), out)
        .map_err(|e| match e {
            crate::driver::DriverError::Scheduler(e) => e,
            crate::driver::DriverError::Log(e) => PreemptError::Log(e),
        })
}
