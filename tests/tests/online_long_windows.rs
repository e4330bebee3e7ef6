//! A_online (PS) on an openb slice with hour-long slots: the late rounds' A_dual windows are
//! thousands of slots long, the case the fast search's pruning targets (docs/online.md,
//! "Long windows"). The decision-log hash was recorded before that pruning existed, so any
//! change of a decision, a cost or a tie-break fails here.
use mlsched_lab::import::{import_json, ImportOptions, Source};
use mlsched_scenario::run::{run_json, RunOptions};
use mlsched_tests::data_dir as data;
use serde_json::Value;

/// The first 300 openb pods on 30 worker servers, 3,600-second slots: T = 22,528 and windows
/// of up to 2,048 slots.
fn slice() -> String {
    let o = ImportOptions {
        kind: "online".into(),
        data_dir: data(),
        jobs: 300,
        start: Some(0),
        servers: 30,
        slots: 0, // sized from the slot length, as `--slot-seconds` alone does
        slot_seconds: 3600.0,
        ..ImportOptions::default()
    };
    import_json(Source::Openb, &o).unwrap()
}

#[test]
fn openb_slice_with_long_windows_keeps_its_recorded_log_hash() {
    let text = slice();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["slots"].as_f64(), Some(22_528.0), "the slice changed");
    let res: Value =
        serde_json::from_str(&run_json(&text, &RunOptions::default()).unwrap()).unwrap();
    assert_eq!(res["summary"]["scheduled"].as_u64(), Some(300));
    // Recorded with the search before the long-window pruning (commit a76ea7a).
    assert_eq!(res["log_hash"].as_str(), Some("e1c1a2679f6450ae"));
}
