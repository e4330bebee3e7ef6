//! [`OasisScheduler`]: Alg. 1 as an embeddable [`Scheduler`] value.
use super::fast::{DpSize, FastDp, Schedule};
use super::grid::{TIDY_BACKLOG, TIDY_LEAVES, TIDY_LIGHT_SLOTS};
use super::ledger::Ledger;
use super::market::{JobParams, Market};
use super::records::{OasisDecision, OasisSlotRecord};
use super::world::{BoundsFrom, World};
use super::{OasisError, OasisJobDecision};
use crate::api::{Event, Record, Scheduler};
use crate::error::Limit;
use crate::limits::{self, JOBS_MAX, OASIS_DP_CELLS_MAX};
use crate::log::LogSink;
use crate::model::oasis::{OasisJob, OasisScenario, PriceBounds};
use crate::num::canon;
use crate::resources::ResourceVec;
use crate::restart::RestartCost;
use alloc::vec;
use alloc::vec::Vec;

/// OASiS (Alg. 1) over one scenario: feed [`Event::JobArrived`] with the job's index at its
/// arrival slot; each arrival yields one [`OasisJobDecision`], and an admitted job's schedule moves the
/// prices every later job sees. All scratch is allocated by [`OasisScheduler::new`].
#[derive(Clone, Debug)]
pub struct OasisScheduler {
    pub(super) market: Market,
    pub(super) jobs: Vec<OasisJob>,
    pub(super) params: Vec<JobParams>,
    pub(super) decided: Vec<bool>,
    pub(super) dp: FastDp,
    /// The size `dp` was allocated for (submissions and continuations may grow it).
    pub(super) size: DpSize,
    pub(super) now: u32,
    bounds_derived: bool,
    /// Per job, the reservations of its schedule (open world: cancels, interruptions).
    pub(super) ledger: Ledger,
    /// The open-world state (`super::world`).
    pub(super) ow: World,
    /// The restart time plans are executed under (`super::execute`; `None`: not modelled).
    pub(super) restart: Option<RestartCost>,
}

impl OasisScheduler {
    /// Builds the scheduler: price bounds from the scenario, or eqs. (23)-(26) when absent.
    /// With neither `prices` nor a job, no bounds can be derived: the scheduler is built (it
    /// has nothing to decide) and refuses every submission ([`OasisError::NoPriceBounds`]).
    pub fn new(scn: &OasisScenario) -> Result<Self, OasisError> {
        let (bounds, from) = match scn.prices {
            Some(b) => (b, BoundsFrom::Given),
            None if scn.jobs.is_empty() => {
                // any valid bounds: no job is ever priced with them
                let one = ResourceVec::from_slice(&[1.0; crate::limits::RESOURCES_MAX])
                    .ok()
                    .and_then(|v| {
                        ResourceVec::from_slice(v.as_slice().get(..scn.resources as usize)?).ok()
                    })
                    .ok_or(OasisError::Shape)?;
                let b = PriceBounds {
                    u_worker: one,
                    u_ps: one,
                    l_worker: 1.0,
                    l_ps: 1.0,
                };
                (b, BoundsFrom::Unknown)
            }
            None => (
                crate::price::oasis_bounds(scn).map_err(|_| OasisError::Bounds)?,
                BoundsFrom::Derived(alloc::boxed::Box::new(scn.clone())),
            ),
        };
        Self::with_bounds(scn, bounds, from)
    }

    fn with_bounds(
        scn: &OasisScenario,
        bounds: PriceBounds,
        from: BoundsFrom,
    ) -> Result<Self, OasisError> {
        let derived = matches!(from, BoundsFrom::Derived(_));
        limits::check(Limit::Jobs, scn.jobs.len(), JOBS_MAX)?;
        let market = Market::new(scn, bounds)?;
        let r = scn.resources as usize;
        let params: Vec<JobParams> = scn.jobs.iter().map(JobParams::of).collect();
        let mut size = DpSize {
            slots: scn.slots as usize,
            workers: scn.worker_servers.len(),
            ps: scn.ps_servers.len(),
            ..DpSize::default()
        };
        for (i, (p, j)) in params.iter().zip(&scn.jobs).enumerate() {
            if p.worker_demand.len() != r || p.ps_demand.len() != r {
                return Err(OasisError::Shape);
            }
            if let Some(s) = FastDp::size_of(&market, p, &j.utility) {
                // The DP table is per job: the error names the job whose table is too big.
                let dp = |cells| {
                    limits::check(Limit::OasisDpCells, cells, OASIS_DP_CELLS_MAX)
                        .map_err(|e| e.for_job(i as u32))
                };
                dp(s.cells)?;
                dp(s.pairs_w)?;
                dp(s.pairs_p)?;
                size = size.max(s);
            }
        }
        let caps = scn.worker_servers.iter().chain(&scn.ps_servers).copied();
        Ok(OasisScheduler {
            market,
            jobs: scn.jobs.clone(),
            decided: vec![false; params.len()],
            ledger: Ledger::new(params.len()),
            ow: World::new(params.len(), caps.collect(), from),
            params,
            dp: FastDp::new(size),
            size,
            now: 0,
            bounds_derived: derived,
            restart: None,
        })
    }

