//! Placement-aware throughput (`docs/throughput.md`): the tables derived from the bundled Pollux
//! step times, the interpolation on hand-made points, a one-job scenario whose progress is
//! checked by hand (consolidated vs spread), the linear default unchanged, refusals of bad
//! tables naming the field, and the `pollux` importer's determinism.
use mlsched_kernel::log::HashSink;
use mlsched_lab::import::pollux::{self, ModelTable, MODELS, TABLE_GPUS, TABLE_NODES};
use mlsched_lab::import::{self, ImportOptions, Source};
use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_scenario::run::{run_doc, ResultDoc, RunOptions};
use serde_json::{json, Value};
use std::path::PathBuf;

fn data() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../data"))
}

#[test]
fn bundled_tables_have_every_model_finite_and_s11_one() {
    let tables = pollux::read_tables(&data().join("pollux-throughput")).unwrap();
    assert_eq!(tables.len(), MODELS.len());
    for t in &tables {
        assert_eq!(t.speedup.len(), TABLE_NODES, "{}", t.name);
        assert_eq!(t.at(1, 1), 1.0, "{}", t.name);
        for (n, row) in t.speedup.iter().enumerate() {
            assert_eq!(row.len(), TABLE_GPUS, "{}", t.name);
            for (g, &s) in row.iter().enumerate() {
                assert!(
                    s.is_finite() && s >= 0.0,
                    "{} s({}, {})",
                    t.name,
                    g + 1,
                    n + 1
                );
                // Reachable cells (g >= n) are positive: every placement makes progress.
                assert_eq!(s > 0.0, g >= n, "{} s({}, {}) = {s}", t.name, g + 1, n + 1);
            }
        }
        // The data's point: 4 GPUs on one machine beat 4 GPUs on four machines.
        assert!(t.at(4, 1) > t.at(4, 4), "{}", t.name);
    }
}

/// Hand-made points (g, n, local batch, step time): s(2,1) = 1.8, s(4,1) = 3, s(2,2) = 1.2,
/// s(4,2) = 2, s(4,4) = 1.6; a second batch size that must be ignored.
fn hand_table() -> ModelTable {
    let p = |g: usize, n: usize, s: f64| (g, n, 8.0, g as f64 / s);
    let points = [
        p(1, 1, 1.0),
        p(2, 1, 1.8),
        p(4, 1, 3.0),
        p(2, 2, 1.2),
        p(4, 2, 2.0),
        p(4, 4, 1.6),
        (1, 1, 16.0, 0.1),
    ];
    pollux::derive("hand", &points).unwrap()
}

#[test]
fn interpolation_by_hand() {
    let t = hand_table();
    assert_eq!(t.local_bsz, 8.0);
    assert_eq!(t.at(3, 1), 2.4); // linear in g between 1.8 and 3
    assert_eq!(t.at(8, 1), 6.0); // beyond the last point: its per-GPU efficiency, 3 x 8 / 4
    assert_eq!(t.at(3, 2), 1.6); // between 1.2 and 2
    assert_eq!(t.at(6, 4), 2.4); // beyond row 4's last point: 1.6 x 6 / 4
                                 // 3 GPUs span at most 3 servers.
    assert_eq!(t.at(3, 4), t.at(3, 3));
    // Row 3 not measured: halfway between row 2 (1.6) and row 4 below its first point
    // (1.6 x 3 / 4 = 1.2).
    assert_eq!(t.at(3, 3), 1.4);
    assert_eq!(t.at(4, 3), 1.8);
    assert_eq!(t.at(16, 16), 6.4); // beyond the last row: row 4, 1.6 x 16 / 4
    assert_eq!(t.speedup[1][0], 0.0); // g < n: unreachable, 0
}

