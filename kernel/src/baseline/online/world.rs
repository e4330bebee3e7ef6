//! The open world on online scenarios ([`crate::baseline::world`], `docs/open-world.md`,
//! "Kind baseline"): submissions, cancels, failures and capacity changes of every online
//! baseline policy.
//!
//! A run here is one uninterrupted reservation [t_j, t_j + L) on the usage ledger (the online
//! result format: one start, duration and placement per job). An open-world event at T that
//! takes a running job's resources *cuts* its run at T exactly as AntMan's preemption does:
//! its units are free from T on, the job is back in the queue, and it is started again when
//! its policy decides so (the online kind keeps no checkpoints, so the new run does the whole
//! work, which is the restart cost of this kind). Cost of an event: O(live units) for the scan
//! of the jobs holding the server, plus one ledger cut per unit of each interrupted job.
use super::{config, ps_count, OnlineBaseline, OnlineBaselineDecision, PreemptRec};
use crate::api::Event;
use crate::baseline::oasis::policy_code;
use crate::baseline::world::{
    check_counts, over, CancelRec, Change, InterruptRec, WorldRec, CAUSE_SERVER_DOWN,
};
use crate::baseline::{BaselineError, Policy, FIXED_WORKERS};
use crate::index::NONE;
use crate::model::online::{Architecture, OnlineJob};
use crate::world::Status;
use crate::Slot;

