//! AntMan (Xiao et al. 2020) on online scenarios, as the Zhou et al. comparison uses it
//! (section 7, scheme (iii)): resource-guarantee jobs are scheduled first with sufficient GPU
//! resources, opportunistic jobs use the free resources best-effort, and a resource-guarantee
//! job that queues too long is executed as an opportunistic one; worker / PS types are the
//! job's ideal configuration, as for the other baselines.
//!
//! Zhou et al. leave the classes, the queuing limit and preemption open; our readings
//! (`docs/online.md`):
//! - **classes**: at its arrival a job is resource-guarantee if its weight w_j is at least the
//!   mean weight of every job arrived so far (this slot's arrivals included), opportunistic
//!   otherwise (an online rule: only the past is known);
//! - **guarantee jobs**: in (arrival, index) order, each a gang of min(D_j,
//!   [`FIXED_WORKERS`]) workers with its PSs; the first that does not fit blocks the ones
//!   behind it (they queue, as in a guaranteed-quota queue);
//! - **queuing limit**: a guarantee job still waiting more than [`ANTMAN_QUEUE_SLOTS`] slots
//!   after its arrival, or that cannot finish by T with its gang, becomes opportunistic;
//! - **opportunistic jobs**: afterwards, in (arrival, index) order, each takes as many
//!   workers as fit on what is left (up to the same gang size, at least one), if it then
//!   finishes by T;
//! - **no preemption**: the online result format holds one uninterrupted run per job, so a
//!   started opportunistic job keeps its resources until it ends (AntMan would shrink or
//!   evict it); guarantee jobs come first only among the jobs that start in the same slot.
use super::OnlineBaseline;
use crate::baseline::{ANTMAN_QUEUE_SLOTS, FIXED_WORKERS};
use crate::Slot;

impl OnlineBaseline<'_> {
    /// One AntMan slot: classify this slot's arrivals, then plan the guarantee jobs, then the
    /// opportunistic ones.
    pub(super) fn antman(&mut self, t: Slot) {
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
            if !self.plan_gang(j, n) {
                break; // the guarantee queue waits for its head
            }
        }
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            if !self.waiting(j, t) || !self.jobs[j].opportunistic {
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
    }

    /// Classes of the jobs arriving at `t` (weight against the running mean of all arrived
    /// jobs' weights), and the guarantee jobs that have queued past the limit.
    fn classify(&mut self, t: Slot) {
        for k in 0..self.order.len() {
            let job = &self.scn.jobs[self.order[k] as usize];
            if job.arrival == t {
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
