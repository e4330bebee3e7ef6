//! The open world of kind route (`docs/open-world.md`, "Kind route"): cancels, compute and
//! PS nodes going down and up, compute-slot capacity changes, and each job's status.
//!
//! **Servers** are the topology's compute nodes and PS nodes (the ids of the kind's
//! occupancy), named by node index; a switch is not a server ([`OpenWorldError::UnknownServer`]):
//! links and switches do not fail in this phase (the paper's model has no link capacity
//! constraint, only a cost through eq. 5, and a failed link would re-route live paths).
//! A compute node's capacity is its worker slots (R = 1, whole slots: the entry is rounded
//! down); a PS node has no slots in the paper's model, so its capacity is recorded and
//! changes nothing.
//!
//! **Interruption** (cancel, down node, capacity cut): the job's lanes and link bandwidth are
//! given back at the event time T (a reservation's lanes from its start, which is safe: a lane
//! a run reserved may still carry an earlier run until then); its totals are taken back as a
//! preemption's are ([`super::preempt`]); then, by its cause:
//! - a **compute node** lost: CSRP re-plans the rest (Delta minus the slots run) as an arrival
//!   at T with the job's own deadline (the PS holds the model's parameters, eqs. 6-10, so the
//!   workers resume from them); the baselines restart the whole job (YARN kills containers);
//! - its **PS node** down: a job that has run (started before T) is *lost* (its parameters
//!   were on the PS); a reservation not started queues again in full;
//! - a **cancel**: the job is cancelled.
//!
//! **Cost** of an event: O(live jobs x workers) to find the jobs a server holds, plus
//! O(lanes x 8) per lane update (`free_at`); no horizon-wide rebuild.
#[cfg(doc)]
use super::lanes::DISABLED;
use super::records::{
    InterruptRec, RouteDecision, ServerRec, OUTCOME_CANCELLED, OUTCOME_LOST, OUTCOME_RECOVERED,
};
use super::{Policy, RouteError, RouteScheduler, NONE};
use crate::api::Event;
use crate::model::route::NodeKind;
use crate::resources::ResourceVec;
use crate::world::{check_capacity, OpenWorldError, Status};
use alloc::vec::Vec;

/// The open-world state of a [`RouteScheduler`].
#[derive(Clone, Debug)]
pub(super) struct World {
    /// Per node: the compute slots in force when up (what `ServerUp` restores).
    pub(super) cap: Vec<u32>,
    /// Per node: down.
    pub(super) down: Vec<bool>,
    /// Per job: cancelled or lost (`None`: neither).
    pub(super) fate: Vec<Option<Status>>,
    /// An open-world event was applied: a job left queued at the end is `Unfinished`, not an
    /// error.
    pub(super) open: bool,
    /// The queue must be tried again at the current slot (capacity came back, a job queued).
    pub(super) pending: bool,
}

impl World {
    /// Every node up with its scenario slots (as lanes: at most `COMPUTE_SLOTS_MAX`).
    pub(super) fn new(lane_counts: impl Iterator<Item = u32>, jobs: usize) -> Self {
        let cap: Vec<u32> = lane_counts.collect();
        World {
            down: alloc::vec![false; cap.len()],
            cap,
            fate: alloc::vec![None; jobs],
            open: false,
            pending: false,
        }
    }
}

/// Why a job is interrupted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cause {
    Cancel,
    Worker,
    Ps,
}

impl RouteScheduler {
    /// Dispatches an open-world event; every check runs before anything changes.
    pub(super) fn open_event(
        &mut self,
        now: u32,
        event: Event<u32>,
        out: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        if now < self.now {
            return Err(RouteError::EventTime { job: NONE, now });
        }
        match event {
            Event::JobCancelled(j) => self.cancel(now, j, out),
            Event::ServerDown(h) => self.server_down(now, h, out),
            Event::ServerUp(h) => self.server_up(now, h, out),
            Event::Capacity(h, c) => self.capacity(now, h, &c, out),
            Event::JobArrived(_) | Event::SlotAdvanced | Event::JobFinished(_) => Ok(()),
        }
    }

