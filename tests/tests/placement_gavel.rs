//! Real data: placement scenarios generated from Gavel's measured throughput matrix
//! (`data/gavel/`, 26 job types on K80/P100/V100, steps/s converted to samples/s with
//! the batch size) and run through `run_json`, the path `mlsched run` takes. The data is part of
//! the repository: a missing folder is a failure.
use mlsched_lab::gen::placement::{generate, parse_gavel_isolated, GPUS};
use mlsched_lab::gen::GenOptions;
use mlsched_scenario::run::{run_json, RunOptions};
use serde_json::Value;

fn gavel_dir() -> std::path::PathBuf {
    let d = mlsched_tests::data_dir().join("gavel");
    assert!(d.is_dir(), "{} is missing", d.display());
    d
}

fn run(text: &str, policy: &str, all: bool) -> Value {
    let opts = RunOptions {
        policy: Some(policy.into()),
        all_categories: all,
    };
    serde_json::from_str(&run_json(text, &opts).unwrap()).unwrap()
}

#[test]
fn gavel_matrix_parses_with_units() {
    let dir = gavel_dir();
    let text = std::fs::read_to_string(dir.join("throughputs_isolated.csv")).unwrap();
    let types = parse_gavel_isolated(&text).unwrap();
    assert_eq!(types.len(), 26);
    assert_eq!(GPUS, ["k80", "p100", "v100"]);
    // README sanity check: V100 ResNet-50 bs64 = 4.395 steps/s = ~281 images/s.
    let r50 = types
        .iter()
        .find(|t| t.name == "ResNet-50 (batch size 64)")
        .unwrap();
    assert_eq!(r50.batch_size, Some(64));
    assert!(
        (r50.samples_per_s(2) - 281.27).abs() < 0.01,
        "{}",
        r50.samples_per_s(2)
    );
    // A3C has no batch size: one step = one sample.
    let a3c = types.iter().find(|t| t.model == "A3C").unwrap();
    assert_eq!(a3c.batch_size, None);
    assert_eq!(a3c.samples_per_s(2), a3c.steps_per_s[2]);
    assert!(types.iter().all(|t| t.steps_per_s.iter().all(|&v| v > 0.0)));
}

#[test]
fn gavel_scenarios_run_every_method() {
    let dir = gavel_dir();
    for seed in 1..=4u64 {
        let doc = generate(&GenOptions {
            seed,
            jobs: Some(4),
            nodes: Some(3),
            trace: Some(dir.clone()),
            slots: None,
        })
        .unwrap();
        let text = serde_json::to_string(&doc).unwrap();
        let has = run(&text, "has", true);
        let exact = run(&text, "exact", true);
        let jps = run(&text, "jps", false);
        let lb = run(&text, "optimus-lb", false);
        let opt = run(&text, "optimus", false);
        let las = run(&text, "las", false);
        assert_eq!(has["categories_examined"], 364);
        assert_eq!(has["market"]["fallbacks"], 0, "seed {seed}");
        assert_eq!(has["market"]["classes"], 3);
        // Market and exact solver reach the same throughput in every category.
        let (a, b) = (
            has["per_category"].as_array().unwrap(),
            exact["per_category"].as_array().unwrap(),
        );
        for (x, y) in a.iter().zip(b) {
            let (tx, ty) = (
                x["total_throughput"].as_f64().unwrap(),
                y["total_throughput"].as_f64().unwrap(),
            );
            assert!((tx - ty).abs() <= 1e-9 * tx, "seed {seed}: {tx} vs {ty}");
        }
        let h = has["best"]["avg_jct"].as_f64().unwrap();
        assert!(h.is_finite() && h > 0.0);
        // JPS examines a subset of HAS's categories: never better than HAS.
        assert!(jps["best"]["avg_jct"].as_f64().unwrap() >= h - 1e-6 * h);
        assert_eq!(jps["categories_examined"], 20);
        for r in [&lb, &opt, &las] {
            let v = r["best"]["avg_jct"].as_f64().unwrap();
            assert!(v.is_finite() && v > 0.0);
            let f = r["best"]["fairness"].as_f64().unwrap();
            assert!((0.25 - 1e-12..=1.0 + 1e-12).contains(&f));
        }
        // Every worker is used exactly once (8c, 8d).
        let mut seen = [false; 15];
        for w in has["best"]["assignment"].as_object().unwrap().values() {
            for k in w.as_array().unwrap() {
                let k = k.as_u64().unwrap() as usize;
                assert!(!seen[k]);
                seen[k] = true;
            }
        }
        assert!(seen.iter().all(|&x| x));
    }
}

#[test]
fn gavel_large_cluster_uses_jps() {
    let dir = gavel_dir();
    // 60 nodes x 5 GPUs = 300 workers, S = 4: abs(Psi) = 4,410,549 -> method jps.
    let doc = generate(&GenOptions {
        seed: 9,
        jobs: Some(4),
        nodes: Some(60),
        trace: Some(dir),
        slots: None,
    })
    .unwrap();
    let text = serde_json::to_string(&doc).unwrap();
    let r: Value = serde_json::from_str(&run_json(&text, &RunOptions::default()).unwrap()).unwrap();
    assert_eq!(r["policy"], "jps");
    assert_eq!(r["jps"]["categories"], 4_410_549);
    assert_eq!(r["market"]["fallbacks"], 0);
    let sum: u64 = r["best"]["category"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(sum, 300);
}
