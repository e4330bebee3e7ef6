//! Zhou et al.: whole-run invariants of A_online, on small random instances (both
//! architectures) and on generated paper-like scenarios (`mlsched gen online`):
//! capacity per (slot, server, resource) with every job's window overlaid; workers x duration x
//! rho >= E D K (2f); at most D_j workers (2g); (13d) bandwidth and (13e) at least one PS; q_j
//! matches the placement; no start before arrival; completion = start + duration <= T.
mod online_common;
use mlsched_kernel::model::online::{Architecture, OnlineScenario};
use mlsched_kernel::online::common::{edk, rho_ps, rho_ring};
use mlsched_kernel::online::{OnlineJobDecision, Search};
use mlsched_lab::gen::{online as gen, GenOptions};
use mlsched_scenario::kinds::online::doc::OnlineDoc;
use online_common::{decisions, small_instance};

fn check_run(scn: &OnlineScenario, ds: &[OnlineJobDecision], what: &str) -> usize {
    let (t_n, h_n, r_n) = (
        scn.slots as usize,
        scn.servers.len(),
        scn.resources as usize,
    );
    let ring = scn.architecture == Architecture::Ring;
    let mut usage = vec![0.0f64; t_n * h_n * r_n];
    let mut seen = vec![false; scn.jobs.len()];
    let mut count = 0;
    for d in ds.iter().filter(|d| d.scheduled) {
        let j = d.job as usize;
        let job = &scn.jobs[j];
        let ctx = format!("{what}: job {j} {d:?}");
        assert!(!seen[j], "{ctx}: scheduled twice");
        seen[j] = true;
        count += 1;
        assert!(d.start >= job.arrival, "{ctx}: starts before its arrival");
        assert_eq!(d.completion(), d.start + d.duration, "{ctx}");
        assert!(
            d.duration >= 1 && d.completion() <= scn.slots,
            "{ctx}: beyond the horizon"
        );
        let m = d.worker_type as usize;
        let wt = &scn.worker_types[m];
        let workers: u32 = d.placement.iter().map(|p| p.workers).sum();
        let ps: u32 = d.placement.iter().map(|p| p.ps).sum();
        assert_eq!(workers, d.workers, "{ctx}: worker count");
        assert!(
            workers <= job.chunks,
            "{ctx}: more workers than chunks (2g)"
        );
        // q_j matches the placement.
        assert_eq!(
            d.colocated,
            d.placement.len() == 1,
            "{ctx}: q_j vs placement"
        );
        let rho = if ring {
            assert_eq!(ps, 0, "{ctx}: ring has no PS");
            rho_ring(job, m, workers, wt, d.colocated)
        } else {
            let p = d.ps_type.expect("PS type") as usize;
            let pt = &scn.ps_types[p];
            assert!(ps >= 1, "{ctx}: no PS (13e)");
            for pl in d.placement.iter().filter(|pl| pl.ps > 0) {
                let away = workers - pl.workers;
                assert!(
                    pl.ps as f64 * pt.bw >= away as f64 * wt.bw * (1.0 - 1e-9),
                    "{ctx}: (13d) bandwidth on server {}",
                    pl.server
                );
            }
            rho_ps(job, m, p, wt, d.colocated)
        };
        assert!(
            workers as f64 * d.duration as f64 * rho >= edk(job) * (1.0 - 1e-9),
            "{ctx}: workers x duration x rho < E D K"
        );
        for pl in d.placement.iter() {
            for r in 0..r_n {
                let mut a = wt.demand.get(r) * pl.workers as f64;
                if let Some(p) = d.ps_type {
                    a += scn.ps_types[p as usize].demand.get(r) * pl.ps as f64;
                }
                for t in d.start..d.completion() {
                    usage[(t as usize * h_n + pl.server as usize) * r_n + r] += a;
                }
            }
        }
    }
    for t in 0..t_n {
        for h in 0..h_n {
            for r in 0..r_n {
                let (u, c) = (usage[(t * h_n + h) * r_n + r], scn.servers[h].get(r));
                assert!(
                    u <= c + 1e-6 * c.max(1.0),
                    "{what}: slot {t} server {h} resource {r}: {u} > {c}"
                );
            }
        }
    }
    count
}

#[test]
fn invariants_on_small_random_instances() {
    let mut scheduled = 0;
    for seed in 0..400 {
        for arch in [Architecture::Ps, Architecture::Ring] {
            let scn = small_instance(seed, arch);
            let (ds, _) = decisions(&scn, Search::Fast);
            scheduled += check_run(&scn, &ds, &format!("seed {seed} {arch:?}"));
        }
    }
    assert!(scheduled > 1000, "only {scheduled} jobs scheduled");
}

fn generated(seed: u64, ring: bool) -> (OnlineDoc, OnlineScenario) {
    let opts = GenOptions {
        seed,
        jobs: Some(30),
        nodes: Some(40),
        trace: None,
        slots: None,
    };
    let mut doc = gen::generate(&opts).unwrap();
    if ring {
        doc = gen::to_ring(doc);
    }
    let scn = doc.validate().unwrap();
    (doc, scn)
}

#[test]
fn invariants_on_generated_scenarios() {
    for seed in 1..=3 {
        for ring in [false, true] {
            let (_, scn) = generated(seed, ring);
            let (ds, _) = decisions(&scn, Search::Fast);
            let n = check_run(&scn, &ds, &format!("gen seed {seed} ring {ring}"));
            assert!(n > 0, "gen seed {seed} ring {ring}: nothing scheduled");
        }
    }
}

/// The result document agrees with the decisions: completion_slot = start_slot + duration,
/// and the bundled scenarios schedule something.
#[test]
fn result_documents_are_consistent() {
    for name in ["online-ps-small", "online-ring-small"] {
        let path = mlsched_tests::repo_root().join(format!("scenarios/{name}.json"));
        let text = std::fs::read_to_string(path).unwrap();
        let out = mlsched_scenario::run::run_json(&text, &Default::default()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let jobs = v["jobs"].as_array().unwrap();
        let mut n = 0;
        for j in jobs.iter().filter(|j| j["scheduled"] == true) {
            n += 1;
            let (s, d, c) = (
                j["start_slot"].as_u64(),
                j["duration"].as_u64(),
                j["completion_slot"].as_u64(),
            );
            assert_eq!(Some(s.unwrap() + d.unwrap()), c, "{name}: {j}");
        }
        assert!(n > 0, "{name}: nothing scheduled");
        assert_eq!(v["summary"]["scheduled"].as_u64(), Some(n));
        // Same scenario, same bytes (log_hash included).
        assert_eq!(
            out,
            mlsched_scenario::run::run_json(&text, &Default::default()).unwrap()
        );
    }
}
