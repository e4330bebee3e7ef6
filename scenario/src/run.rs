//! One entry point for every kind: scenario JSON in, result JSON out ([`run_json`]), the same
//! bytes in the CLI and in the wasm package.
use crate::doc::{self, ScenarioDoc};
use crate::engine::{Engine, Kind};
use crate::error::{InputError, RunError};
use mlsched_kernel::log::{HashSink, LogError, LogHash, LogSink};
use serde::Serialize;

/// Options of a run beyond the scenario itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// A policy other than the kind's own algorithm (a baseline), e.g. "fifo".
    pub policy: Option<String>,
    /// Placement: report every category (`per_category`).
    pub all_categories: bool,
}

/// A result document of any kind (a kind not built in holds [`crate::engine::NotBuilt`]:
/// [`crate::kinds::oasis::doc::OasisResult`] and its siblings when built).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
// A kind left out of the build is an empty variant (`NotBuilt`): not a size difference.
#[allow(clippy::large_enum_variant)]
pub enum ResultDoc {
    /// `"oasis"`
    Oasis(<crate::engine::Oasis as Kind>::Result),
    /// `"online"`
    Online(<crate::engine::Online as Kind>::Result),
    /// `"placement"`
    Placement(<crate::engine::Placement as Kind>::Result),
    /// `"preempt"`
    Preempt(<crate::engine::Preempt as Kind>::Result),
    /// `"route"`
    Route(<crate::engine::Route as Kind>::Result),
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
        crate::dispatch_result!(self, r, K => K::log_hash(r))
    }

    /// The policy that produced the result.
    pub fn policy(&self) -> &str {
        crate::dispatch_result!(self, r, K => K::policy(r))
    }

    /// Who holds which server when (the result's `occupancy`, [`crate::occupancy`]).
    pub fn occupancy(&self) -> &[crate::occupancy::Span] {
        crate::dispatch_result!(self, r, K => K::occupancy(r))
    }

    /// How many jobs ended with each status (`summary.statuses`, [`crate::status`]).
    pub fn statuses(&self) -> crate::status::StatusCounts {
        crate::dispatch_result!(self, r, K => K::statuses(r))
    }

    /// A short human summary (what `mlsched run` prints).
    pub fn summary_text(&self) -> String {
        crate::dispatch_result!(self, r, K => K::summary_text(r))
    }
}

/// Validates and runs a parsed scenario through the [`Engine`] (its own arrivals to the end),
/// sending every event and decision record to `sink`.
pub fn run_doc<S: LogSink>(
    doc: &ScenarioDoc,
    opts: &RunOptions,
    sink: &mut S,
) -> Result<ResultDoc, RunError> {
    let mut e = Engine::from_doc(doc, opts, Borrowed(sink), 0)?;
    e.run()
}

/// [`run_doc`], telling `observe` after every slot how far the run has come
/// ([`crate::engine::Engine::run_observed`]): same decisions, same log bytes.
pub fn run_doc_observed<S: LogSink>(
    doc: &ScenarioDoc,
    opts: &RunOptions,
    sink: &mut S,
    observe: &mut dyn FnMut(crate::engine::RunProgress),
) -> Result<ResultDoc, RunError> {
    let mut e = Engine::from_doc(doc, opts, Borrowed(sink), 0)?;
    e.run_observed(observe)
}

/// A sink borrowed for one run (the engine owns its sink).
struct Borrowed<'a, S>(&'a mut S);

impl<S: LogSink> LogSink for Borrowed<'_, S> {
    fn record<T: serde::Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        self.0.record(tag, rec)
    }
    fn hash(&self) -> LogHash {
        self.0.hash()
    }
    fn event<T: serde::Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        self.0.event(tag, rec)
    }
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
    crate::by_kind_name!(kind, K => K::policies()).unwrap_or(&[])
}

/// The decision records a log of `kind` holds besides the events ([`crate::engine::Kind::records`]),
/// `None` for no kind.
pub fn records(kind: &str) -> Option<&'static [crate::records::RecordType]> {
    crate::by_kind_name!(kind, K => K::records())
}
