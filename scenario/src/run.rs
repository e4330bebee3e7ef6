//! One entry point for every kind: scenario JSON in, result JSON out ([`run_json`]), the same
//! bytes in the CLI and in the wasm package.
use crate::doc::{self, ScenarioDoc};
use crate::error::{InputError, RunError};
use crate::exec;
use mlsched_kernel::log::{HashSink, LogSink};
use serde::Serialize;

/// Options of a run beyond the scenario itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// A policy other than the kind's own algorithm (a baseline), e.g. "fifo".
    pub policy: Option<String>,
    /// Placement: report every category (`per_category`).
    pub all_categories: bool,
}

/// A result document of any kind.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum ResultDoc {
    /// `"oasis"`
    Oasis(doc::oasis::OasisResult),
    /// `"online"`
    Online(doc::online::OnlineResult),
    /// `"placement"`
    Placement(doc::placement::PlacementResult),
    /// `"preempt"`
    Preempt(doc::preempt::PreemptResult),
    /// `"route"`
    Route(doc::route::RouteResult),
}

impl ResultDoc {
    /// The result as the canonical JSON text (pretty, trailing newline): what `--json` writes
    /// and what the npm package's `run` returns.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        s.push('\n');
        s
    }

    /// `log_hash` of the result.
    pub fn log_hash(&self) -> &str {
        match self {
            ResultDoc::Oasis(r) => &r.log_hash,
            ResultDoc::Online(r) => &r.log_hash,
            ResultDoc::Placement(r) => &r.log_hash,
            ResultDoc::Preempt(r) => &r.log_hash,
            ResultDoc::Route(r) => &r.log_hash,
        }
    }

    /// A short human summary (what `mlsched run` prints).
    pub fn summary_text(&self) -> String {
        match self {
            ResultDoc::Oasis(r) => exec::oasis::summary_text(r),
            ResultDoc::Online(r) => exec::online::summary_text(r),
            ResultDoc::Placement(r) => exec::placement::summary_text(r),
            ResultDoc::Preempt(r) => exec::preempt::summary_text(r),
            ResultDoc::Route(r) => exec::route::summary_text(r),
        }
    }
}

/// Validates and runs a parsed scenario, sending every decision record to `sink`.
pub fn run_doc<S: LogSink>(
    doc: &ScenarioDoc,
    opts: &RunOptions,
    sink: &mut S,
) -> Result<ResultDoc, RunError> {
    Ok(match doc {
        ScenarioDoc::Oasis(d) => ResultDoc::Oasis(exec::oasis::run(d, &d.validate()?, opts, sink)?),
        ScenarioDoc::Online(d) => {
            ResultDoc::Online(exec::online::run(d, &d.validate()?, opts, sink)?)
        }
        ScenarioDoc::Placement(d) => {
            ResultDoc::Placement(exec::placement::run(d, &d.validate()?, opts, sink)?)
        }
        ScenarioDoc::Preempt(d) => {
            ResultDoc::Preempt(exec::preempt::run(d, &d.validate()?, opts, sink)?)
        }
        ScenarioDoc::Route(d) => ResultDoc::Route(exec::route::run(d, &d.validate()?, opts, sink)?),
    })
}

/// Parses, validates and runs `text`, returning the result document as JSON text.
pub fn run_json(text: &str, opts: &RunOptions) -> Result<String, RunError> {
    let d = doc::parse(text)?;
    let mut sink = HashSink::new();
    Ok(run_doc(&d, opts, &mut sink)?.to_json())
}

/// Error for a `--policy` the kind does not accept.
pub fn unknown_policy(kind: &str, policy: &str, accepted: &[&str]) -> RunError {
    RunError::Input(InputError::new(
        "option",
        "policy",
        format!(
            "policy `{policy}` does not run kind \"{kind}\"; accepted: {}",
            accepted.join(", ")
        ),
    ))
}

/// Policies accepted by `kind` (first = the kind's own algorithm), for `demo` and `compare`.
pub fn policies(kind: &str) -> &'static [&'static str] {
    match kind {
        "oasis" => exec::oasis::policies(),
        "online" => exec::online::policies(),
        "placement" => exec::placement::policies(),
        "preempt" => exec::preempt::policies(),
        "route" => exec::route::policies(),
        _ => &[],
    }
}
