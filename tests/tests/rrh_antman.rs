//! The papers' missing baselines: RRH (kind "oasis", Bao et al. 2018, scheme (iii)) and AntMan
//! (kind "online", Zhou et al. 2022, scheme (iii)). Hand-checked admission cases, then
//! invariants on hundreds of random instances and on the bundled scenarios of each kind:
//! capacity never exceeded in any slot, no unit before arrival, every admitted job's work done
//! exactly once (no progress after its completion), the policy's own rules (fixed gangs,
//! rejected jobs never run, one complete run per job; AntMan's cuts only of running
//! opportunistic runs and never wasted), and determinism (same scenario, same log hash).
// Index loops over (slot, server, resource) grids read more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]
use mlsched_kernel::baseline::oasis::{fixed_workers, ps_for, OasisBaseline};
use mlsched_kernel::baseline::online::{
    duration, ps_count, OnlineBaseline, OnlineBaselineDecision, Placed,
};
use mlsched_kernel::baseline::{BaselineError, Policy, ANTMAN_QUEUE_SLOTS, FIXED_WORKERS};
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::oasis::OasisScenario;
use mlsched_kernel::model::online::OnlineScenario;
use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_scenario::run::{policies, run_json, RunOptions};
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

use mlsched_tests::bundled;

fn opts(policy: &str) -> RunOptions {
    RunOptions {
        policy: Some(policy.into()),
        all_categories: false,
    }
}

/// One 4-GPU server. "good" (utility 10 whenever it finishes), "worthless" (utility 0),
/// "late" (needs more slots than the horizon has), "huge" (a gang of 8 GPUs per worker).
const RRH_CASE: &str = r#"{ "kind": "oasis", "slots": 6, "resources": ["gpu", "cpu"],
  "worker_servers": [[4, 100]], "ps_servers": [[0, 100]],
  "prices": { "u_worker": [10, 10], "u_ps": [10, 10], "l_worker": 1, "l_ps": 1 },
  "jobs": [
   { "id": "good", "arrival": 0, "epochs": 2, "chunks": 4, "minibatches_per_chunk": 1,
     "minibatch_time": 0.5, "comm_time": 0, "worker_bw": 1, "ps_bw": 4,
     "worker_demand": [1, 1], "ps_demand": [0, 1], "utility": { "table": [10] } },
   { "id": "worthless", "arrival": 0, "epochs": 2, "chunks": 2, "minibatches_per_chunk": 1,
     "minibatch_time": 0.5, "comm_time": 0, "worker_bw": 1, "ps_bw": 4,
     "worker_demand": [1, 1], "ps_demand": [0, 1], "utility": { "table": [0] } },
   { "id": "late", "arrival": 1, "epochs": 40, "chunks": 1, "minibatches_per_chunk": 1,
     "minibatch_time": 1, "comm_time": 0, "worker_bw": 1, "ps_bw": 4,
     "worker_demand": [1, 1], "ps_demand": [0, 1], "utility": { "table": [50] } },
   { "id": "huge", "arrival": 2, "epochs": 1, "chunks": 2, "minibatches_per_chunk": 1,
     "minibatch_time": 0.5, "comm_time": 0, "worker_bw": 1, "ps_bw": 4,
     "worker_demand": [8, 1], "ps_demand": [0, 1], "utility": { "table": [50] } } ] }"#;

#[test]
fn rrh_admits_by_gain_minus_delay_cost() {
    let scn = oasis(RRH_CASE);
    let mut r = OasisBaseline::new(Policy::Rrh, &scn).unwrap();
    r.run(&mut HashSink::new(), &mut |_| {}).unwrap();
    let st = r.jobs();
    // good: 4 workers x 2 chunks a slot = 8 chunks, its whole workload, in slot 0.
    assert!(!st[0].rejected);
    assert_eq!(st[0].completion, Some(0));
    // worthless: gain 0 is not above the threshold; late: cannot finish by T (gain 0);
    // huge: its gang never fits the cluster (gain 0).
    assert!(st[1].rejected && st[2].rejected && st[3].rejected);
    let v: serde_json::Value =
        serde_json::from_str(&run_json(RRH_CASE, &opts("rrh")).unwrap()).unwrap();
    assert_eq!(v["policy"], "rrh");
    assert_eq!(v["summary"]["admitted"], 1);
    assert_eq!(v["summary"]["rejected"], 3);
    assert_eq!(v["summary"]["total_utility"], 10.0);
    assert_eq!(v["jobs"][1]["admitted"], false);
    assert!(v["jobs"][1]["reason"]
        .as_str()
        .unwrap()
        .contains("RRH threshold"));
}

