//! Runs kind `"preempt"`.
use crate::doc::preempt::{PreemptDoc, PreemptResult};
use crate::error::RunError;
use crate::run::RunOptions;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::preempt::PreemptScenario;

/// Runs the scenario with the policy of `opts` (default: the kind's own algorithm).
pub fn run<S: LogSink>(
    _doc: &PreemptDoc,
    _scn: &PreemptScenario,
    opts: &RunOptions,
    _sink: &mut S,
) -> Result<PreemptResult, RunError> {
    if let Some(p) = opts.policy.as_deref().filter(|p| *p != "preempt") {
        return Err(crate::run::unknown_policy("preempt", p, policies()));
    }
    Err(RunError::Runtime(
        "kind \"preempt\" has no scheduler in this build yet".into(),
    ))
}

/// The human summary `mlsched run` prints.
pub fn summary_text(r: &PreemptResult) -> String {
    format!("{} ({}), log_hash {}", r.kind, r.policy, r.log_hash)
}

/// Policies this kind accepts with `--policy` (the first is the kind's own algorithm).
pub fn policies() -> &'static [&'static str] {
    &["preempt"]
}
