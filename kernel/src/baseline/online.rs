//! Baselines on online scenarios: non-preemptive (one uninterrupted run per job, as the result
//! format requires), except AntMan, whose guarantee jobs cut opportunistic runs (kill and
//! restart: the job's result is still its one complete run, see [`antman`]). Each slot the policy starts some waiting jobs with N workers of the job's
//! fastest worker type m and PS type p, duration L = ceil(E_j D_j K_j / (N rho_j)) with
//! rho_j = 1 / (v_jm + U_j^p + 2 pi_j / b_m) (eq. 1, q_j = 0) or, for Ring-AllReduce, eq. (14)
//! with Phi = N; PSs s = ceil(N b_m / B_p). Workers and PSs go round-robin on the one server
//! pool and hold their resources over [t, t + L) in a usage ledger. A job that cannot finish by
//! T even with D_j workers is never started.
mod antman;
mod world;

use super::oasis::policy_code;
use super::pool::Pool;
use super::world::{World, WorldRec};
use super::{dominant_share, las_queue, BaselineError, Policy, FIXED_WORKERS, UNITS_PER_SLOT_MAX};
use crate::log::{LogSink, TAG_BASELINE};
use crate::model::online::{Architecture, OnlineJob, OnlineScenario};
use crate::num::{canon, ceil_u32};
use crate::order::sort_indices_by_keys;
use crate::resources::ResourceVec;
use crate::rolling::RollingLedger;
use crate::Slot;
use alloc::borrow::Cow;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Per-job state of a baseline run on online scenarios.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OnlineJobState {
    /// t_j: start slot, once started.
    pub start: Option<Slot>,
    /// d_j: duration in slots.
    pub duration: u32,
    /// Workers N.
    pub workers: u32,
    /// Parameter servers (0 for ring).
    pub ps: u32,
    /// m: the worker type (fastest per mini-batch, ties: lower index).
    pub worker_type: u32,
    /// p: the PS type (`None` for ring).
    pub ps_type: Option<u32>,
    /// The job cannot finish within the horizon any more.
    pub unschedulable: bool,
    /// Workers planned this slot.
    plan: u32,
    /// PSs planned this slot.
    plan_ps: u32,
    saturated: bool,
    /// AntMan: the job runs as an opportunistic job (best effort).
    #[serde(default)]
    pub opportunistic: bool,
    /// AntMan: runs of this job cut by a guarantee job (each lost its work; the job's result
    /// is its last run).
    #[serde(default)]
    pub preemptions: u32,
    /// AntMan: the slot of the last cut (the job does not start again in that slot).
    #[serde(default)]
    cut_at: Option<Slot>,
}

/// A started job's workers and PSs on one server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Start slot t_j.
    pub slot: Slot,
    /// Job index j (input order).
    pub job: u32,
    /// Server h.
    pub server: u32,
    /// Workers y_jhm on h.
    pub workers: u32,
    /// Parameter servers s_jhp on h.
    pub ps: u32,
}

/// Decision record (tag `TAG_BASELINE` + policy code): job j starts at t with N workers and
/// s PSs for L slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartRec {
    /// t.
    pub slot: u32,
    /// Job index j.
    pub job: u32,
    /// N workers.
    pub workers: u32,
    /// s parameter servers.
    pub ps: u32,
    /// L slots.
    pub duration: u32,
    /// The policy's code (tag offset).
    pub policy: u8,
}

/// Tag of a [`PreemptRec`] (outside the `TAG_BASELINE` + policy code range of [`StartRec`]).
pub const TAG_BASELINE_PREEMPT: u8 = TAG_BASELINE + 0x10;

/// Preemption record (tag [`TAG_BASELINE_PREEMPT`], AntMan only): guarantee job `by` cut
/// opportunistic job `job`'s run started at `start`, at slot `slot`; the run's work is lost and
/// the job waits again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreemptRec {
    /// The slot of the cut.
    pub slot: u32,
    /// The cut job.
    pub job: u32,
    /// The guarantee job that needed its resources.
    pub by: u32,
    /// The cut run's start slot.
    pub start: u32,
    /// The policy's code.
    pub policy: u8,
    /// An open-world cancel or interruption ([`crate::baseline::world`]): the run (if any) ends
    /// at `slot` as a cut does, `by` is [`crate::index::NONE`], and the record written is this
    /// one (under its own tag) instead of the preemption.
    #[serde(skip)]
    pub world: Option<WorldRec>,
}

