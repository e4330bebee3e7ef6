//! A_online in the open world (issue 46, `docs/open-world.md`, "Kind online"): submitted jobs,
//! cancels, servers going down and up, capacity changes.
//!
//! A_online's only state is the usage beta_h^r(t) its admitted schedules reserved and the
//! list of arrived jobs still waiting for a round; eq. (11)'s prices are a function of beta and
//! C_h^r. So every rule is a change of beta, of C or of the waiting list, and the next
//! A_maxweight decision (fast or literal: both read the same [`super::Ctx`]) prices it:
//! - cancel at T: the job's reservations are cut at T (beta falls from T on);
//! - server down / capacity at T: C_h is the capacity in force (0 while down); a job holding h
//!   at a slot >= T is *interrupted*: its reservations are cut at T on every server, and the
//!   rest of its work joins the waiting list as a job arriving at T (Algorithm 1: it is in the
//!   batch of the first round after T), priced at that round's prices against its original
//!   weight w_j. Re-admitted by a later round it is recovered; never re-admitted it is lost.
use super::records::{InterruptRec, OnlineDecision, CAUSE_CANCEL, CAUSE_CAPACITY, CAUSE_DOWN};
use super::scheduler::{check_tables_with, dims, tables, tables_of, OnlineScheduler};
use super::usage::Resv;
use super::OnlineError;
use crate::api::Event;
use crate::error::Limit;
use crate::limits::{check, JOBS_MAX, USAGE_RESERVATIONS_MAX};
use crate::model::online::{Architecture, OnlineJob, OnlineScenario};
use crate::resources::ResourceVec;
use crate::world::{check_capacity, OpenWorldError, Status};
use crate::Slot;
use alloc::vec;
use alloc::vec::Vec;

/// What the open world adds per job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct JobWorld {
    /// First reservation of its current schedule (reservations of a job are consecutive).
    pub first: u32,
    /// One past its last reservation.
    pub last: u32,
    /// Its current schedule's slots [start, end).
    pub start: u32,
    /// Completion slot of its current schedule.
    pub end: u32,
    /// A_maxweight decided about it at least once.
    pub tried: bool,
    /// Cancelled.
    pub cancelled: bool,
    /// Interrupted, and not admitted again since.
    pub interrupted: bool,
}

/// The open-world bookkeeping of an [`OnlineScheduler`].
pub(super) struct World {
    /// Per job.
    pub jobs: Vec<JobWorld>,
    /// The capacity in force per server while it is up (what `server_up` restores).
    pub base: Vec<ResourceVec>,
    /// Server h is down.
    pub down: Vec<bool>,
    /// max D_j (the fast search's scratch is sized for it).
    pub dmax: u32,
    /// The ring options the fast scratch holds per job.
    pub ring_cap: usize,
    /// Reservations the usage store must hold (sum over jobs of min(H, D_j + 1)).
    pub resv_max: usize,
    /// An open-world event changed something (snapshots refuse then).
    pub changed: bool,
    /// The state was restored from a snapshot: job ownership of reservations is unknown.
    pub blind: bool,
    /// `finish` was called: statuses are final.
    pub finished: bool,
}

impl World {
    /// The bookkeeping of a scheduler just built on `scn`.
    pub fn new(scn: &OnlineScenario, dmax: u32, ring_cap: usize, resv_max: usize) -> Self {
        World {
            jobs: vec![JobWorld::default(); scn.jobs.len()],
            base: scn.servers.clone(),
            down: vec![false; scn.servers.len()],
            dmax,
            ring_cap,
            resv_max,
            changed: false,
            blind: false,
            finished: false,
        }
    }

    /// Job j was cancelled.
    pub fn cancelled(&self, j: u32) -> bool {
        self.jobs.get(j as usize).is_some_and(|x| x.cancelled)
    }

    /// Job j was admitted with reservations [first, last) over slots [start, end). O(1).
    pub fn admitted(&mut self, j: usize, first: usize, last: usize, start: u32, end: u32) {
        if let Some(x) = self.jobs.get_mut(j) {
            x.first = first as u32;
            x.last = last as u32;
            x.start = start;
            x.end = end;
            x.interrupted = false;
        }
    }
}

