//! The open world of OASiS (`docs/open-world.md`, "Kind oasis"): submissions, cancels,
//! servers failing and returning, capacity changes.
//!
//! OASiS reserves a job's whole schedule at its admission (Alg. 1), and the prices p_h^r(t),
//! q_k^r(t) of eq. (22) read the usage g, v of every slot. So every event acts on the market's
//! usage from its slot T on, and the prices follow by construction:
//!
//! - a cancel releases the job's cells at slots >= T (a negative booking of its demands);
//! - capacity taken away (a failure, a cut) is *withheld*: booked as usage of the server from
//!   T on, so that the free room is the capacity in force and eq. (22) prices the server by the
//!   share of its build capacity c_h^r that is taken (a down server prices at U and fits
//!   nothing, as a zero-capacity server at the build does). This keeps the market's capacities,
//!   slot trees and census as built: withheld capacity is usage like any other.
//! - an interrupted job's cells at slots >= T are released and its remaining chunks
//!   (D_i minus the chunks of its reservations before T) are re-planned by the same DP
//!   (Alg. 2) as a continuation arriving at T, with the job's original f_i (completion time
//!   counted from the original a_i), at the prices of T; kept iff its payoff is > 0.
use super::fast::FastDp;
use super::market::JobParams;
use super::scheduler::commit_owed;
use super::{OasisError, OasisJobDecision, OasisScheduler, Reason};
use crate::api::Event;
use crate::error::Limit;
use crate::limits::{self, JOBS_MAX, OASIS_DP_CELLS_MAX, RESOURCES_MAX};
use crate::model::oasis::{OasisJob, OasisScenario, Utility};
use crate::resources::ResourceVec;
use crate::world::{check_capacity, OpenWorldError, Status};
use alloc::vec;
use alloc::vec::Vec;

/// Where a job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fate {
    /// not arrived yet
    Waiting,
    /// holds a schedule (the arrival's, or a recovery's) ending at `World::end`
    Admitted,
    /// refused at its arrival
    Rejected,
    /// cancelled by the host
    Cancelled,
    /// interrupted and not recovered
    Lost,
}

/// Where the price bounds come from (what a submission is checked against).
#[derive(Clone, Debug)]
pub(super) enum BoundsFrom {
    /// The scenario's `prices`: any submission fits.
    Given,
    /// Eqs. (23)-(26) over the initial jobs, kept here (a submission is checked by deriving
    /// them again with it added).
    Derived(alloc::boxed::Box<OasisScenario>),
    /// No `prices` and no initial job: nothing can be derived, submissions are refused.
    Unknown,
}

/// The open-world state beside the market (module docs).
#[derive(Debug)]
pub(super) struct World {
    pub(super) fate: Vec<Fate>,
    /// t_hat of the schedule a job holds (meaningful when admitted).
    pub(super) end: Vec<u32>,
    /// The slot its schedule was admitted at (its arrival, or the recovery's event).
    pub(super) since: Vec<u32>,
    /// Per kernel server and resource, the capacity set by the events (the build's at first;
    /// in force unless the server is down, then the one it returns with).
    pub(super) set: Vec<ResourceVec>,
    /// Per kernel server: down?
    pub(super) down: Vec<bool>,
    /// The jobs admitted so far (arrival order) that may still hold a cell: pruned of the
    /// ended, lost and cancelled ones by each event that looks for holders, so that an event
    /// reads the live schedules, never every job (`holders`). Room for every job is kept
    /// (each is pushed once, at its admission), so a decision never allocates here.
    pub(super) live: Vec<u32>,
    /// `finish` was called: statuses are final.
    pub(super) finished: bool,
    pub(super) bounds: BoundsFrom,
}

/// A clone keeps the room of `live` for every job (`Vec::clone` would keep only its length),
/// so a clone of a scheduler decides without allocating too (benchmarks time clones).
impl Clone for World {
    fn clone(&self) -> Self {
        let mut live = Vec::with_capacity(self.fate.len().max(self.live.len()));
        live.extend_from_slice(&self.live);
        World {
            fate: self.fate.clone(),
            end: self.end.clone(),
            since: self.since.clone(),
            set: self.set.clone(),
            down: self.down.clone(),
            live,
            finished: self.finished,
            bounds: self.bounds.clone(),
        }
    }
}