crate::record::log_record!(StartRec, TAG_BASELINE, tags super::POLICY_TAGS, "baseline start", "baseline.start");
crate::record::log_record!(
    PreemptRec,
    TAG_BASELINE_PREEMPT,
    "baseline preemption",
    "baseline.preempted"
);

/// What an [`OnlineBaseline`] decides in a slot: per started job, its per-server placement
/// (the explanation of where; not a log record, as before the driver existed), then its
/// [`StartRec`]; AntMan's cuts before the start they make room for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnlineBaselineDecision {
    /// A started job's share of one server (writes no record).
    Placed(Placed),
    /// A job started (one record).
    Start(StartRec),
    /// A running job was cut (AntMan; one record): its earlier [`Placed`] shares end here.
    Preempted(PreemptRec),
}

impl crate::api::Record for OnlineBaselineDecision {
    fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), crate::log::LogError> {
        match self {
            OnlineBaselineDecision::Placed(_) => Ok(()),
            OnlineBaselineDecision::Start(r) => {
                sink.record(<StartRec as crate::record::LogRecord>::TAG + r.policy, r)
            }
            OnlineBaselineDecision::Preempted(r) => match &r.world {
                Some(w) => w.log(sink),
                None => sink.record(TAG_BASELINE_PREEMPT, r),
            },
        }
    }
}

/// Every slot 0..T (the baselines re-decide each slot); arrivals only move the clock. With
/// `rounds_past_horizon` T is [`OnlineScenario::horizon`] here, as for A_online's windows.
impl crate::api::Scheduler for OnlineBaseline<'_> {
    type Job = u32;
    type Decision<'x> = OnlineBaselineDecision;
    type Error = BaselineError;

    fn on_event<F: FnMut(&OnlineBaselineDecision) + ?Sized>(
        &mut self,
        now: Slot,
        event: crate::api::Event<u32>,
        out: &mut F,
    ) -> Result<(), BaselineError> {
        let r = match event {
            crate::api::Event::SlotAdvanced if now < self.scn.horizon() => {
                self.step_with(now, &mut |o: &OnlineBaselineDecision| out(o))
            }
            crate::api::Event::SlotAdvanced
            | crate::api::Event::JobArrived(_)
            | crate::api::Event::JobFinished(_) => Ok(()),
            ev => self.open_world(now, ev, &mut |o: &OnlineBaselineDecision| out(o)),
        };
        // A refused event changes nothing, not even the clock.
        if r.is_ok() {
            self.world.clock = self.world.clock.max(now);
        }
        r
    }

    fn finish<F: FnMut(&OnlineBaselineDecision) + ?Sized>(
        &mut self,
        _out: &mut F,
    ) -> Result<(), BaselineError> {
        self.world.ended = true;
        Ok(())
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        let n = after.map_or(Some(0), |t| t.checked_add(1))?;
        (n < self.scn.horizon()).then_some(n)
    }
}

