//! `mlsched demo`: every bundled scenario through its algorithm, as tables.
use mlsched_cli::bundled::SCENARIOS;
use mlsched_cli::run::{run_doc, RunOptions};
use mlsched_cli::{doc, RunError};
use mlsched_kernel::log::HashSink;

/// Runs the bundled scenarios and prints one line each.
pub fn run(_quiet: bool) -> Result<(), RunError> {
    println!(
        "{:<28} {:<10} {:<12} {:<18} summary",
        "scenario", "kind", "policy", "log_hash"
    );
    for (name, text) in SCENARIOS {
        let d = doc::parse(text)?;
        let mut sink = HashSink::new();
        match run_doc(&d, &RunOptions::default(), &mut sink) {
            Ok(r) => println!(
                "{:<28} {:<10} {:<12} {:<18} {}",
                name,
                d.kind(),
                "default",
                r.log_hash(),
                r.summary_text()
            ),
            Err(e) => println!(
                "{:<28} {:<10} {:<12} {:<18} unavailable: {e}",
                name,
                d.kind(),
                "default",
                "-"
            ),
        }
    }
    Ok(())
}
