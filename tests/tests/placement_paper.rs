//! Liu et al. 2024 paper reproductions: Table II (HAS per category, exhaustive optimum, LAS),
//! Algorithm 1's K = 5, S = 3 order, abs(Psi) = C(K-1, S-1), the literal market's cycling, and
//! the refusals (exhaustive search on large inputs, K < S).
use mlsched_kernel::log::HashSink;
use mlsched_kernel::model::placement::{
    JpsParams, Method, PlacementJob, PlacementScenario, Worker,
};
use mlsched_kernel::placement::{category, reference, Instance, PlacementError, Placer};
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::run::{run_json, RunOptions};
use serde_json::Value;

fn table2_text() -> &'static str {
    SCENARIOS
        .iter()
        .find(|(n, _)| *n == "placement-table2")
        .map(|(_, t)| *t)
        .expect("bundled placement-table2")
}

fn run(policy: &str, all: bool) -> Value {
    let opts = RunOptions {
        policy: Some(policy.to_string()),
        all_categories: all,
    };
    serde_json::from_str(&run_json(table2_text(), &opts).unwrap()).unwrap()
}

/// Rounds to 0.1 s, the precision Table II prints.
fn tenth(x: &Value) -> f64 {
    (x.as_f64().unwrap() * 10.0).round() / 10.0
}

