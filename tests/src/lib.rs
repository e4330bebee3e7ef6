//! Shared helpers of the cross-crate tests.
pub mod alloc_count;

use std::path::PathBuf;

pub mod actions;
pub mod fuzz;
pub mod oasis_units;
pub mod placement_instances;
pub mod route_instances;

/// The repository's bundled `data/` folder (see `data/README.md`). It is part of the repository,
/// so a missing folder fails the test that asks for it (no silent skip).
pub fn data_dir() -> PathBuf {
    let p = repo_root().join("data");
    assert!(
        p.join("README.md").is_file(),
        "the bundled data folder {} is missing: it is part of the repository",
        p.display()
    );
    p
}

/// The bundled scenario `name` (`mlsched_scenario::bundled::by_name`); a missing one fails the
/// test that asks.
pub fn bundled(name: &str) -> &'static str {
    mlsched_scenario::bundled::by_name(name)
        .unwrap_or_else(|| panic!("no bundled scenario {name:?}"))
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Cases per policy of the open-world property tests (`tests/tests/open_world_<kind>.rs`):
/// `ci` (1,000 per policy, issue 46) unless `MLSCHED_WORLD_CASES` says otherwise (a longer
/// campaign, or a quick local run). A value that is not a positive integer fails the test that
/// asks, naming the variable (never silently the default).
pub fn world_cases(ci: u32) -> u32 {
    match std::env::var("MLSCHED_WORLD_CASES") {
        Err(std::env::VarError::NotPresent) => ci,
        Ok(v) => match v.trim().parse::<u32>() {
            Ok(n) if n > 0 => n,
            _ => panic!("MLSCHED_WORLD_CASES must be a positive integer, got {v:?}"),
        },
        Err(e) => panic!("MLSCHED_WORLD_CASES: {e}"),
    }
}

/// Runs scenario `v` with `policy` through the document layer and returns its result with the
/// log's `records:hash` (the golden form the per-kind tests pin).
pub fn run_policy(
    v: &serde_json::Value,
    policy: &str,
) -> (mlsched_scenario::run::ResultDoc, String) {
    let d = mlsched_scenario::doc::parse(&v.to_string()).expect("scenario parses");
    let mut sink = mlsched_kernel::log::HashSink::new();
    let opts = mlsched_scenario::run::RunOptions {
        policy: Some(policy.into()),
        all_categories: false,
    };
    let r = mlsched_scenario::run::run_doc(&d, &opts, &mut sink).expect("runs");
    let h = mlsched_kernel::log::LogSink::hash(&sink);
    (r, format!("{}:{}", h.records(), h.hex()))
}