#[test]
fn kind_only_policies_refuse_the_other_kind() {
    let o = oasis(RRH_CASE);
    assert!(matches!(
        OasisBaseline::new(Policy::AntMan, &o),
        Err(BaselineError::WrongKind(Policy::AntMan))
    ));
    let n = online(bundled("online-ps-small"));
    assert!(matches!(
        OnlineBaseline::new(Policy::Rrh, &n),
        Err(BaselineError::WrongKind(Policy::Rrh))
    ));
    let e = run_json(bundled("online-ps-small"), &opts("rrh")).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("rrh"), "{e}");
    assert!(run_json(RRH_CASE, &opts("antman")).is_err());
    // Both are listed where `compare` and the façade find a kind's policies.
    assert!(policies("oasis").contains(&"rrh"));
    assert!(policies("online").contains(&"antman"));
    assert!(!policies("online").contains(&"rrh"));
}

/// Two jobs on an 8-GPU and a 4-GPU server: a heavy guarantee job arriving first, a light opportunistic
/// one arriving with it: the guarantee job gets its gang, the opportunistic one what is left.
#[test]
fn antman_guarantee_first_opportunistic_best_effort() {
    let text = online_doc(&[(0, 2, 4, 4, 100), (0, 2, 4, 4, 1)], false, 8);
    let scn = online(&text);
    let mut r = OnlineBaseline::new(Policy::AntMan, &scn).unwrap();
    r.run(&mut HashSink::new(), &mut |_| {}).unwrap();
    let st = r.jobs();
    assert!(!st[0].opportunistic, "weight 100 is above the mean");
    assert!(st[1].opportunistic, "weight 1 is below the mean");
    assert_eq!(st[0].start, Some(0));
    assert_eq!(st[0].workers, 4);
    assert!(st[1].start.is_some() && st[1].workers >= 1);
}

/// Ring, 12 GPUs (8 + 4), each worker 2 GPUs: guarantee job 0 (one worker, one slot) and
/// opportunistic job 1 (weight 1, below the mean) start at 0, job 1 with the 5 workers left
/// for 11 slots; guarantee job 2 arrives at 2 and needs a gang of 4 (8 GPUs) while 2 are free:
/// it cuts job 1's run (the only running opportunistic one) and starts at once; job 1 starts
/// again later, from scratch.
#[test]
fn antman_guarantee_job_preempts_an_opportunistic_run() {
    let text = online_doc(
        &[(0, 1, 1, 1, 100), (0, 40, 8, 1, 1), (2, 1, 4, 1, 100)],
        true,
        40,
    );
    let scn = online(&text);
    let mut outs = Vec::new();
    let mut r = OnlineBaseline::new(Policy::AntMan, &scn).unwrap();
    r.run_outputs(&mut HashSink::new(), &mut |o| outs.push(*o))
        .unwrap();
    let st = r.jobs();
    assert!(!st[0].opportunistic && st[1].opportunistic && !st[2].opportunistic);
    let cuts: Vec<_> = outs
        .iter()
        .filter_map(|o| match o {
            OnlineBaselineDecision::Preempted(p) => Some((p.slot, p.job, p.by, p.start)),
            _ => None,
        })
        .collect();
    assert_eq!(cuts, vec![(2, 1, 2, 0)]);
    assert_eq!((st[2].start, st[2].workers), (Some(2), 4));
    assert_eq!(st[1].preemptions, 1);
    assert!(st[1].start.is_some_and(|s| s > 2), "{:?}", st[1]);
    assert_eq!(check_antman(&scn).unwrap().1, 1);
}

/// The same, but job 2's gang (8 workers, 16 GPUs) exceeds the cluster: no prefix of the
/// victims makes room, so nothing is cut.
#[test]
fn antman_cuts_nothing_that_would_not_make_room() {
    let text = online_doc(
        &[(0, 1, 1, 1, 100), (0, 40, 8, 1, 1), (2, 1, 8, 1, 100)],
        true,
        40,
    );
    let scn = online(&text);
    let mut r = OnlineBaseline::new(Policy::AntMan, &scn).unwrap();
    r.run(&mut HashSink::new(), &mut |_| {}).unwrap();
    assert_eq!(r.jobs()[1].preemptions, 0);
    assert_eq!(r.jobs()[1].start, Some(0));
    assert_eq!(check_antman(&scn).unwrap().1, 0);
}