/// One job of 3 workers (chunks 3), chunk time 0.01 slot, 400 x 3 = 1200 chunks, under the
/// hand table; `servers` worker servers of `gpus` GPUs each.
fn one_job(servers: usize, gpus: f64, table: bool) -> Value {
    let mut v = json!({
        "kind": "oasis", "slots": 20, "resources": ["gpu", "cpu", "mem_gb", "bw_gbps"],
        "worker_servers": vec![json!([gpus, 16, 64, 10]); servers],
        "ps_servers": [[0, 16, 64, 10]],
        "jobs": [{"id": "j", "arrival": 0, "epochs": 400, "chunks": 3,
            "minibatches_per_chunk": 1, "minibatch_time": 0.01, "comm_time": 0,
            "worker_bw": 1, "ps_bw": 4, "worker_demand": [1, 1, 1, 1], "ps_demand": [0, 1, 1, 1],
            "utility": {"sigmoid": {"priority": 10, "decay": 0.5, "target": 5}}}]
    });
    if table {
        v["throughput"] = serde_json::to_value(pollux::throughput_doc(&[hand_table()])).unwrap();
        v["jobs"][0]["model"] = json!("hand");
    }
    v
}

fn completion(v: &Value, policy: &str) -> Option<u32> {
    let d = doc::parse(&v.to_string()).unwrap();
    let o = RunOptions {
        policy: Some(policy.into()),
        all_categories: false,
    };
    match run_doc(&d, &o, &mut HashSink::new()).unwrap() {
        ResultDoc::Oasis(r) => r.jobs[0].completion_slot,
        _ => unreachable!(),
    }
}

#[test]
fn consolidated_beats_spread_by_the_table() {
    for policy in ["fifo", "las", "drf", "optimus"] {
        // Linear: 3 / 0.01 = 300 chunks a slot, 1200 chunks in 4 slots (0..=3).
        assert_eq!(
            completion(&one_job(1, 4.0, false), policy),
            Some(3),
            "{policy}"
        );
        // One 4-GPU server: s(3, 1) = 2.4, 240 chunks a slot, 5 slots.
        assert_eq!(
            completion(&one_job(1, 4.0, true), policy),
            Some(4),
            "{policy}"
        );
        // Three 1-GPU servers: s(3, 3) = 1.4, 140 a slot, 1200 / 140 = 8.57: 9 slots.
        assert_eq!(
            completion(&one_job(3, 1.0, true), policy),
            Some(8),
            "{policy}"
        );
        // Without the table, where the workers are does not matter.
        assert_eq!(
            completion(&one_job(3, 1.0, false), policy),
            Some(3),
            "{policy}"
        );
    }
}

/// Kind online: one job of 3 workers (chunks 3), 400 x 3 mini-batches of 0.01 slot (no update,
/// no gradient), `servers` servers of `gpus` GPUs, under the hand table.
fn one_online_job(servers: usize, gpus: f64, table: bool) -> Value {
    let mut v = json!({
        "kind": "online", "slots": 30, "architecture": "ps", "resources": ["gpu", "cpu", "bw_gbps"],
        "servers": vec![json!([gpus, 16, 10]); servers],
        "worker_types": [{"demand": [1, 1, 1], "bw": 1.0}],
        "ps_types": [{"demand": [0, 1, 1], "bw": 4.0}], "F": 1.0,
        "jobs": [{"id": "j", "arrival": 0, "weight": 1, "epochs": 400, "chunks": 3,
            "minibatches_per_chunk": 1, "minibatch_time": [0.01], "update_time": [0],
            "gradient_size": 0}]
    });
    if table {
        v["throughput"] = serde_json::to_value(pollux::throughput_doc(&[hand_table()])).unwrap();
        v["jobs"][0]["model"] = json!("hand");
    }
    v
}

fn online_duration(v: &Value, policy: &str) -> Option<u32> {
    let d = doc::parse(&v.to_string()).unwrap();
    let o = RunOptions {
        policy: Some(policy.into()),
        all_categories: false,
    };
    match run_doc(&d, &o, &mut HashSink::new()).unwrap() {
        ResultDoc::Online(r) => r.jobs[0].duration,
        _ => unreachable!(),
    }
}

