//! Baselines on OASiS scenarios: every job admitted, per-slot worker / PS counts chosen by the
//! policy, round-robin placement, progress floor(x_i(t) / m_i) chunks per slot (see the module
//! docs of [`crate::baseline`]).
pub mod dorm;
mod peer;
mod rrh;
mod world;

use super::pool::Pool;
use super::world::{World, WorldRec};
use super::{dominant_share, las_queue, BaselineError, Policy, FIXED_WORKERS, UNITS_PER_SLOT_MAX};
use crate::log::{LogSink, TAG_BASELINE};
use crate::model::oasis::{OasisJob, OasisScenario};
use crate::model::throughput::Spans;
use crate::num::{canon, ceil_u32, floor_eps};
use crate::order::sort_indices_by_keys;
use crate::resources::ResourceVec;
use crate::restart::{RestartCost, Restarts};
use crate::Slot;
use alloc::borrow::Cow;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Per-job state of a baseline run on OASiS scenarios.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OasisJobState {
    /// Chunks of the workload E_i N_i still to process.
    pub remaining: u64,
    /// Attained service in GPU-slots (sum over slots of x_i(t) w_i^0, or x_i(t) without GPU demand).
    pub attained: f64,
    /// x_i(t): workers in the current slot.
    pub workers: u32,
    /// z_i(t): parameter servers in the current slot.
    pub ps: u32,
    /// t_hat: the slot in which the last chunk was processed.
    pub completion: Option<Slot>,
    /// FIFO: the job has been started (it keeps its fixed allocation from then on).
    pub started: bool,
    /// Filling loops: the job cannot grow any more this slot.
    saturated: bool,
    /// RRH: refused at its arrival (it never runs; utility 0).
    #[serde(default)]
    pub rejected: bool,
    /// RRH: in the running set of the current decision period.
    #[serde(default)]
    running: bool,
    /// RRH: the fixed gang (workers and PSs) fits on the idle cluster, so the job can run at
    /// all.
    #[serde(default)]
    fits_alone: bool,
    /// With a speed-up table or a restart cost: the fraction of a chunk processed but not yet
    /// completed (carried to the next slot the job runs in).
    #[serde(default)]
    pub carry: f64,
}

/// One worker or parameter server placed for `job` on `server` in `slot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// t.
    pub slot: Slot,
    /// Job index i (input order).
    pub job: u32,
    /// `true` for a parameter server (on PS server `server`), `false` for a worker.
    pub ps: bool,
    /// Server index h (worker pool) or k (PS pool).
    pub server: u32,
}

/// Decision record (tag `TAG_BASELINE` + policy code): job i's allocation in slot t and the
/// chunks it processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotRec {
    /// t.
    pub slot: u32,
    /// Job index i.
    pub job: u32,
    /// Workers placed in t.
    pub workers: u32,
    /// Parameter servers placed in t.
    pub ps: u32,
    /// Chunks processed in t.
    pub chunks: u64,
    /// The job finished in t.
    pub done: bool,
    /// The policy's code (tag offset).
    pub policy: u8,
    /// An open-world cancel or interruption ([`crate::baseline::world`]; then `workers`,
    /// `ps` and `chunks` are 0): the record written is this one, under its own tag.
    #[serde(skip)]
    pub world: Option<WorldRec>,
}

crate::record::log_record!(SlotRec, TAG_BASELINE, tags super::POLICY_TAGS, "baseline slot", "baseline.slot");

/// What an [`OasisBaseline`] decides in a slot: each placed unit (the explanation of where;
/// not a log record, as before the driver existed), then one [`SlotRec`] per running job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OasisBaselineDecision {
    /// One worker or PS placed (writes no record).
    Unit(Unit),
    /// A job's allocation and progress in the slot (one record).
    Slot(SlotRec),
}

impl crate::api::Record for OasisBaselineDecision {
    fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), crate::log::LogError> {
        match self {
            OasisBaselineDecision::Unit(_) => Ok(()),
            OasisBaselineDecision::Slot(r) => match &r.world {
                Some(w) => w.log(sink),
                None => sink.record(<SlotRec as crate::record::LogRecord>::TAG + r.policy, r),
            },
        }
    }
}

