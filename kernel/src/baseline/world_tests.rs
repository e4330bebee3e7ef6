//! Open-world tests of the baselines ([`super::world`]): every rule on hand-made scenarios,
//! "submission is arrival" and random event sequences (proptest) for every policy of both
//! kinds.
use super::oasis::{OasisBaseline, OasisBaselineDecision};
use super::online::{OnlineBaseline, OnlineBaselineDecision};
use super::world::WorldRec;
use super::{BaselineError, Policy};
use crate::api::{Event, Scheduler};
use crate::model::oasis::{OasisJob, OasisScenario, Utility};
use crate::model::online::{Architecture, OnlineJob, OnlineScenario, TaskType};
use crate::world::{OpenWorldError, Status};
use crate::{ResourceVec, Slot};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use proptest::prelude::*;

fn rv(v: &[f64]) -> ResourceVec {
    ResourceVec::from_slice(v).unwrap()
}

/// A host event: a submission or a kernel event.
#[derive(Clone, Debug)]
enum Ev<J> {
    Submit(J),
    E(Event<u32>),
}

/// Feeds `evs` (sorted by slot) the way [`crate::driver::Driver::run`] feeds arrivals: at each
/// slot the events due, then `SlotAdvanced`; the next slot is the next event or wake-up.
/// Returns the decisions and, per event, whether it was refused.
macro_rules! drive {
    ($s:expr, $evs:expr, $D:ty) => {{
        let s = $s;
        let evs = $evs;
        let mut v: Vec<$D> = Vec::new();
        let mut refused = Vec::new();
        let mut next = 0usize;
        let mut t = min_opt(evs.first().map(|e: &(Slot, _)| e.0), s.next_wakeup(None));
        while let Some(now) = t {
            while let Some((_, ev)) = evs.get(next).filter(|e| e.0 <= now) {
                let r = match ev {
                    Ev::Submit(job) => s.submit(job.clone()).and_then(|j| {
                        s.on_event(now, Event::JobArrived(j), &mut |d: &$D| v.push(*d))
                    }),
                    Ev::E(e) => {
                        let before = format!("{:?}", s);
                        let r = s.on_event(now, *e, &mut |d: &$D| v.push(*d));
                        if r.is_err() {
                            assert_eq!(before, format!("{:?}", s), "a refused event changed state");
                        }
                        r
                    }
                };
                refused.push(r.is_err());
                next += 1;
            }
            s.on_event(now, Event::SlotAdvanced, &mut |d: &$D| v.push(*d))
                .unwrap();
            let wake = s.next_wakeup(Some(now)).map(|w| w.max(now + 1));
            t = min_opt(evs.get(next).map(|e| e.0.max(now)), wake);
            if t == Some(now) {
                break;
            }
        }
        s.finish(&mut |d: &$D| v.push(*d)).unwrap();
        (v, refused)
    }};
}

fn min_opt(a: Option<Slot>, b: Option<Slot>) -> Option<Slot> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

fn oasis_job(arrival: Slot, epochs: u32, chunks: u32) -> OasisJob {
    OasisJob {
        arrival,
        epochs,
        chunks,
        minibatches_per_chunk: 1,
        minibatch_time: 0.5,
        comm_time: 0.0,
        worker_bw: 1.0,
        ps_bw: 2.0,
        worker_demand: rv(&[1.0]),
        ps_demand: rv(&[1.0]),
        utility: Utility::Table(vec![10.0, 6.0, 1.0]),
    }
}

fn oasis_scn(workers: usize, jobs: Vec<OasisJob>) -> OasisScenario {
    OasisScenario {
        slots: 12,
        resources: 1,
        worker_servers: vec![rv(&[4.0]); workers],
        ps_servers: vec![rv(&[4.0]); 2],
        prices: None,
        jobs,
        throughput: None,
    }
}

fn tt(d: &[f64], bw: f64) -> TaskType {
    TaskType { demand: rv(d), bw }
}

fn online_job(arrival: Slot, epochs: u32, chunks: u32, weight: f64) -> OnlineJob {
    OnlineJob {
        arrival,
        weight,
        epochs,
        chunks,
        minibatches_per_chunk: 5,
        minibatch_time: vec![0.1, 0.05],
        update_time: vec![0.01, 0.02],
        gradient_size: 0.05,
    }
}