impl World {
    /// `jobs` jobs waiting, every server up at its capacity in `caps` (kernel server order).
    pub(super) fn new(jobs: usize, caps: Vec<ResourceVec>, bounds: BoundsFrom) -> Self {
        World {
            fate: vec![Fate::Waiting; jobs],
            end: vec![0; jobs],
            since: vec![0; jobs],
            down: vec![false; caps.len()],
            live: Vec::with_capacity(jobs),
            set: caps,
            finished: false,
            bounds,
        }
    }

    /// Notes the decision of an arrival.
    pub(super) fn decided(&mut self, d: &OasisJobDecision, now: u32) {
        let i = d.job as usize;
        if let (Some(f), Some(e), Some(s)) = (
            self.fate.get_mut(i),
            self.end.get_mut(i),
            self.since.get_mut(i),
        ) {
            *f = if d.admitted {
                debug_assert!(self.live.len() < self.live.capacity(), "room kept per job");
                self.live.push(d.job);
                Fate::Admitted
            } else {
                Fate::Rejected
            };
            *e = d.completion_slot.unwrap_or(0);
            *s = now;
        }
    }
}

/// f_i seen from a continuation arriving `by` slots after a_i: f'(d) = f_i(d + by) (a table
/// drops its first `by` values, a sigmoid's target moves by `by`, equal up to its rounding).
fn shifted(u: &Utility, by: u32) -> Utility {
    match u {
        Utility::Sigmoid {
            priority,
            decay,
            target,
        } => Utility::Sigmoid {
            priority: *priority,
            decay: *decay,
            target: target - by as f64,
        },
        Utility::Table(v) => {
            let from = (by as usize).min(v.len().saturating_sub(1));
            Utility::Table(v.get(from..).unwrap_or(&[]).to_vec())
        }
    }
}

impl OasisScheduler {
    /// Appends `job` (a submission, `docs/open-world.md`) and returns its index; the host then
    /// feeds `JobArrived(index)` at its arrival slot, and it is decided exactly as the same job
    /// listed in the scenario. Checked like the build: R entries per demand, [`JOBS_MAX`], the
    /// DP limit, an arrival not before the last event; with derived bounds, the job's own
    /// terms of eqs. (23)-(26) must leave them as they are ([`OasisError::OutsideBounds`]), and
    /// without `prices` or an initial job nothing can be submitted
    /// ([`OasisError::NoPriceBounds`]). A refused job changes nothing.
    ///
    /// Cost: O(|job|), plus O(initial jobs) with derived bounds (eqs. 23-26 derived again),
    /// plus the DP scratch regrown when this job needs a larger one (never in a decision).
    pub fn submit(&mut self, job: OasisJob) -> Result<u32, OasisError> {
        let idx = self.jobs.len() as u32;
        limits::check(Limit::Jobs, self.jobs.len() + 1, JOBS_MAX)?;
        let r = self.market.resources() as usize;
        if job.worker_demand.len() != r || job.ps_demand.len() != r {
            return Err(OasisError::Shape);
        }
        if job.arrival < self.now {
            return Err(OasisError::EventTime {
                job: idx,
                now: job.arrival,
            });
        }
        self.check_bounds(idx, &job)?;
        let p = JobParams::of(&job);
        let size = FastDp::size_of(&self.market, &p, &job.utility);
        if let Some(s) = size {
            for cells in [s.cells, s.pairs_w, s.pairs_p] {
                limits::check(Limit::OasisDpCells, cells, OASIS_DP_CELLS_MAX)
                    .map_err(|e| e.for_job(idx))?;
            }
            self.grow_dp(s);
        }
        self.jobs.push(job);
        self.params.push(p);
        self.decided.push(false);
        self.ledger.push_job();
        self.ow.fate.push(Fate::Waiting);
        self.ow.end.push(0);
        self.ow.since.push(0);
        // room for every job's admission (decisions never allocate)
        let room = self.ow.fate.len().saturating_sub(self.ow.live.len());
        self.ow.live.reserve(room);
        Ok(idx)
    }

