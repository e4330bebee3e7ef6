//! Tests of the open world of kind route (`super::world`, `super::submit`): each rule on a
//! small star topology, bad events refused with the state unchanged, "submission is arrival"
//! and random event sequences (capacity in force never exceeded, nothing after a cancel, one
//! status per job, deterministic).
use super::records::{OUTCOME_CANCELLED, OUTCOME_LOST, OUTCOME_RECOVERED};
use super::{Policy, RouteDecision, RouteError, RouteScheduler, NONE};
use crate::api::{Event, Scheduler};
use crate::driver::Driver;
use crate::log::{HashSink, LogSink};
use crate::model::route::{Link, Node, NodeKind, PsoParams, RouteJob, RouteScenario, Topology};
use crate::resources::ResourceVec;
use crate::rng::SplitMix64;
use crate::world::{OpenWorldError, Status};
use alloc::format;
use alloc::vec::Vec;
use proptest::prelude::*;

const POLICIES: [Policy; 6] = [
    Policy::Csrp,
    Policy::Fifo,
    Policy::Fair,
    Policy::Capacity,
    Policy::Deadline,
    Policy::DeadlinePreemptive,
];

/// A star: switch 0, PS nodes 1 and 2, compute nodes 3.. with `slots` each.
fn star(computes: u32, slots: u32) -> Topology {
    let mut nodes = alloc::vec![
        Node {
            kind: NodeKind::Switch,
            slots: 0
        },
        Node {
            kind: NodeKind::Ps,
            slots: 0
        },
        Node {
            kind: NodeKind::Ps,
            slots: 0
        },
    ];
    let mut links = Vec::new();
    for v in 1..3 + computes {
        if v >= 3 {
            nodes.push(Node {
                kind: NodeKind::Compute,
                slots,
            });
        }
        links.push(Link {
            a: 0,
            b: v,
            capacity: 10.0,
            used: 0.5 * (v % 3) as f64,
        });
    }
    Topology { nodes, links }
}

fn scenario(seed: u64, aggregate: bool, topology: Topology, jobs: Vec<RouteJob>) -> RouteScenario {
    RouteScenario {
        seed,
        aggregate,
        topology,
        jobs,
        pso: PsoParams {
            particles: 4,
            iterations: 3,
            ..PsoParams::default()
        },
        load_factor: 3.0,
        beta: 4.0,
    }
}

fn job(ps: u32, workers: u32, release: u32, duration: u32) -> RouteJob {
    RouteJob {
        ps,
        workers,
        release,
        duration,
        deadline: release + duration + 2,
        bandwidth: 1.0,
    }
}

/// Random jobs on `star(computes, slots)`, sorted by release (stable), so the arrival order
/// is the index order.
fn random_jobs(rng: &mut SplitMix64, n: usize, reach: u32) -> Vec<RouteJob> {
    let mut v: Vec<RouteJob> = (0..n)
        .map(|_| {
            let release = rng.below(6) as u32;
            let duration = 1 + rng.below(4) as u32;
            RouteJob {
                ps: 1 + rng.below(2) as u32,
                workers: 1 + rng.below(reach.min(3) as u64) as u32,
                release,
                duration,
                deadline: release + duration + rng.below(4) as u32,
                bandwidth: rng.range_f64(0.2, 3.0),
            }
        })
        .collect();
    v.sort_by_key(|j| j.release);
    v
}

/// Every record of one event (the driver logs them to `sink` too).
fn feed<S: LogSink>(
    d: &mut Driver<RouteScheduler>,
    t: u32,
    ev: Event<u32>,
    sink: &mut S,
    recs: &mut Vec<RouteDecision>,
) -> Result<(), RouteError> {
    d.on_event(t, ev, sink, &mut |r: &RouteDecision| recs.push(r.clone()))
        .map_err(|e| match e {
            crate::driver::DriverError::Scheduler(e) | crate::driver::DriverError::Refused(e) => e,
            crate::driver::DriverError::Log(e) => e.into(),
        })
}

