//! The open world of kind `placement` (issue 46; `docs/open-world.md`, "Kind placement").
//!
//! Liu et al. place one batch: every job holds the workers of sigma from time 0 for its JCT
//! Lambda_i = T_i (abs(Pi_i) / V_i + l_i^\[c\]) (eqs. 7, 11, 13), computed, not simulated.
//! The paper's dynamic variant recomputes the placement at a *reset event* ("job arrival or
//! completion, worker failure, etc.", Section V-C); this module is that rule, limited to the
//! jobs an event touches so a closed-world run stays the static batch it always was:
//!
//! - Before the closed-world batch (the first `SlotAdvanced`), events change its inputs: a
//!   submission joins the batch (the placer is rebuilt with the job appended, so the batch is
//!   the one of the scenario listing it), a cancel removes the job, a failed or cut worker is
//!   left out. A batch with every job and worker runs the method exactly as before; otherwise
//!   an *open-world batch* (below) places the jobs on the usable workers.
//! - After it, time is seconds from the batch and a job is running while `now < end`. An
//!   event that stops a running job (`server_down` of, or a capacity cut below one GPU on, a
//!   worker it holds) *interrupts* it: it keeps its completed epochs (the partial epoch is lost)
//!   and, with the jobs that wait, is re-placed at once by an open-world batch; a job the batch
//!   cannot take is *lost* (interrupted) or keeps waiting (submitted).
//! - An open-world batch runs the scenario's method on a sub-instance: the waiting and
//!   interrupted jobs (index order, at most one per free worker) with their remaining epochs,
//!   and the free usable workers (their throughput columns and nodes). It is logged as
//!   [`super::records::BatchRec`], then [`super::records::PlaceRec`] per worker in the
//!   scenario's indices; the sub-run's own category records are not forwarded (they would name
//!   the sub-instance's indices).
//!
//! Cost: a check is O(1); an event that frees or takes a worker is O(S + K) plus, when a batch
//! runs, one build and run of the method on the sub-instance (allocating, like a build: the
//! batch is a new placement problem). The closed-world decision path allocates nothing new.
use super::records::{BatchRec, InterruptRec, PlaceRec};
use super::scheduler::{PlacementDecision, PlacementScheduler};
use super::{Instance, PlacementError, Placer};
use crate::index::NONE;
use crate::limits::{self, PLACEMENT_JOBS_MAX, THROUGHPUT_MAX};
use crate::log::{Encoded, ForwardSink, HashSink, LogSink};
use crate::model::placement::{PlacementJob, PlacementScenario, Worker};
use crate::num::canon;
use crate::record::LogRecord;
use crate::resources::ResourceVec;
use crate::world::{check_capacity, OpenWorldError, Status};
use crate::{Limit, Slot};
use alloc::vec;
use alloc::vec::Vec;

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not placed yet: before the batch, or waiting for a free worker (once arrived).
    Pending,
    /// Holding its workers from `start` to `end` (done once `end <= now`).
    Running,
    /// Stopped by the current event, about to be re-placed or lost.
    Interrupted,
    /// Finished: its run reached `end`.
    Done,
    /// Cancelled by the host.
    Cancelled,
    /// Interrupted and not re-placed.
    Lost,
}

/// One job's open-world state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobRun {
    /// Where it is.
    pub phase: Phase,
    /// `JobArrived` was fed.
    pub arrived: bool,
    /// When it arrived (seconds; its JCT is `end - arrival` once finished).
    pub arrival: Slot,
    /// Start of its current run (seconds).
    pub start: f64,
    /// End of its current run (seconds; infinite when V_i = 0).
    pub end: f64,
    /// Epochs its current run trains (T_i, or what an interruption left).
    pub epochs: f64,
}

/// One span of one worker held by one job: `[from, to)` in seconds (`to` infinite when its JCT
/// is). The occupancy the open world really produced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hold {
    /// i
    pub job: u32,
    /// k
    pub worker: u32,
    /// Start (seconds).
    pub from: f64,
    /// End (seconds): the run's end, or the time a cancel or an interruption stopped it.
    pub to: f64,
}

