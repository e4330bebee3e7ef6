//! The preemptive Deadline-aware routing baseline (`--policy deadline-preemptive`, CSRP paper
//! section 5.1): on hundreds of random contended instances and the bundled route scenarios,
//! read back from the decision stream (placements and preemptions, event by event): compute
//! slots never exceeded at any time (cut runs counted until their cut), no start before release,
//! only lower-priority jobs preempted, every preemption followed by the placement of the job it
//! made room for (no wasted kills), every job's final run complete and the only one the
//! outcome reports, R_dv consistent with the final runs, N-bar with every run that sent traffic
//! (no refund of a cut run's network cost), and the same log hash twice.
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::route::RouteScenario;
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::route::topo::{fat_tree, TopoParams};
use mlsched_kernel::route::{Policy, RouteDecision, RouteScheduler};
use mlsched_kernel::snapshot::Snapshot;
use mlsched_tests::alloc_count::{allocations, CountingAlloc};
use mlsched_tests::route_instances::{self, random_jobs, JobRanges};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// A contended random scenario: a 4-ary fat-tree (16 hosts, 1-2 slots each), many jobs.
fn scenario(seed: u64, jobs: usize) -> RouteScenario {
    let mut rng = SplitMix64::new(seed);
    let p = TopoParams {
        hosts: 16,
        ps: 3,
        slots: 1 + rng.below(2) as u32,
        background: (0.0, 0.95),
        ..TopoParams::default()
    };
    let topology = fat_tree(4, &p, &mut rng);
    let r = JobRanges {
        release: 12,
        duration: 10,
        workers: 6,
        slack: 6,
    };
    let jobs = random_jobs(&topology, jobs, &r, &mut rng);
    route_instances::scenario(seed, false, topology, jobs, 6, 8)
}

/// One run of job j read from the stream: nodes, start, end (cut or complete).
#[derive(Clone, Debug)]
struct Run {
    job: u32,
    nodes: Vec<u32>,
    start: u32,
    end: u32,
    cut: bool,
    /// N of the run (its decision record).
    network: f64,
}

fn slack_key(s: &RouteScenario, j: u32) -> (u64, u64, u32) {
    let jb = &s.jobs[j as usize];
    (
        jb.deadline as u64 + u32::MAX as u64 - jb.duration as u64,
        jb.release as u64,
        j,
    )
}