#[test]
fn online_baselines_take_the_duration_from_the_placement() {
    for policy in ["fifo", "las"] {
        // Linear: 1200 x 0.01 / 3 = 4 slots, wherever the workers are.
        assert_eq!(
            online_duration(&one_online_job(1, 4.0, false), policy),
            Some(4)
        );
        assert_eq!(
            online_duration(&one_online_job(4, 1.0, false), policy),
            Some(4)
        );
        // One 4-GPU server: 12 / s(3, 1) = 12 / 2.4 = 5 slots; one worker on each of three
        // 1-GPU servers: 12 / s(3, 3) = 12 / 1.4 = 8.57, 9 slots.
        assert_eq!(
            online_duration(&one_online_job(1, 4.0, true), policy),
            Some(5)
        );
        assert_eq!(
            online_duration(&one_online_job(4, 1.0, true), policy),
            Some(9)
        );
    }
}

fn refusal(v: &Value) -> String {
    let e = doc::parse(&v.to_string())
        .and_then(|d| d.validate())
        .unwrap_err();
    format!("{} {}: {}", e.subject, e.field, e.problem)
}

#[test]
fn bad_tables_name_the_field() {
    let base = one_job(1, 4.0, true);
    let mut v = base.clone();
    v["throughput"]["models"][0]["speedup"][1][2] = json!(-1.0);
    assert!(
        refusal(&v).contains("models[0].speedup[1][2]"),
        "{}",
        refusal(&v)
    );
    let mut v = base.clone();
    v["throughput"]["models"] = json!([]);
    assert!(refusal(&v).contains("throughput models"), "{}", refusal(&v));
    let mut v = base.clone();
    v["throughput"]["models"][0]["speedup"][3] = json!([1.0]);
    assert!(
        refusal(&v).contains("models[0].speedup[3]"),
        "{}",
        refusal(&v)
    );
    let mut v = base.clone();
    v["throughput"]["models"][0]["speedup"] = json!([]);
    assert!(refusal(&v).contains("models[0].speedup"), "{}", refusal(&v));
    let mut v = base.clone();
    v["jobs"][0]["model"] = json!("gpt");
    let e = refusal(&v);
    assert!(e.contains("job `j` model") && e.contains("gpt"), "{e}");
    let mut v = one_job(1, 4.0, false);
    v["jobs"][0]["model"] = json!("hand");
    assert!(
        refusal(&v).contains("no `throughput` table"),
        "{}",
        refusal(&v)
    );
    let mut v = base;
    v["throughput"]["speed"] = json!(1);
    assert!(doc::parse(&v.to_string()).is_err());
}

fn opts(seed: u64) -> ImportOptions {
    ImportOptions {
        data_dir: data(),
        jobs: 160,
        servers: 16,
        seed,
        start: None,
        ..ImportOptions::default()
    }
}

#[test]
fn pollux_import_is_deterministic_and_linear_stays_linear() {
    let a = import::import_json(Source::Pollux, &opts(1)).unwrap();
    assert_eq!(a, import::import_json(Source::Pollux, &opts(1)).unwrap());
    assert_ne!(a, import::import_json(Source::Pollux, &opts(2)).unwrap());
    let v: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["worker_servers"][0][0], json!(4.0));
    assert_eq!(v["throughput"]["models"].as_array().unwrap().len(), 6);
    assert!(v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|j| j["model"].is_string()));
    assert!(matches!(doc::parse(&a).unwrap(), ScenarioDoc::Oasis(_)));
    // The default (linear) import writes neither a table nor job models.
    let lin = import::import_json(Source::Philly, &opts(1)).unwrap();
    assert!(!lin.contains("\"throughput\"") && !lin.contains("\"model\""));
    // --throughput pollux on philly: the same jobs and servers with the table.
    let mut o = opts(1);
    o.throughput = pollux::ThroughputModel::Pollux;
    let p: Value = serde_json::from_str(&import::import_json(Source::Philly, &o).unwrap()).unwrap();
    assert_eq!(p["worker_servers"][0][0], json!(8.0));
    assert!(p["throughput"].is_object());
    // Kind online carries the table too.
    o.kind = "online".into();
    let on: Value =
        serde_json::from_str(&import::import_json(Source::Philly, &o).unwrap()).unwrap();
    assert!(on["throughput"].is_object() && on["jobs"][0]["model"].is_string());
}

