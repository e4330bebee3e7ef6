//! Runs kind `"online"`.
use crate::doc::online::{OnlineDoc, OnlineResult};
use crate::error::RunError;
use crate::run::RunOptions;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::online::OnlineScenario;

/// Runs the scenario with the policy of `opts` (default: the kind's own algorithm).
pub fn run<S: LogSink>(
    doc: &OnlineDoc,
    scn: &OnlineScenario,
    opts: &RunOptions,
    sink: &mut S,
) -> Result<OnlineResult, RunError> {
    if let Some(p) = opts.policy.as_deref().filter(|p| *p != "online") {
        return super::baseline::run_online(p, doc, scn, sink);
    }
    Err(RunError::Runtime(
        "kind \"online\" has no scheduler in this build yet".into(),
    ))
}

/// The human summary `mlsched run` prints.
pub fn summary_text(r: &OnlineResult) -> String {
    format!("{} ({}), log_hash {}", r.kind, r.policy, r.log_hash)
}

/// Policies this kind accepts with `--policy` (the first is the kind's own algorithm).
pub fn policies() -> &'static [&'static str] {
    super::baseline::ONLINE_POLICIES
}
