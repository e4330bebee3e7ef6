//! Exceeding a build's fixed capacity (`kernel/src/limits.rs`) through `run_json`: a typed
//! error naming the limit and the value, never a panic and never a truncated run.
use mlsched_kernel::limits;
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::run::{run_json, RunOptions};
use serde_json::{json, Value};

fn bundled(name: &str) -> Value {
    let text = SCENARIOS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .unwrap_or_else(|| panic!("no bundled scenario {name}"));
    serde_json::from_str(text).unwrap()
}

/// Runs `v` and returns the error message (the run must fail).
fn error_of(v: &Value) -> String {
    match run_json(&v.to_string(), &RunOptions::default()) {
        Ok(_) => panic!("a scenario over a limit ran"),
        Err(e) => e.to_string(),
    }
}

fn assert_names(msg: &str, limit: &str, got: usize, max: usize) {
    for part in [limit.to_string(), got.to_string(), max.to_string()] {
        assert!(msg.contains(&part), "`{msg}` does not name `{part}`");
    }
}

#[test]
fn too_many_resources() {
    let mut v = bundled("oasis-small");
    let n = limits::RESOURCES_MAX + 1;
    v["resources"] = json!((0..n).map(|i| format!("r{i}")).collect::<Vec<_>>());
    assert_names(&error_of(&v), "RESOURCES_MAX", n, limits::RESOURCES_MAX);
}

#[test]
fn too_many_worker_servers() {
    let mut v = bundled("oasis-small");
    let n = limits::SERVERS_MAX + 1;
    v["worker_servers"] = json!(vec![[4, 32, 244, 20]; n]);
    assert_names(&error_of(&v), "SERVERS_MAX", n, limits::SERVERS_MAX);
}

#[test]
fn too_many_ps_servers() {
    let mut v = bundled("oasis-small");
    let n = limits::PS_SERVERS_MAX + 1;
    v["ps_servers"] = json!(vec![[0, 36, 60, 40]; n]);
    assert_names(&error_of(&v), "PS_SERVERS_MAX", n, limits::PS_SERVERS_MAX);
}

#[test]
fn too_many_jobs() {
    let mut v = bundled("oasis-small");
    let job = v["jobs"][0].clone();
    let n = limits::JOBS_MAX + 1;
    let jobs: Vec<Value> = (0..n)
        .map(|i| {
            let mut j = job.clone();
            j["id"] = json!(format!("j{i}"));
            j
        })
        .collect();
    v["jobs"] = json!(jobs);
    assert_names(&error_of(&v), "JOBS_MAX", n, limits::JOBS_MAX);
}

#[test]
fn too_many_worker_types() {
    let mut v = bundled("online-ps-small");
    let n = limits::WORKER_TYPES_MAX + 1;
    let t = v["worker_types"][0].clone();
    v["worker_types"] = json!(vec![t; n]);
    assert_names(
        &error_of(&v),
        "WORKER_TYPES_MAX",
        n,
        limits::WORKER_TYPES_MAX,
    );
}

#[test]
fn too_many_placement_workers() {
    let mut v = bundled("placement-table2");
    let n = limits::PLACEMENT_WORKERS_MAX + 1;
    v["workers"] = json!(vec![json!({"gpu": "T4", "node": 0}); n]);
    assert_names(
        &error_of(&v),
        "PLACEMENT_WORKERS_MAX",
        n,
        limits::PLACEMENT_WORKERS_MAX,
    );
}

#[test]
fn too_many_placement_jobs() {
    let mut v = bundled("placement-table2");
    let job = v["jobs"][0].clone();
    let n = limits::PLACEMENT_JOBS_MAX + 1;
    let jobs: Vec<Value> = (0..n)
        .map(|i| {
            let mut j = job.clone();
            j["id"] = json!(format!("j{i}"));
            j
        })
        .collect();
    v["jobs"] = json!(jobs);
    assert_names(
        &error_of(&v),
        "PLACEMENT_JOBS_MAX",
        n,
        limits::PLACEMENT_JOBS_MAX,
    );
}

#[test]
fn too_many_edge_servers() {
    let mut v = bundled("preempt-small");
    let n = limits::EDGE_SERVERS_MAX + 1;
    let servers: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("e{i}"), "workers": 1, "ps": 1}))
        .collect();
    v["servers"] = json!(servers);
    assert_names(
        &error_of(&v),
        "EDGE_SERVERS_MAX",
        n,
        limits::EDGE_SERVERS_MAX,
    );
}

#[test]
fn id_too_long() {
    let mut v = bundled("route-small");
    let n = limits::ID_BYTES_MAX + 1;
    v["jobs"][0]["id"] = json!("x".repeat(n));
    assert_names(&error_of(&v), "ID_BYTES_MAX", n, limits::ID_BYTES_MAX);
}

/// Slots are bounded too; the message gives the value and the bound (it names the range
/// `1..=SLOTS_MAX` by its number).
#[test]
fn too_many_slots() {
    for name in ["oasis-small", "online-ps-small", "preempt-small"] {
        let mut v = bundled(name);
        let n = limits::SLOTS_MAX + 1;
        v["slots"] = json!(n);
        let msg = error_of(&v);
        assert!(
            msg.contains("slots") && msg.contains(&n.to_string()),
            "{name}: {msg}"
        );
        assert!(
            msg.contains(&limits::SLOTS_MAX.to_string()),
            "{name}: {msg}"
        );
    }
}
