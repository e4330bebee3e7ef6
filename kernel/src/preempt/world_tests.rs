//! Tests of the open world for Wang et al. (`world`): each rule on a hand-made scenario, every
//! bad event refused without a change, "submission is arrival" and random event sequences.
use super::{Cause, Outcome, Policy, PreemptDecision, PreemptError, PreemptScheduler};
use crate::api::{Event, Scheduler};
use crate::driver::Driver;
use crate::log::{LogSink, VecSink};
use crate::model::preempt::{PreemptJob, PreemptScenario, PreemptServer};
use crate::resources::ResourceVec;
use crate::snapshot::Snapshot;
use crate::world::{OpenWorldError, Status};
use crate::Slot;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use proptest::prelude::*;

/// A job of `chunks` chunks arriving at `arrival`: rates per server (edge rows of 2, 1 workers,
/// then the cloud's one value).
fn job(arrival: Slot, chunks: u32, edge: [f64; 3], cloud: f64) -> PreemptJob {
    PreemptJob {
        arrival,
        epochs: 2,
        chunks,
        minibatches_per_chunk: 3,
        rate: vec![vec![edge[0], edge[1]], vec![edge[2]], vec![cloud]],
        rate_colocated: vec![vec![edge[0], edge[1]], vec![edge[2]], vec![cloud]],
        upload_delay: vec![1, 2, 4],
        ps_eligible: vec![vec![true], vec![true], vec![true, true]],
    }
}

/// Edge servers 0 (2 workers, 1 PS) and 1 (1 worker, 1 PS), the cloud 2 (2 PSs).
fn scn(jobs: Vec<PreemptJob>) -> PreemptScenario {
    let server = |workers, ps, cloud| PreemptServer { workers, ps, cloud };
    PreemptScenario {
        slots: 64,
        seed: 7,
        servers: vec![server(2, 1, false), server(1, 1, false), server(0, 2, true)],
        jobs,
    }
}

/// Feeds `ev` at `now`, collecting decisions.
fn feed(
    s: &mut PreemptScheduler,
    now: Slot,
    ev: Event<u32>,
) -> Result<Vec<PreemptDecision>, PreemptError> {
    let mut v = Vec::new();
    s.on_event(now, ev, &mut |d: &PreemptDecision| v.push(*d))?;
    Ok(v)
}

/// Runs slots `from..to`: the arrivals of each slot (by `arrival`), then `SlotAdvanced`.
fn slots(s: &mut PreemptScheduler, from: Slot, to: Slot) {
    for t in from..to {
        for j in 0..s.scn.jobs.len() as u32 {
            if s.scn.jobs[j as usize].arrival == t && !s.dispatched[j as usize] {
                feed(s, t, Event::JobArrived(j)).unwrap();
            }
        }
        feed(s, t, Event::SlotAdvanced).unwrap();
    }
}

/// The chunk each edge worker runs in slot t (after the slot was advanced).
fn running(s: &PreemptScheduler, t: Slot) -> Vec<Option<u32>> {
    (0..s.plans.workers_len())
        .map(|w| {
            s.plans
                .segments(w)
                .find(|g| g.start <= t && t < g.end)
                .map(|g| g.chunk)
        })
        .collect()
}

fn dump(s: &PreemptScheduler) -> String {
    format!("{s:?}")
}

/// `ev` is refused with `want` and leaves the scheduler exactly as it was.
fn refused(s: &mut PreemptScheduler, now: Slot, ev: Event<u32>, want: OpenWorldError) {
    let before = dump(s);
    assert_eq!(feed(s, now, ev), Err(PreemptError::OpenWorld(want)));
    assert_eq!(dump(s), before);
}

fn cap(w: f64, p: f64) -> ResourceVec {
    ResourceVec::from_slice(&[w, p]).unwrap()
}

fn interrupts(ds: &[PreemptDecision]) -> Vec<super::InterruptRec> {
    ds.iter()
        .filter_map(|d| match d {
            PreemptDecision::Interrupt(r) => Some(*r),
            _ => None,
        })
        .collect()
}

