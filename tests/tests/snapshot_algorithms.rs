//! Snapshot and restore of the algorithms' scheduler values: at a random event the scheduler
//! is saved ([`mlsched_kernel::snapshot`], versioned postcard), dropped, restored, and driven on;
//! every decision must equal the uninterrupted run's.
//!
//! Covered here: Wang et al. (`PreemptScheduler` through the validating
//! `Snapshot::snapshot` / `restore_snapshot`, random cut points), Zhou et al. (`OnlineState`
//! through the raw envelope `snapshot::save` / `snapshot::restore` and the validating
//! `OnlineScheduler::state`/`restore`, random cut points) and HAS/JPS (`Placer` through
//! `Snapshot`, a one-shot run: restored before the run and compared after it). Whole scheduler
//! values have no raw restore (`snapshot::restore` needs `RawRestore`). Every algorithm (OASiS
//! and CSRP routing included) with crafted and mutated snapshots: `snapshot_cuts.rs`.
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::log::{HashSink, LogSink, TAG_ONLINE, TAG_PLACEMENT};
use mlsched_kernel::model::online::OnlineScenario;
use mlsched_kernel::model::placement::Method;
use mlsched_kernel::model::preempt::PreemptScenario;
use mlsched_kernel::online::{
    OnlineDecision, OnlineJobDecision, OnlineScheduler, OnlineState, Search,
};
use mlsched_kernel::placement::Placer;
use mlsched_kernel::preempt::{run_all, Policy, PreemptDecision, PreemptScheduler};
use mlsched_kernel::snapshot::{self, Snapshot, SnapshotError};
use mlsched_lab::gen::{generate_json, GenOptions};
use mlsched_scenario::doc::{self, ScenarioDoc};
use proptest::prelude::*;

fn text_of(kind: &str, seed: u64, jobs: u32) -> Option<String> {
    if seed == 0 {
        let name = match kind {
            "preempt" => "preempt-small",
            _ => "online-ps-small",
        };
        return mlsched_scenario::bundled::SCENARIOS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.to_string());
    }
    let opts = GenOptions {
        seed,
        jobs: Some(jobs),
        ..GenOptions::default()
    };
    generate_json(kind, &opts).ok()
}

fn preempt_scn(seed: u64, jobs: u32) -> Option<PreemptScenario> {
    match doc::parse(&text_of("preempt", seed, jobs)?).ok()? {
        ScenarioDoc::Preempt(d) => d.validate().ok(),
        _ => None,
    }
}

fn online_scn(seed: u64, jobs: u32) -> Option<OnlineScenario> {
    match doc::parse(&text_of("online", seed, jobs)?).ok()? {
        ScenarioDoc::Online(d) => d.validate().ok(),
        _ => None,
    }
}

/// Drives A_online of Wang et al. as `preempt::run_all` does; before event `cut` the scheduler
/// goes through a snapshot. Returns every decision.
fn preempt_run(scn: &PreemptScenario, cut: Option<u64>) -> Vec<PreemptDecision> {
    let mut s = PreemptScheduler::new(scn, Policy::Greedy).unwrap();
    let mut order: Vec<u32> = (0..scn.jobs.len() as u32).collect();
    order.sort_by_key(|&j| (scn.jobs[j as usize].arrival, j));
    let mut out = Vec::new();
    let (mut next, mut t, mut events) = (0usize, 0u32, 0u64);
    let mut step = |s: &mut PreemptScheduler, now, ev, out: &mut Vec<PreemptDecision>| {
        if Some(events) == cut {
            let bytes = s.snapshot().unwrap();
            *s = PreemptScheduler::new(scn, Policy::Greedy).unwrap();
            s.restore_snapshot(&bytes).unwrap();
        }
        events += 1;
        s.on_event(now, ev, &mut |d| out.push(*d)).unwrap();
    };
    loop {
        while let Some(&j) = order.get(next) {
            if scn.jobs[j as usize].arrival != t {
                break;
            }
            step(&mut s, t, Event::JobArrived(j), &mut out);
            next += 1;
        }
        step(&mut s, t, Event::SlotAdvanced, &mut out);
        t += 1;
        if next >= order.len() && t >= s.horizon_end() {
            return out;
        }
        assert!(t < 1_000_000, "unbounded run");
    }
}

