//! Writes what the C test (`bindings/c/tests/c/test.c`) compares against, into the folder given
//! as the first argument: for every bundled scenario `<name>.scenario.json` (its text),
//! `<name>.arrivals` (`slot job` lines in the order a run feeds them) and, for every policy of
//! its kind, `<name>.<policy>.json` (`run_json`'s bytes, or the error message); then `cases.txt`
//! with one `name policy code` line per run.
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::engine::Engine;
use mlsched_scenario::run::{policies, run_json, RunOptions};
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: expected DIR")?);
    std::fs::create_dir_all(&dir)?;
    let mut cases = String::new();
    for (name, text) in SCENARIOS {
        std::fs::write(dir.join(format!("{name}.scenario.json")), text)?;
        let e = Engine::new(text, &RunOptions::default())?;
        let arrivals: String = e
            .arrival_order()
            .iter()
            .map(|(s, j)| format!("{s} {j}\n"))
            .collect();
        std::fs::write(dir.join(format!("{name}.arrivals")), arrivals)?;
        for policy in policies(e.kind()) {
            let opts = RunOptions {
                policy: Some(policy.to_string()),
                all_categories: false,
            };
            let (code, bytes) = match run_json(text, &opts) {
                Ok(s) => (0, s),
                Err(e) => (e.exit_code(), e.to_string()),
            };
            std::fs::write(dir.join(format!("{name}.{policy}.json")), bytes)?;
            writeln!(cases, "{name} {policy} {code}")?;
        }
    }
    std::fs::write(dir.join("cases.txt"), cases)?;
    Ok(())
}
