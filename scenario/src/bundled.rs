//! The bundled example scenarios (one or more per kind), compiled in so that `mlsched demo`,
//! the tests and the wasm visualiser all run the very same documents.

/// One table, two lists: [`SCENARIOS`] (the kinds built in) and, for the tests, every kind's.
macro_rules! bundled {
    ($(($kind:literal, $name:literal)),* $(,)?) => {
        /// `(name, scenario JSON)` for every file in `scenarios/` of the kinds built in (the
        /// crate's kind features: all five by default; a per-kind web module carries its own
        /// kind's only, issue 44's size budget), in a fixed order.
        pub const SCENARIOS: &[(&str, &str)] = &[$(
            #[cfg(feature = $kind)]
            ($name, include_str!(concat!("../../scenarios/", $name, ".json"))),
        )*];

        /// Every kind's bundled scenarios, whatever is built in (the tests of a one-kind build
        /// check that the other kinds' documents are refused).
        #[cfg(test)]
        pub(crate) const EVERY_KIND: &[(&str, &str)] = &[$(
            ($name, include_str!(concat!("../../scenarios/", $name, ".json"))),
        )*];
    };
}

bundled! {
    ("oasis", "oasis-small"),
    ("online", "online-ps-small"),
    ("online", "online-ring-small"),
    ("placement", "placement-table2"),
    ("placement", "placement-jps"),
    ("placement", "placement-gavel"),
    ("preempt", "preempt-small"),
    ("route", "route-small"),
}

/// The bundled scenario called `name` (its file name without `.json`), if there is one.
pub fn by_name(name: &str) -> Option<&'static str> {
    SCENARIOS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
