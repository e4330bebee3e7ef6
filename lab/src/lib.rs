//! The `mlsched` command line's library: generators ([`gen`]), trace importers ([`import`]),
//! comparisons ([`compare`]), Chrome trace export ([`export`]) and the lookup of the bundled `data/` folder ([`data`]). The document layer it runs on (scenario and result documents, the
//! run driver, bundled scenarios, replay) is the `mlsched-scenario` crate, re-exported here under
//! its old paths so `mlsched_cli::doc`, `mlsched_cli::run`, ... keep working.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod compare;
pub mod data;
pub mod export;
pub mod gen;
pub mod import;
#[cfg(feature = "app")]
pub mod summary;

pub use mlsched_scenario::{bundled, doc, engine, error, exec, input, replay, run, text};
pub use mlsched_scenario::{InputError, RunError};

/// Reads a trace file within [`input::TRACE_BYTES_MAX`]; the error is the problem's text (the
/// callers name the file and the option).
pub(crate) fn read_trace(path: &std::path::Path) -> Result<String, String> {
    input::read_text(path, input::Input::Trace).map_err(|e| e.problem)
}