fn online_scn(servers: usize, jobs: Vec<OnlineJob>) -> OnlineScenario {
    OnlineScenario {
        slots: 16,
        architecture: Architecture::Ps,
        resources: 2,
        servers: vec![rv(&[4.0, 16.0]); servers],
        worker_types: vec![tt(&[1.0, 2.0], 1.0), tt(&[2.0, 4.0], 2.0)],
        ps_types: vec![tt(&[0.0, 2.0], 4.0), tt(&[0.0, 4.0], 8.0)],
        f: 2.0,
        alpha: 4,
        rounds_past_horizon: false,
        jobs,
        throughput: None,
    }
}

/// Closed-world decisions of a scenario (the driver's run).
fn oasis_closed(p: Policy, scn: &OasisScenario) -> Vec<OasisBaselineDecision> {
    let mut s = OasisBaseline::new(p, scn).unwrap();
    let arr = crate::driver::arrival_order(scn.jobs.iter().map(|j| j.arrival));
    let mut v = Vec::new();
    let mut log = crate::log::VecSink::default();
    crate::driver::Driver::new(&mut s)
        .run(&arr, &mut log, &mut |d: &OasisBaselineDecision| v.push(*d))
        .unwrap();
    v
}

fn online_closed(p: Policy, scn: &OnlineScenario) -> Vec<OnlineBaselineDecision> {
    let mut s = OnlineBaseline::new(p, scn).unwrap();
    let mut v = Vec::new();
    let mut log = crate::log::VecSink::default();
    s.run_outputs(&mut log, &mut |d: &OnlineBaselineDecision| v.push(*d))
        .unwrap();
    v
}

fn arb_oasis_jobs() -> impl Strategy<Value = Vec<OasisJob>> {
    prop::collection::vec((0u32..6, 1u32..3, 1u32..6), 0..6).prop_map(|v| {
        let mut jobs: Vec<OasisJob> = v.into_iter().map(|(a, e, c)| oasis_job(a, e, c)).collect();
        jobs.sort_by_key(|j| j.arrival);
        jobs
    })
}

fn arb_online_jobs() -> impl Strategy<Value = Vec<OnlineJob>> {
    prop::collection::vec((0u32..6, 1u32..3, 1u32..6, 1u32..9), 0..6).prop_map(|v| {
        let mut jobs: Vec<OnlineJob> = v
            .into_iter()
            .map(|(a, e, c, w)| online_job(a, e, c, w as f64 * 100.0))
            .collect();
        jobs.sort_by_key(|j| j.arrival);
        jobs
    })
}

/// Random open-world events (slot, kind, job or server, capacity) over `servers` servers.
fn arb_events(servers: u32) -> impl Strategy<Value = Vec<(Slot, u8, u32, f64)>> {
    prop::collection::vec((0u32..14, 0u8..4, 0u32..servers + 1, 0u32..6), 0..6).prop_map(|v| {
        let mut e: Vec<(Slot, u8, u32, f64)> = v
            .into_iter()
            .map(|(t, k, x, c)| (t, k, x, c as f64))
            .collect();
        e.sort_by_key(|x| x.0);
        e
    })
}

/// The host's events: submissions at the jobs' arrivals, then the random events, by slot.
fn host_events<J: Clone>(
    jobs: &[J],
    arrival: impl Fn(&J) -> Slot,
    raw: &[(Slot, u8, u32, f64)],
    resources: usize,
) -> Vec<(Slot, Ev<J>)> {
    let mut evs: Vec<(Slot, Ev<J>)> = jobs
        .iter()
        .map(|j| (arrival(j), Ev::Submit(j.clone())))
        .collect();
    for &(t, k, x, c) in raw {
        let e = match k {
            0 => Event::JobCancelled(x),
            1 => Event::ServerDown(x),
            2 => Event::ServerUp(x),
            _ => Event::Capacity(x, ResourceVec::from_slice(&vec![c; resources]).unwrap()),
        };
        evs.push((t, Ev::E(e)));
    }
    evs.sort_by_key(|e| e.0);
    evs
}

