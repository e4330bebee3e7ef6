//! Kind `route`: CSRP routing (Song et al. 2023) — its documents, engine, result rows and occupancy
//! (the file table is in [`crate::kinds`]).
pub mod doc;
#[cfg(feature = "route")]
pub(crate) mod engine;
pub mod exec;
pub mod occupancy;
