//! [`Decision`]: one kernel decision as the façade hands it out.
use serde::Serialize;

/// One decision of the engine: which record it is, the job it concerns and the kernel's record
/// as JSON (with its explanation: prices, costs, candidates, the reason of a rejection, ...).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    /// The record's name, `<kind>.<record>`: `oasis.decision`, `oasis.slot`, `online.decision`,
    /// `online.placed`, `baseline.unit`, `baseline.slot`, `baseline.placed`, `baseline.start`,
    /// `placement.category`, `placement.record`, `preempt.candidate`, `preempt.dispatch`,
    /// `preempt.ps`, `preempt.ps_miss`, `route.pso`, `route.aggregation`, `route.placed`,
    /// `route.summary`.
    pub record: &'static str,
    /// The job index (input order) the decision concerns, if one.
    pub job: Option<u32>,
    /// The record's fields (`docs/engine.md`).
    pub data: serde_json::Value,
}

impl Decision {
    /// A decision from a serialisable kernel record.
    pub fn of<T: Serialize + ?Sized>(record: &'static str, job: Option<u32>, rec: &T) -> Self {
        Decision {
            record,
            job,
            data: serde_json::to_value(rec).unwrap_or(serde_json::Value::Null),
        }
    }
}
