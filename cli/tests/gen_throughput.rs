//! `mlsched gen oasis|online --throughput pollux` (`docs/throughput.md`): the generated scenario
//! carries the bundled speed-up table and a model per job, validates and runs under every policy
//! of its kind, is the same bytes for the same seed, differs from the linear scenario only where
//! the option says, changes the baselines' results (the kind's own algorithm ignores the
//! table), and bad option values are refused naming the option.
use mlsched_kernel::log::HashSink;
use mlsched_lab::gen::{generate_json, generate_json_with, GenExtras, GenOptions};
use mlsched_lab::import::pollux::{ThroughputModel, MODELS};
use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_scenario::run::{policies, run_doc, ResultDoc, RunOptions};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn data() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../data"))
}

/// Small scenarios (seconds on a 2-core machine): 30 jobs, 10 servers, 100 slots.
fn opts(seed: u64) -> GenOptions {
    GenOptions {
        seed,
        jobs: Some(30),
        nodes: Some(10),
        trace: None,
        slots: Some(100),
    }
}

fn pollux() -> GenExtras {
    GenExtras {
        throughput: ThroughputModel::Pollux,
        data: Some(data()),
        ..GenExtras::default()
    }
}

fn gen(kind: &str, seed: u64) -> String {
    generate_json_with(kind, &opts(seed), &pollux()).unwrap()
}

/// The paper settings' jobs are long (kind oasis: hardly any finishes within T under any
/// policy); one epoch each lets most finish, so the table's effect shows in completion slots.
fn one_epoch(text: &str) -> String {
    let mut v: Value = serde_json::from_str(text).unwrap();
    for j in v["jobs"].as_array_mut().unwrap() {
        j["epochs"] = serde_json::json!(1.0);
    }
    v.to_string()
}

/// Dorm's branch and bound per event runs to its node budget (`DORM_EVENT_NODES`, an anytime
/// limit that replaced the old hard bound) on generated oasis scenarios of 10 jobs or more,
/// which is slow, so it gets 4 jobs on 3 servers.
fn gen_for(kind: &str, policy: &str, seed: u64) -> String {
    if policy != "dorm" {
        return gen(kind, seed);
    }
    let small = GenOptions {
        jobs: Some(4),
        nodes: Some(3),
        ..opts(seed)
    };
    generate_json_with(kind, &small, &pollux()).unwrap()
}

/// Each job's completion slot under `policy`.
fn completions(text: &str, policy: &str) -> Vec<Option<u32>> {
    let d = doc::parse(text).unwrap();
    d.validate().unwrap();
    let o = RunOptions {
        policy: Some(policy.into()),
        all_categories: false,
    };
    match run_doc(&d, &o, &mut HashSink::new()).unwrap() {
        ResultDoc::Oasis(r) => r.jobs.iter().map(|j| j.completion_slot).collect(),
        ResultDoc::Online(r) => r.jobs.iter().map(|j| j.completion_slot).collect(),
        _ => unreachable!("kind oasis or online"),
    }
}

/// The same document without the table and the jobs' models (the linear model on the same
/// jobs and servers).
fn without_table(text: &str) -> String {
    let mut v: Value = serde_json::from_str(text).unwrap();
    v.as_object_mut().unwrap().remove("throughput");
    for j in v["jobs"].as_array_mut().unwrap() {
        j.as_object_mut().unwrap().remove("model");
    }
    v.to_string()
}

