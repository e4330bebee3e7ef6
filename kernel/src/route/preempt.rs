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
//!   lanes and link bandwidth are given back at the event time and the job queues again to
//!   run again in full later. Nothing it cost is refunded: its network cost N stays in
//!   N-bar's sum (the job is counted once, by its final run, so N-bar is the network cost per
//!   job, cut runs included; a run cut at its own start sent nothing and adds nothing), the
//!   servers it used stay counted in |S_u|, and its deadline violation is carried by the
//!   rerun, which starts no earlier (a job is counted in J_v once, by its final run); the
//!   log's [`PreemptRec`] says what was cut;
//! - **no wasted kills**: the victims are counted lane by lane on the compute nodes the job
//!   can reach before any is cut, and only the shortest prefix that makes room is cut, so
//!   every preemption is followed by the job's placement;
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
    /// lanes it can reach; `false` (nothing preempted) if even all of them would not make
    /// room or the arenas could not hold the reruns. The victims are chosen and checked
    /// before any is cut ([`Self::victims_needed`]), so a kill is never wasted: after the
    /// cuts `j` is placed.
    fn make_room(
        &mut self,
        j: u32,
        t: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<bool, RouteError> {
        let Some(n) = self.victims_needed(j, t) else {
            return Ok(false);
        };
        let key = self.slack_key(j);
        for _ in 0..n {
            let Some(v) = self.next_victim(key, t, None) else {
                return Err(RouteError::Scratch);
            };
            self.kill(v, j, t, sink)?;
        }
        Ok(n > 0)
    }

    /// The running job of lower priority than `key` to cut next (the lowest priority first),
    /// among those of still higher priority than `below` (the victims already counted).
    fn next_victim(
        &self,
        key: (u64, u64, u32),
        t: u32,
        below: Option<(u64, u64, u32)>,
    ) -> Option<u32> {
        self.live
            .iter()
            .copied()
            .filter(|&v| {
                let k = self.slack_key(v);
                k > key && below.is_none_or(|b| k < b) && self.running_at(v, t)
            })
            .max_by_key(|&v| self.slack_key(v))
    }

    /// How many victims (in [`Self::next_victim`] order) `j` needs before its workers fit on
    /// the compute nodes it can reach (the placement [`Self::try_baseline`] makes): counted
    /// lane by lane without cutting anything. `None` if no prefix of the victims makes room,
    /// or if a prefix that does would leave the arenas without room for the reruns.
    fn victims_needed(&self, j: u32, t: u32) -> Option<usize> {
        if self.ps_down(j) {
            return None;
        }
        let jb = self.jobs[j as usize];
        let need = jb.workers as u64;
        let r = self.tables.ps_row[jb.ps as usize] as usize;
        let row = &self.tables.hop_order[r * self.tables.computes
            ..r * self.tables.computes + self.tables.hop_order_len[r] as usize];
        let mut have: u64 = row
            .iter()
            .map(|&v| self.lanes.free_lanes(v, t) as u64)
            .sum();
        let key = self.slack_key(j);
        let (mut n, mut rerun_workers, mut below) = (0usize, 0usize, None);
        while have < need {
            let v = self.next_victim(key, t, below)?;
            let plan = self.plans[v as usize];
            for w in 0..plan.workers {
                let node = *self.path(plan.first_path + w).last()?;
                have += row.contains(&node) as u64;
            }
            rerun_workers += self.jobs[v as usize].workers as usize;
            if !self.reruns_fit(rerun_workers) {
                return None;
            }
            below = Some(self.slack_key(v));
            n += 1;
        }
        Some(n)
    }

    /// Job `v` (live) runs at `t`: started by `t`, ending after it.
    fn running_at(&self, v: u32, t: u32) -> bool {
        let p = &self.plans[v as usize];
        p.start <= t && p.start.saturating_add(self.jobs[v as usize].duration) > t
    }

    /// After preempting victims with `rerun_workers` workers in all, every job then unplaced
    /// (the queue and the victims) still finds room for its paths and links in the arenas.
    fn reruns_fit(&self, rerun_workers: usize) -> bool {
        let unplaced: usize = self
            .queue
            .iter()
            .map(|&x| self.jobs[x as usize].workers as usize)
            .sum::<usize>()
            + rerun_workers;
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
        // The cut run's traffic was sent: its network cost stays in N-bar's sum (unless it is
        // cut at its own start, before sending anything). Its violation moves to the rerun,
        // which starts no earlier and so misses the deadline whenever the cut run would have.
        let spent = if t > plan.start {
            0.0
        } else {
            plan.network_cost
        };
        self.totals = self.totals.without(spent, !plan.deadline_met);
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
    pub(super) fn path(&self, k: u32) -> &[u32] {
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
