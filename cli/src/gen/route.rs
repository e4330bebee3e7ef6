//! Generator of kind `"route"` scenarios.
use super::GenOptions;
use crate::doc::route::RouteDoc;
use crate::error::RunError;

/// Generates a `"route"` scenario.
pub fn generate(_opts: &GenOptions) -> Result<RouteDoc, RunError> {
    Err(RunError::Runtime(
        "`mlsched gen route` is not available in this build yet".into(),
    ))
}
