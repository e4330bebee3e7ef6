//! AntMan (Xiao et al. 2020) on online scenarios, as the Zhou et al. comparison uses it
//! (section 7, scheme (iii)): resource-guarantee jobs are scheduled first with sufficient GPU
//! resources, opportunistic jobs use the free resources best-effort, and a resource-guarantee
//! job that queues too long is executed as an opportunistic one; worker / PS types are the
//! job's ideal configuration, as for the other baselines.
//!
//! Zhou et al. leave the classes, the queuing limit and preemption open (they explain AntMan's
//! long completion times by "frequent preemption"); our readings (`docs/online.md`):
//! - **classes**: at its arrival a job is resource-guarantee if its weight w_j is at least the
//!   mean weight of every job arrived so far (this slot's arrivals included), opportunistic
//!   otherwise (an online rule: only the past is known);
//! - **guarantee jobs**: in (arrival, index) order, each a gang of min(D_j,
//!   [`FIXED_WORKERS`]) workers with its PSs; one that does not fit in the free resources
//!   preempts running opportunistic jobs (below) and starts at once; the first that does not
//!   fit even so blocks the ones behind it (they queue, as in a guaranteed-quota queue);
//! - **queuing limit**: a guarantee job still waiting more than [`ANTMAN_QUEUE_SLOTS`] slots
//!   after its arrival, or that cannot finish by T with its gang, becomes opportunistic;
//! - **opportunistic jobs**: afterwards, in (arrival, index) order, each takes as many
//!   workers as fit on what is left (up to the same gang size, at least one), if it then
//!   finishes by T;
//! - **preemption** (AntMan, OSDI'20: opportunistic jobs are evicted when guarantee jobs need
//!   the GPUs): the victims are the opportunistic jobs running at t (started before t), the
//!   latest start first (the least work lost; ties: the larger index first). Their units are
//!   counted back one run at a time until the guarantee job's gang and PSs fit (placed as a
//!   start places them, and finishing by T); only then are exactly those runs cut, so a cut
//!   is never wasted. Nothing is cut if even all of them would not make room. A cut is kill
//!   and restart: the run's units are free from t on, its work is lost (the online kind
//!   keeps no checkpoints), a [`PreemptRec`] is logged, and the job waits again as an
//!   opportunistic job (not before the next slot); the job's result is its last, complete
//!   run, so the one-run-per-job result format holds.
use super::{
    placed_duration, ps_count, BaselineError, OnlineBaseline, OnlineBaselineDecision, PreemptRec,
};
use crate::baseline::oasis::policy_code;
use crate::baseline::{ANTMAN_QUEUE_SLOTS, FIXED_WORKERS};
use crate::Slot;