/// Drives the router event by event (as `RouteScheduler::run` does) and checks every invariant;
/// returns (preemptions, log hash).
fn check(s: &RouteScenario) -> (usize, u64) {
    let mut r = RouteScheduler::new(s, Policy::DeadlinePreemptive).unwrap();
    let slots: Vec<u32> = (0..r.graph().nodes() as u32)
        .map(|v| r.graph().slots(v))
        .collect();
    let arrivals: Vec<(u32, u32)> = r
        .release_order()
        .iter()
        .map(|&j| (s.jobs[j as usize].release, j))
        .collect();
    let mut sink = HashSink::new();
    let mut runs: Vec<Run> = Vec::new();
    let mut preemptions = 0usize;
    // The job the last preemptions made room for: its placement must follow them (no wasted
    // kills).
    let mut owed: Option<u32> = None;
    let mut next = 0;
    let earliest = |a: Option<u32>, b: Option<u32>| match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    };
    let mut t = earliest(arrivals.first().map(|a| a.0), r.next_wakeup(None));
    while let Some(now) = t {
        while next < arrivals.len() && arrivals[next].0 <= now {
            r.on_event(
                now,
                Event::JobArrived(arrivals[next].1),
                &mut |_: &RouteDecision| {},
            )
            .unwrap();
            next += 1;
        }
        r.on_event(now, Event::SlotAdvanced, &mut |d: &RouteDecision| {
            d.log(&mut sink).unwrap();
            match d {
                RouteDecision::Placed(rec) => {
                    let jb = &s.jobs[rec.job as usize];
                    if let Some(b) = owed.take() {
                        assert_eq!(rec.job, b, "preempted for {b}, then placed another job");
                    }
                    assert_eq!(rec.start, now, "baselines start now");
                    assert!(rec.start >= jb.release, "job {} before release", rec.job);
                    runs.push(Run {
                        job: rec.job,
                        nodes: rec.nodes.to_vec(),
                        start: rec.start,
                        end: rec.start + jb.duration,
                        cut: false,
                        network: rec.network_cost,
                    });
                }
                RouteDecision::Preempted(p) => {
                    preemptions += 1;
                    assert!(owed.is_none_or(|b| b == p.by), "a kill wasted for {owed:?}");
                    owed = Some(p.by);
                    assert_eq!(p.at, now);
                    assert!(
                        slack_key(s, p.by) < slack_key(s, p.job),
                        "{} preempted {} of higher priority",
                        p.by,
                        p.job
                    );
                    let run = runs
                        .iter_mut()
                        .rev()
                        .find(|x| x.job == p.job && !x.cut)
                        .expect("a running run");
                    assert_eq!(run.start, p.start);
                    assert!(run.start <= now && now < run.end, "cut while running");
                    run.end = now;
                    run.cut = true;
                }
                _ => {}
            }
        })
        .unwrap();
        assert_eq!(owed, None, "at {now}: runs cut and the job not placed");
        let wake = r.next_wakeup(Some(now)).map(|w| w.max(now + 1));
        t = earliest(arrivals.get(next).map(|a| a.0.max(now)), wake);
    }
    let out = r.finish(&mut sink).unwrap();
    // Compute slots at every time, cut runs counted until their cut.
    let horizon = runs.iter().map(|x| x.end).max().unwrap_or(0);
    for time in 0..horizon {
        let mut used = vec![0u32; slots.len()];
        for x in runs.iter().filter(|x| x.start <= time && time < x.end) {
            for &v in &x.nodes {
                used[v as usize] += 1;
            }
        }
        for (v, &u) in used.iter().enumerate() {
            assert!(u <= slots[v], "node {v} at {time}: {u} > {}", slots[v]);
        }
    }
    // Every job's last run is complete, and the only complete one.
    let mut violations = 0u32;
    for (j, jb) in s.jobs.iter().enumerate() {
        let mine: Vec<&Run> = runs.iter().filter(|x| x.job as usize == j).collect();
        let last = mine.last().expect("every job placed");
        assert!(!last.cut, "job {j} ends preempted");
        assert_eq!(mine.iter().filter(|x| !x.cut).count(), 1, "job {j}");
        assert_eq!(out.plans[j].start, last.start);
        violations += (last.start + jb.duration > jb.deadline) as u32;
    }
    let rdv = violations as f64 / s.jobs.len() as f64;
    assert!((out.summary.deadline_violation_rate - rdv).abs() < 1e-12);
    // No refund: N-bar is per job over every run that sent traffic, cut runs included (a run
    // cut at its own start sent nothing).
    let spent: f64 = runs
        .iter()
        .filter(|x| !x.cut || x.end > x.start)
        .map(|x| x.network)
        .sum();
    let n_bar = spent / s.jobs.len() as f64;
    let got = out.summary.avg_network_cost;
    assert!(
        (got - n_bar).abs() <= 1e-9 * n_bar.abs().max(1.0),
        "N-bar {got} != {n_bar}"
    );
    (preemptions, sink.hash().value())
}

#[test]
fn preemptive_deadline_keeps_invariants_on_random_instances() {
    let mut total = 0;
    for seed in 0..300u64 {
        let s = scenario(seed, 8 + (seed % 17) as usize);
        let (p, h) = check(&s);
        let (p2, h2) = check(&s);
        assert_eq!((p, h), (p2, h2), "seed {seed}: not deterministic");
        total += p;
    }
    // The instances are contended enough to exercise preemption.
    assert!(total > 50, "only {total} preemptions");
}

