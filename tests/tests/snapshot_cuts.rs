//! Snapshot and restore of every algorithm through [`mlsched_kernel::snapshot::Snapshot`]
//! (versioned postcard, validated against the model on restore):
//! - at a random cut point of a run the scheduler is saved, a fresh one is built from the
//!   model, the snapshot restored into it, and the run continued: the decisions and the
//!   decision-log hash equal the uninterrupted run's (OASiS, Zhou et al. PS and RA, HAS/JPS,
//!   Wang et al. under every dispatch policy, CSRP and its baselines);
//! - a crafted state that decodes but is inconsistent with the model is a typed
//!   [`SnapshotError::Invalid`] naming the field;
//! - random byte mutations of a valid snapshot (checksum re-sealed, so they reach the decoder
//!   and the validation) either fail with a typed error or restore into a scheduler whose
//!   later decisions do not panic.
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::log::{HashSink, LogHash, LogSink, TAG_OASIS, TAG_ONLINE, TAG_ROUTE};
use mlsched_kernel::model::oasis::OasisScenario;
use mlsched_kernel::model::online::OnlineScenario;
use mlsched_kernel::model::placement::{
    JpsParams, Method, PlacementJob, PlacementScenario, Worker,
};
use mlsched_kernel::model::preempt::PreemptScenario;
use mlsched_kernel::model::route::RouteScenario;
use mlsched_kernel::oasis::{OasisJobDecision, OasisScheduler};
use mlsched_kernel::online::{
    log_decision, OnlineDecision, OnlineJobDecision, OnlineScheduler, OnlineState, Search,
};
use mlsched_kernel::placement::Placer;
use mlsched_kernel::preempt::{Policy, PreemptDecision, PreemptScheduler};
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::route::topo::{fat_tree, TopoParams};
use mlsched_kernel::route::{self, RouteDecision, RouteOutcome, RouteScheduler, RouteState};
use mlsched_kernel::snapshot::{self, Snapshot, SnapshotError, SNAPSHOT_HEADER_BYTES};
use mlsched_lab::gen::GenOptions;
use mlsched_tests::route_instances::{self, random_jobs, JobRanges};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Shared helpers

/// The cut: snapshot `s`, build a fresh scheduler from the model, restore into it, and go on
/// with the restored one. With `same_bytes` the restored scheduler must snapshot to the same
/// bytes (every scheduler but the placer, whose scratch is the receiver's own).
fn through_snapshot<S: Snapshot>(s: &mut S, fresh: S, same_bytes: bool) {
    let bytes = s.snapshot().unwrap();
    let mut buf = vec![0u8; bytes.len()];
    assert_eq!(s.snapshot_into(&mut buf).unwrap(), &bytes[..]);
    let mut t = fresh;
    t.restore_snapshot(&bytes).unwrap();
    if same_bytes {
        assert_eq!(
            t.snapshot().unwrap(),
            bytes,
            "restored state re-encodes differently"
        );
    }
    *s = t;
}

/// Recomputes the checksum after the body was edited (so the bytes reach decode + validation).
fn reseal(b: &mut [u8]) {
    let n = b.len() - 8;
    let mut h = LogHash::new();
    h.bytes(&b[..n]);
    let v = h.value();
    b[n..].copy_from_slice(&v.to_le_bytes());
}

/// Applies `muts` to the body of `valid` (positions wrap into the body) and reseals.
fn mutate(valid: &[u8], muts: &[(prop::sample::Index, u8)]) -> Vec<u8> {
    let mut b = valid.to_vec();
    let head = SNAPSHOT_HEADER_BYTES as usize;
    let body = b.len() - head - 8;
    for (pos, x) in muts {
        let i = head + pos.index(body.max(1));
        b[i] ^= x;
    }
    reseal(&mut b);
    b
}

/// A restore of mutated bytes either succeeds or is one of the typed refusals of the body.
fn typed_refusal(r: &Result<(), SnapshotError>) -> bool {
    matches!(
        r,
        Ok(()) | Err(SnapshotError::Decode { .. }) | Err(SnapshotError::Invalid { .. })
    )
}

