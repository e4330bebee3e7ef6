//! Kind "online" evaluation inputs (docs/online.md): the trace mappings feeding A_online and the
//! structural property the evaluation explains its results with.
//!
//! - `mlsched import openb --kind online` maps arrivals onto [0, T / (2 alpha)) by default, the
//!   only slots from which A_online can still schedule a job by the horizon (with the old
//!   "half the horizon" mapping the window starting at row 0 scheduled 0 of 100 jobs).
//! - `mlsched gen online --trace FILE` takes the arrival pattern of a Philly or openb trace and
//!   leaves every other value as without a trace.
//! - A_online never schedules a job whose shortest possible duration exceeds every A_dual window
//!   it can reach (what `scripts/online-eval.py` counts as "short-window").
use mlsched_lab::gen::{online, GenOptions};
use mlsched_lab::import::{import_json, ImportOptions, Source};
use mlsched_scenario::kinds::online::doc::{OnlineDoc, OnlineJobDoc};
use mlsched_scenario::run::{run_json, RunOptions};
use mlsched_tests::data_dir as data;
use serde_json::Value;
use std::path::PathBuf;

/// Runs A_online (or `policy`) on a scenario text and returns the result document.
fn run(text: &str, policy: Option<&str>) -> Value {
    let opts = RunOptions {
        policy: policy.map(str::to_string),
        all_categories: false,
    };
    serde_json::from_str(&run_json(text, &opts).unwrap()).unwrap()
}

fn scheduled(res: &Value) -> u64 {
    res["summary"]["scheduled"].as_u64().unwrap()
}

