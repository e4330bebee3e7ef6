//! `mlsched`: run, compare, generate and replay scheduling scenarios on the mlsched kernel.
use clap::{Parser, Subcommand};
use mlsched_cli::engine::RunProgress;
use mlsched_cli::gen::GenOptions;
use mlsched_cli::replay;
use mlsched_cli::run::{run_doc_observed, RunOptions};
use mlsched_cli::{doc, InputError, RunError};
use mlsched_kernel::log::HashSink;
use std::path::{Path, PathBuf};
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
mod demo;
mod progress;
use cmd::{CompareArgs, ImportArgs, MergeArgs};

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
    Run {
        /// Scenario JSON file (docs/formats.md), or "-" for standard input.
        scenario: PathBuf,
        /// Policy other than the kind's own algorithm (e.g. fifo, drf, las, optimus).
        #[arg(long)]
        policy: Option<String>,
        /// Write the result document here ("-" for stdout).
        #[arg(long)]
        json: Option<PathBuf>,
        /// Placement: report every category examined.
        #[arg(long)]
        all: bool,
        /// Write the decision log (header, inputs, every record, checksums) here.
        #[arg(long)]
        log: Option<PathBuf>,
    },
    /// Re-run the inputs stored in a decision log and compare every record.
    Replay {
        /// Log file written by `mlsched run --log` ("-" for standard input).
        log: PathBuf,
    },
    /// Write a decision log as Chrome trace events (Perfetto, chrome://tracing): one track per
    /// server with a slice per job placement, instants for every admission and rejection.
    Export {
        /// Log file written by `mlsched run --log` ("-" for standard input). It holds the
        /// scenario it ran, so no scenario file is needed.
        log: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ExportFormat::ChromeTrace)]
        format: ExportFormat,
        /// Output file ("-" for stdout).
        #[arg(short, long)]
        out: PathBuf,
        /// Seconds one slot stands for on the timeline (default 1, so the viewer's seconds read
        /// as slots; give the --slot-seconds of `mlsched import` to see trace time). Not for
        /// placement, whose times are seconds.
        #[arg(long)]
        slot_seconds: Option<f64>,
    },
    /// Run every bundled default scenario with its algorithm and print the result tables.
    Demo,
    /// Turn a real trace from the bundled data/ folder into a scenario (kind oasis or online).
    Import(ImportArgs),
    /// Run several policies on one scenario: one table, JSON, CSV and SVG plots.
    Compare(CompareArgs),
    /// Merge the shard files of `compare --seeds A..B --shard I/N` into sweep.json / sweep.csv.
    Merge(MergeArgs),
    /// Generate a scenario following a paper's evaluation settings.
    Gen {
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
    },
}

/// Formats of `mlsched export`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ExportFormat {
    /// Chrome trace event JSON ({"traceEvents": [...]}), opened by Perfetto and chrome://tracing.
    ChromeTrace,
}

/// The observer `mlsched run` gives the engine: jobs arrived and the current slot on the bar.
/// Off a terminal (or with --quiet) it returns at once; on one, the message (a formatted
/// string) is only rebuilt when the slot changes, so the run's speed does not change.
fn run_progress(pb: &progress::Progress) -> impl FnMut(RunProgress) + '_ {
    let mut shown: Option<u32> = None;
    move |p: RunProgress| {
        if !pb.is_live() {
            return;
        }
        if shown != Some(p.slot) {
            shown = Some(p.slot);
            pb.set_message(format!("jobs arrived, slot {}", p.slot));
        }
        pb.set(u64::from(p.arrived), u64::from(p.jobs));
    }
}

fn read(path: &Path) -> Result<String, RunError> {
    Ok(mlsched_cli::input::read_text(
        path,
        mlsched_cli::input::Input::Scenario,
    )?)
}

fn write(path: &Path, text: &str) -> Result<(), RunError> {
    if path == Path::new("-") {
        out!("{text}");
        return Ok(());
    }
    std::fs::write(path, text)
        .map_err(|e| RunError::runtime(format!("cannot write {}: {e}", path.display())))
}

fn in_file(path: &Path, e: RunError) -> RunError {
    match e {
        RunError::Input(i) => RunError::Input(InputError::new(
            format!("{}: {}", path.display(), i.subject),
            i.field,
            i.problem,
        )),
        other => other,
    }
}

fn main_inner(cli: Cli) -> Result<(), RunError> {
    match cli.command {
        Command::Run {
            scenario,
            policy,
            json,
            all,
            log,
        } => {
            if let (Some(j), Some(l)) = (&json, &log) {
                if j == l && j != Path::new("-") {
                    return Err(InputError::new(
                        "option",
                        "log",
                        format!(
                            "{} is also the --json output: give two different files",
                            l.display()
                        ),
                    )
                    .into());
                }
            }
            if log.as_deref() == Some(Path::new("-")) {
                return Err(InputError::new(
                    "option",
                    "log",
                    "a decision log is binary: give a file, not standard output",
                )
                .into());
            }
            let text = read(&scenario)?;
            let d = doc::parse(&text).map_err(|e| in_file(&scenario, e.into()))?;
            let opts = RunOptions {
                policy,
                all_categories: all,
            };
            let pb = progress::Progress::new(0, cli.quiet);
            let mut observe = run_progress(&pb);
            let result = match &log {
                None => run_doc_observed(&d, &opts, &mut HashSink::new(), &mut observe),
                Some(path) => replay::record_observed(&text, &opts, &mut observe).and_then(
                    |(result, bytes)| {
                        std::fs::write(path, bytes).map_err(|e| {
                            RunError::runtime(format!("cannot write {}: {e}", path.display()))
                        })?;
                        Ok(result)
                    },
                ),
            }
            .map_err(|e| in_file(&scenario, e));
            pb.finish();
            let result = result?;
            if json.as_deref() != Some(Path::new("-")) {
                outln!("{}", mlsched_cli::summary::text_for(&d, &result));
            }
            if let Some(out) = json {
                write(&out, &result.to_json())?;
            }
            Ok(())
        }
        Command::Replay { log } => {
            let bytes = mlsched_cli::input::read_log(&log)?;
            let ok = replay::replay(&bytes).map_err(|e| in_file(&log, e.into()))?;
            outln!("{ok}");
            Ok(())
        }
        Command::Export {
            log,
            format: ExportFormat::ChromeTrace,
            out,
            slot_seconds,
        } => {
            let bytes = mlsched_cli::input::read_log(&log)?;
            let opts = mlsched_cli::export::Options { slot_seconds };
            let text = mlsched_cli::export::chrome_trace(&bytes, &opts).map_err(|e| match e {
                // An option's error is about the option, not the file.
                RunError::Input(i) if i.subject == "option" => RunError::Input(i),
                e => in_file(&log, e),
            })?;
            write(&out, &text)
        }
        Command::Demo => demo::run(cli.quiet),
        Command::Import(a) => cmd::import(&a, cli.quiet),
        Command::Compare(a) => cmd::compare(&a, cli.quiet),
        Command::Merge(a) => cmd::merge(&a),
        Command::Gen {
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
        } => {
            let throughput = mlsched_cli::import::pollux::ThroughputModel::parse(&throughput)?;
            eprintln!("seed {seed}");
            let pb = progress::Progress::spinner(format!("generating {kind}"), cli.quiet);
            let text = mlsched_cli::gen::generate_json_with(
                &kind,
                &GenOptions {
                    seed,
                    jobs,
                    nodes,
                    trace,
                    slots,
                },
                &mlsched_cli::gen::GenExtras {
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
                mlsched_cli::text::terminal_safe(&e.to_string())
            );
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