impl OnlineBaseline<'_> {
    /// One AntMan slot: classify this slot's arrivals, then plan the guarantee jobs (starting
    /// at once those that preempt), then the opportunistic ones.
    pub(super) fn antman(
        &mut self,
        t: Slot,
        out: &mut dyn FnMut(&OnlineBaselineDecision),
    ) -> Result<(), BaselineError> {
        self.classify(t);
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            if !self.waiting(j, t) || self.jobs[j].opportunistic {
                continue;
            }
            let n = self.scn.jobs[j].chunks.min(FIXED_WORKERS);
            if !self.in_time(j, n, t) {
                self.jobs[j].opportunistic = true;
                continue;
            }
            if !self.plan_gang(j, n) && !self.preempt_for(j, n, t, out)? {
                break; // the guarantee queue waits for its head
            }
        }
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            let cut_now = self.jobs[j].cut_at == Some(t);
            if !self.waiting(j, t) || !self.jobs[j].opportunistic || cut_now {
                continue;
            }
            let n = self.scn.jobs[j].chunks.min(FIXED_WORKERS);
            while self.jobs[j].plan < n && self.plan_one(j) {}
            let p = self.jobs[j].plan;
            if p > 0 && !self.in_time(j, p, t) {
                // Too slow with what is free now: give the units back, try again later.
                self.jobs[j].plan = 0;
                self.jobs[j].plan_ps = 0;
                self.rebuild_plan_pool();
            }
        }
        Ok(())
    }

    /// Guarantee job j (gang of n) does not fit: counts back the runs of the opportunistic
    /// victims ([`Self::next_victim`] order) until its gang and PSs place and finish by T,
    /// then cuts exactly those runs and starts j now. `false`, with nothing cut, if no prefix
    /// of the victims makes room.
    fn preempt_for(
        &mut self,
        j: usize,
        n: u32,
        t: Slot,
        out: &mut dyn FnMut(&OnlineBaselineDecision),
    ) -> Result<bool, BaselineError> {
        let (mut victims, mut below) = (0u32, None);
        let len = loop {
            let Some(v) = self.next_victim(t, below) else {
                self.rebuild_plan_pool(); // the counted-back runs were never cut
                return Ok(false);
            };
            self.count_back(v);
            victims += 1;
            below = Some((self.jobs[v].start.unwrap_or(0), v));
            if self.place_counted(j, n) {
                let len = placed_duration(&self.scn, j, &self.jobs[j], n, &self.count);
                if t as u64 + len as u64 <= self.scn.horizon() as u64 {
                    break len;
                }
                self.give_back_counted(j);
            }
        };
        for _ in 0..victims {
            let v = self.next_victim(t, None).ok_or(BaselineError::Ledger(
                crate::error::LedgerError::ReleaseUnderflow {
                    slot: t,
                    server: 0,
                    resource: 0,
                },
            ))?;
            self.cut(v, j, t, out)?;
        }
        self.jobs[j].plan = n;
        self.jobs[j].plan_ps = ps_count(&self.scn, &self.jobs[j], n);
        self.start_counted(j, t, len, out)?;
        // Started, not planned: the commit of this slot must not start it again.
        self.jobs[j].plan = 0;
        self.jobs[j].plan_ps = 0;
        Ok(true)
    }

    /// The next opportunistic job to cut at t: running at t, started before t, the latest
    /// `(start, index)` below `below` (the victims already counted).
    fn next_victim(&self, t: Slot, below: Option<(Slot, usize)>) -> Option<usize> {
        let mut best: Option<(Slot, usize)> = None;
        for (v, s) in self.jobs.iter().enumerate() {
            let Some(start) = s.start else { continue };
            let key = (start, v);
            let running = start < t && t < start.saturating_add(s.duration);
            if s.opportunistic
                && running
                && below.is_none_or(|b| key < b)
                && best.is_none_or(|b| key > b)
            {
                best = Some(key);
            }
        }
        best.map(|(_, v)| v)
    }

    /// Gives the units of job v's running run back to this slot's planning pool.
    fn count_back(&mut self, v: usize) {
        let (w, z) = self.demands(&self.jobs[v]);
        let off = self.run_off[v] as usize;
        for k in off..off + self.run_len[v] as usize {
            let [h, a, b] = self.runs[k];
            for _ in 0..a {
                self.pool.unplace(h, &w);
            }
            for _ in 0..b {
                self.pool.unplace(h, &z);
            }
        }
    }

    /// Places j's n workers and their PSs on the pool as a start places them, per server in
    /// `count`; on failure gives every unit back.
    fn place_counted(&mut self, j: usize, n: u32) -> bool {
        let (w, z) = self.demands(&self.jobs[j]);
        let ps = ps_count(&self.scn, &self.jobs[j], n);
        self.count.iter_mut().for_each(|c| *c = [0, 0]);
        for k in 0..n + ps {
            let d = if k < n { &w } else { &z };
            match self.pool.place(d) {
                Some(h) => self.count[h as usize][(k >= n) as usize] += 1,
                None => {
                    self.give_back_counted(j);
                    return false;
                }
            }
        }
        true
    }

    /// Gives the units in `count` (job j's types) back to the pool.
    fn give_back_counted(&mut self, j: usize) {
        let (w, z) = self.demands(&self.jobs[j]);
        self.give_back(&w, &z);
        self.count.iter_mut().for_each(|c| *c = [0, 0]);
    }

    /// Kill and restart: job v's run ends at t on the ledger, its work is lost, it waits again.
    fn cut(
        &mut self,
        v: usize,
        by: usize,
        t: Slot,
        out: &mut dyn FnMut(&OnlineBaselineDecision),
    ) -> Result<(), BaselineError> {
        let s = self.jobs[v];
        let start = s.start.unwrap_or(t);
        let span = (
            start,
            start.saturating_add(s.duration).min(self.scn.horizon()),
        );
        let (w, z) = self.demands(&s);
        let off = self.run_off[v] as usize;
        for k in off..off + self.run_len[v] as usize {
            let [h, a, b] = self.runs[k];
            if a > 0 {
                self.ledger.cut(t, h, span, &w, a)?;
            }
            if b > 0 {
                self.ledger.cut(t, h, span, &z, b)?;
            }
        }
        self.run_len[v] = 0;
        let st = &mut self.jobs[v];
        st.start = None;
        st.duration = 0;
        st.workers = 0;
        st.ps = 0;
        st.preemptions += 1;
        st.cut_at = Some(t);
        out(&OnlineBaselineDecision::Preempted(PreemptRec {
            slot: t,
            job: v as u32,
            by: by as u32,
            start,
            policy: policy_code(self.policy),
            world: None,
        }));
        Ok(())
    }

    /// Classes of the jobs arriving at `t` (weight against the running mean of all arrived
    /// jobs' weights), and the guarantee jobs that have queued past the limit.
    fn classify(&mut self, t: Slot) {
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            let job = &self.scn.jobs[j];
            // A job cancelled before its arrival never arrives.
            if job.arrival == t && !self.world.cancelled(j) {
                self.weight_sum += job.weight;
                self.weight_count += 1;
            }
        }
        let mean = self.weight_sum / f64::from(self.weight_count.max(1));
        for j in 0..self.jobs.len() {
            let job = &self.scn.jobs[j];
            if job.arrival == t {
                self.jobs[j].opportunistic = job.weight < mean;
            } else if self.waiting(j, t) && t - job.arrival > ANTMAN_QUEUE_SLOTS {
                self.jobs[j].opportunistic = true;
            }
        }
    }
}