/// Capacity in force per server and slot, as the host sees the accepted events.
fn caps_in_force<J>(
    evs: &[(Slot, Ev<J>)],
    refused: &[bool],
    init: &[ResourceVec],
    slots: Slot,
) -> Vec<Vec<ResourceVec>> {
    let zero = ResourceVec::zeros(init[0].len()).unwrap();
    let (mut cap, mut down) = (init.to_vec(), vec![false; init.len()]);
    let mut out = Vec::new();
    let mut k = 0;
    for t in 0..slots {
        while k < evs.len() && evs[k].0 <= t {
            if !refused[k] {
                match &evs[k].1 {
                    Ev::E(Event::ServerDown(h)) => down[*h as usize] = true,
                    Ev::E(Event::ServerUp(h)) => down[*h as usize] = false,
                    Ev::E(Event::Capacity(h, c)) => cap[*h as usize] = *c,
                    _ => {}
                }
            }
            k += 1;
        }
        out.push(
            (0..cap.len())
                .map(|h| if down[h] { zero } else { cap[h] })
                .collect(),
        );
    }
    out
}

/// Accepted cancels: job -> slot.
fn cancels<J>(evs: &[(Slot, Ev<J>)], refused: &[bool]) -> Vec<(u32, Slot)> {
    evs.iter()
        .zip(refused)
        .filter_map(|((t, e), r)| match e {
            Ev::E(Event::JobCancelled(j)) if !r => Some((*j, *t)),
            _ => None,
        })
        .collect()
}

fn fits(used: &[f64], cap: &ResourceVec) -> bool {
    used.iter()
        .enumerate()
        .all(|(r, u)| *u <= cap.get(r) + 1e-9)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn oasis_submission_is_arrival(jobs in arb_oasis_jobs(), p in 0usize..7) {
        let policy = Policy::OASIS[p];
        let closed = oasis_closed(policy, &oasis_scn(2, jobs.clone()));
        let empty = oasis_scn(2, Vec::new());
        let mut s = OasisBaseline::new(policy, &empty).unwrap();
        let evs = host_events(&jobs, |j| j.arrival, &[], 1);
        let (open, _) = drive!(&mut s, &evs, OasisBaselineDecision);
        prop_assert_eq!(closed, open);
    }

    #[test]
    fn online_submission_is_arrival(jobs in arb_online_jobs(), p in 0usize..5) {
        let policy = Policy::ONLINE[p];
        let closed = online_closed(policy, &online_scn(2, jobs.clone()));
        let empty = online_scn(2, Vec::new());
        let mut s = OnlineBaseline::new(policy, &empty).unwrap();
        let evs = host_events(&jobs, |j| j.arrival, &[], 2);
        let (open, _) = drive!(&mut s, &evs, OnlineBaselineDecision);
        prop_assert_eq!(closed, open);
    }

    #[test]
    fn oasis_random_events(jobs in arb_oasis_jobs(), raw in arb_events(4), p in 0usize..7) {
        let policy = Policy::OASIS[p];
        let scn = oasis_scn(2, Vec::new());
        let evs = host_events(&jobs, |j| j.arrival, &raw, 1);
        let mut s = OasisBaseline::new(policy, &scn).unwrap();
        let (v, refused) = drive!(&mut s, &evs, OasisBaselineDecision);
        let mut s2 = OasisBaseline::new(policy, &scn).unwrap();
        let (v2, _) = drive!(&mut s2, &evs, OasisBaselineDecision);
        prop_assert_eq!(&v, &v2);
        let servers: Vec<ResourceVec> = scn.worker_servers.iter().chain(&scn.ps_servers).copied().collect();
        let caps = caps_in_force(&evs, &refused, &servers, scn.slots);
        let mut used = vec![vec![0.0f64; servers.len()]; scn.slots as usize];
        let cancelled = cancels(&evs, &refused);
        for d in &v {
            if let OasisBaselineDecision::Unit(u) = d {
                let h = if u.ps { 2 + u.server } else { u.server } as usize;
                used[u.slot as usize][h] += 1.0;
                prop_assert!(!cancelled.iter().any(|&(j, t)| j == u.job && u.slot >= t));
            }
        }
        for t in 0..scn.slots as usize {
            for h in 0..servers.len() {
                prop_assert!(fits(&[used[t][h]], &caps[t][h]), "slot {} server {}", t, h);
            }
        }
        let n = jobs.len() as u32;
        prop_assert!(s.status(n).is_none());
        for j in 0..n {
            let st = s.status(j).unwrap();
            prop_assert_eq!(st == Status::Cancelled, cancelled.iter().any(|c| c.0 == j));
        }
    }

    #[test]
    fn online_random_events(jobs in arb_online_jobs(), raw in arb_events(2), p in 0usize..5) {
        let policy = Policy::ONLINE[p];
        let scn = online_scn(2, Vec::new());
        let evs = host_events(&jobs, |j| j.arrival, &raw, 2);
        let mut s = OnlineBaseline::new(policy, &scn).unwrap();
        let (v, refused) = drive!(&mut s, &evs, OnlineBaselineDecision);
        let mut s2 = OnlineBaseline::new(policy, &scn).unwrap();
        let (v2, _) = drive!(&mut s2, &evs, OnlineBaselineDecision);
        prop_assert_eq!(&v, &v2);
        let caps = caps_in_force(&evs, &refused, &scn.servers, scn.slots);
        let cancelled = cancels(&evs, &refused);
        // Runs as [job, server, workers, ps, from, to), ended by cuts.
        let mut runs: Vec<[u32; 6]> = Vec::new();
        for d in &v {
            match d {
                OnlineBaselineDecision::Placed(p) => {
                    prop_assert!(!cancelled.iter().any(|&(j, t)| j == p.job && p.slot >= t));
                    runs.push([p.job, p.server, p.workers, p.ps, p.slot, u32::MAX]);
                }
                OnlineBaselineDecision::Start(r) => {
                    for x in runs.iter_mut().filter(|x| x[0] == r.job && x[4] == r.slot) {
                        x[5] = r.slot + r.duration;
                    }
                }
                OnlineBaselineDecision::Preempted(c) => {
                    for x in runs.iter_mut().filter(|x| x[0] == c.job && x[4] == c.start && x[5] > c.slot) {
                        x[5] = c.slot;
                    }
                }
            }
        }
        for t in 0..scn.slots {
            for h in 0..scn.servers.len() as u32 {
                let mut used = [0.0f64; 2];
                for x in runs.iter().filter(|x| x[1] == h && x[4] <= t && t < x[5]) {
                    let st = s.jobs()[x[0] as usize];
                    let w = scn.worker_types[st.worker_type as usize].demand;
                    let z = st.ps_type.map_or(ResourceVec::zeros(2).unwrap(), |p| scn.ps_types[p as usize].demand);
                    for (r, u) in used.iter_mut().enumerate() {
                        *u += w.get(r) * x[2] as f64 + z.get(r) * x[3] as f64;
                    }
                }
                prop_assert!(fits(&used, &caps[t as usize][h as usize]), "slot {} server {}", t, h);
            }
        }
        let n = jobs.len() as u32;
        prop_assert!(s.status(n).is_none());
        for j in 0..n {
            let st = s.status(j).unwrap();
            prop_assert_eq!(st == Status::Cancelled, cancelled.iter().any(|c| c.0 == j));
        }
    }
}

