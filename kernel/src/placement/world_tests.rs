//! Tests of the open-world rules of kind `placement` ([`super::world`]).
use super::{Hold, Phase, PlacementError, PlacementScheduler, Placer};
use crate::api::{Event, Scheduler};
use crate::driver::{arrival_order, Driver};
use crate::index::NONE;
use crate::log::{LogSink, VecSink, TAG_PLACEMENT};
use crate::model::placement::{JpsParams, Method, PlacementJob, PlacementScenario, Worker};
use crate::resources::ResourceVec;
use crate::world::{OpenWorldError, Status};
use crate::Slot;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use proptest::prelude::*;

const METHODS: [Method; 7] = [
    Method::Has,
    Method::Jps,
    Method::Exact,
    Method::Exhaustive,
    Method::Optimus,
    Method::OptimusLb,
    Method::Las,
];

fn job(samples: f64, epochs: f64, throughput: Vec<f64>) -> PlacementJob {
    PlacementJob {
        samples,
        epochs,
        model_bytes: 1e6,
        throughput,
    }
}

fn scn(method: Method, k: u32, jobs: Vec<PlacementJob>) -> PlacementScenario {
    PlacementScenario {
        method,
        workers: (0..k)
            .map(|w| Worker {
                gpu_type: w % 2,
                node: w / 2,
            })
            .collect(),
        intra_node: 1e9,
        inter_node: 1e8,
        jobs,
        include_comm: true,
        jps: JpsParams::default(),
        seed: 7,
        solver: Default::default(),
    }
}

/// Two jobs on four workers: job 0 short, job 1 long.
fn small() -> PlacementScenario {
    scn(
        Method::Has,
        4,
        vec![
            job(200.0, 2.0, vec![10.0, 20.0, 10.0, 20.0]),
            job(2000.0, 4.0, vec![30.0, 25.0, 30.0, 25.0]),
        ],
    )
}

type D = Driver<PlacementScheduler>;

fn driver(s: &PlacementScenario) -> D {
    Driver::new(PlacementScheduler::new(Placer::new(s).unwrap(), s.method))
}

fn ev(d: &mut D, sink: &mut VecSink, t: Slot, e: Event<u32>) -> Result<(), PlacementError> {
    d.on_event(t, e, sink, &mut |_| {}).map_err(|e| match e {
        crate::driver::DriverError::Scheduler(e) | crate::driver::DriverError::Refused(e) => e,
        crate::driver::DriverError::Log(e) => PlacementError::Log(e),
    })
}

/// The closed-world start: every job arrives at 0, the batch runs.
fn started(s: &PlacementScenario) -> (D, VecSink) {
    let mut d = driver(s);
    let mut sink = VecSink::new();
    for j in 0..s.jobs.len() as u32 {
        ev(&mut d, &mut sink, 0, Event::JobArrived(j)).unwrap();
    }
    ev(&mut d, &mut sink, 0, Event::SlotAdvanced).unwrap();
    (d, sink)
}

fn cap(c: &[f64]) -> ResourceVec {
    ResourceVec::from_slice(c).unwrap()
}

fn dump(d: &D) -> String {
    format!("{:?}", d.scheduler())
}

fn tags(sink: &VecSink, tag: u8) -> usize {
    sink.records.iter().filter(|r| r.0 == tag).count()
}

fn workers_of(d: &D, j: u32) -> Vec<u32> {
    let s = d.scheduler();
    let end = s.job_run(j).unwrap().end;
    s.holds()
        .iter()
        .filter(|h| h.job == j && h.to == end)
        .map(|h| h.worker)
        .collect()
}