/// Every slot 0..T (the baselines re-decide each slot); arrivals only move the clock.
impl crate::api::Scheduler for OasisBaseline<'_> {
    type Job = u32;
    type Decision<'x> = OasisBaselineDecision;
    type Error = BaselineError;

    fn on_event<F: FnMut(&OasisBaselineDecision) + ?Sized>(
        &mut self,
        now: Slot,
        event: crate::api::Event<u32>,
        out: &mut F,
    ) -> Result<(), BaselineError> {
        let r = match event {
            crate::api::Event::SlotAdvanced if now < self.scn.slots => {
                self.step_with(now, &mut |o: &OasisBaselineDecision| out(o))
            }
            crate::api::Event::SlotAdvanced
            | crate::api::Event::JobArrived(_)
            | crate::api::Event::JobFinished(_) => Ok(()),
            ev => self.open_world(now, ev, &mut |o: &OasisBaselineDecision| out(o)),
        };
        // A refused event changes nothing, not even the clock.
        if r.is_ok() {
            self.world.clock = self.world.clock.max(now);
        }
        r
    }

    fn finish<F: FnMut(&OasisBaselineDecision) + ?Sized>(
        &mut self,
        _out: &mut F,
    ) -> Result<(), BaselineError> {
        self.world.ended = true;
        Ok(())
    }

    /// The next slot while some arrived job still has work; otherwise none (the driver goes
    /// on at the next arrival): a slot without an active job decides and logs nothing, so
    /// skipping it changes no record, and a long horizon after the last completion costs
    /// nothing.
    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        let n = after.map_or(Some(0), |t| t.checked_add(1))?;
        let active = self
            .jobs
            .iter()
            .zip(&self.scn.jobs)
            .enumerate()
            .any(|(k, (s, j))| {
                j.arrival < n && s.remaining > 0 && !s.rejected && !self.world.cancelled(k)
            });
        (n < self.scn.slots && active).then_some(n)
    }
}

/// A baseline runner over one OASiS scenario; all scratch is allocated in [`Self::new`].
#[derive(Clone, Debug)]
pub struct OasisBaseline<'a> {
    policy: Policy,
    /// The scenario; owned from the first [`Self::submit`] on (the only clone of it).
    scn: Cow<'a, OasisScenario>,
    workers: Pool,
    ps: Pool,
    /// C^r: worker plus PS capacity per resource (denominator of dominant shares).
    total: ResourceVec,
    jobs: Vec<OasisJobState>,
    /// Job indices by (arrival, index).
    order: Vec<u32>,
    idx: Vec<u32>,
    keys: Vec<f64>,
    scratch: Vec<u32>,
    /// `(arrival, job)` for the driver, sized at build so a run allocates nothing.
    arrivals: Vec<(Slot, u32)>,
    /// RRH: a job finished in the previous slot (a decision point).
    replan: bool,
    /// RRH: the ranked candidates of the last decision point are `idx[..run_len]`.
    run_len: usize,
    /// The cost of preemption ([`crate::restart`]; off unless [`Self::with_restart`]).
    restarts: Restarts,
    /// Dorm: the solver's buffers and the allocation kept between events (empty otherwise).
    dorm: dorm::DormState,
    /// Distinct worker servers per job this slot (used only with a speed-up table).
    spans: Spans,
    /// Requested workers, Tiresias' queues and kept placements (module `peer`).
    peer: peer::PeerState,
    /// The open world: capacity in force (workers `0..H`, then PS servers), down servers,
    /// cancelled jobs.
    world: World,
    /// The units of the last decided slot as `(job, server index)` (PS servers after the
    /// workers), so an open-world event finds the jobs holding a server.
    last: Vec<(u32, u32)>,
    /// The last decided slot.
    last_slot: Option<Slot>,
    /// Per job: the slot its current run (consecutive slots holding units) began, and the
    /// last slot it held units ([`crate::index::NONE`]: never).
    run_start: Vec<Slot>,
    held_at: Vec<Slot>,
}

