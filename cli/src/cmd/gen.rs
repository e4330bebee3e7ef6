//! `mlsched gen KIND`: a generated scenario following a paper's evaluation settings.
use super::write;
use crate::progress::Progress;
use clap::Args;
use mlsched_lab::gen::{GenExtras, GenOptions};
use mlsched_lab::import::pollux::ThroughputModel;
use mlsched_scenario::RunError;
use std::path::{Path, PathBuf};

/// `mlsched gen KIND`.
#[derive(Args, Clone, Debug)]
pub struct GenArgs {
    /// Kind: oasis, online, placement, preempt, route.
    kind: String,
    /// PRNG seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of jobs.
    #[arg(long)]
    jobs: Option<u32>,
    /// Number of nodes/servers.
    #[arg(long)]
    nodes: Option<u32>,
    /// A trace file or folder: the arrivals of online / preempt (default: Poisson), the Gavel
    /// matrix of placement and the openb pod list of route (default: found in the data
    /// folder: $MLSCHED_DATA, else data/ from the current directory upward, else the source
    /// tree's data/).
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Horizon T in slots (kinds online and oasis; default: the paper's).
    #[arg(long)]
    slots: Option<u32>,
    /// Kind online: let A_online's rounds continue past T (writes
    /// "rounds_past_horizon": true; the baselines then run to the same extended horizon).
    #[arg(long)]
    rounds_past_horizon: bool,
    /// Kind oasis: the cost of preemption in seconds (a job whose allocation changes, or
    /// that resumes after a pause, makes no progress for this long), written as
    /// restart_slots = S / 3600 (one generated slot is an hour). Default: none, as in the
    /// OASiS paper's model (`import` writes the Pollux/AdaptDL simulator's 30 s by
    /// default). Other kinds have none. See docs/restart.md.
    #[arg(long)]
    restart_seconds: Option<f64>,
    /// Kinds oasis and online: linear (the papers' model, a job's speed is its worker
    /// count) or pollux (the bundled measured speed-up table of the import's `--throughput
    /// pollux`, a model family per job drawn uniformly, one GPU per worker; the baselines'
    /// progress then depends on how many servers a job spans). See docs/throughput.md.
    #[arg(long, default_value = "linear")]
    throughput: String,
    /// The data folder `--throughput pollux` reads its table from. Default: $MLSCHED_DATA,
    /// else a data/ folder in the current directory or a parent, else the source tree's.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Output file (default stdout).
    #[arg(short, long)]
    out: Option<PathBuf>,
}

/// Runs `mlsched gen`.
pub fn run(a: GenArgs, quiet: bool) -> Result<(), RunError> {
    let GenArgs {
        kind,
        seed,
        jobs,
        nodes,
        trace,
        slots,
        rounds_past_horizon,
        restart_seconds,
        throughput,
        data,
        out,
    } = a;
    let throughput = ThroughputModel::parse(&throughput)?;
    eprintln!("seed {seed}");
    let pb = Progress::spinner(format!("generating {kind}"), quiet);
    let text = mlsched_lab::gen::generate_json_with(
        &kind,
        &GenOptions {
            seed,
            jobs,
            nodes,
            trace,
            slots,
        },
        &GenExtras {
            rounds_past_horizon,
            restart_seconds,
            throughput,
            data,
        },
    );
    pb.finish();
    let text = text?;
    match out {
        Some(p) => write(&p, &text),
        None => write(Path::new("-"), &text),
    }
}
