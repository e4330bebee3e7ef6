//! `mlsched`: run, compare, generate and replay scheduling scenarios on the mlsched kernel.
//!
//! The binary only: one module per subcommand under [`cmd`] and the progress bars
//! ([`progress`]). The work is done by the `mlsched-lab` library (generators, importers,
//! compare, export, `mlsched run`'s summary) on `mlsched-scenario` (documents, run driver,
//! replay).
use clap::{Parser, Subcommand};
use mlsched_scenario::RunError;
use std::process::ExitCode;

/// Writes formatted text to stdout. A closed pipe (`mlsched run x.json | head -1`) ends the
/// process quietly with success, as Unix filters do, instead of the panic `print!` gives; any
/// other write error is reported and exits with status 1.
fn write_stdout(args: std::fmt::Arguments) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_fmt(args).and_then(|()| o.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// `print!` that survives a closed pipe (see [`write_stdout`]).
macro_rules! out {
    ($($t:tt)*) => { $crate::write_stdout(format_args!($($t)*)) };
}

/// `println!` that survives a closed pipe (see [`write_stdout`]).
macro_rules! outln {
    () => { $crate::write_stdout(format_args!("\n")) };
    ($($t:tt)*) => { $crate::write_stdout(format_args!("{}\n", format_args!($($t)*))) };
}

mod cmd;
mod progress;
use cmd::compare::CompareArgs;
use cmd::export::ExportArgs;
use cmd::gen::GenArgs;
use cmd::import::ImportArgs;
use cmd::merge::MergeArgs;
use cmd::replay::ReplayArgs;
use cmd::run::RunArgs;

/// mlsched — deterministic scheduling of distributed ML training jobs (OASiS, Zhou et al.,
/// HAS/JPS, Wang et al., CSRP) on one no_std kernel.
#[derive(Parser)]
#[command(name = "mlsched", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress bars or decorations.
    #[arg(long, global = true)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario with its kind's algorithm (or a baseline with --policy).
    Run(RunArgs),
    /// Re-run the inputs stored in a decision log and compare every record.
    Replay(ReplayArgs),
    /// Write a decision log as Chrome trace events (Perfetto, chrome://tracing): one track per
    /// server with a slice per job placement, instants for every admission and rejection.
    Export(ExportArgs),
    /// Run every bundled default scenario with its algorithm and print the result tables.
    Demo,
    /// Turn a real trace from the bundled data/ folder into a scenario (kind oasis or online).
    Import(ImportArgs),
    /// Run several policies on one scenario: one table, JSON, CSV and SVG plots.
    Compare(CompareArgs),
    /// Merge the shard files of `compare --seeds A..B --shard I/N` into sweep.json / sweep.csv.
    Merge(MergeArgs),
    /// Generate a scenario following a paper's evaluation settings.
    Gen(GenArgs),
    /// Serve clusters over HTTP/JSON with a durable write-ahead log (docs/serve.md).
    Serve(mlsched_serve::Args),
    /// Put mlsched in front of a Slurm partition: write a template from the cluster, run the
    /// bridge (docs/control-planes.md).
    Slurm(cmd::slurm::SlurmArgs),
}

fn main_inner(cli: Cli) -> Result<(), RunError> {
    match cli.command {
        Command::Run(a) => cmd::run::run(a, cli.quiet),
        Command::Replay(a) => cmd::replay::run(&a),
        Command::Export(a) => cmd::export::run(&a),
        Command::Demo => cmd::demo::run(cli.quiet),
        Command::Import(a) => cmd::import::run(&a, cli.quiet),
        Command::Compare(a) => cmd::compare::run(&a, cli.quiet),
        Command::Merge(a) => cmd::merge::run(&a),
        Command::Gen(a) => cmd::gen::run(a, cli.quiet),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Slurm(a) => cmd::slurm::run(a, cli.quiet),
    }
}

/// Large arrays (the OASiS slot trees of a big cluster) on transparent huge pages: the same
/// decisions, fewer TLB misses (`mlsched_hugepages`; `MLSCHED_HUGEPAGES=0` turns it off).
#[global_allocator]
static ALLOC: mlsched_hugepages::HugePages = mlsched_hugepages::HugePages;

fn main() -> ExitCode {
    if let Err(e) = mlsched_hugepages::from_env() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let cli = Cli::parse();
    match main_inner(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "error: {}",
                mlsched_scenario::text::terminal_safe(&e.to_string())
            );
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
