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
    if too_large_to_fuzz(text) {
        return;
    }
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

/// Placement categories C(K-1, S-1) above which the harness skips an input.
pub const FUZZ_CATEGORIES_MAX: u128 = 500;
/// Exhaustive-search assignments S^K above which the harness skips an input.
pub const FUZZ_ASSIGNMENTS_MAX: u128 = 20_000;

/// The harness explores semantics on small inputs: a placement problem with many categories (or
/// a large exhaustive search) is valid but takes seconds per run in an instrumented build, which
/// libFuzzer reports as a timeout rather than a bug. Such inputs are covered by the golden and
/// property tests instead.
pub fn too_large_to_fuzz(text: &str) -> bool {
    let Ok(mlsched_cli::doc::ScenarioDoc::Placement(p)) = mlsched_cli::doc::parse(text) else {
        return false;
    };
    let (k, s) = (p.workers.len() as u128, p.jobs.len() as u128);
    if k == 0 || s == 0 {
        return false;
    }
    let mut categories: u128 = 1;
    for i in 0..(s - 1).min(k) {
        categories = categories * (k - 1 - i) / (i + 1);
        if categories > FUZZ_CATEGORIES_MAX {
            return true;
        }
    }
    let mut assignments: u128 = 1;
    for _ in 0..k {
        assignments = assignments.saturating_mul(s);
        if assignments > FUZZ_ASSIGNMENTS_MAX {
            return matches!(p.method, mlsched_cli::doc::placement::MethodDoc::Exhaustive);
        }
    }
    false
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