#[test]
fn cancel_drops_the_rest_and_is_refused_when_ended() {
    // Two jobs only on server 0 (edge), one on the cloud.
    let jobs = vec![
        job(0, 2, [1.0, 1.0, 0.0], 0.0),
        job(0, 1, [0.0, 0.0, 0.0], 0.5),
        job(5, 1, [1.0, 1.0, 0.0], 0.0),
    ];
    let mut s = PreemptScheduler::new(&scn(jobs), Policy::Greedy).unwrap();
    slots(&mut s, 0, 3);
    refused(
        &mut s,
        3,
        Event::JobCancelled(2),
        OpenWorldError::JobEnded { job: 2 },
    );
    refused(
        &mut s,
        3,
        Event::JobCancelled(9),
        OpenWorldError::UnknownJob { job: 9 },
    );
    let ds = feed(&mut s, 3, Event::JobCancelled(0)).unwrap();
    let rs = interrupts(&ds);
    assert_eq!(rs.len(), 2);
    assert!(rs
        .iter()
        .all(|r| r.cause == Cause::Cancel && r.outcome == Outcome::Cancelled));
    assert_eq!(s.status(0), Some(Status::Cancelled));
    refused(
        &mut s,
        3,
        Event::JobCancelled(0),
        OpenWorldError::JobEnded { job: 0 },
    );
    // The cloud job: its window ends at the cancel.
    feed(&mut s, 3, Event::JobCancelled(1)).unwrap();
    let (a, b) = s.cloud_window[1];
    assert!(a >= b, "nothing of the cloud window ran before the cancel");
    slots(&mut s, 3, 40);
    for t in 3..40 {
        assert!(running(&s, t).iter().flatten().all(|&c| c >= 3), "slot {t}");
    }
    s.finish(&mut |_| {}).unwrap();
    assert_eq!(s.status(2), Some(Status::Finished));
    assert_eq!(s.status(3), None);
    assert!(
        s.snapshot().is_err(),
        "open-world state is not in the format"
    );
}

#[test]
fn server_down_re_dispatches_and_up_restores() {
    let jobs = vec![
        job(0, 3, [1.0, 1.0, 1.0], 0.2),
        job(1, 2, [1.0, 1.0, 0.0], 0.2),
    ];
    let mut s = PreemptScheduler::new(&scn(jobs), Policy::Greedy).unwrap();
    slots(&mut s, 0, 3);
    refused(
        &mut s,
        3,
        Event::ServerDown(2),
        OpenWorldError::Unsupported {
            event: "server_down",
        },
    );
    refused(
        &mut s,
        3,
        Event::ServerDown(7),
        OpenWorldError::UnknownServer { server: 7 },
    );
    refused(
        &mut s,
        3,
        Event::ServerUp(0),
        OpenWorldError::ServerUp { server: 0 },
    );
    let ds = feed(&mut s, 3, Event::ServerDown(0)).unwrap();
    let rs = interrupts(&ds);
    assert!(!rs.is_empty());
    assert!(rs
        .iter()
        .all(|r| r.server == 0 && r.outcome == Outcome::Recovered));
    // Every interrupted chunk is dispatched again, after its record.
    for r in &rs {
        assert!(ds.iter().any(|d| matches!(d, PreemptDecision::Dispatch(x)
            if x.job == r.job && x.chunk == r.chunk && x.server != 0 && x.start >= 3)));
    }
    refused(
        &mut s,
        3,
        Event::ServerDown(0),
        OpenWorldError::ServerDown { server: 0 },
    );
    slots(&mut s, 3, 8);
    for t in 3..8 {
        assert!(running(&s, t)[..2].iter().all(|c| c.is_none()), "slot {t}");
    }
    // Capacity while down sets what it returns with.
    feed(&mut s, 8, Event::Capacity(0, cap(1.0, 1.0))).unwrap();
    feed(&mut s, 8, Event::ServerUp(0)).unwrap();
    assert_eq!((s.ow.worker_off(0), s.ow.worker_off(1)), (false, true));
    slots(&mut s, 8, 80);
    s.finish(&mut |_| {}).unwrap();
    assert_eq!(s.status(0), Some(Status::Finished));
    assert_eq!(s.status(1), Some(Status::Finished));
}

