//! Decision logs: the same scenario gives the same log bytes on every run and thread count;
//! replaying a generated log reproduces every decision; a changed, truncated or corrupted log
//! is refused with a typed error and never reported as a successful replay.
use mlsched_kernel::logfile::{LogFileWriter, LogReader};
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::replay::{self, ReplayError};
use mlsched_scenario::run::RunOptions;
use proptest::prelude::*;
use serde_json::Value;

/// Bundled scenarios whose kind runs in this build, with their logs.
fn runnable() -> Vec<(&'static str, String, Vec<u8>)> {
    SCENARIOS
        .iter()
        .filter_map(|(name, text)| {
            replay::record(text, &RunOptions::default())
                .ok()
                .map(|(_, log)| (*name, text.to_string(), log))
        })
        .collect()
}

/// A variant of bundled scenario `which`: jobs kept by the bits of `mask` (at least one), and
/// the `seed` field (if the kind has one) replaced by `seed`.
fn variant(which: usize, mask: u64, seed: u64) -> String {
    let (_, text) = SCENARIOS[which % SCENARIOS.len()];
    let mut v: Value = serde_json::from_str(text).unwrap();
    if let Some(jobs) = v.get_mut("jobs").and_then(Value::as_array_mut) {
        let kept: Vec<Value> = jobs
            .iter()
            .enumerate()
            .filter(|(i, _)| *i == 0 || mask >> (i % 64) & 1 == 1)
            .map(|(_, j)| j.clone())
            .collect();
        *jobs = kept;
    }
    if v.get("seed").is_some() {
        v["seed"] = Value::from(seed);
    }
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn same_log_bytes_across_runs_and_thread_counts() {
    let base = runnable();
    assert!(!base.is_empty(), "no kind runs in this build");
    for (name, text, log) in &base {
        let again = replay::record(text, &RunOptions::default()).unwrap().1;
        assert_eq!(&again, log, "{name}: second run wrote different bytes");
    }
    for threads in [2usize, 4] {
        let logs: Vec<Vec<Vec<u8>>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        base.iter()
                            .map(|(_, t, _)| replay::record(t, &RunOptions::default()).unwrap().1)
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for per_thread in logs {
            for ((name, _, log), got) in base.iter().zip(per_thread) {
                assert_eq!(&got, log, "{name}: bytes differ with {threads} threads");
            }
        }
    }
}

#[test]
fn every_bundled_log_replays_with_its_log_hash() {
    for (name, text, log) in runnable() {
        let (result, _) = replay::record(&text, &RunOptions::default()).unwrap();
        let ok = replay::replay(&log).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ok.log_hash, result.log_hash(), "{name}");
        assert!(ok.to_string().ends_with(&format!(
            "records identical (log_hash {})",
            result.log_hash()
        )));
    }
}

/// Rewrites `log` with record `k`'s body changed (checksums recomputed, so the file is
/// intact and only the decision differs), or with the last record dropped when `k` is None.
fn rewrite(log: &[u8], k: Option<u64>) -> Vec<u8> {
    let mut r = LogReader::open(log).unwrap();
    let mut recs = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        recs.push((rec.tag, rec.body.to_vec()));
    }
    match k {
        Some(k) => {
            let body = &mut recs[k as usize].1;
            if body.is_empty() {
                body.push(1);
            } else {
                body[0] ^= 1;
            }
        }
        None => {
            recs.pop();
        }
    }
    let mut w = LogFileWriter::new(&r.inputs(), r.header().seed).unwrap();
    for (tag, body) in &recs {
        w.push(*tag, body).unwrap();
    }
    w.finish()
}

#[test]
fn a_changed_decision_is_named_with_index_expected_and_got() {
    for (name, _, log) in runnable() {
        // Every record counts (events frame the decisions and are compared too).
        let mut reader = LogReader::open(&log).unwrap();
        while reader.next_record().unwrap().is_some() {}
        let n = reader.frames();
        if n == 0 {
            continue;
        }
        let k = n / 2;
        match replay::replay(&rewrite(&log, Some(k))) {
            Err(ReplayError::Differs(d)) => {
                assert_eq!(d.index, k, "{name}");
                let (e, g) = (d.expected.clone().unwrap(), d.got.clone().unwrap());
                assert_ne!(e, g);
                let msg = d.to_string();
                assert!(msg.starts_with(&format!("record {k} differs: ")), "{msg}");
                assert!(msg.contains("expected") && msg.contains("found"), "{msg}");
            }
            other => panic!("{name}: changed record {k} gave {other:?}"),
        }
        match replay::replay(&rewrite(&log, None)) {
            Err(ReplayError::Differs(d)) => {
                assert_eq!(d.index, n - 1, "{name}");
                assert!(d.expected.is_none() && d.got.is_some());
                assert!(d.to_string().contains("expected the end of the log"));
            }
            other => panic!("{name}: dropped record gave {other:?}"),
        }
    }
}

#[test]
fn every_truncation_of_a_real_log_is_refused() {
    for (name, _, log) in runnable() {
        // Every cut in the first 300 bytes and then every 7th: all must be Log errors.
        for cut in (0..log.len()).filter(|c| *c < 300 || c % 7 == 0) {
            match replay::replay(&log[..cut]) {
                Err(ReplayError::Log(_)) => {}
                other => panic!("{name}: cut at {cut} gave {other:?}"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Replaying any generated log reproduces every decision.
    #[test]
    fn replay_reproduces_generated_runs(which in 0usize..64, mask in any::<u64>(), seed in 0u64..1000) {
        let text = variant(which, mask, seed);
        if let Ok((result, log)) = replay::record(&text, &RunOptions::default()) {
            let ok = replay::replay(&log).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(ok.log_hash, result.log_hash());
            let (h, hash) = mlsched_kernel::logfile::verify(&log).unwrap();
            prop_assert_eq!(h.seed, replay::seed_of(&text));
            prop_assert_eq!(ok.records, hash.records());
        }
    }

    /// A flipped byte anywhere is refused as a bad log, before anything runs.
    #[test]
    fn corrupted_logs_are_refused(which in 0usize..64, pos in any::<u64>(), x in 1u8..=255) {
        let base = runnable();
        prop_assume!(!base.is_empty());
        let (name, _, log) = &base[which % base.len()];
        let mut bad = log.clone();
        let i = (pos % bad.len() as u64) as usize;
        bad[i] ^= x;
        match replay::replay(&bad) {
            Err(ReplayError::Log(_)) => {}
            other => prop_assert!(false, "{}: flip at {} gave {:?}", name, i, other),
        }
    }
}
