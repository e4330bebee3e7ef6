//! Baselines (FIFO, DRF, Tiresias-LAS, Optimus) on kinds "oasis" and "online": hand-checked
//! small cases, and invariants on random instances (capacities never exceeded, worker bounds,
//! PS counts, progress accounting, determinism).
// Index loops over (slot, server, resource) grids read more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]
use mlsched_kernel::baseline::oasis::{ps_for, OasisBaseline};
use mlsched_kernel::baseline::online::{
    duration, ps_count, OnlineBaseline, OnlineBaselineDecision, Placed,
};
use mlsched_kernel::baseline::Policy;
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::oasis::OasisScenario;
use mlsched_kernel::model::online::OnlineScenario;
use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_scenario::run::{run_json, RunOptions};
use proptest::prelude::*;

fn oasis(text: &str) -> OasisScenario {
    match doc::parse(text).unwrap() {
        ScenarioDoc::Oasis(d) => d.validate().unwrap(),
        _ => unreachable!(),
    }
}

fn online(text: &str) -> OnlineScenario {
    match doc::parse(text).unwrap() {
        ScenarioDoc::Online(d) => d.validate().unwrap(),
        _ => unreachable!(),
    }
}

/// One 4-GPU server; A (4 workers max, 8 chunks of 0.5 slot) and B (2 workers max, 4 chunks).
const TWO_JOBS: &str = r#"{ "kind": "oasis", "slots": 10, "resources": ["gpu", "cpu"],
  "worker_servers": [[4, 100]], "ps_servers": [[0, 100]],
  "prices": { "u_worker": [10, 10], "u_ps": [10, 10], "l_worker": 1, "l_ps": 1 },
  "jobs": [
   { "id": "A", "arrival": 0, "epochs": 2, "chunks": 4, "minibatches_per_chunk": 1,
     "minibatch_time": 0.5, "comm_time": 0, "worker_bw": 1, "ps_bw": 4,
     "worker_demand": [1, 1], "ps_demand": [0, 1], "utility": { "table": [10, 8, 6, 4, 2, 1] } },
   { "id": "B", "arrival": 0, "epochs": 2, "chunks": 2, "minibatches_per_chunk": 1,
     "minibatch_time": 0.5, "comm_time": 0, "worker_bw": 1, "ps_bw": 4,
     "worker_demand": [1, 1], "ps_demand": [0, 1], "utility": { "table": [5, 4, 3, 2, 1] } } ] }"#;

fn completions(p: Policy, scn: &OasisScenario) -> Vec<Option<u32>> {
    let mut r = OasisBaseline::new(p, scn).unwrap();
    r.run(&mut HashSink::new(), &mut |_| {}).unwrap();
    r.jobs().iter().map(|s| s.completion).collect()
}

#[test]
fn fifo_gangs_and_blocks_las_skips_drf_shares() {
    let scn = oasis(TWO_JOBS);
    // FIFO: A takes all 4 GPUs (8 chunks, 8 per slot with m = 0.5) and finishes in slot 0;
    // B (4 chunks, 2 workers -> 4 per slot) runs in slot 1.
    assert_eq!(completions(Policy::Fifo, &scn), vec![Some(0), Some(1)]);
    // LAS: same queue, arrival order, A first; B skipped in slot 0.
    assert_eq!(completions(Policy::Las, &scn), vec![Some(0), Some(1)]);
    // DRF: equal dominant shares alternate: A 2 workers, B 2 workers in slot 0; B is done
    // (4 chunks), A has 4 of 8 chunks and finishes in slot 1.
    assert_eq!(completions(Policy::Drf, &scn), vec![Some(1), Some(0)]);
    // Optimus: one worker each; then A (gain (4/1 - 4/2) / 0.25 = 8) before B (4), then B
    // (4 > A's 2.67): A 2, B 2 -> B done in slot 0, A in slot 1.
    assert_eq!(completions(Policy::Optimus, &scn), vec![Some(1), Some(0)]);
}

#[test]
fn oasis_result_document_utilities() {
    let out = run_json(
        TWO_JOBS,
        &RunOptions {
            policy: Some("fifo".into()),
            all_categories: false,
        },
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["admitted"], 2);
    // f_A(0) + f_B(1) = 10 + 4.
    assert_eq!(v["summary"]["total_utility"], 14.0);
    assert_eq!(
        v["jobs"][0]["placements"][0]["workers"],
        serde_json::json!([[0, 4]])
    );
    assert_eq!(
        v["jobs"][0]["placements"][0]["ps"],
        serde_json::json!([[0, 1]])
    );
}