#[test]
fn bundled_route_scenarios_run_preemptive_deadline() {
    use mlsched_scenario::doc::{self, ScenarioDoc};
    use mlsched_scenario::run::{policies, run_json, RunOptions};
    let o = RunOptions {
        policy: Some("deadline-preemptive".into()),
        all_categories: false,
    };
    let mut n = 0;
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let Ok(ScenarioDoc::Route(d)) = doc::parse(text) else {
            continue;
        };
        check(&d.validate().unwrap());
        let a = run_json(text, &o).unwrap();
        assert_eq!(a, run_json(text, &o).unwrap(), "{name}");
        n += 1;
    }
    assert!(n >= 1);
    let clos = include_str!("../../scenarios/route-clos-160.json");
    let Ok(ScenarioDoc::Route(d)) = doc::parse(clos) else {
        panic!("route-clos-160 parses")
    };
    check(&d.validate().unwrap());
    assert!(policies("route").contains(&"deadline-preemptive"));
    // `deadline` is untouched: still no preemption record.
    let s = scenario(7, 24);
    let mut sink = HashSink::new();
    let mut cuts = 0;
    let mut r = RouteScheduler::new(&s, Policy::Deadline).unwrap();
    let order: Vec<(u32, u32)> = r
        .release_order()
        .iter()
        .map(|&j| (s.jobs[j as usize].release, j))
        .collect();
    let mut d = mlsched_kernel::driver::Driver::new(&mut r);
    d.run(&order, &mut sink, &mut |x: &RouteDecision| {
        cuts += matches!(x, RouteDecision::Preempted(_)) as u32
    })
    .unwrap();
    assert_eq!(cuts, 0);
}

/// The run's log hash when the router is snapshotted after event `cut` and a fresh router
/// restored from the bytes carries on (no cut: one router throughout).
fn hash_with_cut(s: &RouteScenario, cut: Option<usize>) -> u64 {
    let mut r = RouteScheduler::new(s, Policy::DeadlinePreemptive).unwrap();
    let arrivals: Vec<(u32, u32)> = r
        .release_order()
        .iter()
        .map(|&j| (s.jobs[j as usize].release, j))
        .collect();
    let mut sink = HashSink::new();
    let mut next = 0;
    let mut event = 0usize;
    let earliest = |a: Option<u32>, b: Option<u32>| match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    };
    let mut t = earliest(arrivals.first().map(|a| a.0), r.next_wakeup(None));
    while let Some(now) = t {
        while next < arrivals.len() && arrivals[next].0 <= now {
            r.on_event(
                now,
                Event::JobArrived(arrivals[next].1),
                &mut |_: &RouteDecision| {},
            )
            .unwrap();
            next += 1;
        }
        r.on_event(now, Event::SlotAdvanced, &mut |d: &RouteDecision| {
            d.log(&mut sink).unwrap()
        })
        .unwrap();
        if Some(event) == cut {
            let bytes = r.snapshot().unwrap();
            r = RouteScheduler::new(s, Policy::DeadlinePreemptive).unwrap();
            r.restore_snapshot(&bytes).unwrap();
        }
        event += 1;
        let wake = r.next_wakeup(Some(now)).map(|w| w.max(now + 1));
        t = earliest(arrivals.get(next).map(|a| a.0.max(now)), wake);
    }
    r.finish(&mut sink).unwrap();
    sink.hash().value()
}

#[test]
fn snapshots_after_preemptions_restore_the_same_run() {
    let mut tried = 0;
    for seed in 0..40u64 {
        let s = scenario(seed, 20);
        let (p, _) = check(&s);
        if p == 0 {
            continue;
        }
        tried += 1;
        let whole = hash_with_cut(&s, None);
        for cut in 0..12 {
            assert_eq!(hash_with_cut(&s, Some(cut)), whole, "seed {seed} cut {cut}");
        }
    }
    assert!(tried >= 5, "only {tried} instances with preemptions");
}

#[test]
fn runs_with_preemptions_allocate_nothing_after_build() {
    let mut tried = 0;
    for seed in 0..40u64 {
        let s = scenario(seed, 20);
        if check(&s).0 == 0 {
            continue;
        }
        tried += 1;
        let router = RouteScheduler::new(&s, Policy::DeadlinePreemptive).unwrap();
        let mut sink = HashSink::new();
        let (_, allocated) = allocations(|| router.run(&mut sink).unwrap());
        assert_eq!(allocated, 0, "seed {seed}");
    }
    assert!(tried >= 5);
}