impl<'a> OasisBaseline<'a> {
    /// Builds the runner (the only place that allocates).
    pub fn new(policy: Policy, scn: &'a OasisScenario) -> Result<Self, BaselineError> {
        if !Policy::OASIS.contains(&policy) {
            return Err(BaselineError::WrongKind(policy));
        }
        let r = scn.resources as usize;
        let workers = Pool::new(&scn.worker_servers);
        let ps = Pool::new(&scn.ps_servers);
        let mut total = workers.total(r)?;
        let tp = ps.total(r)?;
        for (i, x) in total.as_mut_slice().iter_mut().enumerate() {
            *x += tp.get(i);
        }
        let n = scn.jobs.len();
        let jobs = scn
            .jobs
            .iter()
            .map(|j| {
                let (x, z) = (fixed_workers(j), ps_for(j, fixed_workers(j)));
                OasisJobState {
                    remaining: j.workload(),
                    fits_alone: workers.room(&j.worker_demand, x) >= x
                        && ps.room(&j.ps_demand, z) >= z,
                    ..OasisJobState::default()
                }
            })
            .collect();
        let mut order: Vec<u32> = (0..n as u32).collect();
        let keys: Vec<f64> = scn.jobs.iter().map(|j| j.arrival as f64).collect();
        let mut scratch = vec![0u32; n];
        sort_indices_by_keys(&mut order, &keys, &mut scratch);
        let servers: Vec<ResourceVec> = scn
            .worker_servers
            .iter()
            .chain(&scn.ps_servers)
            .copied()
            .collect();
        Ok(OasisBaseline {
            policy,
            scn: Cow::Borrowed(scn),
            world: World::new(&servers, n, r)?,
            last: Vec::with_capacity(units_bound(scn, &servers)),
            last_slot: None,
            run_start: vec![0; n],
            held_at: vec![crate::index::NONE; n],
            workers,
            ps,
            total,
            jobs,
            order,
            idx: vec![0; n],
            keys,
            scratch,
            arrivals: Vec::with_capacity(n),
            replan: false,
            run_len: 0,
            restarts: Restarts::default(),
            dorm: dorm::DormState::new(policy, n, r),
            spans: Spans::new(scn.throughput.as_ref(), n),
            peer: peer::PeerState::default(),
        }
        .with_peer(&[], None))
    }

    /// The peer simulator's options (`docs/peer.md`): each job's requested workers
    /// (`requested[j]`, 0 = not given; empty = none given: FIFO, LAS and Optimus as before)
    /// and the slot length in seconds (Tiresias' 16 GPU-hour threshold; `None`: 3,600 s).
    pub fn with_peer(mut self, requested: &[u32], slot_seconds: Option<f64>) -> Self {
        let optimus = self.policy == Policy::Optimus && !requested.is_empty();
        if self.policy != Policy::Tiresias && !optimus {
            // Only the requested counts are needed (FIFO / LAS); no per-server scan.
            self.peer = peer::PeerState::new(self.policy, &[], requested, slot_seconds, Vec::new());
            return self;
        }
        let (mut cap, mut per_server) = (Vec::new(), Vec::new());
        for j in &self.scn.jobs {
            let fit = self.workers.room(&j.worker_demand, u32::MAX);
            cap.push(if optimus {
                j.chunks.min(fit)
            } else {
                fixed_workers(j)
            });
            let d = &j.worker_demand;
            let per = self.scn.worker_servers.iter().map(|c| c.fits(d)).max();
            per_server.push(per.unwrap_or(1));
        }
        self.peer = peer::PeerState::new(self.policy, &cap, requested, slot_seconds, per_server);
        self
    }

    /// Charges every job's first start the restart time too (after [`Self::with_restart`];
    /// the peer's rule, [`crate::restart::Restarts::charge_first`]).
    pub fn with_restart_first(mut self) -> Self {
        self.restarts = core::mem::take(&mut self.restarts).charge_first();
        self
    }

    /// Charges every restart `cost` slots of lost progress and counts restarts
    /// ([`crate::restart`]); without this call nothing is tracked (today's model).
    pub fn with_restart(mut self, cost: RestartCost) -> Self {
        self.restarts = Restarts::new(self.jobs.len(), Some(cost));
        self
    }

    /// The restart bookkeeping (off unless [`Self::with_restart`]).
    pub fn restarts(&self) -> &Restarts {
        &self.restarts
    }

    /// Per-job state, input order.
    pub fn jobs(&self) -> &[OasisJobState] {
        &self.jobs
    }