#[test]
fn a_job_with_nowhere_to_go_is_lost_and_one_arriving_so_is_rejected() {
    let jobs = vec![
        job(0, 2, [1.0, 1.0, 0.0], 0.0),
        job(4, 1, [1.0, 0.0, 0.0], 0.0),
    ];
    let mut s = PreemptScheduler::new(&scn(jobs), Policy::Greedy).unwrap();
    slots(&mut s, 0, 2);
    let ds = feed(&mut s, 2, Event::ServerDown(0)).unwrap();
    let rs = interrupts(&ds);
    assert!(!rs.is_empty() && rs.iter().all(|r| r.outcome == Outcome::Lost));
    assert_eq!(s.status(0), Some(Status::Lost));
    refused(
        &mut s,
        2,
        Event::JobCancelled(0),
        OpenWorldError::JobEnded { job: 0 },
    );
    slots(&mut s, 2, 5);
    assert_eq!(s.status(1), Some(Status::Rejected));
    slots(&mut s, 5, 20);
    assert!(running(&s, 3).iter().all(|c| c.is_none()));
}

#[test]
fn capacity_cuts_the_most_recently_started_first() {
    // Job 0 starts on worker 0 (faster) at slot 1; job 1 starts later on worker 1.
    let jobs = vec![
        job(0, 1, [2.0, 0.0, 0.0], 0.1),
        job(2, 1, [0.0, 1.0, 0.0], 0.1),
    ];
    let mut s = PreemptScheduler::new(&scn(jobs), Policy::Greedy).unwrap();
    slots(&mut s, 0, 3);
    assert_eq!(running(&s, 3)[..2], [Some(0), Some(1)]);
    refused(
        &mut s,
        3,
        Event::Capacity(0, ResourceVec::from_slice(&[1.0]).unwrap()),
        OpenWorldError::CapacityLength {
            server: 0,
            expected: 2,
            got: 1,
        },
    );
    refused(
        &mut s,
        3,
        Event::Capacity(0, cap(-1.0, 1.0)),
        OpenWorldError::CapacityValue {
            server: 0,
            resource: 0,
        },
    );
    refused(
        &mut s,
        3,
        Event::Capacity(0, cap(1.0, f64::NAN)),
        OpenWorldError::CapacityValue {
            server: 0,
            resource: 1,
        },
    );
    refused(
        &mut s,
        3,
        Event::Capacity(2, cap(1.0, 1.0)),
        OpenWorldError::Unsupported { event: "capacity" },
    );
    let ds = feed(&mut s, 3, Event::Capacity(0, cap(1.0, 0.0))).unwrap();
    let rs = interrupts(&ds);
    assert_eq!(rs.len(), 1);
    assert_eq!(
        (rs[0].job, rs[0].worker, rs[0].cause),
        (1, 1, Cause::Capacity)
    );
    slots(&mut s, 3, 6);
    // No PS of server 0 serves anyone (capacity 0 PSs).
    let mut log = Vec::new();
    s.on_event(6, Event::SlotAdvanced, &mut |d: &PreemptDecision| {
        log.push(*d)
    })
    .unwrap();
    assert!(!log
        .iter()
        .any(|d| matches!(d, PreemptDecision::Ps(p) if p.server == 0)));
    assert_eq!(running(&s, 5)[1], None);
}

