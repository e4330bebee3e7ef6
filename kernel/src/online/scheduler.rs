//! A_online / A_dual / A_maxweight as a [`Scheduler`] value: events in, decisions out at round
//! boundaries; all scratch allocated when the value is built.
use super::common::{cost_f64, fit, Cand};
use super::fast::{self, FastScratch};
use super::records::{emit, OnlineDecision};
use super::usage::{Resv, SparseUsage, WindowIndex};
use super::world::World;
use super::{Ctx, OnlineError, OnlineState, Placement, Window};
use crate::api::{Event, Scheduler};
use crate::error::{CapacityError, Limit};
use crate::limits::{
    check, JOBS_MAX, LEDGER_CELLS_MAX, ONLINE_WINDOW_CELLS_MAX, RESOURCES_MAX, SERVERS_MAX,
    SLOTS_MAX, USAGE_RESERVATIONS_MAX,
};
use crate::model::online::{Architecture, OnlineScenario};
use crate::resources::ResourceVec;
use crate::Slot;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Rounds i are at most this many (tau_i = 2^(i-1) < 2^31 covers every horizon).
pub(super) const ROUNDS_MAX: u32 = 32;

/// Which search answers A_maxweight's per-job question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Search {
    /// The exact fast path ([`super::fast`]).
    Fast,
    /// The paper-literal listings ([`super::reference`]).
    #[cfg(any(test, feature = "reference"))]
    Reference,
}

/// One A_maxweight decision about one job in one window (also emitted when it is not scheduled).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OnlineJobDecision {
    /// Job index j.
    pub job: u32,
    /// Round i of A_online.
    pub round: u32,
    /// tau_i.
    pub tau: u32,
    /// Round iota of A_dual (1-based).
    pub iota: u32,
    /// A schedule exists in the window (cost finite).
    pub feasible: bool,
    /// u_j > 0: the schedule was taken.
    pub scheduled: bool,
    /// q_j.
    pub colocated: bool,
    /// Worker type m.
    pub worker_type: u32,
    /// PS type p (`None` for ring).
    pub ps_type: Option<u32>,
    /// Absolute start slot t_j.
    pub start: u32,
    /// d_j = L_j.
    pub duration: u32,
    /// Workers (N or Phi).
    pub workers: u32,
    /// The exact fixed-point cost (2^-20 units).
    pub cost_fixed: u128,
    /// sum_t sum_h sum_r delta (e y + z s) of the best schedule at decision time.
    pub cost: f64,
    /// u_j = w_j - cost.
    pub utility: f64,
    /// y_jhm / s_jhp per server (empty unless feasible).
    pub placement: Placement,
}

impl OnlineJobDecision {
    fn empty() -> Self {
        OnlineJobDecision {
            job: 0,
            round: 0,
            tau: 0,
            iota: 0,
            feasible: false,
            scheduled: false,
            colocated: false,
            worker_type: 0,
            ps_type: None,
            start: 0,
            duration: 0,
            workers: 0,
            cost_fixed: 0,
            cost: 0.0,
            utility: 0.0,
            placement: Placement::new(),
        }
    }

    /// completion = start + duration.
    pub fn completion(&self) -> u32 {
        self.start + self.duration
    }
}

/// lambda = 2 T H R F + 1 (eq. 11).
fn lambda_of(scn: &OnlineScenario) -> f64 {
    2.0 * scn.slots as f64 * scn.servers.len() as f64 * scn.resources as f64 * scn.f + 1.0
}

/// Theorem 5's alpha = floor((log w(J) - log w_min) / (log gamma - log(gamma - 1))) + 1 with
/// gamma = 2 log lambda (base-2 logs); `None` without jobs.
pub fn theoretical_alpha(scn: &OnlineScenario) -> Option<u64> {
    let wmin = scn
        .jobs
        .iter()
        .map(|j| j.weight)
        .fold(f64::INFINITY, f64::min);
    if scn.jobs.is_empty() || wmin <= 0.0 {
        return None;
    }
    let wsum: f64 = scn.jobs.iter().map(|j| j.weight).sum();
    let gamma = 2.0 * libm::log2(lambda_of(scn));
    let denom = libm::log2(gamma) - libm::log2(gamma - 1.0);
    let a = libm::floor((libm::log2(wsum) - libm::log2(wmin)) / denom) + 1.0;
    (a.is_finite() && a >= 0.0).then_some(a as u64)
}

