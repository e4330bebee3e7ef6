//! The trace-to-scenario mapping flags shared by `mlsched import` and `mlsched compare
//! import:SOURCE`.
use clap::Args;
use mlsched_lab::import::{self, ImportOptions, Source};
use mlsched_scenario::{InputError, RunError};
use std::path::PathBuf;

/// The trace-to-scenario mapping knobs (shared by `import` and `compare import:SOURCE`).
#[derive(Args, Clone, Debug)]
pub struct MapArgs {
    /// Scenario kind to build: oasis or online.
    #[arg(long, default_value = "oasis")]
    kind: String,
    /// The traces folder. Default: $MLSCHED_DATA, else a data/ folder (with the bundled layout)
    /// in the current directory or a parent, else the data/ folder of the source tree built from.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Jobs to take (consecutive by submit time), or `all`: the whole trace.
    #[arg(long, default_value = "100", value_parser = count)]
    jobs: usize,
    /// First job (row after sorting by submit time); absent: drawn from --seed.
    #[arg(long)]
    start: Option<usize>,
    /// PRNG seed (job window when --start is absent, utilities, weights, Gavel job types).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Horizon T in slots. Default: 200, or with --slot-seconds the horizon that holds every
    /// arrival (2 x the arrival span for kind oasis, 2 alpha x for kind online); source pollux
    /// without --slot-seconds: a horizon and slot length its jobs can finish in (the last
    /// arrival plus 2 x (GPU-seconds / GPUs + the longest job), whole-minute slots, about
    /// 1,000 of them; docs/throughput.md).
    #[arg(long)]
    slots: Option<u32>,
    /// Seconds per slot (0: arrivals span half the horizon for kind oasis, T/(2 alpha) for kind
    /// online, the window A_online can reach).
    #[arg(long, default_value_t = 0.0)]
    slot_seconds: f64,
    /// Kind online: ps (parameter servers) or ring (Ring-AllReduce).
    #[arg(long, default_value = "ps")]
    architecture: String,
    /// Worker (GPU) servers, or `all`: every GPU node of the node list (openb, pai-nodes);
    /// with kind online (PS architecture) `all` also takes the CPU-only nodes, as servers with
    /// 0 GPUs that can hold parameter servers. Default 8; 16 with --workload (the Pollux
    /// simulator's cluster).
    #[arg(long, value_parser = count)]
    servers: Option<usize>,
    /// Source pollux: a workload file in the Pollux simulator's format (name, time,
    /// application, num_replicas, batch_size), imported under the peer's physics
    /// (docs/peer.md) instead of Philly jobs.
    #[arg(long)]
    workload: Option<PathBuf>,
    /// With --workload: GPUs per machine (default 4, the peer's).
    #[arg(long, default_value_t = 4)]
    gpus_per_server: u32,
    /// Parameter-server (CPU) servers, or `all`: every CPU-only node of the node list. Default:
    /// sized with the worker servers, one PS server per 4 worker servers (rounded up; the first
    /// CPU-only nodes of the node list, all it has if fewer), every CPU-only node with
    /// `--servers all`.
    #[arg(long, value_parser = count)]
    ps_servers: Option<usize>,
    /// Most workers of a job = its traced GPUs x this.
    #[arg(long, default_value_t = 2)]
    max_scale: u32,
    /// Communication time as a fraction of compute time per mini-batch.
    #[arg(long, default_value_t = 0.1)]
    comm_ratio: f64,
    /// Utility target (oasis) = this x the traced duration.
    #[arg(long, default_value_t = 1.5)]
    target_factor: f64,
    /// Epochs E_j (kind online).
    #[arg(long, default_value_t = 10)]
    epochs: u32,
    /// pai-nodes / gavel: where the jobs come from (philly or openb).
    #[arg(long, default_value = "philly")]
    jobs_from: String,
    /// Kind oasis: the cost of preemption, in seconds: a job whose allocation changes, or that
    /// resumes after a pause, makes no progress for this long (written as the scenario's
    /// restart_slots). Default 30, the Pollux/AdaptDL simulator's; 0 turns it off (no field
    /// written: today's model). See docs/restart.md.
    #[arg(long, default_value_t = import::RESTART_SECONDS_DEFAULT)]
    restart_seconds: f64,
    /// linear (a job's speed is its worker count) or pollux (the measured speed-up of its model
    /// family for its GPUs and the servers they span, used by the baselines of kinds oasis and
    /// online; docs/throughput.md). Source pollux always uses pollux.
    #[arg(long, default_value = "linear")]
    throughput: String,
}

/// A count option: a whole number, or `all` ([`import::ALL`]).
fn count(s: &str) -> Result<usize, String> {
    if s == "all" {
        return Ok(import::ALL);
    }
    s.parse::<usize>()
        .map_err(|_| format!("`{s}` is not a whole number >= 0 nor `all`"))
}

impl MapArgs {
    /// The import options these flags give (the data folder looked up, `--slots 0` refused).
    pub fn options(&self) -> Result<ImportOptions, RunError> {
        let data = mlsched_lab::data::data_dir(self.data.as_deref())?;
        let slots = match self.slots {
            Some(0) => {
                return Err(InputError::new("option", "slots", "must be at least 1").into());
            }
            Some(t) => t,
            // The importer's rule (`import::build::horizon`): 200, or sized from
            // --slot-seconds, or for source pollux a horizon its jobs can finish in.
            None => 0,
        };
        let ps_servers = self.ps_servers.unwrap_or(import::PS_AUTO);
        Ok(ImportOptions {
            kind: self.kind.clone(),
            data_dir: data,
            jobs: self.jobs,
            start: self.start,
            seed: self.seed,
            slots,
            slot_seconds: self.slot_seconds,
            architecture: self.architecture.clone(),
            servers: self
                .servers
                .unwrap_or(if self.workload.is_some() { 16 } else { 8 }),
            ps_servers,
            max_scale: self.max_scale,
            comm_ratio: self.comm_ratio,
            target_factor: self.target_factor,
            epochs: self.epochs,
            jobs_from: Source::parse(&self.jobs_from)?,
            restart_seconds: self.restart_seconds,
            throughput: import::pollux::ThroughputModel::parse(&self.throughput)?,
            workload: self.workload.clone(),
            gpus_per_server: self.gpus_per_server,
            ..ImportOptions::default()
        })
    }
}
