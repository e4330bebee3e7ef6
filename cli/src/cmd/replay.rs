//! `mlsched replay LOG`: re-runs the inputs a decision log holds and compares every record.
use super::in_file;
use clap::Args;
use mlsched_scenario::{replay, RunError};
use std::path::PathBuf;

/// `mlsched replay LOG`.
#[derive(Args, Clone, Debug)]
pub struct ReplayArgs {
    /// Log file written by `mlsched run --log` ("-" for standard input).
    log: PathBuf,
}

/// Runs `mlsched replay`.
pub fn run(a: &ReplayArgs) -> Result<(), RunError> {
    let bytes = mlsched_scenario::input::read_log(&a.log)?;
    let ok = replay::replay(&bytes).map_err(|e| in_file(&a.log, e.into()))?;
    outln!("{ok}");
    Ok(())
}
