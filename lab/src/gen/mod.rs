//! Scenario generators following each paper's evaluation settings (`mlsched gen KIND`).
//!
//! Options that add optional document fields ([`GenExtras`]) leave every other value as the seed
//! gives it; without them the documents are byte-identical to the plain generators'. Kinds oasis
//! and online take `--throughput pollux` ([`throughput`], docs/throughput.md).
use std::path::PathBuf;

/// What `mlsched gen` was asked for.
#[derive(Clone, Debug, Default)]
pub struct GenOptions {
    /// PRNG seed (printed first by the CLI).
    pub seed: u64,
    /// Number of jobs (kind default when `None`).
    pub jobs: Option<u32>,
    /// Number of nodes or servers (kind default when `None`).
    pub nodes: Option<u32>,
    /// Arrivals: `None` = Poisson, or a trace file (e.g. from the bundled `data/`).
    pub trace: Option<PathBuf>,
    /// Horizon T in slots (kinds `online` and `oasis`; `None` = the paper's setting).
    pub slots: Option<u32>,
}

/// One generator: its kind, the most jobs and nodes its documents can hold, the options that
/// add fields only it has, and the function writing its document. [`GENERATORS`] is the one
/// place that knows the kinds `mlsched gen` can write; nothing else here matches on the kind.
struct Generator {
    /// The scenario kind (`docs/formats.md`).
    kind: &'static str,
    /// The most jobs (`--jobs`) and the build limit that sets it.
    jobs_max: (usize, &'static str),
    /// The fewest and most nodes (`--nodes`) and the build limit that sets the most.
    nodes: (usize, usize, &'static str),
    /// Whether `--slots` (the horizon T) applies.
    slots: bool,
    /// Whether `--restart-seconds` applies (a `restart_slots` field).
    restart: bool,
    /// Whether `--rounds-past-horizon` applies.
    rounds: bool,
    /// Whether `--throughput pollux` applies (a speed-up table and a model per job).
    throughput: bool,
    /// Writes the document (the table given when `--throughput pollux` asked for it).
    generate: fn(&GenOptions, &GenExtras, Option<&throughput::GenTable>) -> Result<Value, RunError>,
}

use mlsched_kernel::limits as l;

/// Every kind `mlsched gen` writes, in `mlsched_scenario::doc::KINDS` order.
const GENERATORS: [Generator; 5] = [
    Generator {
        kind: "oasis",
        jobs_max: (l::JOBS_MAX, "JOBS_MAX"),
        nodes: (1, l::SERVERS_MAX, "SERVERS_MAX"),
        slots: true,
        restart: true,
        rounds: false,
        throughput: true,
        generate: gen_oasis,
    },
    Generator {
        kind: "online",
        jobs_max: (l::JOBS_MAX, "JOBS_MAX"),
        nodes: (1, l::SERVERS_MAX, "SERVERS_MAX"),
        slots: true,
        restart: false,
        rounds: true,
        throughput: true,
        generate: gen_online,
    },
    Generator {
        kind: "placement",
        jobs_max: (l::PLACEMENT_JOBS_MAX, "PLACEMENT_JOBS_MAX"),
        nodes: (
            1,
            l::PLACEMENT_WORKERS_MAX / 5,
            "PLACEMENT_WORKERS_MAX / 5 GPUs per node",
        ),
        slots: false,
        restart: false,
        rounds: false,
        throughput: false,
        generate: |o, _, _| encode(placement::generate(o)?),
    },
    Generator {
        kind: "preempt",
        jobs_max: (l::JOBS_MAX, "JOBS_MAX"),
        nodes: (2, l::EDGE_SERVERS_MAX + 1, "EDGE_SERVERS_MAX + 1 cloud"),
        slots: false,
        restart: false,
        rounds: false,
        throughput: false,
        generate: |o, _, _| encode(preempt::generate(o)?),
    },
    Generator {
        kind: "route",
        jobs_max: (l::JOBS_MAX, "JOBS_MAX"),
        nodes: (1, l::GRAPH_NODES_MAX, "GRAPH_NODES_MAX"),
        slots: false,
        restart: false,
        rounds: false,
        throughput: false,
        generate: |o, _, _| encode(route::generate(o)?),
    },
];

/// The generator of `kind`, if there is one.
fn generator(kind: &str) -> Option<&'static Generator> {
    GENERATORS.iter().find(|g| g.kind == kind)
}

/// The kinds whose generator takes an option, for its error message ("oasis and online").
fn kinds_taking(takes: fn(&Generator) -> bool) -> String {
    let kinds: Vec<&str> = GENERATORS
        .iter()
        .filter(|g| takes(g))
        .map(|g| g.kind)
        .collect();
    match kinds.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("kinds {} and {last}", rest.join(", ")),
        Some((last, _)) => format!("kind {last}"),
        None => "no kind".into(),
    }
}

