//! One module per subcommand: its arguments (a clap `Args` struct) and its `run` function.
//! The helpers below are the file handling `run`, `export` and `gen` share.
use mlsched_scenario::{InputError, RunError};
use std::path::Path;

pub mod compare;
pub mod demo;
pub mod export;
pub mod gen;
pub mod import;
mod map;
pub mod merge;
pub mod replay;
pub mod run;
pub mod serve;
pub mod slurm;

/// Reads a scenario file ("-": standard input) within the scenario size limit.
fn read(path: &Path) -> Result<String, RunError> {
    Ok(mlsched_scenario::input::read_text(
        path,
        mlsched_scenario::input::Input::Scenario,
    )?)
}

/// Writes `text` to `path` ("-": standard output).
fn write(path: &Path, text: &str) -> Result<(), RunError> {
    if path == Path::new("-") {
        out!("{text}");
        return Ok(());
    }
    std::fs::write(path, text)
        .map_err(|e| RunError::runtime(format!("cannot write {}: {e}", path.display())))
}

/// An input error of the document read from `path`, with the file named in its subject.
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