#[test]
fn other_kinds_answer_a_clear_error() {
    let (_, text) = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|(n, _)| *n == "preempt-small")
        .unwrap();
    let e = run_json(
        text,
        &RunOptions {
            policy: Some("drf".into()),
            all_categories: false,
        },
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("drf"), "{e}");
}

fn oasis_doc(
    servers: &[(u32, u32)],
    jobs: &[(u32, u32, u32, u32, u32, u32)],
    slots: u32,
) -> String {
    let ws: Vec<String> = servers.iter().map(|(g, c)| format!("[{g}, {c}]")).collect();
    let js: Vec<String> = jobs
        .iter()
        .enumerate()
        .map(|(i, &(a, e, n, tau10, g, bw))| {
            format!(
                r#"{{ "id": "j{i}", "arrival": {}, "epochs": {e}, "chunks": {n}, "minibatches_per_chunk": 1,
                "minibatch_time": {}, "comm_time": 0.01, "worker_bw": {bw}, "ps_bw": 3,
                "worker_demand": [{g}, 2], "ps_demand": [0, 3], "utility": {{ "sigmoid": {{ "priority": 10, "decay": 0.5, "target": 4 }} }} }}"#,
                a % slots,
                tau10 as f64 / 10.0
            )
        })
        .collect();
    format!(
        r#"{{ "kind": "oasis", "slots": {slots}, "resources": ["gpu", "cpu"],
        "worker_servers": [{}], "ps_servers": [[0, 12], [0, 7]], "jobs": [{}] }}"#,
        ws.join(", "),
        js.join(", ")
    )
}

fn check_oasis(scn: &OasisScenario, p: Policy) -> Result<(), TestCaseError> {
    let t = scn.slots as usize;
    // Capacity per server and slot, and per job per slot counts: the shared recorder.
    let rec = mlsched_tests::oasis_units::run_checked(p, scn).map_err(TestCaseError::fail)?;
    let (r, x) = (&rec.runner, &rec.counts);
    for (i, job) in scn.jobs.iter().enumerate() {
        let st = r.jobs()[i];
        let mut done = 0u64;
        for s in 0..t {
            let (w, z) = x[i][s];
            prop_assert!(w <= job.chunks);
            prop_assert_eq!(z, ps_for(job, w));
            if w > 0 {
                prop_assert!(s as u32 >= job.arrival);
                if let Some(c) = st.completion {
                    prop_assert!(s as u32 <= c);
                }
            }
            done += ((w as f64 / job.chunk_time()) + 1e-9).floor() as u64;
        }
        match st.completion {
            Some(_) => prop_assert!(done >= job.workload()),
            None => prop_assert!(done < job.workload()),
        }
    }
    // Same scenario, same decisions.
    let mut again = OasisBaseline::new(p, scn).unwrap();
    let mut s2 = HashSink::new();
    again.run(&mut s2, &mut |_| {}).unwrap();
    prop_assert_eq!(rec.hash, s2.hash().value());
    Ok(())
}

fn online_doc(jobs: &[(u32, u32, u32, u32)], arch_ring: bool) -> String {
    let js: Vec<String> = jobs
        .iter()
        .enumerate()
        .map(|(i, &(a, e, d, v))| {
            // One U_j for ring, one per PS type (there is one) for PS: the same text.
            let upd = "[0.002]";
            format!(
                r#"{{ "id": "j{i}", "arrival": {}, "weight": {}, "epochs": {e}, "chunks": {d}, "minibatches_per_chunk": 10,
                 "minibatch_time": [{}, {}], "update_time": {upd}, "gradient_size": 0.01 }}"#,
                a % 30,
                10 + i,
                v as f64 / 100.0,
                v as f64 / 160.0
            )
        })
        .collect();
    let ps = if arch_ring {
        String::new()
    } else {
        r#""ps_types": [ { "demand": [0, 4, 5], "bw": 5.0 } ],"#.into()
    };
    format!(
        r#"{{ "kind": "online", "slots": 40, "architecture": "{}", "resources": ["gpu", "cpu", "bw"],
        "servers": [[8, 64, 25], [4, 32, 10]],
        "worker_types": [ {{ "demand": [1, 4, 1], "bw": 1.0 }}, {{ "demand": [2, 8, 2], "bw": 2.0 }} ],
        {ps} "F": 4.0, "jobs": [{}] }}"#,
        if arch_ring { "ring" } else { "ps" },
        js.join(", ")
    )
}