/// A_online over one scenario (Algorithm 1), implementing [`Scheduler`]: `JobArrived(j)` adds
/// job j, and any event at slot `now` first runs every round i with tau_i <= now.
pub struct OnlineScheduler<'a> {
    /// The scenario the scheduler works on: the caller's, until an open-world event changes
    /// the job list or a capacity; then its own copy (cloned once, at the first change), with
    /// the submitted jobs, the remaining work of interrupted ones and the capacities in force.
    pub(super) scn: alloc::borrow::Cow<'a, OnlineScenario>,
    lambda: f64,
    pub(super) phi_max: Vec<u32>,
    pub(super) mode: Search,
    pub(super) state: OnlineState,
    pub(super) win: WindowIndex,
    pub(super) fast: FastScratch,
    pub(super) batch: Vec<u32>,
    pub(super) decision: OnlineJobDecision,
    /// The open-world bookkeeping (`super::world`).
    pub(super) world: World,
}

/// The search tables that depend on the capacities and the jobs' D_j: Phi_max per worker type,
/// the ring worker counts and options, and the fast search's scratch.
pub(super) struct Tables {
    pub(super) phi_max: Vec<u32>,
    pub(super) dmax: u32,
    pub(super) ring_cap: usize,
    pub(super) fast: FastScratch,
}

/// What the capacities decide of [`Tables`]: Phi_max, and the ring worker counts and options
/// the scratch is sized for.
pub(super) struct Dims {
    pub(super) phi_max: Vec<u32>,
    pub(super) phis: usize,
    pub(super) ring_cap: usize,
}

/// [`Dims`] for `scn` (O(H M), plus O(jobs M) for a ring), checked against the limits.
pub(super) fn dims(scn: &OnlineScenario, dmax: u32, ring_min: usize) -> Result<Dims, OnlineError> {
    let wcap = window_cap(scn.horizon(), scn.alpha);
    let phi_max = phi_max_of(scn, None);
    let phis = ring_phis(scn, &phi_max, dmax)?;
    let ring_cap = if phis > 0 {
        fast::ring_options_max(scn, &phi_max, wcap as u32, phis as u32).max(ring_min)
    } else {
        0
    };
    Ok(Dims {
        phi_max,
        phis,
        ring_cap,
    })
}

/// Builds [`Tables`] for `scn` (O(H M + the scratch size); allocates: build and event paths).
pub(super) fn tables(
    scn: &OnlineScenario,
    dmax: u32,
    ring_min: usize,
) -> Result<Tables, OnlineError> {
    Ok(tables_of(scn, dims(scn, dmax, ring_min)?, dmax))
}

/// [`Tables`] of `scn` with its [`Dims`] `d`: a new scratch (allocates).
pub(super) fn tables_of(scn: &OnlineScenario, d: Dims, dmax: u32) -> Tables {
    let (h, r) = (scn.servers.len(), scn.resources as usize);
    let (mm, pp) = (scn.worker_types.len(), scn.ps_types.len());
    let wcap = window_cap(scn.horizon(), scn.alpha);
    let mut f = FastScratch::new(h, r, mm, pp, wcap, d.phis, d.ring_cap);
    f.init_shapes(scn, dmax);
    Tables {
        phi_max: d.phi_max,
        dmax,
        ring_cap: d.ring_cap,
        fast: f,
    }
}

/// The ring worker counts the scratch holds for max D_j = `dmax` (0 for a PS scenario),
/// checked against the ledger limit: the one limit [`tables`] can refuse.
fn ring_phis(scn: &OnlineScenario, phi_max: &[u32], dmax: u32) -> Result<usize, OnlineError> {
    let phis = if scn.architecture == Architecture::Ring {
        dmax.min(phi_max.iter().copied().max().unwrap_or(0)) as usize
    } else {
        0
    };
    check(
        Limit::LedgerCells,
        scn.worker_types.len() * phis,
        LEDGER_CELLS_MAX,
    )?;
    Ok(phis)
}

/// Would [`tables`] pass its limits with server `h`'s capacity `c` (the others as in `scn`)?
/// The check of an open-world event before anything changes, without copying the scenario or
/// building the tables: O(H M) (an event path).
pub(super) fn check_tables_with(
    scn: &OnlineScenario,
    h: usize,
    c: &ResourceVec,
    dmax: u32,
) -> Result<(), OnlineError> {
    ring_phis(scn, &phi_max_of(scn, Some((h, c))), dmax).map(|_| ())
}

