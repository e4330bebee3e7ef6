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

/// What kind oasis's results measure: the total utility (the paper's objective), completions,
/// the weighted JCT (w = f_i(0)) and utilisation.
pub const METRICS: crate::metrics::Metrics = crate::metrics::Metrics {
    completions: true,
    jct: true,
    weighted_jct: true,
    utilisation: true,
    objective: Some(crate::metrics::Objective::TotalUtility),
    ..crate::metrics::NONE
};
