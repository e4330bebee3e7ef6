//! The `mlsched` command line's library: generators ([`gen`]), trace importers ([`import`]),
//! comparisons ([`compare`]) and the lookup of the bundled `data/` folder ([`data`]). The document layer it runs on (scenario and result documents, the
//! run driver, bundled scenarios, replay) is the `mlsched-scenario` crate, re-exported here under
//! its old paths so `mlsched_cli::doc`, `mlsched_cli::run`, ... keep working.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod compare;
pub mod data;
pub mod gen;
pub mod import;

pub use mlsched_scenario::{bundled, doc, error, exec, replay, run};
pub use mlsched_scenario::{InputError, RunError};
