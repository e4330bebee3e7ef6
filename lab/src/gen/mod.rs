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

/// Refuses option values no generator can honour, naming the option (never clamps them).
fn check_options(kind: &str, opts: &GenOptions) -> Result<(), RunError> {
    let bad = |field: &str, problem: String| {
        Err(RunError::Input(mlsched_scenario::error::InputError::new(
            "option", field, problem,
        )))
    };
    if opts.jobs == Some(0) {
        return bad("jobs", "must be at least 1".into());
    }
    if opts.nodes == Some(0) {
        return bad("nodes", "must be at least 1".into());
    }
    use mlsched_kernel::limits as l;
    // The most jobs and nodes each generator's scenario can hold (checked before any work).
    let (jobs_max, jobs_limit, nodes_min, nodes_max, nodes_limit) = match kind {
        "oasis" => (l::JOBS_MAX, "JOBS_MAX", 1, l::SERVERS_MAX, "SERVERS_MAX"),
        "online" => (l::JOBS_MAX, "JOBS_MAX", 1, l::SERVERS_MAX, "SERVERS_MAX"),
        "placement" => (
            l::PLACEMENT_JOBS_MAX,
            "PLACEMENT_JOBS_MAX",
            1,
            l::PLACEMENT_WORKERS_MAX / 5,
            "PLACEMENT_WORKERS_MAX / 5 GPUs per node",
        ),
        "preempt" => (
            l::JOBS_MAX,
            "JOBS_MAX",
            2,
            l::EDGE_SERVERS_MAX + 1,
            "EDGE_SERVERS_MAX + 1 cloud",
        ),
        _ => (
            l::JOBS_MAX,
            "JOBS_MAX",
            1,
            l::GRAPH_NODES_MAX,
            "GRAPH_NODES_MAX",
        ),
    };
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
        if !matches!(kind, "online" | "oasis") {
            return bad(
                "slots",
                format!("applies to kinds online and oasis, not `{kind}`"),
            );
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
    let bad = |field: &str, problem: String| {
        Err(RunError::Input(mlsched_scenario::error::InputError::new(
            "option", field, problem,
        )))
    };
    if let Some(r) = extras.restart_seconds {
        if !r.is_finite() || r < 0.0 {
            return bad(
                "restart-seconds",
                format!("must be a finite number >= 0, got {r}"),
            );
        }
        if kind != "oasis" {
            return bad(
                "restart-seconds",
                format!("kind `{kind}` has no restart time (only kind oasis; see docs/restart.md)"),
            );
        }
    }
    if mlsched_scenario::doc::KINDS.contains(&kind) {
        check_options(kind, opts)?;
    }
    if extras.rounds_past_horizon && kind != "online" {
        return bad(
            "rounds-past-horizon",
            format!("applies to kind online, not `{kind}`"),
        );
    }
    // An unknown kind is reported as such below, not as a misplaced `--throughput`.
    let table = if mlsched_scenario::doc::KINDS.contains(&kind) {
        gen_table(kind, extras)?
    } else {
        None
    };
    let per_gpu = table.is_some();
    let v = match kind {
        "oasis" => {
            let mut doc = oasis::generate_with(opts, per_gpu)?;
            let models = doc.jobs.iter_mut().map(|j| &mut j.model);
            doc.throughput = table.as_ref().map(|t| t.apply(opts.seed, models));
            serde_json::to_value(doc)
        }
        "online" => {
            let mut doc = online::generate_with(opts, per_gpu)?;
            doc.rounds_past_horizon = extras.rounds_past_horizon.then_some(true);
            let models = doc.jobs.iter_mut().map(|j| &mut j.model);
            doc.throughput = table.as_ref().map(|t| t.apply(opts.seed, models));
            serde_json::to_value(doc)
        }
        "placement" => serde_json::to_value(placement::generate(opts)?),
        "preempt" => serde_json::to_value(preempt::generate(opts)?),
        "route" => serde_json::to_value(route::generate(opts)?),
        other => {
            return bad(
                "kind",
                format!(
                    "unknown kind `{other}`; expected one of {}",
                    mlsched_scenario::doc::KINDS.join(", ")
                ),
            )
        }
    }
    .map_err(|e| RunError::runtime(format!("could not encode the scenario: {e}")))?;
    let mut v = v;
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
fn gen_table(kind: &str, extras: &GenExtras) -> Result<Option<throughput::GenTable>, RunError> {
    let bad = |field: &str, problem: String| {
        Err(RunError::Input(mlsched_scenario::error::InputError::new(
            "option", field, problem,
        )))
    };
    match extras.throughput {
        ThroughputModel::Linear if extras.data.is_some() => bad(
            "data",
            "is where `--throughput pollux` reads its table; without that option nothing is read"
                .into(),
        ),
        ThroughputModel::Linear => Ok(None),
        ThroughputModel::Pollux if !matches!(kind, "oasis" | "online") => bad(
            "throughput",
            format!(
                "pollux applies to kinds oasis and online, not `{kind}` (see docs/throughput.md)"
            ),
        ),
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
