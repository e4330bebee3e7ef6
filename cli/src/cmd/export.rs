//! `mlsched export LOG`: a decision log as Chrome trace events.
use super::{in_file, write};
use clap::Args;
use mlsched_scenario::RunError;
use std::path::PathBuf;

/// `mlsched export LOG --out FILE`.
#[derive(Args, Clone, Debug)]
pub struct ExportArgs {
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
}

/// Formats of `mlsched export`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ExportFormat {
    /// Chrome trace event JSON ({"traceEvents": [...]}), opened by Perfetto and chrome://tracing.
    ChromeTrace,
}

/// Runs `mlsched export`.
pub fn run(a: &ExportArgs) -> Result<(), RunError> {
    let ExportFormat::ChromeTrace = a.format;
    let bytes = mlsched_scenario::input::read_log(&a.log)?;
    let opts = mlsched_lab::export::Options {
        slot_seconds: a.slot_seconds,
    };
    let text = mlsched_lab::export::chrome_trace(&bytes, &opts).map_err(|e| match e {
        // An option's error is about the option, not the file.
        RunError::Input(i) if i.subject == "option" => RunError::Input(i),
        e => in_file(&a.log, e),
    })?;
    write(&a.out, &text)
}
