//! Scenario generators following each paper's evaluation settings (`mlsched gen KIND`).
use std::path::PathBuf;

/// What `mlsched gen` was asked for.
#[derive(Clone, Debug, Default)]
pub struct GenOptions {
    /// PRNG seed (printed first by the CLI).
    pub seed: u64,
    /// Number of jobs (kind default when `None`).
    pub jobs: Option<u32>,
    /// Number of nodes or servers (kind default when `None`).
    pub nodes: Option<u32>,
    /// Arrivals: `None` = Poisson, or a trace file from `../shared/data`.
    pub trace: Option<PathBuf>,
}

pub mod oasis;
pub mod online;
pub mod placement;
pub mod preempt;
pub mod route;

use crate::error::RunError;

/// Generates a scenario of `kind` as pretty JSON text.
pub fn generate_json(kind: &str, opts: &GenOptions) -> Result<String, RunError> {
    let v = match kind {
        "oasis" => serde_json::to_value(oasis::generate(opts)?),
        "online" => serde_json::to_value(online::generate(opts)?),
        "placement" => serde_json::to_value(placement::generate(opts)?),
        "preempt" => serde_json::to_value(preempt::generate(opts)?),
        "route" => serde_json::to_value(route::generate(opts)?),
        other => {
            return Err(RunError::Input(crate::error::InputError::new(
                "option",
                "kind",
                format!(
                    "unknown kind `{other}`; expected one of {}",
                    crate::doc::KINDS.join(", ")
                ),
            )))
        }
    }
    .map_err(|e| RunError::Runtime(format!("could not encode the scenario: {e}")))?;
    let mut s = serde_json::to_string_pretty(&v).map_err(|e| RunError::Runtime(e.to_string()))?;
    s.push('\n');
    Ok(s)
}
