//! `mlsched export LOG --format chrome-trace`: every bundled scenario under every policy of its
//! kind exports a Chrome trace that parses, names a track for every server the run used, has
//! non-negative slices and decision instants, and is byte-identical on a second export; bad
//! logs are clear input errors; garbage never panics.
use mlsched_lab::export::{chrome_trace, Options};
use mlsched_scenario::replay::record;
use mlsched_scenario::run::{policies, RunOptions};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mlsched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mlsched"))
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mlsched-export-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn scenarios() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut v: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// `v` as a list; absent (an optional result field left out when empty) is an empty list.
fn arr(v: &Value) -> Vec<Value> {
    v.as_array().cloned().unwrap_or_default()
}

/// The process names the trace must hold: one per server the result document says was used.
fn servers_used(kind: &str, scn: &Value, result: &Value) -> BTreeSet<String> {
    let mut s = BTreeSet::new();
    let jobs = result["jobs"].as_array().cloned().unwrap_or_default();
    match kind {
        "oasis" => {
            for p in jobs.iter().flat_map(|j| arr(&j["placements"])) {
                for w in arr(&p["workers"]) {
                    s.insert(format!("worker server {}", w[0]));
                }
                for w in arr(&p["ps"]) {
                    s.insert(format!("parameter-server server {}", w[0]));
                }
            }
        }
        "online" => {
            for p in jobs.iter().flat_map(|j| arr(&j["placement"])) {
                s.insert(format!("server {}", p[0]));
            }
        }
        "placement" => {
            for ks in result["best"]["assignment"].as_object().unwrap().values() {
                for k in arr(ks) {
                    let node = &scn["workers"][k.as_u64().unwrap() as usize]["node"];
                    s.insert(format!("node {}", node.as_f64().unwrap() as u64));
                }
            }
        }
        "preempt" => {
            let name = |i: &Value| {
                let sv = &scn["servers"][i.as_u64().unwrap() as usize];
                let id = sv["id"].as_str().unwrap();
                if sv["cloud"] == Value::Bool(true) {
                    format!("{id} (cloud)")
                } else {
                    format!("edge server {id}")
                }
            };
            for j in &jobs {
                for c in arr(&j["chunks"]).iter().chain(&arr(&j["ps"])) {
                    s.insert(name(&c["server"]));
                }
            }
        }
        "route" => {
            for (j, job) in jobs.iter().enumerate() {
                for n in arr(&job["compute_nodes"]) {
                    s.insert(format!("compute node {}", n.as_str().unwrap()));
                }
                s.insert(format!(
                    "PS node {}",
                    scn["jobs"][j]["ps"].as_str().unwrap()
                ));
            }
        }
        _ => unreachable!(),
    }
    s
}