/// Cuts do happen on random contended instances (the invariants of `check_antman` hold
/// through them).
#[test]
fn antman_cuts_on_random_instances() {
    let mut rng = mlsched_kernel::rng::SplitMix64::new(45);
    let mut cuts = 0;
    for _ in 0..200 {
        let n = 2 + rng.below(7) as usize;
        let jobs: Vec<(u32, u32, u32, u32, u32)> = (0..n)
            .map(|_| {
                let mut d = |k: u64| 1 + rng.below(k) as u32;
                (d(30) - 1, d(7), d(11), d(19), d(49))
            })
            .collect();
        let ring = rng.below(2) == 1;
        cuts += check_antman(&online(&online_doc(&jobs, ring, 40)))
            .unwrap()
            .1;
    }
    assert!(cuts >= 10, "only {cuts} cuts");
}

// ---- random instances ---------------------------------------------------------------------

fn oasis_doc(
    servers: &[(u32, u32)],
    jobs: &[(u32, u32, u32, u32, u32, u32, u32)],
    slots: u32,
) -> String {
    let ws: Vec<String> = servers.iter().map(|(g, c)| format!("[{g}, {c}]")).collect();
    let js: Vec<String> = jobs
        .iter()
        .enumerate()
        .map(|(i, &(a, e, n, tau10, g, bw, target))| {
            format!(
                r#"{{ "id": "j{i}", "arrival": {}, "epochs": {e}, "chunks": {n}, "minibatches_per_chunk": 1,
                "minibatch_time": {}, "comm_time": 0.01, "worker_bw": {bw}, "ps_bw": 3,
                "worker_demand": [{g}, 2], "ps_demand": [0, 3], "utility": {{ "sigmoid": {{ "priority": {}, "decay": 0.5, "target": {target} }} }} }}"#,
                a % slots,
                tau10 as f64 / 10.0,
                5 + 7 * i
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

/// Every RRH invariant on one scenario; returns the log hash.
fn check_rrh(scn: &OasisScenario) -> Result<u64, TestCaseError> {
    let t = scn.slots as usize;
    let rec =
        mlsched_tests::oasis_units::run_checked(Policy::Rrh, scn).map_err(TestCaseError::fail)?;
    let (r, x, hash) = (&rec.runner, &rec.counts, rec.hash);
    for (i, job) in scn.jobs.iter().enumerate() {
        let st = r.jobs()[i];
        let mut done = 0u64;
        for s in 0..t {
            let (w, z) = x[i][s];
            if w == 0 {
                prop_assert_eq!(z, 0);
                continue;
            }
            prop_assert!(!st.rejected, "rejected job {} ran", i);
            prop_assert!(s as u32 >= job.arrival, "job {} before its arrival", i);
            // Always the same worker / PS numbers once running.
            prop_assert_eq!(w, fixed_workers(job));
            prop_assert_eq!(z, ps_for(job, w));
            // Work done exactly once: nothing after the completion slot, and the workload is
            // not yet reached before it.
            prop_assert!(
                done < job.workload(),
                "job {} ran after its work was done",
                i
            );
            done += ((w as f64 / job.chunk_time()) + 1e-9).floor() as u64;
        }
        match st.completion {
            Some(c) => {
                prop_assert!(done >= job.workload());
                prop_assert!(x[i][c as usize].0 > 0);
                prop_assert_eq!(st.remaining, 0);
            }
            None => prop_assert!(done < job.workload()),
        }
    }
    let mut again = OasisBaseline::new(Policy::Rrh, scn).unwrap();
    let mut s2 = HashSink::new();
    again.run(&mut s2, &mut |_| {}).unwrap();
    prop_assert_eq!(hash, s2.hash().value());
    Ok(hash)
}

/// `(arrival, epochs, chunks, minibatch time x100, weight)` per job.
fn online_doc(jobs: &[(u32, u32, u32, u32, u32)], arch_ring: bool, slots: u32) -> String {
    let js: Vec<String> = jobs
        .iter()
        .enumerate()
        .map(|(i, &(a, e, d, v, w))| {
            format!(
                r#"{{ "id": "j{i}", "arrival": {}, "weight": {w}, "epochs": {e}, "chunks": {d}, "minibatches_per_chunk": 10,
                 "minibatch_time": [{}, {}], "update_time": [0.002], "gradient_size": 0.01 }}"#,
                a % slots,
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
        r#"{{ "kind": "online", "slots": {slots}, "architecture": "{}", "resources": ["gpu", "cpu", "bw"],
        "servers": [[8, 64, 25], [4, 32, 10]],
        "worker_types": [ {{ "demand": [1, 4, 1], "bw": 1.0 }}, {{ "demand": [2, 8, 2], "bw": 2.0 }} ],
        {ps} "F": 4.0, "jobs": [{}] }}"#,
        if arch_ring { "ring" } else { "ps" },
        js.join(", ")
    )
}