/// An open-world host loop: at each time, the submissions / arrivals, then the open-world
/// events of that time, then `SlotAdvanced`; wakes at `next_wakeup` (the driver's rule).
/// `submit`: jobs are submitted at their release instead of listed. Returns the hash, the
/// records with the time of their event, the errors of refused events, the scheduler.
struct Run {
    hash: u64,
    recs: Vec<(u32, RouteDecision)>,
    refused: usize,
    sched: RouteScheduler,
}

fn host(
    s: &RouteScenario,
    policy: Policy,
    submit: bool,
    events: &[(u32, Event<u32>)],
) -> Result<Run, RouteError> {
    let mut base = s.clone();
    if submit {
        base.jobs.clear();
    }
    let mut d = Driver::new(RouteScheduler::new(&base, policy)?);
    let mut sink = HashSink::new();
    let mut recs = Vec::new();
    let mut out = Vec::new();
    let mut refused = 0usize;
    let mut next_job = 0usize;
    let mut next_ev = 0usize;
    let first = |nj: usize, ne: usize| {
        let a = s.jobs.get(nj).map(|j| j.release);
        let b = events.get(ne).map(|e| e.0);
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        }
    };
    let mut t = first(0, 0);
    while let Some(now) = t {
        while next_job < s.jobs.len() && s.jobs[next_job].release <= now {
            if submit {
                let idx = d.scheduler_mut().submit(s.jobs[next_job])?;
                assert_eq!(idx as usize, next_job);
            }
            feed(
                &mut d,
                now,
                Event::JobArrived(next_job as u32),
                &mut sink,
                &mut recs,
            )?;
            next_job += 1;
        }
        while next_ev < events.len() && events[next_ev].0 <= now {
            let ev = events[next_ev].1;
            let before = format!("{:?}", d.scheduler());
            match feed(&mut d, now, ev, &mut sink, &mut recs) {
                Ok(()) => {}
                Err(RouteError::OpenWorld(_)) | Err(RouteError::Capacity(_)) => {
                    refused += 1;
                    assert_eq!(
                        before,
                        format!("{:?}", d.scheduler()),
                        "refused event changed state"
                    );
                }
                Err(e) => return Err(e),
            }
            next_ev += 1;
        }
        feed(&mut d, now, Event::SlotAdvanced, &mut sink, &mut recs)?;
        out.extend(recs.drain(..).map(|r| (now, r)));
        let wake = d.scheduler().next_wakeup(Some(now)).map(|w| w.max(now + 1));
        let arr = first(next_job, next_ev).map(|a| a.max(now + 1));
        t = match (arr, wake) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        };
    }
    d.finish(&mut sink, &mut |r: &RouteDecision| recs.push(r.clone()))
        .map_err(|e| match e {
            crate::driver::DriverError::Scheduler(e) | crate::driver::DriverError::Refused(e) => e,
            crate::driver::DriverError::Log(e) => e.into(),
        })?;
    out.extend(recs.drain(..).map(|r| (u32::MAX, r)));
    Ok(Run {
        hash: sink.hash().value(),
        recs: out,
        refused,
        sched: d.into_inner(),
    })
}

fn cap(c: f64) -> ResourceVec {
    ResourceVec::from_slice(&[c]).unwrap()
}

fn interrupts(r: &Run) -> Vec<(u32, u32, u8, u32)> {
    r.recs
        .iter()
        .filter_map(|(_, d)| match d {
            RouteDecision::Interrupted(i) => Some((i.job, i.at, i.outcome, i.remaining)),
            _ => None,
        })
        .collect()
}

fn placed(r: &Run) -> Vec<(u32, u32, Vec<u32>)> {
    r.recs
        .iter()
        .filter_map(|(_, d)| match d {
            RouteDecision::Placed(p) => Some((p.job, p.start, p.nodes.to_vec())),
            _ => None,
        })
        .collect()
}

/// One compute node (3) of 2 slots, one more (4) of 2 slots.
fn small(jobs: Vec<RouteJob>) -> RouteScenario {
    scenario(7, false, star(2, 2), jobs)
}

