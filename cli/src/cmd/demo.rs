//! `mlsched demo`: every bundled scenario with its algorithm against the baselines its kind
//! accepts (`policies(kind)`), printed as compare tables. A policy that is not available in this
//! build gets a row saying so; the demo itself still succeeds.
use mlsched_lab::compare;
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::run::policies;
use mlsched_scenario::{doc, RunError};
use std::time::Instant;

/// Runs the bundled scenarios and prints one table each.
pub fn run(quiet: bool) -> Result<(), RunError> {
    let start = Instant::now();
    for (name, text) in SCENARIOS {
        let d = doc::parse(text)?;
        let list: Vec<String> = policies(d.kind()).iter().map(|s| s.to_string()).collect();
        let reports = compare::compare(&d, &list);
        outln!("== {name} (kind {}) ==", d.kind());
        out!("{}", compare::table(d.kind(), &reports));
        outln!();
    }
    if !quiet {
        outln!(
            "{} scenarios in {:.2} s; `mlsched compare FILE --out DIR` writes JSON, CSV and SVG plots",
            SCENARIOS.len(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