#[test]
fn every_policy_recovers_by_its_own_rule() {
    for policy in [
        Policy::Greedy,
        Policy::AllCloud,
        Policy::EdgeFifo,
        Policy::Random,
    ] {
        let jobs = vec![
            job(0, 3, [1.0, 1.5, 1.0], 0.3),
            job(1, 2, [1.0, 1.0, 2.0], 0.3),
        ];
        let mut s = PreemptScheduler::new(&scn(jobs), policy).unwrap();
        slots(&mut s, 0, 3);
        let ds = feed(&mut s, 3, Event::ServerDown(0)).unwrap();
        let rs = interrupts(&ds);
        if policy == Policy::AllCloud {
            assert!(rs.is_empty());
        }
        assert!(
            rs.iter().all(|r| r.outcome == Outcome::Recovered),
            "{policy:?}"
        );
        slots(&mut s, 3, 100);
        s.finish(&mut |_| {}).unwrap();
        assert_eq!(s.status(0), Some(Status::Finished), "{policy:?}");
        assert_eq!(s.status(1), Some(Status::Finished), "{policy:?}");
    }
}

#[test]
fn submit_checks_before_it_appends() {
    let mut s = PreemptScheduler::new(&scn(vec![]), Policy::Greedy).unwrap();
    slots(&mut s, 0, 3);
    let before = dump(&s);
    assert!(matches!(
        s.submit(job(1, 1, [1.0; 3], 1.0)),
        Err(PreemptError::WrongSlot { .. })
    ));
    assert!(matches!(
        s.submit(job(5, 1, [0.0; 3], 0.0)),
        Err(PreemptError::NoEligibleWorker { job: 0 })
    ));
    assert!(matches!(
        s.submit(job(5, 5000, [1.0; 3], 1.0)),
        Err(PreemptError::Capacity(_))
    ));
    assert_eq!(dump(&s), before);
    assert_eq!(s.submit(job(3, 2, [1.0; 3], 1.0)), Ok(0));
    assert_eq!(s.status(0), Some(Status::Unfinished));
}

// ---- properties ----

/// A job some server can train; on the cloud too for all-cloud (which uses nothing else).
fn arb_job(arrival: Slot, policy: Policy) -> impl Strategy<Value = PreemptJob> {
    let rate = prop_oneof![Just(0.0), 0.5f64..3.0];
    (
        1u32..4,
        proptest::array::uniform3(rate),
        prop_oneof![Just(0.0), 0.1f64..1.0],
    )
        .prop_map(move |(chunks, edge, cloud)| {
            let nowhere = edge.iter().all(|&r| r == 0.0) || policy == Policy::AllCloud;
            let cloud = if nowhere && cloud == 0.0 { 0.4 } else { cloud };
            job(arrival, chunks, edge, cloud)
        })
}

/// A policy and 1..6 jobs with non-decreasing arrivals in 0..8.
fn arb_jobs() -> impl Strategy<Value = (Vec<PreemptJob>, Policy)> {
    arb_policy().prop_flat_map(|policy| {
        let one = (0u32..8).prop_flat_map(move |a| arb_job(a, policy));
        proptest::collection::vec(one, 1..6).prop_map(move |mut v| {
            v.sort_by_key(|j| j.arrival);
            (v, policy)
        })
    })
}

fn arb_policy() -> impl Strategy<Value = Policy> {
    prop_oneof![
        Just(Policy::Greedy),
        Just(Policy::AllCloud),
        Just(Policy::EdgeFifo),
        Just(Policy::Random)
    ]
}

