//! The open world of the baselines (issue 46, `docs/open-world.md`, "Kind baseline"): one rule
//! for every policy of [`super::oasis::OasisBaseline`] and [`super::online::OnlineBaseline`].
//!
//! The baselines are slot-by-slot schedulers: each slot they allocate against the capacity in
//! force, so the open world is mostly a question of *what capacity is in force* and *which
//! jobs are still in the queue*. This module holds that state (`World`): per server the
//! capacity in force (a `capacity` event sets it; while the server is down it is the capacity
//! it comes back with) and whether it is down (then its capacity in force is 0), per job
//! whether it was cancelled and how often the open world interrupted it. Every place that
//! reads a server's capacity (the pools, the online usage ledger, dominant-share totals,
//! Dorm's knapsack bounds, Tiresias' GPU budget, RRH's "fits alone") reads it from here.
//!
//! The records: [`CancelRec`] (tag [`TAG_BASELINE_CANCEL`]) and [`InterruptRec`] (tag
//! [`TAG_BASELINE_INTERRUPT`]), carried by the kinds' existing decision variants in their
//! `world` field (so the decision enums, matched by the engine layer, keep their variants).
use super::BaselineError;
use crate::api::Event;
use crate::log::{LogError, LogSink, TAG_BASELINE};
use crate::record::log_record;
use crate::resources::ResourceVec;
use crate::world::{check_capacity, OpenWorldError};
use crate::Slot;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Tag of a [`CancelRec`] (after [`super::online::TAG_BASELINE_PREEMPT`]).
pub const TAG_BASELINE_CANCEL: u8 = TAG_BASELINE + 0x11;
/// Tag of an [`InterruptRec`].
pub const TAG_BASELINE_INTERRUPT: u8 = TAG_BASELINE + 0x12;

/// `cause` of an [`InterruptRec`]: the server went down.
pub const CAUSE_SERVER_DOWN: u8 = 0;
/// `cause` of an [`InterruptRec`]: a capacity cut left the server over-used.
pub const CAUSE_CAPACITY: u8 = 1;

/// Job `job` was cancelled at `slot`: it holds nothing from `slot` on and leaves the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelRec {
    /// The cancel slot T.
    pub slot: u32,
    /// The job.
    pub job: u32,
    /// It held resources when cancelled (they are free from T on).
    pub running: bool,
    /// The policy's code (tag offset of its slot / start records).
    pub policy: u8,
}

/// Job `job`, holding server `server`, was interrupted at `slot`: it holds nothing from
/// `slot` on and is back in the queue with the work it has done (recovered: the policy places
/// it again when it decides so, paying the restart cost of [`crate::restart`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptRec {
    /// The event's slot T.
    pub slot: u32,
    /// The job.
    pub job: u32,
    /// The server whose event interrupted it (kind's server index, `crate::world`).
    pub server: u32,
    /// [`CAUSE_SERVER_DOWN`] or [`CAUSE_CAPACITY`].
    pub cause: u8,
    /// The slot its interrupted run started.
    pub start: u32,
    /// The policy's code.
    pub policy: u8,
}

log_record!(
    CancelRec,
    TAG_BASELINE_CANCEL,
    "baseline cancel",
    "baseline.cancelled"
);
log_record!(
    InterruptRec,
    TAG_BASELINE_INTERRUPT,
    "baseline interruption",
    "baseline.interrupted"
);

/// An open-world record, carried by a kind's decision (`world` field of its record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorldRec {
    /// A cancel.
    Cancelled(CancelRec),
    /// An interruption.
    Interrupted(InterruptRec),
}

impl WorldRec {
    /// Writes the record under its tag.
    pub(crate) fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), LogError> {
        match self {
            WorldRec::Cancelled(r) => sink.record(TAG_BASELINE_CANCEL, r),
            WorldRec::Interrupted(r) => sink.record(TAG_BASELINE_INTERRUPT, r),
        }
    }
}

/// What an accepted open-world event changes (after [`World::apply`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// Nothing on the servers (a cancel, or a capacity event on a down server).
    None,
    /// Server `h`'s capacity in force changed; jobs over it must be interrupted with `cause`.
    Server(usize, u8),
}

/// Capacity in force, down servers, cancelled jobs: see the module docs.
#[derive(Clone, Debug)]
pub(crate) struct World {
    /// Per server: the capacity in force (while down: the capacity it comes back with).
    cap: Vec<ResourceVec>,
    down: Vec<bool>,
    zero: ResourceVec,
    /// Per job.
    cancelled: Vec<bool>,
    /// Per job: interruptions so far.
    interrupted: Vec<u32>,
    /// The latest slot of an event fed (the clock of [`World::status`] rules).
    pub(crate) clock: Slot,
    /// The run ended ([`crate::api::Scheduler::finish`]).
    pub(crate) ended: bool,
}

impl World {
    /// The closed world: every server up with its scenario capacity, no job cancelled.
    pub(crate) fn new(
        cap: &[ResourceVec],
        jobs: usize,
        resources: usize,
    ) -> Result<Self, BaselineError> {
        Ok(World {
            cap: cap.to_vec(),
            down: vec![false; cap.len()],
            zero: ResourceVec::zeros(resources)?,
            cancelled: vec![false; jobs],
            interrupted: vec![0; jobs],
            clock: 0,
            ended: false,
        })
    }