/// Largest A_dual window any round can use: max over i of min(tau_i, T' - alpha tau_i), where
/// T' is the scenario's [`OnlineScenario::horizon`].
pub(super) fn window_cap(slots: u32, alpha: u32) -> usize {
    let mut best = 0u64;
    for i in 0..ROUNDS_MAX {
        let tau = 1u64 << i;
        let base = alpha as u64 * tau;
        if base >= slots as u64 {
            break;
        }
        best = best.max(tau.min(slots as u64 - base));
    }
    best as usize
}

fn validate(scn: &OnlineScenario) -> Result<(), OnlineError> {
    let (h, r) = (scn.servers.len(), scn.resources as usize);
    check(Limit::Servers, h, SERVERS_MAX)?;
    check(Limit::Resources, r, RESOURCES_MAX)?;
    check(Limit::Slots, scn.slots as usize, SLOTS_MAX)?;
    // Rounds past T schedule up to the extended horizon: it obeys the same slot limit.
    check(Limit::Slots, scn.horizon() as usize, SLOTS_MAX)?;
    check(Limit::Jobs, scn.jobs.len(), JOBS_MAX)?;
    let bad = |what, index: usize| OnlineError::Model {
        what,
        index: index as u32,
    };
    if let Some(i) = scn.servers.iter().position(|c| c.len() != r) {
        return Err(bad("server capacity vector length differs from R", i));
    }
    let types = scn.worker_types.iter().chain(scn.ps_types.iter());
    if let Some(i) = types
        .clone()
        .position(|t| t.demand.len() != r || t.bw.is_nan() || t.bw <= 0.0)
    {
        return Err(bad(
            "type demand length differs from R or bandwidth is not positive",
            i,
        ));
    }
    if scn.worker_types.is_empty() {
        return Err(bad("no worker type", 0));
    }
    let ring = scn.architecture == Architecture::Ring;
    if !ring && scn.ps_types.is_empty() {
        return Err(bad("architecture ps without PS types", 0));
    }
    let updates = if ring { 1 } else { scn.ps_types.len() };
    for (j, job) in scn.jobs.iter().enumerate() {
        if job.minibatch_time.len() != scn.worker_types.len() || job.update_time.len() != updates {
            return Err(bad("job minibatch_time / update_time length", j));
        }
        if job.arrival >= scn.slots {
            return Err(bad("job arrival beyond the horizon", j));
        }
    }
    if scn.alpha == 0 {
        return Err(bad("alpha must be at least 1", 0));
    }
    Ok(())
}

/// Phi_max of every worker type: sum over servers of fit(C_h, e_m). Servers come in a few
/// shapes, so a server whose capacities have the same bits as one of the first distinct shapes
/// reuses that shape's fit counts (the same inputs give the same counts).
/// With `over` = Some((h, c)), server h counts with capacity c instead of its own.
fn phi_max_of(scn: &OnlineScenario, over: Option<(usize, &ResourceVec)>) -> Vec<u32> {
    const SHAPES: usize = 16;
    let mm = scn.worker_types.len();
    let mut sums = vec![0u64; mm];
    let cap = |h: usize| match over {
        Some((o, c)) if o == h => c,
        _ => &scn.servers[h],
    };
    // (server holding the shape, its fit counts at `fits[i * M..(i + 1) * M]`).
    let mut shapes: Vec<usize> = Vec::with_capacity(SHAPES);
    let mut fits: Vec<u32> = Vec::with_capacity(SHAPES * mm);
    for h in 0..scn.servers.len() {
        let c = cap(h);
        let same = |&k: &usize| {
            let d = cap(k);
            d.len() == c.len() && (0..c.len()).all(|r| d.get(r).to_bits() == c.get(r).to_bits())
        };
        if let Some(i) = shapes.iter().position(same) {
            for (s, f) in sums.iter_mut().zip(&fits[i * mm..(i + 1) * mm]) {
                *s = s.saturating_add(*f as u64);
            }
            continue;
        }
        let keep = shapes.len() < SHAPES;
        if keep {
            shapes.push(h);
        }
        for (s, e) in sums.iter_mut().zip(&scn.worker_types) {
            let f = fit(c.as_slice(), e);
            *s = s.saturating_add(f as u64);
            if keep {
                fits.push(f);
            }
        }
    }
    sums.iter()
        .map(|&s| s.min(u32::MAX as u64) as u32)
        .collect()
}

