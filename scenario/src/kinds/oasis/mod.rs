//! Kind `oasis`: OASiS (Bao et al. 2018) — its documents, engine, result rows and occupancy
//! (the file table is in [`crate::kinds`]).
#[cfg(feature = "oasis")]
mod algorithm;
#[cfg(feature = "oasis")]
mod baselines;
pub mod doc;
#[cfg(feature = "oasis")]
pub(crate) mod engine;
pub mod exec;
pub mod occupancy;
