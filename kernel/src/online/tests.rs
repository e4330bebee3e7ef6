//! Unit tests of the Zhou et al. scheduler; the 1,000-instance fast-vs-literal property test and
//! the whole-run invariants live in `tests/tests/online_*.rs`.
use super::*;
use crate::model::online::{OnlineJob, TaskType};
use crate::ResourceVec;
use alloc::vec;
use alloc::vec::Vec;

fn tt(d: &[f64], bw: f64) -> TaskType {
    TaskType {
        demand: ResourceVec::from_slice(d).unwrap(),
        bw,
    }
}

fn scenario(arch: Architecture) -> OnlineScenario {
    let ring = arch == Architecture::Ring;
    let job = |arrival, weight| OnlineJob {
        arrival,
        weight,
        epochs: 2,
        chunks: 4,
        minibatches_per_chunk: 5,
        minibatch_time: vec![0.1, 0.05],
        update_time: if ring { vec![0.01] } else { vec![0.01, 0.02] },
        gradient_size: 0.05,
    };
    OnlineScenario {
        slots: 64,
        architecture: arch,
        resources: 2,
        servers: vec![ResourceVec::from_slice(&[4.0, 16.0]).unwrap(); 3],
        worker_types: vec![tt(&[1.0, 2.0], 1.0), tt(&[2.0, 4.0], 2.0)],
        ps_types: if ring {
            vec![]
        } else {
            vec![tt(&[0.0, 2.0], 4.0), tt(&[0.0, 4.0], 8.0)]
        },
        f: 2.0,
        alpha: 4,
        rounds_past_horizon: false,
        jobs: vec![job(0, 500.0), job(1, 800.0), job(3, 300.0)],
        throughput: None,
    }
}

fn run(scn: &OnlineScenario, mode: Search) -> Vec<OnlineJobDecision> {
    let mut v = Vec::new();
    run_scenario(scn, mode, &mut |d| v.push(d.clone())).unwrap();
    v
}

#[test]
fn fast_equals_reference_small() {
    for arch in [Architecture::Ps, Architecture::Ring] {
        let scn = scenario(arch);
        let a = run(&scn, Search::Fast);
        let b = run(&scn, Search::Reference);
        assert_eq!(a, b, "{arch:?}");
        assert!(a.iter().any(|d| d.scheduled), "{arch:?}: nothing scheduled");
    }
}

#[test]
fn empty_cluster_takes_first_enumerated_option() {
    // One job on an empty cluster: every cost is 0, so the first option of A_mincost2's
    // enumeration (m = 0, p = 0, the shortest L, t- = 1, h = 0) wins.
    let mut scn = scenario(Architecture::Ps);
    scn.jobs.truncate(1);
    let d = run(&scn, Search::Fast);
    let s = d.iter().find(|d| d.scheduled).unwrap();
    assert_eq!(
        (s.worker_type, s.ps_type, s.colocated, s.cost_fixed),
        (0, Some(0), true, 0)
    );
    assert_eq!(
        s.placement.as_slice(),
        &[Placed {
            server: 0,
            workers: s.workers,
            ps: 1
        }]
    );
    // L >= ceil(E K (v + U)) = 2 slots, so round 3 (tau = 4) is the first whose window fits:
    // start = alpha tau + t- = 16 + 1.
    assert_eq!((s.round, s.start), (3, 17));
}

#[test]
fn theoretical_alpha_is_reported() {
    let scn = scenario(Architecture::Ps);
    let a = theoretical_alpha(&scn).unwrap();
    // lambda = 2*64*3*2*2 + 1 = 1537, gamma = 2 log2(1537) ~ 21.17,
    // log2(gamma/(gamma-1)) ~ 0.0698, log2(1600/300) ~ 2.415 -> floor(34.6) + 1 = 35.
    assert_eq!(a, 35);
}

#[test]
fn bad_events_are_typed_errors() {
    use crate::api::{Event, Scheduler};
    let scn = scenario(Architecture::Ring);
    let mut s = OnlineScheduler::new(&scn, Search::Fast).unwrap();
    let mut sink = |_: &super::OnlineDecision<'_>| {};
    assert_eq!(
        s.on_event(0, Event::JobArrived(9), &mut sink),
        Err(OnlineError::UnknownJob { job: 9 })
    );
    s.on_event(1, Event::JobArrived(0), &mut sink).unwrap();
    assert_eq!(
        s.on_event(1, Event::JobArrived(0), &mut sink),
        Err(OnlineError::DuplicateArrival { job: 0 })
    );
    assert_eq!(
        s.on_event(0, Event::SlotAdvanced, &mut sink),
        Err(OnlineError::TimeWentBack { now: 0, last: 1 })
    );
}
