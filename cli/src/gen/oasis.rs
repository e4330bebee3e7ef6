//! Generator of kind `"oasis"` scenarios.
use super::GenOptions;
use crate::doc::oasis::OasisDoc;
use crate::error::RunError;

/// Generates a `"oasis"` scenario.
pub fn generate(_opts: &GenOptions) -> Result<OasisDoc, RunError> {
    Err(RunError::Runtime(
        "`mlsched gen oasis` is not available in this build yet".into(),
    ))
}
