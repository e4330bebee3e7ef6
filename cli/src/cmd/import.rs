//! `mlsched import SOURCE`: a trace from the data folder as a scenario.
use super::map::MapArgs;
use crate::progress::Progress;
use clap::Args;
use mlsched_lab::import::{self, Source};
use mlsched_scenario::RunError;
use std::path::PathBuf;

/// `mlsched import SOURCE`.
#[derive(Args, Clone, Debug)]
pub struct ImportArgs {
    /// philly, openb, pai-nodes, gavel or pollux.
    source: String,
    #[command(flatten)]
    map: MapArgs,
    /// Output file (default stdout).
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Do not print what the import took and chose (jobs, servers, slot length, horizon) on
    /// stderr, nor the warning naming a binding resource: a resource type of a server pool
    /// that a fifo run uses most, at >= 90% of capacity, in more than half the busy slots.
    #[arg(long)]
    quiet: bool,
}

/// Runs `mlsched import`.
pub fn run(a: &ImportArgs, quiet: bool) -> Result<(), RunError> {
    let src = Source::parse(&a.source)?;
    let pb = Progress::spinner(format!("importing {}", a.source), quiet || a.quiet);
    let imported = import::import_json_with_report(src, &a.map.options()?);
    pb.finish();
    let (text, report) = imported?;
    if !a.quiet {
        eprintln!("imported {}: {report}", a.source);
    }
    match &a.out {
        Some(p) => std::fs::write(p, text)
            .map_err(|e| RunError::runtime(format!("cannot write {}: {e}", p.display()))),
        None => {
            out!("{text}");
            Ok(())
        }
    }
}
