//! Every build limit of `kernel/src/limits.rs` that a document or a CLI option can hit gives a
//! message naming the limit by its constant and value, the field (its document path, or the
//! option), and, for a limit on one job (or server, or node), its id and index — one case per
//! limit, each on the smallest input that exceeds it. Limits that only a huge input could reach
//! are checked on the kernel error's `Display` instead (said at each case). The table of
//! `docs/semantics.md` ("Limits") lists the same messages.
use mlsched_kernel::limits as l;
use mlsched_lab::gen::{generate_json, GenOptions};
use mlsched_lab::import::{import_json, ImportOptions, Source};
use mlsched_scenario::run::{run_json, RunOptions};
use mlsched_scenario::RunError;
use serde_json::{json, Value};

/// One small scenario of `kind` (the fuzz seeds: every one runs).
fn tiny(name: &str) -> Value {
    let path =
        mlsched_tests::repo_root().join(format!("fuzz/seeds/scenario_json/tiny-{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// Runs `v` (the run must fail) and returns the exit code and the message.
fn run_err(v: &Value) -> (i32, String) {
    match run_json(&v.to_string(), &RunOptions::default()) {
        // Reported by `check` with the limit's name.
        Ok(_) => (0, "the scenario ran".into()),
        Err(e) => (e.exit_code(), e.to_string()),
    }
}

fn refused(r: Result<String, RunError>) -> (i32, String) {
    match r {
        Ok(_) => (0, "the options were taken".into()),
        Err(e) => (e.exit_code(), e.to_string()),
    }
}

/// `n` copies of `item`, each with id `{prefix}{i}` when `prefix` is given.
fn copies(item: &Value, n: usize, prefix: Option<&str>) -> Value {
    json!((0..n)
        .map(|i| {
            let mut x = item.clone();
            if let Some(p) = prefix {
                x["id"] = json!(format!("{p}{i}"));
            }
            x
        })
        .collect::<Vec<_>>())
}

/// A limit case: its constant, the exit code, the message, and the fragments it must hold.
struct Case {
    limit: &'static str,
    exit: i32,
    message: String,
    fragments: Vec<String>,
}

fn case(limit: &'static str, got: (i32, String), fragments: &[&str]) -> Case {
    Case {
        limit,
        exit: got.0,
        message: got.1,
        fragments: fragments.iter().map(|s| s.to_string()).collect(),
    }
}

/// "NAME = value": the limit named by its constant and its value.
fn named(limit: &str, max: impl std::fmt::Display) -> String {
    format!("{limit} = {max}")
}

fn document_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut push = |limit: &'static str, got: (i32, String), frags: Vec<String>| {
        let refs: Vec<&str> = frags.iter().map(String::as_str).collect();
        out.push(case(limit, got, &refs));
    };

    // Scenario-level counts: refused by validation (exit 2), field = the list.
    let mut v = tiny("oasis");
    v["resources"] = json!((0..=l::RESOURCES_MAX)
        .map(|i| format!("r{i}"))
        .collect::<Vec<_>>());
    push(
        "RESOURCES_MAX",
        run_err(&v),
        vec![
            "field `resources`".into(),
            format!("{} entries", l::RESOURCES_MAX + 1),
            named("RESOURCES_MAX", l::RESOURCES_MAX),
        ],
    );
    let mut v = tiny("oasis");
    v["worker_servers"] = json!(vec![[4, 32, 244, 20]; l::SERVERS_MAX + 1]);
    push(
        "SERVERS_MAX",
        run_err(&v),
        vec![
            "field `worker_servers`".into(),
            format!("{} entries", l::SERVERS_MAX + 1),
            named("SERVERS_MAX", l::SERVERS_MAX),
        ],
    );
    let mut v = tiny("oasis");
    v["ps_servers"] = json!(vec![[0, 36, 60, 40]; l::PS_SERVERS_MAX + 1]);
    push(
        "PS_SERVERS_MAX",
        run_err(&v),
        vec![
            "field `ps_servers`".into(),
            format!("{} entries", l::PS_SERVERS_MAX + 1),
            named("PS_SERVERS_MAX", l::PS_SERVERS_MAX),
        ],
    );
    let mut v = tiny("online-ps");
    v["slots"] = json!(l::SLOTS_MAX + 1);
    push(
        "SLOTS_MAX",
        run_err(&v),
        vec![
            "scenario, field `slots`".into(),
            format!("{} exceeds", l::SLOTS_MAX + 1),
            named("SLOTS_MAX", l::SLOTS_MAX),
        ],
    );
    // SLOTS_MAX also bounds a per-job slot count: job id, index and path.
    let mut v = tiny("preempt");
    v["jobs"][1]["upload_delay"][2] = json!(l::SLOTS_MAX + 1);
    push(
        "SLOTS_MAX",
        run_err(&v),
        vec![
            "job `j2` (index 1), field `jobs[1].upload_delay[2]`".into(),
            named("SLOTS_MAX", l::SLOTS_MAX),
        ],
    );
    let mut v = tiny("online-ps");
    let t = v["worker_types"][0].clone();
    v["worker_types"] = copies(&t, l::WORKER_TYPES_MAX + 1, None);
    push(
        "WORKER_TYPES_MAX",
        run_err(&v),
        vec![
            "field `worker_types`".into(),
            named("WORKER_TYPES_MAX", l::WORKER_TYPES_MAX),
        ],
    );
    let mut v = tiny("online-ps");
    let t = v["ps_types"][0].clone();
    v["ps_types"] = copies(&t, l::PS_TYPES_MAX + 1, None);
    push(
        "PS_TYPES_MAX",
        run_err(&v),
        vec![
            "field `ps_types`".into(),
            named("PS_TYPES_MAX", l::PS_TYPES_MAX),
        ],
    );
    let mut v = tiny("placement-has");
    v["workers"] = json!(vec![
        json!({"gpu": "T4", "node": 0});
        l::PLACEMENT_WORKERS_MAX + 1
    ]);
    push(
        "PLACEMENT_WORKERS_MAX",
        run_err(&v),
        vec![
            "field `workers`".into(),
            named("PLACEMENT_WORKERS_MAX", l::PLACEMENT_WORKERS_MAX),
        ],
    );
    let mut v = tiny("placement-has");
    let j = v["jobs"][0].clone();
    v["jobs"] = copies(&j, l::PLACEMENT_JOBS_MAX + 1, Some("j"));
    push(
        "PLACEMENT_JOBS_MAX",
        run_err(&v),
        vec![
            "field `jobs`".into(),
            named("PLACEMENT_JOBS_MAX", l::PLACEMENT_JOBS_MAX),
        ],
    );
    let mut v = tiny("placement-has");
    v["jobs"][1]["throughput"][3] = json!(1e16);
    push(
        "THROUGHPUT_MAX",
        run_err(&v),
        vec![
            "job `vgg19` (index 1), field `jobs[1].throughput[3]`".into(),
            "1e16 exceeds".into(),
            named("THROUGHPUT_MAX", "1e15"),
        ],
    );
    let mut v = tiny("preempt");
    let s = v["servers"][0].clone();
    v["servers"] = copies(&s, l::EDGE_SERVERS_MAX + 1, Some("e"));
    push(
        "EDGE_SERVERS_MAX",
        run_err(&v),
        vec![
            "field `servers`".into(),
            named("EDGE_SERVERS_MAX", l::EDGE_SERVERS_MAX),
        ],
    );
    let mut v = tiny("preempt");
    v["servers"][1]["workers"] = json!(l::WORKERS_PER_SERVER_MAX + 1);
    push(
        "WORKERS_PER_SERVER_MAX",
        run_err(&v),
        vec![
            "server `edge-1` (index 1), field `servers[1].workers`".into(),
            format!("{} exceeds", l::WORKERS_PER_SERVER_MAX + 1),
            named("WORKERS_PER_SERVER_MAX", l::WORKERS_PER_SERVER_MAX),
        ],
    );
    let mut v = tiny("preempt");
    v["servers"][0]["ps"] = json!(l::PS_PER_SERVER_MAX + 1);
    push(
        "PS_PER_SERVER_MAX",
        run_err(&v),
        vec![
            "server `edge-0` (index 0), field `servers[0].ps`".into(),
            named("PS_PER_SERVER_MAX", l::PS_PER_SERVER_MAX),
        ],
    );
    let mut v = tiny("preempt");
    v["jobs"][1]["chunks"] = json!(l::CHUNKS_MAX + 1);
    push(
        "CHUNKS_MAX",
        run_err(&v),
        vec![
            "job `j2` (index 1), field `jobs[1].chunks`".into(),
            format!("{} exceeds", l::CHUNKS_MAX + 1),
            named("CHUNKS_MAX", l::CHUNKS_MAX),
        ],
    );
    let mut v = tiny("route");
    let n = v["topology"]["nodes"][0].clone();
    v["topology"]["nodes"] = copies(&n, l::GRAPH_NODES_MAX + 1, Some("n"));
    push(
        "GRAPH_NODES_MAX",
        run_err(&v),
        vec![
            "scenario, field `topology.nodes`".into(),
            named("GRAPH_NODES_MAX", l::GRAPH_NODES_MAX),
        ],
    );
    let mut v = tiny("route");
    let k = v["topology"]["links"][0].clone();
    v["topology"]["links"] = copies(&k, l::GRAPH_LINKS_MAX + 1, None);
    push(
        "GRAPH_LINKS_MAX",
        run_err(&v),
        vec![
            "scenario, field `topology.links`".into(),
            named("GRAPH_LINKS_MAX", l::GRAPH_LINKS_MAX),
        ],
    );
    let mut v = tiny("route");
    v["topology"]["nodes"][4]["slots"] = json!(l::COMPUTE_SLOTS_MAX + 1);
    push(
        "COMPUTE_SLOTS_MAX",
        run_err(&v),
        vec![
            "node `c1` (index 4), field `topology.nodes[4].slots`".into(),
            named("COMPUTE_SLOTS_MAX", l::COMPUTE_SLOTS_MAX),
        ],
    );
    let mut v = tiny("route");
    v["jobs"][1]["workers"] = json!(l::ROUTE_WORKERS_MAX + 1);
    push(
        "ROUTE_WORKERS_MAX",
        run_err(&v),
        vec![
            "job `j2` (index 1), field `jobs[1].workers`".into(),
            named("ROUTE_WORKERS_MAX", l::ROUTE_WORKERS_MAX),
        ],
    );
    let mut v = tiny("route");
    v["jobs"][1]["id"] = json!("x".repeat(l::ID_BYTES_MAX + 1));
    push(
        "ID_BYTES_MAX",
        run_err(&v),
        vec![
            "job #1 (index 1), field `jobs[1].id`".into(),
            format!("{} bytes", l::ID_BYTES_MAX + 1),
            named("ID_BYTES_MAX", l::ID_BYTES_MAX),
        ],
    );
    let mut v = tiny("route");
    v["pso"]["particles"] = json!(10_000);
    v["pso"]["iterations"] = json!(100_000);
    push(
        "PSO_WORK_MAX",
        run_err(&v),
        vec![
            "scenario, field `pso.iterations`".into(),
            "10000 x 100000 x 2 = 2000000000 exceeds".into(),
            named("PSO_WORK_MAX", l::PSO_WORK_MAX),
        ],
    );
    // The placement-aware speed-up table (docs/throughput.md): counts of its models, rows
    // (nodes) and columns (GPUs), each named by its path under `throughput`.
    let table = |models: Value| {
        let mut v = tiny("oasis");
        v["throughput"] = json!({ "models": models });
        v
    };
    let one = |rows: Value| table(json!([{ "name": "m", "speedup": rows }]));
    let many = (0..=l::SPEEDUP_MODELS_MAX)
        .map(|i| json!({ "name": format!("m{i}"), "speedup": [[1.0]] }))
        .collect::<Vec<_>>();
    push(
        "SPEEDUP_MODELS_MAX",
        run_err(&table(json!(many))),
        vec![
            "field `models`".into(),
            named("SPEEDUP_MODELS_MAX", l::SPEEDUP_MODELS_MAX),
        ],
    );
    push(
        "SPEEDUP_NODES_MAX",
        run_err(&one(json!(vec![[1.0]; l::SPEEDUP_NODES_MAX + 1]))),
        vec![
            "field `models[0].speedup`".into(),
            named("SPEEDUP_NODES_MAX", l::SPEEDUP_NODES_MAX),
        ],
    );
    push(
        "SPEEDUP_GPUS_MAX",
        run_err(&one(json!([vec![1.0; l::SPEEDUP_GPUS_MAX + 1]]))),
        vec![
            "field `models[0].speedup[0]`".into(),
            named("SPEEDUP_GPUS_MAX", l::SPEEDUP_GPUS_MAX),
        ],
    );
    out
}

/// Limits only the scheduler can check (what it derives from the whole scenario): a runtime
/// error (exit code 1) with the same shape of message.
fn runtime_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut push = |limit: &'static str, got: (i32, String), frags: Vec<String>| {
        let refs: Vec<&str> = frags.iter().map(String::as_str).collect();
        out.push(case(limit, got, &refs));
    };
    // One job whose OASiS DP table is too big: workload E_i N_i over a long window.
    let mut v = tiny("oasis");
    v["slots"] = json!(4000);
    v["jobs"][2]["utility"] =
        json!({"sigmoid": {"priority": 1e12, "decay": 0.0001, "target": 4000}});
    v["jobs"][2]["epochs"] = json!(1_000_000);
    v["jobs"][2]["minibatches_per_chunk"] = json!(1);
    v["jobs"][2]["minibatch_time"] = json!(1e-5);
    v["jobs"][2]["comm_time"] = json!(1e-5);
    push(
        "OASIS_DP_CELLS_MAX",
        run_err(&v),
        vec![
            "oasis: job `bert-3` (index 2), field `jobs[2]`".into(),
            named("OASIS_DP_CELLS_MAX", l::OASIS_DP_CELLS_MAX),
        ],
    );
    // A job whose chunks would end past the last slot a plan may reach.
    let mut v = tiny("preempt");
    v["jobs"][1]["epochs"] = json!(4e9);
    push(
        "PREEMPT_PLAN_SLOTS_MAX",
        run_err(&v),
        vec![
            "preempt: job `j2` (index 1), field `jobs[1]`".into(),
            named("PREEMPT_PLAN_SLOTS_MAX", l::PREEMPT_PLAN_SLOTS_MAX),
        ],
    );
    // Chunks of all jobs together: 1025 jobs of CHUNKS_MAX chunks each.
    let mut v = tiny("preempt");
    let mut j = v["jobs"][0].clone();
    j["chunks"] = json!(l::CHUNKS_MAX);
    let n = l::PREEMPT_TOTAL_CHUNKS_MAX / l::CHUNKS_MAX + 1;
    v["jobs"] = copies(&j, n, Some("j"));
    push(
        "PREEMPT_TOTAL_CHUNKS_MAX",
        run_err(&v),
        vec![
            "preempt: scenario, field `jobs[*].chunks`".into(),
            format!("{} exceeds", n * l::CHUNKS_MAX),
            named("PREEMPT_TOTAL_CHUNKS_MAX", l::PREEMPT_TOTAL_CHUNKS_MAX),
        ],
    );
    // HAS on 64 workers and 8 jobs: C(63, 7) categories.
    let mut v = tiny("placement-has");
    v["workers"] = json!(vec![json!({"gpu": "T4", "node": 0}); 64]);
    let j = v["jobs"][0].clone();
    let mut jobs = copies(&j, 8, Some("j"));
    for x in jobs.as_array_mut().unwrap() {
        x["throughput"] = json!(vec![275; 64]);
    }
    v["jobs"] = jobs;
    push(
        "PLACEMENT_CATEGORIES_MAX",
        run_err(&v),
        vec![
            "placement: scenario, field `workers, jobs`".into(),
            named("PLACEMENT_CATEGORIES_MAX", l::PLACEMENT_CATEGORIES_MAX),
        ],
    );
    // The exhaustive search on 23 workers and 2 jobs: 2^23 assignments.
    let mut v = tiny("placement-has");
    v["method"] = json!("exhaustive");
    v["workers"] = json!(vec![json!({"gpu": "T4", "node": 0}); 23]);
    for x in v["jobs"].as_array_mut().unwrap() {
        x["throughput"] = json!(vec![275; 23]);
    }
    push(
        "PLACEMENT_EXHAUSTIVE_MAX",
        run_err(&v),
        vec![
            "placement: scenario, field `method`".into(),
            "use method \"has\" or \"exact\"".into(),
            format!("{} exceeds", 1u64 << 23),
            named("PLACEMENT_EXHAUSTIVE_MAX", l::PLACEMENT_EXHAUSTIVE_MAX),
        ],
    );
    // JPS sampling more distinct categories than it may: 64 workers, 4 jobs, 16,385 samples.
    let mut v = tiny("placement-jps");
    v["workers"] = json!(vec![json!({"gpu": "T4", "node": 0}); 64]);
    let j = v["jobs"][0].clone();
    let mut jobs = copies(&j, 4, Some("j"));
    for x in jobs.as_array_mut().unwrap() {
        x["throughput"] = json!(vec![275; 64]);
    }
    v["jobs"] = jobs;
    v["jps"] = json!({"samples": l::PLACEMENT_JPS_SAMPLES_MAX + 1, "alpha": 0.1, "beta": 1.0});
    push(
        "PLACEMENT_JPS_SAMPLES_MAX",
        run_err(&v),
        vec![
            "placement: scenario, field `jps.samples`".into(),
            format!("{} exceeds", l::PLACEMENT_JPS_SAMPLES_MAX + 1),
            named("PLACEMENT_JPS_SAMPLES_MAX", l::PLACEMENT_JPS_SAMPLES_MAX),
        ],
    );
    // A_online's window scratch: 32 worker types + 32 PS types on 1,024 servers, long windows.
    let mut v = tiny("online-ps");
    let (w, p) = (v["worker_types"][0].clone(), v["ps_types"][0].clone());
    v["worker_types"] = copies(&w, l::WORKER_TYPES_MAX, None);
    v["ps_types"] = copies(&p, l::PS_TYPES_MAX, None);
    v["servers"] = json!(vec![[8, 64, 25]; 1024]);
    v["slots"] = json!(100_000);
    for x in v["jobs"].as_array_mut().unwrap() {
        x["minibatch_time"] = json!(vec![0.01; l::WORKER_TYPES_MAX]);
        x["update_time"] = json!(vec![0.001; l::PS_TYPES_MAX]);
    }
    push(
        "ONLINE_WINDOW_CELLS_MAX",
        run_err(&v),
        vec![
            "online: scenario, field `worker_types, ps_types, servers, slots`".into(),
            named("ONLINE_WINDOW_CELLS_MAX", l::ONLINE_WINDOW_CELLS_MAX),
        ],
    );
    // A_online's reservations: 4,097 jobs of 16,383 chunks on 16,384 servers.
    let mut v = tiny("online-ps");
    v["servers"] = json!(vec![[8, 64, 25]; l::SERVERS_MAX]);
    let mut j = v["jobs"][0].clone();
    j["chunks"] = json!(l::SERVERS_MAX - 1);
    let n = l::USAGE_RESERVATIONS_MAX / l::SERVERS_MAX + 1;
    v["jobs"] = copies(&j, n, Some("j"));
    push(
        "USAGE_RESERVATIONS_MAX",
        run_err(&v),
        vec![
            "online: scenario, field `servers, jobs`".into(),
            format!("{} exceeds", n * l::SERVERS_MAX),
            named("USAGE_RESERVATIONS_MAX", l::USAGE_RESERVATIONS_MAX),
        ],
    );
    out
}