#[test]
fn generated_tables_and_models() {
    for kind in ["oasis", "online"] {
        let text = gen(kind, 1);
        let v: Value = serde_json::from_str(&text).unwrap();
        let names: Vec<&str> = v["throughput"]["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, MODELS, "{kind}");
        let jobs = v["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 30);
        for j in jobs {
            assert!(MODELS.contains(&j["model"].as_str().unwrap()), "{kind}");
        }
        // The draw reaches more than one family (uniform over six: 30 jobs never hit just one).
        let first = &jobs[0]["model"];
        assert!(jobs.iter().any(|j| &j["model"] != first), "{kind}");
        // One GPU per worker.
        let gpus: Vec<f64> = match kind {
            "oasis" => jobs
                .iter()
                .map(|j| j["worker_demand"][0].as_f64().unwrap())
                .collect(),
            _ => v["worker_types"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["demand"][0].as_f64().unwrap())
                .collect(),
        };
        assert!(gpus.iter().all(|&g| g == 1.0), "{kind}: {gpus:?}");
        assert!(matches!(
            (kind, doc::parse(&text).unwrap()),
            ("oasis", ScenarioDoc::Oasis(_)) | ("online", ScenarioDoc::Online(_))
        ));
    }
}

#[test]
fn same_seed_same_bytes_and_linear_unchanged() {
    for kind in ["oasis", "online"] {
        assert_eq!(gen(kind, 7), gen(kind, 7), "{kind}");
        assert_ne!(gen(kind, 7), gen(kind, 8), "{kind}");
        // Without the option: the documents `generate_json` writes, with no table or model.
        let lin = generate_json_with(kind, &opts(7), &GenExtras::default()).unwrap();
        assert_eq!(lin, generate_json(kind, &opts(7)).unwrap(), "{kind}");
        assert!(!lin.contains("\"throughput\"") && !lin.contains("\"model\""));
    }
    // Kind oasis: the option changes the workers' GPUs and adds the table and models, nothing
    // else (the families come from a stream of their own).
    let mut lin: Value = serde_json::from_str(&generate_json("oasis", &opts(7)).unwrap()).unwrap();
    for j in lin["jobs"].as_array_mut().unwrap() {
        j["worker_demand"][0] = serde_json::json!(1.0);
    }
    let pol: Value = serde_json::from_str(&without_table(&gen("oasis", 7))).unwrap();
    assert_eq!(pol, lin);
}

#[test]
fn runs_under_every_policy_and_the_table_changes_the_baselines() {
    for (kind, algorithm) in [("oasis", "oasis"), ("online", "online")] {
        let mut changed = Vec::new();
        for &p in policies(kind) {
            let text = one_epoch(&gen_for(kind, p, 3));
            let (a, b) = (completions(&text, p), completions(&without_table(&text), p));
            assert_eq!(a.len(), doc::parse(&text).unwrap().jobs(), "{kind} {p}");
            if p == algorithm {
                // OASiS and A_online plan with the linear model and ignore the table.
                assert_eq!(a, b, "{kind} {p}");
            } else if a != b {
                changed.push(p);
            }
        }
        // Spread workers run slower than linear: the round-robin baselines finish differently.
        for p in ["fifo", "drf", "las", "optimus"] {
            assert!(
                changed.contains(&p),
                "{kind}: {p} unchanged by the table ({changed:?})"
            );
        }
    }
}

/// Exit status and stderr of `mlsched ARGS` (input errors exit with 2).
fn bin(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_mlsched"))
        .args(args)
        .env("MLSCHED_DATA", data())
        .output()
        .expect("spawn mlsched");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn flag_errors_name_the_option() {
    let (code, err) = bin(&["gen", "oasis", "--throughput", "foo"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("throughput") && err.contains("`foo`") && err.contains("linear or pollux"),
        "{err}"
    );
    let (code, err) = bin(&["gen", "placement", "--throughput", "pollux"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("throughput") && err.contains("oasis and online"),
        "{err}"
    );
    let (code, err) = bin(&["gen", "oasis", "--data", "data"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("data") && err.contains("--throughput pollux"),
        "{err}"
    );
    let (code, err) = bin(&[
        "gen",
        "oasis",
        "--throughput",
        "pollux",
        "--data",
        "/nonexistent-mlsched-data",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("pollux-throughput"), "{err}");
    // And the option works through the binary.
    let (code, err) = bin(&["gen", "online", "--jobs", "5", "--throughput", "pollux"]);
    assert_eq!(code, Some(0), "{err}");
}
