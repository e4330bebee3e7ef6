//! The peer simulator's physics (`docs/peer.md`): `import pollux --workload` on the bundled
//! workload 6 of the Pollux simulator, run under `tiresias` and `optimus`, agrees with the
//! peer's published average JCTs within 15 % and with its measured p99 and makespan within
//! 25 %; the decision logs are pinned (new golden runs). Hand-checked small cases: the first
//! start charged, Tiresias' demotion, requested workers above the fixed eight.
use mlsched_lab::import::{import_json, ImportOptions, Source};
use mlsched_scenario::kinds::oasis::doc::OasisResult;
use mlsched_scenario::run::ResultDoc;
use serde_json::{json, Value};

/// The peer's published average JCTs on workload 6 (`data/pollux-workloads/README.md`).
const PUBLISHED_AVG: [(&str, f64); 2] = [("tiresias", 3469.69375), ("optimus", 5301.875)];
/// The peer run on this machine (`docs/peer.md`): p99 JCT (nearest rank) and makespan, s.
const PEER_P99_MAKESPAN: [(&str, f64, f64); 2] = [
    ("tiresias", 52573.0, 78609.0),
    ("optimus", 48185.0, 66299.0),
];
/// Decision-log hashes (records:hex) of the two runs: the peer physics' golden runs.
const HASHES: [(&str, &str); 2] = [
    ("tiresias", "5078:16b8349d0de18e25"),
    ("optimus", "13895:8806d53996715afd"),
];

fn run(v: &Value, policy: &str) -> (OasisResult, String) {
    match mlsched_tests::run_policy(v, policy) {
        (ResultDoc::Oasis(r), hash) => (r, hash),
        (other, _) => panic!("not an oasis result: {other:?}"),
    }
}

fn workload6() -> Value {
    let root = mlsched_tests::repo_root();
    let opts = ImportOptions {
        data_dir: root.join("data"),
        workload: Some(root.join("data/pollux-workloads/workload-6.csv")),
        servers: 16,
        ..ImportOptions::default()
    };
    serde_json::from_str(&import_json(Source::Pollux, &opts).expect("import")).unwrap()
}

/// JCTs in seconds of the finished jobs (compare's: completion - arrival + 1 slots).
fn jcts(v: &Value, r: &OasisResult) -> Vec<f64> {
    let s = v["slot_seconds"].as_f64().unwrap();
    let mut out: Vec<f64> = r
        .jobs
        .iter()
        .zip(v["jobs"].as_array().unwrap())
        .filter_map(|(j, d)| {
            let a = d["arrival"].as_f64().unwrap();
            j.completion_slot.map(|c| (c as f64 - a + 1.0) * s)
        })
        .collect();
    out.sort_by(f64::total_cmp);
    out
}

#[test]
fn workload6_agrees_with_the_peer() {
    let v = workload6();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 160);
    assert_eq!(v["slot_seconds"], json!(60.0));
    assert_eq!(v["restart_slots"], json!(0.5));
    assert_eq!(v["restart_first"], json!(true));
    let s = 60.0;
    for (p, avg_peer) in PUBLISHED_AVG {
        let (r, hash) = run(&v, p);
        let j = jcts(&v, &r);
        assert_eq!(j.len(), 160, "{p}: every job finishes in the horizon");
        let avg = j.iter().sum::<f64>() / j.len() as f64;
        let ratio = avg / avg_peer;
        assert!(
            (0.85..=1.15).contains(&ratio),
            "{p}: avg {avg} vs {avg_peer}"
        );
        let (_, p99_peer, mk_peer) = PEER_P99_MAKESPAN.iter().find(|x| x.0 == p).unwrap();
        let p99 = j[(0.99 * j.len() as f64).ceil() as usize - 1];
        let makespan = (r
            .jobs
            .iter()
            .filter_map(|j| j.completion_slot)
            .max()
            .unwrap()
            + 1) as f64
            * s;
        for (what, ours, peer) in [("p99", p99, *p99_peer), ("makespan", makespan, *mk_peer)] {
            let q = ours / peer;
            assert!((0.75..=1.25).contains(&q), "{p}: {what} {ours} vs {peer}");
        }
        let want = HASHES.iter().find(|x| x.0 == p).unwrap().1;
        assert_eq!(hash, want, "{p}: decision-log hash");
    }
}