    /// The priced cluster (usage and prices) as it stands. Its slot trees may still owe
    /// the last admission's cells ([`Self::settle`]); every query of usage and prices is in
    /// line regardless, and a [`FastDp::decide`] on it refuses until settled.
    pub fn market(&self) -> &Market {
        &self.market
    }

    /// Brings the market's slot trees in line with the last admission (`docs/oasis.md`,
    /// "Settling"): [`Self::decide`] returns before that and does it when the next decision
    /// starts; a host may call this in idle time between arrivals instead. The decisions are
    /// the same either way.
    pub fn settle(&mut self) {
        self.market.settle();
    }

    /// Drops the market's slot trees ([`Market::drop_grids`]): decisions then sweep the
    /// time-major copies, with the same results (for tests and benchmarks comparing the two).
    #[doc(hidden)]
    pub fn drop_grids(&mut self) {
        self.market.drop_grids();
    }

    /// True when the price bounds were derived from the job list (eqs. 23-26).
    pub fn bounds_derived(&self) -> bool {
        self.bounds_derived
    }

    /// The schedule of the last decision (valid until the next one).
    pub fn last_schedule(&self) -> Schedule<'_> {
        self.dp.schedule()
    }

    /// DP cells computed by the last decision.
    pub fn last_work(&self) -> u64 {
        self.dp.cells
    }

    /// The job constants of job `idx`.
    pub fn job(&self, idx: u32) -> Option<&JobParams> {
        self.params.get(idx as usize)
    }

    /// Job indices in the order OASiS sees them: by arrival, equal arrivals in input order.
    pub fn arrival_order(&self) -> Vec<u32> {
        let mut idx: Vec<u32> = (0..self.params.len() as u32).collect();
        let key = |i: u32| (self.params[i as usize].arrival, i);
        crate::order::sort_indices_by(&mut idx, &|a, b| key(a).cmp(&key(b)));
        idx
    }

    /// Makes room in the sparse market for the commit of job `idx`'s schedule, so that the
    /// decision of `idx` ([`Self::decide`], [`Self::decide_logged`]) allocates nothing. This is
    /// the only step of a decision that may grow storage (amortised: the arena keeps room for
    /// the largest schedule job `idx` can have, and is compacted here when mostly garbage).
    /// [`Self::decide`] calls it itself; call it before to keep the decision allocation-free.
    pub fn reserve(&mut self, idx: u32) {
        let (Some(p), Some(j)) = (self.params.get(idx as usize), self.jobs.get(idx as usize))
        else {
            return;
        };
        if let Some(s) = FastDp::size_of(&self.market, p, &j.utility) {
            self.market.reserve(s.pairs_w, s.pairs_p);
            self.ledger.reserve(s.rows + s.pairs_w + s.pairs_p);
            let rows = u32::try_from(s.rows).unwrap_or(u32::MAX);
            self.market.reserve_window(p, p.arrival, rows);
        }
    }

    /// Decides job `idx` at slot `now` and commits an admitted schedule (Alg. 1 lines 4-17).
    pub fn decide(&mut self, now: u32, idx: u32) -> Result<OasisJobDecision, OasisError> {
        let i = idx as usize;
        let (Some(job), Some(p), Some(done)) =
            (self.jobs.get(i), self.params.get(i), self.decided.get(i))
        else {
            return Err(OasisError::UnknownJob { job: idx });
        };
        if *done {
            return Err(OasisError::AlreadyDecided { job: idx });
        }
        if now != p.arrival || now < self.now {
            return Err(OasisError::EventTime { job: idx, now });
        }
        let p = *p;
        let _ = job;
        // the last admission's cells reach the slot trees now, not before it returned
        self.market.settle();
        self.reserve(idx);
        let Some(job) = self.jobs.get(i) else {
            return Err(OasisError::UnknownJob { job: idx });
        };
        self.market.advance(now);
        let d = self.dp.decide(&self.market, idx, &p, &job.utility)?;
        if d.admitted {
            commit_owed(&mut self.market, &p, &self.dp.schedule());
            let h = self.market.workers.servers();
            self.ledger.admit(idx, &self.dp.schedule(), h, false);
        }
        self.ow.decided(&d, now);
        // the slot trees' summaries that commits left loose are redone by light decisions
        // (no decision depends on it: a work count, not a clock, says which)
        if (!d.admitted && self.dp.listed <= TIDY_LIGHT_SLOTS)
            || self.market.untidy() > TIDY_BACKLOG
        {
            self.market.tidy(TIDY_LEAVES);
        }
        if let Some(done) = self.decided.get_mut(i) {
            *done = true;
        }
        self.now = now;
        Ok(d)
    }

    /// [`Self::decide`], then logs the decision and (if admitted) every slot of its schedule:
    /// the records [`Scheduler::on_event`] yields for the arrival, written straight to `sink`.
    pub fn decide_logged<S: LogSink>(
        &mut self,
        now: u32,
        idx: u32,
        sink: &mut S,
    ) -> Result<OasisJobDecision, OasisError> {
        let d = self.decide(now, idx)?;
        let mut failed = None;
        emit(&d, &self.dp.schedule(), &mut |o: &OasisDecision<'_>| {
            if failed.is_none() {
                failed = o.log(sink).err();
            }
        });
        failed.map_or(Ok(d), |e| Err(OasisError::Log(e)))
    }
}