    /// With derived bounds: the bounds of the initial jobs and `job` must be those in force.
    fn check_bounds(&mut self, idx: u32, job: &OasisJob) -> Result<(), OasisError> {
        let base = match &mut self.ow.bounds {
            BoundsFrom::Given => return Ok(()),
            BoundsFrom::Unknown => return Err(OasisError::NoPriceBounds),
            BoundsFrom::Derived(base) => base,
        };
        base.jobs.push(job.clone());
        let with = crate::price::oasis_bounds(base);
        base.jobs.pop();
        let b = *self.market.bounds();
        let bound = match with {
            Err(_) => Some("L1"),
            Ok(w) if w.l_worker.to_bits() != b.l_worker.to_bits() => Some("L1"),
            Ok(w) if w.l_ps.to_bits() != b.l_ps.to_bits() => Some("L2"),
            Ok(w) if w.u_worker != b.u_worker => Some("U1"),
            Ok(w) if w.u_ps != b.u_ps => Some("U2"),
            Ok(_) => None,
        };
        match bound {
            Some(bound) => Err(OasisError::OutsideBounds { job: idx, bound }),
            None => Ok(()),
        }
    }

    /// The job's status as of the last event (`None` for an unknown index); final after
    /// [`crate::api::Scheduler::finish`]: an admitted job finishes at its schedule's t_hat < T,
    /// or, under a restart cost ([`OasisScheduler::with_restart`]), is unfinished when its plan
    /// executed under the cost leaves chunks ([`OasisScheduler::executed`]).
    pub fn status(&self, job: u32) -> Option<Status> {
        let i = job as usize;
        Some(match *self.ow.fate.get(i)? {
            Fate::Waiting => Status::Unfinished,
            Fate::Rejected => Status::Rejected,
            Fate::Cancelled => Status::Cancelled,
            Fate::Lost => Status::Lost,
            // Under a restart cost a plan can end with chunks left (`super::execute`): once
            // the run is over, such a job is unfinished.
            Fate::Admitted
                if self.ow.finished
                    && self
                        .executed(job)
                        .is_some_and(|e| e.completion_slot.is_none()) =>
            {
                Status::Unfinished
            }
            Fate::Admitted => {
                if self.ow.finished || self.ow.end.get(i).is_some_and(|&e| e < self.now) {
                    Status::Finished
                } else {
                    Status::Unfinished
                }
            }
        })
    }

    /// Is kernel server `h` down?
    pub fn server_is_down(&self, h: u32) -> Option<bool> {
        self.ow.down.get(h as usize).copied()
    }

    /// The capacity in force on kernel server `h` (0 while it is down), resource `r`.
    pub fn capacity_in_force(&self, h: u32, r: usize) -> f64 {
        match (self.ow.down.get(h as usize), self.ow.set.get(h as usize)) {
            (Some(false), Some(c)) if r < c.len() => c.get(r),
            _ => 0.0,
        }
    }

    /// Regrows the DP scratch to fit `s` (submissions and continuations; never a decision).
    pub(super) fn grow_dp(&mut self, s: super::fast::DpSize) {
        let want = self.size.max(s);
        let fits = want.cells == self.size.cells
            && want.row == self.size.row
            && want.points == self.size.points
            && want.pairs_w == self.size.pairs_w
            && want.pairs_p == self.size.pairs_p
            && want.rows == self.size.rows
            && want.list_w == self.size.list_w
            && want.list_p == self.size.list_p;
        if !fits {
            self.size = want;
            self.dp = FastDp::new(want);
        }
    }

    /// The open-world events (checked completely before anything changes).
    pub(super) fn world_event<F: FnMut(&super::OasisDecision<'_>) + ?Sized>(
        &mut self,
        now: u32,
        event: Event<u32>,
        out: &mut F,
    ) -> Result<(), OasisError> {
        if now < self.now {
            return Err(OasisError::EventTime { job: u32::MAX, now });
        }
        match event {
            Event::JobCancelled(j) => self.cancel(now, j, out)?,
            Event::ServerDown(h) => {
                self.known_server(h, Some(false))?;
                self.server_down(now, h, out);
            }
            Event::ServerUp(h) => {
                self.known_server(h, Some(true))?;
                self.server_up(now, h);
            }
            Event::Capacity(h, c) => {
                self.known_server(h, None)?;
                self.check_new_capacity(h, &c)?;
                self.set_capacity(now, h, &c, out);
            }
            _ => return Ok(()),
        }
        // the spans this event's cuts and re-plans left behind, once they are most of it
        self.ledger.compact();
        self.now = now;
        Ok(())
    }

