//! A_online (PS) on a generated scenario whose late A_dual windows are full: every server of
//! the window is busy, no schedule costs 0, and the fast search has to price candidates on
//! every busy server (docs/online.md, "Production scale", "Full windows"). The decision-log
//! hash was recorded before the full-window pruning existed (commit ecf9730), so any change of
//! a decision, a cost, a tie-break or a rejected job's best schedule fails here.
use mlsched_lab::gen::{generate_json, GenOptions};
use mlsched_scenario::run::{run_json, RunOptions};
use serde_json::Value;

/// `mlsched gen online --nodes 500 --jobs 500` (seed 1): servers scaled to 20-50% of the
/// jobs' demand, so most jobs meet windows whose cluster is full.
fn scenario() -> String {
    let opts = GenOptions {
        seed: 1,
        jobs: Some(500),
        nodes: Some(500),
        ..GenOptions::default()
    };
    generate_json("online", &opts).unwrap()
}

#[test]
fn generated_full_windows_keep_their_recorded_log_hash() {
    let res: Value =
        serde_json::from_str(&run_json(&scenario(), &RunOptions::default()).unwrap()).unwrap();
    // 341 of the 500 jobs find no schedule worth its weight: their windows are full.
    assert_eq!(res["summary"]["scheduled"].as_u64(), Some(159));
    assert_eq!(res["log_hash"].as_str(), Some("04a6c61b6174238c"));
}

/// `mlsched gen online --nodes 12500 --jobs 2000` (seed 1): a 100,000-GPU-class server count,
/// so the search's per-32-server block bounds skip whole blocks, PS host lists are built block
/// by block and the q = 0 server order is sorted only as far as the fills reach
/// (docs/online.md, "Production scale", "Server blocks"). The hash was recorded before those
/// changes (commit 0a4860e).
#[test]
fn generated_12500_servers_keep_their_recorded_log_hash() {
    let opts = GenOptions {
        seed: 1,
        jobs: Some(2000),
        nodes: Some(12500),
        ..GenOptions::default()
    };
    let doc = generate_json("online", &opts).unwrap();
    let res: Value =
        serde_json::from_str(&run_json(&doc, &RunOptions::default()).unwrap()).unwrap();
    assert_eq!(res["summary"]["scheduled"].as_u64(), Some(454));
    assert_eq!(res["log_hash"].as_str(), Some("a496fd8dea70e2ad"));
}