#[test]
fn a_closed_world_run_holds_every_worker_and_finishes_every_job() {
    let s = small();
    let (mut d, mut sink) = started(&s);
    let closed = {
        let mut c = driver(&s);
        let mut cs = VecSink::new();
        c.run(&arrival_order(vec![0; 2]), &mut cs, &mut |_| {})
            .unwrap();
        cs
    };
    d.finish(&mut sink, &mut |_| {}).unwrap();
    assert_eq!(sink.records, closed.records);
    let sched = d.scheduler();
    assert_eq!(sched.holds().len(), 4);
    for j in 0..2 {
        assert_eq!(sched.status(j), Some(Status::Finished));
        let run = sched.job_run(j).unwrap();
        assert_eq!(run.end, sched.placer().best().jct[j as usize]);
    }
    assert_eq!(sched.status(2), None);
    assert_eq!(sched.next_wakeup(Some(0)), None);
}

#[test]
fn a_cancel_frees_the_jobs_workers_from_its_time() {
    let s = small();
    let (mut d, mut sink) = started(&s);
    let end1 = d.scheduler().job_run(1).unwrap().end;
    assert!(end1 > 5.0);
    ev(&mut d, &mut sink, 5, Event::JobCancelled(1)).unwrap();
    let sched = d.scheduler();
    assert_eq!(sched.status(1), Some(Status::Cancelled));
    assert!(sched
        .holds()
        .iter()
        .filter(|h| h.job == 1)
        .all(|h| h.to == 5.0));
    assert_eq!(tags(&sink, TAG_PLACEMENT + 6), 1);
    // A second cancel is refused and changes nothing.
    let before = dump(&d);
    let e = ev(&mut d, &mut sink, 6, Event::JobCancelled(1)).unwrap_err();
    assert_eq!(
        e,
        PlacementError::OpenWorld(OpenWorldError::JobEnded { job: 1 })
    );
    assert_eq!(dump(&d), before);
}

#[test]
fn a_cancel_before_the_batch_leaves_the_job_out() {
    let s = small();
    let mut d = driver(&s);
    let mut sink = VecSink::new();
    ev(&mut d, &mut sink, 0, Event::JobArrived(0)).unwrap();
    ev(&mut d, &mut sink, 0, Event::JobArrived(1)).unwrap();
    ev(&mut d, &mut sink, 0, Event::JobCancelled(0)).unwrap();
    ev(&mut d, &mut sink, 0, Event::SlotAdvanced).unwrap();
    let sched = d.scheduler();
    assert_eq!(sched.status(0), Some(Status::Cancelled));
    // Job 1 alone takes every worker (an open-world batch: batch + place records).
    assert_eq!(workers_of(&d, 1), vec![0, 1, 2, 3]);
    assert_eq!(tags(&sink, TAG_PLACEMENT + 8), 1);
    assert_eq!(tags(&sink, TAG_PLACEMENT + 7), 4);
}

#[test]
fn a_failure_re_places_the_job_on_what_is_free_keeping_its_epochs() {
    let s = small();
    let (mut d, mut sink) = started(&s);
    let before = workers_of(&d, 1);
    assert!(
        before.len() >= 2,
        "job 1 needs two workers here: {before:?}"
    );
    let run = d.scheduler().job_run(1).unwrap();
    let t = (run.end * 0.6) as Slot;
    ev(&mut d, &mut sink, t, Event::ServerDown(before[0])).unwrap();
    let sched = d.scheduler();
    let after = workers_of(&d, 1);
    assert!(!after.contains(&before[0]));
    assert!(!after.is_empty());
    assert_eq!(sched.status(1), Some(Status::Unfinished));
    let again = sched.job_run(1).unwrap();
    assert_eq!(again.start, f64::from(t));
    // 4 epochs, 60 % done: 2 completed epochs kept, the partial third is lost.
    assert_eq!(again.epochs, 4.0 - (4.0 * (f64::from(t) / run.end)).floor());
    assert_eq!(tags(&sink, TAG_PLACEMENT + 6), 1);
    // Nothing is placed on the down worker, even when a job later needs one.
    assert!(sched
        .holds()
        .iter()
        .all(|h| h.worker != before[0] || h.to <= f64::from(t)));
    ev(&mut d, &mut sink, t, Event::ServerUp(before[0])).unwrap();
    d.finish(&mut sink, &mut |_| {}).unwrap();
    assert_eq!(d.scheduler().status(1), Some(Status::Finished));
}