impl OnlineBaseline<'_> {
    /// Appends a job (it gets the next index) and returns its index; the host then feeds
    /// `JobArrived(index)` at its arrival slot. Decided exactly as the same job listed last
    /// in the scenario (the per-job tables grow by one entry; the arrival order takes it at
    /// its (arrival, index) place, O(n)). The first submission clones the scenario once.
    pub fn submit(&mut self, job: OnlineJob) -> Result<u32, BaselineError> {
        let scn = &self.scn;
        let ps_len = match scn.architecture {
            Architecture::Ps => scn.ps_types.len(),
            Architecture::Ring => job.update_time.len().max(1),
        };
        let mut numbers = [("weight", job.weight), ("gradient_size", job.gradient_size)].to_vec();
        numbers.extend(job.minibatch_time.iter().map(|x| ("minibatch_time", *x)));
        numbers.extend(job.update_time.iter().map(|x| ("update_time", *x)));
        check_counts(
            self.jobs.len(),
            &[
                ("epochs", job.epochs),
                ("chunks", job.chunks),
                ("minibatches_per_chunk", job.minibatches_per_chunk),
            ],
            &numbers,
        )?;
        if job.minibatch_time.len() != scn.worker_types.len() {
            return Err(BaselineError::InvalidJob {
                field: "minibatch_time",
            });
        }
        if job.update_time.len() != ps_len {
            return Err(BaselineError::InvalidJob {
                field: "update_time",
            });
        }
        let j = self.jobs.len();
        let st = config(&self.scn, &job);
        let room = if self.policy == Policy::AntMan {
            let gang = job.chunks.min(FIXED_WORKERS);
            (gang.saturating_add(ps_count(&self.scn, &st, gang)) as usize).min(self.pool.len())
        } else {
            0
        };
        let arrival = job.arrival;
        self.scn.to_mut().jobs.push(job);
        self.jobs.push(st);
        let jobs = &self.scn.jobs;
        let at = self
            .order
            .partition_point(|&k| jobs[k as usize].arrival <= arrival);
        self.order.insert(at, j as u32);
        let at = self.arrivals.partition_point(|&(a, _)| a <= arrival);
        self.arrivals.insert(at, (arrival, j as u32));
        self.idx.push(0);
        self.keys.push(arrival as f64);
        self.scratch.push(0);
        let last = self.run_off.last().copied().unwrap_or(0);
        self.run_off
            .push(last.saturating_add(u32::try_from(room).unwrap_or(u32::MAX)));
        self.runs.resize(self.runs.len() + room, [0; 3]);
        self.run_len.push(0);
        self.world.push_job();
        Ok(j as u32)
    }

    /// Job `job`'s status as of the last event (`None`: no such job): cancelled; finished
    /// once its run is over (every run ends by T, so all started runs after `finish`);
    /// otherwise unfinished (waiting, running, or never started). The online baselines
    /// reject nothing and lose nothing (an interrupted job waits again).
    pub fn status(&self, job: u32) -> Option<Status> {
        let s = self.jobs.get(job as usize)?;
        Some(if self.world.cancelled(job as usize) {
            Status::Cancelled
        } else if self.run_over(job as usize, self.world.clock)
            || self.world.ended && s.start.is_some()
        {
            Status::Finished
        } else {
            Status::Unfinished
        })
    }

    /// Open-world interruptions of job `job` so far.
    pub fn interruptions(&self, job: u32) -> u32 {
        self.world.interruptions(job as usize)
    }

    /// Job j's run has ended by slot `t`.
    fn run_over(&self, j: usize, t: Slot) -> bool {
        let s = self.jobs[j];
        s.start
            .is_some_and(|st| st as u64 + s.duration as u64 <= t as u64)
    }

    /// Job j's run is running in slot `t`.
    fn running(&self, j: usize, t: Slot) -> bool {
        let s = self.jobs[j];
        s.start
            .is_some_and(|st| st <= t && (t as u64) < st as u64 + s.duration as u64)
    }

    /// Keeps a started run's units on one server (pruning stale entries when full, so the
    /// list grows only with the live units).
    pub(super) fn keep_live(&mut self, e: [u32; 5]) {
        if self.live.len() == self.live.capacity() {
            // Keep the runs started this slot (their state is set after their units) and the
            // runs still running; drop ended, cut and interrupted ones.
            let (jobs, now) = (&self.jobs, self.cur);
            self.live.retain(|x| {
                x[4] == now
                    || jobs.get(x[0] as usize).is_some_and(|s| {
                        s.start == Some(x[4]) && (now as u64) < x[4] as u64 + s.duration as u64
                    })
            });
        }
        self.live.push(e);
    }

    /// A cancel, failure, return or capacity change at `now`: checked completely, then applied.
    pub(super) fn open_world(
        &mut self,
        now: Slot,
        event: Event<u32>,
        out: &mut dyn FnMut(&OnlineBaselineDecision),
    ) -> Result<(), BaselineError> {
        self.world
            .check(&event, self.jobs.len(), |j| self.run_over(j, now))?;
        let change = self.world.apply(&event);
        if let Event::JobCancelled(j) = event {
            let running = self.running(j as usize, now);
            let rec = CancelRec {
                slot: now,
                job: j,
                running,
                policy: policy_code(self.policy),
            };
            return self.end_run(j as usize, now, WorldRec::Cancelled(rec), out);
        }
        let Change::Server(h, cause) = change else {
            return Ok(());
        };
        let cap = self.world.in_force(h);
        self.ledger.set_capacity(h as u32, &cap);
        // Dominant shares are of the capacity in force (C^r).
        for (r, x) in self.total.as_mut_slice().iter_mut().enumerate() {
            *x = (0..self.pool.len())
                .map(|k| self.world.in_force(k).get(r))
                .sum();
        }
        if now >= self.scn.horizon() {
            return Ok(());
        }
        loop {
            let free = self.ledger.free(now, h as u32)?;
            let used = {
                let mut u = cap;
                for (r, x) in u.as_mut_slice().iter_mut().enumerate() {
                    *x -= free.get(r);
                }
                u
            };
            let all = cause == CAUSE_SERVER_DOWN;
            if !all && !over(&used, &cap) {
                return Ok(());
            }
            // The most recently started holder first (ties: the higher index).
            let mut best: Option<(Slot, u32)> = None;
            for e in &self.live {
                let key = (e[4], e[0]);
                if e[1] as usize == h
                    && self.jobs[e[0] as usize].start == Some(e[4])
                    && self.running(e[0] as usize, now)
                    && best.is_none_or(|b| key > b)
                {
                    best = Some(key);
                }
            }
            let Some((start, v)) = best else {
                return Ok(());
            };
            self.world.interrupt(v as usize);
            let rec = InterruptRec {
                slot: now,
                job: v,
                server: h as u32,
                cause,
                start,
                policy: policy_code(self.policy),
            };
            self.end_run(v as usize, now, WorldRec::Interrupted(rec), out)?;
        }
    }

    /// Ends job j's run (if running at `now`) at `now` on every server it holds; the job
    /// waits again (or, cancelled, never runs again); writes `rec`.
    fn end_run(
        &mut self,
        j: usize,
        now: Slot,
        rec: WorldRec,
        out: &mut dyn FnMut(&OnlineBaselineDecision),
    ) -> Result<(), BaselineError> {
        let s = self.jobs[j];
        let start = s.start.unwrap_or(NONE);
        if self.running(j, now) {
            let span = (
                start,
                start.saturating_add(s.duration).min(self.scn.horizon()),
            );
            let (w, z) = self.demands(&s);
            let mut k = 0;
            while k < self.live.len() {
                let e = self.live[k];
                if e[0] as usize == j && e[4] == start {
                    if e[2] > 0 {
                        self.ledger.cut(now, e[1], span, &w, e[2])?;
                    }
                    if e[3] > 0 {
                        self.ledger.cut(now, e[1], span, &z, e[3])?;
                    }
                    self.live.swap_remove(k);
                } else {
                    k += 1;
                }
            }
            self.run_len[j] = 0;
            let st = &mut self.jobs[j];
            st.start = None;
            st.duration = 0;
            st.workers = 0;
            st.ps = 0;
        }
        out(&OnlineBaselineDecision::Preempted(PreemptRec {
            slot: now,
            job: j as u32,
            by: NONE,
            start,
            policy: policy_code(self.policy),
            world: Some(rec),
        }));
        Ok(())
    }
}
