//! Wang et al. (kind "preempt"): invariants of every policy's schedule on random scenarios,
//! the embedding API, the CLI run / gen paths and determinism.
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::model::preempt::PreemptScenario;
use mlsched_lab::gen::{generate_json, GenOptions};
use mlsched_scenario::run::{run_json, RunOptions};

use mlsched_kernel::preempt::{run_all, Policy, PreemptDecision, PreemptError, PreemptScheduler};
use proptest::prelude::*;
use std::collections::BTreeMap;

#[path = "preempt_common.rs"]
mod refs;

const POLICIES: [Policy; 4] = [
    Policy::Greedy,
    Policy::AllCloud,
    Policy::EdgeFifo,
    Policy::Random,
];

/// Checks every invariant of issue 6 on one run; returns the decisions.
fn check(scn: &PreemptScenario, policy: Policy) -> Result<Vec<PreemptDecision>, PreemptError> {
    let mut s = PreemptScheduler::new(scn, policy)?;
    let mut log = Vec::new();
    run_all(&mut s, &mut |d| log.push(*d))?;
    let out = refs::fast_outcome(&s);
    let mut base = 0usize;
    let mut busy: BTreeMap<(u32, u32, u32), u32> = BTreeMap::new();
    for (j, job) in scn.jobs.iter().enumerate() {
        for d in 0..job.chunks as usize {
            let (server, worker, cloud, slots) = &out[base + d];
            let sv = *server as usize;
            // exactly ceil(E B / n) slots (cloud: the zeta-dependent rate)
            let n = job.rate_of(sv, *worker as usize, *cloud, *cloud && s.zeta(j));
            let want = mlsched_kernel::num::ceil_u32(job.chunk_work() / n)
                .unwrap()
                .max(1);
            assert_eq!(slots.len() as u32, want, "job {j} chunk {d}: slots");
            // never before arrival + upload delay
            let ready = job.arrival + job.upload_delay[sv];
            assert!(
                slots.iter().all(|&t| t >= ready),
                "job {j} chunk {d} before r + Delta"
            );
            assert!(slots.windows(2).all(|w| w[0] < w[1]));
            if *cloud {
                // cloud chunks never wait: contiguous from r + Delta
                assert_eq!(slots[0], ready, "cloud chunk of job {j} waited");
                assert_eq!(*slots.last().unwrap(), ready + want - 1);
            } else {
                for &t in slots {
                    let k = busy.entry((*server, *worker, t)).or_insert(0);
                    *k += 1;
                    assert_eq!(
                        *k, 1,
                        "worker {server}/{worker} runs two chunks in slot {t}"
                    );
                }
            }
        }
        // c_j = the end of the last slot any chunk of j runs in
        let last = (base..base + job.chunks as usize)
            .filter_map(|c| out[c].3.last())
            .max()
            .map_or(0, |l| l + 1);
        assert_eq!(s.completion(j), last);
        base += job.chunks as usize;
    }
    // each PS serves at most one job per slot; a PS record only for a running job
    let mut ps: BTreeMap<(u32, u32, u32), u32> = BTreeMap::new();
    for d in &log {
        if let PreemptDecision::Ps(p) = d {
            assert!(
                ps.insert((p.slot, p.server, p.ps), p.job).is_none(),
                "PS double-booked: {p:?}"
            );
            let j = p.job as usize;
            let first = base_of(scn, j);
            let runs =
                (first..first + scn.jobs[j].chunks as usize).any(|c| out[c].3.contains(&p.slot));
            assert!(runs, "PS given to job {j} not running in slot {}", p.slot);
            assert!(scn.jobs[j].ps_eligible[p.server as usize][p.ps as usize]);
        }
    }
    Ok(log)
}

fn base_of(scn: &PreemptScenario, j: usize) -> usize {
    scn.jobs[..j].iter().map(|x| x.chunks as usize).sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn invariants_hold_for_every_policy(seed in any::<u64>()) {
        let scn = refs::random_scenario(seed);
        for p in POLICIES {
            match check(&scn, p) {
                Ok(_) => {}
                Err(PreemptError::NoEligibleWorker { .. }) => {}
                Err(e) => prop_assert!(false, "{:?}: {}", p, e),
            }
        }
    }
}

#[test]
fn same_scenario_same_decisions() {
    for seed in 0..50 {
        let scn = refs::random_scenario(seed);
        for p in POLICIES {
            let a = check(&scn, p).ok();
            let b = check(&scn, p).ok();
            assert_eq!(a, b);
        }
    }
}

/// The embedding shape: events one by one; wrong slots and repeats are typed errors.
#[test]
fn scheduler_api() {
    let scn = refs::random_scenario(11);
    let mut s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
    let j = (0..scn.jobs.len())
        .max_by_key(|&j| scn.jobs[j].arrival)
        .unwrap() as u32;
    let r = scn.jobs[j as usize].arrival;
    let wrong = s.on_event(r + 1, Event::JobArrived(j), &mut |_| {});
    assert_eq!(
        wrong,
        Err(PreemptError::WrongSlot {
            job: j,
            arrival: r,
            now: r + 1
        })
    );
    let mut s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
    let mut n = 0;
    if s.on_event(r, Event::JobArrived(j), &mut |_| n += 1).is_ok() {
        assert!(n as u32 >= scn.jobs[j as usize].chunks);
        assert_eq!(
            s.on_event(r, Event::JobArrived(j), &mut |_| {}),
            Err(PreemptError::AlreadyDispatched { job: j })
        );
    }
    assert_eq!(
        s.on_event(r.saturating_sub(1).min(r), Event::SlotAdvanced, &mut |_| {})
            .is_ok(),
        r == 0
    );
    assert_eq!(
        s.on_event(0, Event::JobArrived(999), &mut |_| {})
            .unwrap_err(),
        if r == 0 {
            PreemptError::UnknownJob { job: 999 }
        } else {
            PreemptError::TimeWentBack { now: 0 }
        }
    );
}

