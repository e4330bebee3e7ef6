//! The open world on OASiS scenarios ([`crate::baseline::world`], `docs/open-world.md`,
//! "Kind baseline"): submissions, cancels, failures and capacity changes of every OASiS
//! baseline policy.
//!
//! These baselines decide every slot afresh against the pools' capacity (Dorm and Tiresias
//! keep an allocation or a gang between slots, and re-check it against the pools), so an
//! event at T changes the capacity in force of slot T's decision and every later one. A job
//! that held the failed or cut server in slot T - 1 is *interrupted*: it keeps its remaining
//! chunks (the OASiS model's progress), loses its placement (Tiresias forgets its kept gang,
//! Dorm and RRH re-decide at T), and whatever it holds next is a restart
//! ([`crate::restart::Restarts::interrupt`]). Cost of an event: O(units of the last slot)
//! to find the holders; a server event re-sums the capacity totals (O(servers)) and, for RRH,
//! re-checks every job's "fits alone" (O(jobs x servers)).
use super::SlotRec;
use super::{
    fixed_workers, policy_code, ps_for, OasisBaseline, OasisBaselineDecision, OasisJobState,
};
use crate::api::Event;
use crate::baseline::world::{
    check_counts, check_vec, CancelRec, Change, InterruptRec, WorldRec, CAUSE_SERVER_DOWN,
};
use crate::baseline::{BaselineError, Policy};
use crate::model::oasis::OasisJob;
use crate::world::Status;
use crate::Slot;