    /// The job's status as of the last event (`None` for an unknown index).
    pub fn status(&self, job: u32) -> Option<Status> {
        let j = job as usize;
        let jb = self.jobs.get(j)?;
        if let Some(s) = self.ow.fate.get(j).copied().flatten() {
            return Some(s);
        }
        let done = self.decided[j] && self.plans[j].start.saturating_add(jb.duration) <= self.now;
        Some(if done {
            Status::Finished
        } else {
            Status::Unfinished
        })
    }

    /// A compute or PS node index, else [`OpenWorldError::UnknownServer`].
    fn server(&self, h: u32) -> Result<NodeKind, OpenWorldError> {
        match h < self.g.nodes() as u32 {
            true if self.g.kind(h) != NodeKind::Switch => Ok(self.g.kind(h)),
            _ => Err(OpenWorldError::UnknownServer { server: h }),
        }
    }

    fn cancel(
        &mut self,
        t: u32,
        j: u32,
        out: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        let ju = j as usize;
        let Some(jb) = self.jobs.get(ju) else {
            return Err(OpenWorldError::UnknownJob { job: j }.into());
        };
        let finished = self.decided[ju] && self.plans[ju].start.saturating_add(jb.duration) <= t;
        if self.ow.fate[ju].is_some() || finished {
            return Err(OpenWorldError::JobEnded { job: j }.into());
        }
        self.begin(t);
        if self.decided[ju] {
            return self.interrupt(j, t, NONE, Cause::Cancel, out);
        }
        // Queued, or not arrived yet (then it never arrives: `release` skips it).
        if let Some(p) = self.queue.iter().position(|&x| x == j) {
            self.queue.remove(p);
        }
        self.ow.fate[ju] = Some(Status::Cancelled);
        out(&RouteDecision::Interrupted(InterruptRec {
            job: j,
            at: t,
            server: NONE,
            start: NONE,
            outcome: OUTCOME_CANCELLED,
            remaining: 0,
        }));
        Ok(())
    }

    fn server_down(
        &mut self,
        t: u32,
        h: u32,
        out: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        let kind = self.server(h)?;
        if self.ow.down[h as usize] {
            return Err(OpenWorldError::ServerDown { server: h }.into());
        }
        self.begin(t);
        self.ow.down[h as usize] = true;
        let ps = kind == NodeKind::Ps;
        let mut n = 0u32;
        while let Some(j) = self.victim(h, t, ps) {
            let cause = if ps { Cause::Ps } else { Cause::Worker };
            self.interrupt(j, t, h, cause, out)?;
            n += 1;
        }
        if !ps {
            self.lanes.reset_node(h as usize, t, 0, core::iter::empty());
        }
        self.server_rec(h, t, n, out);
        Ok(())
    }

    fn server_up(
        &mut self,
        t: u32,
        h: u32,
        out: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        let kind = self.server(h)?;
        if !self.ow.down[h as usize] {
            return Err(OpenWorldError::ServerUp { server: h }.into());
        }
        self.begin(t);
        self.ow.down[h as usize] = false;
        if kind == NodeKind::Compute {
            self.lanes.grow_node(h as usize, t, self.ow.cap[h as usize]);
        }
        self.ow.pending = true;
        self.server_rec(h, t, 0, out);
        Ok(())
    }