/// One AntMan run read back from the output stream: its job, shares, start, end (its cut or
/// its completion), and whether it was cut.
struct AntRun {
    job: usize,
    shares: Vec<Placed>,
    start: u32,
    end: u32,
    cut: bool,
}

/// Every AntMan invariant on one scenario; returns (log hash, cuts).
fn check_antman(scn: &OnlineScenario) -> Result<(u64, usize), TestCaseError> {
    let mut outs: Vec<OnlineBaselineDecision> = Vec::new();
    let mut r = OnlineBaseline::new(Policy::AntMan, scn).unwrap();
    let mut sink = HashSink::new();
    r.run_outputs(&mut sink, &mut |o| outs.push(*o)).unwrap();
    let t = scn.slots as usize;
    let nr = scn.resources as usize;
    let st = r.jobs();
    // The runs, in the order the stream reports them.
    let mut runs: Vec<AntRun> = Vec::new();
    let mut pending: Vec<Placed> = Vec::new();
    // The guarantee job the latest cuts made room for: it must start next (no wasted cut).
    let mut owed: Option<(u32, u32)> = None;
    let mut cuts = 0usize;
    for o in &outs {
        match *o {
            OnlineBaselineDecision::Placed(p) => pending.push(p),
            OnlineBaselineDecision::Start(rec) => {
                if let Some((b, at)) = owed.take() {
                    prop_assert_eq!((rec.job, rec.slot), (b, at), "cut for {} at {}", b, at);
                }
                let shares: Vec<Placed> = std::mem::take(&mut pending);
                prop_assert!(shares
                    .iter()
                    .all(|p| p.job == rec.job && p.slot == rec.slot));
                runs.push(AntRun {
                    job: rec.job as usize,
                    shares,
                    start: rec.slot,
                    end: rec.slot + rec.duration,
                    cut: false,
                });
            }
            OnlineBaselineDecision::Preempted(c) => {
                cuts += 1;
                prop_assert!(owed.is_none_or(|(b, at)| b == c.by && at == c.slot));
                owed = Some((c.by, c.slot));
                prop_assert!(st[c.job as usize].opportunistic, "cut a guarantee job");
                prop_assert!(
                    !st[c.by as usize].opportunistic,
                    "cut for an opportunistic job"
                );
                let run = runs
                    .iter_mut()
                    .rev()
                    .find(|x| x.job == c.job as usize && !x.cut)
                    .expect("a running run");
                prop_assert_eq!(run.start, c.start);
                prop_assert!(run.start < c.slot && c.slot < run.end, "cut while running");
                run.end = c.slot;
                run.cut = true;
            }
        }
    }
    prop_assert!(owed.is_none() && pending.is_empty());
    let mut used = vec![vec![vec![0.0f64; nr]; scn.servers.len()]; t];
    for (j, (job, st)) in scn.jobs.iter().zip(st).enumerate() {
        let mine: Vec<&AntRun> = runs.iter().filter(|x| x.job == j).collect();
        prop_assert_eq!(mine.iter().filter(|x| x.cut).count() as u32, st.preemptions);
        let Some(s) = st.start else {
            prop_assert!(mine.iter().all(|x| x.cut));
            continue;
        };
        // One complete run, the last, and the one the state reports.
        let last = mine.last().expect("a run");
        prop_assert!(!last.cut && mine.iter().filter(|x| !x.cut).count() == 1);
        prop_assert_eq!(last.start, s);
        prop_assert!(s >= job.arrival, "job {} before its arrival", j);
        prop_assert!(s + st.duration <= scn.slots);
        let w: u32 = last.shares.iter().map(|p| p.workers).sum();
        let z: u32 = last.shares.iter().map(|p| p.ps).sum();
        prop_assert_eq!(w, st.workers);
        let gang = job.chunks.min(FIXED_WORKERS);
        prop_assert!(w >= 1 && w <= gang);
        if !st.opportunistic {
            // A guarantee job starts with its whole gang, within the queuing limit, once.
            prop_assert_eq!(w, gang);
            prop_assert!(s - job.arrival <= ANTMAN_QUEUE_SLOTS);
            prop_assert_eq!(mine.len(), 1);
        }
        prop_assert_eq!(z, ps_count(scn, st, w));
        prop_assert_eq!(st.duration, duration(scn, job, st, w));
    }
    // Capacity in every slot, cut runs counted until their cut.
    for run in &runs {
        let st = &r.jobs()[run.job];
        let wd = scn.worker_types[st.worker_type as usize].demand;
        let zd = st.ps_type.map(|p| scn.ps_types[p as usize].demand);
        for p in &run.shares {
            for tt in run.start..run.end {
                for k in 0..nr {
                    used[tt as usize][p.server as usize][k] +=
                        wd.get(k) * p.workers as f64 + zd.map_or(0.0, |d| d.get(k)) * p.ps as f64;
                }
            }
        }
    }
    for slot in &used {
        for (h, u) in slot.iter().enumerate() {
            for k in 0..nr {
                prop_assert!(u[k] <= scn.servers[h].get(k) + 1e-9);
            }
        }
    }
    let mut again = OnlineBaseline::new(Policy::AntMan, scn).unwrap();
    let mut s2 = HashSink::new();
    again.run(&mut s2, &mut |_| {}).unwrap();
    prop_assert_eq!(sink.hash().value(), s2.hash().value());
    Ok((sink.hash().value(), cuts))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn rrh_respects_capacity_arrivals_and_work_on_random_instances(
        servers in prop::collection::vec((1u32..9, 4u32..20), 1..4),
        jobs in prop::collection::vec(
            (0u32..12, 1u32..6, 1u32..10, 1u32..12, 1u32..3, 1u32..4, 1u32..10), 1..9),
        slots in 6u32..20,
    ) {
        check_rrh(&oasis(&oasis_doc(&servers, &jobs, slots)))?;
    }

    #[test]
    fn antman_respects_capacity_arrivals_and_one_run_on_random_instances(
        jobs in prop::collection::vec((0u32..30, 1u32..8, 1u32..12, 1u32..20, 1u32..50), 1..9),
        ring in any::<bool>(),
    ) {
        check_antman(&online(&online_doc(&jobs, ring, 40)))?;
    }
}