#[test]
fn cancel_frees_the_slots_and_earns_nothing() {
    // Job 0 takes all 4 slots for 10 slots; job 1 waits; cancel 0 at 3: 1 starts at 3.
    let s = small(alloc::vec![job(1, 4, 0, 10), job(1, 2, 1, 2)]);
    for p in [Policy::Fifo, Policy::Deadline, Policy::Csrp] {
        let r = host(&s, p, false, &[(3, Event::JobCancelled(0))]).unwrap();
        assert_eq!(interrupts(&r), [(0, 3, OUTCOME_CANCELLED, 0)], "{p:?}");
        let pl = placed(&r);
        assert_eq!(pl[1].0, 1);
        assert!(pl[1].1 >= 3, "{p:?}: job 1 starts after 0 is cancelled");
        if p != Policy::Csrp {
            assert_eq!(pl[1].1, 3, "{p:?}: job 1 starts when 0 is cancelled");
        }
        assert_eq!(r.sched.status(0), Some(Status::Cancelled));
        assert_eq!(r.sched.status(1), Some(Status::Finished));
        assert_eq!(r.sched.status(2), None);
    }
}

#[test]
fn cancel_before_arrival_never_arrives_and_ended_jobs_are_refused() {
    let s = small(alloc::vec![job(1, 1, 0, 1), job(1, 1, 5, 1)]);
    let ev = [
        (2, Event::JobCancelled(1)),
        (3, Event::JobCancelled(0)),
        (3, Event::JobCancelled(1)),
        (3, Event::JobCancelled(9)),
    ];
    let r = host(&s, Policy::Fifo, false, &ev).unwrap();
    assert_eq!(r.refused, 3);
    assert_eq!(placed(&r).len(), 1);
    assert_eq!(r.sched.status(0), Some(Status::Finished));
    assert_eq!(r.sched.status(1), Some(Status::Cancelled));
}

#[test]
fn worker_down_recovers_csrp_with_the_rest_and_baselines_in_full() {
    // Job 0: 1 worker for 6 slots on node 3 (nearest by index); node 3 down at 2.
    let s = small(alloc::vec![job(1, 1, 0, 6)]);
    let r = host(&s, Policy::Fifo, false, &[(2, Event::ServerDown(3))]).unwrap();
    assert_eq!(interrupts(&r), [(0, 2, OUTCOME_RECOVERED, 6)]);
    let pl = placed(&r);
    assert_eq!(pl[1], (0, 2, alloc::vec![4]));
    assert_eq!(r.sched.status(0), Some(Status::Finished));
    let r = host(&s, Policy::Csrp, false, &[(2, Event::ServerDown(3))]).unwrap();
    let pl = placed(&r);
    if pl[0].2 == [3] && pl[0].1 < 2 {
        let rest = 6 - (2 - pl[0].1);
        assert_eq!(interrupts(&r), [(0, 2, OUTCOME_RECOVERED, rest)]);
        assert_ne!(pl[1].2, [3], "nothing on a down node");
        assert_eq!(r.sched.jobs[0].duration, rest);
    }
}

#[test]
fn ps_down_loses_a_started_job_and_holds_the_queue_until_up() {
    let s = small(alloc::vec![job(1, 1, 0, 6), job(1, 1, 3, 2)]);
    let ev = [(2, Event::ServerDown(1)), (5, Event::ServerUp(1))];
    let r = host(&s, Policy::Fifo, false, &ev).unwrap();
    assert_eq!(interrupts(&r), [(0, 2, OUTCOME_LOST, 0)]);
    assert_eq!(placed(&r)[1].0, 1);
    assert_eq!(placed(&r)[1].1, 5, "job 1 waits for its PS");
    assert_eq!(r.sched.status(0), Some(Status::Lost));
    assert_eq!(r.sched.status(1), Some(Status::Finished));
}