/// `gen` and `import` options over a limit: refused before any work, naming the option and
/// the limit (exit code 2).
fn option_cases() -> Vec<Case> {
    let gen = |kind: &str, jobs: Option<u32>, nodes: Option<u32>| {
        refused(generate_json(
            kind,
            &GenOptions {
                jobs,
                nodes,
                ..GenOptions::default()
            },
        ))
    };
    let import = |f: &dyn Fn(&mut ImportOptions)| {
        let mut o = ImportOptions {
            data_dir: mlsched_tests::data_dir(),
            ..ImportOptions::default()
        };
        f(&mut o);
        refused(import_json(Source::Philly, &o))
    };
    vec![
        case(
            "JOBS_MAX",
            gen("oasis", Some(l::JOBS_MAX as u32 + 1), None),
            &["field `jobs`", "JOBS_MAX", &l::JOBS_MAX.to_string()],
        ),
        case(
            "JOBS_MAX",
            import(&|o| o.jobs = l::JOBS_MAX + 1),
            &["field `jobs`", "JOBS_MAX", &l::JOBS_MAX.to_string()],
        ),
        case(
            "SERVERS_MAX",
            import(&|o| o.servers = l::SERVERS_MAX + 1),
            &[
                "field `servers`",
                "SERVERS_MAX",
                &l::SERVERS_MAX.to_string(),
            ],
        ),
        case(
            "PS_SERVERS_MAX",
            import(&|o| o.ps_servers = l::PS_SERVERS_MAX + 1),
            &[
                "field `ps-servers`",
                "PS_SERVERS_MAX",
                &l::PS_SERVERS_MAX.to_string(),
            ],
        ),
        case(
            "SLOTS_MAX",
            import(&|o| o.slots = l::SLOTS_MAX as u32 + 1),
            &["field `slots`", "SLOTS_MAX", &l::SLOTS_MAX.to_string()],
        ),
        case(
            "PLACEMENT_JOBS_MAX",
            gen("placement", Some(l::PLACEMENT_JOBS_MAX as u32 + 1), None),
            &[
                "field `jobs`",
                "PLACEMENT_JOBS_MAX",
                &l::PLACEMENT_JOBS_MAX.to_string(),
            ],
        ),
        case(
            "EDGE_SERVERS_MAX",
            gen("preempt", None, Some(l::EDGE_SERVERS_MAX as u32 + 2)),
            &["field `nodes`", "EDGE_SERVERS_MAX"],
        ),
        case(
            "GRAPH_NODES_MAX",
            gen("route", None, Some(l::GRAPH_NODES_MAX as u32 + 1)),
            &[
                "field `nodes`",
                "GRAPH_NODES_MAX",
                &l::GRAPH_NODES_MAX.to_string(),
            ],
        ),
    ]
}