/// Reservations of one job per server: at most min(H, D_j + 1).
fn place_max(job: &OnlineJob, h: usize) -> usize {
    (job.chunks as usize + 1).min(h)
}

impl OnlineScheduler<'_> {
    /// Appends a job (it gets the next index, returned) as if the scenario had listed it; the
    /// host then feeds `JobArrived(index)` at its arrival slot, and A_online decides it exactly
    /// as the listed job ("submission is arrival"). Validates it like the scenario build
    /// (typed errors, `JOBS_MAX`, the reservation limit) before changing anything. Cost: O(M)
    /// plus amortised appends; the fast search's scratch is rebuilt only when D_j exceeds every
    /// earlier job's (O(H M + scratch)). Never on a decision path.
    pub fn submit(&mut self, job: OnlineJob) -> Result<u32, OnlineError> {
        let n = self.state.arrived.len();
        check(Limit::Jobs, n + 1, JOBS_MAX)?;
        let scn = &*self.scn;
        let ring = scn.architecture == Architecture::Ring;
        let updates = if ring { 1 } else { scn.ps_types.len() };
        let bad = |what| OnlineError::Model {
            what,
            index: n as u32,
        };
        if job.minibatch_time.len() != scn.worker_types.len() || job.update_time.len() != updates {
            return Err(bad("job minibatch_time / update_time length"));
        }
        if job.arrival >= scn.slots {
            return Err(bad("job arrival beyond the horizon"));
        }
        let h = scn.servers.len();
        let place = place_max(&job, h);
        let resv_max = self.world.resv_max.saturating_add(place);
        check(Limit::UsageReservations, resv_max, USAGE_RESERVATIONS_MAX)?;
        let dmax = self.world.dmax.max(job.chunks);
        let wcap = self.fast_wcap();
        let phis = self.fast_phis(dmax);
        let ring_cap = if ring && phis > 0 {
            let extra = crate::online::fast::ring_options_of(scn, &job, &self.phi_max, wcap, phis);
            self.world.ring_cap.max(extra)
        } else {
            self.world.ring_cap
        };
        let rebuild = dmax != self.world.dmax || ring_cap != self.world.ring_cap;
        let mut t = None;
        if rebuild {
            let mut with = scn.clone();
            with.jobs.push(job.clone());
            t = Some(tables(&with, dmax, ring_cap)?);
        }
        // Checked: now append.
        self.scn.to_mut().jobs.push(job);
        self.state.arrived.push(false);
        self.state.scheduled.push(false);
        self.world.jobs.push(JobWorld::default());
        let p = &mut self.state.pending;
        p.reserve_exact((n + 1).saturating_sub(p.len()));
        self.batch
            .reserve_exact((n + 1).saturating_sub(self.batch.len()));
        let pl = self.decision.placement.len();
        self.decision.placement.reserve(place.saturating_sub(pl));
        self.world.resv_max = resv_max;
        self.reserve_usage();
        if let Some(t) = t {
            self.install(t);
        }
        Ok(n as u32)
    }

    /// Room in the usage store (and the window chains) for `world.resv_max` reservations, so
    /// the decisions never allocate.
    fn reserve_usage(&mut self) {
        let want = self.world.resv_max;
        let r_n = self.scn.resources as usize;
        let u = &mut self.state.usage;
        u.resv.reserve_exact(want.saturating_sub(u.resv.len()));
        u.amount
            .reserve_exact((want * r_n).saturating_sub(u.amount.len()));
        self.win.reserve(want);
    }

    /// The status of job j as of the last event (final after `finish`); `None` for an
    /// unknown index. O(1).
    pub fn status(&self, job: u32) -> Option<Status> {
        let j = job as usize;
        let x = self.world.jobs.get(j)?;
        let done = self.world.finished;
        Some(if x.cancelled {
            Status::Cancelled
        } else if self.state.scheduled[j] {
            let limit = if done {
                self.scn.horizon()
            } else {
                self.state.last_now
            };
            if x.end <= limit {
                Status::Finished
            } else {
                Status::Unfinished
            }
        } else if done && x.interrupted {
            Status::Lost
        } else if done && self.state.arrived[j] && x.tried {
            Status::Rejected
        } else {
            Status::Unfinished
        })
    }

    /// The longest A_dual window (the fast scratch's `wcap`).
    fn fast_wcap(&self) -> u32 {
        super::scheduler::window_cap(self.scn.horizon(), self.scn.alpha) as u32
    }

    /// The ring worker counts the scratch holds for max D_j = `dmax`.
    fn fast_phis(&self, dmax: u32) -> u32 {
        if self.scn.architecture == Architecture::Ring {
            dmax.min(self.phi_max.iter().copied().max().unwrap_or(0))
        } else {
            0
        }
    }

    /// Installs rebuilt search tables; cached windows are forgotten.
    fn install(&mut self, t: super::scheduler::Tables) {
        self.phi_max = t.phi_max;
        self.fast = t.fast;
        self.world.dmax = t.dmax;
        self.world.ring_cap = t.ring_cap;
        self.win.invalidate();
    }

    /// Server h's capacity changed: the search tables follow it. Sized as before (the same
    /// ring worker counts and options), the scratch is kept and told which server changed
    /// ([`super::fast::FastScratch::recapacity`]: O(H log H)); else it is built again
    /// (O(H M + jobs M + scratch), allocating; the scratch was most of an event's cost).
    /// Built from the jobs as they are now: an interrupted job's remaining work can have more
    /// ring options (smaller Phi fit a window) than the old scratch holds. The same capacities
    /// and D_j passed the limits in the event's check, so this cannot fail on them; a failure
    /// would be reported, not hidden.
    fn retable(&mut self, h: usize) -> Result<(), OnlineError> {
        let d = dims(&self.scn, self.world.dmax, self.world.ring_cap)?;
        if self.fast.sized_for(d.phis, d.ring_cap) {
            self.phi_max = d.phi_max;
            self.fast.recapacity(&self.scn, h, self.world.dmax);
            self.win.invalidate();
        } else {
            let t = tables_of(&self.scn, d, self.world.dmax);
            self.install(t);
        }
        Ok(())
    }

    /// `JobCancelled`, `ServerDown`, `ServerUp`, `Capacity` at `now`: checked completely (a
    /// refused event changes nothing), then the rounds due run (as for every event), then the
    /// rule applies. Cost: O(reservations) to find and cut the jobs concerned (a capacity cut:
    /// O(reservations^2 R) per fit check, one per interrupted job), plus O(H M + jobs M +
    /// scratch) to rebuild the fast search's tables after any change of C_h (they depend on it).
    pub(super) fn open_world<F: FnMut(&OnlineDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        event: Event<u32>,
        out: &mut F,
    ) -> Result<(), OnlineError> {
        if self.world.blind {
            return Err(OpenWorldError::Unsupported {
                event: event.name(),
            }
            .into());
        }
        let cap = self.check_open(now, &event)?;
        self.state.last_now = now;
        self.catch_up(now, &mut |d| super::records::emit(d, out));
        self.world.changed = true;
        match event {
            Event::JobCancelled(j) => self.cancel(now, j as usize, out),
            Event::ServerDown(h) => {
                self.world.down[h as usize] = true;
                self.interrupt_holders(now, h as usize, CAUSE_DOWN, out);
            }
            Event::ServerUp(h) => self.world.down[h as usize] = false,
            Event::Capacity(h, c) => {
                self.world.base[h as usize] = c;
                if !self.world.down[h as usize] {
                    self.cut_to_fit(now, h as usize, out);
                }
            }
            _ => {}
        }
        if let Some((h, c)) = cap {
            self.scn.to_mut().servers[h] = c;
            self.retable(h)?;
        }
        self.fast.invalidate();
        self.win.invalidate();
        Ok(())
    }

    /// Checks an open-world event completely, changing nothing: the server's new capacity in
    /// force (`None` when C does not change now) and the limits its search tables must pass.
    fn check_open(
        &self,
        now: Slot,
        event: &Event<u32>,
    ) -> Result<Option<(usize, ResourceVec)>, OnlineError> {
        let h_n = self.scn.servers.len();
        let known = |h: u32| {
            if (h as usize) < h_n {
                Ok(h as usize)
            } else {
                Err(OpenWorldError::UnknownServer { server: h })
            }
        };
        let mut cap: Option<(usize, ResourceVec)> = None;
        match event {
            Event::JobCancelled(j) => self.check_cancel(now, *j)?,
            Event::ServerDown(h) => {
                let h = known(*h)?;
                if self.world.down[h] {
                    return Err(OpenWorldError::ServerDown { server: h as u32 }.into());
                }
                cap = Some((h, self.zero_capacity()?));
            }
            Event::ServerUp(h) => {
                let h = known(*h)?;
                if !self.world.down[h] {
                    return Err(OpenWorldError::ServerUp { server: h as u32 }.into());
                }
                cap = Some((h, self.world.base[h]));
            }
            Event::Capacity(h, c) => {
                let hh = known(*h)?;
                check_capacity(*h, c, self.scn.resources as usize)?;
                if !self.world.down[hh] {
                    cap = Some((hh, *c));
                }
            }
            _ => return Ok(None),
        }
        if let Some((h, c)) = &cap {
            // The limits the new capacity's tables must pass, checked before any change
            // (without copying the scenario: that copy of every job was most of an event's cost).
            check_tables_with(&self.scn, *h, c, self.world.dmax)?;
        }
        Ok(cap)
    }

    /// C_h = 0 in every resource (a down server), R entries.
    fn zero_capacity(&self) -> Result<ResourceVec, OnlineError> {
        let r = self.scn.resources as usize;
        let zeros = [0.0; crate::limits::RESOURCES_MAX];
        Ok(ResourceVec::from_slice(&zeros[..r.min(zeros.len())])?)
    }

    /// A cancel is valid for a job not cancelled yet and not done by `now` (a job that has not
    /// arrived yet is cancelled and never arrives).
    fn check_cancel(&self, now: Slot, j: u32) -> Result<(), OnlineError> {
        let x = self
            .world
            .jobs
            .get(j as usize)
            .ok_or(OpenWorldError::UnknownJob { job: j })?;
        let done = self.state.scheduled[j as usize] && x.end <= now;
        if x.cancelled || done {
            return Err(OpenWorldError::JobEnded { job: j }.into());
        }
        Ok(())
    }

    fn cancel<F: FnMut(&OnlineDecision<'_>) + ?Sized>(&mut self, now: Slot, j: usize, out: &mut F) {
        let (done, left) = if self.state.scheduled[j] {
            self.release(now, j)
        } else {
            (0, 0)
        };
        self.state.scheduled[j] = false;
        self.state.pending.retain(|&p| p as usize != j);
        self.world.jobs[j].cancelled = true;
        self.world.jobs[j].interrupted = false;
        out(&OnlineDecision::Interrupted(InterruptRec {
            slot: now,
            job: j as u32,
            server: u32::MAX,
            cause: CAUSE_CANCEL,
            done_slots: done,
            remaining: left,
            requeued: false,
        }));
    }

    /// Cuts job j's current reservations at `now` (a reservation starting at or after `now`
    /// becomes empty); returns (slots it ran before `now`, slots of its schedule left).
    fn release(&mut self, now: Slot, j: usize) -> (u32, u32) {
        let x = self.world.jobs[j];
        for i in x.first as usize..x.last as usize {
            if let Some(r) = self.state.usage.resv.get_mut(i) {
                cut(r, now);
            }
        }
        let ran = now.clamp(x.start, x.end) - x.start;
        (ran, x.end - x.start - ran)
    }

    /// Whether job j's current schedule holds server h at a slot >= `now`.
    fn holds(&self, now: Slot, j: usize, h: usize) -> bool {
        if !self.state.scheduled[j] {
            return false;
        }
        let x = self.world.jobs[j];
        self.state.usage.resv[x.first as usize..x.last as usize]
            .iter()
            .any(|r| r.server as usize == h && r.end > now && r.start < r.end)
    }

    /// Server h went down: every job holding it from `now` on is interrupted, in job order.
    fn interrupt_holders<F: FnMut(&OnlineDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        h: usize,
        cause: u8,
        out: &mut F,
    ) {
        for j in 0..self.world.jobs.len() {
            if self.holds(now, j, h) {
                self.interrupt(now, j, h, cause, out);
            }
        }
    }

    /// The capacity of up server h is now `base[h]`: while the usage from `now` on exceeds it,
    /// the most recently admitted job holding h (its reservations are the latest) is
    /// interrupted.
    fn cut_to_fit<F: FnMut(&OnlineDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        h: usize,
        out: &mut F,
    ) {
        while !self.fits(now, h) {
            let latest = (0..self.world.jobs.len())
                .filter(|&j| self.holds(now, j, h))
                .max_by_key(|&j| (self.world.jobs[j].first, j));
            match latest {
                Some(j) => self.interrupt(now, j, h, CAUSE_CAPACITY, out),
                None => break,
            }
        }
    }

    /// Whether beta_h(t) <= base[h] (1e-6 relative float dust) at every slot t >= `now`:
    /// checked where beta can rise (at `now` and at each reservation start after it).
    fn fits(&self, now: Slot, h: usize) -> bool {
        let r_n = self.scn.resources as usize;
        let u = &self.state.usage;
        let c = &self.world.base[h];
        let at = |t: u32| {
            (0..r_n).all(|r| {
                let cap = c.get(r);
                u.at(r_n, t, h as u32, r) <= cap + 1e-6 * libm::fabs(cap).max(1.0)
            })
        };
        at(now)
            && u.resv
                .iter()
                .filter(|x| x.server as usize == h && x.start > now && x.start < x.end)
                .all(|x| at(x.start))
    }

    /// Interrupts job j at `now`: cuts its reservations on every server, and queues the rest
    /// of its work as a job arriving at `now` (E' = 1, K' = ceil(E K x slots left / L): the
    /// same D_j chunks with the mini-batches its schedule had not run; its weight unchanged).
    fn interrupt<F: FnMut(&OnlineDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        j: usize,
        h: usize,
        cause: u8,
        out: &mut F,
    ) {
        let (ran, left) = self.release(now, j);
        let dur = ran + left;
        // Its re-admission adds reservations: room for them now (an event path).
        let h_n = self.scn.servers.len();
        let place = place_max(&self.scn.jobs[j], h_n);
        self.world.resv_max = self.world.resv_max.saturating_add(place);
        self.reserve_usage();
        let job = &mut self.scn.to_mut().jobs[j];
        if ran > 0 && dur > 0 {
            let ek = job.epochs as u64 * job.minibatches_per_chunk as u64;
            let k = (ek * left as u64).div_ceil(dur as u64).max(1);
            job.epochs = 1;
            job.minibatches_per_chunk = k.min(u32::MAX as u64) as u32;
        }
        // Algorithm 1: a job arriving at `now` joins the batch of the first round after it.
        job.arrival = now;
        let remaining = job.epochs.saturating_mul(job.minibatches_per_chunk);
        self.state.scheduled[j] = false;
        // Room: pending holds distinct unscheduled jobs and has room for every job.
        self.state.pending.push(j as u32);
        self.world.jobs[j].interrupted = true;
        out(&OnlineDecision::Interrupted(InterruptRec {
            slot: now,
            job: j as u32,
            server: h as u32,
            cause,
            done_slots: ran,
            remaining,
            requeued: true,
        }));
    }

    /// Whether any open-world event changed this scheduler (its snapshots refuse then).
    pub fn open_world_changed(&self) -> bool {
        self.world.changed
    }

    /// After a restore: job ownership of reservations is not in the snapshot.
    pub(super) fn forget_world(&mut self) {
        self.world.blind = true;
    }
}

/// Cuts a reservation at `now`: it keeps only its slots before `now` (empty, start == end, when
/// it starts at or after `now`).
fn cut(r: &mut Resv, now: Slot) {
    if r.end > now {
        r.end = now.max(r.start);
    }
}