#[test]
fn a_ps_that_never_comes_back_leaves_the_job_unfinished() {
    let s = small(alloc::vec![job(2, 1, 3, 2)]);
    let r = host(&s, Policy::Csrp, false, &[(1, Event::ServerDown(2))]).unwrap();
    assert!(placed(&r).is_empty());
    assert_eq!(r.sched.status(0), Some(Status::Unfinished));
}

#[test]
fn capacity_cut_interrupts_the_most_recent_first() {
    // Jobs 0 (start 0) and 1 (start 1) each one worker on node 3 (2 slots) then node 4.
    let s = small(alloc::vec![job(1, 1, 0, 8), job(1, 1, 1, 8)]);
    let ev = [(3, Event::Capacity(3, cap(1.0)))];
    let r = host(&s, Policy::Fifo, false, &ev).unwrap();
    let pl = placed(&r);
    assert_eq!(pl[0], (0, 0, alloc::vec![3]));
    assert_eq!(pl[1], (1, 1, alloc::vec![3]));
    assert_eq!(interrupts(&r), [(1, 3, OUTCOME_RECOVERED, 8)]);
    assert_eq!(pl[2], (1, 3, alloc::vec![4]));
    // Back up to 2 and a third job fits on node 3 again.
    let s = small(alloc::vec![
        job(1, 1, 0, 8),
        job(1, 1, 1, 8),
        job(1, 1, 5, 1)
    ]);
    let ev = [
        (3, Event::Capacity(3, cap(1.0))),
        (4, Event::Capacity(4, cap(0.0))),
        (5, Event::Capacity(3, cap(2.9))),
    ];
    let r = host(&s, Policy::Fifo, false, &ev).unwrap();
    let pl = placed(&r);
    assert_eq!(pl.last().unwrap().2, [3]);
    assert_eq!(r.sched.ow.cap[3], 2, "whole slots");
}

#[test]
fn server_up_restores_the_capacity_in_force_before_down() {
    let s = small(alloc::vec![job(1, 3, 6, 1)]);
    let ev = [
        (0, Event::Capacity(3, cap(1.0))),
        (1, Event::ServerDown(3)),
        (2, Event::ServerUp(3)),
    ];
    let r = host(&s, Policy::Fifo, false, &ev).unwrap();
    let mut nodes = placed(&r)[0].2.clone();
    nodes.sort_unstable();
    assert_eq!(nodes, [3, 4, 4], "node 3 came back with 1 slot");
    // A capacity event while down sets the capacity it returns with.
    let ev = [
        (1, Event::ServerDown(3)),
        (2, Event::Capacity(3, cap(0.0))),
        (3, Event::ServerUp(3)),
    ];
    let s = small(alloc::vec![job(1, 2, 6, 1)]);
    let r = host(&s, Policy::Fifo, false, &ev).unwrap();
    assert_eq!(placed(&r)[0].2, [4, 4]);
}

