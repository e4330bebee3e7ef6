//! Kind `route`: CSRP routing (Song et al. 2023) — its documents, engine, result rows and occupancy
//! (the file table is in [`crate::kinds`]).
pub mod doc;
#[cfg(feature = "route")]
pub(crate) mod engine;
pub mod exec;
pub mod occupancy;

/// What kind route's results measure: routes, not completions: eq. (11)'s cost, the mean
/// network cost N-bar, the deadline violation rate and the servers used.
pub const METRICS: crate::metrics::Metrics = crate::metrics::Metrics {
    counters: &[
        crate::metrics::Counter {
            header: "cost",
            key: "cost",
            scale: 1.0,
            decimals: 2,
        },
        crate::metrics::Counter {
            header: "avg net cost",
            key: "avg_network_cost",
            scale: 1.0,
            decimals: 2,
        },
        crate::metrics::Counter {
            header: "violations %",
            key: "deadline_violation_rate",
            scale: 100.0,
            decimals: 1,
        },
        crate::metrics::Counter {
            header: "servers used",
            key: "servers_used",
            scale: 1.0,
            decimals: 0,
        },
    ],
    counter_plots: &[
        crate::metrics::CounterPlot {
            file: "network_cost.svg",
            title: "Mean network cost per job N-bar per policy (lower is better)",
            y: "network cost per job (link-cost units)",
            key: "avg_network_cost",
            scale: 1.0,
        },
        crate::metrics::CounterPlot {
            file: "violation_rate.svg",
            title: "Deadline violation rate per policy (lower is better)",
            y: "jobs missing their deadline (%)",
            key: "deadline_violation_rate",
            scale: 100.0,
        },
    ],
    ..crate::metrics::NONE
};