/// An option error naming the option `field`.
fn bad<T>(field: &str, problem: String) -> Result<T, RunError> {
    Err(RunError::Input(mlsched_scenario::error::InputError::new(
        "option", field, problem,
    )))
}

/// A generated document as a JSON value.
fn encode<T: serde::Serialize>(doc: T) -> Result<Value, RunError> {
    serde_json::to_value(doc)
        .map_err(|e| RunError::runtime(format!("could not encode the scenario: {e}")))
}

/// Kind oasis: the OASiS paper's settings, with the speed-up table when one is given.
fn gen_oasis(
    opts: &GenOptions,
    _: &GenExtras,
    table: Option<&throughput::GenTable>,
) -> Result<Value, RunError> {
    let mut doc = oasis::generate_with(opts, table.is_some())?;
    let models = doc.jobs.iter_mut().map(|j| &mut j.model);
    doc.throughput = table.map(|t| t.apply(opts.seed, models));
    encode(doc)
}

/// Kind online: Zhou et al.'s settings, with `rounds_past_horizon` and the speed-up table.
fn gen_online(
    opts: &GenOptions,
    extras: &GenExtras,
    table: Option<&throughput::GenTable>,
) -> Result<Value, RunError> {
    let mut doc = online::generate_with(opts, table.is_some())?;
    doc.rounds_past_horizon = extras.rounds_past_horizon.then_some(true);
    let models = doc.jobs.iter_mut().map(|j| &mut j.model);
    doc.throughput = table.map(|t| t.apply(opts.seed, models));
    encode(doc)
}

/// Refuses option values no generator can honour, naming the option (never clamps them).
fn check_options(g: &Generator, opts: &GenOptions) -> Result<(), RunError> {
    let kind = g.kind;
    if opts.jobs == Some(0) {
        return bad("jobs", "must be at least 1".into());
    }
    if opts.nodes == Some(0) {
        return bad("nodes", "must be at least 1".into());
    }
    // The most jobs and nodes each generator's scenario can hold (checked before any work).
    let ((jobs_max, jobs_limit), (nodes_min, nodes_max, nodes_limit)) = (g.jobs_max, g.nodes);
    if let Some(j) = opts.jobs.filter(|&j| j as usize > jobs_max) {
        return bad(
            "jobs",
            format!("{j} is more than {jobs_max} jobs, the limit of kind {kind} ({jobs_limit} of this build)"),
        );
    }
    if let Some(n) = opts
        .nodes
        .filter(|&n| (n as usize) < nodes_min || n as usize > nodes_max)
    {
        return bad(
            "nodes",
            format!("{n} is outside {nodes_min}..={nodes_max} for kind {kind} ({nodes_limit} of this build)"),
        );
    }
    if let Some(t) = opts.slots {
        if !g.slots {
            let kinds = kinds_taking(|g| g.slots);
            return bad("slots", format!("applies to {kinds}, not `{kind}`"));
        }
        let max = mlsched_kernel::limits::SLOTS_MAX as u32;
        if !(2..=max).contains(&t) {
            return bad(
                "slots",
                format!("{t} is outside 2..={max} (limit SLOTS_MAX of this build)"),
            );
        }
    }
    Ok(())
}

pub mod oasis;
pub mod online;
pub mod placement;
pub mod preempt;
pub mod route;
pub mod throughput;

use crate::import::pollux::ThroughputModel;
use mlsched_scenario::error::RunError;
use serde_json::Value;

/// Generates a scenario of `kind` as pretty JSON text.
pub fn generate_json(kind: &str, opts: &GenOptions) -> Result<String, RunError> {
    generate_json_with(kind, opts, &GenExtras::default())
}