fn bad_events(servers: u32, resources: usize, finished: u32) -> Vec<(Event<u32>, OpenWorldError)> {
    let c = |v: &[f64]| Event::Capacity(0, rv(v));
    let mut ok = vec![1.0; resources];
    let short = &ok[..resources - 1].to_vec();
    ok[resources - 1] = -1.0;
    let neg = ok.clone();
    ok[resources - 1] = f64::NAN;
    let nan = ok.clone();
    ok[resources - 1] = f64::INFINITY;
    let inf = ok;
    vec![
        (
            Event::JobCancelled(99),
            OpenWorldError::UnknownJob { job: 99 },
        ),
        (
            Event::JobCancelled(finished),
            OpenWorldError::JobEnded { job: finished },
        ),
        (
            Event::ServerDown(servers),
            OpenWorldError::UnknownServer { server: servers },
        ),
        (
            Event::ServerUp(servers),
            OpenWorldError::UnknownServer { server: servers },
        ),
        (Event::ServerUp(0), OpenWorldError::ServerUp { server: 0 }),
        (
            Event::Capacity(servers, rv(&vec![1.0; resources])),
            OpenWorldError::UnknownServer { server: servers },
        ),
        (
            c(short),
            OpenWorldError::CapacityLength {
                server: 0,
                expected: resources as u8,
                got: resources as u8 - 1,
            },
        ),
        (
            c(&neg),
            OpenWorldError::CapacityValue {
                server: 0,
                resource: resources as u8 - 1,
            },
        ),
        (
            c(&nan),
            OpenWorldError::CapacityValue {
                server: 0,
                resource: resources as u8 - 1,
            },
        ),
        (
            c(&inf),
            OpenWorldError::CapacityValue {
                server: 0,
                resource: resources as u8 - 1,
            },
        ),
    ]
}