    /// One more job (a submission).
    pub(crate) fn push_job(&mut self) {
        self.cancelled.push(false);
        self.interrupted.push(0);
    }

    /// The capacity in force on server `h` now (0 while it is down).
    pub(crate) fn in_force(&self, h: usize) -> ResourceVec {
        match (self.down.get(h), self.cap.get(h)) {
            (Some(false), Some(c)) => *c,
            _ => self.zero,
        }
    }

    /// Job `j` was cancelled.
    pub(crate) fn cancelled(&self, j: usize) -> bool {
        self.cancelled.get(j).copied().unwrap_or(false)
    }

    /// Counts an interruption of job `j`.
    pub(crate) fn interrupt(&mut self, j: usize) {
        if let Some(n) = self.interrupted.get_mut(j) {
            *n = n.saturating_add(1);
        }
    }

    /// Interruptions of job `j` so far.
    pub(crate) fn interruptions(&self, j: usize) -> u32 {
        self.interrupted.get(j).copied().unwrap_or(0)
    }

    /// Checks an open-world event completely (changes nothing): `jobs` jobs, `ended(j)` says
    /// whether job j has already ended (finished or cancelled; a cancel of it is refused).
    pub(crate) fn check(
        &self,
        event: &Event<u32>,
        jobs: usize,
        ended: impl Fn(usize) -> bool,
    ) -> Result<(), OpenWorldError> {
        let server = |h: u32| -> Result<usize, OpenWorldError> {
            (h as usize)
                .lt(&self.cap.len())
                .then_some(h as usize)
                .ok_or(OpenWorldError::UnknownServer { server: h })
        };
        match event {
            Event::JobCancelled(j) => {
                if *j as usize >= jobs {
                    return Err(OpenWorldError::UnknownJob { job: *j });
                }
                if self.cancelled(*j as usize) || ended(*j as usize) {
                    return Err(OpenWorldError::JobEnded { job: *j });
                }
            }
            Event::ServerDown(h) => {
                if self.down[server(*h)?] {
                    return Err(OpenWorldError::ServerDown { server: *h });
                }
            }
            Event::ServerUp(h) => {
                if !self.down[server(*h)?] {
                    return Err(OpenWorldError::ServerUp { server: *h });
                }
            }
            Event::Capacity(h, c) => {
                server(*h)?;
                check_capacity(*h, c, self.zero.len())?;
            }
            Event::JobArrived(_) | Event::SlotAdvanced | Event::JobFinished(_) => {}
        }
        Ok(())
    }

    /// Applies a checked event to the world state.
    pub(crate) fn apply(&mut self, event: &Event<u32>) -> Change {
        match *event {
            Event::JobCancelled(j) => {
                if let Some(c) = self.cancelled.get_mut(j as usize) {
                    *c = true;
                }
                Change::None
            }
            Event::ServerDown(h) => {
                self.down[h as usize] = true;
                Change::Server(h as usize, CAUSE_SERVER_DOWN)
            }
            Event::ServerUp(h) => {
                self.down[h as usize] = false;
                Change::Server(h as usize, CAUSE_CAPACITY)
            }
            Event::Capacity(h, c) => {
                self.cap[h as usize] = c;
                if self.down[h as usize] {
                    Change::None
                } else {
                    Change::Server(h as usize, CAUSE_CAPACITY)
                }
            }
            Event::JobArrived(_) | Event::SlotAdvanced | Event::JobFinished(_) => Change::None,
        }
    }
}

/// Over-use of `used` against `cap` (any resource above it, with the ledger's tolerance).
pub(crate) fn over(used: &ResourceVec, cap: &ResourceVec) -> bool {
    (0..cap.len()).any(|r| {
        let c = cap.get(r);
        used.get(r) > c + 1e-9 * if c > 1.0 { c } else { 1.0 }
    })
}

/// A submitted job's field that the scenario build would refuse: one finite, non-negative
/// number where the model needs one, a positive count where it needs one, and vectors as long
/// as the scenario's resources / types. `Err(field)` names the first bad field.
pub(crate) fn check_counts(
    jobs: usize,
    counts: &[(&'static str, u32)],
    numbers: &[(&'static str, f64)],
) -> Result<(), BaselineError> {
    crate::limits::check(crate::error::Limit::Jobs, jobs + 1, crate::limits::JOBS_MAX)?;
    if let Some((field, _)) = counts.iter().find(|(_, c)| *c == 0) {
        return Err(BaselineError::InvalidJob { field });
    }
    if let Some((field, _)) = numbers.iter().find(|(_, x)| !x.is_finite() || *x < 0.0) {
        return Err(BaselineError::InvalidJob { field });
    }
    Ok(())
}

/// A demand vector of `resources` finite, non-negative entries.
pub(crate) fn check_vec(
    field: &'static str,
    v: &ResourceVec,
    resources: usize,
) -> Result<(), BaselineError> {
    if v.len() != resources || v.as_slice().iter().any(|x| !x.is_finite() || *x < 0.0) {
        return Err(BaselineError::InvalidJob { field });
    }
    Ok(())
}
