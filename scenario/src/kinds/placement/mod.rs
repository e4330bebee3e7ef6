//! Kind `placement`: HAS/JPS placement (Liu et al. 2024) — its documents, engine, result rows and occupancy
//! (the file table is in [`crate::kinds`]).
pub mod doc;
#[cfg(feature = "placement")]
pub(crate) mod engine;
pub mod exec;
pub mod occupancy;

/// What kind placement's results measure: one static assignment (every job runs, so nothing
/// "finishes" over slots), JCTs the placer computes in seconds, and its placement views.
pub const METRICS: crate::metrics::Metrics = crate::metrics::Metrics {
    jct_unit: "s",
    jct_unit_long: "seconds",
    jct: true,
    views: &[crate::metrics::View::Placement],
    ..crate::metrics::NONE
};
