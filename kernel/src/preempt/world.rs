//! The open world for Wang et al. (`docs/open-world.md`, "Kind preempt"): submissions,
//! cancels, edge servers going down and up, capacity changes, and every job's status.
//!
//! The model's units are chunks on workers (y_jdsw(t)) and one PS per running job per slot
//! (z_jsp(t)); a job is not a gang (its chunks train independently, constraint 2c), so an
//! event interrupts *chunks*, never a whole job. An interrupted chunk loses its work in
//! progress (a chunk is trained on one worker, 2c; its data set was uploaded to that server)
//! and is re-dispatched at the event's slot T as if its job arrived at T with those chunks
//! (ready at T + Delta_js on the new server), by the policy's own rule. The cloud is not a
//! server an event can name: the model gives it unlimited workers, always there.
use super::dispatch::Todo;
use super::{Cause, InterruptRec, Outcome, PreemptDecision, PreemptError, PreemptScheduler};
use crate::error::Limit;
use crate::index::NONE;
use crate::model::preempt::{PreemptJob, PreemptScenario};
use crate::resources::ResourceVec;
use crate::world::{OpenWorldError, Status};
use crate::Slot;
use alloc::vec::Vec;

/// The resources of a `Capacity` event for kind preempt: [workers, PSs] of the edge server.
pub const CAPACITY_RESOURCES: usize = 2;

/// How a job ended by an open-world event (`None` in [`World::ended`]: it did not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ended {
    Cancelled,
    Lost,
    Rejected,
}

/// The open-world state: which workers and PSs are usable, and the jobs ended by events.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct World {
    /// Per global edge worker: off (its server is down, or beyond the capacity in force).
    worker_off: Vec<bool>,
    /// Per server: down.
    down: Vec<bool>,
    /// Per server: the capacity in force (workers, PSs).
    cap: Vec<(u32, u32)>,
    /// Per job: how an event ended it.
    ended: Vec<Option<Ended>>,
    /// Some worker or PS is off (the closed-world fast path skips every check).
    any_off: bool,
    /// An open-world event changed the state (a snapshot would not carry it).
    pub(super) touched: bool,
    /// The run is over (`finish`): a chunk ending in the last slot is done.
    pub(super) finished: bool,
    /// Scratch: global chunks to re-dispatch (or dropped) by the event being handled.
    redo: Vec<u32>,
}

impl World {
    /// Everything on, at the scenario's capacities.
    pub(super) fn new(scn: &PreemptScenario, edge_workers: usize, chunks: usize) -> Self {
        World {
            worker_off: alloc::vec![false; edge_workers],
            down: alloc::vec![false; scn.servers.len()],
            cap: scn.servers.iter().map(|s| (s.workers, s.ps)).collect(),
            ended: alloc::vec![None; scn.jobs.len()],
            any_off: false,
            touched: false,
            finished: false,
            redo: Vec::with_capacity(chunks),
        }
    }

    /// Global edge worker `gw` is off.
    pub(super) fn worker_off(&self, gw: usize) -> bool {
        self.any_off && self.worker_off.get(gw).copied().unwrap_or(false)
    }

    /// PS `p` of server `s` may serve a job (its server is up and p is within the capacity).
    pub(super) fn ps_ok(&self, s: usize, p: u32) -> bool {
        !self.any_off
            || (!self.down.get(s).copied().unwrap_or(false)
                && self.cap.get(s).is_some_and(|c| p < c.1))
    }
}

/// A capacity entry as a count: its floor, at most the scenario's count (the model's W_s and
/// PSs are the hardware that exists; a larger value cannot add workers the plans do not have).
fn count(c: f64, max: u32) -> u32 {
    let f = libm::floor(c);
    if f >= max as f64 {
        max
    } else {
        f as u32
    }
}