/// One worker's open-world state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Server {
    /// Index into `holds` of the span holding it, or [`NONE`].
    hold: u32,
    down: bool,
    /// The capacity in force (GPUs); while down, the one it returns with.
    cap: f64,
}

/// The open-world state of a [`PlacementScheduler`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct World {
    jobs: Vec<JobRun>,
    servers: Vec<Server>,
    holds: Vec<Hold>,
    /// Jobs submitted after the batch (index `inst.s + n`): the placer is not rebuilt then.
    extra: Vec<PlacementJob>,
    /// The closed-world batch has been decided.
    pub(crate) decided: bool,
    /// `finish` was called.
    pub(crate) ended: bool,
    now: Slot,
}

const PENDING: JobRun = JobRun {
    phase: Phase::Pending,
    arrived: false,
    arrival: 0,
    start: 0.0,
    end: f64::INFINITY,
    epochs: 0.0,
};

impl World {
    /// Every job pending, every worker up with one GPU.
    pub(crate) fn new(inst: &Instance) -> Self {
        let mut jobs = vec![PENDING; inst.s];
        for (j, r) in jobs.iter_mut().enumerate() {
            r.epochs = inst.epochs[j];
        }
        World {
            jobs,
            servers: vec![
                Server {
                    hold: NONE,
                    down: false,
                    cap: 1.0,
                };
                inst.k
            ],
            holds: Vec::new(),
            extra: Vec::new(),
            decided: false,
            ended: false,
            now: 0,
        }
    }

    fn usable(s: &Server) -> bool {
        !s.down && s.cap >= 1.0
    }

    /// Every job arrived and not cancelled, every worker usable: the closed-world batch.
    fn pristine(&self) -> bool {
        self.jobs
            .iter()
            .all(|r| r.arrived && r.phase == Phase::Pending)
            && self.servers.iter().all(Self::usable)
    }

    /// Time moves to `now`: runs that reached their end are done, their workers free.
    fn settle(&mut self, now: Slot) {
        self.now = now;
        let t = f64::from(now);
        for s in &mut self.servers {
            if s.hold != NONE && self.holds[s.hold as usize].to <= t {
                s.hold = NONE;
            }
        }
        for r in &mut self.jobs {
            if r.phase == Phase::Running && r.end <= t {
                r.phase = Phase::Done;
            }
        }
    }

    /// The job that holds worker `h` at the current time, if any.
    fn holder(&self, h: usize) -> Option<u32> {
        let s = self.servers[h];
        (s.hold != NONE).then(|| self.holds[s.hold as usize].job)
    }

    /// Releases every worker `job` holds, its spans ending at `t`.
    fn release(&mut self, job: u32, t: f64) {
        for s in &mut self.servers {
            if s.hold != NONE && self.holds[s.hold as usize].job == job {
                self.holds[s.hold as usize].to = t;
                s.hold = NONE;
            }
        }
    }

