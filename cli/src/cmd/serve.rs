//! `mlsched serve`: the durable scheduling service of the `mlsched-serve` crate (docs/serve.md).
use mlsched_scenario::RunError;

/// Runs `mlsched serve` until SIGINT or SIGTERM. A start refused for its arguments (a
/// non-loopback address without a token, an unreadable token file, ...) exits with code 2 like
/// every other input error; a failure of the machine (the port taken, the state directory
/// unwritable) with code 1.
pub fn run(a: mlsched_serve::Args) -> Result<(), RunError> {
    match mlsched_serve::run(a) {
        Ok(()) => Ok(()),
        Err(e) if e.exit_code == 2 => {
            eprintln!("error: {e}");
            std::process::exit(2)
        }
        Err(e) => Err(RunError::runtime(e.message)),
    }
}