impl PreemptScheduler {
    /// Appends a submitted job (its chunks get the next global indices) and returns its index;
    /// the host then feeds `JobArrived(index)` at slot r_j (>= the last event's slot). Checks
    /// the limits the build checks ([`crate::limits`]: jobs, chunks per job, chunks in all)
    /// and refuses a job no server could ever train; nothing changes on an error. Decisions
    /// are exactly those of the same job listed in the scenario. Cost: O(D_j) amortised.
    pub fn submit(&mut self, job: PreemptJob) -> Result<u32, PreemptError> {
        let j = self.scn.jobs.len();
        crate::limits::check(Limit::Jobs, j + 1, crate::limits::JOBS_MAX)
            .map_err(PreemptError::Capacity)?;
        crate::limits::check(
            Limit::Chunks,
            job.chunks as usize,
            crate::limits::CHUNKS_MAX,
        )
        .map_err(|e| PreemptError::Capacity(e.for_job(j as u32)))?;
        let nc = self.place.len() + job.chunks as usize;
        crate::limits::check(
            Limit::PreemptTotalChunks,
            nc,
            crate::limits::PREEMPT_TOTAL_CHUNKS_MAX,
        )
        .map_err(PreemptError::Capacity)?;
        if job.arrival < self.now {
            return Err(PreemptError::WrongSlot {
                job: j as u32,
                arrival: job.arrival,
                now: self.now,
            });
        }
        let trainable = self.scn.servers.iter().enumerate().any(|(s, sv)| {
            let ws = if sv.cloud { 1 } else { sv.workers };
            (0..ws).any(|w| {
                job.rate_of(s, w as usize, sv.cloud, false) > 0.0
                    || (sv.cloud && job.rate_of(s, 0, true, true) > 0.0)
            })
        });
        if !trainable {
            return Err(PreemptError::NoEligibleWorker { job: j as u32 });
        }
        self.chunk_base.push(self.place.len() as u32);
        self.plans.extend_chunks(job.chunks as usize);
        self.place.resize(nc, super::Placement::default());
        self.zeta.push(false);
        self.dispatched.push(false);
        self.cloud_window.push((0, 0));
        self.last_run.push(0);
        self.last_ps.push(NONE);
        self.cur_ps.push(NONE);
        self.ow.ended.push(None);
        if let Err(at) = self.arrival_slots.binary_search(&job.arrival) {
            self.arrival_slots.insert(at, job.arrival);
        }
        self.scn.jobs.push(job);
        self.reserve_scratch();
        if self.ow.redo.capacity() < nc {
            self.ow.redo.reserve(nc - self.ow.redo.len());
        }
        Ok(j as u32)
    }

    /// The job's status as of the last event (after `finish`, final): `None` for an unknown
    /// index. Finished = every chunk's last slot is over; a job waiting or with work left is
    /// unfinished; rejected, cancelled and lost come from the open-world events.
    pub fn status(&self, job: u32) -> Option<Status> {
        let ended = *self.ow.ended.get(job as usize)?;
        Some(match ended {
            Some(Ended::Cancelled) => Status::Cancelled,
            Some(Ended::Lost) => Status::Lost,
            Some(Ended::Rejected) => Status::Rejected,
            None if self.done(job, self.now.saturating_add(self.ow.finished as u32)) => {
                Status::Finished
            }
            None => Status::Unfinished,
        })
    }

    /// Job `j` arrived and every chunk of it is over by slot `by` (the last event's slot, or
    /// the end of the last slot once the run is finished).
    fn done(&self, j: u32, by: Slot) -> bool {
        self.dispatched.get(j as usize).copied().unwrap_or(false)
            && self.completion(j as usize) <= by
    }

