//! [`PreemptScheduler`]: A_online (Algorithm 1) with A_greedy / A_ps or a baseline dispatch as
//! an embeddable [`Scheduler`] value, and [`run_all`] over a whole scenario.
use super::plan::Plans;
use super::{Policy, PreemptDecision, PreemptError};
use crate::api::{Event, Scheduler};
use crate::error::Limit;
use crate::index::NONE;
use crate::model::preempt::PreemptScenario;
use crate::rng::SplitMix64;
use crate::Slot;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

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
pub(super) struct Cand {
    pub(super) server: u32,
    pub(super) worker: u32,
    /// global edge worker index, or NONE for the cloud
    pub(super) gw: u32,
    pub(super) q: f64,
    pub(super) t_star: Slot,
}

/// The preemptive scheduler (A_online with A_greedy / A_ps, or a baseline dispatch).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PreemptScheduler {
    pub(super) scn: PreemptScenario,
    pub(super) policy: Policy,
    /// Global edge worker index of worker 0 of each server.
    pub(super) worker_base: Vec<u32>,
    /// Global chunk index of chunk 0 of each job.
    pub(super) chunk_base: Vec<u32>,
    /// Global PS index of PS 0 of each server.
    pub(super) ps_base: Vec<u32>,
    pub(super) plans: Plans,
    pub(super) place: Vec<Placement>,
    /// zeta_j per job.
    pub(super) zeta: Vec<bool>,
    pub(super) dispatched: Vec<bool>,
    /// Cloud chunks' common window [start, end) per job (start = end = 0 if none).
    pub(super) cloud_window: Vec<(Slot, Slot)>,
    /// Largest cloud window end so far.
    pub(super) cloud_end: Slot,
    /// Per job: slot + 1 it last ran in (0 = never), and the PS it had then.
    pub(super) last_run: Vec<Slot>,
    pub(super) last_ps: Vec<u32>,
    /// Per job: this slot's PS (global index or NONE), scratch for A_ps.
    pub(super) cur_ps: Vec<u32>,
    /// Per PS: slot + 1 it was last taken in.
    pub(super) ps_taken: Vec<Slot>,
    pub(super) cand: Vec<Cand>,
    pub(super) cloud_workers: u32,
    pub(super) arrived: Vec<u32>,
    /// Distinct arrival slots, ascending (summaries are rebuilt before each).
    pub(super) arrival_slots: Vec<Slot>,
    pub(super) rng: SplitMix64,
    pub(super) dispatch_rng: SplitMix64,
    pub(super) now: Slot,
    /// Preemptions (chunk splits) so far.
    pub preemptions: u64,
    /// Slots in which a running job found no PS.
    pub ps_misses: u64,
    /// Restart time in slots a preempted (split) chunk pays before it resumes
    /// (`docs/restart.md`; 0 = none). Configuration, not state: not in a snapshot, kept by
    /// the scheduler a snapshot is restored into.
    #[serde(skip)]
    pub(super) restart: u32,
    /// The open world (`world`): not in a snapshot, which is refused once an open-world event
    /// changed it.
    #[serde(skip)]
    pub(super) ow: super::world::World,
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
        let ow = super::world::World::new(scn, nw as usize, nc);
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
            last_ps: alloc::vec![NONE; nj],
            cur_ps: alloc::vec![NONE; nj],
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
            ow,
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
    /// ignored (the plans know when chunks end). The open-world events follow
    /// `docs/open-world.md`, "Kind preempt" (module `world`); a refused one changes nothing.
    fn on_event<F: FnMut(&PreemptDecision) + ?Sized>(
        &mut self,
        now: Slot,
        event: Event<u32>,
        out: &mut F,
    ) -> Result<(), PreemptError> {
        let out: &mut dyn FnMut(&PreemptDecision) = &mut |d: &PreemptDecision| out(d);
        if now < self.now {
            return Err(PreemptError::TimeWentBack { now });
        }
        match event {
            // Checked before `now` is taken, so a refused event changes nothing.
            Event::JobCancelled(j) => self.cancel(j, now, out),
            Event::ServerDown(h) => self.server_down(h, now, out),
            Event::ServerUp(h) => self.server_up(h, now),
            Event::Capacity(h, c) => self.capacity(h, &c, now, out),
            _ => self.closed_event(now, event, out),
        }?;
        self.now = now;
        Ok(())
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.wakeup(after)
    }

    /// The run is over: a chunk that ends with the last slot counts as finished in
    /// [`PreemptScheduler::status`]. No decision.
    fn finish<F: FnMut(&PreemptDecision) + ?Sized>(
        &mut self,
        _out: &mut F,
    ) -> Result<(), PreemptError> {
        self.ow.finished = true;
        Ok(())
    }
}

impl PreemptScheduler {
    /// The papers' own events (arrive, advance, finished).
    fn closed_event(
        &mut self,
        now: Slot,
        event: Event<u32>,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        self.check_time(now)?;
        match event {
            Event::JobCancelled(_)
            | Event::ServerDown(_)
            | Event::ServerUp(_)
            | Event::Capacity(..) => Ok(()),
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
            crate::driver::DriverError::Scheduler(e) | crate::driver::DriverError::Refused(e) => e,
            crate::driver::DriverError::Log(e) => PreemptError::Log(e),
        })
}