    /// `h` is a server, and down iff `down` says (when given).
    fn known_server(&self, h: u32, down: Option<bool>) -> Result<(), OpenWorldError> {
        match (self.ow.down.get(h as usize), down) {
            (None, _) => Err(OpenWorldError::UnknownServer { server: h }),
            (Some(true), Some(false)) => Err(OpenWorldError::ServerDown { server: h }),
            (Some(false), Some(true)) => Err(OpenWorldError::ServerUp { server: h }),
            _ => Ok(()),
        }
    }

    /// One finite entry >= 0 per resource, none above the build's capacity.
    fn check_new_capacity(&self, h: u32, c: &ResourceVec) -> Result<(), OasisError> {
        let nr = self.market.resources() as usize;
        check_capacity(h, c, nr)?;
        let (pool, s) = self.market.pool_of(h);
        match (0..nr).find(|&r| c.get(r) > pool.capacity(s, r)) {
            Some(r) => Err(OasisError::CapacityAboveBuild {
                server: h,
                resource: r as u8,
            }),
            None => Ok(()),
        }
    }

    /// `JobCancelled(j)` at T: a waiting job never arrives; an admitted one not done by T
    /// releases its cells from T on. Cost: O(its reservations) bookings.
    fn cancel<F: FnMut(&super::OasisDecision<'_>) + ?Sized>(
        &mut self,
        now: u32,
        j: u32,
        out: &mut F,
    ) -> Result<(), OasisError> {
        let i = j as usize;
        let fate = *self
            .ow
            .fate
            .get(i)
            .ok_or(OpenWorldError::UnknownJob { job: j })?;
        let running = fate == Fate::Admitted && self.ow.end.get(i).is_some_and(|&e| e >= now);
        match fate {
            Fate::Waiting => {
                if let Some(d) = self.decided.get_mut(i) {
                    *d = true; // it never arrives
                }
            }
            Fate::Admitted if running => {
                self.release(now, j);
                self.market.merge();
            }
            _ => return Err(OpenWorldError::JobEnded { job: j }.into()),
        }
        if let Some(f) = self.ow.fate.get_mut(i) {
            *f = Fate::Cancelled;
        }
        let d = world_decision(j, now, Reason::Cancelled);
        out(&super::OasisDecision::Decision(&d));
        Ok(())
    }

    /// Releases job `j`'s cells at slots >= `t` (booked; the caller merges) and drops them
    /// from its ledger.
    fn release(&mut self, t: u32, j: u32) {
        let Some(p) = self.params.get(j as usize).copied() else {
            return;
        };
        let neg = |d: &ResourceVec| {
            let mut n = *d;
            n.as_mut_slice().iter_mut().for_each(|x| *x = -*x);
            n
        };
        let (wn, pn) = (neg(&p.worker_demand), neg(&p.ps_demand));
        let h = self.market.workers.servers();
        let n = self.ledger.holds(j).len();
        self.market.reserve_cells(n);
        for i in 0..n {
            let Some(&e) = self.ledger.holds(j).get(i) else {
                break;
            };
            if e.is_cell() && e.slot >= t {
                let d = if e.server < h { &wn } else { &pn };
                self.market.shift_raw(e.slot, e.server, d, e.count);
            }
        }
        self.ledger.truncate(j, t);
    }

    /// Books `delta` on server `h` at every slot from `t` on (capacity withheld, or given
    /// back when negative). Cost: O(T - t) bookings on one server.
    fn withhold(&mut self, t: u32, h: u32, delta: &ResourceVec) {
        if delta.as_slice().iter().all(|&x| x == 0.0) {
            return;
        }
        let slots = self.market.slots();
        self.market.reserve_cells(slots.saturating_sub(t) as usize);
        for x in t..slots {
            self.market.shift_raw(x, h, delta, 1);
        }
    }

