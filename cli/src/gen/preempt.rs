//! Generator of kind `"preempt"` scenarios.
use super::GenOptions;
use crate::doc::preempt::PreemptDoc;
use crate::error::RunError;

/// Generates a `"preempt"` scenario.
pub fn generate(_opts: &GenOptions) -> Result<PreemptDoc, RunError> {
    Err(RunError::Runtime(
        "`mlsched gen preempt` is not available in this build yet".into(),
    ))
}
