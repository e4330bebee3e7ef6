//! Runs kind `"placement"`.
use crate::doc::placement::{PlacementDoc, PlacementResult};
use crate::error::RunError;
use crate::run::RunOptions;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::placement::PlacementScenario;

/// Runs the scenario with the policy of `opts` (default: the kind's own algorithm).
pub fn run<S: LogSink>(
    _doc: &PlacementDoc,
    _scn: &PlacementScenario,
    opts: &RunOptions,
    _sink: &mut S,
) -> Result<PlacementResult, RunError> {
    if let Some(p) = opts.policy.as_deref().filter(|p| *p != "placement") {
        return Err(crate::run::unknown_policy("placement", p, policies()));
    }
    Err(RunError::Runtime(
        "kind \"placement\" has no scheduler in this build yet".into(),
    ))
}

/// The human summary `mlsched run` prints.
pub fn summary_text(r: &PlacementResult) -> String {
    format!("{} ({}), log_hash {}", r.kind, r.policy, r.log_hash)
}

/// Policies this kind accepts with `--policy` (the first is the kind's own algorithm).
pub fn policies() -> &'static [&'static str] {
    &["placement"]
}
