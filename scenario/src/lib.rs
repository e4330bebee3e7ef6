//! mlsched's document layer, shared by the `mlsched` binary, the wasm package and the bindings:
//! scenario and result documents (`docs/formats.md`), their validation, the bundled example
//! scenarios, the run driver ([`run::run_json`]) and log replay ([`replay`]).
//!
//! It sits between the `no_std` kernel (which knows no document and no command-line word) and
//! every surface: everything a user sees for bad input comes from here, so the CLI, the npm
//! package and the bindings report the very same messages. It is a crate of its own rather than
//! kernel features because it needs `std` (serde_json, owned strings, error paths) that the
//! kernel must never pull in, and because generators, importers and plots — CLI-only concerns —
//! stay out of the browser build.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// A build with some kinds left out (cargo features, issue 14) still compiles their documents and
// crate-private helpers (only the engine façade's arms are cut): unused there, never linked.
#![cfg_attr(
    not(all(
        feature = "oasis",
        feature = "online",
        feature = "placement",
        feature = "preempt",
        feature = "route"
    )),
    allow(dead_code)
)]

pub mod bundled;
pub mod doc;
pub mod engine;
pub mod error;
pub mod event;
pub mod input;
pub mod kinds;
pub mod limit;
pub mod metrics;
pub mod occupancy;
mod order;
pub mod records;
pub mod replay;
pub mod run;
pub mod status;
pub mod text;

pub use error::{InputError, KernelError, RunError, RuntimeError};