    /// Stops running `job` at the current time: it keeps its completed epochs (eq. 7 makes
    /// progress linear in time over a run; the partial epoch is lost).
    fn interrupt(&mut self, job: u32) {
        let t = f64::from(self.now);
        let r = self.jobs[job as usize];
        let frac = if r.end.is_finite() && r.end > r.start {
            ((t - r.start) / (r.end - r.start)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let done = libm::floor(r.epochs * frac);
        let left = if done < r.epochs {
            r.epochs - done
        } else {
            r.epochs
        };
        self.release(job, t);
        let r = &mut self.jobs[job as usize];
        r.phase = Phase::Interrupted;
        r.epochs = left;
    }

    /// The first wake-up after `after`: while a job waits, the next end of a running job.
    pub(crate) fn next_completion(&self, after: Option<Slot>) -> Option<Slot> {
        let waiting = self
            .jobs
            .iter()
            .any(|r| r.arrived && r.phase == Phase::Pending);
        if !waiting {
            return None;
        }
        let from = after.map_or(0.0, f64::from);
        self.jobs
            .iter()
            .filter(|r| r.phase == Phase::Running && r.end.is_finite() && r.end > from)
            .map(|r| libm::ceil(r.end).min(f64::from(Slot::MAX)) as Slot)
            .filter(|&w| after.is_none_or(|a| w > a))
            .min()
    }

    /// The job's status at the last event (final after `finish`).
    fn status(&self, job: u32) -> Option<Status> {
        let r = self.jobs.get(job as usize)?;
        Some(match r.phase {
            Phase::Pending | Phase::Interrupted => Status::Unfinished,
            Phase::Done => Status::Finished,
            Phase::Running => {
                let done = r.end <= f64::from(self.now) || (self.ended && r.end.is_finite());
                if done {
                    Status::Finished
                } else {
                    Status::Unfinished
                }
            }
            Phase::Cancelled => Status::Cancelled,
            Phase::Lost => Status::Lost,
        })
    }

    /// The job has ended at `t` (finished, cancelled or lost): a cancel is refused.
    fn ended_at(&self, job: usize, t: f64) -> bool {
        let r = self.jobs[job];
        match r.phase {
            Phase::Done | Phase::Cancelled | Phase::Lost => true,
            Phase::Running => r.end <= t,
            Phase::Pending | Phase::Interrupted => false,
        }
    }
}

/// An open-world batch's result: per free worker its job (scenario indices), per batch job
/// its JCT from the batch's start, and the method's summary.
struct Batch {
    job_of: Vec<u32>,
    jct: Vec<f64>,
    examined: u64,
    avg_jct: f64,
}

/// Writes one open-world record as a decision, under its type's tag.
fn emit<F, T>(buf: &mut [u8], out: &mut F, rec: &T) -> Result<(), PlacementError>
where
    F: FnMut(&PlacementDecision<'_>) + ?Sized,
    T: serde::Serialize + LogRecord,
{
    let mut fwd = ForwardSink::new(buf, |e: Encoded<'_>| out(&PlacementDecision::Record(e)));
    fwd.record(T::TAG, rec)?;
    Ok(())
}

impl PlacementScheduler {
    /// Appends a job (the next index) and returns its index; the host then feeds
    /// `JobArrived(index)`. Checked like the scenario's jobs (throughput shape and values,
    /// `samples` and `epochs` > 0, `model_bytes` >= 0, [`PLACEMENT_JOBS_MAX`]); a refused job
    /// changes nothing. Before the batch the placer is rebuilt with the job appended (so the
    /// batch is the one of the scenario listing it, K >= S included); after it the job waits
    /// for an open-world batch. Cost: a rebuild before the batch, O(K) after.
    pub fn submit(&mut self, job: PlacementJob) -> Result<u32, PlacementError> {
        let index = self.world.jobs.len();
        limits::check(Limit::PlacementJobs, index + 1, PLACEMENT_JOBS_MAX)?;
        let i = index as u32;
        let k = self.placer.inst.k;
        if job.throughput.len() != k {
            return Err(PlacementError::ThroughputShape { job: i });
        }
        let bad = job
            .throughput
            .iter()
            .position(|x| !(0.0..=THROUGHPUT_MAX).contains(x));
        if let Some(w) = bad {
            return Err(PlacementError::ThroughputValue {
                job: i,
                worker: w as u32,
            });
        }
        let positive = |x: f64| x.is_finite() && x > 0.0;
        let field = if !positive(job.samples) {
            Some("samples")
        } else if !positive(job.epochs) {
            Some("epochs")
        } else if !(job.model_bytes.is_finite() && job.model_bytes >= 0.0) {
            Some("model_bytes")
        } else {
            None
        };
        if let Some(field) = field {
            return Err(PlacementError::JobValue { job: i, field });
        }
        let epochs = job.epochs;
        if self.world.decided {
            self.world.extra.push(job);
        } else {
            let scn = self.scenario_with(job);
            self.placer = Placer::new(&scn)?;
        }
        self.world.jobs.push(JobRun { epochs, ..PENDING });
        Ok(i)
    }

    /// The job's status as of the last event (`None` for an unknown index); final after
    /// `finish`: a job still running then finishes at its JCT unless that is infinite.
    pub fn status(&self, job: u32) -> Option<Status> {
        self.world.status(job)
    }

    /// Every span a job held a worker, in the order they were placed (the occupancy the open
    /// world produced; empty before the batch).
    pub fn holds(&self) -> &[Hold] {
        &self.world.holds
    }

    /// The job's open-world state (`None` for an unknown index).
    pub fn job_run(&self, job: u32) -> Option<JobRun> {
        self.world.jobs.get(job as usize).copied()
    }

    /// The scenario of the placer's instance with `job` appended (the placer is built from
    /// its instance alone: GPU type names do not enter it).
    fn scenario_with(&self, job: PlacementJob) -> PlacementScenario {
        let p = &self.placer;
        let inst = &p.inst;
        let mut jobs: Vec<PlacementJob> = (0..inst.s)
            .map(|i| PlacementJob {
                samples: inst.samples[i],
                epochs: inst.epochs[i],
                model_bytes: inst.model_bytes[i],
                throughput: inst.rho[i * inst.k..(i + 1) * inst.k].to_vec(),
            })
            .collect();
        jobs.push(job);
        PlacementScenario {
            method: p.method,
            workers: inst
                .node
                .iter()
                .map(|&node| Worker { gpu_type: 0, node })
                .collect(),
            intra_node: inst.intra,
            inter_node: inst.inter,
            jobs,
            include_comm: inst.include_comm,
            jps: p.jps,
            seed: p.seed,
            solver: p.solver,
        }
    }

    /// Job `j`'s abs(Pi_i), D_i and throughput row.
    fn job_data(&self, j: u32) -> (f64, f64, &[f64]) {
        let inst = &self.placer.inst;
        let j = j as usize;
        match j.checked_sub(inst.s) {
            None => (
                inst.samples[j],
                inst.model_bytes[j],
                &inst.rho[j * inst.k..(j + 1) * inst.k],
            ),
            Some(e) => {
                let x = &self.world.extra[e];
                (x.samples, x.model_bytes, &x.throughput)
            }
        }
    }

    /// The method on `jobs` (remaining epochs) and the `free` workers; `None` when the method
    /// refuses the sub-instance (then nothing is placed).
    fn run_batch(&self, jobs: &[u32], free: &[u32]) -> Option<Batch> {
        let inst = &self.placer.inst;
        let scn = PlacementScenario {
            method: self.method,
            workers: free
                .iter()
                .map(|&k| Worker {
                    gpu_type: 0,
                    node: inst.node[k as usize],
                })
                .collect(),
            intra_node: inst.intra,
            inter_node: inst.inter,
            jobs: jobs
                .iter()
                .map(|&j| {
                    let (samples, model_bytes, rho) = self.job_data(j);
                    PlacementJob {
                        samples,
                        epochs: self.world.jobs[j as usize].epochs,
                        model_bytes,
                        throughput: free.iter().map(|&k| rho[k as usize]).collect(),
                    }
                })
                .collect(),
            include_comm: inst.include_comm,
            jps: self.placer.jps,
            seed: self.placer.seed,
            solver: self.placer.solver,
        };
        let mut p = Placer::new(&scn).ok()?;
        let summary = p.run(self.method, &mut HashSink::new(), |_| {}).ok()?;
        let best = p.best();
        Some(Batch {
            job_of: best.job_of.iter().map(|&i| jobs[i as usize]).collect(),
            jct: best.jct.clone(),
            examined: summary.examined,
            avg_jct: best.avg_jct,
        })
    }

    /// The closed-world batch placed at `now`: every job holds its workers for its JCT.
    fn start_closed(&mut self, now: Slot) {
        let t = f64::from(now);
        let best = self.placer.best();
        for (k, &j) in best.job_of.iter().enumerate() {
            let end = t + best.jct[j as usize];
            self.world.servers[k].hold = self.world.holds.len() as u32;
            self.world.holds.push(Hold {
                job: j,
                worker: k as u32,
                from: t,
                to: end,
            });
        }
        for (j, r) in self.world.jobs.iter_mut().enumerate() {
            r.phase = Phase::Running;
            r.start = t;
            r.end = t + best.jct[j];
        }
    }

    /// A reset at `now`: the interrupted jobs (`stopped`: job, worker, cause) and the waiting
    /// ones are placed by an open-world batch on the free usable workers; an interrupted job
    /// it does not take is lost. Writes the interruptions, then the batch.
    fn reset<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        stopped: &[(u32, u32, u8)],
        out: &mut F,
    ) -> Result<(), PlacementError> {
        let w = &self.world;
        let batch: Vec<u32> = (0..w.jobs.len() as u32)
            .filter(|&j| {
                let r = w.jobs[j as usize];
                r.phase == Phase::Interrupted || (r.arrived && r.phase == Phase::Pending)
            })
            .collect();
        let free: Vec<u32> = (0..w.servers.len() as u32)
            .filter(|&k| {
                let s = &w.servers[k as usize];
                World::usable(s) && s.hold == NONE
            })
            .collect();
        let n = batch.len().min(free.len());
        let placed = if n > 0 {
            self.run_batch(&batch[..n], &free)
        } else {
            None
        };
        let taken = if placed.is_some() { &batch[..n] } else { &[] };
        for &(job, server, cause) in stopped {
            let kept = taken.contains(&job);
            let rec = InterruptRec {
                at: now,
                job,
                server,
                cause,
                outcome: if kept { 0 } else { 1 },
                epochs_left: canon(self.world.jobs[job as usize].epochs),
            };
            emit(&mut self.buf, out, &rec)?;
        }
        for &j in &batch {
            let r = &mut self.world.jobs[j as usize];
            if r.phase == Phase::Interrupted && !taken.contains(&j) {
                r.phase = Phase::Lost;
            }
        }
        match placed {
            Some(b) => self.start_batch(now, taken, &free, &b, out),
            None => Ok(()),
        }
    }

    /// Starts an open-world batch's runs at `now` and writes it.
    fn start_batch<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        jobs: &[u32],
        free: &[u32],
        b: &Batch,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        let t = f64::from(now);
        let rec = BatchRec {
            at: now,
            method: self.method.code(),
            jobs: jobs.len() as u32,
            workers: free.len() as u32,
            examined: b.examined,
            avg_jct: canon(b.avg_jct),
        };
        emit(&mut self.buf, out, &rec)?;
        for (n, &j) in jobs.iter().enumerate() {
            let r = &mut self.world.jobs[j as usize];
            r.phase = Phase::Running;
            r.start = t;
            r.end = t + b.jct[n];
        }
        for (&k, &j) in free.iter().zip(&b.job_of) {
            let r = self.world.jobs[j as usize];
            self.world.servers[k as usize].hold = self.world.holds.len() as u32;
            self.world.holds.push(Hold {
                job: j,
                worker: k,
                from: t,
                to: r.end,
            });
            let rec = PlaceRec {
                at: now,
                job: j,
                worker: k,
                epochs: canon(r.epochs),
                finish: canon(r.end),
            };
            emit(&mut self.buf, out, &rec)?;
        }
        Ok(())
    }

    /// `SlotAdvanced`: the first decides the batch (the closed-world one when nothing changed
    /// its inputs); later ones are completion resets for the waiting jobs.
    pub(super) fn on_slot<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        self.world.settle(now);
        if !self.world.decided && self.world.pristine() {
            self.run_closed(out)?;
            self.world.decided = true;
            self.start_closed(now);
            return Ok(());
        }
        self.world.decided = true;
        self.reset(now, &[], out)
    }

    /// `JobArrived(j)`: before the batch it joins it; after, it is placed at once if a worker
    /// is free, else it waits. A cancelled job never arrives.
    pub(super) fn on_arrival<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        j: u32,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        if j as usize >= self.world.jobs.len() {
            return Err(OpenWorldError::UnknownJob { job: j }.into());
        }
        let r = &mut self.world.jobs[j as usize];
        if r.arrived || r.phase != Phase::Pending {
            return Ok(());
        }
        r.arrived = true;
        r.arrival = now;
        if !self.world.decided {
            return Ok(());
        }
        self.world.settle(now);
        self.reset(now, &[], out)
    }