/// One 4-GPU server (resources gpu, ps), jobs of `workers` requested GPUs and `work`
/// worker-slots each (chunks of 1/10 worker-slot), arriving at `arrival`.
fn small(jobs: &[(f64, u32, f64)], restart: Option<(f64, bool)>, slot_s: f64) -> Value {
    let js: Vec<Value> = jobs
        .iter()
        .enumerate()
        .map(|(i, &(a, w, work))| {
            json!({"id": format!("j{i}"), "arrival": a, "epochs": work * 10.0 / w as f64,
                   "chunks": w, "minibatches_per_chunk": 1, "minibatch_time": 0.1,
                   "comm_time": 0.0, "worker_bw": 1e-6, "ps_bw": 1.0,
                   "worker_demand": [1.0, 0.0], "ps_demand": [0.0, 1.0],
                   "utility": {"table": [1.0]}, "workers": w})
        })
        .collect();
    let mut v = json!({"kind": "oasis", "slots": 60, "resources": ["gpu", "ps"],
        "worker_servers": [[4.0, 0.0], [4.0, 0.0], [4.0, 0.0]], "ps_servers": [[0.0, 10.0]],
        "slot_seconds": slot_s, "jobs": js});
    if let Some((c, first)) = restart {
        v["restart_slots"] = json!(c);
        v["restart_first"] = json!(first);
    }
    v
}

fn done(r: &OasisResult) -> Vec<Option<u32>> {
    r.jobs.iter().map(|j| j.completion_slot).collect()
}

#[test]
fn the_first_start_is_charged_on_request() {
    // 2 workers, 4 worker-slots of work: 2 slots free, 2.5 slots when the start costs half a
    // slot (progress is fractional: the job ends in its third slot).
    let jobs = [(0.0, 2, 4.0)];
    for (restart, want) in [(None, 1), (Some((0.5, false)), 1), (Some((0.5, true)), 2)] {
        let (r, _) = run(&small(&jobs, restart, 60.0), "tiresias");
        assert_eq!(done(&r), vec![Some(want)], "{restart:?}");
        assert_eq!(r.summary.restarts, restart.map(|_| 0));
    }
}

#[test]
fn tiresias_demotes_at_16_gpu_hours_and_runs_requested_gangs() {
    // 3 servers of 4 GPUs. j0 asks 12 GPUs for 120 worker-slots; j1 arrives at slot 1 asking
    // 12. With 1-hour slots j0 reaches 16 GPU-hours after 2 slots (24 GPU-slots): demoted,
    // j1 (queue 0) takes the cluster from slot 2 (j1 is queue 0 with 0 attained) until it is
    // demoted too after 2 slots; then queue 1 in demotion order: j0 again.
    let v = small(&[(0.0, 12, 120.0), (1.0, 12, 120.0)], None, 3600.0);
    let (r, _) = run(&v, "tiresias");
    // j0: slots 0, 1, then 4..=11 (8 more slots: 10 x 12 = 120); j1: slots 2, 3, 12..=19.
    assert_eq!(done(&r), vec![Some(11), Some(19)]);
    // FIFO and LAS run the 12 requested workers, above the fixed 8.
    let (f, _) = run(&v, "fifo");
    assert_eq!(done(&f), vec![Some(9), Some(19)]);
    // Without `workers` FIFO keeps min(N, 8): j0 needs 15 slots.
    let mut plain = v.clone();
    for j in plain["jobs"].as_array_mut().unwrap() {
        j.as_object_mut().unwrap().remove("workers");
    }
    let (f8, _) = run(&plain, "fifo");
    assert_eq!(done(&f8)[0], Some(14));
}

#[test]
fn bad_workload_rows_name_row_and_column() {
    let dir = std::env::temp_dir().join(format!("mlsched-peer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = mlsched_tests::repo_root();
    let h = "name,time,application,num_replicas,batch_size";
    for (body, field) in [
        ("a,0,resnet,1,128", "application"),
        ("a,x,cifar10,1,128", "time"),
        ("a,0,cifar10,0,128", "num_replicas"),
        ("a,0,cifar10,1,1.5", "batch_size"),
        ("a,0,cifar10,1,99999", "batch_size"),
    ] {
        let p = dir.join("w.csv");
        std::fs::write(&p, format!("{h}\n{body}\n")).unwrap();
        let opts = ImportOptions {
            data_dir: root.join("data"),
            workload: Some(p.clone()),
            servers: 16,
            ..ImportOptions::default()
        };
        let e = import_json(Source::Pollux, &opts).unwrap_err().to_string();
        assert!(e.contains("row 2") && e.contains(field), "{body}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