/// A crafted edit of a state and the field the refusal must name.
type Craft<T> = (&'static str, Box<dyn Fn(&mut T)>);

fn expect_invalid(r: Result<(), SnapshotError>, field: &str) {
    match r {
        Err(SnapshotError::Invalid { field: f, .. }) => assert_eq!(f, field),
        other => panic!("expected Invalid({field}), got {other:?}"),
    }
}

fn opts(seed: u64, jobs: u32, nodes: Option<u32>) -> GenOptions {
    GenOptions {
        seed,
        jobs: Some(jobs),
        nodes,
        ..GenOptions::default()
    }
}

// ---------------------------------------------------------------------------------------------
// OASiS (Bao et al.)

fn oasis_scn(seed: u64, jobs: u32) -> Option<OasisScenario> {
    let doc = mlsched_lab::gen::oasis::generate(&opts(seed, jobs, Some(4))).ok()?;
    let scn = doc.validate().ok()?;
    // Some tiny generated job lists derive no valid price bounds (eqs. 23-26): skipped.
    OasisScheduler::new(&scn).is_ok().then_some(scn)
}

/// (slot, job or None for `SlotAdvanced`) in arrival order.
fn oasis_events(scn: &OasisScenario) -> Vec<(u32, Option<u32>)> {
    let order = OasisScheduler::new(scn).unwrap().arrival_order();
    let mut ev = Vec::new();
    let mut last = None;
    for i in order {
        let t = scn.jobs[i as usize].arrival;
        if last != Some(t) {
            ev.push((t, None));
            last = Some(t);
        }
        ev.push((t, Some(i)));
    }
    ev
}

fn oasis_run(scn: &OasisScenario, cut: Option<usize>) -> (Vec<OasisJobDecision>, LogHash) {
    let mut s = OasisScheduler::new(scn).unwrap();
    let mut sink = HashSink::new();
    let mut out = Vec::new();
    for (k, (t, ev)) in oasis_events(scn).into_iter().enumerate() {
        if Some(k) == cut {
            through_snapshot(&mut s, OasisScheduler::new(scn).unwrap(), true);
        }
        match ev {
            None => s.on_event(t, Event::SlotAdvanced, &mut |_| {}).unwrap(),
            Some(i) => out.push(s.decide_logged(t, i, &mut sink).unwrap()),
        }
    }
    (out, sink.hash())
}

/// Runs the first `k` events, for a mid-run state.
fn oasis_mid(scn: &OasisScenario, k: usize) -> OasisScheduler {
    let mut s = OasisScheduler::new(scn).unwrap();
    for (t, ev) in oasis_events(scn).into_iter().take(k) {
        match ev {
            None => s.on_event(t, Event::SlotAdvanced, &mut |_| {}).unwrap(),
            Some(i) => {
                s.decide(t, i).unwrap();
            }
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Zhou et al. (A_online, PS and ring-all-reduce)

fn online_scn(seed: u64, jobs: u32, ring: bool) -> Option<OnlineScenario> {
    let mut doc = mlsched_lab::gen::online::generate(&opts(seed, jobs, Some(4))).ok()?;
    if ring {
        doc = mlsched_lab::gen::online::to_ring(doc);
    }
    doc.validate().ok()
}

/// (slot, event) as `online::run_scenario` feeds them.
fn online_events(scn: &OnlineScenario) -> Vec<(u32, Event<u32>)> {
    let mut order: Vec<u32> = (0..scn.jobs.len() as u32).collect();
    order.sort_by_key(|&j| (scn.jobs[j as usize].arrival, j));
    let mut ev = Vec::new();
    let mut next = 0;
    for now in 0..scn.slots {
        ev.push((now, Event::SlotAdvanced));
        while let Some(&j) = order.get(next) {
            if scn.jobs[j as usize].arrival != now {
                break;
            }
            ev.push((now, Event::JobArrived(j)));
            next += 1;
        }
    }
    ev
}

fn online_run(scn: &OnlineScenario, cut: Option<usize>) -> (Vec<OnlineJobDecision>, LogHash) {
    let mut s = OnlineScheduler::new(scn, Search::Fast).unwrap();
    let mut sink = HashSink::new();
    let mut out = Vec::new();
    for (k, (t, ev)) in online_events(scn).into_iter().enumerate() {
        if Some(k) == cut {
            through_snapshot(
                &mut s,
                OnlineScheduler::new(scn, Search::Fast).unwrap(),
                true,
            );
        }
        s.on_event(t, ev, &mut |o: &OnlineDecision<'_>| {
            if let OnlineDecision::Decision(d) = o {
                log_decision(&mut sink, d).unwrap();
                out.push((*d).clone());
            }
        })
        .unwrap();
    }
    (out, sink.hash())
}

// ---------------------------------------------------------------------------------------------
// Wang et al. (preemptive edge-cloud dispatch)

const PREEMPT_POLICIES: [Policy; 4] = [
    Policy::Greedy,
    Policy::AllCloud,
    Policy::EdgeFifo,
    Policy::Random,
];

fn preempt_scn(seed: u64, jobs: u32) -> Option<PreemptScenario> {
    let doc = mlsched_lab::gen::preempt::generate(&opts(seed, jobs, None)).ok()?;
    doc.validate().ok()
}

/// Drives the scheduler as `preempt::run_all` does; before event `cut` it goes through a
/// snapshot. At most `budget` events (a mutated state may plan far ahead).
fn preempt_drive(
    s: &mut PreemptScheduler,
    scn: &PreemptScenario,
    policy: Policy,
    cut: Option<u64>,
    budget: u64,
    out: &mut dyn FnMut(&PreemptDecision),
) {
    let mut order: Vec<u32> = (0..scn.jobs.len() as u32).collect();
    order.sort_by_key(|&j| (scn.jobs[j as usize].arrival, j));
    let (mut next, mut t, mut events) = (0usize, 0u32, 0u64);
    let mut step = |s: &mut PreemptScheduler, now, ev| {
        if Some(events) == cut {
            through_snapshot(s, PreemptScheduler::new(scn, policy).unwrap(), true);
        }
        events += 1;
        // Errors (not panics) are allowed after a mutated restore; valid runs never err.
        let r = s.on_event(now, ev, out);
        assert!(r.is_ok() || budget != u64::MAX, "{r:?}");
    };
    loop {
        while let Some(&j) = order.get(next) {
            if scn.jobs[j as usize].arrival != t {
                break;
            }
            step(s, t, Event::JobArrived(j));
            next += 1;
        }
        step(s, t, Event::SlotAdvanced);
        t += 1;
        if next >= order.len() && t >= s.horizon_end() || t as u64 >= budget {
            return;
        }
    }
}

fn preempt_run(
    scn: &PreemptScenario,
    policy: Policy,
    cut: Option<u64>,
) -> (Vec<PreemptDecision>, LogHash) {
    let mut s = PreemptScheduler::new(scn, policy).unwrap();
    let mut sink = HashSink::new();
    let mut out = Vec::new();
    preempt_drive(&mut s, scn, policy, cut, u64::MAX, &mut |d| {
        d.log(&mut sink).unwrap();
        out.push(*d);
    });
    (out, sink.hash())
}

// ---------------------------------------------------------------------------------------------
// HAS / JPS (Liu et al.)

const PLACEMENT_METHODS: [Method; 6] = [
    Method::Has,
    Method::Jps,
    Method::Exact,
    Method::Las,
    Method::Optimus,
    Method::OptimusLb,
];

/// A small random heterogeneous cluster: K workers of 3 GPU types on 2-worker nodes, S jobs.
fn placement_scn(seed: u64) -> PlacementScenario {
    let mut g = SplitMix64::new(seed);
    let k = 4 + g.below(4) as u32;
    let s = 2 + g.below(2) as usize;
    let workers: Vec<Worker> = (0..k)
        .map(|i| Worker {
            gpu_type: g.below(3) as u32,
            node: i / 2,
        })
        .collect();
    let jobs = (0..s)
        .map(|_| {
            let base: Vec<f64> = (0..3).map(|_| g.range_f64(5.0, 50.0)).collect();
            PlacementJob {
                samples: g.range_f64(500.0, 5000.0),
                epochs: 1.0 + g.below(4) as f64,
                model_bytes: g.range_f64(1e5, 1e7),
                throughput: workers.iter().map(|w| base[w.gpu_type as usize]).collect(),
            }
        })
        .collect();
    PlacementScenario {
        method: Method::Has,
        workers,
        intra_node: 1e9,
        inter_node: 1e8,
        jobs,
        include_comm: g.below(2) == 1,
        jps: JpsParams {
            samples: 4,
            ..JpsParams::default()
        },
        seed,
        solver: Default::default(),
    }
}

/// Runs `methods` in sequence on one placer; before run `cut` it goes through a snapshot.
fn placement_run(
    scn: &PlacementScenario,
    methods: &[Method],
    cut: Option<usize>,
) -> Vec<(String, LogHash)> {
    let mut p = Placer::new(scn).unwrap();
    let mut out = Vec::new();
    for (k, &m) in methods.iter().enumerate() {
        if Some(k) == cut {
            through_snapshot(&mut p, Placer::new(scn).unwrap(), false);
        }
        let mut sink = HashSink::new();
        let sum = p.run(m, &mut sink, |_| {}).unwrap();
        out.push((format!("{sum:?} {:?}", p.best()), sink.hash()));
    }
    if Some(methods.len()) == cut {
        let best = p.best().clone();
        through_snapshot(&mut p, Placer::new(scn).unwrap(), false);
        assert_eq!(p.best(), &best);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// CSRP (Song et al.)

const ROUTE_POLICIES: [route::Policy; 5] = [
    route::Policy::Csrp,
    route::Policy::Fifo,
    route::Policy::Fair,
    route::Policy::Capacity,
    route::Policy::Deadline,
];

/// A random scenario on a 4-ary fat-tree (16 hosts), small PSO.
fn route_scn(seed: u64, jobs: usize, aggregate: bool) -> RouteScenario {
    let mut rng = SplitMix64::new(seed);
    let p = TopoParams {
        hosts: 16,
        ps: 3,
        slots: 1 + rng.below(3) as u32,
        background: (0.0, 0.9),
        ..TopoParams::default()
    };
    let topology = fat_tree(4, &p, &mut rng);
    let r = JobRanges {
        release: 12,
        duration: 6,
        workers: 4,
        slack: 8,
    };
    let jobs = random_jobs(&topology, jobs, &r, &mut rng);
    route_instances::scenario(seed, aggregate, topology, jobs, 4, 5)
}

/// [`RouteScheduler::run`]'s loop through [`Scheduler::on_event`]: releases, then `SlotAdvanced`, at
/// each event time; before event `cut` the router goes through a snapshot. At most `budget`
/// event times.
fn route_drive(
    r: &mut RouteScheduler,
    scn: &RouteScenario,
    policy: route::Policy,
    cut: Option<usize>,
    budget: usize,
    out: &mut dyn FnMut(&RouteDecision),
) -> bool {
    let order = r.release_order().to_vec();
    let release = |i: usize| scn.jobs[order[i] as usize].release;
    let (mut next, mut events) = (0usize, 0usize);
    let Some(mut t) = order.first().map(|&j| scn.jobs[j as usize].release) else {
        return true;
    };
    let strict = budget == usize::MAX;
    let mut step = |r: &mut RouteScheduler, t, ev| {
        if Some(events) == cut {
            through_snapshot(r, RouteScheduler::new(scn, policy).unwrap(), true);
        }
        events += 1;
        let res = r.on_event(t, ev, out);
        assert!(res.is_ok() || !strict, "{res:?}");
    };
    for _ in 0..(3 * order.len() + 2).min(budget) {
        while next < order.len() && release(next) <= t {
            step(r, t, Event::JobArrived(order[next]));
            next += 1;
        }
        step(r, t, Event::SlotAdvanced);
        let mut nt = r.next_event().unwrap_or(u32::MAX);
        if next < order.len() {
            nt = nt.min(release(next));
        }
        if nt == u32::MAX {
            return r.queued().is_empty();
        }
        t = nt.max(t + 1);
    }
    false
}

fn route_run(
    scn: &RouteScenario,
    policy: route::Policy,
    cut: Option<usize>,
) -> (Vec<RouteDecision>, RouteOutcome, LogHash) {
    let mut r = RouteScheduler::new(scn, policy).unwrap();
    let mut sink = HashSink::new();
    let mut out = Vec::new();
    let done = route_drive(&mut r, scn, policy, cut, usize::MAX, &mut |d| {
        d.log(&mut sink).unwrap();
        out.push(d.clone());
    });
    assert!(done, "every job placed");
    let o = r.finish(&mut sink).unwrap();
    (out, o, sink.hash())
}

// ---------------------------------------------------------------------------------------------
// Drivers agree with the kernel's own drivers (so the cut runs test the real decision order)

#[test]
fn event_drivers_match_the_kernel_runs() {
    let scn = online_scn(1, 6, false).unwrap();
    let mut want = HashSink::new();
    mlsched_kernel::online::run_scenario(&scn, Search::Fast, &mut |d| {
        log_decision(&mut want, d).unwrap()
    })
    .unwrap();
    assert_eq!(online_run(&scn, None).1, want.hash());

    let scn = preempt_scn(1, 6).unwrap();
    let mut s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
    let mut want = HashSink::new();
    mlsched_kernel::preempt::run_all(&mut s, &mut |d| d.log(&mut want).unwrap()).unwrap();
    assert_eq!(preempt_run(&scn, Policy::Greedy, None).1, want.hash());

    for (seed, agg) in [(1, false), (2, true), (3, true)] {
        let scn = route_scn(seed, 8, agg);
        for policy in ROUTE_POLICIES {
            let mut sink = HashSink::new();
            let want = RouteScheduler::new(&scn, policy)
                .unwrap()
                .run(&mut sink)
                .unwrap();
            let (_, got, h) = route_run(&scn, policy, None);
            assert_eq!((got, h), (want, sink.hash()), "{policy:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Random cut points: decisions after a restore equal the uninterrupted run's

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// OASiS: any cut between events (arrivals and clock) gives the same decisions and log.
    #[test]
    fn oasis_cut_anywhere(seed in 0u64..1000, jobs in 2u32..14, cut in any::<prop::sample::Index>()) {
        let Some(scn) = oasis_scn(seed, jobs) else { return Ok(()) };
        let n = oasis_events(&scn).len();
        let whole = oasis_run(&scn, None);
        prop_assert_eq!(oasis_run(&scn, Some(cut.index(n + 1))), whole);
    }

    /// HAS/JPS: a restore between any two runs of a sequence of methods (or after the last).
    #[test]
    fn placement_cut_between_runs(seed in any::<u64>(), picks in proptest::collection::vec(0usize..6, 1..5), cut in any::<prop::sample::Index>()) {
        let scn = placement_scn(seed);
        let methods: Vec<Method> = picks.iter().map(|&i| PLACEMENT_METHODS[i]).collect();
        let whole = placement_run(&scn, &methods, None);
        prop_assert_eq!(placement_run(&scn, &methods, Some(cut.index(methods.len() + 1))), whole);
    }

    /// CSRP / Aggregated CSRP and the baselines: any cut between events.
    #[test]
    fn route_cut_anywhere(seed in any::<u64>(), jobs in 1usize..10, agg in any::<bool>(), p in 0usize..5, cut in any::<prop::sample::Index>()) {
        let scn = route_scn(seed, jobs, agg);
        let policy = ROUTE_POLICIES[p];
        let whole = route_run(&scn, policy, None);
        // Events: one release per job plus at most 3 event times per job.
        let k = cut.index(4 * jobs + 3);
        prop_assert_eq!(route_run(&scn, policy, Some(k)), whole);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    /// Zhou et al., PS and ring-all-reduce (RA): any cut between events.
    #[test]
    fn online_cut_anywhere(seed in 0u64..1000, jobs in 2u32..10, ring in any::<bool>(), cut in any::<prop::sample::Index>()) {
        let Some(scn) = online_scn(seed, jobs, ring) else { return Ok(()) };
        let n = online_events(&scn).len();
        let whole = online_run(&scn, None);
        prop_assert_eq!(online_run(&scn, Some(cut.index(n + 1))), whole);
    }

    /// Wang et al. under every dispatch policy: any cut between events.
    #[test]
    fn preempt_cut_anywhere(seed in 0u64..1000, jobs in 2u32..9, p in 0usize..4, cut in any::<prop::sample::Index>()) {
        let Some(scn) = preempt_scn(seed, jobs) else { return Ok(()) };
        let policy = PREEMPT_POLICIES[p];
        let whole = preempt_run(&scn, policy, None);
        let k = cut.index(scn.jobs.len() + 64) as u64;
        prop_assert_eq!(preempt_run(&scn, policy, Some(k)), whole);
    }
}

// ---------------------------------------------------------------------------------------------
// Crafted states that decode but are inconsistent: typed errors naming the field

#[test]
fn crafted_oasis_states_are_refused() {
    let scn = (1..40)
        .filter_map(|seed| oasis_scn(seed, 10))
        .find(|s| {
            let m = oasis_mid(s, oasis_events(s).len());
            m.state().market != OasisScheduler::new(s).unwrap().state().market
        })
        .expect("a scenario that admits a job");
    let mid = oasis_mid(&scn, oasis_events(&scn).len());
    let restore = |st: &mlsched_kernel::oasis::OasisState| {
        let b = snapshot::save(TAG_OASIS, st).unwrap();
        OasisScheduler::new(&scn).unwrap().restore_snapshot(&b)
    };
    restore(&mid.state()).unwrap();
    // The owned state and the borrowed form the snapshot is written from encode alike.
    assert_eq!(
        snapshot::save(TAG_OASIS, &mid.state()).unwrap(),
        mid.snapshot().unwrap()
    );
    let mut st = mid.state();
    st.decided.push(false);
    expect_invalid(restore(&st), "decided");
    // Far more workers than the server holds: usage over capacity.
    let mut st = mid.state();
    let job = *mid.job(0).unwrap();
    st.market.add_workers(0, 0, &job, 1_000_000);
    expect_invalid(restore(&st), "market.workers.usage");
    // A NaN price where eq. (22) gives a finite one (patched in the encoded body).
    let st = mid.state();
    let m = &st.market;
    let (t, h) = (0..m.slots())
        .flat_map(|t| (0..m.workers.servers()).map(move |h| (t, h)))
        .find(|&(t, h)| m.workers.usage(t, h, 0) > 0.0)
        .expect("a used cell");
    let p = m.workers.price(t, h, 0).to_le_bytes();
    let mut b = snapshot::save(TAG_OASIS, &st).unwrap();
    let at = b.windows(8).position(|w| w == p).unwrap();
    b[at..at + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    reseal(&mut b);
    let mut s = OasisScheduler::new(&scn).unwrap();
    let before = s.snapshot().unwrap();
    expect_invalid(s.restore_snapshot(&b), "market.workers.price");
    assert_eq!(s.snapshot().unwrap(), before, "unchanged after a refusal");
    // A state of another scenario (other cluster) is refused by shape.
    let other = (41..80).find_map(|seed| oasis_scn(seed, 10)).unwrap();
    let b = snapshot::save(TAG_OASIS, &OasisScheduler::new(&other).unwrap().state()).unwrap();
    assert!(matches!(
        OasisScheduler::new(&scn).unwrap().restore_snapshot(&b),
        Err(SnapshotError::Invalid { .. })
    ));
}

#[test]
fn crafted_online_states_are_refused() {
    let scn = online_scn(3, 8, false).unwrap();
    let mut s = OnlineScheduler::new(&scn, Search::Fast).unwrap();
    for (t, ev) in online_events(&scn) {
        s.on_event(t, ev, &mut |_| {}).unwrap();
    }
    let good = s.state().clone();
    let restore = |st: &OnlineState| {
        let b = snapshot::save(TAG_ONLINE, st).unwrap();
        OnlineScheduler::new(&scn, Search::Fast)
            .unwrap()
            .restore_snapshot(&b)
    };
    restore(&good).unwrap();
    assert_eq!(
        snapshot::save(TAG_ONLINE, &good).unwrap(),
        s.snapshot().unwrap()
    );
    let cases: Vec<Craft<OnlineState>> = vec![
        ("usage", Box::new(|st| st.usage.amount[0] = f64::NAN)),
        ("usage", Box::new(|st| st.usage.amount[1] = -1.0)),
        ("usage", Box::new(|st| st.usage.amount[2] = 1e300)),
        ("usage", Box::new(|st| st.usage.amount.push(0.0))),
        ("usage", Box::new(|st| st.usage.resv[0].server = 1 << 30)),
        (
            "usage",
            Box::new(|st| st.usage.resv[0].end = st.usage.resv[0].start),
        ),
        (
            "arrived",
            Box::new(|st| st.arrived.pop().map(drop).unwrap()),
        ),
        ("scheduled", Box::new(|st| st.scheduled.push(true))),
        ("pending", Box::new(|st| st.pending.push(999))),
        ("next_round", Box::new(|st| st.next_round = 0)),
        ("next_round", Box::new(|st| st.next_round = 40)),
        (
            "scheduled",
            Box::new(|st| {
                st.arrived[0] = false;
                st.scheduled[0] = true;
            }),
        ),
    ];
    for (field, f) in cases {
        let mut st = good.clone();
        f(&mut st);
        expect_invalid(restore(&st), field);
    }
    // A pending job listed twice.
    let mut st = good.clone();
    st.arrived[0] = true;
    st.scheduled[0] = false;
    st.pending = vec![0, 0];
    expect_invalid(restore(&st), "pending");
}

#[test]
fn crafted_route_states_are_refused() {
    let scn = route_scn(5, 8, true);
    let mut r = RouteScheduler::new(&scn, route::Policy::Csrp).unwrap();
    // Stop half-way: some jobs placed, some queued or live.
    route_drive(&mut r, &scn, route::Policy::Csrp, None, 3, &mut |_| {});
    let good = r.state();
    assert!(good.decided.iter().any(|&d| d), "something placed");
    let restore = |st: &RouteState| {
        RouteScheduler::new(&scn, route::Policy::Csrp)
            .unwrap()
            .restore(st)
    };
    restore(&good).unwrap();
    assert_eq!(
        snapshot::save(TAG_ROUTE, &good).unwrap(),
        r.snapshot().unwrap(),
        "owned and borrowed state encode alike"
    );
    let placed = good.decided.iter().position(|&d| d).unwrap() as u32;
    let cases: Vec<Craft<RouteState>> = vec![
        ("link_used", Box::new(|st| st.link_used[0] = f64::NAN)),
        (
            "link_used",
            Box::new(|st| st.link_used.pop().map(drop).unwrap()),
        ),
        ("lane_free", Box::new(|st| st.lane_free.push(0))),
        ("queue", Box::new(|st| st.queue.push(1000))),
        ("queue", Box::new(move |st| st.queue.push(placed))),
        ("live", Box::new(|st| st.live.push(1000))),
        ("group_running", Box::new(|st| st.group_running[0] += 7)),
        ("job_links", Box::new(|st| st.job_links[0] = (u32::MAX, 2))),
        ("paths", Box::new(|st| st.paths.push((u32::MAX, u32::MAX)))),
        ("path_nodes", Box::new(|st| st.path_nodes.push(100_000))),
        ("link_arena", Box::new(|st| st.link_arena.push(100_000))),
        ("totals", Box::new(|st| st.totals.jobs = u32::MAX)),
        ("totals", Box::new(|st| st.totals.network_sum = f64::NAN)),
        (
            "decided",
            Box::new(move |st| st.released[placed as usize] = false),
        ),
        (
            "plans",
            Box::new(move |st| st.plans[placed as usize].first_path = u32::MAX),
        ),
    ];
    for (field, f) in cases {
        let mut st = good.clone();
        f(&mut st);
        expect_invalid(restore(&st), field);
    }
    // Through the bytes too (a valid state re-encodes to the same snapshot), and the router is
    // unchanged after a refusal.
    let mut x = RouteScheduler::new(&scn, route::Policy::Csrp).unwrap();
    x.restore(&good).unwrap();
    assert_eq!(x.snapshot().unwrap(), r.snapshot().unwrap());
    assert_eq!(x.snapshot().unwrap()[6], TAG_ROUTE, "kind byte");
    let mut st = good.clone();
    st.queue.push(1000);
    let before = r.snapshot().unwrap();
    assert!(r.restore(&st).is_err());
    assert_eq!(r.snapshot().unwrap(), before);
}

#[test]
fn a_snapshot_of_another_algorithm_is_refused_by_kind() {
    let scn = route_scn(1, 4, false);
    let bytes = RouteScheduler::new(&scn, route::Policy::Fifo)
        .unwrap()
        .snapshot()
        .unwrap();
    let oscn = online_scn(1, 4, false).unwrap();
    let mut s = OnlineScheduler::new(&oscn, Search::Fast).unwrap();
    assert_eq!(
        s.restore_snapshot(&bytes),
        Err(SnapshotError::WrongKind {
            expected: TAG_ONLINE,
            found: TAG_ROUTE
        })
    );
    let mut truncated = s.snapshot().unwrap();
    truncated.pop();
    assert!(matches!(
        s.restore_snapshot(&truncated),
        Err(SnapshotError::Truncated { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Random mutations of valid snapshots (checksum re-sealed): typed error or a usable state

fn mutations() -> impl Strategy<Value = Vec<(prop::sample::Index, u8)>> {
    proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn mutated_oasis_snapshots_never_panic(seed in 0u64..200, k in any::<prop::sample::Index>(), muts in mutations()) {
        let Some(scn) = oasis_scn(seed, 8) else { return Ok(()) };
        let events = oasis_events(&scn);
        let k = k.index(events.len() + 1);
        let bytes = mutate(&oasis_mid(&scn, k).snapshot().unwrap(), &muts);
        let mut s = OasisScheduler::new(&scn).unwrap();
        let r = s.restore_snapshot(&bytes);
        prop_assert!(typed_refusal(&r), "{:?}", r);
        if r.is_ok() {
            for &(t, ev) in &events[k..] {
                let _ = match ev {
                    None => s.on_event(t, Event::SlotAdvanced, &mut |_| {}),
                    Some(i) => s.decide_logged(t, i, &mut HashSink::new()).map(drop),
                };
            }
        }
    }

    #[test]
    fn mutated_online_snapshots_never_panic(seed in 0u64..200, ring in any::<bool>(), k in any::<prop::sample::Index>(), muts in mutations()) {
        let Some(scn) = online_scn(seed, 6, ring) else { return Ok(()) };
        let events = online_events(&scn);
        let k = k.index(events.len() + 1);
        let mut s = OnlineScheduler::new(&scn, Search::Fast).unwrap();
        for &(t, ev) in &events[..k] {
            s.on_event(t, ev, &mut |_| {}).unwrap();
        }
        let bytes = mutate(&s.snapshot().unwrap(), &muts);
        let mut s = OnlineScheduler::new(&scn, Search::Fast).unwrap();
        let r = s.restore_snapshot(&bytes);
        prop_assert!(typed_refusal(&r), "{:?}", r);
        if r.is_ok() {
            for &(t, ev) in &events[k..] {
                let _ = s.on_event(t, ev, &mut |_| {});
            }
        }
    }

    #[test]
    fn mutated_preempt_snapshots_never_panic(seed in 0u64..200, p in 0usize..4, k in 0u32..12, muts in mutations()) {
        let Some(scn) = preempt_scn(seed, 5) else { return Ok(()) };
        let policy = PREEMPT_POLICIES[p];
        let mut s = PreemptScheduler::new(&scn, policy).unwrap();
        preempt_drive(&mut s, &scn, policy, None, k as u64, &mut |_| {});
        let bytes = mutate(&s.snapshot().unwrap(), &muts);
        let mut s = PreemptScheduler::new(&scn, policy).unwrap();
        let r = s.restore_snapshot(&bytes);
        prop_assert!(typed_refusal(&r), "{:?}", r);
        if r.is_ok() {
            // Continue (the driver restarts at slot 0: earlier slots are refused, not panics).
            preempt_drive(&mut s, &scn, policy, None, 300, &mut |_| {});
        }
    }

    #[test]
    fn mutated_placement_snapshots_never_panic(seed in any::<u64>(), m in 0usize..6, muts in mutations()) {
        let scn = placement_scn(seed);
        let mut p = Placer::new(&scn).unwrap();
        p.run(PLACEMENT_METHODS[m], &mut HashSink::new(), |_| {}).unwrap();
        let bytes = mutate(&p.snapshot().unwrap(), &muts);
        let mut q = Placer::new(&scn).unwrap();
        let r = q.restore_snapshot(&bytes);
        prop_assert!(typed_refusal(&r), "{:?}", r);
        if r.is_ok() {
            for m in [Method::Has, Method::Jps, Method::Las] {
                let _ = q.run(m, &mut HashSink::new(), |_| {});
            }
        }
    }

    #[test]
    fn mutated_route_snapshots_never_panic(seed in any::<u64>(), p in 0usize..5, k in 1usize..6, muts in mutations()) {
        let scn = route_scn(seed, 6, seed % 2 == 0);
        let policy = ROUTE_POLICIES[p];
        let mut r = RouteScheduler::new(&scn, policy).unwrap();
        route_drive(&mut r, &scn, policy, None, k, &mut |_| {});
        let bytes = mutate(&r.snapshot().unwrap(), &muts);
        let mut q = RouteScheduler::new(&scn, policy).unwrap();
        let res = q.restore_snapshot(&bytes);
        prop_assert!(typed_refusal(&res), "{:?}", res);
        if res.is_ok() {
            route_drive(&mut q, &scn, policy, None, 40, &mut |_| {});
            let _ = q.finish(&mut HashSink::new());
        }
    }
}