    fn capacity(
        &mut self,
        t: u32,
        h: u32,
        c: &ResourceVec,
        out: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        let kind = self.server(h)?;
        check_capacity(h, c, 1)?;
        let slots = libm::floor(c.as_slice()[0]);
        if slots > crate::limits::COMPUTE_SLOTS_MAX as f64 {
            return Err(RouteError::Capacity(crate::CapacityError {
                limit: crate::error::Limit::ComputeSlots,
                max: crate::limits::COMPUTE_SLOTS_MAX as u64,
                got: slots as u64,
                job: None,
            }));
        }
        let cap = slots as u32;
        self.begin(t);
        self.ow.cap[h as usize] = cap;
        let mut n = 0u32;
        if kind == NodeKind::Compute && !self.ow.down[h as usize] {
            let hu = h as usize;
            if cap >= self.lanes.active(hu) {
                self.lanes.grow_node(hu, t, cap);
                self.ow.pending = true;
            } else {
                // Most recently started first (ties: the higher index) until the runs left on
                // h fit, one slot each.
                while self.held_on(h, t) > cap {
                    let Some(j) = self.victim(h, t, false) else {
                        return Err(RouteError::Scratch);
                    };
                    self.interrupt(j, t, h, Cause::Worker, out)?;
                    n += 1;
                }
                self.reset_held(h, t, cap);
            }
        }
        self.server_rec(h, t, n, out);
        Ok(())
    }

    /// An accepted event at `t`: the clock moves and the run is open from now on.
    fn begin(&mut self, t: u32) {
        self.now = t;
        self.ow.open = true;
    }

    fn server_rec(&self, h: u32, t: u32, interrupted: u32, out: &mut dyn FnMut(&RouteDecision)) {
        let hu = h as usize;
        let down = self.ow.down[hu];
        let compute = self.g.kind(h) == NodeKind::Compute;
        out(&RouteDecision::Server(ServerRec {
            server: h,
            at: t,
            slots: if down || !compute { 0 } else { self.ow.cap[hu] },
            capacity: self.ow.cap[hu],
            down,
            interrupted,
        }));
    }

    /// Node `h`'s lanes after a capacity cut: one held until its end per worker still on it.
    fn reset_held(&mut self, h: u32, t: u32, cap: u32) {
        let RouteScheduler {
            lanes,
            live,
            plans,
            jobs,
            paths,
            path_nodes,
            ..
        } = self;
        let (paths, path_nodes): (&[(u32, u32)], &[u32]) = (paths, path_nodes);
        let ends = live.iter().flat_map(|&j| {
            let (p, d) = (plans[j as usize], jobs[j as usize].duration);
            let end = p.start.saturating_add(d);
            (0..p.workers)
                .filter(move |&w| end > t && last_node(paths, path_nodes, p.first_path + w) == h)
                .map(move |_| end)
        });
        lanes.reset_node(h as usize, t, cap, ends);
    }

    /// End of job `j`'s current run.
    fn end_of(&self, j: u32) -> u32 {
        self.plans[j as usize]
            .start
            .saturating_add(self.jobs[j as usize].duration)
    }

    /// Workers of placed job `j` on node `h`.
    fn workers_on(&self, j: u32, h: u32) -> u32 {
        let p = self.plans[j as usize];
        (0..p.workers)
            .filter(|&w| last_node(&self.paths, &self.path_nodes, p.first_path + w) == h)
            .count() as u32
    }

    /// Workers of runs not ended by `t` on node `h`.
    fn held_on(&self, h: u32, t: u32) -> u32 {
        self.live
            .iter()
            .filter(|&&j| self.end_of(j) > t)
            .map(|&j| self.workers_on(j, h))
            .sum()
    }

    /// The job holding node `h` at `t` (a worker there, or `h` as its PS when `ps`) that
    /// started most recently (ties: the higher index).
    fn victim(&self, h: u32, t: u32, ps: bool) -> Option<u32> {
        self.live
            .iter()
            .copied()
            .filter(|&j| {
                self.end_of(j) > t
                    && if ps {
                        self.jobs[j as usize].ps == h
                    } else {
                        self.workers_on(j, h) > 0
                    }
            })
            .max_by_key(|&j| (self.plans[j as usize].start, j))
    }

