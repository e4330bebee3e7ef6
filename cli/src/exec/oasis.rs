//! Runs kind `"oasis"`.
use crate::doc::oasis::{OasisDoc, OasisResult};
use crate::error::RunError;
use crate::run::RunOptions;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::oasis::OasisScenario;

/// Runs the scenario with the policy of `opts` (default: the kind's own algorithm).
pub fn run<S: LogSink>(
    doc: &OasisDoc,
    scn: &OasisScenario,
    opts: &RunOptions,
    sink: &mut S,
) -> Result<OasisResult, RunError> {
    if let Some(p) = opts.policy.as_deref().filter(|p| *p != "oasis") {
        return super::baseline::run_oasis(p, doc, scn, sink);
    }
    Err(RunError::Runtime(
        "kind \"oasis\" has no scheduler in this build yet".into(),
    ))
}

/// The human summary `mlsched run` prints.
pub fn summary_text(r: &OasisResult) -> String {
    format!("{} ({}), log_hash {}", r.kind, r.policy, r.log_hash)
}

/// Policies this kind accepts with `--policy` (the first is the kind's own algorithm).
pub fn policies() -> &'static [&'static str] {
    super::baseline::OASIS_POLICIES
}
