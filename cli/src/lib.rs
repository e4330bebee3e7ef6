//! The std layer of mlsched shared by the `mlsched` binary and the wasm package:
//! scenario and result documents (`formats.md`), their validation, and [`run::run_json`].
//!
//! Everything the CLI prints for bad input comes from here, so the npm package throws the very
//! same messages.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bundled;
pub mod compare;
pub mod doc;
pub mod error;
pub mod exec;
pub mod gen;
pub mod import;
pub mod replay;
pub mod run;

pub use error::{InputError, RunError};
