//! # mlsched-lab
//!
//! The experiment library around the mlsched kernel: everything that makes, imports, compares
//! and exports scenarios, without the command line. The `mlsched` binary (crate `mlsched-cli`),
//! the Python package (`bindings/python`), the cross-crate tests and the benchmarks build on it.
//!
//! - [`gen`]: scenario generators following each paper's evaluation settings (`mlsched gen`).
//! - [`import`]: public traces (Philly, Alibaba openb, PAI, Gavel, Pollux) turned into scenarios
//!   (`mlsched import`).
//! - [`compare`]: several policies on one scenario, their metrics and (feature `reports`) the
//!   tables, CSV, SVG plots, HTML report, seed sweeps and shards of `mlsched compare`.
//! - [`export`]: a decision log as Chrome trace events (`mlsched export`).
//! - [`data`]: where the bundled `data/` folder of traces is found.
//! - [`kinds`]: what the lab knows of each scenario kind (compare's numbers, server pools, the
//!   report's header), one file per kind, reached without a match on the kind.
//! - [`summary`] (feature `reports`): the text `mlsched run` prints for a result.
//!
//! The document layer underneath (scenario and result documents, the run driver, bundled
//! scenarios, decision-log replay) is the `mlsched-scenario` crate; use it directly.
//!
//! Features: `reports` (default) adds the report writers and sweeps, with their dependencies
//! (comfy-table, plotters, csv, statrs, rayon); without it the crate is the generators,
//! importers, metrics and export only.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod compare;
pub mod data;
pub mod export;
pub mod gen;
pub mod import;
pub mod kinds;
#[cfg(feature = "reports")]
pub mod summary;

/// Reads a trace file within [`mlsched_scenario::input::TRACE_BYTES_MAX`]; the error is the
/// problem's text (the callers name the file and the option).
pub(crate) fn read_trace(path: &std::path::Path) -> Result<String, String> {
    use mlsched_scenario::input;
    input::read_text(path, input::Input::Trace).map_err(|e| e.problem)
}
