//! Kind `placement`: HAS/JPS placement (Liu et al. 2024) — its documents, engine, result rows and occupancy
//! (the file table is in [`crate::kinds`]).
pub mod doc;
#[cfg(feature = "placement")]
pub(crate) mod engine;
pub mod exec;
pub mod occupancy;
