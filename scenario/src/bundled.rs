//! The bundled example scenarios (one or more per kind), compiled in so that `mlsched demo`,
//! the tests and the wasm visualiser all run the very same documents.

/// `(name, scenario JSON)` for every file in `scenarios/`, in a fixed order.
pub const SCENARIOS: &[(&str, &str)] = &[
    (
        "oasis-small",
        include_str!("../../scenarios/oasis-small.json"),
    ),
    (
        "online-ps-small",
        include_str!("../../scenarios/online-ps-small.json"),
    ),
    (
        "online-ring-small",
        include_str!("../../scenarios/online-ring-small.json"),
    ),
    (
        "placement-table2",
        include_str!("../../scenarios/placement-table2.json"),
    ),
    (
        "placement-jps",
        include_str!("../../scenarios/placement-jps.json"),
    ),
    (
        "placement-gavel",
        include_str!("../../scenarios/placement-gavel.json"),
    ),
    (
        "preempt-small",
        include_str!("../../scenarios/preempt-small.json"),
    ),
    (
        "route-small",
        include_str!("../../scenarios/route-small.json"),
    ),
];

/// The bundled scenario called `name` (its file name without `.json`), if there is one.
pub fn by_name(name: &str) -> Option<&'static str> {
    SCENARIOS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
