//! Kind `preempt`: preemptive edge-cloud chunk scheduling (Wang et al. 2022) — its documents, engine, result rows and occupancy
//! (the file table is in [`crate::kinds`]).
pub mod doc;
#[cfg(feature = "preempt")]
pub(crate) mod engine;
pub mod exec;
pub mod occupancy;

/// What kind preempt's results measure: completions over slots, preemptions and the chunks sent
/// to the cloud, and each worker's queue.
pub const METRICS: crate::metrics::Metrics = crate::metrics::Metrics {
    completions: true,
    jct: true,
    counters: &[
        crate::metrics::Counter {
            header: "preemptions",
            key: "preemptions",
            scale: 1.0,
            decimals: 0,
        },
        crate::metrics::Counter {
            header: "cloud chunks",
            key: "cloud_chunks",
            scale: 1.0,
            decimals: 0,
        },
    ],
    views: &[crate::metrics::View::WorkerQueues],
    ..crate::metrics::NONE
};