/// Passes a decision and (if admitted) every slot of its schedule to `out`.
pub(super) fn emit<F: FnMut(&OasisDecision<'_>) + ?Sized>(
    d: &OasisJobDecision,
    s: &Schedule<'_>,
    out: &mut F,
) {
    out(&OasisDecision::Decision(d));
    if d.admitted {
        for sp in s.iter() {
            out(&OasisDecision::Slot(OasisSlotRecord {
                job: d.job,
                slot: sp.slot,
                chunks: sp.chunks,
                workers: sp.worker_pairs,
                ps: sp.ps_pairs,
                cost: canon(sp.cost),
            }));
        }
    }
}

/// Adds an admitted schedule's usage and reprices the touched cells (Alg. 1 lines 8-12).
pub fn commit(m: &mut Market, job: &JobParams, s: &Schedule<'_>) {
    book(m, job, s);
    m.merge();
    checked(m, s);
}

/// [`commit`], leaving the slot trees' sync owed ([`Market::settle`]): the breakpoints,
/// prices and census are in line at once, the trees by the next decision.
pub(crate) fn commit_owed(m: &mut Market, job: &JobParams, s: &Schedule<'_>) {
    book(m, job, s);
    m.merge_owed();
    checked(m, s);
}

/// Records a schedule's bookings in `m` (applied by its merge).
fn book(m: &mut Market, job: &JobParams, s: &Schedule<'_>) {
    for sp in s.iter() {
        for &[h, y] in sp.worker_pairs {
            m.add_workers_raw(sp.slot, h, job, y);
        }
        for &[k, z] in sp.ps_pairs {
            m.add_ps_raw(sp.slot, k, job, z);
        }
    }
}

/// Checks (debug builds) that a committed schedule kept every used slot within capacity.
fn checked(m: &Market, s: &Schedule<'_>) {
    let _ = (m, s);
    debug_assert!(
        s.iter()
            .all(|sp| m.workers.within_capacity(sp.slot) && m.ps.within_capacity(sp.slot)),
        "oasis: an admitted schedule pushed usage above capacity"
    );
}

impl Scheduler for OasisScheduler {
    type Job = u32;
    type Decision<'a> = OasisDecision<'a>;
    type Error = OasisError;

    /// `JobArrived(i)` at a_i: the decision, then the admitted schedule's slots. The
    /// open-world events: `super::world` (`docs/open-world.md`, "Kind oasis").
    fn on_event<F: FnMut(&OasisDecision<'_>) + ?Sized>(
        &mut self,
        now: u32,
        event: Event<u32>,
        out: &mut F,
    ) -> Result<(), OasisError> {
        match event {
            Event::JobCancelled(_)
            | Event::ServerDown(_)
            | Event::ServerUp(_)
            | Event::Capacity(..) => self.world_event(now, event, out)?,
            Event::JobArrived(i) => {
                let d = self.decide(now, i)?;
                emit(&d, &self.dp.schedule(), out);
            }
            // OASiS reserves a job's whole schedule at admission: nothing to do on the clock
            // or on completion (the schedule ends at t_hat by construction).
            Event::SlotAdvanced | Event::JobFinished(_) => {
                if now < self.now {
                    return Err(OasisError::EventTime { job: u32::MAX, now });
                }
                self.now = now;
            }
        }
        Ok(())
    }

    /// The run is over: statuses are final ([`OasisScheduler::status`]); no record.
    fn finish<F: FnMut(&OasisDecision<'_>) + ?Sized>(
        &mut self,
        out: &mut F,
    ) -> Result<(), OasisError> {
        let _ = out;
        self.ow.finished = true;
        Ok(())
    }
}
