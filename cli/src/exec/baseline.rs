//! Baseline policies (`--policy fifo|drf|las|optimus`) on the kinds where they make sense.
use crate::doc::oasis::{OasisDoc, OasisResult};
use crate::doc::online::{OnlineDoc, OnlineResult};
use crate::error::RunError;
use crate::run::unknown_policy;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::oasis::OasisScenario;
use mlsched_kernel::model::online::OnlineScenario;

/// Policies accepted by kind "oasis" (the first is the kind's own algorithm).
pub const OASIS_POLICIES: &[&str] = &["oasis"];
/// Policies accepted by kind "online".
pub const ONLINE_POLICIES: &[&str] = &["online"];

/// Runs a baseline `policy` on an "oasis" scenario.
pub fn run_oasis<S: LogSink>(
    policy: &str,
    _doc: &OasisDoc,
    _scn: &OasisScenario,
    _sink: &mut S,
) -> Result<OasisResult, RunError> {
    Err(unknown_policy("oasis", policy, OASIS_POLICIES))
}

/// Runs a baseline `policy` on an "online" scenario.
pub fn run_online<S: LogSink>(
    policy: &str,
    _doc: &OnlineDoc,
    _scn: &OnlineScenario,
    _sink: &mut S,
) -> Result<OnlineResult, RunError> {
    Err(unknown_policy("online", policy, ONLINE_POLICIES))
}