#[test]
fn bad_events_are_refused_and_change_nothing() {
    let s = small(alloc::vec![job(1, 2, 0, 4), job(1, 1, 0, 1)]);
    for p in POLICIES {
        let mut d = Driver::new(RouteScheduler::new(&s, p).unwrap());
        let mut sink = HashSink::new();
        let mut recs = Vec::new();
        feed(&mut d, 0, Event::JobArrived(0), &mut sink, &mut recs).unwrap();
        feed(&mut d, 0, Event::JobArrived(1), &mut sink, &mut recs).unwrap();
        feed(&mut d, 0, Event::SlotAdvanced, &mut sink, &mut recs).unwrap();
        feed(&mut d, 1, Event::ServerDown(4), &mut sink, &mut recs).unwrap();
        feed(&mut d, 2, Event::SlotAdvanced, &mut sink, &mut recs).unwrap();
        // Job 1 ends here (finished, or cancelled now): a second cancel is refused.
        let _ = feed(&mut d, 2, Event::JobCancelled(1), &mut sink, &mut recs);
        let bad: [(Event<u32>, RouteError); 11] = [
            (
                Event::JobCancelled(7),
                OpenWorldError::UnknownJob { job: 7 }.into(),
            ),
            (
                Event::JobCancelled(1),
                OpenWorldError::JobEnded { job: 1 }.into(),
            ),
            (
                Event::ServerDown(0),
                OpenWorldError::UnknownServer { server: 0 }.into(),
            ),
            (
                Event::ServerDown(99),
                OpenWorldError::UnknownServer { server: 99 }.into(),
            ),
            (
                Event::ServerDown(4),
                OpenWorldError::ServerDown { server: 4 }.into(),
            ),
            (
                Event::ServerUp(3),
                OpenWorldError::ServerUp { server: 3 }.into(),
            ),
            (
                Event::ServerUp(0),
                OpenWorldError::UnknownServer { server: 0 }.into(),
            ),
            (
                Event::Capacity(3, ResourceVec::from_slice(&[1.0, 1.0]).unwrap()),
                OpenWorldError::CapacityLength {
                    server: 3,
                    expected: 1,
                    got: 2,
                }
                .into(),
            ),
            (
                Event::Capacity(3, cap(-1.0)),
                OpenWorldError::CapacityValue {
                    server: 3,
                    resource: 0,
                }
                .into(),
            ),
            (
                Event::Capacity(3, cap(f64::NAN)),
                OpenWorldError::CapacityValue {
                    server: 3,
                    resource: 0,
                }
                .into(),
            ),
            (
                Event::SlotAdvanced,
                RouteError::EventTime { job: NONE, now: 1 },
            ),
        ];
        let before = format!("{:?}", d.scheduler());
        for (ev, want) in bad {
            let at = if matches!(ev, Event::SlotAdvanced) {
                1
            } else {
                2
            };
            // The driver asserts its clock; the scheduler's own check is what is tested.
            let got = match ev {
                Event::SlotAdvanced => {
                    d.scheduler_mut()
                        .on_event(at, ev, &mut |_: &RouteDecision| {})
                }
                _ => feed(&mut d, at, ev, &mut sink, &mut recs),
            };
            let got = got.expect_err(&format!("{p:?} {ev:?} {:?}", d.scheduler().plans));
            assert_eq!(got, want, "{p:?} {ev:?}");
            assert_eq!(before, format!("{:?}", d.scheduler()), "{p:?} {ev:?}");
        }
        let big = cap(1e9);
        assert!(matches!(
            feed(&mut d, 2, Event::Capacity(3, big), &mut sink, &mut recs),
            Err(RouteError::Capacity(_))
        ));
        assert_eq!(before, format!("{:?}", d.scheduler()));
    }
}

#[test]
fn submit_refuses_what_the_build_refuses() {
    let s = small(Vec::new());
    let mut r = RouteScheduler::new(&s, Policy::Csrp).unwrap();
    let before = format!("{r:?}");
    assert_eq!(r.submit(job(0, 1, 0, 1)), Err(RouteError::BadPs { job: 0 }));
    assert_eq!(r.submit(job(9, 1, 0, 1)), Err(RouteError::BadPs { job: 0 }));
    assert!(matches!(
        r.submit(job(1, 5, 0, 1)),
        Err(RouteError::Unreachable { job: 0, .. })
    ));
    assert!(matches!(
        r.submit(job(1, 1000, 0, 1)),
        Err(RouteError::Capacity(_))
    ));
    assert_eq!(before, format!("{r:?}"));
    assert_eq!(r.submit(job(2, 4, 0, 1)), Ok(0));
    assert_eq!(r.submit(job(1, 1, 0, 1)), Ok(1));
    assert_eq!(r.release_order(), [0, 1]);
}

