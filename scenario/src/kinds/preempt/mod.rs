//! Kind `preempt`: preemptive edge-cloud chunk scheduling (Wang et al. 2022) — its documents, engine, result rows and occupancy
//! (the file table is in [`crate::kinds`]).
pub mod doc;
#[cfg(feature = "preempt")]
pub(crate) mod engine;
pub mod exec;
pub mod occupancy;
