//! The OASiS decision records (tags [`TAG_OASIS_DECISION`] and [`TAG_OASIS_SLOT`]) and
//! [`OasisDecision`], what [`super::OasisScheduler`] passes out per arrival.
use super::OasisJobDecision;
use crate::api::Record;
use crate::log::{LogError, LogSink, TAG_OASIS};
use crate::num::canon;
use crate::record::{log_record, LogRecord};
use serde::{Deserialize, Serialize};

/// Tag of an OASiS decision record ([`OasisRecord`]).
pub const TAG_OASIS_DECISION: u8 = TAG_OASIS;
/// Tag of one slot of an admitted schedule ([`OasisSlotRecord`]).
pub const TAG_OASIS_SLOT: u8 = TAG_OASIS + 1;
/// Tag of an open-world outcome: a cancel, or an interruption recovered or lost
/// ([`OasisWorldRecord`]).
pub const TAG_OASIS_WORLD: u8 = TAG_OASIS + 2;

/// The logged form of an [`OasisJobDecision`] (no `usize`, canonical floats).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
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

/// One slot of an admitted schedule as logged: y_ih(t) and z_ik(t) pairs, as the scheduler
/// writes it ([`OasisSlotRecordOf`] over borrowed pairs).
pub type OasisSlotRecord<'a> = OasisSlotRecordOf<&'a [[u32; 2]]>;

/// One slot of an admitted schedule, over any list `P` of `[server, count]` pairs: borrowed
/// when written ([`OasisSlotRecord`]), owned when a log is read back (`Vec<[u32; 2]>`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OasisSlotRecordOf<P> {
    /// Job index.
    pub job: u32,
    /// t.
    pub slot: u32,
    /// Chunks trained in t.
    pub chunks: u64,
    /// `[h, y]` pairs.
    pub workers: P,
    /// `[k, z]` pairs.
    pub ps: P,
    /// COST_t.
    pub cost: f64,
}

log_record!(
    OasisRecord,
    TAG_OASIS_DECISION,
    "oasis decision",
    "oasis.decision"
);
log_record!(
    OasisWorldRecord,
    TAG_OASIS_WORLD,
    "oasis world",
    "oasis.world"
);

impl<P> crate::record::LogRecord for OasisSlotRecordOf<P> {
    const TAG: u8 = TAG_OASIS_SLOT;
    const TITLE: &'static str = "oasis slot";
}

impl<P> crate::record::DecisionRecord for OasisSlotRecordOf<P> {
    const NAME: &'static str = "oasis.slot";
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
                sink.record(OasisWorldRecord::TAG, &OasisWorldRecord::from(*d))
            }
            OasisDecision::Decision(d) => sink.record(OasisRecord::TAG, &OasisRecord::from(*d)),
            OasisDecision::Slot(r) => sink.record(OasisSlotRecord::TAG, r),
        }
    }
}
