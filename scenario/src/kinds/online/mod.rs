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

/// What kind online's results measure: the total weighted completion time (the paper's
/// objective), completions, the weighted JCT (w_j) and utilisation.
pub const METRICS: crate::metrics::Metrics = crate::metrics::Metrics {
    completions: true,
    jct: true,
    weighted_jct: true,
    utilisation: true,
    objective: Some(crate::metrics::Objective::TotalWeightedCompletionTime),
    ..crate::metrics::NONE
};