#[test]
fn bundled_scenarios_keep_the_invariants_and_hashes() {
    let (mut n_oasis, mut n_online) = (0, 0);
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let policy = match doc::parse(text).unwrap() {
            ScenarioDoc::Oasis(_) => {
                check_rrh(&oasis(text)).unwrap();
                n_oasis += 1;
                "rrh"
            }
            ScenarioDoc::Online(_) => {
                check_antman(&online(text)).unwrap();
                n_online += 1;
                "antman"
            }
            _ => continue,
        };
        let a = run_json(text, &opts(policy)).unwrap();
        assert_eq!(a, run_json(text, &opts(policy)).unwrap(), "{name}");
    }
    assert!(n_oasis >= 1 && n_online >= 2);
}

#[test]
fn compare_lists_and_runs_them() {
    use mlsched_lab::compare::{compare, parse_policies};
    for (name, want) in [
        ("oasis-small", "rrh"),
        ("online-ps-small", "antman"),
        ("online-ring-small", "antman"),
    ] {
        let d = doc::parse(bundled(name)).unwrap();
        // "All policies" mode (no --policies) and an explicit list both take it.
        let all = parse_policies(&d, None).unwrap();
        assert!(all.iter().any(|p| p == want), "{name}: {all:?}");
        assert_eq!(parse_policies(&d, Some(want)).unwrap(), vec![want]);
        let reports = compare(&d, &all);
        let r = reports
            .iter()
            .find(|r| r.metrics.policy == want)
            .expect("a row");
        assert_eq!(r.metrics.status, "ok", "{name}");
        assert!(r.metrics.finished >= 1, "{name}: {:?}", r.metrics);
    }
}