fn check_online(scn: &OnlineScenario, p: Policy) -> Result<(), TestCaseError> {
    // Placements of each job's final run; runs AntMan cut, with their cut slot (capacity is
    // theirs from their start until the cut).
    let mut placed: Vec<Placed> = Vec::new();
    let mut cut: Vec<(Placed, u32)> = Vec::new();
    let mut r = OnlineBaseline::new(p, scn).unwrap();
    r.run_outputs(&mut HashSink::new(), &mut |o| match o {
        OnlineBaselineDecision::Placed(pl) => placed.push(*pl),
        OnlineBaselineDecision::Preempted(rec) => {
            let (gone, kept): (Vec<Placed>, Vec<Placed>) =
                placed.iter().partition(|pl| pl.job == rec.job);
            cut.extend(gone.into_iter().map(|pl| (pl, rec.slot)));
            placed = kept;
        }
        _ => {}
    })
    .unwrap();
    let t = scn.slots as usize;
    let mut used = vec![vec![vec![0.0f64; 3]; scn.servers.len()]; t];
    for (pl, until) in &cut {
        prop_assert!(p == Policy::AntMan, "only AntMan cuts runs");
        let st = &r.jobs()[pl.job as usize];
        let wd = scn.worker_types[st.worker_type as usize].demand;
        let zd = st.ps_type.map(|q| scn.ps_types[q as usize].demand);
        for tt in pl.slot..*until {
            for rr in 0..3 {
                used[tt as usize][pl.server as usize][rr] +=
                    wd.get(rr) * pl.workers as f64 + zd.map_or(0.0, |z| z.get(rr)) * pl.ps as f64;
            }
        }
    }
    for (j, (job, st)) in scn.jobs.iter().zip(r.jobs()).enumerate() {
        let mine: Vec<&Placed> = placed.iter().filter(|p| p.job as usize == j).collect();
        let Some(s) = st.start else {
            prop_assert!(mine.is_empty());
            continue;
        };
        prop_assert!(s >= job.arrival);
        prop_assert!(s + st.duration <= scn.slots);
        let w: u32 = mine.iter().map(|p| p.workers).sum();
        let z: u32 = mine.iter().map(|p| p.ps).sum();
        prop_assert_eq!(w, st.workers);
        prop_assert!(w >= 1 && w <= job.chunks);
        prop_assert_eq!(z, ps_count(scn, st, w));
        prop_assert_eq!(st.duration, duration(scn, job, st, w));
        let wd = scn.worker_types[st.worker_type as usize].demand;
        let zd = st.ps_type.map(|p| scn.ps_types[p as usize].demand);
        for p in &mine {
            for tt in s..s + st.duration {
                for rr in 0..3 {
                    used[tt as usize][p.server as usize][rr] +=
                        wd.get(rr) * p.workers as f64 + zd.map_or(0.0, |z| z.get(rr)) * p.ps as f64;
                }
            }
        }
    }
    for slot in &used {
        for (h, u) in slot.iter().enumerate() {
            for rr in 0..3 {
                prop_assert!(u[rr] <= scn.servers[h].get(rr) + 1e-9);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn oasis_baselines_respect_capacity_and_account_progress(
        servers in prop::collection::vec((1u32..6, 4u32..20), 1..4),
        jobs in prop::collection::vec((0u32..12, 1u32..6, 1u32..6, 1u32..12, 1u32..3, 1u32..4), 1..7),
        slots in 6u32..16,
    ) {
        let scn = oasis(&oasis_doc(&servers, &jobs, slots));
        for p in Policy::OASIS {
            check_oasis(&scn, p)?;
        }
    }

    #[test]
    fn online_baselines_respect_capacity_and_horizon(
        jobs in prop::collection::vec((0u32..30, 1u32..8, 1u32..8, 1u32..20), 1..7),
        ring in any::<bool>(),
    ) {
        let scn = online(&online_doc(&jobs, ring));
        for p in Policy::ONLINE {
            check_online(&scn, p)?;
        }
    }
}