/// A baseline runner over one online scenario; all scratch is allocated in [`Self::new`].
#[derive(Debug)]
pub struct OnlineBaseline<'a> {
    policy: Policy,
    /// The scenario; owned from the first [`Self::submit`] on (the only clone of it).
    scn: Cow<'a, OnlineScenario>,
    pool: Pool,
    /// g_h^r(t) of the running reservations (memory follows the running jobs, not T x H).
    ledger: RollingLedger,
    total: ResourceVec,
    zero: ResourceVec,
    jobs: Vec<OnlineJobState>,
    order: Vec<u32>,
    idx: Vec<u32>,
    keys: Vec<f64>,
    scratch: Vec<u32>,
    /// Per server: workers and PSs of the job being placed.
    count: Vec<[u32; 2]>,
    /// The slot being decided.
    cur: Slot,
    /// `(arrival, job)` sorted, the driver's arrival list (built once).
    arrivals: Vec<(Slot, u32)>,
    /// AntMan: sum of the arrived jobs' weights.
    weight_sum: f64,
    /// AntMan: number of arrived jobs.
    weight_count: u32,
    /// AntMan: the running run of each job as `[server, workers, PSs]` entries, job j's at
    /// `run_off[j]..run_off[j] + run_len[j]` (room for its largest run, sized in `new`).
    runs: Vec<[u32; 3]>,
    run_off: Vec<u32>,
    run_len: Vec<u32>,
    /// The open world: capacity in force, down servers, cancelled jobs.
    world: World,
    /// Every running run's units as `[job, server, workers, PSs, start]` (entries of ended or
    /// cut runs are stale and pruned when the list is full), so an open-world event finds the
    /// jobs holding a server.
    live: Vec<[u32; 5]>,
}

impl<'a> OnlineBaseline<'a> {
    /// Builds the runner (the only place that allocates).
    pub fn new(policy: Policy, scn: &'a OnlineScenario) -> Result<Self, BaselineError> {
        if !Policy::ONLINE.contains(&policy) {
            return Err(BaselineError::WrongKind(policy));
        }
        let r = scn.resources as usize;
        let n = scn.jobs.len();
        let pool = Pool::new(&scn.servers);
        let total = pool.total(r)?;
        let bound = concurrent_bound(scn);
        let ledger = RollingLedger::new(scn.horizon() as usize, &scn.servers, &bound)?;
        // A live entry is at least one reservation on its server: the ledger's bound on them.
        let live_max = bound.iter().fold(0usize, |a, b| a.saturating_add(*b));
        let jobs: Vec<OnlineJobState> = scn.jobs.iter().map(|j| config(scn, j)).collect();
        // AntMan cuts runs, so it keeps each one's servers: at most one entry per server the
        // largest run (its gang and PSs) can touch.
        let mut run_off = Vec::with_capacity(n + 1);
        run_off.push(0u32);
        for (job, st) in scn.jobs.iter().zip(&jobs) {
            let gang = job.chunks.min(FIXED_WORKERS);
            let room = if policy == Policy::AntMan {
                (gang.saturating_add(ps_count(scn, st, gang)) as usize).min(pool.len())
            } else {
                0
            };
            let last = run_off.last().copied().unwrap_or(0) as usize;
            run_off.push(u32::try_from(last + room).unwrap_or(u32::MAX));
        }
        let mut order: Vec<u32> = (0..n as u32).collect();
        let keys: Vec<f64> = scn.jobs.iter().map(|j| j.arrival as f64).collect();
        let mut scratch = vec![0u32; n];
        sort_indices_by_keys(&mut order, &keys, &mut scratch);
        Ok(OnlineBaseline {
            policy,
            scn: Cow::Borrowed(scn),
            world: World::new(&scn.servers, n, r)?,
            live: Vec::with_capacity(live_max.saturating_add(1)),
            count: vec![[0, 0]; pool.len()],
            pool,
            ledger,
            total,
            zero: ResourceVec::zeros(r)?,
            jobs,
            arrivals: {
                let mut a: Vec<(Slot, u32)> = scn
                    .jobs
                    .iter()
                    .enumerate()
                    .map(|(j, x)| (x.arrival, j as u32))
                    .collect();
                crate::order::sort_pairs(&mut a);
                a
            },
            order,
            idx: vec![0; n],
            keys,
            scratch,
            cur: 0,
            weight_sum: 0.0,
            weight_count: 0,
            runs: vec![[0; 3]; run_off.last().copied().unwrap_or(0) as usize],
            run_len: vec![0; n],
            run_off,
        })
    }

    /// Per-job state, input order.
    pub fn jobs(&self) -> &[OnlineJobState] {
        &self.jobs
    }