/// Runs slots from..=t (arrivals included) of a scheduler built on a closed scenario.
macro_rules! run_to {
    ($s:expr, $arrivals:expr, $from:expr, $t:expr, $D:ty) => {{
        let mut v: Vec<$D> = Vec::new();
        for now in $from..=$t {
            for &(a, j) in $arrivals.iter() {
                if a == now {
                    $s.on_event(now, Event::JobArrived(j), &mut |d: &$D| v.push(*d))
                        .unwrap();
                }
            }
            $s.on_event(now, Event::SlotAdvanced, &mut |d: &$D| v.push(*d))
                .unwrap();
        }
        v
    }};
}

#[test]
fn bad_events_are_refused_and_change_nothing() {
    for p in Policy::OASIS {
        // Job 0 (1 chunk) finishes in slot 0; job 1 (long) runs on.
        let scn = oasis_scn(2, vec![oasis_job(0, 1, 1), oasis_job(0, 3, 5)]);
        let mut s = OasisBaseline::new(p, &scn).unwrap();
        let arr = [(0, 0), (0, 1)];
        run_to!(s, arr, 0, 1, OasisBaselineDecision);
        assert_eq!(s.status(0), Some(Status::Finished), "{p:?}");
        let mut bad = bad_events(4, 1, 0);
        bad.push((
            Event::ServerDown(1),
            OpenWorldError::ServerDown { server: 1 },
        ));
        s.on_event(2, Event::ServerDown(1), &mut |_: &OasisBaselineDecision| {})
            .unwrap();
        for (e, want) in bad {
            let before = format!("{s:?}");
            let r = s.on_event(2, e, &mut |_: &OasisBaselineDecision| panic!("decided"));
            assert_eq!(r, Err(BaselineError::OpenWorld(want)), "{p:?} {e:?}");
            assert_eq!(before, format!("{s:?}"), "{p:?} {e:?}");
        }
    }
    for p in Policy::ONLINE {
        let scn = online_scn(
            2,
            vec![online_job(0, 1, 1, 100.0), online_job(0, 2, 4, 100.0)],
        );
        let mut s = OnlineBaseline::new(p, &scn).unwrap();
        let arr = [(0, 0), (0, 1)];
        run_to!(s, arr, 0, 12, OnlineBaselineDecision);
        let done = (0..2)
            .find(|&j| s.status(j) == Some(Status::Finished))
            .unwrap();
        let mut bad = bad_events(2, 2, done);
        bad.push((
            Event::ServerDown(1),
            OpenWorldError::ServerDown { server: 1 },
        ));
        s.on_event(
            13,
            Event::ServerDown(1),
            &mut |_: &OnlineBaselineDecision| {},
        )
        .unwrap();
        for (e, want) in bad {
            let before = format!("{s:?}");
            let r = s.on_event(13, e, &mut |_: &OnlineBaselineDecision| panic!("decided"));
            assert_eq!(r, Err(BaselineError::OpenWorld(want)), "{p:?} {e:?}");
            assert_eq!(before, format!("{s:?}"), "{p:?} {e:?}");
        }
    }
}

fn world_recs_oasis(v: &[OasisBaselineDecision]) -> Vec<WorldRec> {
    v.iter()
        .filter_map(|d| match d {
            OasisBaselineDecision::Slot(r) => r.world,
            _ => None,
        })
        .collect()
}

fn world_recs_online(v: &[OnlineBaselineDecision]) -> Vec<WorldRec> {
    v.iter()
        .filter_map(|d| match d {
            OnlineBaselineDecision::Preempted(r) => r.world,
            _ => None,
        })
        .collect()
}