    /// Runs slots 0..T through [`crate::driver::Driver`] (arrivals in (arrival, index) order),
    /// reporting every placed unit to `out`.
    pub fn run<S: LogSink>(
        &mut self,
        sink: &mut S,
        out: &mut dyn FnMut(Unit),
    ) -> Result<(), BaselineError> {
        let order = core::mem::take(&mut self.order);
        let mut arrivals = core::mem::take(&mut self.arrivals);
        arrivals.clear();
        arrivals.extend(
            order
                .iter()
                .map(|&j| (self.scn.jobs[j as usize].arrival, j)),
        );
        self.order = order;
        let r = crate::driver::Driver::new(&mut *self).run(
            &arrivals,
            sink,
            &mut |o: &OasisBaselineDecision| {
                if let OasisBaselineDecision::Unit(u) = o {
                    out(*u);
                }
            },
        );
        self.arrivals = arrivals;
        r.map_err(|e| match e {
            crate::driver::DriverError::Scheduler(e) | crate::driver::DriverError::Refused(e) => e,
            crate::driver::DriverError::Log(e) => e.into(),
        })
    }

    /// Decides and runs slot `t`: units to `out`, records to `sink`.
    pub fn step<S: LogSink>(
        &mut self,
        t: Slot,
        sink: &mut S,
        out: &mut dyn FnMut(Unit),
    ) -> Result<(), BaselineError> {
        let mut failed = Ok(());
        let r = self.step_with(t, &mut |o: &OasisBaselineDecision| match o {
            OasisBaselineDecision::Unit(u) => out(*u),
            rec => {
                if failed.is_ok() {
                    failed = crate::api::Record::log(rec, sink);
                }
            }
        });
        r.and(failed.map_err(Into::into))
    }

    /// Decides and runs slot `t`, every decision to `out`.
    fn step_with(
        &mut self,
        t: Slot,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) -> Result<(), BaselineError> {
        let mut last = core::mem::take(&mut self.last);
        last.clear();
        let h = self.workers.len() as u32;
        let r = self.decide(t, &mut |o: &OasisBaselineDecision| {
            if let OasisBaselineDecision::Unit(u) = o {
                last.push((u.job, if u.ps { h + u.server } else { u.server }));
            }
            out(o)
        });
        self.last = last;
        self.last_slot = Some(t);
        r
    }

    /// Decides and runs slot `t` against the capacity in force.
    fn decide(
        &mut self,
        t: Slot,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) -> Result<(), BaselineError> {
        self.workers.reset();
        self.ps.reset();
        self.restarts.begin_slot();
        for s in self.jobs.iter_mut() {
            s.workers = 0;
            s.ps = 0;
            s.saturated = false;
        }
        match self.policy {
            Policy::Fifo => self.fifo(t, out),
            Policy::Las => self.las(t, out),
            Policy::Drf => self.drf(t, out),
            Policy::Optimus if self.peer.on && self.scn.throughput.is_some() => {
                self.peer_optimus(t, out)
            }
            Policy::Optimus => self.optimus(t, out),
            Policy::Tiresias => self.tiresias(t, out),
            Policy::Rrh => self.rrh(t, out),
            Policy::Dorm => self.dorm(t, out)?,
            // Refused by `new` (an online-only policy).
            Policy::AntMan => {}
        }
        self.progress(t, out);
        Ok(())
    }

    /// The policy this runner applies.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Job j has arrived by slot t, was not rejected, and still has work.
    fn arrived(&self, j: usize, t: Slot) -> bool {
        match (self.scn.jobs.get(j), self.jobs.get(j)) {
            (Some(job), Some(s)) => {
                job.arrival <= t && s.remaining > 0 && !s.rejected && !self.world.cancelled(j)
            }
            _ => false,
        }
    }