    /// Runs slots 0..T (T = [`OnlineScenario::horizon`]) through [`crate::driver::Driver`]
    /// (arrivals in (arrival, index) order), reporting every started job's placement to `out`.
    /// Placements of runs AntMan cuts are reported too; [`Self::run_outputs`] says which.
    pub fn run<S: LogSink>(
        &mut self,
        sink: &mut S,
        out: &mut dyn FnMut(Placed),
    ) -> Result<(), BaselineError> {
        self.run_outputs(sink, &mut |o: &OnlineBaselineDecision| {
            if let OnlineBaselineDecision::Placed(p) = o {
                out(*p);
            }
        })
    }

    /// [`Self::run`], reporting every output (placements, starts and AntMan's cuts) in order.
    pub fn run_outputs<S: LogSink>(
        &mut self,
        sink: &mut S,
        out: &mut dyn FnMut(&OnlineBaselineDecision),
    ) -> Result<(), BaselineError> {
        let arrivals = core::mem::take(&mut self.arrivals);
        let r = crate::driver::Driver::new(&mut *self).run(&arrivals, sink, out);
        self.arrivals = arrivals;
        r.map_err(|e| match e {
            crate::driver::DriverError::Scheduler(e) | crate::driver::DriverError::Refused(e) => e,
            crate::driver::DriverError::Log(e) => e.into(),
        })
    }

    /// Decides which waiting jobs start in slot `t`: placements to `out`, records to `sink`.
    pub fn step<S: LogSink>(
        &mut self,
        t: Slot,
        sink: &mut S,
        out: &mut dyn FnMut(Placed),
    ) -> Result<(), BaselineError> {
        let mut failed = Ok(());
        let r = self.step_with(t, &mut |o: &OnlineBaselineDecision| match o {
            OnlineBaselineDecision::Placed(p) => out(*p),
            rec => {
                if failed.is_ok() {
                    failed = crate::api::Record::log(rec, sink);
                }
            }
        });
        r.and(failed.map_err(Into::into))
    }

    /// Decides which waiting jobs start in slot `t`, every decision to `out`.
    fn step_with(
        &mut self,
        t: Slot,
        out: &mut dyn FnMut(&OnlineBaselineDecision),
    ) -> Result<(), BaselineError> {
        self.cur = t;
        self.load_free(t)?;
        for j in 0..self.jobs.len() {
            let s = &mut self.jobs[j];
            s.plan = 0;
            s.plan_ps = 0;
            s.saturated = false;
            // Later starts only finish later: past this point even D_j workers are too late.
            if s.start.is_none() && !s.unschedulable {
                let job = &self.scn.jobs[j];
                if t as u64 + duration(&self.scn, job, s, job.chunks) as u64
                    > self.scn.horizon() as u64
                {
                    s.unschedulable = true;
                }
            }
        }
        match self.policy {
            Policy::Fifo => self.fifo(t),
            Policy::Las => self.las(t),
            Policy::Drf => self.drf(t),
            Policy::Optimus => self.optimus(t),
            Policy::AntMan => self.antman(t, out)?,
            // Refused by `new` (an OASiS-only policy).
            Policy::Rrh | Policy::Dorm | Policy::Tiresias => {}
        }
        self.commit(t, out)
    }

    fn load_free(&mut self, t: Slot) -> Result<(), BaselineError> {
        for h in 0..self.pool.len() {
            let f = self.ledger.free(t, h as u32)?;
            self.pool.set_free(h, f);
        }
        Ok(())
    }

    fn waiting(&self, j: usize, t: Slot) -> bool {
        match (self.scn.jobs.get(j), self.jobs.get(j)) {
            (Some(job), Some(s)) => {
                job.arrival <= t
                    && s.start.is_none()
                    && !s.unschedulable
                    && !self.world.cancelled(j)
            }
            _ => false,
        }
    }

    /// Fits the horizon with n workers when started at t.
    fn in_time(&self, j: usize, n: u32, t: Slot) -> bool {
        let job = &self.scn.jobs[j];
        t as u64 + duration(&self.scn, job, &self.jobs[j], n) as u64 <= self.scn.horizon() as u64
    }

