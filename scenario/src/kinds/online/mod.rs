//! Kind `online`: online weighted-completion-time scheduling (Zhou et al. 2022) — its documents, engine, result rows and occupancy
//! (the file table is in [`crate::kinds`]).
#[cfg(feature = "online")]
mod algorithm;
#[cfg(feature = "online")]
mod baselines;
pub mod doc;
#[cfg(feature = "online")]
pub(crate) mod engine;
pub mod exec;
pub mod occupancy;