/// Runs the closed world, and the same jobs submitted one by one at their arrival.
fn closed_and_submitted(
    jobs: Vec<PreemptJob>,
    policy: Policy,
) -> ((Vec<PreemptDecision>, u64), (Vec<PreemptDecision>, u64)) {
    let order = crate::driver::arrival_order(jobs.iter().map(|j| j.arrival));
    let mut closed = Driver::new(PreemptScheduler::new(&scn(jobs.clone()), policy).unwrap());
    let (mut sink, mut a) = (VecSink::new(), Vec::new());
    closed
        .run(&order, &mut sink, &mut |d: &PreemptDecision| a.push(*d))
        .unwrap();
    let ha = sink.hash().value();

    let mut open = Driver::new(PreemptScheduler::new(&scn(vec![]), policy).unwrap());
    let (mut sink, mut b) = (VecSink::new(), Vec::new());
    let mut next = 0usize;
    let mut t = Some(0);
    while let Some(now) = t {
        while let Some(j) = jobs.get(next).filter(|j| j.arrival <= now) {
            let i = open.scheduler_mut().submit(j.clone()).unwrap();
            open.on_event(
                now,
                Event::JobArrived(i),
                &mut sink,
                &mut |d: &PreemptDecision| b.push(*d),
            )
            .unwrap();
            next += 1;
        }
        open.on_event(
            now,
            Event::SlotAdvanced,
            &mut sink,
            &mut |d: &PreemptDecision| b.push(*d),
        )
        .unwrap();
        let wake = open.scheduler().next_wakeup(Some(now));
        let arr = jobs.get(next).map(|j| j.arrival);
        t = match (wake, arr) {
            (Some(w), Some(a)) => Some(w.min(a)),
            (w, a) => w.or(a),
        };
    }
    open.finish(&mut sink, &mut |_: &PreemptDecision| {})
        .unwrap();
    ((a, ha), (b, sink.hash().value()))
}

/// One open-world event of a random sequence (indices may be out of range: refused).
#[derive(Clone, Debug)]
enum Ev {
    Cancel(u32),
    Down(u32),
    Up(u32),
    Capacity(u32, f64, f64),
}

fn arb_ev() -> impl Strategy<Value = (Slot, Ev)> {
    let ev = prop_oneof![
        (0u32..7).prop_map(Ev::Cancel),
        (0u32..4).prop_map(Ev::Down),
        (0u32..4).prop_map(Ev::Up),
        (0u32..3, -0.5f64..3.5, -0.5f64..2.5).prop_map(|(h, w, p)| Ev::Capacity(h, w, p)),
    ];
    (0u32..14, ev)
}

/// What the test itself knows of the world in force (independent of the scheduler).
struct Truth {
    down: [bool; 2],
    cap: [(u32, u32); 2],
    ended_at: Vec<Option<Slot>>,
}