impl<'a> OnlineScheduler<'a> {
    /// Builds the scheduler and all its scratch (the only allocations it ever makes).
    pub fn new(scn: &'a OnlineScenario, mode: Search) -> Result<Self, OnlineError> {
        validate(scn)?;
        let (h, r) = (scn.servers.len(), scn.resources as usize);
        let (mm, pp) = (scn.worker_types.len(), scn.ps_types.len());
        let wcap = window_cap(scn.horizon(), scn.alpha);
        check(
            Limit::OnlineWindowCells,
            (mm + pp).saturating_mul(h).saturating_mul(wcap + 1),
            ONLINE_WINDOW_CELLS_MAX,
        )?;
        // Every scheduled job adds one reservation per server of its placement: at most
        // min(H, D_j + 1) (N <= D_j workers and one PS host).
        let place_max = |j: &crate::model::online::OnlineJob| (j.chunks as usize + 1).min(h);
        let resv_max = scn
            .jobs
            .iter()
            .fold(0usize, |a, j| a.saturating_add(place_max(j)));
        check(Limit::UsageReservations, resv_max, USAGE_RESERVATIONS_MAX)?;
        let placement_max = scn.jobs.iter().map(place_max).max().unwrap_or(0);
        let dmax = scn.jobs.iter().map(|j| j.chunks).max().unwrap_or(0);
        let t = tables(scn, dmax, 0)?;
        let n = scn.jobs.len();
        Ok(OnlineScheduler {
            scn: alloc::borrow::Cow::Borrowed(scn),
            lambda: lambda_of(scn),
            phi_max: t.phi_max,
            mode,
            state: OnlineState {
                usage: SparseUsage::with_capacity(resv_max, r),
                pending: Vec::with_capacity(n),
                arrived: vec![false; n],
                scheduled: vec![false; n],
                next_round: 1,
                last_now: 0,
            },
            win: WindowIndex::new(h, resv_max),
            fast: t.fast,
            batch: Vec::with_capacity(n),
            decision: OnlineJobDecision {
                placement: Vec::with_capacity(placement_max),
                ..OnlineJobDecision::empty()
            },
            world: World::new(scn, t.dmax, t.ring_cap, resv_max),
        })
    }

    /// The state (for snapshots and invariant checks).
    pub fn state(&self) -> &OnlineState {
        &self.state
    }

    /// Restores a state taken from a scheduler built on the same scenario.
    pub fn restore(&mut self, st: OnlineState) -> Result<(), OnlineError> {
        if let Err(e) = self.check_state(&st) {
            let index = match e {
                crate::snapshot::SnapshotError::Invalid { index, .. } => index.unwrap_or(0),
                _ => 0,
            };
            return Err(OnlineError::Model {
                what: "state does not match the scenario",
                index,
            });
        }
        self.state.usage.resv.clear();
        self.state.usage.resv.extend_from_slice(&st.usage.resv);
        self.state.usage.amount.clear();
        self.state.usage.amount.extend_from_slice(&st.usage.amount);
        self.win.invalidate();
        self.state.arrived.copy_from_slice(&st.arrived);
        self.state.scheduled.copy_from_slice(&st.scheduled);
        self.state.pending.clear();
        self.state.pending.extend_from_slice(&st.pending);
        self.state.next_round = st.next_round;
        self.state.last_now = st.last_now;
        self.fast.invalidate();
        self.forget_world();
        debug_assert!(
            self.check_state(&self.state).is_ok(),
            "online: restored state fails its own check"
        );
        Ok(())
    }

    /// lambda = 2 T H R F + 1.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Runs every round i with tau_i <= now that has not run yet.
    pub(super) fn catch_up(&mut self, now: Slot, out: &mut dyn FnMut(&OnlineJobDecision)) {
        while self.state.next_round <= ROUNDS_MAX {
            let tau = 1u64 << (self.state.next_round - 1);
            if tau > now as u64 {
                break;
            }
            self.run_round(self.state.next_round, tau as u32, out);
            self.state.next_round += 1;
        }
    }