    /// Open world at arrival: when some worker is off and no worker that is on (nor the cloud)
    /// can train the job, it is rejected (one record) instead of failing the run.
    pub(super) fn rejects(
        &mut self,
        j: u32,
        now: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> bool {
        if !self.ow.any_off {
            return false;
        }
        let ok = self
            .scn
            .jobs
            .get(j as usize)
            .is_none_or(|job| self.can_place(job, true));
        if ok {
            return false;
        }
        if let Some(e) = self.ow.ended.get_mut(j as usize) {
            *e = Some(Ended::Rejected);
        }
        out(&PreemptDecision::Interrupt(InterruptRec {
            slot: now,
            job: j,
            chunk: 0,
            server: 0,
            worker: 0,
            cloud: false,
            cause: Cause::Arrival,
            outcome: Outcome::Rejected,
        }));
        true
    }

    /// `JobCancelled(j)` at `now`: every planned slot of j from `now` on is dropped (edge
    /// plans and cloud windows), one record per chunk that had some; j earns nothing. Refused
    /// (nothing changes) for an unknown job, one not arrived yet or already ended. Cost:
    /// O(D_j x the pending segments of its workers).
    pub(super) fn cancel(
        &mut self,
        j: u32,
        now: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let ju = j as usize;
        let ended = *self
            .ow
            .ended
            .get(ju)
            .ok_or(OpenWorldError::UnknownJob { job: j })?;
        if ended.is_some()
            || !self.dispatched.get(ju).copied().unwrap_or(false)
            || self.done(j, now)
        {
            return Err(OpenWorldError::JobEnded { job: j }.into());
        }
        self.ow.touched = true;
        self.plans.advance(now);
        self.drop_job(j, now, Cause::Cancel, Outcome::Cancelled, out)?;
        if let Some(e) = self.ow.ended.get_mut(ju) {
            *e = Some(Ended::Cancelled);
        }
        Ok(())
    }

    /// Drops every planned slot >= `now` of job j's chunks, one record per chunk hit.
    fn drop_job(
        &mut self,
        j: u32,
        now: Slot,
        cause: Cause,
        outcome: Outcome,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let ju = j as usize;
        let (Some(&base), Some(chunks)) = (
            self.chunk_base.get(ju),
            self.scn.jobs.get(ju).map(|x| x.chunks),
        ) else {
            return Err(OpenWorldError::UnknownJob { job: j }.into());
        };
        for c in base..base + chunks {
            let Some(p) = self.place.get(c as usize).copied() else {
                continue;
            };
            let mut hit = false;
            if p.cloud {
                hit = p.end > now;
                if let Some(x) = self.place.get_mut(c as usize) {
                    // An empty window [start, start) when nothing of it ran.
                    x.end = x.end.min(now.max(x.start));
                }
            } else if p.placed {
                let gw = self
                    .worker_index(p.server as usize, p.worker)
                    .unwrap_or(NONE);
                self.plans.cut(gw as usize, now, c, &mut |_| hit = true)?;
            }
            if let Some(pc) = self.plans.chunks.get_mut(c as usize) {
                pc.end = pc.end.min(now);
            }
            if hit {
                out(&interrupt(now, j, c - base, p, cause, outcome));
            }
        }
        if let Some(w) = self.cloud_window.get_mut(ju) {
            w.1 = w.1.min(now.max(w.0));
        }
        Ok(())
    }

    /// Checks a server event's index: an edge server (the cloud is refused as unsupported:
    /// the model's cloud has unlimited workers and never fails).
    fn edge_server(&self, h: u32, event: &'static str) -> Result<usize, PreemptError> {
        match self.scn.servers.get(h as usize) {
            None => Err(OpenWorldError::UnknownServer { server: h }.into()),
            Some(sv) if sv.cloud => Err(OpenWorldError::Unsupported { event }.into()),
            Some(_) => Ok(h as usize),
        }
    }

    /// `ServerDown(h)` at `now`: h's workers and PSs are off until `ServerUp`; every chunk
    /// planned on them from `now` on is interrupted and re-dispatched (or its job lost).
    /// Cost: O(h's pending segments) + one dispatch per job interrupted.
    pub(super) fn server_down(
        &mut self,
        h: u32,
        now: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let s = self.edge_server(h, "server_down")?;
        if self.ow.down.get(s).copied().unwrap_or(false) {
            return Err(OpenWorldError::ServerDown { server: h }.into());
        }
        self.open(now);
        if let Some(d) = self.ow.down.get_mut(s) {
            *d = true;
        }
        let workers = self.scn.servers.get(s).map_or(0, |x| x.workers);
        for w in 0..workers {
            self.switch_off(s, w, now)?;
        }
        self.recover(now, Cause::ServerDown, out)
    }

    /// `ServerUp(h)`: h is back with the capacity in force (its lowest-index workers).
    pub(super) fn server_up(&mut self, h: u32, now: Slot) -> Result<(), PreemptError> {
        let s = self.edge_server(h, "server_up")?;
        if !self.ow.down.get(s).copied().unwrap_or(false) {
            return Err(OpenWorldError::ServerUp { server: h }.into());
        }
        self.open(now);
        if let Some(d) = self.ow.down.get_mut(s) {
            *d = false;
        }
        let want = self.ow.cap.get(s).map_or(0, |c| c.0);
        self.switch_on(s, want);
        Ok(())
    }

    /// `Capacity(h, [workers, PSs])` at `now`: the capacity in force from `now` (each entry's
    /// floor, at most the scenario's count). On an up server, workers are switched on (lowest
    /// index first) or off until exactly that many are on; a worker switched off loses its
    /// plan from `now` (its chunks are re-dispatched). Which go off: first the workers idle in
    /// slot `now` (highest index first), then the one whose running chunk started most
    /// recently (ties: higher job index, then higher worker index). PSs beyond the count serve
    /// no job from `now` on (A_ps assigns per slot, so nothing else is interrupted).
    pub(super) fn capacity(
        &mut self,
        h: u32,
        c: &ResourceVec,
        now: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let s = self.edge_server(h, "capacity")?;
        crate::world::check_capacity(h, c, CAPACITY_RESOURCES)?;
        let (workers, ps) = self
            .scn
            .servers
            .get(s)
            .map_or((0, 0), |x| (x.workers, x.ps));
        let want = (count(c.get(0), workers), count(c.get(1), ps));
        self.open(now);
        if let Some(x) = self.ow.cap.get_mut(s) {
            *x = want;
        }
        if self.ow.down.get(s).copied().unwrap_or(false) {
            return Ok(());
        }
        self.switch_on(s, want.0);
        while self.on_count(s) > want.0 {
            let Some(w) = self.next_off(s, now) else {
                break;
            };
            self.switch_off(s, w, now)?;
        }
        self.recover(now, Cause::Capacity, out)
    }

    /// Every open-world state change starts here: the checks are done.
    fn open(&mut self, now: Slot) {
        self.ow.touched = true;
        self.ow.any_off = true;
        self.plans.advance(now);
        self.ow.redo.clear();
    }

    /// Workers of server s that are on.
    fn on_count(&self, s: usize) -> u32 {
        let n = self.scn.servers.get(s).map_or(0, |x| x.workers);
        (0..n)
            .filter(|&w| {
                self.worker_index(s, w)
                    .is_some_and(|gw| !self.ow.worker_off(gw as usize))
            })
            .count() as u32
    }

    /// Switches on the lowest-index workers of s that are off until `want` are on.
    fn switch_on(&mut self, s: usize, want: u32) {
        let mut on = self.on_count(s);
        let n = self.scn.servers.get(s).map_or(0, |x| x.workers);
        for w in 0..n {
            if on >= want {
                break;
            }
            let gw = self.worker_index(s, w).unwrap_or(NONE) as usize;
            if let Some(x) = self.ow.worker_off.get_mut(gw) {
                if *x {
                    *x = false;
                    on += 1;
                }
            }
        }
    }

    /// The worker of s to switch off next (see [`PreemptScheduler::capacity`]).
    fn next_off(&self, s: usize, now: Slot) -> Option<u32> {
        let n = self.scn.servers.get(s).map_or(0, |x| x.workers);
        // Key: (running, start of its running segment, job, worker); the largest goes.
        let mut best: Option<((bool, Slot, u32, u32), u32)> = None;
        for w in 0..n {
            let gw = self.worker_index(s, w)? as usize;
            if self.ow.worker_off(gw) {
                continue;
            }
            let key = match self.plans.running_segment(gw, now) {
                None => (false, 0, 0, w),
                Some(seg) => (true, seg.start, self.job_of(seg.chunk), w),
            };
            // Idle first: `false` sorts before `true`, so compare idle keys inverted.
            let better = match best {
                None => true,
                Some((b, _)) => match (key.0, b.0) {
                    (false, true) => true,
                    (true, false) => false,
                    _ => key > b,
                },
            };
            if better {
                best = Some((key, w));
            }
        }
        best.map(|b| b.1)
    }

    /// The job of global chunk c.
    pub(super) fn job_of(&self, c: u32) -> u32 {
        self.chunk_base
            .partition_point(|&b| b <= c)
            .saturating_sub(1) as u32
    }

    /// Switches worker w of s off and cuts its plan from `now` (its chunks into `redo`).
    fn switch_off(&mut self, s: usize, w: u32, now: Slot) -> Result<(), PreemptError> {
        let gw = self.worker_index(s, w).unwrap_or(NONE) as usize;
        if let Some(x) = self.ow.worker_off.get_mut(gw) {
            *x = true;
        }
        let (place, redo) = (&mut self.place, &mut self.ow.redo);
        self.plans.cut(gw, now, NONE, &mut |c| {
            if let Some(p) = place.get_mut(c as usize) {
                // `placed` marks each chunk once (a split chunk is hit twice).
                if p.placed {
                    p.placed = false;
                    redo.push(c);
                }
            }
        })?;
        Ok(())
    }

    /// Re-dispatches the chunks in `redo`, job by job (ascending index), each job's as if it
    /// arrived at `now` with those chunks; a job none of whose usable workers (nor the cloud)
    /// can train them is lost (all its remaining slots dropped).
    fn recover(
        &mut self,
        now: Slot,
        cause: Cause,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let mut redo = core::mem::take(&mut self.ow.redo);
        crate::order::sort_u32(&mut redo);
        self.plans.reserve_segments(2 * redo.len());
        let mut i = 0;
        let mut r = Ok(());
        while i < redo.len() && r.is_ok() {
            let j = self.job_of(redo[i]);
            let base = self.chunk_base.get(j as usize).copied().unwrap_or(0);
            let k = i + redo[i..]
                .iter()
                .take_while(|&&c| self.job_of(c) == j)
                .count();
            r = self.recover_job(j, base, &redo[i..k], now, cause, out);
            i = k;
        }
        redo.clear();
        self.ow.redo = redo;
        r
    }

    fn recover_job(
        &mut self,
        j: u32,
        base: u32,
        chunks: &[u32],
        now: Slot,
        cause: Cause,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let ok = self
            .scn
            .jobs
            .get(j as usize)
            .is_some_and(|job| self.can_place(job, false));
        let outcome = if ok {
            Outcome::Recovered
        } else {
            Outcome::Lost
        };
        for &c in chunks {
            if let Some(&p) = self.place.get(c as usize) {
                out(&interrupt(now, j, c - base, p, cause, outcome));
            }
        }
        if ok {
            return self.dispatch(j, Todo::Some(chunks, base), now, out);
        }
        for &c in chunks {
            if let Some(p) = self.place.get_mut(c as usize) {
                p.placed = true; // nothing left of it from `now` on
            }
            if let Some(pc) = self.plans.chunks.get_mut(c as usize) {
                pc.end = pc.end.min(now);
            }
        }
        if let Some(e) = self.ow.ended.get_mut(j as usize) {
            *e = Some(Ended::Lost);
        }
        self.drop_job(j, now, cause, Outcome::Lost, out)
    }
}

/// The record of chunk d of job j, placed at `p`, interrupted at `now`.
fn interrupt(
    now: Slot,
    j: u32,
    d: u32,
    p: super::Placement,
    cause: Cause,
    outcome: Outcome,
) -> PreemptDecision {
    PreemptDecision::Interrupt(InterruptRec {
        slot: now,
        job: j,
        chunk: d,
        server: p.server,
        worker: p.worker,
        cloud: p.cloud,
        cause,
        outcome,
    })
}
