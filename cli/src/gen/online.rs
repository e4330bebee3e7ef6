//! Generator of kind `"online"` scenarios.
use super::GenOptions;
use crate::doc::online::OnlineDoc;
use crate::error::RunError;

/// Generates a `"online"` scenario.
pub fn generate(_opts: &GenOptions) -> Result<OnlineDoc, RunError> {
    Err(RunError::Runtime(
        "`mlsched gen online` is not available in this build yet".into(),
    ))
}