#[test]
fn openb_online_import_puts_arrivals_where_a_online_can_reach_them() {
    let d = data();
    let o = ImportOptions {
        kind: "online".into(),
        data_dir: d,
        jobs: 100,
        start: Some(0),
        ..ImportOptions::default()
    };
    let text = import_json(Source::Openb, &o).unwrap();
    let doc: OnlineDoc = serde_json::from_str(&text).unwrap();
    assert_eq!(doc.jobs.len(), 100);
    // T = 200, alpha = 4: arrivals in [0, 25].
    let last = doc.jobs.iter().map(|j| j.arrival).fold(0.0, f64::max);
    assert!(last <= 25.0, "last arrival {last}");
    assert_eq!(doc.jobs.first().unwrap().arrival, 0.0);
    // This window scheduled 0 of 100 jobs when arrivals spanned T / 2 = 100 slots.
    let res = run(&text, None);
    assert!(
        scheduled(&res) >= 90,
        "A_online scheduled {}",
        scheduled(&res)
    );
    // Kind "oasis" keeps its mapping: arrivals over half the horizon.
    let oasis = ImportOptions {
        kind: "oasis".into(),
        ..o
    };
    let v: Value = serde_json::from_str(&import_json(Source::Openb, &oasis).unwrap()).unwrap();
    let last = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["arrival"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(last, 100.0);
}

fn gen(seed: u64, trace: Option<PathBuf>) -> Result<OnlineDoc, mlsched_scenario::RunError> {
    online::generate(&GenOptions {
        seed,
        jobs: Some(40),
        nodes: Some(30),
        trace,
        slots: None,
    })
}

fn without_arrival(j: &OnlineJobDoc) -> String {
    let mut j = j.clone();
    j.arrival = 0.0;
    serde_json::to_string(&j).unwrap()
}

#[test]
fn gen_online_takes_only_the_arrival_pattern_of_a_trace() {
    let d = data();
    let traces = [
        d.join("philly-via-pollux/philly_jobs_2017-10-09_2017-10-10.csv"),
        d.join("alibaba-openb-gpu-2023/openb_pod_list_default.csv"),
    ];
    for (seed, trace) in [(3, &traces[0]), (4, &traces[1]), (5, &traces[0])] {
        let plain = gen(seed, None).unwrap();
        let traced = gen(seed, Some(trace.clone())).unwrap();
        assert_eq!(plain.jobs.len(), traced.jobs.len());
        let mut prev = 0.0;
        for (a, b) in plain.jobs.iter().zip(&traced.jobs) {
            assert_eq!(without_arrival(a), without_arrival(b), "seed {seed}");
            // Sorted submit times rescaled onto [0, T / (2 alpha)) = [0, 18).
            assert!(b.arrival >= prev && b.arrival < 18.0 && b.arrival.fract() == 0.0);
            prev = b.arrival;
        }
        assert_eq!(traced.jobs[0].arrival, 0.0);
        assert_eq!(traced.jobs.last().unwrap().arrival, 17.0);
        assert_eq!(serde_json::to_string(&plain.servers).unwrap(), {
            serde_json::to_string(&traced.servers).unwrap()
        });
        // Deterministic, and it runs.
        let again = gen(seed, Some(trace.clone())).unwrap();
        let text = serde_json::to_string(&traced).unwrap();
        assert_eq!(text, serde_json::to_string(&again).unwrap());
        run(&text, None);
    }
    // Anything else is refused with a message naming the two accepted files.
    let e = gen(1, Some(d.join("README.md"))).unwrap_err().to_string();
    assert!(
        e.contains("philly_jobs_") && e.contains("openb_pod_list"),
        "{e}"
    );
    let e = gen(1, Some(d.join("no-such.csv"))).unwrap_err().to_string();
    assert!(e.contains("cannot read"), "{e}");
}

/// Max usable duration of the A_dual windows of each round (tau, L_max), as in online.rs:
/// base = alpha tau + (iota - 1) tau, len = min(tau, T - base), t- >= 1, t- + L <= len.
fn windows(slots: u32, alpha: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut tau = 1u32;
    while alpha * tau < slots {
        let mut best = 0;
        for iota in 1..=alpha {
            let base = alpha * tau + (iota - 1) * tau;
            if base + 2 > slots {
                break;
            }
            best = best.max(tau.min(slots - base) - 1);
        }
        out.push((tau, best));
        tau *= 2;
    }
    out
}

/// Shortest duration any A_mincost* / A_RAmincost* schedule of `j` can have (q_j = 1 rates).
fn shortest(doc: &OnlineDoc, j: &OnlineJobDoc) -> u32 {
    let ring = doc.ps_types.is_none();
    let ek = j.epochs * j.minibatches_per_chunk;
    let mut best = u32::MAX;
    for &v in &j.minibatch_time {
        if ring {
            let u = j.update_time[0];
            for phi in 1..=j.chunks as u32 {
                let f = (phi as f64 - 1.0) / phi as f64;
                let d = (ek * j.chunks * (v + u * f) / phi as f64 - 1e-9).ceil();
                best = best.min(d.max(1.0) as u32);
            }
        } else {
            for &u in &j.update_time {
                best = best.min((ek * (v + u) - 1e-9).ceil().max(1.0) as u32);
            }
        }
    }
    best
}

#[test]
fn a_online_never_schedules_a_job_longer_than_its_windows() {
    let mut short = 0;
    for seed in 1..=3 {
        for ring in [false, true] {
            let mut doc = gen(seed, None).unwrap();
            if ring {
                doc = online::to_ring(doc);
            }
            let text = serde_json::to_string(&doc).unwrap();
            let res = run(&text, None);
            let w = windows(doc.slots as u32, 4);
            for (j, r) in doc.jobs.iter().zip(res["jobs"].as_array().unwrap()) {
                let reach = w
                    .iter()
                    .filter(|(tau, _)| *tau as f64 > j.arrival)
                    .map(|x| x.1)
                    .max()
                    .unwrap_or(0);
                let fits = shortest(&doc, j) <= reach;
                short += usize::from(!fits);
                if r["scheduled"].as_bool().unwrap() {
                    assert!(fits, "seed {seed} ring {ring}: {} scheduled", j.id);
                    let dur = r["duration"].as_u64().unwrap() as u32;
                    assert!(dur >= shortest(&doc, j) && dur <= reach);
                }
            }
        }
    }
    // The property is not vacuous on section 7 settings.
    assert!(short > 0);
}
