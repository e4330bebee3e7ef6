//! The bodies of the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs` call these), kept here so
//! that every crash input saved under `tests/fuzz-regressions/<target>/` runs as a plain test
//! (`tests/tests/fuzz_regressions.rs`) on stable, in CI, without the fuzzer.
//!
//! Each function panics exactly when it finds a bug: a panic inside the code under test, a
//! replay of a freshly written log that does not reproduce it, a corrupted log accepted, or a
//! snapshot/restore that changes a decision.
use crate::actions;
use mlsched_cli::replay;
use mlsched_cli::run::{run_json, RunOptions};
use std::sync::OnceLock;

/// Fuzz target names, as directories of `fuzz/fuzz_targets/` and `tests/fuzz-regressions/`.
pub const TARGETS: [&str; 3] = ["scenario_json", "log_decode", "kernel_events"];

/// Runs the target `name` on `data` (for the regression test).
pub fn run_target(name: &str, data: &[u8]) {
    match name {
        "scenario_json" => scenario_json(data),
        "log_decode" => log_decode(data),
        "kernel_events" => kernel_events(data),
        other => panic!("unknown fuzz target {other}"),
    }
}

/// Scenario JSON of any kind: parse, validate, run; when it runs, the written log must replay
/// to the same records and the same `log_hash`, and a second run must give the same bytes.
pub fn scenario_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let opts = RunOptions::default();
    let first = run_json(text, &opts);
    let Ok(json) = first else {
        return;
    };
    let (result, log) = replay::record(text, &opts).unwrap_or_else(|e| panic!("re-run: {e}"));
    assert_eq!(result.to_json(), json, "two runs of one scenario differ");
    let ok = replay::replay(&log).unwrap_or_else(|e| panic!("replay of a fresh log: {e}"));
    assert_eq!(
        ok.log_hash,
        result.log_hash(),
        "replay hash differs from log_hash"
    );
}

/// A valid log of a bundled scenario that runs (for mutation mode), built once.
fn seed_log() -> Option<&'static [u8]> {
    static LOG: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    LOG.get_or_init(|| {
        mlsched_cli::bundled::SCENARIOS
            .iter()
            .find_map(|(_, text)| replay::record(text, &RunOptions::default()).ok())
            .map(|(_, log)| log)
    })
    .as_deref()
}

/// Log decoding. Input byte 0 = 0: mutation mode, the rest edits a valid log (each edit is
/// `[op, pos lo, pos hi, value]`: overwrite, insert, delete or truncate) and the result must be
/// refused unless it is byte-identical to the original. Otherwise the input itself is a log:
/// decoding and replaying it must not panic.
pub fn log_decode(data: &[u8]) {
    let _ = mlsched_kernel::logfile::verify(data);
    match data.split_first() {
        Some((0, edits)) => {
            let Some(orig) = seed_log() else {
                return;
            };
            let mut log = orig.to_vec();
            for e in edits.chunks_exact(4).take(16) {
                let pos = u16::from_le_bytes([e[1], e[2]]) as usize % (log.len() + 1);
                match e[0] % 4 {
                    0 if pos < log.len() => log[pos] ^= e[3].max(1),
                    1 => log.insert(pos, e[3]),
                    2 if pos < log.len() => {
                        log.remove(pos);
                    }
                    3 => log.truncate(pos),
                    _ => {}
                }
            }
            let r = replay::replay(&log);
            if log != orig {
                assert!(r.is_err(), "a modified log was accepted: {r:?}");
            } else {
                assert!(r.is_ok(), "the original log was refused: {r:?}");
            }
        }
        _ => {
            let _ = replay::replay(data);
        }
    }
}

/// Sequences of kernel events ([`actions::Action`]): invariants hold after each, and the
/// decisions are the same with a snapshot/restore cut in the middle.
pub fn kernel_events(data: &[u8]) {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let acts = actions::decode_all(rest);
    let whole = actions::run(seed as u64, &acts, None);
    let cut = actions::run(seed as u64, &acts, Some(acts.len() / 2));
    assert_eq!(whole, cut, "a snapshot/restore changed the decisions");
}