    fn fifo(&mut self, t: Slot) {
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            if !self.waiting(j, t) {
                continue;
            }
            let n = self.scn.jobs[j].chunks.min(FIXED_WORKERS);
            if !self.in_time(j, n, t) {
                // Too late with its fixed size, now and at every later slot.
                self.jobs[j].unschedulable = true;
                continue;
            }
            if !self.plan_gang(j, n) {
                break; // head-of-line blocking
            }
        }
    }

    fn las(&mut self, t: Slot) {
        let mut n = 0;
        let span = self.scn.horizon() as f64 + 1.0;
        for j in 0..self.jobs.len() {
            if self.waiting(j, t) {
                self.idx[n] = j as u32;
                n += 1;
            }
            let job = &self.scn.jobs[j];
            let w = job.chunks.min(FIXED_WORKERS);
            let gpu_time = w as f64
                * duration(&self.scn, job, &self.jobs[j], w) as f64
                * gpu_of(&self.scn, &self.jobs[j]);
            self.keys[j] = las_queue(gpu_time) as f64 * span + job.arrival as f64;
        }
        sort_indices_by_keys(&mut self.idx[..n], &self.keys, &mut self.scratch);
        for k in 0..n {
            let j = self.idx[k] as usize;
            let w = self.scn.jobs[j].chunks.min(FIXED_WORKERS);
            if self.in_time(j, w, t) {
                self.plan_gang(j, w); // skipped if it does not fit (work-conserving)
            }
        }
    }

    fn drf(&mut self, t: Slot) {
        for _ in 0..UNITS_PER_SLOT_MAX {
            let mut best: Option<(usize, f64)> = None;
            for j in 0..self.jobs.len() {
                if self.jobs[j].saturated || !self.waiting(j, t) {
                    continue;
                }
                let sh = self.share(j, self.jobs[j].plan, self.jobs[j].plan_ps);
                if best.is_none() || best.is_some_and(|(_, b)| sh < b) {
                    best = Some((j, sh));
                }
            }
            let Some((j, _)) = best else { break };
            if !self.plan_one(j) {
                self.jobs[j].saturated = true;
            }
        }
    }

    fn optimus(&mut self, t: Slot) {
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            if self.waiting(j, t) && !self.plan_one(j) {
                self.jobs[j].saturated = true;
            }
        }
        for _ in 0..UNITS_PER_SLOT_MAX {
            let mut best: Option<(usize, f64)> = None;
            for j in 0..self.jobs.len() {
                let s = self.jobs[j];
                if s.saturated || s.plan == 0 || !self.waiting(j, t) {
                    continue;
                }
                let job = &self.scn.jobs[j];
                if s.plan >= job.chunks {
                    continue;
                }
                let saved = duration(&self.scn, job, &s, s.plan) as f64
                    - duration(&self.scn, job, &s, s.plan + 1) as f64;
                let z1 = ps_count(&self.scn, &s, s.plan + 1);
                let d = self.share(j, s.plan + 1, z1) - self.share(j, s.plan, s.plan_ps);
                // A plan that cannot finish by T must grow whatever the marginal gain (with
                // Ring-AllReduce a second worker can be slower than one).
                let late = !self.in_time(j, s.plan, t);
                let gain = if late {
                    f64::MAX
                } else {
                    saved / if d > 1e-12 { d } else { 1e-12 }
                };
                if (late || saved > 0.0) && (best.is_none() || best.is_some_and(|(_, b)| gain > b))
                {
                    best = Some((j, gain));
                }
            }
            let Some((j, _)) = best else { break };
            if !self.plan_one(j) {
                self.jobs[j].saturated = true;
            }
        }
    }

    fn demands(&self, s: &OnlineJobState) -> (ResourceVec, ResourceVec) {
        let w = self
            .scn
            .worker_types
            .get(s.worker_type as usize)
            .map_or(self.zero, |m| m.demand);
        let z = s
            .ps_type
            .and_then(|p| self.scn.ps_types.get(p as usize))
            .map_or(self.zero, |p| p.demand);
        (w, z)
    }

    fn share(&self, j: usize, x: u32, z: u32) -> f64 {
        let (mut a, d) = self.demands(&self.jobs[j]);
        for (r, v) in a.as_mut_slice().iter_mut().enumerate() {
            *v = *v * x as f64 + d.get(r) * z as f64;
        }
        dominant_share(&a, &self.total)
    }

    /// Plans one more worker (and the PSs it needs) for job j in this slot's pool.
    fn plan_one(&mut self, j: usize) -> bool {
        let s = self.jobs[j];
        if s.plan >= self.scn.jobs[j].chunks {
            return false;
        }
        let need = ps_count(&self.scn, &s, s.plan + 1).saturating_sub(s.plan_ps);
        let (w, z) = self.demands(&s);
        let Some(h) = self.pool.place(&w) else {
            return false;
        };
        if self.pool.room(&z, need) < need {
            self.pool.unplace(h, &w);
            return false;
        }
        for _ in 0..need {
            self.pool.place(&z);
        }
        self.jobs[j].plan += 1;
        self.jobs[j].plan_ps += need;
        true
    }

    /// Plans n workers and their PSs for job j, all or nothing.
    fn plan_gang(&mut self, j: usize, n: u32) -> bool {
        let s = self.jobs[j];
        let (w, z) = self.demands(&s);
        let ps = ps_count(&self.scn, &s, n);
        if self.pool.room(&w, n) < n {
            return false;
        }
        let mut placed: u32 = 0;
        for _ in 0..n {
            if self.pool.place(&w).is_some() {
                placed += 1;
            }
        }
        if placed < n || self.pool.room(&z, ps) < ps {
            // The PSs do not fit beside the workers: give the workers back.
            self.rebuild_plan_pool();
            return false;
        }
        for _ in 0..ps {
            self.pool.place(&z);
        }
        self.jobs[j].plan = n;
        self.jobs[j].plan_ps = ps;
        true
    }

    /// Planning units do not remember their servers; the free state is rebuilt from the ledger
    /// minus the plans made so far (in the commit order).
    fn rebuild_plan_pool(&mut self) {
        for h in 0..self.pool.len() {
            if let Ok(f) = self.ledger.free(self.cur, h as u32) {
                self.pool.set_free(h, f);
            }
        }
        for j in 0..self.jobs.len() {
            let s = self.jobs[j];
            if s.plan > 0 {
                let (w, z) = self.demands(&s);
                for _ in 0..s.plan {
                    self.pool.place(&w);
                }
                for _ in 0..s.plan_ps {
                    self.pool.place(&z);
                }
            }
        }
    }

    /// Starts the planned jobs (arrival order), placing them round-robin on the ledger's free
    /// capacity of slot t and reserving [t, t + L).
    fn commit(
        &mut self,
        t: Slot,
        out: &mut dyn FnMut(&OnlineBaselineDecision),
    ) -> Result<(), BaselineError> {
        self.load_free(t)?;
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            let s = self.jobs[j];
            if s.plan == 0 || !self.in_time(j, s.plan, t) {
                continue;
            }
            let (w, z) = self.demands(&s);
            if self.pool.room(&w, s.plan) < s.plan {
                continue;
            }
            self.count.iter_mut().for_each(|c| *c = [0, 0]);
            let mut ok = true;
            for _ in 0..s.plan {
                match self.pool.place(&w) {
                    Some(h) => self.count[h as usize][0] += 1,
                    None => ok = false,
                }
            }
            for _ in 0..s.plan_ps {
                match self.pool.place(&z) {
                    Some(h) => self.count[h as usize][1] += 1,
                    None => ok = false,
                }
            }
            if !ok {
                // Packing differed from the plan; give back and retry at a later slot.
                self.give_back(&w, &z);
                continue;
            }
            let len = placed_duration(&self.scn, j, &s, s.plan, &self.count);
            if t as u64 + len as u64 > self.scn.horizon() as u64 {
                // Only with a speed-up table: this placement is too slow to finish by the
                // horizon; wait for a better one.
                self.give_back(&w, &z);
                continue;
            }
            self.start_counted(j, t, len, out)?;
        }
        Ok(())
    }

    /// Starts job j at t for `len` slots with its plan's workers and PSs, placed as `count`
    /// says: reserves [t, t + L) on the ledger, reports the placement and the start.
    fn start_counted(
        &mut self,
        j: usize,
        t: Slot,
        len: u32,
        out: &mut dyn FnMut(&OnlineBaselineDecision),
    ) -> Result<(), BaselineError> {
        let s = self.jobs[j];
        let (w, z) = self.demands(&s);
        let end = t.saturating_add(len).min(self.scn.horizon());
        let room = self.run_off[j + 1].saturating_sub(self.run_off[j]) as usize;
        let mut kept = 0usize;
        for h in 0..self.count.len() {
            let [a, b] = self.count[h];
            if a > 0 {
                self.ledger.reserve(t, end, h as u32, &w, a)?;
            }
            if b > 0 {
                self.ledger.reserve(t, end, h as u32, &z, b)?;
            }
            if a + b > 0 {
                self.keep_live([j as u32, h as u32, a, b, t]);
                if kept < room {
                    self.runs[self.run_off[j] as usize + kept] = [h as u32, a, b];
                    kept += 1;
                }
                out(&OnlineBaselineDecision::Placed(Placed {
                    slot: t,
                    job: j as u32,
                    server: h as u32,
                    workers: a,
                    ps: b,
                }));
            }
        }
        self.run_len[j] = kept as u32;
        let st = &mut self.jobs[j];
        st.start = Some(t);
        st.duration = len;
        st.workers = s.plan;
        st.ps = s.plan_ps;
        let rec = StartRec {
            slot: t,
            job: j as u32,
            workers: s.plan,
            ps: s.plan_ps,
            duration: len,
            policy: policy_code(self.policy),
        };
        out(&OnlineBaselineDecision::Start(rec));
        Ok(())
    }
}

