//! Golden decision-log hashes: every scenario of the corpus has a recorded `(records, hash)`
//! pair in `tests/golden/hashes.json`, checked here natively and by the wasm package under node.
//!
//! The corpus: every bundled scenario (`scenarios/`), the same scaled by 2 and 4
//! (`tests/golden/<name>-x<k>.json`: jobs replicated with suffixed ids, workers replicated for
//! placement, `seed` shifted), and `mlsched gen` outputs (`tests/golden/gen-<kind>-j<jobs>.json`)
//! for the kinds whose generator exists when recording. `hashes.json` maps a name to
//! `{"file": path from the repository root, "records": n, "hash": "16 hex digits"}`, or
//! `{"file", "error": message}` for a scenario that does not run in the recording build.
//!
//! Re-record deliberately (after an intended change of decisions or records) with
//! `MLSCHED_RECORD_GOLDEN=1 cargo test -p mlsched-tests --test golden`, and commit
//! `tests/golden/`.
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_lab::gen::{generate_json, GenOptions};
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::run::{run_doc, RunOptions};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

const RECORD_ENV: &str = "MLSCHED_RECORD_GOLDEN";
const RERECORD: &str = "MLSCHED_RECORD_GOLDEN=1 cargo test -p mlsched-tests --test golden";
/// Scale factors of the derived corpus.
const SCALES: [usize; 2] = [2, 4];
/// `mlsched gen` sizes recorded per kind: (jobs, seed).
const GEN_SIZES: [(u32, u64); 2] = [(8, 1), (24, 2)];

fn root() -> PathBuf {
    mlsched_tests::repo_root()
}

fn golden_dir() -> PathBuf {
    root().join("tests/golden")
}

/// Runs `text` and returns its golden entry (without `file`).
fn outcome(text: &str) -> Value {
    let run = mlsched_scenario::doc::parse(text)
        .map_err(Into::into)
        .and_then(|d| {
            let mut sink = HashSink::new();
            run_doc(&d, &RunOptions::default(), &mut sink).map(|r| (r, sink.hash()))
        });
    match run {
        Ok((result, hash)) => {
            assert_eq!(
                result.log_hash(),
                hash.hex().as_str(),
                "log_hash != sink hash"
            );
            json!({"records": hash.records(), "hash": hash.hex().as_str()})
        }
        Err(e) => json!({"error": e.to_string()}),
    }
}

/// `v` with its jobs replicated `k` times (ids suffixed), placement workers replicated on new
/// nodes, and `seed` shifted by `k`.
fn scaled(v: &Value, k: usize) -> Value {
    let mut v = v.clone();
    if let Some(jobs) = v["jobs"].as_array() {
        let mut out = Vec::new();
        for r in 0..k {
            for j in jobs {
                let mut j = j.clone();
                if r > 0 {
                    let id = j["id"].as_str().unwrap_or("job").to_string();
                    j["id"] = json!(format!("{id}~{r}"));
                }
                out.push(j);
            }
        }
        v["jobs"] = json!(out);
    }
    if v["kind"] == "placement" {
        let workers = v["workers"].as_array().cloned().unwrap_or_default();
        let nodes = workers
            .iter()
            .filter_map(|w| w["node"].as_u64())
            .max()
            .map_or(1, |m| m + 1);
        let mut out = Vec::new();
        for r in 0..k as u64 {
            for w in &workers {
                let mut w = w.clone();
                w["node"] = json!(w["node"].as_u64().unwrap_or(0) + r * nodes);
                out.push(w);
            }
        }
        v["workers"] = json!(out);
        if let Some(jobs) = v["jobs"].as_array_mut() {
            for j in jobs {
                let t = j["throughput"].as_array().cloned().unwrap_or_default();
                let rep: Vec<Value> = (0..k).flat_map(|_| t.iter().cloned()).collect();
                j["throughput"] = json!(rep);
            }
        }
    }
    if let Some(s) = v.get("seed").and_then(Value::as_u64) {
        v["seed"] = json!(s + k as u64);
    }
    v
}

