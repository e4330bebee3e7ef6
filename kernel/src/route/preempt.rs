//! The preemptive Deadline-aware baseline ([`Policy::DeadlinePreemptive`]). The CSRP paper
//! (section 5.1) says its Deadline-aware comparison "prioritizes the job with the shortest
//! waiting time and preempts the current job", after Gao & Zhang's deadline-aware preemptive
//! scheduling in YARN. Our readings (`docs/route.md`):
//!
//! - **priority**: least slack first, as [`Policy::Deadline`] (deadline - duration, then
//!   release, then index); the queue is tried in that order at every event time and a job
//!   that fits starts now on the nearest free compute nodes (the baselines' placement);
//! - **preemption**: a queued job that does not fit stops running jobs of strictly lower
//!   priority, lowest priority first (ties: the larger index first), until enough lanes are
//!   free, then starts; it preempts nothing if even all of them would not make room;
//! - **what a preemption means**: kill and restart, as YARN preempts containers: the cut run's
//!   lanes and link bandwidth are given back at the event time, its totals (job count, N, a
//!   violation) are taken back, and the job queues again to run again in full later (the
//!   servers it used stay counted in |S_u|; the log's [`PreemptRec`] says what was cut);
//! - **bound**: the path and link arenas hold [`PREEMPT_RERUNS`] extra runs per worker on
//!   average; a preemption that could leave a queued job without room for its paths is not
//!   made, so the run never fails for it.
//!
//! Priority only ever moves work from a lower- to a higher-priority job, so within one event
//! the chain of preemptions is finite; across events the arena bound ends it.
use super::records::{PreemptRec, RouteDecision};
use super::{Policy, RouteError, RouteScheduler};

/// Extra runs per worker (on average over the scenario) the arenas of the preemptive
/// Deadline-aware baseline hold: past that, no more preemptions.
pub const PREEMPT_RERUNS: usize = 3;

impl RouteScheduler {
    /// Least slack first; a job that does not fit may preempt running jobs of more slack.
    pub(super) fn schedule_preemptive(
        &mut self,
        t: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        let mut i = 0;
        while i < self.queue.len() {
            let j = self.queue[i];
            if self.try_baseline(j, t, sink)? {
                self.queue.remove(i);
                continue;
            }
            if self.make_room(j, t, sink)? && self.try_baseline(j, t, sink)? {
                if let Some(p) = self.queue.iter().position(|&x| x == j) {
                    self.queue.remove(p);
                }
                // Lanes beyond its need may now be free: the queue from its head again.
                i = 0;
                continue;
            }
            i += 1;
        }
        Ok(())
    }

    /// Preempts running jobs of lower priority than `j` until `j`'s workers fit in the free
    /// lanes; `false` (nothing preempted) if even all of them would not make room or the
    /// arenas could not hold the reruns.
    fn make_room(
        &mut self,
        j: u32,
        t: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<bool, RouteError> {
        let need = self.jobs[j as usize].workers as u64;
        let key = self.slack_key(j);
        let victims: u64 = self
            .live
            .iter()
            .filter(|&&v| self.slack_key(v) > key && self.running_at(v, t))
            .map(|&v| self.jobs[v as usize].workers as u64)
            .sum();
        if self.lanes.free_at[0] + victims < need {
            return Ok(false);
        }
        let mut any = false;
        while self.lanes.free_at[0] < need {
            let Some(v) = self
                .live
                .iter()
                .copied()
                .filter(|&v| self.slack_key(v) > key && self.running_at(v, t))
                .max_by_key(|&v| self.slack_key(v))
            else {
                break;
            };
            if !self.rerun_fits(v) {
                break;
            }
            self.kill(v, j, t, sink)?;
            any = true;
        }
        Ok(any && self.lanes.free_at[0] >= need)
    }

    /// Job `v` (live) runs at `t`: started by `t`, ending after it.
    fn running_at(&self, v: u32, t: u32) -> bool {
        let p = &self.plans[v as usize];
        p.start <= t && p.start.saturating_add(self.jobs[v as usize].duration) > t
    }

    /// After preempting `v`, every job then unplaced (the queue and `v`) still finds room for
    /// its paths and links in the arenas.
    fn rerun_fits(&self, v: u32) -> bool {
        let unplaced: usize = self
            .queue
            .iter()
            .chain(core::iter::once(&v))
            .map(|&x| self.jobs[x as usize].workers as usize)
            .sum();
        let nodes = unplaced * super::PATH_NODES_MAX;
        self.paths.len() + unplaced <= self.paths.capacity()
            && self.path_nodes.len() + nodes <= self.path_nodes.capacity()
            && self.link_arena.len() + nodes <= self.link_arena.capacity()
    }

    /// Kill and restart: `v`'s lanes and bandwidth back at `t`, its totals taken back, queued
    /// again; logs a [`PreemptRec`].
    fn kill(
        &mut self,
        v: u32,
        by: u32,
        t: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        let vu = v as usize;
        let jb = self.jobs[vu];
        let plan = self.plans[vu];
        let end = plan.start.saturating_add(jb.duration);
        for w in 0..plan.workers {
            let node = *self
                .path(plan.first_path + w)
                .last()
                .ok_or(RouteError::Scratch)?;
            self.lanes.give_back(node as usize, t, end)?;
        }
        if self.applied[vu] {
            self.apply(vu, -1.0);
            self.applied[vu] = false;
        }
        let r = self.tables.ps_row[jb.ps as usize] as usize;
        self.group_running[r] -= jb.workers;
        if let Some(p) = self.live.iter().position(|&x| x == v) {
            self.live.remove(p);
        }
        self.totals = self.totals.without(plan.network_cost, !plan.deadline_met);
        self.decided[vu] = false;
        self.plans[vu] = super::JobPlan::EMPTY;
        self.enqueue(v);
        sink(&RouteDecision::Preempted(PreemptRec {
            job: v,
            by,
            start: plan.start,
            at: t,
        }));
        Ok(())
    }

    /// Nodes of path `k` of the paths arena (PS first, compute node last).
    fn path(&self, k: u32) -> &[u32] {
        match self.paths.get(k as usize) {
            Some(&(o, l)) => self
                .path_nodes
                .get(o as usize..(o + l) as usize)
                .unwrap_or(&[]),
            None => &[],
        }
    }
}

/// The policy this module serves (a compile-time link for readers).
const _: Policy = Policy::DeadlinePreemptive;