    /// Cuts live job `j` at `t` (lanes, bandwidth, totals back) and recovers, loses or
    /// cancels it by `cause`; logs an [`InterruptRec`].
    fn interrupt(
        &mut self,
        j: u32,
        t: u32,
        server: u32,
        cause: Cause,
        out: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        let ju = j as usize;
        let (jb, plan) = (self.jobs[ju], self.plans[ju]);
        let end = plan.start.saturating_add(jb.duration);
        let from = t.max(plan.start);
        for w in 0..plan.workers {
            let v = last_node(&self.paths, &self.path_nodes, plan.first_path + w);
            if v != NONE {
                self.lanes.give_back_if_held(v as usize, from, end);
            }
        }
        if self.applied[ju] {
            self.apply(ju, -1.0);
            self.applied[ju] = false;
        }
        let r = self.tables.ps_row[jb.ps as usize] as usize;
        self.group_running[r] -= jb.workers;
        if let Some(p) = self.live.iter().position(|&x| x == j) {
            self.live.remove(p);
        }
        // As a preemption: traffic sent stays in N-bar's sum; J and J_v lose the cut run.
        let spent = if t > plan.start {
            0.0
        } else {
            plan.network_cost
        };
        self.totals = self.totals.without(spent, !plan.deadline_met);
        self.decided[ju] = false;
        self.plans[ju] = super::JobPlan::EMPTY;
        let ran = t.saturating_sub(plan.start);
        let (outcome, remaining) = match cause {
            Cause::Cancel => (OUTCOME_CANCELLED, 0),
            Cause::Ps if ran > 0 => (OUTCOME_LOST, 0),
            Cause::Worker if self.policy == Policy::Csrp => (OUTCOME_RECOVERED, end - from),
            Cause::Ps | Cause::Worker => (OUTCOME_RECOVERED, jb.duration),
        };
        match outcome {
            OUTCOME_RECOVERED => {
                self.jobs[ju].duration = remaining;
                self.grow_arenas(jb.workers as usize)?;
                self.enqueue(j);
                self.ow.pending = true;
            }
            OUTCOME_LOST => self.ow.fate[ju] = Some(Status::Lost),
            _ => self.ow.fate[ju] = Some(Status::Cancelled),
        }
        self.ow.pending = true;
        out(&RouteDecision::Interrupted(InterruptRec {
            job: j,
            at: t,
            server,
            start: plan.start,
            outcome,
            remaining,
        }));
        Ok(())
    }

    /// Room in the path and link arenas for one more run of `w` workers (an exact growth, so
    /// the preemptive baseline's bound stays the documented one plus the re-runs).
    pub(super) fn grow_arenas(&mut self, w: usize) -> Result<(), RouteError> {
        let nodes = w * super::PATH_NODES_MAX;
        grow_exact(&mut self.paths, w)?;
        grow_exact(&mut self.path_nodes, nodes)?;
        grow_exact(&mut self.link_arena, nodes)
    }

    /// Job `j`'s PS node is down: the placement paths ask this first (a down compute node
    /// needs no check: its lanes are [`DISABLED`], so no placement finds them free).
    pub(super) fn ps_down(&self, j: u32) -> bool {
        self.ow.open && self.ow.down[self.jobs[j as usize].ps as usize]
    }
}

/// Capacity + `extra` exactly (as `Vec::with_capacity` at build).
fn grow_exact<T>(v: &mut Vec<T>, extra: usize) -> Result<(), RouteError> {
    let want = v.capacity().checked_add(extra).ok_or(RouteError::Scratch)?;
    v.try_reserve_exact(want - v.len())
        .map_err(|_| RouteError::Scratch)
}

/// The compute node ending path `k` ([`NONE`] if there is no such path).
fn last_node(paths: &[(u32, u32)], nodes: &[u32], k: u32) -> u32 {
    paths
        .get(k as usize)
        .and_then(|&(o, l)| nodes.get((o + l).checked_sub(1)? as usize))
        .copied()
        .unwrap_or(NONE)
}