#[test]
fn table2_has_rows() {
    let r = run("has", true);
    let rows = r["per_category"].as_array().unwrap();
    let want = [
        ([3, 1], 11_225.8, [1194.0, 1754.0], [vec![0, 1, 2], vec![3]]),
        ([2, 2], 19_607.1, [550.0, 3508.0], [vec![0, 1], vec![2, 3]]),
        ([1, 3], 37_502.1, [275.0, 4392.0], [vec![0], vec![1, 2, 3]]),
    ];
    assert_eq!(rows.len(), 3);
    for (row, (cat, jct, v, asg)) in rows.iter().zip(want.iter()) {
        assert_eq!(row["category"], serde_json::json!(cat));
        assert_eq!(tenth(&row["avg_jct"]), *jct, "category {cat:?}");
        assert_eq!(row["total_throughput"].as_f64().unwrap(), v[0] + v[1]);
        assert_eq!(row["assignment"]["resnet18"], serde_json::json!(asg[0]));
        assert_eq!(row["assignment"]["vgg19"], serde_json::json!(asg[1]));
    }
    // HAS picks {3, 1}: ResNet-18 on {T4, T4, V100}, VGG-19 on {V100}.
    assert_eq!(r["best"]["category"], serde_json::json!([3, 1]));
    assert_eq!(tenth(&r["best"]["avg_jct"]), 11_225.8);
    assert_eq!(
        r["best"]["throughput"]["resnet18"].as_f64().unwrap(),
        1194.0
    );
    assert_eq!(r["best"]["throughput"]["vgg19"].as_f64().unwrap(), 1754.0);
    assert_eq!(r["categories_examined"], 3);
    // eq. (12): ResNet-18's 100,000 samples split 275 : 275 : 644.
    let w: Vec<f64> = r["best"]["workload"]["resnet18"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!((w[0] - 100_000.0 * 275.0 / 1194.0).abs() < 1e-9);
    assert!((w.iter().sum::<f64>() - 100_000.0).abs() < 1e-6);
}

#[test]
fn table2_exact_equals_has() {
    let a = run("exact", true);
    let b = run("has", true);
    let (ra, rb) = (
        a["per_category"].as_array().unwrap(),
        b["per_category"].as_array().unwrap(),
    );
    for (x, y) in ra.iter().zip(rb) {
        for f in [
            "category",
            "assignment",
            "avg_jct",
            "total_throughput",
            "fairness",
        ] {
            assert_eq!(x[f], y[f], "{f}");
        }
    }
    assert_eq!(tenth(&a["best"]["avg_jct"]), 11_225.8);
}

#[test]
fn table2_exhaustive_optimum() {
    let r = run("exhaustive", false);
    assert_eq!(tenth(&r["best"]["avg_jct"]), 10_592.0);
    // ResNet-18: {V100, V100}, VGG-19: {T4, T4}; throughputs {1,288, 1,768}.
    assert_eq!(
        r["best"]["assignment"]["resnet18"],
        serde_json::json!([2, 3])
    );
    assert_eq!(r["best"]["assignment"]["vgg19"], serde_json::json!([0, 1]));
    assert_eq!(
        r["best"]["throughput"]["resnet18"].as_f64().unwrap(),
        1288.0
    );
    assert_eq!(r["best"]["throughput"]["vgg19"].as_f64().unwrap(), 1768.0);
    // 2^4 assignments, 14 with both jobs served.
    assert_eq!(r["categories_examined"], 14);
}

#[test]
fn table2_las() {
    let r = run("las", false);
    assert_eq!(tenth(&r["best"]["avg_jct"]), 12_776.8);
    // Each job on {T4, V100}.
    assert_eq!(
        r["best"]["assignment"]["resnet18"],
        serde_json::json!([1, 2])
    );
    assert_eq!(r["best"]["assignment"]["vgg19"], serde_json::json!([0, 3]));
}

#[test]
fn table2_jps_and_optimus_run() {
    // JPS with the scenario's N = 20 >= abs(Psi) = 3 beyond alpha: samples the rear window.
    let j = run("jps", false);
    assert_eq!(tenth(&j["best"]["avg_jct"]), 11_225.8);
    assert_eq!(j["jps"]["categories"], 3);
    let o = run("optimus-lb", false);
    assert!(o["best"]["avg_jct"].as_f64().unwrap() >= 10_592.0 - 1e-6);
    let o = run("optimus", false);
    assert!(o["best"]["avg_jct"].as_f64().unwrap() >= 10_592.0 - 1e-6);
}

#[test]
fn same_scenario_same_log_hash() {
    for p in [
        "has",
        "jps",
        "exact",
        "exhaustive",
        "optimus",
        "optimus-lb",
        "las",
    ] {
        assert_eq!(run(p, false)["log_hash"], run(p, false)["log_hash"], "{p}");
    }
    assert_ne!(run("has", false)["log_hash"], run("las", false)["log_hash"]);
}

#[test]
fn unknown_policy_is_refused() {
    let opts = RunOptions {
        policy: Some("fifo".into()),
        all_categories: false,
    };
    let e = run_json(table2_text(), &opts).unwrap_err().to_string();
    assert!(e.contains("accepted: placement, has, jps, exact"), "{e}");
}

#[test]
fn enumeration_order_k5_s3() {
    let mut c = vec![0u32; 3];
    category::first(5, &mut c);
    let mut all = vec![c.clone()];
    while category::next(5, &mut c) {
        all.push(c.clone());
    }
    assert_eq!(
        all,
        vec![
            vec![3, 1, 1],
            vec![2, 2, 1],
            vec![1, 3, 1],
            vec![2, 1, 2],
            vec![1, 2, 2],
            vec![1, 1, 3]
        ]
    );
}

#[test]
fn psi_size_is_binomial() {
    assert_eq!(category::count(5, 3).unwrap(), 6);
    assert_eq!(category::count(15, 4).unwrap(), 364);
    assert_eq!(category::count(30, 4).unwrap(), 3_654);
    assert_eq!(category::count(15, 3).unwrap(), 91);
    assert_eq!(category::count(15, 5).unwrap(), 1_001);
    assert_eq!(category::count(300, 4).unwrap(), 4_410_549);
    assert!(matches!(
        category::count(3, 4),
        Err(PlacementError::FewerWorkersThanJobs {
            workers: 3,
            jobs: 4
        })
    ));
}

fn table2_scenario() -> PlacementScenario {
    let w = |gpu, node| Worker {
        gpu_type: gpu,
        node,
    };
    PlacementScenario {
        method: Method::Has,
        workers: vec![w(0, 0), w(0, 0), w(1, 1), w(1, 1)],
        intra_node: 37.5e9,
        inter_node: 1.25e9,
        jobs: vec![
            PlacementJob {
                samples: 100_000.0,
                epochs: 200.0,
                model_bytes: 44.7e6,
                throughput: vec![275.0, 275.0, 644.0, 644.0],
            },
            PlacementJob {
                samples: 50_000.0,
                epochs: 200.0,
                model_bytes: 548e6,
                throughput: vec![884.0, 884.0, 1754.0, 1754.0],
            },
        ],
        include_comm: false,
        jps: JpsParams::default(),
        seed: 1,
        solver: Default::default(),
    }
}

#[test]
fn literal_market_cycles_on_table2() {
    // docs/placement.md ("The matching market"): the printed loop never clears {3, 1} or
    // {1, 3} (once prices equalise both jobs keep choosing the lowest-index worker); it does
    // clear {2, 2}. The tie-aware market clears all three, per worker and per class, within a
    // few rounds.
    let scn = table2_scenario();
    let inst = Instance::new(&scn).unwrap();
    assert!(reference::literal_market(&scn, &[3, 1], 10_000).is_none());
    assert!(reference::literal_market(&scn, &[1, 3], 10_000).is_none());
    assert_eq!(
        reference::literal_market(&scn, &[2, 2], 10_000),
        Some(vec![0, 0, 1, 1])
    );
    let pw = mlsched_kernel::placement::per_worker::per_worker_instance(&inst);
    for (i, c) in [[3u32, 1], [2, 2], [1, 3]].iter().enumerate() {
        for x in [&inst, &pw] {
            let mut m = mlsched_kernel::placement::Market::new(x);
            let out = m.run(x, c, 10_000);
            assert!(out.cleared && out.rounds <= 4, "{i} {out:?}");
        }
        // The independent per-worker market (its own eqs. 19-22) clears it too.
        let job_of = reference::market(&scn, c, 10_000).expect("clears");
        for (j, &n) in c.iter().enumerate() {
            assert_eq!(
                job_of.iter().filter(|&&x| x == j as u32).count(),
                n as usize
            );
        }
    }
}

#[test]
fn exhaustive_refuses_large_inputs_with_the_count() {
    let mut scn = table2_scenario();
    scn.workers = (0..30)
        .map(|k| Worker {
            gpu_type: 0,
            node: k / 5,
        })
        .collect();
    for j in &mut scn.jobs {
        j.throughput = (0..30).map(|k| 100.0 + f64::from(k)).collect();
    }
    let mut p = Placer::new(&scn).unwrap();
    let e = p
        .run(Method::Exhaustive, &mut HashSink::new(), |_| {})
        .unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("2^30 = 1073741824"), "{msg}");
    assert!(msg.contains("PLACEMENT_EXHAUSTIVE_MAX"), "{msg}");
    // HAS handles the same input.
    assert!(p.run(Method::Has, &mut HashSink::new(), |_| {}).is_ok());
}

#[test]
fn fewer_workers_than_jobs_is_an_error() {
    let mut scn = table2_scenario();
    scn.workers.truncate(1);
    for j in &mut scn.jobs {
        j.throughput.truncate(1);
    }
    let e = Placer::new(&scn).unwrap_err();
    assert_eq!(
        e.to_string(),
        "2 jobs need at least as many workers, got 1 (K < S)"
    );
}
