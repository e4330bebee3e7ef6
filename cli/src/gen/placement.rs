//! Generator of kind `"placement"` scenarios.
use super::GenOptions;
use crate::doc::placement::PlacementDoc;
use crate::error::RunError;

/// Generates a `"placement"` scenario.
pub fn generate(_opts: &GenOptions) -> Result<PlacementDoc, RunError> {
    Err(RunError::Runtime(
        "`mlsched gen placement` is not available in this build yet".into(),
    ))
}