/// Runs jobs + events (sorted by slot) to the end, checking the invariants slot by slot;
/// returns the log hash.
fn run_open(jobs: &[PreemptJob], evs: &[(Slot, Ev)], policy: Policy) -> u64 {
    let mut d = Driver::new(PreemptScheduler::new(&scn(jobs.to_vec()), policy).unwrap());
    let mut sink = VecSink::new();
    let mut truth = Truth {
        down: [false; 2],
        cap: [(2, 1), (1, 1)],
        ended_at: vec![None; jobs.len()],
    };
    let mut cancelled = vec![false; jobs.len()];
    let mut t = 0;
    let mut k = 0;
    let last_ev = evs.last().map_or(0, |e| e.0);
    loop {
        for (j, job) in jobs.iter().enumerate() {
            if job.arrival == t {
                d.on_event(
                    t,
                    Event::JobArrived(j as u32),
                    &mut sink,
                    &mut |_: &PreemptDecision| {},
                )
                .unwrap();
            }
        }
        while let Some((_, ev)) = evs.get(k).filter(|e| e.0 == t) {
            k += 1;
            let event = match *ev {
                Ev::Cancel(j) => Event::JobCancelled(j),
                Ev::Down(h) => Event::ServerDown(h),
                Ev::Up(h) => Event::ServerUp(h),
                Ev::Capacity(h, w, p) => Event::Capacity(h, cap(w, p)),
            };
            let before = dump(d.scheduler());
            match d.on_event(t, event, &mut sink, &mut |_: &PreemptDecision| {}) {
                Ok(()) => match *ev {
                    Ev::Cancel(j) => cancelled[j as usize] = true,
                    Ev::Down(h) => truth.down[h as usize] = true,
                    Ev::Up(h) => truth.down[h as usize] = false,
                    Ev::Capacity(h, w, p) => {
                        let c = &mut truth.cap[h as usize];
                        *c = (
                            (w.floor() as u32).min(if h == 0 { 2 } else { 1 }),
                            (p.floor() as u32).min(1),
                        );
                    }
                },
                Err(crate::driver::DriverError::Refused(PreemptError::OpenWorld(_))) => {
                    assert_eq!(
                        dump(d.scheduler()),
                        before,
                        "refused {ev:?} changed the state"
                    );
                }
                Err(e) => panic!("{ev:?}: {e:?}"),
            }
        }
        for j in 0..jobs.len() as u32 {
            let st = d.scheduler().status(j).unwrap();
            if matches!(st, Status::Cancelled | Status::Lost)
                && truth.ended_at[j as usize].is_none()
            {
                truth.ended_at[j as usize] = Some(t);
            }
        }
        let mut ps = Vec::new();
        d.on_event(
            t,
            Event::SlotAdvanced,
            &mut sink,
            &mut |x: &PreemptDecision| ps.push(*x),
        )
        .unwrap();
        check_slot(d.scheduler(), t, &truth, &ps);
        match d.scheduler().next_wakeup(Some(t)) {
            Some(n) => t = n,
            None if t < last_ev => t += 1,
            None => break,
        }
    }
    d.finish(&mut sink, &mut |_: &PreemptDecision| {}).unwrap();
    for (j, &c) in cancelled.iter().enumerate() {
        let st = d.scheduler().status(j as u32).unwrap();
        assert_eq!(c, st == Status::Cancelled, "job {j}: {st:?}");
        // A run to its end leaves nothing unfinished but jobs that never could start.
        assert_ne!(st, Status::Unfinished, "job {j}");
    }
    sink.hash().value()
}

/// What ran in slot t respects the world in force at t.
fn check_slot(s: &PreemptScheduler, t: Slot, truth: &Truth, ps: &[PreemptDecision]) {
    let run = running(s, t);
    for (h, base, n) in [(0usize, 0usize, 2usize), (1, 2, 1)] {
        let busy = run[base..base + n].iter().flatten().count() as u32;
        if truth.down[h] {
            assert_eq!(busy, 0, "server {h} down at {t}");
        }
        assert!(busy <= truth.cap[h].0, "server {h} over capacity at {t}");
    }
    for c in run.iter().flatten() {
        let j = s.job_of(*c) as usize;
        assert!(truth.ended_at[j].is_none(), "ended job {j} runs at {t}");
    }
    for (j, e) in truth.ended_at.iter().enumerate() {
        if e.is_some() {
            let (a, b) = s.cloud_window[j];
            assert!(!(a <= t && t < b), "ended job {j} on the cloud at {t}");
        }
    }
    for d in ps {
        if let PreemptDecision::Ps(p) = d {
            let h = p.server as usize;
            if h < 2 {
                assert!(
                    !truth.down[h] && p.ps < truth.cap[h].1,
                    "PS of server {h} at {t}"
                );
            }
            assert!(
                truth.ended_at[p.job as usize].is_none(),
                "ended job {} has a PS",
                p.job
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn submission_is_arrival((jobs, policy) in arb_jobs()) {
        let (closed, open) = closed_and_submitted(jobs, policy);
        prop_assert_eq!(closed.1, open.1);
        prop_assert_eq!(closed.0, open.0);
    }

    #[test]
    fn random_event_sequences_keep_the_world_in_force(
        (jobs, policy) in arb_jobs(),
        mut evs in proptest::collection::vec(arb_ev(), 0..10),
    ) {
        evs.sort_by_key(|e| e.0);
        let a = run_open(&jobs, &evs, policy);
        let b = run_open(&jobs, &evs, policy);
        prop_assert_eq!(a, b);
    }
}