impl OasisBaseline<'_> {
    /// Appends a job (it gets the next index) and returns its index; the host then feeds
    /// `JobArrived(index)` at its arrival slot. Decided exactly as the same job listed last
    /// in the scenario: the per-job tables (restart, Dorm, Tiresias' gangs) grow by one
    /// entry, the arrival order takes it at its (arrival, index) place (O(n)). The first
    /// submission clones the scenario once. A speed-up table has no model for a submitted
    /// job: it runs on the linear model (`docs/throughput.md`).
    pub fn submit(&mut self, job: OasisJob) -> Result<u32, BaselineError> {
        let r = self.scn.resources as usize;
        check_counts(
            self.jobs.len(),
            &[
                ("epochs", job.epochs),
                ("chunks", job.chunks),
                ("minibatches_per_chunk", job.minibatches_per_chunk),
            ],
            &[
                ("minibatch_time", job.minibatch_time),
                ("comm_time", job.comm_time),
                ("worker_bw", job.worker_bw),
                ("ps_bw", job.ps_bw),
            ],
        )?;
        if job.ps_bw <= 0.0 {
            return Err(BaselineError::InvalidJob { field: "ps_bw" });
        }
        let utility_ok = match &job.utility {
            crate::model::oasis::Utility::Sigmoid {
                priority,
                decay,
                target,
            } => [priority, decay, target].iter().all(|x| x.is_finite()),
            crate::model::oasis::Utility::Table(v) => {
                !v.is_empty() && v.iter().all(|x| x.is_finite())
            }
        };
        if !utility_ok {
            return Err(BaselineError::InvalidJob { field: "utility" });
        }
        check_vec("worker_demand", &job.worker_demand, r)?;
        check_vec("ps_demand", &job.ps_demand, r)?;
        let j = self.jobs.len();
        let (x, z) = (fixed_workers(&job), ps_for(&job, fixed_workers(&job)));
        let state = OasisJobState {
            remaining: job.workload(),
            fits_alone: self.workers.room_idle(&job.worker_demand, x) >= x
                && self.ps.room_idle(&job.ps_demand, z) >= z,
            ..OasisJobState::default()
        };
        if self.peer.tables() {
            let fit = self.workers.room_idle(&job.worker_demand, u32::MAX);
            let cap = if self.policy == Policy::Optimus {
                job.chunks.min(fit)
            } else {
                fixed_workers(&job)
            };
            let cap = cap.max(self.peer.requested(j).unwrap_or(0));
            let d = &job.worker_demand;
            let per = self.scn.worker_servers.iter().map(|c| c.fits(d)).max();
            self.peer.push_job(cap, per.unwrap_or(1));
        }
        // Room for the new job's units in the last slot's list (as its build would size it;
        // only a capacity raised above the scenario's can make a slot grow it).
        let want = self.last.capacity() + job.chunks as usize + ps_for(&job, job.chunks) as usize;
        self.last.reserve(want - self.last.len());
        let arrival = job.arrival;
        self.scn.to_mut().jobs.push(job);
        self.jobs.push(state);
        let jobs = &self.scn.jobs;
        let at = self
            .order
            .partition_point(|&k| jobs[k as usize].arrival <= arrival);
        self.order.insert(at, j as u32);
        self.idx.push(0);
        self.keys.push(arrival as f64);
        self.scratch.push(0);
        self.run_start.push(0);
        self.held_at.push(crate::index::NONE);
        self.restarts.push_job();
        self.dorm.push_job();
        self.world.push_job();
        Ok(j as u32)
    }

    /// Job `job`'s status as of the last event (`None`: no such job): cancelled; finished
    /// once its last chunk is done; rejected (RRH's admission); otherwise unfinished
    /// (waiting, running or paused; an interrupted job waits again, so none is lost).
    pub fn status(&self, job: u32) -> Option<Status> {
        let s = self.jobs.get(job as usize)?;
        Some(if self.world.cancelled(job as usize) {
            Status::Cancelled
        } else if s.remaining == 0 {
            Status::Finished
        } else if s.rejected {
            Status::Rejected
        } else {
            Status::Unfinished
        })
    }

    /// Open-world interruptions of job `job` so far.
    pub fn interruptions(&self, job: u32) -> u32 {
        self.world.interruptions(job as usize)
    }

    /// Job j held units in the slot before `now` (it is running at `now`).
    fn holding(&self, j: usize, now: Slot) -> bool {
        self.last_slot.is_some_and(|l| {
            self.held_at[j] == l && l.saturating_add(1) >= now && self.jobs[j].remaining > 0
        })
    }

    /// A cancel, failure, return or capacity change at `now`: checked completely, then applied.
    pub(super) fn open_world(
        &mut self,
        now: Slot,
        event: Event<u32>,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) -> Result<(), BaselineError> {
        let jobs = &self.jobs;
        self.world.check(&event, jobs.len(), |j| {
            jobs[j].remaining == 0 || jobs[j].rejected
        })?;
        let change = self.world.apply(&event);
        // Dorm and RRH re-decide at the next slot (an event like a completion).
        self.replan = true;
        if let Event::JobCancelled(j) = event {
            let running = self.holding(j as usize, now);
            let rec = CancelRec {
                slot: now,
                job: j,
                running,
                policy: policy_code(self.policy),
            };
            self.emit(now, j, WorldRec::Cancelled(rec), out);
            return Ok(());
        }
        let Change::Server(h, cause) = change else {
            return Ok(());
        };
        self.apply_capacity(h);
        self.interrupt_over(now, h, cause, out);
        Ok(())
    }

    /// Server `h`'s capacity in force reaches its pool, the dominant-share totals and RRH's
    /// "fits alone".
    fn apply_capacity(&mut self, h: usize) {
        let c = self.world.in_force(h);
        let nw = self.workers.len();
        if h < nw {
            self.workers.set_cap(h, c);
        } else {
            self.ps.set_cap(h - nw, c);
        }
        let r = self.scn.resources as usize;
        if let (Ok(mut t), Ok(tp)) = (self.workers.total(r), self.ps.total(r)) {
            for (i, x) in t.as_mut_slice().iter_mut().enumerate() {
                *x += tp.get(i);
            }
            self.total = t;
        }
        if self.policy == Policy::Rrh {
            for j in 0..self.jobs.len() {
                let job = &self.scn.jobs[j];
                let (x, z) = (fixed_workers(job), ps_for(job, fixed_workers(job)));
                self.jobs[j].fits_alone = self.workers.room_idle(&job.worker_demand, x) >= x
                    && self.ps.room_idle(&job.ps_demand, z) >= z;
            }
        }
    }

    /// Interrupts the jobs holding server `h` at `now`: all of them if it went down, else the
    /// most recently started first (ties: the higher index) until the rest fit its capacity.
    fn interrupt_over(
        &mut self,
        now: Slot,
        h: usize,
        cause: u8,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) {
        let cap = self.world.in_force(h);
        let nw = self.workers.len();
        let mut below: Option<(Slot, u32)> = None;
        loop {
            // What the jobs not yet interrupted use on h, and the next victim.
            let mut used = self.world.in_force(usize::MAX);
            let mut best: Option<(Slot, u32)> = None;
            for &(j, s) in &self.last {
                let ju = j as usize;
                if s as usize != h || !self.holding(ju, now) || self.world.cancelled(ju) {
                    continue;
                }
                let key = (self.run_start[ju], j);
                if below.is_some_and(|b| key >= b) {
                    continue;
                }
                let job = &self.scn.jobs[ju];
                let d = if h < nw {
                    &job.worker_demand
                } else {
                    &job.ps_demand
                };
                for (r, x) in used.as_mut_slice().iter_mut().enumerate() {
                    *x += d.get(r);
                }
                if best.is_none_or(|b| key > b) {
                    best = Some(key);
                }
            }
            let Some((start, v)) = best else { return };
            if cause != CAUSE_SERVER_DOWN && !crate::baseline::world::over(&used, &cap) {
                return;
            }
            below = Some((start, v));
            self.world.interrupt(v as usize);
            self.restarts.interrupt(v as usize);
            self.peer.forget(v as usize);
            let rec = InterruptRec {
                slot: now,
                job: v,
                server: h as u32,
                cause,
                start,
                policy: policy_code(self.policy),
            };
            self.emit(now, v, WorldRec::Interrupted(rec), out);
        }
    }

    /// Writes an open-world record for job `j`.
    fn emit(&self, now: Slot, j: u32, rec: WorldRec, out: &mut dyn FnMut(&OasisBaselineDecision)) {
        out(&OasisBaselineDecision::Slot(SlotRec {
            slot: now,
            job: j,
            workers: 0,
            ps: 0,
            chunks: 0,
            done: false,
            policy: policy_code(self.policy),
            world: Some(rec),
        }));
    }
}