/// Options of `mlsched gen` that set optional document fields (absent by default, so
/// [`generate_json`] writes today's documents).
#[derive(Clone, Debug, Default)]
pub struct GenExtras {
    /// Kind online: write `rounds_past_horizon: true` (`--rounds-past-horizon`).
    pub rounds_past_horizon: bool,
    /// Kind oasis: the cost of preemption in seconds (`--restart-seconds`), written as
    /// `restart_slots` = seconds / 3600 (one generated slot is an hour) when > 0.
    pub restart_seconds: Option<f64>,
    /// Kinds oasis and online: `pollux` adds the bundled placement-aware speed-up table and a
    /// model family per job, with one GPU per worker (`--throughput`; [`throughput`]).
    pub throughput: ThroughputModel,
    /// The data folder the table is read from (`--data`; only with `--throughput pollux`).
    pub data: Option<std::path::PathBuf>,
}

/// The restart time the importers write by default, in seconds (the peer simulator's;
/// `docs/restart.md`). `mlsched gen` writes none unless asked: its generators follow the
/// papers' settings, which charge nothing for a reallocation.
pub const GEN_RESTART_SECONDS: f64 = 30.0;

/// [`generate_json`] with the optional fields of [`GenExtras`]; an extra for a kind that has
/// no such field is an option error naming it.
pub fn generate_json_with(
    kind: &str,
    opts: &GenOptions,
    extras: &GenExtras,
) -> Result<String, RunError> {
    let g = generator(kind);
    if let Some(r) = extras.restart_seconds {
        if !r.is_finite() || r < 0.0 {
            return bad(
                "restart-seconds",
                format!("must be a finite number >= 0, got {r}"),
            );
        }
        if !g.is_some_and(|g| g.restart) {
            let kinds = kinds_taking(|g| g.restart);
            return bad(
                "restart-seconds",
                format!("kind `{kind}` has no restart time (only {kinds}; see docs/restart.md)"),
            );
        }
    }
    if let Some(g) = g {
        check_options(g, opts)?;
    }
    if extras.rounds_past_horizon && !g.is_some_and(|g| g.rounds) {
        let kinds = kinds_taking(|g| g.rounds);
        return bad(
            "rounds-past-horizon",
            format!("applies to {kinds}, not `{kind}`"),
        );
    }
    // An unknown kind is reported as such, not as a misplaced `--throughput`.
    let Some(g) = g else {
        return bad(
            "kind",
            format!(
                "unknown kind `{kind}`; expected one of {}",
                mlsched_scenario::doc::KINDS.join(", ")
            ),
        );
    };
    let table = gen_table(g, extras)?;
    let mut v = (g.generate)(opts, extras, table.as_ref())?;
    if let Some(r) = extras.restart_seconds.filter(|&r| r > 0.0) {
        v["restart_slots"] = serde_json::json!(r / oasis::SLOT_SECONDS);
    }
    let mut s = serde_json::to_string_pretty(&v).map_err(|e| RunError::runtime(e.to_string()))?;
    s.push('\n');
    refuse_what_run_refuses(&s)?;
    Ok(s)
}

/// The speed-up table `--throughput` asks for (`None` for `linear`), read from the data folder;
/// the option on a kind without the model, or `--data` without a table to read, is an option
/// error naming it.
fn gen_table(g: &Generator, extras: &GenExtras) -> Result<Option<throughput::GenTable>, RunError> {
    match extras.throughput {
        ThroughputModel::Linear if extras.data.is_some() => bad(
            "data",
            "is where `--throughput pollux` reads its table; without that option nothing is read"
                .into(),
        ),
        ThroughputModel::Linear => Ok(None),
        ThroughputModel::Pollux if !g.throughput => {
            let (kind, kinds) = (g.kind, kinds_taking(|g| g.throughput));
            bad(
                "throughput",
                format!("pollux applies to {kinds}, not `{kind}` (see docs/throughput.md)"),
            )
        }
        ThroughputModel::Pollux => throughput::GenTable::load(extras.data.as_deref()).map(Some),
    }
}

/// Never hands out a document `mlsched run` would refuse: the generated (or imported) text
/// goes through the same parser and validator first; a refusal is an input error (the
/// options asked for something the build cannot hold), naming what `run` would name.
pub(crate) fn refuse_what_run_refuses(text: &str) -> Result<(), RunError> {
    let check = mlsched_scenario::doc::parse(text).and_then(|d| d.validate());
    check.map_err(|e| {
        RunError::Input(mlsched_scenario::error::InputError::new(
            "options",
            e.field.clone(),
            format!("the scenario they produce would be refused by `mlsched run`: {e}"),
        ))
    })
}