impl OnlineBaseline<'_> {
    /// Returns the units counted in `count` (workers `w`, PSs `z`) to the pool.
    fn give_back(&mut self, w: &ResourceVec, z: &ResourceVec) {
        for h in 0..self.count.len() {
            let [a, b] = self.count[h];
            for _ in 0..a {
                self.pool.unplace(h as u32, w);
            }
            for _ in 0..b {
                self.pool.unplace(h as u32, z);
            }
        }
    }
}

/// The job's configuration: worker type m and PS type p minimising the per-mini-batch time
/// v_jm + U_j^p + 2 pi_j / b_m (ties: lower m, then lower p).
fn config(scn: &OnlineScenario, job: &OnlineJob) -> OnlineJobState {
    let mut best = (f64::INFINITY, 0u32, None);
    for (m, wt) in scn.worker_types.iter().enumerate() {
        let v = job.minibatch_time.get(m).copied().unwrap_or(f64::INFINITY);
        let comm = 2.0 * job.gradient_size / wt.bw;
        match scn.architecture {
            Architecture::Ring => {
                let u = job.update_time.first().copied().unwrap_or(0.0);
                if v + u + comm < best.0 {
                    best = (v + u + comm, m as u32, None);
                }
            }
            Architecture::Ps => {
                for p in 0..scn.ps_types.len() {
                    let u = job.update_time.get(p).copied().unwrap_or(f64::INFINITY);
                    if v + u + comm < best.0 {
                        best = (v + u + comm, m as u32, Some(p as u32));
                    }
                }
            }
        }
    }
    OnlineJobState {
        worker_type: best.1,
        ps_type: best.2,
        ..OnlineJobState::default()
    }
}