#[test]
fn a_single_worker_job_with_nothing_free_is_lost() {
    let s = scn(
        Method::Las,
        2,
        vec![
            job(200.0, 2.0, vec![10.0, 20.0]),
            job(2000.0, 4.0, vec![30.0, 25.0]),
        ],
    );
    let (mut d, mut sink) = started(&s);
    let w = workers_of(&d, 0)[0];
    ev(&mut d, &mut sink, 1, Event::ServerDown(w)).unwrap();
    assert_eq!(d.scheduler().status(0), Some(Status::Lost));
    assert_eq!(d.scheduler().job_run(0).unwrap().phase, Phase::Lost);
    // A lost job cannot be cancelled.
    let e = ev(&mut d, &mut sink, 2, Event::JobCancelled(0)).unwrap_err();
    assert_eq!(
        e,
        PlacementError::OpenWorld(OpenWorldError::JobEnded { job: 0 })
    );
    d.finish(&mut sink, &mut |_| {}).unwrap();
    assert_eq!(d.scheduler().status(0), Some(Status::Lost));
    assert_eq!(d.scheduler().status(1), Some(Status::Finished));
}

#[test]
fn capacity_below_one_gpu_interrupts_and_above_one_changes_nothing() {
    let s = small();
    let (mut d, mut sink) = started(&s);
    let w = workers_of(&d, 1)[0];
    let before: Vec<Hold> = d.scheduler().holds().to_vec();
    ev(&mut d, &mut sink, 1, Event::Capacity(w, cap(&[3.0]))).unwrap();
    assert_eq!(tags(&sink, TAG_PLACEMENT + 6), 0);
    assert_eq!(d.scheduler().holds(), &before[..]);
    ev(&mut d, &mut sink, 2, Event::Capacity(w, cap(&[0.5]))).unwrap();
    assert_eq!(tags(&sink, TAG_PLACEMENT + 6), 1);
    assert!(!workers_of(&d, 1).contains(&w));
    // While down, a capacity sets what it returns with; up restores it.
    ev(&mut d, &mut sink, 3, Event::ServerDown(w)).unwrap();
    ev(&mut d, &mut sink, 3, Event::Capacity(w, cap(&[1.0]))).unwrap();
    ev(&mut d, &mut sink, 4, Event::ServerUp(w)).unwrap();
    let dbg = dump(&d);
    assert!(dbg.contains("down: false, cap: 1.0"), "{dbg}");
}

#[test]
fn bad_events_are_refused_and_change_nothing() {
    let s = small();
    let (mut d, mut sink) = started(&s);
    ev(&mut d, &mut sink, 1, Event::ServerDown(0)).unwrap();
    let before = dump(&d);
    let bad: [(Event<u32>, OpenWorldError); 8] = [
        (
            Event::JobCancelled(9),
            OpenWorldError::UnknownJob { job: 9 },
        ),
        (Event::JobArrived(9), OpenWorldError::UnknownJob { job: 9 }),
        (
            Event::ServerDown(4),
            OpenWorldError::UnknownServer { server: 4 },
        ),
        (
            Event::ServerDown(0),
            OpenWorldError::ServerDown { server: 0 },
        ),
        (Event::ServerUp(1), OpenWorldError::ServerUp { server: 1 }),
        (
            Event::Capacity(1, cap(&[1.0, 1.0])),
            OpenWorldError::CapacityLength {
                server: 1,
                expected: 1,
                got: 2,
            },
        ),
        (
            Event::Capacity(1, cap(&[-1.0])),
            OpenWorldError::CapacityValue {
                server: 1,
                resource: 0,
            },
        ),
        (
            Event::Capacity(1, cap(&[f64::NAN])),
            OpenWorldError::CapacityValue {
                server: 1,
                resource: 0,
            },
        ),
    ];
    for (e, want) in bad {
        let got = ev(&mut d, &mut sink, 2, e).unwrap_err();
        assert_eq!(got, PlacementError::OpenWorld(want));
        assert_eq!(dump(&d), before, "{e:?} changed the scheduler");
    }
    let end = d.scheduler().job_run(0).unwrap().end.ceil() as Slot;
    let before = dump(&d);
    let e = ev(&mut d, &mut sink, end + 1, Event::JobCancelled(0)).unwrap_err();
    assert_eq!(
        e,
        PlacementError::OpenWorld(OpenWorldError::JobEnded { job: 0 })
    );
    assert_eq!(dump(&d), before);
}

