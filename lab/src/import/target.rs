//! The kinds the importers write, one row each ([`IMPORTERS`]): the one place in `import` that
//! knows a kind, as `crate::gen`'s table is for the generators. The mapping of each kind is
//! `build.rs` (`to_oasis`, `to_online`); what differs between the kinds around it (the horizon
//! rule, the servers counted, the reach check, `--workload`) is a field here.
use super::build::{self, OASIS_SPAN_FACTOR};
use super::{pollux, reach, GavelType, ImportOptions, Server, TraceJob};
use mlsched_kernel::rng::SplitMix64;
use mlsched_scenario::error::{InputError, RunError};

/// What one import read, before it is written as a kind's document.
pub(crate) struct Mapped<'a> {
    /// The jobs taken, by submit time.
    pub jobs: &'a [TraceJob],
    /// Worker (GPU) servers.
    pub workers: &'a [Server],
    /// Parameter-server (CPU-only) servers.
    pub ps: &'a [Server],
    /// Gavel's worker types, when the source is `gavel`.
    pub gavel: Option<&'a [GavelType]>,
    /// The speed-up tables, with `--throughput pollux`.
    pub profiles: Option<&'a pollux::Profiles>,
}

/// One kind the importers write.
pub(crate) struct Importer {
    /// The scenario kind (`docs/formats.md`).
    pub kind: &'static str,
    /// Arrivals span T / this slots under the default slot length (`build::horizon`).
    pub span_factor: fn() -> f64,
    /// Writes the document (the PRNG draws utilities or weights in job order).
    pub build:
        fn(&Mapped<'_>, &ImportOptions, &mut SplitMix64) -> Result<serde_json::Value, RunError>,
    /// Whether the document holds the PS servers read (the report counts them).
    pub ps_servers: fn(&ImportOptions) -> bool,
    /// The ids of the jobs that cannot finish within the horizon, when the kind can tell
    /// ([`reach`]).
    pub unfinishable: Option<fn(&serde_json::Value) -> Vec<String>>,
    /// Whether `import pollux --workload` builds this kind.
    pub workload: bool,
}

/// Every kind the importers write, in `mlsched_scenario::doc::KINDS` order.
pub(crate) const IMPORTERS: [Importer; 2] = [
    Importer {
        kind: "oasis",
        span_factor: || OASIS_SPAN_FACTOR,
        build: |m, o, rng| {
            encode(build::to_oasis(
                m.jobs, m.workers, m.ps, m.gavel, o, rng, m.profiles,
            )?)
        },
        ps_servers: |_| true,
        unfinishable: Some(|v| {
            // The value was just built from an OasisDoc: reading it back cannot fail.
            serde_json::from_value(v.clone())
                .map(|d| reach::unfinishable(&d))
                .unwrap_or_default()
        }),
        workload: true,
    },
    Importer {
        kind: "online",
        span_factor: build::online_span_factor,
        build: |m, o, rng| {
            encode(build::to_online(
                m.jobs, m.workers, m.ps, m.gavel, o, rng, m.profiles,
            )?)
        },
        ps_servers: build::online_takes_cpu_only,
        unfinishable: None,
        workload: false,
    },
];

/// The importer of `kind`, or an error naming the option and the kinds there are.
pub(crate) fn of(kind: &str) -> Result<&'static Importer, RunError> {
    IMPORTERS.iter().find(|i| i.kind == kind).ok_or_else(|| {
        let kinds: Vec<String> = IMPORTERS
            .iter()
            .map(|i| format!("\"{}\"", i.kind))
            .collect();
        InputError::new(
            "option",
            "kind",
            format!(
                "importers build kinds {}, not `{kind}`",
                kinds.join(" and ")
            ),
        )
        .into()
    })
}

/// The kinds `import pollux --workload` builds, for its error message.
pub(crate) fn workload_kinds() -> String {
    let kinds: Vec<String> = IMPORTERS
        .iter()
        .filter(|i| i.workload)
        .map(|i| format!("\"{}\"", i.kind))
        .collect();
    kinds.join(" and ")
}

fn encode<T: serde::Serialize>(doc: T) -> Result<serde_json::Value, RunError> {
    serde_json::to_value(doc)
        .map_err(|e| RunError::runtime(format!("could not encode the scenario: {e}")))
}