/// Checks one exported trace; returns its slice and instant counts.
fn check_trace(what: &str, text: &str, expect_servers: Option<BTreeSet<String>>) -> (usize, usize) {
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let events = v["traceEvents"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: traceEvents"));
    let mut processes: BTreeMap<u64, String> = BTreeMap::new();
    let mut threads: BTreeSet<(u64, u64)> = BTreeSet::new();
    for e in events.iter().filter(|e| e["ph"] == "M") {
        let (pid, tid) = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        match e["name"].as_str().unwrap() {
            "process_name" => {
                processes.insert(pid, e["args"]["name"].as_str().unwrap().to_string());
            }
            "thread_name" => {
                threads.insert((pid, tid));
            }
            _ => {}
        }
    }
    let (mut slices, mut decisions) = (0, 0);
    let mut lanes: BTreeMap<(u64, u64), Vec<(f64, f64)>> = BTreeMap::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for e in events {
        let (pid, tid) = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        match e["ph"].as_str().unwrap() {
            "X" => {
                let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
                assert!(ts >= 0.0 && dur >= 0.0, "{what}: slice {e}");
                lanes.entry((pid, tid)).or_default().push((ts, ts + dur));
                assert!(threads.contains(&(pid, tid)), "{what}: unnamed thread {e}");
                used.insert(
                    processes
                        .get(&pid)
                        .cloned()
                        .unwrap_or_else(|| panic!("{what}: slice on unnamed process {e}")),
                );
                slices += 1;
            }
            "i" => {
                assert!(e["ts"].as_f64().unwrap() >= 0.0, "{what}: {e}");
                assert!(threads.contains(&(pid, tid)), "{what}: unnamed thread {e}");
                if processes.get(&pid).map(String::as_str) == Some("scheduler") && tid == 2 {
                    decisions += 1;
                }
            }
            "M" => {}
            other => panic!("{what}: unexpected phase {other}"),
        }
    }
    assert!(decisions > 0, "{what}: no decision instant");
    // The viewers want the slices of one thread apart (or nested): the export keeps them apart.
    for (track, mut spans) in lanes {
        spans.sort_by(|a, b| a.partial_cmp(b).unwrap());
        for w in spans.windows(2) {
            assert!(
                w[0].1 <= w[1].0,
                "{what}: overlapping slices on {track:?}: {w:?}"
            );
        }
    }
    if let Some(want) = expect_servers {
        assert!(!want.is_empty(), "{what}: the run used no server");
        assert_eq!(used, want, "{what}: server tracks");
    }
    (slices, decisions)
}

#[test]
fn every_bundled_scenario_and_policy_exports_a_checked_trace() {
    let mut exported = BTreeSet::new();
    for (name, text) in scenarios() {
        let scn: Value = serde_json::from_str(&text).unwrap();
        let kind = scn["kind"].as_str().unwrap().to_string();
        for (k, p) in policies(&kind).iter().enumerate() {
            let opts = RunOptions {
                policy: (k > 0).then(|| p.to_string()),
                all_categories: false,
            };
            let Ok((result, log)) = record(&text, &opts) else {
                continue;
            };
            let what = format!("{name} {p}");
            let first = chrome_trace(&log, &Options::default()).unwrap();
            let second = chrome_trace(&log, &Options::default()).unwrap();
            assert!(first == second, "{what}: two exports differ");
            let result: Value = serde_json::from_str(&result.to_json()).unwrap();
            // The baselines of oasis and online log workers per job, not servers.
            let baseline = k > 0 && (kind == "oasis" || kind == "online");
            let want = (!baseline).then(|| servers_used(&kind, &scn, &result));
            let (slices, _) = check_trace(&what, &first, want);
            assert!(slices > 0, "{what}: no slice");
            exported.insert(kind.clone());
        }
    }
    assert_eq!(exported.len(), 5, "kinds exported: {exported:?}");
}

#[test]
fn slot_seconds_scales_the_timeline() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/oasis-small.json"),
    )
    .unwrap();
    let (_, log) = record(&text, &RunOptions::default()).unwrap();
    let t = |s: Option<f64>| {
        let v: Value =
            serde_json::from_str(&chrome_trace(&log, &Options { slot_seconds: s }).unwrap())
                .unwrap();
        v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X")
            .map(|e| e["dur"].as_f64().unwrap())
            .sum::<f64>()
    };
    let (one, ten) = (t(None), t(Some(10.0)));
    assert!(one > 0.0);
    assert_eq!(ten, one * 10.0);
}