#[test]
fn bad_submissions_are_refused_and_change_nothing() {
    let s = small();
    let mut sched = PlacementScheduler::new(Placer::new(&s).unwrap(), Method::Has);
    let before = format!("{sched:?}");
    let cases = [
        (
            job(1.0, 1.0, vec![1.0; 3]),
            PlacementError::ThroughputShape { job: 2 },
        ),
        (
            job(1.0, 1.0, vec![1.0, -1.0, 1.0, 1.0]),
            PlacementError::ThroughputValue { job: 2, worker: 1 },
        ),
        (
            job(0.0, 1.0, vec![1.0; 4]),
            PlacementError::JobValue {
                job: 2,
                field: "samples",
            },
        ),
        (
            job(1.0, f64::INFINITY, vec![1.0; 4]),
            PlacementError::JobValue {
                job: 2,
                field: "epochs",
            },
        ),
    ];
    for (j, want) in cases {
        assert_eq!(sched.submit(j), Err(want));
        assert_eq!(format!("{sched:?}"), before);
    }
    // K >= S before the batch, as the scenario build asks.
    assert_eq!(sched.submit(job(1.0, 1.0, vec![1.0; 4])), Ok(2));
    assert_eq!(sched.submit(job(1.0, 1.0, vec![1.0; 4])), Ok(3));
    let before = format!("{sched:?}");
    assert!(matches!(
        sched.submit(job(1.0, 1.0, vec![1.0; 4])),
        Err(PlacementError::FewerWorkersThanJobs { .. })
    ));
    assert_eq!(format!("{sched:?}"), before);
}

#[test]
fn a_job_submitted_after_the_batch_waits_for_a_worker_then_runs() {
    let s = small();
    let (mut d, mut sink) = started(&s);
    let j = d
        .scheduler_mut()
        .submit(job(100.0, 1.0, vec![5.0, 5.0, 5.0, 5.0]))
        .unwrap();
    assert_eq!(j, 2);
    ev(&mut d, &mut sink, 3, Event::JobArrived(j)).unwrap();
    assert_eq!(d.scheduler().job_run(j).unwrap().phase, Phase::Pending);
    let first_end = d.scheduler().job_run(0).unwrap().end;
    let wake = d.scheduler().next_wakeup(Some(3)).unwrap();
    assert_eq!(wake, first_end.ceil() as Slot);
    ev(&mut d, &mut sink, wake, Event::SlotAdvanced).unwrap();
    let run = d.scheduler().job_run(j).unwrap();
    assert_eq!(run.phase, Phase::Running);
    assert_eq!(run.start, f64::from(wake));
    assert_eq!(run.arrival, 3);
    d.finish(&mut sink, &mut |_| {}).unwrap();
    assert_eq!(d.scheduler().status(j), Some(Status::Finished));
}

fn instance() -> impl Strategy<Value = PlacementScenario> {
    (1usize..=4, 0usize..=2, 0usize..7, any::<bool>()).prop_flat_map(|(s, extra, m, comm)| {
        let k = s + extra;
        let jobs = proptest::collection::vec(
            (100u32..500, 1u32..4, proptest::collection::vec(5u32..50, k)),
            s,
        );
        jobs.prop_map(move |jobs| {
            let mut x = scn(
                METHODS[m],
                k as u32,
                jobs.into_iter()
                    .map(|(a, e, r)| {
                        job(
                            f64::from(a),
                            f64::from(e),
                            r.into_iter().map(f64::from).collect(),
                        )
                    })
                    .collect(),
            );
            x.include_comm = comm;
            x
        })
    })
}