/// Drives Zhou et al.'s A_online as `online::run_scenario` does, snapshotting `OnlineState`
/// before event `cut` and continuing on a freshly built scheduler restored from it.
fn online_run(scn: &OnlineScenario, cut: Option<u64>) -> Vec<OnlineJobDecision> {
    let mut s = OnlineScheduler::new(scn, Search::Fast).unwrap();
    let mut order: Vec<u32> = (0..scn.jobs.len() as u32).collect();
    order.sort_by_key(|&j| (scn.jobs[j as usize].arrival, j));
    let mut out = Vec::new();
    let (mut next, mut events) = (0usize, 0u64);
    for now in 0..scn.slots {
        let mut evs = vec![Event::SlotAdvanced];
        while let Some(&j) = order.get(next) {
            if scn.jobs[j as usize].arrival != now {
                break;
            }
            evs.push(Event::JobArrived(j));
            next += 1;
        }
        for ev in evs {
            if Some(events) == cut {
                let bytes = snapshot::save(TAG_ONLINE, s.state()).unwrap();
                let st: OnlineState = snapshot::restore(TAG_ONLINE, &bytes).unwrap();
                s = OnlineScheduler::new(scn, Search::Fast).unwrap();
                s.restore(st).unwrap();
            }
            events += 1;
            s.on_event(now, ev, &mut |o: &OnlineDecision<'_>| {
                if let OnlineDecision::Decision(d) = o {
                    out.push((*d).clone());
                }
            })
            .unwrap();
        }
    }
    out
}

#[test]
fn drivers_match_the_kernel_drivers() {
    let scn = preempt_scn(0, 0).unwrap();
    let mut s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
    let mut want = Vec::new();
    run_all(&mut s, &mut |d| want.push(*d)).unwrap();
    assert_eq!(preempt_run(&scn, None), want);
    let scn = online_scn(0, 0).unwrap();
    let mut want = Vec::new();
    mlsched_kernel::online::run_scenario(&scn, Search::Fast, &mut |d| want.push(d.clone()))
        .unwrap();
    assert_eq!(online_run(&scn, None), want);
}

#[test]
fn placer_snapshot_restores_to_the_same_run() {
    let scenarios: Vec<String> = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .filter(|(n, _)| n.starts_with("placement"))
        .map(|(_, t)| t.to_string())
        .chain((1..4).filter_map(|seed| {
            let opts = GenOptions {
                seed,
                jobs: Some(4),
                ..GenOptions::default()
            };
            generate_json("placement", &opts).ok()
        }))
        .collect();
    assert!(!scenarios.is_empty());
    for text in scenarios {
        let ScenarioDoc::Placement(d) = doc::parse(&text).unwrap() else {
            panic!()
        };
        let scn = d.validate().unwrap();
        for method in [Method::Has, Method::Jps] {
            let mut a = Placer::new(&scn).unwrap();
            let bytes = a.snapshot().unwrap();
            assert_eq!(bytes, snapshot::save(TAG_PLACEMENT, &a).unwrap());
            let mut b = Placer::new(&scn).unwrap();
            b.restore_snapshot(&bytes).unwrap();
            assert_eq!(a, b);
            let (mut ha, mut hb) = (HashSink::new(), HashSink::new());
            let ra = a.run(method, &mut ha, |_| {}).unwrap();
            let rb = b.run(method, &mut hb, |_| {}).unwrap();
            assert_eq!(ra, rb);
            assert_eq!(ha.hash(), hb.hash());
            assert_eq!(a, b);
            let mut after = Placer::new(&scn).unwrap();
            after.restore_snapshot(&a.snapshot().unwrap()).unwrap();
            assert_eq!(after.best(), a.best());
            // The scratch is the receiver's own (not compared), so the next run must agree.
            let (mut ha, mut hb) = (HashSink::new(), HashSink::new());
            let ra = a.run(Method::Las, &mut ha, |_| {}).unwrap();
            let rb = after.run(Method::Las, &mut hb, |_| {}).unwrap();
            assert_eq!((ra, ha.hash()), (rb, hb.hash()));
        }
    }
}

#[test]
fn a_corrupted_scheduler_snapshot_is_refused() {
    let scn = preempt_scn(0, 0).unwrap();
    let s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
    let mut b = s.snapshot().unwrap();
    let mid = b.len() / 2;
    b[mid] ^= 0x20;
    let mut t = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
    assert!(t.restore_snapshot(&b).is_err());
    let ok = s.snapshot().unwrap();
    assert!(matches!(
        snapshot::restore::<OnlineState>(TAG_ONLINE, &ok),
        Err(SnapshotError::WrongKind { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Wang et al.: decisions after a restore at a random event equal the uninterrupted run.
    #[test]
    fn preempt_decisions_survive_a_restore(seed in 0u64..50, jobs in 2u32..8, cut in any::<prop::sample::Index>()) {
        let Some(scn) = preempt_scn(seed, jobs) else { return Ok(()) };
        let whole = preempt_run(&scn, None);
        // Events: one per arrival plus one per slot up to the horizon; any index is a cut.
        let k = cut.index(scn.jobs.len() + 64) as u64;
        prop_assert_eq!(preempt_run(&scn, Some(k)), whole);
    }

    /// Zhou et al.: decisions after a restore at a random event equal the uninterrupted run.
    #[test]
    fn online_decisions_survive_a_restore(seed in 0u64..50, jobs in 2u32..8, cut in any::<prop::sample::Index>()) {
        let Some(scn) = online_scn(seed, jobs) else { return Ok(()) };
        let whole = online_run(&scn, None);
        let k = cut.index(scn.jobs.len() + scn.slots as usize) as u64;
        prop_assert_eq!(online_run(&scn, Some(k)), whole);
    }
}