/// Per server, how many reservations can run on it at once: each holds at least one worker or
/// PS, so at least the smallest demand of every resource any type has (4 when some type asks
/// for nothing of every resource; the list then grows if it must).
fn concurrent_bound(scn: &OnlineScenario) -> Vec<usize> {
    let r = scn.resources as usize;
    let types: Vec<&ResourceVec> = scn
        .worker_types
        .iter()
        .chain(scn.ps_types.iter())
        .map(|t| &t.demand)
        .collect();
    let dmin: Vec<f64> = (0..r)
        .map(|k| types.iter().map(|d| d.get(k)).fold(f64::INFINITY, f64::min))
        .collect();
    scn.servers
        .iter()
        .map(|c| {
            let mut best = usize::MAX;
            for (k, &d) in dmin.iter().enumerate() {
                if d > 0.0 && d.is_finite() {
                    let n = libm::floor(c.get(k) / d) + 1.0;
                    best = best.min(if n < 4096.0 { n as usize } else { 4096 });
                }
            }
            if best == usize::MAX {
                4
            } else {
                best
            }
        })
        .collect()
}

/// Seconds (slots) of one mini-batch with n workers: 1 / rho_j (eq. 1, q_j = 0; eq. 14 for ring).
pub fn minibatch_slots(scn: &OnlineScenario, job: &OnlineJob, s: &OnlineJobState, n: u32) -> f64 {
    let m = s.worker_type as usize;
    let v = job.minibatch_time.get(m).copied().unwrap_or(0.0);
    let b = scn.worker_types.get(m).map_or(1.0, |w| w.bw);
    match (scn.architecture, s.ps_type) {
        (Architecture::Ps, Some(p)) => {
            v + job.update_time.get(p as usize).copied().unwrap_or(0.0)
                + 2.0 * job.gradient_size / b
        }
        _ => {
            let phi = n.max(1) as f64;
            let f = (phi - 1.0) / phi;
            let u = job.update_time.first().copied().unwrap_or(0.0);
            v + u * f + 2.0 * job.gradient_size * f / b
        }
    }
}