/// Writes the derived corpus files and returns every `(name, file)` of the corpus.
fn write_corpus() -> Vec<(String, String)> {
    std::fs::create_dir_all(golden_dir()).unwrap();
    let mut files = Vec::new();
    for (name, text) in SCENARIOS {
        files.push((name.to_string(), format!("scenarios/{name}.json")));
        let v: Value = serde_json::from_str(text).unwrap();
        for k in SCALES {
            let n = format!("{name}-x{k}");
            let mut s = serde_json::to_string_pretty(&scaled(&v, k)).unwrap();
            s.push('\n');
            std::fs::write(golden_dir().join(format!("{n}.json")), s).unwrap();
            files.push((n.clone(), format!("tests/golden/{n}.json")));
        }
    }
    for kind in mlsched_scenario::doc::KINDS {
        for (jobs, seed) in GEN_SIZES {
            let opts = GenOptions {
                seed,
                jobs: Some(jobs),
                ..GenOptions::default()
            };
            if let Ok(text) = generate_json(kind, &opts) {
                let n = format!("gen-{kind}-j{jobs}");
                std::fs::write(golden_dir().join(format!("{n}.json")), text).unwrap();
                files.push((n.clone(), format!("tests/golden/{n}.json")));
            }
        }
    }
    files
}

fn record() {
    let mut out = BTreeMap::new();
    for (name, file) in write_corpus() {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        let mut e = outcome(&text);
        e["file"] = json!(file);
        out.insert(name, e);
    }
    let mut s = serde_json::to_string_pretty(&out).unwrap();
    s.push('\n');
    std::fs::write(golden_dir().join("hashes.json"), s).unwrap();
    eprintln!(
        "recorded {} golden entries in tests/golden/hashes.json",
        out.len()
    );
}

#[test]
fn golden_log_hashes() {
    if std::env::var_os(RECORD_ENV).is_some() {
        record();
        return;
    }
    let path = golden_dir().join("hashes.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; record it with `{RERECORD}`", path.display()));
    let golden: BTreeMap<String, Value> = serde_json::from_str(&text).unwrap();
    let mut bad = Vec::new();
    for (name, _) in SCENARIOS {
        if !golden.contains_key(*name) {
            bad.push(format!("{name}: bundled scenario missing from hashes.json"));
        }
    }
    for (name, want) in &golden {
        let file = want["file"].as_str().unwrap_or_default();
        let Ok(text) = std::fs::read_to_string(root().join(file)) else {
            bad.push(format!("{name}: cannot read {file}"));
            continue;
        };
        let mut got = outcome(&text);
        got["file"] = json!(file);
        if &got != want {
            bad.push(format!("{name}: expected {want}, got {got}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{} golden log hash(es) differ:\n  {}\nIf the decisions or records changed on purpose, \
         re-record deliberately with\n  {RERECORD}\nand commit tests/golden/.",
        bad.len(),
        bad.join("\n  ")
    );
}

/// The scaler keeps scenarios valid: every scaled file parses and validates like its source.
#[test]
fn scaled_scenarios_parse() {
    for (name, text) in SCENARIOS {
        let v: Value = serde_json::from_str(text).unwrap();
        for k in SCALES {
            let s = scaled(&v, k).to_string();
            let d = mlsched_scenario::doc::parse(&s).unwrap_or_else(|e| panic!("{name} x{k}: {e}"));
            assert_eq!(d.kind(), v["kind"].as_str().unwrap());
        }
    }
}

#[test]
fn hash_sink_agrees_with_log_file_writer() {
    for (name, text) in SCENARIOS {
        if let Ok((_, log)) = mlsched_scenario::replay::record(text, &RunOptions::default()) {
            let mut sink = HashSink::new();
            let d = mlsched_scenario::doc::parse(text).unwrap();
            let r = run_doc(&d, &RunOptions::default(), &mut sink).unwrap();
            let (_, h) = mlsched_kernel::logfile::verify(&log).unwrap();
            assert_eq!(h, sink.hash(), "{name}");
            assert_eq!(r.log_hash(), h.hex().as_str(), "{name}");
        }
    }
}