    fn fifo(&mut self, t: Slot, out: &mut dyn FnMut(&OasisBaselineDecision)) {
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            if !self.arrived(j, t) {
                continue;
            }
            let n = self.gang_size(j);
            if self.gang(j, n, t, out) {
                self.jobs[j].started = true;
            } else if !self.jobs[j].started {
                // Head-of-line blocking: nothing behind the first waiting job starts.
                break;
            }
        }
    }

    fn las(&mut self, t: Slot, out: &mut dyn FnMut(&OasisBaselineDecision)) {
        let mut n = 0;
        let span = self.scn.slots as f64 + 1.0;
        for j in 0..self.jobs.len() {
            if self.arrived(j, t) {
                self.idx[n] = j as u32;
                n += 1;
            }
            let q = las_queue(self.jobs[j].attained) as f64;
            self.keys[j] = q * span + self.scn.jobs[j].arrival as f64;
        }
        sort_indices_by_keys(&mut self.idx[..n], &self.keys, &mut self.scratch);
        for k in 0..n {
            let j = self.idx[k] as usize;
            let w = self.gang_size(j);
            // Work-conserving: a job that does not fit is skipped, not waited for.
            self.gang(j, w, t, out);
        }
    }

    /// DRF's progressive filling: one worker at a time to the arrived, unsaturated job of
    /// least dominant share (ties to the lowest index). A job's share depends on its own
    /// allocation only, so a binary heap over (share, index) picks exactly what a scan of every
    /// job would, in O(log n) per unit instead of O(n) (a whole-trace run has thousands of
    /// jobs and hundreds of units per slot).
    fn drf(&mut self, t: Slot, out: &mut dyn FnMut(&OasisBaselineDecision)) {
        let mut n = 0;
        for j in 0..self.jobs.len() {
            if self.arrived(j, t) {
                self.keys[j] = self.share(j, self.jobs[j].workers, self.jobs[j].ps);
                let keys = &self.keys;
                let pushed =
                    crate::heap::push(&mut self.idx, &mut n, j as u32, |a, b| by_share(keys, a, b));
                debug_assert!(pushed, "heap over capacity"); // idx holds every job
            }
        }
        for _ in 0..UNITS_PER_SLOT_MAX {
            let keys = &self.keys;
            let Some(j) = crate::heap::pop(&mut self.idx, &mut n, |a, b| by_share(keys, a, b))
            else {
                break;
            };
            let j = j as usize;
            if self.jobs[j].workers >= useful_workers(&self.scn.jobs[j], &self.jobs[j])
                || !self.add_worker(j, t, out)
            {
                self.jobs[j].saturated = true;
            } else {
                self.keys[j] = self.share(j, self.jobs[j].workers, self.jobs[j].ps);
                let keys = &self.keys;
                let pushed =
                    crate::heap::push(&mut self.idx, &mut n, j as u32, |a, b| by_share(keys, a, b));
                debug_assert!(pushed, "heap over capacity"); // idx holds every job
            }
        }
    }

    fn optimus(&mut self, t: Slot, out: &mut dyn FnMut(&OasisBaselineDecision)) {
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            if self.arrived(j, t) && !self.add_worker(j, t, out) {
                self.jobs[j].saturated = true;
            }
        }
        for _ in 0..UNITS_PER_SLOT_MAX {
            let mut best: Option<(usize, f64)> = None;
            for j in 0..self.jobs.len() {
                let s = self.jobs[j];
                if s.saturated || s.workers == 0 || !self.arrived(j, t) {
                    continue;
                }
                let job = &self.scn.jobs[j];
                if s.workers >= useful_workers(job, &s) {
                    continue;
                }
                let x = s.workers as f64;
                let work = s.remaining as f64 * job.chunk_time();
                let saved = work / x - work / (x + 1.0);
                let z1 = ps_for(job, s.workers + 1);
                let d = self.share(j, s.workers + 1, z1) - self.share(j, s.workers, s.ps);
                let gain = saved / if d > 1e-12 { d } else { 1e-12 };
                if best.is_none() || best.is_some_and(|(_, b)| gain > b) {
                    best = Some((j, gain));
                }
            }
            let Some((j, _)) = best else { break };
            if !self.add_worker(j, t, out) {
                self.jobs[j].saturated = true;
            }
        }
    }

    /// Dominant share of job j holding x workers and z parameter servers.
    fn share(&self, j: usize, x: u32, z: u32) -> f64 {
        let job = &self.scn.jobs[j];
        let mut a = job.worker_demand;
        for (r, v) in a.as_mut_slice().iter_mut().enumerate() {
            *v = *v * x as f64 + job.ps_demand.get(r) * z as f64;
        }
        dominant_share(&a, &self.total)
    }

    /// One more worker (and the PSs it needs) for job j, or `false` if it does not fit.
    fn add_worker(
        &mut self,
        j: usize,
        t: Slot,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) -> bool {
        let job = &self.scn.jobs[j];
        let x = self.jobs[j].workers;
        let z = ps_for(job, x + 1);
        let need = z.saturating_sub(self.jobs[j].ps);
        if x >= job.chunks
            || self.workers.room(&job.worker_demand, 1) < 1
            || self.ps.room(&job.ps_demand, need) < need
        {
            return false;
        }
        self.place(j, 1, need, t, out);
        true
    }

    /// Gang placement of n workers and their PSs for job j, all or nothing.
    fn gang(
        &mut self,
        j: usize,
        n: u32,
        t: Slot,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) -> bool {
        let job = &self.scn.jobs[j];
        let z = ps_for(job, n);
        if n == 0
            || self.workers.room(&job.worker_demand, n) < n
            || self.ps.room(&job.ps_demand, z) < z
        {
            return false;
        }
        self.place(j, n, z, t, out);
        true
    }

    fn place(
        &mut self,
        j: usize,
        n: u32,
        z: u32,
        t: Slot,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) {
        let job = &self.scn.jobs[j];
        let unit = |ps, server| Unit {
            slot: t,
            job: j as u32,
            ps,
            server,
        };
        for _ in 0..n {
            if let Some(h) = self.workers.place(&job.worker_demand) {
                self.jobs[j].workers += 1;
                // What the policy decides is x_i(t), z_i(t): its round-robin placement is
                // re-derived from server 0 every slot (bookkeeping, not a migration), so the
                // restart fingerprint counts units, not servers (docs/restart.md).
                self.restarts.place(j, 0, 0);
                self.spans.mark(j, h);
                out(&OasisBaselineDecision::Unit(unit(false, h)));
            }
        }
        for _ in 0..z {
            if let Some(k) = self.ps.place(&job.ps_demand) {
                self.jobs[j].ps += 1;
                self.restarts.place(j, 1, 0);
                out(&OasisBaselineDecision::Unit(unit(true, k)));
            }
        }
    }

    fn progress(&mut self, t: Slot, out: &mut dyn FnMut(&OasisBaselineDecision)) {
        let mut finished = false;
        for j in 0..self.jobs.len() {
            // Every job, held or not: a pause is what makes the next allocation a restart.
            let usable = self.restarts.usable(j);
            let s = &mut self.jobs[j];
            if s.workers == 0 {
                continue;
            }
            if self.held_at[j] == crate::index::NONE || self.held_at[j].saturating_add(1) != t {
                self.run_start[j] = t;
            }
            self.held_at[j] = t;
            let job = &self.scn.jobs[j];
            // usable = 1 exactly without a restart, so x * 1 / m keeps today's bits; under a
            // restart cost the fraction of a chunk is carried so a restart costs its time.
            let fractional = self.restarts.charges();
            let servers = self.spans.take(j);
            let can = chunks_in_slot(&self.scn, j, s, servers, usable, fractional);
            let can = if can >= s.remaining as f64 {
                s.remaining
            } else {
                can as u64
            };
            s.remaining -= can;
            s.attained = canon(s.attained + s.workers as f64 * gpu_per_worker(job));
            if s.remaining == 0 {
                s.completion = Some(t);
                finished = true;
            }
            let rec = SlotRec {
                slot: t,
                job: j as u32,
                workers: s.workers,
                ps: s.ps,
                chunks: can,
                done: s.remaining == 0,
                policy: policy_code(self.policy),
                world: None,
            };
            out(&OasisBaselineDecision::Slot(rec));
        }
        self.replan |= finished;
    }
}