/// L = ceil(E_j D_j K_j / (n rho_j)), at least 1 slot (u32::MAX if out of range).
pub fn duration(scn: &OnlineScenario, job: &OnlineJob, s: &OnlineJobState, n: u32) -> u32 {
    if n == 0 {
        return u32::MAX;
    }
    let work = job.epochs as f64 * job.chunks as f64 * job.minibatches_per_chunk as f64;
    let l = canon(work * minibatch_slots(scn, job, s, n) / n as f64);
    ceil_u32(l).unwrap_or(u32::MAX).max(1)
}

/// [`duration`] of job `j` as placed (`count[h][0]` workers on server h): with a speed-up table
/// and a model for the job, L = ceil(E_j D_j K_j / (s(n, servers) rho_j)), the n workers
/// counting as s(n, servers) (`docs/throughput.md`); otherwise [`duration`].
fn placed_duration(
    scn: &OnlineScenario,
    j: usize,
    s: &OnlineJobState,
    n: u32,
    count: &[[u32; 2]],
) -> u32 {
    let job = &scn.jobs[j];
    let Some(t) = scn.throughput.as_ref().filter(|t| t.job_model(j).is_some()) else {
        return duration(scn, job, s, n);
    };
    let servers = count.iter().filter(|c| c[0] > 0).count() as u32;
    let eff = t.effective_workers(j, n, servers);
    if n == 0 || eff <= 0.0 {
        return u32::MAX;
    }
    let work = job.epochs as f64 * job.chunks as f64 * job.minibatches_per_chunk as f64;
    let l = canon(work * minibatch_slots(scn, job, s, n) / eff);
    ceil_u32(l).unwrap_or(u32::MAX).max(1)
}

/// PSs for n workers: ceil(n b_m / B_p), at least one (0 for ring).
pub fn ps_count(scn: &OnlineScenario, s: &OnlineJobState, n: u32) -> u32 {
    let Some(p) = s.ps_type else { return 0 };
    if n == 0 {
        return 0;
    }
    let b = scn
        .worker_types
        .get(s.worker_type as usize)
        .map_or(1.0, |w| w.bw);
    let bp = scn.ps_types.get(p as usize).map_or(1.0, |w| w.bw);
    ceil_u32(n as f64 * b / bp).unwrap_or(u32::MAX).max(1)
}

/// GPUs of one worker of the job's type (resource 0, or 1 without GPU demand).
fn gpu_of(scn: &OnlineScenario, s: &OnlineJobState) -> f64 {
    let g = scn
        .worker_types
        .get(s.worker_type as usize)
        .map_or(0.0, |w| w.demand.get(0));
    if g > 0.0 {
        g
    } else {
        1.0
    }
}