/// Feeds the wake-ups due up to `until` (all of them when `None`), as a host does.
fn wake(d: &mut D, sink: &mut VecSink, until: Option<Slot>) {
    for _ in 0..64 {
        let Some(w) = d.scheduler().next_wakeup(d.now()) else {
            return;
        };
        let w = w.max(d.now().map_or(0, |n| n + 1));
        if until.is_some_and(|u| w > u) {
            return;
        }
        ev(d, sink, w, Event::SlotAdvanced).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A scenario with a prefix of the jobs plus `submit` of the rest at 0 decides exactly as
    /// the scenario listing them all.
    #[test]
    fn submission_is_arrival(s in instance(), prefix in 1usize..=4) {
        let n = s.jobs.len();
        let p = prefix.min(n);
        let mut closed = driver(&s);
        let mut cs = VecSink::new();
        closed.run(&arrival_order(vec![0; n]), &mut cs, &mut |_| {}).unwrap();
        let head = PlacementScenario { jobs: s.jobs[..p].to_vec(), ..s.clone() };
        let mut open = driver(&head);
        let mut os = VecSink::new();
        for j in 0..p as u32 {
            ev(&mut open, &mut os, 0, Event::JobArrived(j)).unwrap();
        }
        for job in &s.jobs[p..] {
            let j = open.scheduler_mut().submit(job.clone()).unwrap();
            ev(&mut open, &mut os, 0, Event::JobArrived(j)).unwrap();
        }
        ev(&mut open, &mut os, 0, Event::SlotAdvanced).unwrap();
        wake(&mut open, &mut os, None);
        open.finish(&mut os, &mut |_| {}).unwrap();
        prop_assert_eq!(&os.records, &cs.records);
        prop_assert_eq!(os.hash(), cs.hash());
        for j in 0..n as u32 {
            prop_assert_eq!(open.scheduler().status(j), closed.scheduler().status(j));
        }
    }

    /// Random open-world sequences: capacity in force never exceeded, nothing on a down or cut
    /// worker, nothing held by a cancelled job after its cancel, one status per job, and the
    /// same sequence gives the same log.
    #[test]
    fn open_world_sequences_keep_the_rules(
        s in instance(),
        evs in proptest::collection::vec((0u32..8, 0u8..6, 0u32..6, 0u8..4), 0..12),
    ) {
        let (a, rules) = play(&s, &evs);
        if std::env::var("OW_STATS").is_ok() {
            let c = |t: u8| a.1.records.iter().filter(|r| r.0 == TAG_PLACEMENT + t).count();
            std::eprintln!("stats interrupts {} places {} batches {} lost {}", c(6), c(7), c(8),
                (0..jobs_of(&a.0) as u32).filter(|&j| a.0.scheduler().status(j) == Some(Status::Lost)).count());
        }
        let (b, _) = play(&s, &evs);
        prop_assert_eq!(&a.1.records, &b.1.records);
        check(&a.0, &s, &rules)?;
    }
}

/// What the sequence did, for the checks: per worker the times it became (un)usable, per job
/// its cancel time.
struct Rules {
    unusable: Vec<Vec<(f64, f64)>>,
    cancelled: Vec<(u32, f64)>,
}

fn play(s: &PlacementScenario, evs: &[(u32, u8, u32, u8)]) -> ((D, VecSink), Rules) {
    let (mut d, mut sink) = started(s);
    let k = s.workers.len();
    let mut down = vec![false; k];
    let mut cut = vec![false; k];
    let mut since = vec![0.0f64; k];
    let mut rules = Rules {
        unusable: vec![Vec::new(); k],
        cancelled: Vec::new(),
    };
    let mut t: Slot = 0;
    for &(dt, kind, x, c) in evs {
        t += dt;
        wake(&mut d, &mut sink, Some(t));
        let n = d.scheduler().job_run(0).map_or(0, |_| jobs_of(&d));
        let h = x % (k as u32 + 1); // sometimes an unknown server
        let e = match kind {
            0 => Event::JobCancelled(x % (n as u32 + 1)),
            1 => Event::ServerDown(h),
            2 => Event::ServerUp(h),
            3 => Event::Capacity(h, cap(&[[0.0, 0.5, 1.0, 2.0][c as usize]])),
            4 => {
                let row = (0..k).map(|w| 5.0 + ((w as u32 + x) % 7) as f64).collect();
                let j = d
                    .scheduler_mut()
                    .submit(job(150.0, f64::from(c) + 1.0, row))
                    .unwrap();
                Event::JobArrived(j)
            }
            _ => Event::SlotAdvanced,
        };
        let before = dump(&d);
        let ok = ev(&mut d, &mut sink, t, e).is_ok();
        if !ok {
            assert_eq!(dump(&d), before, "refused {e:?} changed the scheduler");
            continue;
        }
        let tf = f64::from(t);
        let mut flip = |w: usize, was: bool, now: bool| {
            if !was && now {
                since[w] = tf;
            } else if was && !now {
                rules.unusable[w].push((since[w], tf));
            }
        };
        match e {
            Event::JobCancelled(j) => rules.cancelled.push((j, tf)),
            Event::ServerDown(h) => {
                let w = h as usize;
                flip(w, down[w] || cut[w], true);
                down[w] = true;
            }
            Event::ServerUp(h) => {
                let w = h as usize;
                flip(w, true, cut[w]);
                down[w] = false;
            }
            Event::Capacity(h, ref c) => {
                let w = h as usize;
                let now_cut = c.as_slice()[0] < 1.0;
                flip(w, down[w] || cut[w], down[w] || now_cut);
                cut[w] = now_cut;
            }
            _ => {}
        }
    }
    wake(&mut d, &mut sink, None);
    d.finish(&mut sink, &mut |_| {}).unwrap();
    for w in 0..k {
        if down[w] || cut[w] {
            rules.unusable[w].push((since[w], f64::INFINITY));
        }
    }
    ((d, sink), rules)
}

fn jobs_of(d: &D) -> usize {
    (0..)
        .take_while(|&j| d.scheduler().job_run(j).is_some())
        .count()
}

fn check(d: &D, s: &PlacementScenario, r: &Rules) -> Result<(), TestCaseError> {
    let sched = d.scheduler();
    let holds = sched.holds();
    for w in 0..s.workers.len() as u32 {
        let mut mine: Vec<&Hold> = holds
            .iter()
            .filter(|h| h.worker == w && h.to > h.from)
            .collect();
        mine.sort_by(|a, b| a.from.total_cmp(&b.from));
        for p in mine.windows(2) {
            prop_assert!(p[0].to <= p[1].from, "worker {} held twice: {:?}", w, p);
        }
        for h in &mine {
            for &(a, b) in &r.unusable[w as usize] {
                prop_assert!(
                    !(h.from < b && h.to > a),
                    "{:?} overlaps unusable {}..{}",
                    h,
                    a,
                    b
                );
            }
        }
    }
    for &(j, t) in &r.cancelled {
        prop_assert!(holds.iter().filter(|h| h.job == j).all(|h| h.to <= t));
        prop_assert_eq!(sched.status(j), Some(Status::Cancelled));
    }
    let n = jobs_of(d) as u32;
    for j in 0..n {
        let st = sched.status(j);
        prop_assert!(st.is_some() && st != Some(Status::Rejected));
        if st == Some(Status::Finished) {
            prop_assert!(sched.job_run(j).unwrap().end.is_finite());
        }
    }
    prop_assert_eq!(sched.status(n), None);
    prop_assert!(holds.iter().all(|h| h.worker != NONE));
    Ok(())
}