    /// The admitted jobs holding server `h` at slots >= `t`, by index. Reads the live list
    /// only, pruned first of the jobs that can hold nothing at `t` or later (events come in
    /// slot order, so a job ended before `t` never holds again; lost and cancelled are final).
    /// Cost: O(live jobs + their reservations from `t` on).
    fn holders(&mut self, t: u32, h: u32) -> Vec<u32> {
        let (fate, end) = (&self.ow.fate, &self.ow.end);
        self.ow.live.retain(|&j| {
            fate.get(j as usize) == Some(&Fate::Admitted)
                && end.get(j as usize).is_some_and(|&e| e >= t)
        });
        let mut out: Vec<u32> = self
            .ow
            .live
            .iter()
            .copied()
            .filter(|&j| self.ledger.holds_from(j, t, Some(h)))
            .collect();
        crate::order::sort_u32(&mut out);
        debug_assert!(out.windows(2).all(|w| w[0] < w[1]), "a job is live once");
        out
    }

    /// `ServerDown(h)` at T: every job holding h from T on is interrupted (released from T
    /// on, every server), the capacity of h withheld from T on, then each re-planned by job
    /// index. Cost: O(jobs + their reservations) + O(T - t) bookings + one DP per interrupted job.
    fn server_down<F: FnMut(&super::OasisDecision<'_>) + ?Sized>(
        &mut self,
        now: u32,
        h: u32,
        out: &mut F,
    ) {
        let victims = self.holders(now, h);
        for &j in &victims {
            self.release(now, j);
        }
        if let Some(c) = self.ow.set.get(h as usize).copied() {
            self.withhold(now, h, &c);
        }
        if let Some(d) = self.ow.down.get_mut(h as usize) {
            *d = true;
        }
        self.market.merge();
        self.recover_all(now, h, &victims, out);
    }

    /// `ServerUp(h)` at T: the capacity set (the last before or while it was down) is given
    /// back from T on. Cost: O(T - t) bookings.
    fn server_up(&mut self, now: u32, h: u32) {
        if let Some(mut c) = self.ow.set.get(h as usize).copied() {
            c.as_mut_slice().iter_mut().for_each(|x| *x = -*x);
            self.withhold(now, h, &c);
        }
        if let Some(d) = self.ow.down.get_mut(h as usize) {
            *d = false;
        }
        self.market.merge();
    }

    /// `Capacity(h, c)` at T: on a down server, the capacity it returns with; else the
    /// capacity in force from T on: while the usage of h at some slot >= T exceeds it, the
    /// most recently admitted job holding h there (ties: higher index) is interrupted; then
    /// the difference is withheld (or given back) and the interrupted jobs re-planned by index.
    fn set_capacity<F: FnMut(&super::OasisDecision<'_>) + ?Sized>(
        &mut self,
        now: u32,
        h: u32,
        c: &ResourceVec,
        out: &mut F,
    ) {
        let Some(old) = self
            .ow
            .set
            .get_mut(h as usize)
            .map(|s| core::mem::replace(s, *c))
        else {
            return;
        };
        if self.ow.down.get(h as usize) == Some(&true) {
            return;
        }
        let mut delta = old;
        for (d, &n) in delta.as_mut_slice().iter_mut().zip(c.as_slice()) {
            *d -= n;
        }
        let mut order = self.holders(now, h);
        let since = |j: u32| (self.ow.since.get(j as usize).copied(), j);
        crate::order::sort_indices_by(&mut order, &|a, b| since(a).cmp(&since(b)));
        let mut victims = Vec::new();
        while !self.fits_from(now, h, &delta) {
            let Some(j) = order.pop() else { break };
            self.release(now, j);
            self.market.merge();
            victims.push(j);
        }
        crate::order::sort_u32(&mut victims);
        self.withhold(now, h, &delta);
        self.market.merge();
        self.recover_all(now, h, &victims, out);
    }