/// Chunks job `j` processes this slot: floor(x_i(t) / m_i) under the linear model; with a
/// speed-up table, s(x_i(t), servers spanned) / m_i plus the carried fraction, whose remainder
/// is carried on (so a sub-linear speed-up is not lost to rounding each slot). Under a restart
/// cost (`fractional`) the linear model carries its fraction too: the `usable` part of the
/// slot is what a restart costs, and rounding it down would cost a whole chunk instead.
fn chunks_in_slot(
    scn: &OasisScenario,
    j: usize,
    s: &mut OasisJobState,
    servers: u32,
    usable: f64,
    fractional: bool,
) -> f64 {
    let m = scn.jobs[j].chunk_time();
    match &scn.throughput {
        None if !fractional => floor_eps(s.workers as f64 * usable / m),
        None => carried(s, s.workers as f64 * usable / m),
        Some(t) => carried(s, t.effective_workers(j, s.workers, servers) * usable / m),
    }
}

/// Whole chunks of `s.carry + chunks`; the remainder is carried into the job's next slot.
fn carried(s: &mut OasisJobState, chunks: f64) -> f64 {
    let x = s.carry + chunks;
    let c = floor_eps(x);
    s.carry = if x > c { x - c } else { 0.0 };
    c
}

/// The most units one slot can place (so the list of the last slot's units never grows in a
/// closed world): every unit uses at least the elementwise least demand of its pool, so server
/// h holds at most fits(c_h, d_min) of them; and no job gets more than N_i workers with their
/// PSs. The smaller of the two bounds.
fn units_bound(scn: &OasisScenario, servers: &[ResourceVec]) -> usize {
    let per_job = scn.jobs.iter().fold(0usize, |a, j| {
        a.saturating_add(j.chunks as usize)
            .saturating_add(ps_for(j, j.chunks) as usize)
    });
    let least = |f: fn(&OasisJob) -> &ResourceVec| {
        let mut d = scn.jobs.first().map(|j| *f(j))?;
        for j in &scn.jobs {
            for (r, x) in d.as_mut_slice().iter_mut().enumerate() {
                *x = x.min(f(j).get(r));
            }
        }
        Some(d)
    };
    let (Some(dw), Some(dp)) = (least(|j| &j.worker_demand), least(|j| &j.ps_demand)) else {
        return 0;
    };
    let nw = scn.worker_servers.len();
    let by_cap = servers.iter().enumerate().fold(0usize, |a, (h, c)| {
        a.saturating_add(c.fits(if h < nw { &dw } else { &dp }) as usize)
    });
    by_cap.min(per_job)
}