/// Compute-node capacity in force at each slot from the events (0 while down).
fn cap_at(
    s: &RouteScenario,
    events: &[(u32, Event<u32>)],
    refused: &[bool],
    v: u32,
    t: u32,
) -> u32 {
    let mut c = s.topology.nodes[v as usize].slots;
    let mut down = false;
    for ((at, ev), bad) in events.iter().zip(refused) {
        if *at > t || *bad {
            continue;
        }
        match ev {
            Event::ServerDown(h) if *h == v => down = true,
            Event::ServerUp(h) if *h == v => down = false,
            Event::Capacity(h, x) if *h == v => c = x.as_slice()[0].floor() as u32,
            _ => {}
        }
    }
    if down {
        0
    } else {
        c
    }
}

/// Which events of `events` `r` refused (by re-running with one prefix each would be slow:
/// a refused event is one the scheduler state says cannot apply, recomputed here).
fn refused_events(s: &RouteScenario, events: &[(u32, Event<u32>)]) -> Vec<bool> {
    let n = s.topology.nodes.len() as u32;
    let mut down = alloc::vec![false; n as usize];
    events
        .iter()
        .map(|(_, ev)| match ev {
            Event::ServerDown(h) if *h < n && *h != 0 && !down[*h as usize] => {
                down[*h as usize] = true;
                false
            }
            Event::ServerUp(h) if *h < n && *h != 0 && down[*h as usize] => {
                down[*h as usize] = false;
                false
            }
            Event::Capacity(h, _) => *h >= n || *h == 0,
            Event::JobCancelled(_) => false,
            _ => true,
        })
        .collect()
}

fn random_events(rng: &mut SplitMix64, n: usize, nodes: u32, jobs: u32) -> Vec<(u32, Event<u32>)> {
    let mut v: Vec<(u32, Event<u32>)> = (0..n)
        .map(|_| {
            let t = rng.below(12) as u32;
            let h = rng.below(nodes as u64 + 1) as u32;
            let ev = match rng.below(4) {
                0 => Event::JobCancelled(rng.below(jobs as u64 + 1) as u32),
                1 => Event::ServerDown(h),
                2 => Event::ServerUp(h),
                _ => Event::Capacity(h, cap(rng.below(4) as f64 + 0.5 * rng.below(2) as f64)),
            };
            (t, ev)
        })
        .collect();
    v.sort_by_key(|e| e.0);
    v
}