    /// Does the usage of server `h` at every slot >= `t`, plus `delta`, stay within its build
    /// capacity (float dust of 1e-9 relative allowed)?
    fn fits_from(&self, t: u32, h: u32, delta: &ResourceVec) -> bool {
        let nr = self.market.resources() as usize;
        let (pool, s) = self.market.pool_of(h);
        let mut peak = [0.0f64; RESOURCES_MAX];
        for (r, p) in peak.iter_mut().enumerate().take(nr) {
            *p = pool.usage(t, s, r);
        }
        let times = pool.times(s);
        for j in times.partition_point(|&x| x <= t)..times.len() {
            let v = pool.values(s, j);
            for (p, &g) in peak.iter_mut().zip(v).take(nr) {
                *p = p.max(g);
            }
        }
        (0..nr).all(|r| {
            let cap = pool.capacity(s, r);
            peak[r] + delta.get(r) <= cap + 1e-9 * cap.max(1.0)
        })
    }

    /// Re-plans each interrupted job (by index) and reports it.
    fn recover_all<F: FnMut(&super::OasisDecision<'_>) + ?Sized>(
        &mut self,
        now: u32,
        server: u32,
        victims: &[u32],
        out: &mut F,
    ) {
        for &j in victims {
            self.recover(now, server, j, out);
        }
    }

    /// The continuation of interrupted job `j` at T: its remaining chunks from T on, priced
    /// at T's prices by Alg. 2 against f_i measured from a_i; recovered iff the payoff is > 0.
    fn recover<F: FnMut(&super::OasisDecision<'_>) + ?Sized>(
        &mut self,
        now: u32,
        server: u32,
        j: u32,
        out: &mut F,
    ) {
        let i = j as usize;
        let (Some(job), Some(p)) = (self.jobs.get(i), self.params.get(i)) else {
            return;
        };
        let mut p = *p;
        let f = shifted(&job.utility, now.saturating_sub(p.arrival));
        p.workload = p.workload.saturating_sub(self.ledger.done_before(j, now));
        p.arrival = now;
        let d = self.continuation(now, j, &p, &f);
        let mut rec = match d {
            Some(d) if d.admitted => d,
            _ => world_decision(j, now, Reason::Lost { server }),
        };
        rec.arrival = now;
        if rec.admitted {
            rec.reason = Reason::Recovered { server };
            commit_owed(&mut self.market, &p, &self.dp.schedule());
            let h = self.market.workers.servers();
            self.ledger.admit(j, &self.dp.schedule(), h, true);
            if let (Some(e), Some(s)) = (self.ow.end.get_mut(i), self.ow.since.get_mut(i)) {
                *e = rec.completion_slot.unwrap_or(now);
                *s = now;
            }
            super::scheduler::emit(&rec, &self.dp.schedule(), out);
        } else {
            if let Some(fate) = self.ow.fate.get_mut(i) {
                *fate = Fate::Lost;
            }
            out(&super::OasisDecision::Decision(&rec));
        }
    }

    /// Alg. 2 for the continuation `p` (utility `f`) of job `j` at `now`; `None` when no DP is
    /// possible (no feasible schedule, or a DP above the limit).
    fn continuation(
        &mut self,
        now: u32,
        j: u32,
        p: &JobParams,
        f: &Utility,
    ) -> Option<OasisJobDecision> {
        if p.workload == 0 {
            return None;
        }
        self.market.settle();
        let s = FastDp::size_of(&self.market, p, f)?;
        if [s.cells, s.pairs_w, s.pairs_p]
            .iter()
            .any(|&c| c > OASIS_DP_CELLS_MAX)
        {
            return None;
        }
        self.grow_dp(s);
        self.market.reserve(s.pairs_w, s.pairs_p);
        self.market
            .reserve_window(p, now, u32::try_from(s.rows).unwrap_or(u32::MAX));
        self.ledger
            .reserve(s.rows + s.pairs_w + s.pairs_p + self.ledger.holds(j).len());
        self.market.advance(now);
        self.dp.decide(&self.market, j, p, f).ok()
    }
}

/// A decision record of an open-world outcome with no schedule.
fn world_decision(job: u32, now: u32, reason: Reason) -> OasisJobDecision {
    OasisJobDecision {
        job,
        arrival: now,
        admitted: false,
        reason,
        completion_slot: None,
        utility: 0.0,
        cost: 0.0,
        payoff: 0.0,
    }
}
