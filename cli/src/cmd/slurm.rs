//! `mlsched slurm template` and `mlsched slurm bridge`: mlsched in front of a Slurm partition
//! (`docs/control-planes.md`; the work is the `mlsched-slurm` crate's).
use super::{read, write};
use clap::{Args, Subcommand};
use mlsched_scenario::{InputError, RunError};
use mlsched_slurm::{Bridge, BridgeOptions, Client, Kind, SlurmError, SystemRunner};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// `mlsched slurm ...`.
#[derive(Args, Clone, Debug)]
pub struct SlurmArgs {
    #[command(subcommand)]
    command: SlurmCommand,
}

#[derive(Subcommand, Clone, Debug)]
enum SlurmCommand {
    /// Write a scenario template from the running cluster: one server per node (its id the
    /// node name), capacities from Slurm, the kind's other fields at documented defaults.
    Template(TemplateArgs),
    /// Schedule a Slurm partition's held `mlsched:` jobs with the open-world engine.
    Bridge(BridgeArgs),
}

/// `mlsched slurm template`.
#[derive(Args, Clone, Debug)]
struct TemplateArgs {
    /// The scenario kind (online; oasis is refused: Slurm cannot grow a running job).
    #[arg(long, default_value = "online")]
    kind: String,
    /// The partition (every node when not given).
    #[arg(long)]
    partition: Option<String>,
    /// Where to write the template ("-": stdout).
    #[arg(short = 'o', long = "output", default_value = "-")]
    output: PathBuf,
}

/// `mlsched slurm bridge`.
#[derive(Args, Clone, Debug)]
struct BridgeArgs {
    /// The scenario template (`mlsched slurm template`).
    #[arg(long)]
    scenario: PathBuf,
    /// Policy other than the kind's own algorithm (e.g. fifo, drf, las).
    #[arg(long)]
    policy: Option<String>,
    /// Wall seconds per slot.
    #[arg(long)]
    slot_seconds: f64,
    /// State directory (journal and clock): the same one resumes after a crash.
    #[arg(long)]
    state: PathBuf,
    /// Write the decision log here when the bridge stops (`mlsched replay` reproduces it).
    #[arg(long)]
    log: PathBuf,
    /// Write the result document (with occupancy) here when the bridge stops.
    #[arg(long)]
    json: PathBuf,
    /// The partition (every node when not given).
    #[arg(long)]
    partition: Option<String>,
    /// Stop after this many slots in a row with none of the bridge's jobs pending or running.
    #[arg(long)]
    until_idle: Option<u32>,
}

fn slurm_err(e: SlurmError) -> RunError {
    match e {
        SlurmError::Request { .. } | SlurmError::Template { .. } | SlurmError::Mismatch { .. } => {
            RunError::Input(InputError::new("slurm", "", e.to_string()))
        }
        other => RunError::runtime(other.to_string()),
    }
}

/// Runs `mlsched slurm`.
pub fn run(a: SlurmArgs, quiet: bool) -> Result<(), RunError> {
    match a.command {
        SlurmCommand::Template(t) => template(&t),
        SlurmCommand::Bridge(b) => bridge(b, quiet),
    }
}

fn template(a: &TemplateArgs) -> Result<(), RunError> {
    let kind = Kind::parse(&a.kind).map_err(slurm_err)?;
    let client = Client::new(SystemRunner::default());
    let t = client
        .template(kind, a.partition.as_deref())
        .map_err(slurm_err)?;
    write(&a.output, &t.json)
}

fn bridge(a: BridgeArgs, quiet: bool) -> Result<(), RunError> {
    let opts = BridgeOptions {
        scenario: read(&a.scenario)?,
        policy: a.policy,
        slot_seconds: a.slot_seconds,
        state: a.state,
        partition: a.partition,
        until_idle: a.until_idle,
        quiet,
    };
    let stop = Arc::new(AtomicBool::new(false));
    watch_signals(Arc::clone(&stop));
    let bridge = Bridge::open(Client::new(SystemRunner::default()), opts).map_err(slurm_err)?;
    let out = bridge.run(&stop).map_err(slurm_err)?;
    write(&a.json, &out.result)?;
    std::fs::write(&a.log, &out.log)
        .map_err(|e| RunError::runtime(format!("cannot write {}: {e}", a.log.display())))?;
    outln!("{}", added_summary(&out.added));
    Ok(())
}

/// The time the bridge adds per decision: Slurm poll seen -> `scontrol` call.
fn added_summary(added: &[Duration]) -> String {
    if added.is_empty() {
        return "bridge: no Slurm action taken".into();
    }
    let mut ms: Vec<f64> = added.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    format!(
        "bridge: {} Slurm actions; time added per decision (poll seen -> scontrol call): median \
         {:.1} ms, max {:.1} ms",
        ms.len(),
        ms[ms.len() / 2],
        ms[ms.len() - 1]
    )
}

/// Sets `stop` on SIGINT or SIGTERM (a thread with a small tokio runtime waits for them): the
/// bridge finishes its slot and writes its outputs.
fn watch_signals(stop: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async {
            let Ok(mut term) =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            else {
                return;
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        });
        stop.store(true, Ordering::SeqCst);
    });
}