    /// One round of A_online: A_dual on J_i.
    fn run_round(&mut self, round: u32, tau: u32, out: &mut dyn FnMut(&OnlineJobDecision)) {
        let jobs = &self.scn.jobs;
        self.batch.clear();
        self.batch.extend_from_slice(&self.state.pending);
        let arrival = |j: u32| jobs.get(j as usize).map_or(0, |x| x.arrival);
        crate::order::sort_indices_by(&mut self.batch, &|a, b| {
            (arrival(a), a).cmp(&(arrival(b), b))
        });
        if self.batch.is_empty() {
            return;
        }
        let alpha = self.scn.alpha;
        // The window clip: T by default, the extended horizon with `rounds_past_horizon`.
        let horizon = self.scn.horizon();
        for iota in 1..=alpha {
            let base = alpha as u64 * tau as u64 + (iota as u64 - 1) * tau as u64;
            if base + 2 > horizon as u64 {
                break;
            }
            let w = Window {
                base: base as u32,
                len: tau.min(horizon - base as u32),
            };
            let mut left = 0;
            for k in 0..self.batch.len() {
                let j = self.batch[k] as usize;
                if self.state.scheduled[j] {
                    continue;
                }
                self.decide(j, round, tau, iota, &w);
                if !self.decision.scheduled {
                    left += 1;
                }
                out(&self.decision);
            }
            // A_dual's early exit: every job of J_i is scheduled.
            if left == 0 {
                break;
            }
        }
        let sched = &self.state.scheduled;
        self.state.pending.retain(|&j| !sched[j as usize]);
    }

    /// A_maxweight for job j in window `w`: search, decide u_j > 0, reserve.
    fn decide(&mut self, j: usize, round: u32, tau: u32, iota: u32, w: &Window) {
        let scn = &*self.scn;
        let job = &scn.jobs[j];
        if let Some(x) = self.world.jobs.get_mut(j) {
            x.tried = true;
        }
        self.win.sync(&self.state.usage, w.base, w.len);
        let cx = Ctx {
            scn,
            lambda: self.lambda,
            usage: &self.state.usage,
            win: &self.win,
            h: scn.servers.len(),
            r: scn.resources as usize,
            phi_max: &self.phi_max,
        };
        let d = &mut self.decision;
        let found: Option<Cand> = match self.mode {
            Search::Fast => fast::search(&cx, job, w, &mut self.fast, &mut d.placement),
            #[cfg(any(test, feature = "reference"))]
            Search::Reference => super::reference::search(&cx, job, w, &mut d.placement),
        };
        d.job = j as u32;
        d.round = round;
        d.tau = tau;
        d.iota = iota;
        d.feasible = found.is_some();
        let Some(c) = found else {
            d.scheduled = false;
            d.colocated = false;
            d.worker_type = 0;
            d.ps_type = None;
            d.start = 0;
            d.duration = 0;
            d.workers = 0;
            d.cost_fixed = 0;
            d.cost = 0.0;
            d.utility = 0.0;
            d.placement.clear();
            return;
        };
        d.colocated = c.colocated;
        d.worker_type = c.m;
        d.ps_type = (c.p != u32::MAX).then_some(c.p);
        d.start = w.base + c.tminus;
        d.duration = c.dur;
        d.workers = c.workers;
        d.cost_fixed = c.cost;
        d.cost = cost_f64(c.cost);
        d.utility = job.weight - d.cost;
        d.scheduled = d.utility > 0.0;
        if d.scheduled {
            self.reserve(j, w);
        }
    }

    /// beta_h^r(t) += e^r y + z^r s over the job's slots and servers: one reservation per
    /// server of the placement (room for it was reserved when the scheduler was built).
    fn reserve(&mut self, j: usize, w: &Window) {
        let scn = &*self.scn;
        let d = &self.decision;
        let r_n = scn.resources as usize;
        let wt = &scn.worker_types[d.worker_type as usize];
        let pt = d.ps_type.and_then(|p| scn.ps_types.get(p as usize));
        debug_assert!(self.state.usage.room() >= d.placement.len());
        let first = self.state.usage.len();
        let mut amount = [0.0; RESOURCES_MAX];
        for pl in d.placement.iter() {
            for (r, a) in amount.iter_mut().enumerate().take(r_n) {
                *a = wt.demand.get(r) * pl.workers as f64
                    + pt.map_or(0.0, |z| z.demand.get(r) * pl.ps as f64);
            }
            let x = Resv {
                server: pl.server,
                start: d.start,
                end: d.start + d.duration,
            };
            self.state.usage.push(x, &amount[..r_n]);
        }
        self.state.scheduled[j] = true;
        self.world.admitted(
            j,
            first,
            self.state.usage.len(),
            d.start,
            d.start + d.duration,
        );
        if self.mode == Search::Fast {
            self.fast.touched(w, &self.decision.placement);
        }
    }
}