fn check(cases: &[Case], exit: i32) {
    for c in cases {
        eprintln!("{}: exit {}: {}", c.limit, c.exit, c.message);
    }
    for c in cases {
        assert_eq!(c.exit, exit, "{}: exit code of `{}`", c.limit, c.message);
        assert!(
            c.message.contains(c.limit),
            "{}: `{}` does not name the limit",
            c.limit,
            c.message
        );
        for f in &c.fragments {
            assert!(
                c.message.contains(f.as_str()),
                "{}: `{}` does not contain `{f}`",
                c.limit,
                c.message
            );
        }
    }
}

/// One test for the three tables, so that the coverage check below sees every case without
/// running them twice.
#[test]
fn every_limit_names_field_job_and_limit() {
    let (doc, run, opt) = (document_cases(), runtime_cases(), option_cases());
    check(&doc, 2);
    check(&run, 1);
    check(&opt, 2);
    let covered: Vec<&str> = doc
        .iter()
        .chain(&run)
        .chain(&opt)
        .map(|c| c.limit)
        .collect();
    every_limit_is_covered(&covered);
}

/// Limits no small input reaches: `JOBS_MAX` in a document (2^20 jobs; the options are
/// checked above), `LEDGER_CELLS_MAX` (A_online's Ring option table, worker types x the largest
/// ring size: over 260,000 chunks in one job) and `RECORD_BYTES_MAX` (every record is bounded
/// by the other limits; a log file with a longer record is refused by the log reader). Their
/// message is the kernel error's `Display` (and `PATH_NODES_MAX`'s, below), which the document layer rewrites with the field
/// (checked on `limit::message`, as are the scratch limits the runtime table above hits).
#[test]
fn kernel_limit_errors_display_the_limit() {
    use mlsched_kernel::{CapacityError, Limit};
    let ids = vec!["a".to_string(), "b".to_string()];
    let kinds = [
        (
            Limit::Jobs,
            "oasis",
            "scenario, field `jobs`",
            l::JOBS_MAX as u64,
        ),
        (
            Limit::LedgerCells,
            "online",
            "scenario, field `slots, servers, resources`",
            l::LEDGER_CELLS_MAX as u64,
        ),
        (
            Limit::UsageReservations,
            "online",
            "scenario, field `servers, jobs`",
            l::USAGE_RESERVATIONS_MAX as u64,
        ),
        (
            Limit::OnlineWindowCells,
            "online",
            "scenario, field `worker_types, ps_types, servers, slots`",
            l::ONLINE_WINDOW_CELLS_MAX as u64,
        ),
        (
            Limit::PlacementJpsSamples,
            "placement",
            "scenario, field `jps.samples`",
            l::PLACEMENT_JPS_SAMPLES_MAX as u64,
        ),
    ];
    for (limit, kind, frag, max) in kinds {
        let e = CapacityError {
            limit,
            max,
            got: max + 1,
            job: None,
        };
        let m = mlsched_scenario::limit::message(kind, &ids, e);
        for f in [
            frag.to_string(),
            format!("{} exceeds", max + 1),
            named(limit.name(), max),
        ] {
            assert!(m.contains(&f), "`{m}` does not contain `{f}`");
        }
        assert!(e.to_string().contains(&named(limit.name(), max)), "{e}");
    }
    // A per-job limit names the job by id and index.
    let e = CapacityError {
        limit: Limit::Chunks,
        max: l::CHUNKS_MAX as u64,
        got: 5000,
        job: Some(1),
    };
    let m = mlsched_scenario::limit::message("preempt", &ids, e);
    assert!(
        m.contains("job `b` (index 1), field `jobs[1].chunks`: 5000 exceeds this build's limit CHUNKS_MAX = 4096"),
        "{m}"
    );
    assert_eq!(
        e.to_string(),
        "job #1: 5000 exceeds this build's limit CHUNKS_MAX = 4096"
    );
    // PATH_NODES_MAX: routes are searched within PATH_NODES_MAX nodes, so a longer path is
    // refused as unreachable first; only an aggregated trunk + branch can exceed it.
    let path = mlsched_kernel::route::RouteError::PathTooLong { job: 3 };
    assert!(
        path.to_string().contains("job 3") && path.to_string().contains("PATH_NODES_MAX"),
        "{path}"
    );
    // A log file whose frame claims a longer record is refused by the reader, naming the limit.
    let frame = mlsched_kernel::logfile::LogFileError::BadLength {
        offset: 40,
        len: 70_000,
    };
    assert!(
        frame
            .to_string()
            .contains(&named("RECORD_BYTES_MAX", l::RECORD_BYTES_MAX)),
        "{frame}"
    );
    // Dorm's MILP solve per event: bounded active jobs (its node budget, DORM_EVENT_NODES, is
    // an anytime limit, not an error; reaching the bound takes a large scenario, so the text is
    // checked).
    use mlsched_kernel::baseline::BaselineError;
    let active = BaselineError::DormActive {
        slot: 5,
        active: 5000,
    };
    assert!(
        active.to_string().contains("slot 5")
            && active.to_string().contains("5000")
            && active
                .to_string()
                .contains(&named("DORM_ACTIVE_MAX", l::DORM_ACTIVE_MAX)),
        "{active}"
    );
    let rec = mlsched_kernel::log::LogError::RecordTooLarge { tag: 0x21 };
    assert!(
        rec.to_string()
            .contains(&named("RECORD_BYTES_MAX", l::RECORD_BYTES_MAX)),
        "{rec}"
    );
}

/// Every limit of `kernel/src/limits.rs` has a case above, a `Display` check
/// ([`kernel_limit_errors_display_the_limit`]), or is not an error at all
/// (`PLACEMENT_MARKET_ROUNDS_MAX`: at the cap the market falls back to the exact solver;
/// `DORM_EVENT_NODES`: at the budget Dorm applies its best allocation found).
fn every_limit_is_covered(cases: &[&str]) {
    let src =
        std::fs::read_to_string(mlsched_tests::repo_root().join("kernel/src/limits.rs")).unwrap();
    let names: Vec<&str> = src
        .lines()
        .filter_map(|l| l.strip_prefix("pub const "))
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(names.len(), 37, "{names:?}");
    let mut covered = cases.to_vec();
    covered.extend([
        "PATH_NODES_MAX",
        "LEDGER_CELLS_MAX",
        "RECORD_BYTES_MAX",
        "PLACEMENT_MARKET_ROUNDS_MAX",
        "DORM_EVENT_NODES",
        "DORM_ACTIVE_MAX",
    ]);
    let missing: Vec<&&str> = names.iter().filter(|n| !covered.contains(n)).collect();
    assert!(missing.is_empty(), "limits without a case: {missing:?}");
}