    /// `JobCancelled(j)`: its workers are free from `now` (the waiting jobs may take them).
    pub(super) fn on_cancel<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        j: u32,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        if j as usize >= self.world.jobs.len() {
            return Err(OpenWorldError::UnknownJob { job: j }.into());
        }
        if self.world.ended_at(j as usize, f64::from(now)) {
            return Err(OpenWorldError::JobEnded { job: j }.into());
        }
        self.world.settle(now);
        let was_running = self.world.jobs[j as usize].phase == Phase::Running;
        self.world.release(j, f64::from(now));
        self.world.jobs[j as usize].phase = Phase::Cancelled;
        let rec = InterruptRec {
            at: now,
            job: j,
            server: NONE,
            cause: 2,
            outcome: 2,
            epochs_left: 0.0,
        };
        emit(&mut self.buf, out, &rec)?;
        if self.world.decided && was_running {
            self.reset(now, &[], out)?;
        }
        Ok(())
    }

    /// Checks a server index.
    fn server(&self, h: u32) -> Result<usize, PlacementError> {
        if (h as usize) < self.world.servers.len() {
            Ok(h as usize)
        } else {
            Err(OpenWorldError::UnknownServer { server: h }.into())
        }
    }

    /// Interrupts the holder of worker `h` (cause 0 down, 1 capacity) and resets.
    fn stop_holder<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        h: usize,
        cause: u8,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        let stopped = self.world.holder(h).map(|job| {
            self.world.interrupt(job);
            (job, h as u32, cause)
        });
        if !self.world.decided {
            return Ok(());
        }
        self.reset(now, stopped.as_slice(), out)
    }

    /// `ServerDown(h)`: nothing is placed on worker `h` until `ServerUp`; its holder is
    /// interrupted and re-placed or lost.
    pub(super) fn on_server_down<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        h: u32,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        let k = self.server(h)?;
        if self.world.servers[k].down {
            return Err(OpenWorldError::ServerDown { server: h }.into());
        }
        self.world.settle(now);
        self.world.servers[k].down = true;
        self.stop_holder(now, k, 0, out)
    }

    /// `ServerUp(h)`: back with the capacity in force before it went down (or set while
    /// down); the waiting jobs may take it.
    pub(super) fn on_server_up<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        h: u32,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        let k = self.server(h)?;
        if !self.world.servers[k].down {
            return Err(OpenWorldError::ServerUp { server: h }.into());
        }
        self.world.settle(now);
        self.world.servers[k].down = false;
        if !self.world.decided {
            return Ok(());
        }
        self.reset(now, &[], out)
    }

    /// `Capacity(h, [c])`: one resource, the worker's GPUs. Below 1 the worker cannot host a
    /// worker of any job (its holder is interrupted); 1 or more it hosts one (sigma is 0/1 per
    /// worker, eq. 8c: a second GPU would be a worker the instance has no rho column for).
    pub(super) fn on_capacity<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        h: u32,
        c: &ResourceVec,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        let k = self.server(h)?;
        check_capacity(h, c, 1)?;
        self.world.settle(now);
        let cap = c.as_slice()[0];
        let s = &mut self.world.servers[k];
        s.cap = cap;
        if s.down {
            return Ok(());
        }
        if cap < 1.0 {
            return self.stop_holder(now, k, 1, out);
        }
        if !self.world.decided {
            return Ok(());
        }
        self.reset(now, &[], out)
    }
}