/// The invariants of one open-world run.
fn check_run(s: &RouteScenario, events: &[(u32, Event<u32>)], r: &Run) {
    let refused = refused_events(s, events);
    // Runs: (job, nodes, start, end), cut by interruptions and preemptions.
    let mut runs: Vec<(u32, Vec<u32>, u32, u32)> = Vec::new();
    let mut dur: Vec<u32> = s.jobs.iter().map(|j| j.duration).collect();
    let mut cancelled_at = alloc::vec![None; s.jobs.len()];
    for (_, d) in &r.recs {
        match d {
            RouteDecision::Placed(p) => {
                let j = p.job as usize;
                runs.push((p.job, p.nodes.to_vec(), p.start, p.start + dur[j]));
            }
            RouteDecision::Interrupted(i) => {
                if i.start != NONE {
                    let run = runs.iter_mut().rev().find(|x| x.0 == i.job).unwrap();
                    run.3 = i.at.max(run.2).min(run.3);
                }
                if i.outcome == OUTCOME_RECOVERED {
                    dur[i.job as usize] = i.remaining;
                }
                if i.outcome == OUTCOME_CANCELLED {
                    cancelled_at[i.job as usize] = Some(i.at);
                }
            }
            RouteDecision::Preempted(p) => {
                let run = runs.iter_mut().rev().find(|x| x.0 == p.job).unwrap();
                run.3 = p.at.max(run.2).min(run.3);
            }
            _ => {}
        }
    }
    let horizon = runs.iter().map(|x| x.3).max().unwrap_or(0);
    for v in 3..s.topology.nodes.len() as u32 {
        for t in 0..horizon {
            let used: u32 = runs
                .iter()
                .filter(|x| x.2 <= t && t < x.3)
                .map(|x| x.1.iter().filter(|&&n| n == v).count() as u32)
                .sum();
            let c = cap_at(s, events, &refused, v, t);
            assert!(used <= c, "node {v} slot {t}: {used} > {c}");
        }
    }
    for (j, c) in cancelled_at.iter().enumerate() {
        let st = r.sched.status(j as u32).unwrap();
        if let Some(c) = c {
            assert_eq!(st, Status::Cancelled);
            // No run of j covers a slot from its cancel on (a cut reservation is empty).
            assert!(runs
                .iter()
                .all(|x| x.0 as usize != j || x.3 <= *c || x.2 >= x.3));
        } else {
            assert_ne!(st, Status::Cancelled);
        }
    }
    assert_eq!(r.sched.status(s.jobs.len() as u32), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A scenario without jobs plus each job submitted at its release decides exactly as the
    /// closed-world scenario holding them (every policy but Capacity, whose shares depend on
    /// the whole job set: `docs/open-world.md`, "Kind route").
    #[test]
    fn submission_is_arrival(seed in any::<u64>(), computes in 1u32..4, slots in 1u32..3,
                             n in 0usize..7, pol in 0usize..6, aggregate in any::<bool>()) {
        let policy = POLICIES[pol];
        prop_assume!(policy != Policy::Capacity);
        let mut rng = SplitMix64::new(seed);
        let jobs = random_jobs(&mut rng, n, computes * slots);
        let s = scenario(seed, aggregate, star(computes, slots), jobs);
        let closed = host(&s, policy, false, &[]).unwrap();
        let open = host(&s, policy, true, &[]).unwrap();
        prop_assert_eq!(&closed.recs, &open.recs);
        prop_assert_eq!(closed.hash, open.hash);
        // And the host loop is the driver's run.
        let mut sink = HashSink::new();
        RouteScheduler::new(&s, policy).unwrap().run(&mut sink).unwrap();
        prop_assert_eq!(sink.hash().value(), closed.hash);
    }

    /// Random cancels, downs, ups and capacity changes: capacity in force never exceeded,
    /// nothing on a down node, nothing after a cancel, one status per job, bad events refused
    /// with nothing changed (checked in `host`), and the same run twice is the same log.
    #[test]
    fn random_open_world_events(seed in any::<u64>(), computes in 1u32..4, slots in 1u32..3,
                                n in 0usize..6, m in 0usize..8, pol in 0usize..6,
                                aggregate in any::<bool>()) {
        let policy = POLICIES[pol];
        let mut rng = SplitMix64::new(seed);
        let jobs = random_jobs(&mut rng, n, computes * slots);
        let nodes = 3 + computes;
        let events = random_events(&mut rng, m, nodes, n as u32);
        let s = scenario(seed, aggregate, star(computes, slots), jobs);
        let a = host(&s, policy, false, &events).unwrap();
        check_run(&s, &events, &a);
        let b = host(&s, policy, false, &events).unwrap();
        prop_assert_eq!(a.hash, b.hash);
        prop_assert_eq!(&a.recs, &b.recs);
        // The same with every job submitted at its release (a cancel naming a job not yet
        // submitted is refused, with nothing changed).
        let c = host(&s, policy, true, &events).unwrap();
        check_run(&s, &events, &c);
    }
}

#[test]
fn snapshots_are_refused_after_an_open_world_event() {
    use crate::snapshot::Snapshot;
    let s = small(alloc::vec![job(1, 1, 0, 4)]);
    let mut d = Driver::new(RouteScheduler::new(&s, Policy::Fifo).unwrap());
    let (mut sink, mut recs) = (HashSink::new(), Vec::new());
    feed(&mut d, 0, Event::JobArrived(0), &mut sink, &mut recs).unwrap();
    feed(&mut d, 0, Event::SlotAdvanced, &mut sink, &mut recs).unwrap();
    let bytes = d.scheduler().snapshot().unwrap();
    feed(&mut d, 1, Event::ServerDown(4), &mut sink, &mut recs).unwrap();
    assert!(d.scheduler().snapshot().is_err());
    assert!(d.scheduler_mut().restore_snapshot(&bytes).is_err());
}