#[test]
fn oasis_cancel_down_capacity_up() {
    // FIFO, 4 workers per job round-robin on two 4-worker servers: both jobs hold both.
    let scn = oasis_scn(2, vec![oasis_job(0, 20, 4), oasis_job(0, 20, 4)]);
    let mut s = OasisBaseline::new(Policy::Fifo, &scn)
        .unwrap()
        .with_restart(crate::restart::RestartCost::slots(0.5).unwrap());
    let arr = [(0, 0), (0, 1)];
    run_to!(s, arr, 0, 1, OasisBaselineDecision);
    // Server 1 down at 2: both are interrupted (job 1 first: same start, higher index);
    // job 0 runs on server 0 alone, nothing runs on server 1.
    let mut v = Vec::new();
    s.on_event(2, Event::ServerDown(1), &mut |d: &OasisBaselineDecision| {
        v.push(*d)
    })
    .unwrap();
    let recs = world_recs_oasis(&v);
    assert!(
        matches!(recs[..], [WorldRec::Interrupted(a), WorldRec::Interrupted(b)]
            if a.job == 1 && b.job == 0 && a.server == 1 && b.start == 0)
    );
    assert_eq!(s.interruptions(0), 1);
    let v = run_to!(s, [(99, 0)], 2, 3, OasisBaselineDecision);
    assert!(v.iter().all(
        |d| !matches!(d, OasisBaselineDecision::Unit(u) if u.slot >= 2 && !u.ps && u.server == 1)
    ));
    // Back up at 4 with capacity 2 set while down (job 1 still does not fit beside job 0).
    let mut v = Vec::new();
    s.on_event(
        4,
        Event::Capacity(1, rv(&[2.0])),
        &mut |d: &OasisBaselineDecision| v.push(*d),
    )
    .unwrap();
    s.on_event(4, Event::ServerUp(1), &mut |d: &OasisBaselineDecision| {
        v.push(*d)
    })
    .unwrap();
    assert!(world_recs_oasis(&v).is_empty());
    // Cancel job 0 at 5: it holds nothing from 5 on.
    s.on_event(
        5,
        Event::JobCancelled(0),
        &mut |d: &OasisBaselineDecision| v.push(*d),
    )
    .unwrap();
    assert!(matches!(world_recs_oasis(&v)[..], [WorldRec::Cancelled(c)] if c.job == 0));
    let v = run_to!(s, [(99, 0)], 5, 9, OasisBaselineDecision);
    assert!(v
        .iter()
        .all(|d| !matches!(d, OasisBaselineDecision::Unit(u) if u.slot >= 5 && u.job == 0)));
    assert_eq!(s.status(0), Some(Status::Cancelled));
    assert!(s.restarts().job(0).unwrap().restarts >= 1);
}

#[test]
fn online_cancel_down_capacity() {
    // FIFO on one server: job 0 (2 workers of 2 GPUs) holds all 4 GPUs; job 1 waits.
    let scn = online_scn(
        1,
        vec![online_job(0, 20, 2, 100.0), online_job(0, 10, 2, 100.0)],
    );
    let mut s = OnlineBaseline::new(Policy::Fifo, &scn).unwrap();
    let arr = [(0, 0), (0, 1)];
    run_to!(s, arr, 0, 1, OnlineBaselineDecision);
    assert!(s.jobs()[0].start == Some(0) && s.jobs()[1].start.is_none());
    // Cancel job 0 at 2: its run ends at 2, job 1 starts at 2 on the freed server.
    let mut v = Vec::new();
    s.on_event(
        2,
        Event::JobCancelled(0),
        &mut |d: &OnlineBaselineDecision| v.push(*d),
    )
    .unwrap();
    assert!(
        matches!(world_recs_online(&v)[..], [WorldRec::Cancelled(c)] if c.job == 0 && c.running)
    );
    run_to!(s, [(99, 0)], 2, 2, OnlineBaselineDecision);
    assert_eq!(s.jobs()[1].start, Some(2));
    // Capacity to 2 GPUs at 3: job 1 is interrupted and waits (it does not fit any more).
    let mut v = Vec::new();
    s.on_event(
        3,
        Event::Capacity(0, rv(&[2.0, 16.0])),
        &mut |d: &OnlineBaselineDecision| v.push(*d),
    )
    .unwrap();
    assert!(
        matches!(world_recs_online(&v)[..], [WorldRec::Interrupted(r)] if r.job == 1 && r.start == 2 && r.cause == 1)
    );
    run_to!(s, [(99, 0)], 3, 4, OnlineBaselineDecision);
    assert_eq!(s.jobs()[1].start, None);
    // Down, then up with the capacity before: job 1 starts again.
    s.on_event(
        5,
        Event::ServerDown(0),
        &mut |_: &OnlineBaselineDecision| {},
    )
    .unwrap();
    s.on_event(
        6,
        Event::Capacity(0, rv(&[4.0, 16.0])),
        &mut |_: &OnlineBaselineDecision| {},
    )
    .unwrap();
    run_to!(s, [(99, 0)], 5, 6, OnlineBaselineDecision);
    assert_eq!(s.jobs()[1].start, None);
    s.on_event(7, Event::ServerUp(0), &mut |_: &OnlineBaselineDecision| {})
        .unwrap();
    for t in 7..12 {
        s.on_event(t, Event::SlotAdvanced, &mut |_: &OnlineBaselineDecision| {})
            .unwrap();
    }
    assert_eq!(s.jobs()[1].start, Some(7));
    assert_eq!(s.interruptions(1), 1);
    assert_eq!(s.status(0), Some(Status::Cancelled));
}