fn bundled() -> String {
    std::fs::read_to_string(mlsched_tests::repo_root().join("scenarios/preempt-small.json"))
        .unwrap()
}

/// The bundled scenario runs with every policy; JCT = completion - arrival; explanations hold
/// one C_j entry per eligible worker and one dispatch per chunk; same bytes twice.
#[test]
fn cli_runs_every_policy() {
    let text = bundled();
    for p in mlsched_scenario::run::policies("preempt") {
        let opts = RunOptions {
            policy: Some(p.to_string()),
            ..Default::default()
        };
        let a = run_json(&text, &opts).unwrap();
        assert_eq!(a, run_json(&text, &opts).unwrap());
        let v: serde_json::Value = serde_json::from_str(&a).unwrap();
        assert_eq!(v["kind"], "preempt");
        assert_eq!(v["log_hash"].as_str().unwrap().len(), 16);
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut total = 0;
        for (j, job) in v["jobs"].as_array().unwrap().iter().enumerate() {
            let arrival = doc["jobs"][j]["arrival"].as_u64().unwrap();
            let c = job["completion_slot"].as_u64().unwrap();
            let ends = job["chunks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["end"].as_u64().unwrap());
            assert_eq!(c, ends.max().unwrap());
            assert_eq!(job["jct"].as_u64().unwrap(), c - arrival);
            total += c - arrival;
            assert_eq!(
                job["chunks"].as_array().unwrap().len() as u64,
                doc["jobs"][j]["chunks"].as_u64().unwrap()
            );
            if *p == "preempt" {
                let e = &job["explain"];
                assert_eq!(
                    e["dispatch"].as_array().unwrap().len(),
                    job["chunks"].as_array().unwrap().len()
                );
                assert!(!e["candidates"].as_array().unwrap().is_empty());
            }
        }
        assert_eq!(v["summary"]["total_jct"].as_u64().unwrap(), total);
    }
    let bad = RunOptions {
        policy: Some("fifo".into()),
        ..Default::default()
    };
    let e = run_json(&text, &bad).unwrap_err().to_string();
    assert!(
        e.contains("accepted: preempt, all-cloud, edge-fifo, random"),
        "{e}"
    );
}

/// The bundled scenario's greedy run, pinned: chunk 1 of j3 picks the cloud (zeta = 1) with
/// Q = 14/8 + (25 * 58 / 60)/8; j2 preempts j1 on edge-0 at slot 4.
#[test]
fn bundled_greedy_pinned() {
    let v: serde_json::Value =
        serde_json::from_str(&run_json(&bundled(), &RunOptions::default()).unwrap()).unwrap();
    let j3 = &v["jobs"][2];
    assert_eq!(j3["zeta"], true);
    let q = j3["explain"]["dispatch"][0]["q"].as_f64().unwrap();
    assert!((q - (14.0 / 8.0 + 25.0 * 58.0 / 60.0 / 8.0)).abs() < 1e-12);
    let j1c2 = &v["jobs"][0]["chunks"][2];
    assert_eq!(
        (
            j1c2["server"].as_u64(),
            j1c2["start"].as_u64(),
            j1c2["end"].as_u64()
        ),
        (Some(0), Some(2), Some(60))
    );
    assert_eq!(j1c2["slots"].as_array().unwrap().len(), 29);
    assert!(v["summary"]["preemptions"].as_u64().unwrap() >= 1);
}

#[test]
fn gen_poisson_runs() {
    let opts = GenOptions {
        seed: 5,
        jobs: Some(30),
        nodes: Some(5),
        trace: None,
        slots: None,
    };
    let text = generate_json("preempt", &opts).unwrap();
    assert_eq!(text, generate_json("preempt", &opts).unwrap());
    for p in mlsched_scenario::run::policies("preempt") {
        let o = RunOptions {
            policy: Some(p.to_string()),
            ..Default::default()
        };
        run_json(&text, &o).unwrap();
    }
}

#[test]
fn gen_philly_trace() {
    let data = mlsched_tests::data_dir();
    let opts = GenOptions {
        seed: 1,
        jobs: Some(40),
        nodes: None,
        trace: Some(data.join("philly-via-pollux")),
        slots: None,
    };
    let text = generate_json("preempt", &opts).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 40);
    // evenly spaced over the 2-day window: arrivals span most of 48 hours
    let last = jobs
        .iter()
        .map(|j| j["arrival"].as_f64().unwrap() as u64)
        .max()
        .unwrap();
    assert!((40..48).contains(&last), "last arrival {last}");
    assert_eq!(v["servers"].as_array().unwrap().len(), 10);
    run_json(&text, &RunOptions::default()).unwrap();
}
