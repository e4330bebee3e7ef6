//! [`Decision`]: one kernel decision as the façade hands it out.
use crate::kinds::placement::doc::PlacementCategory;
use mlsched_kernel::baseline::{oasis::SlotRec, online::StartRec};
use mlsched_kernel::preempt::{CandidateRec, DispatchRec};
use mlsched_kernel::route::{AggRec, DecisionRec as RoutePlaced};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// One decision of the engine: which record it is, the job it concerns and the kernel's record
/// (with its explanation: prices, costs, candidates, the reason of a rejection, ...).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    /// The record's name, `<kind>.<record>`: `oasis.decision`, `oasis.slot`, `online.decision`,
    /// `online.placed`, `baseline.unit`, `baseline.slot`, `baseline.placed`, `baseline.start`,
    /// `baseline.preempted` (AntMan's cut of an opportunistic run),
    /// `placement.category`, `placement.record`, `preempt.candidate`, `preempt.dispatch`,
    /// `preempt.ps`, `preempt.ps_miss`, `route.pso`, `route.aggregation`, `route.placed`,
    /// `route.summary`.
    pub record: &'static str,
    /// The job index (input order) the decision concerns, if one.
    pub job: Option<u32>,
    /// The record's fields (`docs/engine.md`), serialised as a JSON object.
    pub data: Data,
}

/// The record of a [`Decision`]. The records an explanation reads (the visualiser's) are kept
/// typed, so no reader compiles a JSON parser of them; the others are JSON already.
///
/// Serialised, every variant is the JSON of the record as `serde_json::to_value` writes it
/// (object keys sorted, a non-finite number as `null`, `null` for a record JSON cannot hold):
/// the same bytes whether the record is typed or not.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Data {
    /// A record as JSON (the ones no explanation reads; `null` for none).
    Json(Value),
    /// `oasis.decision`.
    OasisDecision(mlsched_kernel::oasis::OasisJobDecision),
    /// `baseline.slot` (an OASiS-kind baseline).
    BaselineSlot(SlotRec),
    /// `online.decision`.
    OnlineDecision(mlsched_kernel::online::OnlineJobDecision),
    /// `baseline.start` (an online-kind baseline).
    BaselineStart(StartRec),
    /// `preempt.candidate`.
    Candidate(CandidateRec),
    /// `preempt.dispatch`.
    Dispatch(DispatchRec),
    /// `placement.category`.
    Category(PlacementCategory),
    /// `route.aggregation`.
    Aggregation(AggRec),
    /// `route.placed`.
    RoutePlaced(RoutePlaced),
}

impl Data {
    /// True for the JSON `null` (no record).
    pub fn is_null(&self) -> bool {
        matches!(self, Data::Json(Value::Null))
    }

    /// The record as a JSON value (what [`Serialize`] writes).
    pub fn to_value(&self) -> Value {
        match self {
            Data::Json(v) => v.clone(),
            Data::OasisDecision(r) => value(r),
            Data::BaselineSlot(r) => value(r),
            Data::OnlineDecision(r) => value(r),
            Data::BaselineStart(r) => value(r),
            Data::Candidate(r) => value(r),
            Data::Dispatch(r) => value(r),
            Data::Category(r) => value(r),
            Data::Aggregation(r) => value(r),
            Data::RoutePlaced(r) => value(r),
        }
    }
}

/// `serde_json::to_value`, `null` on failure (a `u128` beyond `u64`): what the engine has always
/// handed out.
fn value<T: Serialize + ?Sized>(rec: &T) -> Value {
    serde_json::to_value(rec).unwrap_or(Value::Null)
}

impl Serialize for Data {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Data::Json(v) => v.serialize(s),
            // Through a `Value`, so the keys come sorted as they always did.
            other => other.to_value().serialize(s),
        }
    }
}

/// The record's JSON text (compact), as `serde_json::Value` displays it.
impl std::fmt::Display for Data {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Data::Json(v) => v.fmt(f),
            other => other.to_value().fmt(f),
        }
    }
}

impl Decision {
    /// A decision from a serialisable kernel record, kept as JSON.
    pub fn of<T: Serialize + ?Sized>(record: &'static str, job: Option<u32>, rec: &T) -> Self {
        Decision {
            record,
            job,
            data: Data::Json(value(rec)),
        }
    }

    /// A decision with a typed record.
    pub fn typed(record: &'static str, job: Option<u32>, data: Data) -> Self {
        Decision { record, job, data }
    }
}