/// Issue 45: `import pollux --jobs 160 --servers 16 --seed 1 --slots 200` (the horizon the
/// import chose before issue 45: 200 slots of about 11 s) leaves jobs that no policy can
/// finish; the report names them in a warning (printed on stderr by `mlsched import`). The
/// peer's workload, whose horizon is sized for every job, gets none.
#[test]
fn pollux_short_horizon_warns_naming_the_jobs_that_cannot_finish() {
    let o = ImportOptions {
        data_dir: data(),
        jobs: 160,
        servers: 16,
        seed: 1,
        slots: 200,
        ..ImportOptions::default()
    };
    let (v, report) = import::import_with_report(Source::Pollux, &o).unwrap();
    assert!(!report.unfinishable.is_empty());
    let text = report.to_string();
    assert!(text.contains("WARNING:"), "{text}");
    assert!(text.contains(&report.unfinishable[0]), "{text}");
    // Each one named really cannot finish: even alone, at N_i linear workers.
    let jobs = v["jobs"].as_array().unwrap();
    let t = v["slots"].as_f64().unwrap();
    for id in &report.unfinishable {
        let j = jobs.iter().find(|j| j["id"] == json!(id)).unwrap();
        let m = j["minibatch_time"].as_f64().unwrap() + 2.0 * j["comm_time"].as_f64().unwrap();
        let need = j["epochs"].as_f64().unwrap() * j["minibatches_per_chunk"].as_f64().unwrap() * m;
        assert!(j["arrival"].as_f64().unwrap() + need.ceil() > t, "{id}");
    }
    let peer = ImportOptions {
        workload: Some(data().join("pollux-workloads/workload-6.csv")),
        ..o
    };
    let (_, r) = import::import_with_report(Source::Pollux, &peer).unwrap();
    assert!(r.unfinishable.is_empty(), "{:?}", r.unfinishable);
    assert!(!r.to_string().contains("WARNING"));
}

/// Issue 45 item 6: without `--slots` and `--slot-seconds` (0 and 0), `import pollux` sizes the
/// slot length and horizon so that the workload can finish (`docs/throughput.md`): no job is
/// named by the warning, slots are whole minutes, and a fifo run finishes every job. Explicit
/// options are kept as given.
#[test]
fn pollux_default_horizon_lets_the_workload_finish() {
    let o = ImportOptions {
        data_dir: data(),
        jobs: 160,
        servers: 16,
        seed: 1,
        slots: 0,
        slot_seconds: 0.0,
        ..ImportOptions::default()
    };
    let (v, report) = import::import_with_report(Source::Pollux, &o).unwrap();
    assert!(report.unfinishable.is_empty(), "{:?}", report.unfinishable);
    assert!(!report.to_string().contains("WARNING"), "{report}");
    let h = report.horizon;
    assert_eq!(h.slot_seconds % 60.0, 0.0, "{h:?}");
    assert!(h.slots <= 1_001 && h.slots > h.last_arrival, "{h:?}");
    assert_eq!(v["slots"], json!(h.slots as f64));
    let doc = doc::parse(&serde_json::to_string(&v).unwrap()).unwrap();
    let fifo = mlsched_lab::compare::run_policy(&doc, "fifo").metrics;
    assert_eq!(
        (fifo.status.as_str(), fifo.finished),
        ("ok", 160),
        "{fifo:?}"
    );
    // Explicit options are the user's.
    let given = ImportOptions {
        slots: 300,
        slot_seconds: 600.0,
        ..o.clone()
    };
    let (_, r) = import::import_with_report(Source::Pollux, &given).unwrap();
    assert_eq!((r.horizon.slots, r.horizon.slot_seconds), (300, 600.0));
    // Other sources keep their rule: 200 slots, the arrivals over half of them.
    let (_, r) = import::import_with_report(Source::Philly, &o).unwrap();
    assert_eq!(r.horizon.slots, 200);
}