/// Record tag offset of each policy under [`TAG_BASELINE`].
pub(crate) fn policy_code(p: Policy) -> u8 {
    match p {
        Policy::Fifo => 1,
        Policy::Drf => 2,
        Policy::Las => 3,
        Policy::Optimus => 4,
        Policy::Rrh => 5,
        Policy::AntMan => 6,
        Policy::Dorm => 7,
        Policy::Tiresias => 8,
    }
}

/// FIFO / LAS worker count: min(N_i, [`FIXED_WORKERS`]).
pub fn fixed_workers(job: &OasisJob) -> u32 {
    job.chunks.min(FIXED_WORKERS)
}

/// Parameter servers for x workers: ceil(x b_i / B_i) (at least one when x > 0).
pub fn ps_for(job: &OasisJob, x: u32) -> u32 {
    if x == 0 {
        return 0;
    }
    ceil_u32(x as f64 * job.worker_bw / job.ps_bw)
        .unwrap_or(u32::MAX)
        .max(1)
}

/// Workers beyond ceil(remaining m_i) cannot speed the job up (it finishes this slot), nor
/// beyond N_i.
fn useful_workers(job: &OasisJob, s: &OasisJobState) -> u32 {
    let w = ceil_u32(s.remaining as f64 * job.chunk_time()).unwrap_or(u32::MAX);
    w.clamp(1, job.chunks.max(1))
}

/// GPU-time one worker accrues per slot (w_i^0, or 1 without GPU demand).
fn gpu_per_worker(job: &OasisJob) -> f64 {
    let g = job.worker_demand.get(0);
    if g > 0.0 {
        g
    } else {
        1.0
    }
}

/// Job `a` comes before job `b` in the DRF order: the smaller dominant share in `keys`, ties
/// to the smaller index (shares are finite), the order of a scan that keeps the first strict
/// minimum.
fn by_share(keys: &[f64], a: &u32, b: &u32) -> bool {
    let (ka, kb) = (keys[*a as usize], keys[*b as usize]);
    ka < kb || (ka == kb && a < b)
}
