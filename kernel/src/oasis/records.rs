//! The OASiS decision records (tags [`TAG_OASIS_DECISION`] and [`TAG_OASIS_SLOT`]) and
//! [`OasisDecision`], what [`super::OasisScheduler`] passes out per arrival.
use super::OasisJobDecision;
use crate::api::Record;
use crate::log::{LogError, LogSink, TAG_OASIS};
use crate::num::canon;
use serde::Serialize;

/// Tag of an OASiS decision record ([`OasisRecord`]).
pub const TAG_OASIS_DECISION: u8 = TAG_OASIS;
/// Tag of one slot of an admitted schedule ([`OasisSlotRecord`]).
pub const TAG_OASIS_SLOT: u8 = TAG_OASIS + 1;
/// Tag of an open-world outcome: a cancel, or an interruption recovered or lost
/// ([`OasisWorldRecord`]).
pub const TAG_OASIS_WORLD: u8 = TAG_OASIS + 2;

/// The logged form of an [`OasisJobDecision`] (no `usize`, canonical floats).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OasisRecord {
    /// Job index.
    pub job: u32,
    /// a_i.
    pub arrival: u32,
    /// x_i.
    pub admitted: bool,
    /// [`super::Reason::code`].
    pub reason: u8,
    /// t_hat, or `u32::MAX` when no schedule is feasible.
    pub completion_slot: u32,
    /// f_i(t_hat - a_i).
    pub utility: f64,
    /// Cost of the best schedule.
    pub cost: f64,
    /// mu_i.
    pub payoff: f64,
}

impl From<&OasisJobDecision> for OasisRecord {
    fn from(d: &OasisJobDecision) -> Self {
        OasisRecord {
            job: d.job,
            arrival: d.arrival,
            admitted: d.admitted,
            reason: d.reason.code(),
            completion_slot: d.completion_slot.unwrap_or(u32::MAX),
            utility: canon(d.utility),
            cost: canon(d.cost),
            payoff: canon(d.payoff),
        }
    }
}

/// An open-world outcome as logged (tag [`TAG_OASIS_WORLD`]): the job cancelled, or interrupted
/// by the event on `server` and recovered (its new schedule's slots follow, tag
/// [`TAG_OASIS_SLOT`]) or lost.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OasisWorldRecord {
    /// The event's slot T.
    pub slot: u32,
    /// Job index.
    pub job: u32,
    /// 3 cancelled, 4 recovered, 5 lost ([`super::Reason::code`]).
    pub outcome: u8,
    /// The event's server (kernel server index), `u32::MAX` for a cancel.
    pub server: u32,
    /// The continuation's t_hat, or `u32::MAX` (cancelled, lost).
    pub completion_slot: u32,
    /// f_i(t_hat - a_i) with the job's original a_i (0 unless recovered).
    pub utility: f64,
    /// The continuation's cost at the event's prices (0 unless recovered).
    pub cost: f64,
    /// utility - cost (0 unless recovered).
    pub payoff: f64,
}

impl From<&OasisJobDecision> for OasisWorldRecord {
    fn from(d: &OasisJobDecision) -> Self {
        OasisWorldRecord {
            slot: d.arrival,
            job: d.job,
            outcome: d.reason.code(),
            server: d.reason.server().unwrap_or(u32::MAX),
            completion_slot: d.completion_slot.unwrap_or(u32::MAX),
            utility: canon(d.utility),
            cost: canon(d.cost),
            payoff: canon(d.payoff),
        }
    }
}

/// One slot of an admitted schedule as logged: y_ih(t) and z_ik(t) pairs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OasisSlotRecord<'a> {
    /// Job index.
    pub job: u32,
    /// t.
    pub slot: u32,
    /// Chunks trained in t.
    pub chunks: u64,
    /// `[h, y]` pairs.
    pub workers: &'a [[u32; 2]],
    /// `[k, z]` pairs.
    pub ps: &'a [[u32; 2]],
    /// COST_t.
    pub cost: f64,
}

/// One OASiS decision record: the admission decision of an arrival (tag 0x10), then, if
/// admitted, one record per used slot of its schedule (tag 0x11). An open-world outcome is a
/// `Decision` whose [`super::Reason::is_world`] holds (its `arrival` is the event's slot): it
/// is logged as an [`OasisWorldRecord`] (tag 0x12), a recovery followed by its slots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OasisDecision<'a> {
    /// x_i with its explanation ([`OasisRecord`], tag [`TAG_OASIS_DECISION`]).
    Decision(&'a OasisJobDecision),
    /// y_ih(t), z_ik(t) of one slot t of the admitted schedule (tag [`TAG_OASIS_SLOT`]).
    Slot(OasisSlotRecord<'a>),
}

impl Record for OasisDecision<'_> {
    fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), LogError> {
        match self {
            OasisDecision::Decision(d) if d.reason.is_world() => {
                sink.record(TAG_OASIS_WORLD, &OasisWorldRecord::from(*d))
            }
            OasisDecision::Decision(d) => sink.record(TAG_OASIS_DECISION, &OasisRecord::from(*d)),
            OasisDecision::Slot(r) => sink.record(TAG_OASIS_SLOT, r),
        }
    }
}