impl Scheduler for OnlineScheduler<'_> {
    type Job = u32;
    type Decision<'a> = OnlineDecision<'a>;
    type Error = OnlineError;

    /// Every event first runs the rounds i with tau_i <= `now` not run yet (so arrivals before
    /// or after `SlotAdvanced` in a slot see the same rounds); `JobArrived(j)` then queues j.
    fn on_event<F: FnMut(&OnlineDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        event: Event<u32>,
        out: &mut F,
    ) -> Result<(), OnlineError> {
        if now < self.state.last_now {
            return Err(OnlineError::TimeWentBack {
                now,
                last: self.state.last_now,
            });
        }
        match event {
            Event::JobArrived(_) | Event::SlotAdvanced | Event::JobFinished(_) => {}
            ev => return self.open_world(now, ev, out),
        }
        self.state.last_now = now;
        self.catch_up(now, &mut |d: &OnlineJobDecision| emit(d, out));
        if let Event::JobArrived(j) = event {
            let seen = self.state.arrived.get_mut(j as usize);
            match seen {
                None => return Err(OnlineError::UnknownJob { job: j }),
                Some(true) => return Err(OnlineError::DuplicateArrival { job: j }),
                // A job cancelled before it arrives never arrives.
                Some(_) if self.world.cancelled(j) => {
                    return Err(crate::world::OpenWorldError::JobEnded { job: j }.into())
                }
                Some(s) => *s = true,
            }
            if self.state.pending.len() >= self.state.pending.capacity() {
                return Err(CapacityError {
                    limit: Limit::Jobs,
                    max: self.state.pending.capacity() as u64,
                    got: self.state.pending.len() as u64 + 1,
                    job: Some(j),
                }
                .into());
            }
            self.state.pending.push(j);
        }
        Ok(())
    }

    /// The next round time tau_i = 2^(i-1) not run yet, while it is inside the horizon (T, or
    /// the extended one with `rounds_past_horizon`): the rounds are what A_online does on the
    /// clock (arrivals come as events).
    /// A re-planned (interrupted) job waits in the pending list like an arrival, so the
    /// rounds are still the only wake-ups.
    fn next_wakeup(&self, _after: Option<Slot>) -> Option<Slot> {
        let i = self.state.next_round;
        if i == 0 || i > ROUNDS_MAX {
            return None;
        }
        let tau = 1u64 << (i - 1);
        (tau < self.scn.horizon() as u64).then_some(tau as Slot)
    }

    /// Ends the run: from now on [`OnlineScheduler::status`] is final.
    fn finish<F: FnMut(&OnlineDecision<'_>) + ?Sized>(
        &mut self,
        _out: &mut F,
    ) -> Result<(), OnlineError> {
        self.world.finished = true;
        Ok(())
    }
}

/// Drives A_online over the whole scenario through [`crate::driver::Driver`] (arrivals in
/// (arrival, input index) order, `SlotAdvanced` at the round times); every decision goes to
/// `on_decision`.
pub fn run_scenario(
    scn: &OnlineScenario,
    mode: Search,
    on_decision: &mut dyn FnMut(&OnlineJobDecision),
) -> Result<(), OnlineError> {
    let s = OnlineScheduler::new(scn, mode)?;
    let order = crate::driver::arrival_order(scn.jobs.iter().map(|j| j.arrival));
    let mut d = crate::driver::Driver::new(s);
    let mut sink = crate::log::HashSink::new();
    d.run(&order, &mut sink, &mut |o: &OnlineDecision<'_>| {
        if let OnlineDecision::Decision(x) = o {
            on_decision(x);
        }
    })
    .map_err(|e| match e {
        crate::driver::DriverError::Scheduler(e) | crate::driver::DriverError::Refused(e) => e,
        crate::driver::DriverError::Log(e) => OnlineError::Log(e),
    })
}