#[test]
fn cli_writes_stdout_or_a_file_and_refuses_bad_logs() {
    let scn = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/route-small.json");
    let log = tmp("r.mlog");
    let (scn_s, log_s) = (scn.to_str().unwrap(), log.to_str().unwrap());
    assert!(mlsched(&["run", scn_s, "--log", log_s]).status.success());
    let file = tmp("r.trace.json");
    let out = mlsched(&["export", log_s, "-o", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = mlsched(&["export", log_s, "--format", "chrome-trace", "-o", "-"]);
    assert!(stdout.status.success());
    assert_eq!(stdout.stdout, std::fs::read(&file).unwrap());

    let bytes = std::fs::read(&log).unwrap();
    let cut = tmp("cut.mlog");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let bad = |args: &[&str], needle: &str| {
        let o = mlsched(args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    };
    bad(&["export", cut.to_str().unwrap(), "-o", "-"], "truncated");
    bad(&["export", scn_s, "-o", "-"], "not an mlsched log");
    bad(
        &["export", log_s, "-o", "-", "--slot-seconds", "0"],
        "slot-seconds",
    );
    bad(
        &["export", log_s, "-o", "-", "--slot-seconds", "inf"],
        "slot-seconds",
    );
    let place = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/placement-table2.json");
    let plog = tmp("p.mlog");
    assert!(mlsched(&[
        "run",
        place.to_str().unwrap(),
        "--log",
        plog.to_str().unwrap()
    ])
    .status
    .success());
    bad(
        &[
            "export",
            plog.to_str().unwrap(),
            "-o",
            "-",
            "--slot-seconds",
            "2",
        ],
        "slot-seconds",
    );
}

/// A log of the bundled oasis and preempt scenarios' inputs holding `records` as its records:
/// intact framing and checksums around whatever bodies, so the export's decoding is what is
/// exercised.
fn crafted(scenario: &str, records: &[(u8, Vec<u8>)]) -> Vec<u8> {
    use mlsched_kernel::logfile::{Inputs, LogFileWriter};
    let inputs = Inputs {
        scenario,
        policy: None,
        all_categories: false,
    };
    let mut w = LogFileWriter::new(&inputs, 0).unwrap();
    for (tag, body) in records {
        let _ = w.push(*tag, body);
    }
    w.finish()
}

fn bundled(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../scenarios/{name}.json")),
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Garbage, truncations and flipped bytes of a real log: an error or a trace, never a panic.
    #[test]
    fn garbage_logs_never_panic(
        junk in proptest::collection::vec(any::<u8>(), 0..200),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        let _ = chrome_trace(&junk, &Options::default());
        let mut with_magic = b"MLSCHLOG".to_vec();
        with_magic.extend(&junk);
        let _ = chrome_trace(&with_magic, &Options::default());
        let (_, log) = record(&bundled("preempt-small"), &RunOptions::default()).unwrap();
        let _ = chrome_trace(&log[..cut.index(log.len())], &Options::default());
        let mut flipped = log.clone();
        let i = flip.index(flipped.len());
        flipped[i] ^= 1 << bit;
        prop_assert!(chrome_trace(&flipped, &Options::default()).is_err());
    }

    /// Well-framed logs whose records hold out-of-range indices or random bodies: an error
    /// naming the record, never a panic.
    #[test]
    fn crafted_records_are_errors_not_panics(
        job in any::<u32>(),
        server in any::<u32>(),
        slot in 0u32..1000,
        tag in 0x01u8..0xFF,
        body in proptest::collection::vec(any::<u8>(), 0..40),
    ) {
        let oasis_slot = postcard::to_allocvec(
            &(job, slot, 1u64, vec![[server, 1u32]], Vec::<[u32; 2]>::new(), 0.0f64),
        ).unwrap();
        let dispatch = postcard::to_allocvec(
            &(job, 0u32, server, 0u32, false, false, 1.0f64, 2.0f64, slot, 1u32, 0u32),
        ).unwrap();
        if job >= 64 || server >= 64 {
            let log = crafted(&bundled("oasis-small"), &[(0x11u8, oasis_slot.clone())]);
            let e = chrome_trace(&log, &Options::default()).unwrap_err().to_string();
            prop_assert!(e.contains("log record 0") && e.contains("out of range")
                || e.contains("is not [server"), "{}", e);
        }
        for (name, recs) in [
            ("oasis-small", vec![(0x11u8, oasis_slot)]),
            ("preempt-small", vec![(0x41u8, dispatch)]),
            ("route-small", vec![(tag, body.clone())]),
            ("online-ps-small", vec![(tag, body.clone())]),
            ("placement-table2", vec![(tag, body.clone())]),
        ] {
            let _ = chrome_trace(&crafted(&bundled(name), &recs), &Options::default());
        }
    }
}
