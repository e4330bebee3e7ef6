//! compare's metrics recomputed by hand from the result documents, for every kind: unfinished
//! jobs counted, JCT statistics over the finished jobs only (mean, nearest-rank p50 / p90 /
//! p99), makespan, mean utilisation per resource over the busy horizon, and the columns that
//! show them (table, CSV, the JCT CDF legend); and `import`'s default PS servers and its
//! binding-resource warning.
use mlsched_kernel::log::HashSink;
use mlsched_lab::compare::{self, PolicyReport};
use mlsched_scenario::doc::ScenarioDoc;
use mlsched_scenario::run::{run_doc, ResultDoc, RunOptions};
use std::process::Command;

fn scenario(name: &str) -> ScenarioDoc {
    let p = format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    compare::parse(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn result(doc: &ScenarioDoc, policy: &str) -> ResultDoc {
    let o = RunOptions {
        policy: Some(policy.into()),
        all_categories: false,
    };
    run_doc(doc, &o, &mut HashSink::new()).unwrap()
}

/// Nearest rank, written out: the ceil(p n)-th smallest.
fn rank(sorted: &[f64], p: f64) -> f64 {
    let k = (p * sorted.len() as f64 / 100.0).ceil() as usize;
    sorted[k.max(1) - 1]
}

/// The JCT statistics of `jct` (finished jobs) against the report's, and unfinished = jobs -
/// finished.
fn check(name: &str, rep: &PolicyReport, jobs: usize, mut jct: Vec<f64>, makespan: Option<u32>) {
    let m = &rep.metrics;
    assert_eq!(m.finished as usize, jct.len(), "{name}");
    assert_eq!(m.unfinished, Some((jobs - jct.len()) as u32), "{name}");
    jct.sort_by(f64::total_cmp);
    if jct.is_empty() {
        assert_eq!((m.avg_jct, m.jct_p50), (None, None), "{name}");
        return;
    }
    let mean = jct.iter().sum::<f64>() / jct.len() as f64;
    assert!((m.avg_jct.unwrap() - mean).abs() < 1e-9, "{name}");
    assert_eq!(m.jct_p50, Some(rank(&jct, 50.0)), "{name}");
    assert_eq!(m.jct_p90, Some(rank(&jct, 90.0)), "{name}");
    assert_eq!(m.jct_p99, Some(rank(&jct, 99.0)), "{name}");
    assert_eq!(m.makespan, makespan, "{name}");
}

#[test]
fn oasis_metrics_by_hand() {
    let doc = scenario("oasis-small");
    let ScenarioDoc::Oasis(d) = &doc else {
        panic!()
    };
    let mut some_unfinished = false;
    for p in ["oasis", "fifo", "drf", "las", "optimus"] {
        let ResultDoc::Oasis(r) = result(&doc, p) else {
            panic!()
        };
        let rep = compare::run_policy(&doc, p);
        // End of a finished job = its completion slot + 1.
        let ends: Vec<(f64, u32)> = d
            .jobs
            .iter()
            .zip(&r.jobs)
            .filter(|(_, j)| j.admitted)
            .filter_map(|(jd, j)| j.completion_slot.map(|c| (jd.arrival, c + 1)))
            .collect();
        let jct = ends.iter().map(|(a, e)| *e as f64 - a).collect();
        check(p, &rep, d.jobs.len(), jct, ends.iter().map(|e| e.1).max());
        some_unfinished |= rep.metrics.unfinished.unwrap() > 0;
        // Mean GPU utilisation: GPUs in use per slot over the busy slots / all GPUs.
        let mut gpu = vec![0.0; d.slots as usize];
        for (jd, j) in d.jobs.iter().zip(&r.jobs) {
            for pl in &j.placements {
                let w: u32 = pl.workers.iter().map(|x| x[1]).sum();
                let s: u32 = pl.ps.iter().map(|x| x[1]).sum();
                gpu[pl.slot as usize] +=
                    w as f64 * jd.worker_demand[0] + s as f64 * jd.ps_demand[0];
            }
        }
        // Busy horizon: slots 0 up to the last slot any task runs in.
        let busy = r
            .jobs
            .iter()
            .flat_map(|j| &j.placements)
            .map(|pl| pl.slot as usize + 1)
            .max()
            .unwrap_or(0);
        let cap: f64 = d
            .worker_servers
            .iter()
            .chain(&d.ps_servers)
            .map(|c| c[0])
            .sum();
        let (name, u) = &rep.metrics.utilisation[0];
        assert_eq!(name, "gpu");
        let mean_gpu = gpu[..busy].iter().sum::<f64>() / cap / busy as f64;
        assert!((u - mean_gpu).abs() < 1e-12, "{p}: {u} vs {mean_gpu}");
        assert!(*u >= 0.0 && *u <= 1.0, "{p}");
    }
    assert!(
        some_unfinished,
        "oasis-small should leave some job unfinished"
    );
}

#[test]
fn online_metrics_by_hand() {
    let doc = scenario("online-ps-small");
    let ScenarioDoc::Online(d) = &doc else {
        panic!()
    };
    for p in ["online", "fifo", "drf", "las", "optimus"] {
        let ResultDoc::Online(r) = result(&doc, p) else {
            panic!()
        };
        let rep = compare::run_policy(&doc, p);
        let ends: Vec<(f64, u32)> = d
            .jobs
            .iter()
            .zip(&r.jobs)
            .filter(|(_, j)| j.start_slot.is_some())
            .filter_map(|(jd, j)| j.completion_slot.map(|c| (jd.arrival, c)))
            .collect();
        let jct = ends.iter().map(|(a, e)| *e as f64 - a).collect();
        check(p, &rep, d.jobs.len(), jct, ends.iter().map(|e| e.1).max());
        assert_eq!(rep.metrics.utilisation.len(), d.resources.len(), "{p}");
    }
}

#[test]
fn preempt_placement_and_route_metrics_by_hand() {
    let doc = scenario("preempt-small");
    for p in ["preempt", "edge-fifo"] {
        let ResultDoc::Preempt(r) = result(&doc, p) else {
            panic!()
        };
        let rep = compare::run_policy(&doc, p);
        let jct = r.jobs.iter().map(|j| j.jct as f64).collect();
        let end = r
            .jobs
            .iter()
            .map(|j| j.completion_slot)
            .max()
            .filter(|&x| x > 0);
        check(p, &rep, doc.jobs(), jct, end);
    }
    let doc = scenario("placement-table2");
    let ResultDoc::Placement(r) = result(&doc, "placement") else {
        panic!()
    };
    let rep = compare::run_policy(&doc, "placement");
    let jct = r.best.jct.values().copied().collect();
    check("placement", &rep, doc.jobs(), jct, None);
    // Route: deadlines, not completions: no unfinished count, violations instead.
    let rep = compare::run_policy(&scenario("route-small"), "route");
    assert_eq!(rep.metrics.unfinished, None);
    assert!(rep.metrics.extra.contains_key("deadline_violation_rate"));
}

/// A one-slot horizon that no job can finish in: every job is unfinished, and the table, the
/// CSV and the CDF say so.
#[test]
fn unfinished_jobs_are_shown_everywhere() {
    let text = std::fs::read_to_string(format!(
        "{}/../scenarios/oasis-small.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["slots"] = serde_json::json!(2);
    for j in v["jobs"].as_array_mut().unwrap() {
        j["arrival"] = serde_json::json!(0);
    }
    let dir = std::env::temp_dir().join(format!("mlsched-metrics-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scn = dir.join("short.json");
    std::fs::write(&scn, v.to_string()).unwrap();
    let jobs = v["jobs"].as_array().unwrap().len();
    let out = Command::new(env!("CARGO_BIN_EXE_mlsched"))
        .args(["compare", scn.to_str().unwrap(), "--policies", "fifo,las"])
        .args(["--no-timing", "--out", dir.join("out").to_str().unwrap()])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{table}");
    assert!(table.contains("| unfinished |"), "{table}");
    let csv = std::fs::read_to_string(dir.join("out/compare.csv")).unwrap();
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = head.iter().position(|h| *h == "unfinished").unwrap();
    let fin = head.iter().position(|h| *h == "finished").unwrap();
    for row in csv.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let (done, not): (usize, usize) = (f[fin].parse().unwrap(), f[col].parse().unwrap());
        assert_eq!(done + not, jobs, "{row}");
        assert!(not > 0, "{row}");
    }
    let cdf = std::fs::read_to_string(dir.join("out/jct_cdf.svg")).unwrap_or_default();
    let legend_ok = cdf.is_empty() || cdf.contains("unfinished");
    assert!(legend_ok, "the JCT CDF legend counts unfinished jobs");
}

fn import(args: &[&str]) -> (String, serde_json::Value) {
    let data = format!("{}/../data", env!("CARGO_MANIFEST_DIR"));
    let o = Command::new(env!("CARGO_BIN_EXE_mlsched"))
        .args(["import", "philly", "--data", &data, "--jobs", "30"])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (
        String::from_utf8_lossy(&o.stderr).into_owned(),
        serde_json::from_slice(&o.stdout).unwrap(),
    )
}

#[test]
fn import_sizes_ps_with_workers_and_names_the_binding_resource() {
    // One PS server per 4 worker servers, rounded up, unless --ps-servers says otherwise.
    for (h, k) in [(1, 1), (8, 2), (9, 3), (64, 16)] {
        let (_, v) = import(&["--servers", &h.to_string(), "--quiet"]);
        assert_eq!(v["ps_servers"].as_array().unwrap().len(), k, "{h} servers");
    }
    let (_, v) = import(&["--servers", "64", "--ps-servers", "2", "--quiet"]);
    assert_eq!(v["ps_servers"].as_array().unwrap().len(), 2);
    // One PS server for 8 worker servers: its bandwidth binds, and import says so.
    let (err, _) = import(&["--servers", "8", "--ps-servers", "1"]);
    assert!(
        err.contains("warning: ps bw_gbps is the binding resource"),
        "{err}"
    );
    let (err, _) = import(&["--servers", "8", "--ps-servers", "1", "--quiet"]);
    assert!(err.is_empty(), "--quiet prints nothing: {err}");
}