#[test]
fn invalid_submissions_are_refused_and_change_nothing() {
    let scn = oasis_scn(2, vec![oasis_job(0, 1, 2)]);
    let mut s = OasisBaseline::new(Policy::Dorm, &scn).unwrap();
    let mut bad = oasis_job(0, 1, 2);
    bad.chunks = 0;
    let mut nan = oasis_job(0, 1, 2);
    nan.minibatch_time = f64::NAN;
    let mut len = oasis_job(0, 1, 2);
    len.worker_demand = rv(&[1.0, 1.0]);
    let mut util = oasis_job(0, 1, 2);
    util.utility = Utility::Table(Vec::new());
    for (job, field) in [
        (bad, "chunks"),
        (nan, "minibatch_time"),
        (len, "worker_demand"),
        (util, "utility"),
    ] {
        let before = format!("{s:?}");
        assert_eq!(s.submit(job), Err(BaselineError::InvalidJob { field }));
        assert_eq!(before, format!("{s:?}"));
    }
    assert_eq!(s.submit(oasis_job(3, 1, 2)), Ok(1));
    let scn = online_scn(1, Vec::new());
    let mut s = OnlineBaseline::new(Policy::AntMan, &scn).unwrap();
    let mut bad = online_job(0, 1, 2, 1.0);
    bad.minibatch_time.pop();
    let mut neg = online_job(0, 1, 2, 1.0);
    neg.weight = -1.0;
    for (job, field) in [(bad, "minibatch_time"), (neg, "weight")] {
        let before = format!("{s:?}");
        assert_eq!(s.submit(job), Err(BaselineError::InvalidJob { field }));
        assert_eq!(before, format!("{s:?}"));
    }
    assert_eq!(s.submit(online_job(0, 1, 2, 1.0)), Ok(0));
    assert_eq!(s.status(0), Some(Status::Unfinished));
    assert_eq!(s.status(1), None);
}

#[test]
fn online_interrupts_after_many_runs() {
    // 40 one-slot jobs through one server (the live-run list is pruned on the way), then a
    // long one: a failure still finds it.
    let mut jobs: Vec<OnlineJob> = (0..40).map(|_| online_job(0, 1, 1, 1.0)).collect();
    jobs.push(online_job(0, 50, 1, 1.0));
    let mut scn = online_scn(1, jobs);
    scn.slots = 200;
    let mut s = OnlineBaseline::new(Policy::Fifo, &scn).unwrap();
    let arr: Vec<(Slot, u32)> = (0..41).map(|j| (0, j)).collect();
    run_to!(s, arr, 0, 29, OnlineBaselineDecision);
    let start = s.jobs()[40].start.unwrap();
    assert!(start > 0 && start < 29);
    let mut v = Vec::new();
    s.on_event(
        30,
        Event::ServerDown(0),
        &mut |d: &OnlineBaselineDecision| v.push(*d),
    )
    .unwrap();
    assert!(
        matches!(world_recs_online(&v)[..], [WorldRec::Interrupted(r)] if r.job == 40 && r.start == start)
    );
    assert_eq!(s.jobs()[40].start, None);
}
