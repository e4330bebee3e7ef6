//! `mlsched run --log FILE` and `mlsched replay FILE` end to end: success prints
//! "N records identical"; a truncated log exits 2 naming the byte; a changed decision exits 1
//! naming the record, what the log expected and what the re-run got.
use mlsched_kernel::logfile::{LogFileWriter, LogReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mlsched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mlsched"))
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mlsched-replay-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../scenarios/{name}.json"))
}

#[test]
fn run_log_then_replay() {
    let log = tmp("p.mlog");
    let out = mlsched(&[
        "run",
        scenario("preempt-small").to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
    ]);
    if !out.status.success() {
        // The kind's scheduler is not in this build: nothing to replay.
        eprintln!("skipped: {}", String::from_utf8_lossy(&out.stderr));
        return;
    }
    let summary = String::from_utf8_lossy(&out.stdout).to_string();
    let ok = mlsched(&["replay", log.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&ok.stdout).to_string();
    assert!(ok.status.success(), "{said}");
    assert!(said.contains(" records identical (log_hash "), "{said}");
    let hash = said
        .trim()
        .rsplit(' ')
        .next()
        .unwrap()
        .trim_end_matches(')');
    assert!(
        summary.contains(hash),
        "replay hash {hash} not in `{summary}`"
    );

    let bytes = std::fs::read(&log).unwrap();
    let cut = tmp("cut.mlog");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let bad = mlsched(&["replay", cut.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("log truncated") && err.contains("byte"),
        "{err}"
    );

    // Same inputs, record 1 changed, checksums recomputed: an intact log of other decisions.
    let mut r = LogReader::open(&bytes).unwrap();
    let mut w = LogFileWriter::new(&r.inputs(), r.header().seed).unwrap();
    while let Some(rec) = r.next_record().unwrap() {
        let mut body = rec.body.to_vec();
        if rec.index == 1 {
            body.push(0);
        }
        w.push(rec.tag, &body).unwrap();
    }
    let changed = tmp("changed.mlog");
    std::fs::write(&changed, w.finish()).unwrap();
    let diff = mlsched(&["replay", changed.to_str().unwrap()]);
    assert_eq!(diff.status.code(), Some(1));
    let err = String::from_utf8_lossy(&diff.stderr);
    assert!(
        err.contains("record 1 differs: expected tag") && err.contains(", found "),
        "{err}"
    );
}

#[test]
fn replay_of_a_missing_or_foreign_file_is_bad_input() {
    let f = tmp("foreign.mlog");
    std::fs::write(&f, b"{\"kind\": \"oasis\"}").unwrap();
    let out = mlsched(&["replay", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("byte 0: not an mlsched log"));
    let out = mlsched(&["replay", tmp("absent.mlog").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}
