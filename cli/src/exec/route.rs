//! Runs kind `"route"`.
use crate::doc::route::{RouteDoc, RouteResult};
use crate::error::RunError;
use crate::run::RunOptions;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::route::RouteScenario;

/// Runs the scenario with the policy of `opts` (default: the kind's own algorithm).
pub fn run<S: LogSink>(
    _doc: &RouteDoc,
    _scn: &RouteScenario,
    opts: &RunOptions,
    _sink: &mut S,
) -> Result<RouteResult, RunError> {
    if let Some(p) = opts.policy.as_deref().filter(|p| *p != "route") {
        return Err(crate::run::unknown_policy("route", p, policies()));
    }
    Err(RunError::Runtime(
        "kind \"route\" has no scheduler in this build yet".into(),
    ))
}

/// The human summary `mlsched run` prints.
pub fn summary_text(r: &RouteResult) -> String {
    format!("{} ({}), log_hash {}", r.kind, r.policy, r.log_hash)
}

/// Policies this kind accepts with `--policy` (the first is the kind's own algorithm).
pub fn policies() -> &'static [&'static str] {
    &["route"]
}
