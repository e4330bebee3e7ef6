//! Tests of the open-world rules (`super::world`, `docs/open-world.md`, "Kind oasis").
use super::fast::FastDp;
use super::*;
use crate::api::{Event, Scheduler};
use crate::log::VecSink;
use crate::model::oasis::{OasisJob, OasisScenario, PriceBounds, Utility};
use crate::world::{OpenWorldError, Status};
use crate::ResourceVec;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use proptest::prelude::*;

fn rv(v: &[f64]) -> ResourceVec {
    ResourceVec::from_slice(v).unwrap()
}

fn job(arrival: u32, epochs: u32, util: f64) -> OasisJob {
    OasisJob {
        arrival,
        epochs,
        chunks: 2,
        minibatches_per_chunk: 1,
        minibatch_time: 0.5,
        comm_time: 0.0,
        worker_bw: 1.0,
        ps_bw: 2.0,
        worker_demand: rv(&[1.0]),
        ps_demand: rv(&[1.0]),
        utility: Utility::Table(vec![util, util * 0.9, util * 0.8, util * 0.5, util * 0.2]),
    }
}

/// Two worker servers and one PS server of capacity 4 over 5 slots, L = 1, U = 8.
fn scn(jobs: Vec<OasisJob>) -> OasisScenario {
    OasisScenario {
        slots: 5,
        resources: 1,
        worker_servers: vec![rv(&[4.0]), rv(&[4.0])],
        ps_servers: vec![rv(&[4.0])],
        prices: Some(PriceBounds {
            u_worker: rv(&[8.0]),
            u_ps: rv(&[8.0]),
            l_worker: 1.0,
            l_ps: 1.0,
        }),
        jobs,
        throughput: None,
    }
}

/// Feeds one event; the records it caused.
fn feed(
    s: &mut OasisScheduler,
    now: u32,
    e: Event<u32>,
) -> Result<Vec<OasisJobDecision>, OasisError> {
    let mut got = Vec::new();
    s.on_event(now, e, &mut |d: &OasisDecision<'_>| {
        if let OasisDecision::Decision(d) = d {
            got.push(**d);
        }
    })?;
    Ok(got)
}

/// Usage of kernel server `h` at slot `t` by the reservations of the ledger (resource 0).
fn held(s: &OasisScheduler, t: u32, h: u32) -> f64 {
    let nw = s.market.workers.servers();
    (0..s.jobs.len() as u32)
        .flat_map(|j| s.ledger.holds(j).iter().map(move |e| (j, *e)))
        .filter(|(_, e)| e.is_cell() && e.slot == t && e.server == h)
        .map(|(j, e)| {
            let p = s.params[j as usize];
            let d = if h < nw { p.worker_demand } else { p.ps_demand };
            d.get(0) * e.count as f64
        })
        .sum()
}

#[test]
fn a_clone_admits_without_growing_its_live_list() {
    // Benchmarks time decisions on clones: a clone keeps room for every job's admission.
    let s = OasisScheduler::new(&scn(vec![job(0, 4, 40.0), job(0, 4, 40.0)])).unwrap();
    let mut c = s.clone();
    assert!(c.ow.live.capacity() >= 2);
    let d = feed(&mut c, 0, Event::JobArrived(0)).unwrap();
    assert!(d[0].admitted);
    let mut c2 = c.clone();
    assert!(c2.ow.live.capacity() >= 2);
    assert!(feed(&mut c2, 0, Event::JobArrived(1)).is_ok());
}

#[test]
fn cancel_releases_from_its_slot_and_prices_follow() {
    let mut s = OasisScheduler::new(&scn(vec![job(0, 4, 40.0)])).unwrap();
    let d = feed(&mut s, 0, Event::JobArrived(0)).unwrap();
    assert!(d[0].admitted);
    let end = d[0].completion_slot.unwrap();
    assert!(end >= 1, "4 epochs x 2 chunks need two slots of 2 servers");
    let w0 = s.market.workers.usage(0, 0, 0);
    let d = feed(&mut s, 1, Event::JobCancelled(0)).unwrap();
    assert_eq!(d[0].reason, Reason::Cancelled);
    assert_eq!(s.status(0), Some(Status::Cancelled));
    assert_eq!(s.market.workers.usage(0, 0, 0), w0, "history stays");
    for t in 1..5 {
        for h in 0..2 {
            assert_eq!(s.market.workers.usage(t, h, 0), 0.0);
            assert_eq!(s.market.workers.price(t, h, 0), 1.0, "back at L");
        }
    }
    assert!(matches!(
        feed(&mut s, 1, Event::JobCancelled(0)),
        Err(OasisError::OpenWorld(OpenWorldError::JobEnded { job: 0 }))
    ));
}

#[test]
fn a_failure_interrupts_and_recovers_or_loses() {
    let mut s = OasisScheduler::new(&scn(vec![job(0, 4, 40.0), job(0, 4, 2.0)])).unwrap();
    assert!(feed(&mut s, 0, Event::JobArrived(0)).unwrap()[0].admitted);
    let _ = feed(&mut s, 0, Event::JobArrived(1)).unwrap();
    let holder = (0..2).find(|&h| s.ledger.holds_from(0, 1, Some(h)));
    let Some(h) = holder else {
        return; // the job finished in slot 0: nothing to interrupt
    };
    let d = feed(&mut s, 1, Event::ServerDown(h)).unwrap();
    assert!(d.iter().any(|d| d.job == 0 && d.reason.server() == Some(h)));
    for t in 1..5 {
        assert_eq!(held(&s, t, h), 0.0, "nothing on the down server");
        assert_eq!(s.market.workers.fit(t, h, &rv(&[1.0])), 0);
    }
    assert!(matches!(
        feed(&mut s, 1, Event::ServerDown(h)),
        Err(OasisError::OpenWorld(OpenWorldError::ServerDown { .. }))
    ));
    feed(&mut s, 2, Event::ServerUp(h)).unwrap();
    assert_eq!(
        s.market.workers.fit(2, h, &rv(&[1.0])) > 0,
        held(&s, 2, h) < 4.0
    );
    assert_eq!(s.capacity_in_force(h, 0), 4.0);
}

#[test]
fn a_capacity_cut_interrupts_the_most_recent_first() {
    let mut one = scn(vec![job(0, 2, 40.0), job(0, 2, 40.0)]);
    one.worker_servers.truncate(1);
    let mut s = OasisScheduler::new(&one).unwrap();
    feed(&mut s, 0, Event::JobArrived(0)).unwrap();
    feed(&mut s, 0, Event::JobArrived(1)).unwrap();
    let before: Vec<f64> = (0..5).map(|t| held(&s, t, 0)).collect();
    let d = feed(&mut s, 0, Event::Capacity(0, rv(&[2.0]))).unwrap();
    for t in 0..5 {
        assert!(held(&s, t, 0) <= 2.0 + 1e-9, "slot {t}: {:?}", before);
    }
    if before.iter().any(|&u| u > 2.0) {
        assert_eq!(d.first().map(|d| d.job), Some(1), "job 1 came last");
    }
    assert!(matches!(
        feed(&mut s, 0, Event::Capacity(0, rv(&[5.0]))),
        Err(OasisError::CapacityAboveBuild {
            server: 0,
            resource: 0
        })
    ));
}

#[test]
fn a_server_returns_with_the_capacity_set_while_down() {
    let mut s = OasisScheduler::new(&scn(vec![job(3, 2, 40.0)])).unwrap();
    feed(&mut s, 0, Event::ServerDown(1)).unwrap();
    assert_eq!(s.capacity_in_force(1, 0), 0.0);
    assert!(feed(&mut s, 1, Event::Capacity(1, rv(&[1.0])))
        .unwrap()
        .is_empty());
    assert_eq!(s.capacity_in_force(1, 0), 0.0, "still down");
    assert_eq!(s.market.workers.usage(2, 1, 0), 4.0, "all withheld");
    feed(&mut s, 2, Event::ServerUp(1)).unwrap();
    assert_eq!(s.capacity_in_force(1, 0), 1.0);
    assert_eq!(s.market.workers.usage(1, 1, 0), 4.0, "history stays");
    assert_eq!(s.market.workers.usage(2, 1, 0), 3.0);
    assert_eq!(s.market.workers.fit(2, 1, &rv(&[1.0])), 1);
    assert!(feed(&mut s, 3, Event::JobArrived(0)).unwrap()[0].admitted);
    assert!((3..5).all(|t| held(&s, t, 1) <= 1.0));
    assert_eq!(s.status(0), Some(Status::Unfinished));
    s.finish(&mut |_: &OasisDecision<'_>| {}).unwrap();
    assert_eq!(s.status(0), Some(Status::Finished));
    assert_eq!(s.status(1), None);
}

#[test]
fn bad_events_change_nothing() {
    let mut s = OasisScheduler::new(&scn(vec![job(0, 4, 40.0), job(1, 40, 1.0)])).unwrap();
    feed(&mut s, 0, Event::JobArrived(0)).unwrap();
    feed(&mut s, 1, Event::JobArrived(1)).unwrap(); // rejected
    feed(&mut s, 1, Event::ServerDown(2)).unwrap();
    let dump = format!("{s:?}");
    let bad = [
        Event::JobCancelled(9),
        Event::JobCancelled(1),
        Event::ServerDown(3),
        Event::ServerDown(2),
        Event::ServerUp(0),
        Event::ServerUp(7),
        Event::Capacity(0, rv(&[1.0, 1.0])),
        Event::Capacity(0, rv(&[-1.0])),
        Event::Capacity(0, rv(&[f64::NAN])),
        Event::Capacity(0, rv(&[f64::INFINITY])),
        Event::Capacity(0, rv(&[4.5])),
        Event::Capacity(9, rv(&[1.0])),
    ];
    for e in bad {
        assert!(feed(&mut s, 1, e).is_err(), "{e:?}");
        assert_eq!(format!("{s:?}"), dump, "{e:?} changed the scheduler");
    }
    assert!(
        feed(&mut s, 0, Event::ServerUp(2)).is_err(),
        "time going back"
    );
    let mut wrong = job(2, 1, 1.0);
    wrong.ps_demand = rv(&[1.0, 1.0]);
    assert!(matches!(s.submit(wrong), Err(OasisError::Shape)));
    assert!(
        s.submit(job(0, 1, 1.0)).is_err(),
        "arrival before the last event"
    );
    assert_eq!(format!("{s:?}"), dump);
}

#[test]
fn derived_bounds_refuse_a_submission_outside_them() {
    let mut d = scn(vec![job(0, 2, 10.0)]);
    d.prices = None;
    let mut s = OasisScheduler::new(&d).unwrap();
    assert_eq!(s.submit(job(1, 2, 10.0)), Ok(1), "the same terms fit");
    let dump = format!("{s:?}");
    assert!(matches!(
        s.submit(job(1, 2, 1000.0)),
        Err(OasisError::OutsideBounds { job: 2, .. })
    ));
    assert_eq!(format!("{s:?}"), dump);
    d.jobs.clear();
    let mut e = OasisScheduler::new(&d).unwrap();
    assert_eq!(e.submit(job(0, 2, 10.0)), Err(OasisError::NoPriceBounds));
}

fn arb_job(slots: u32) -> impl Strategy<Value = OasisJob> {
    (
        0..slots,
        1u32..4,
        1u32..4,
        1u32..3,
        1u32..3,
        1u32..60,
        0u32..3,
    )
        .prop_map(|(a, e, n, w, z, u, kind)| OasisJob {
            arrival: a,
            epochs: e,
            chunks: n,
            minibatches_per_chunk: 1,
            minibatch_time: 0.5,
            comm_time: 0.0,
            worker_bw: 1.0,
            ps_bw: 2.0,
            worker_demand: rv(&[w as f64]),
            ps_demand: rv(&[z as f64]),
            utility: if kind == 0 {
                Utility::Sigmoid {
                    priority: u as f64,
                    decay: 0.5,
                    target: 2.0,
                }
            } else {
                Utility::Table(vec![u as f64, u as f64 * 0.7, u as f64 * 0.3, 0.5])
            },
        })
}

fn arb_scn() -> impl Strategy<Value = OasisScenario> {
    (3u32..7, 1usize..4, 1usize..3, any::<bool>()).prop_flat_map(|(slots, h, k, priced)| {
        (
            proptest::collection::vec(arb_job(slots), 0..7),
            Just((slots, h, k, priced)),
        )
            .prop_map(|(jobs, (slots, h, k, priced))| {
                let mut s = scn(jobs);
                s.slots = slots;
                s.worker_servers = (0..h).map(|i| rv(&[2.0 + i as f64 * 2.0])).collect();
                s.ps_servers = (0..k).map(|_| rv(&[3.0])).collect();
                if !priced {
                    s.prices = None;
                }
                s
            })
    })
}

/// Arrivals in (slot, index) order, then `SlotAdvanced` per slot, then finish; jobs at
/// `submit_from` or later are submitted just before their arrival. The records logged.
fn run_with_submissions(scn: &OasisScenario, submit_from: usize) -> Option<Vec<(u8, Vec<u8>)>> {
    let mut base = scn.clone();
    base.jobs.truncate(submit_from);
    let mut d = crate::driver::Driver::new(OasisScheduler::new(&base).ok()?);
    let mut sink = VecSink::new();
    let order = crate::driver::arrival_order(scn.jobs.iter().map(|j| j.arrival));
    for t in 0..scn.slots {
        for &(_, j) in order.iter().filter(|a| a.0 == t) {
            if j as usize >= submit_from {
                let got = d.scheduler_mut().submit(scn.jobs[j as usize].clone());
                match got {
                    Ok(i) => assert_eq!(i, j),
                    Err(OasisError::OutsideBounds { .. } | OasisError::NoPriceBounds) => {
                        return None
                    }
                    Err(e) => panic!("{e}"),
                }
            }
            d.on_event(
                t,
                Event::JobArrived(j),
                &mut sink,
                &mut |_: &OasisDecision<'_>| {},
            )
            .unwrap();
        }
        d.on_event(
            t,
            Event::SlotAdvanced,
            &mut sink,
            &mut |_: &OasisDecision<'_>| {},
        )
        .unwrap();
    }
    d.finish(&mut sink, &mut |_: &OasisDecision<'_>| {})
        .unwrap();
    Some(sink.records)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Submission is arrival: a prefix built, the rest submitted at their arrivals, logs the
    /// same records as the closed-world run (jobs ordered so the indices agree).
    #[test]
    fn submission_is_arrival(mut s in arb_scn(), cut in 0usize..8) {
        let cut = cut.min(s.jobs.len());
        // submitted jobs take their indices in submission order: sort the tail by arrival
        s.jobs[cut..].sort_by_key(|j| j.arrival);
        let Some(closed) = run_with_submissions(&s, s.jobs.len()) else { return Ok(()) };
        match run_with_submissions(&s, cut) {
            Some(open) => prop_assert_eq!(open, closed),
            None => {
                // refused: the whole set's derived bounds differ from the prefix's
                let mut pre = s.clone();
                pre.jobs.truncate(cut);
                prop_assert!(s.prices.is_none());
                if cut > 0 {
                    prop_assert_ne!(crate::price::oasis_bounds(&pre).ok(), crate::price::oasis_bounds(&s).ok());
                }
            }
        }
    }

    /// Random open-world sequences keep every rule.
    #[test]
    fn open_world_sequences_keep_the_rules(
        mut s in arb_scn(),
        evs in proptest::collection::vec((0u32..7, 0u32..5, 0u32..6, 0u32..3), 0..10),
        extra in proptest::collection::vec(arb_job(7), 0..3),
        grids in any::<bool>(),
    ) {
        s.prices = Some(PriceBounds { u_worker: rv(&[8.0]), u_ps: rv(&[8.0]), l_worker: 0.5, l_ps: 0.5 });
        let a = run_events(&s, &evs, &extra, grids);
        let b = run_events(&s, &evs, &extra, grids);
        prop_assert_eq!(a, b);
    }
}

/// One open-world run of `s` with events from `evs` (slot, kind, target, amount); checks
/// the rules after each event; the records.
fn run_events(
    s: &OasisScenario,
    evs: &[(u32, u32, u32, u32)],
    extra: &[OasisJob],
    grids: bool,
) -> Vec<(u8, Vec<u8>)> {
    let mut d = crate::driver::Driver::new(OasisScheduler::new(s).unwrap());
    if !grids {
        d.scheduler_mut().drop_grids();
    }
    let nw = s.worker_servers.len() as u32;
    let servers = nw + s.ps_servers.len() as u32;
    let t_end = s.slots;
    // per server and slot, the capacity in force (the test's own timeline)
    let mut cap: Vec<Vec<f64>> = s
        .worker_servers
        .iter()
        .chain(&s.ps_servers)
        .map(|c| vec![c.get(0); t_end as usize])
        .collect();
    let mut cancelled_at: Vec<Option<u32>> = vec![None; s.jobs.len() + extra.len()];
    let mut sink = VecSink::new();
    let mut evs: Vec<_> = evs.to_vec();
    evs.sort_by_key(|e| e.0);
    let mut next = 0;
    let order = crate::driver::arrival_order(s.jobs.iter().map(|j| j.arrival));
    let mut extra_left: Vec<OasisJob> = extra.to_vec();
    for t in 0..t_end {
        for &(_, j) in order.iter().filter(|a| a.0 == t) {
            if cancelled_at[j as usize].is_none() {
                d.on_event(
                    t,
                    Event::JobArrived(j),
                    &mut sink,
                    &mut |_: &OasisDecision<'_>| {},
                )
                .unwrap();
            }
        }
        while let Some(&(_, kind, x, amount)) = evs.get(next).filter(|e| e.0 == t) {
            next += 1;
            let before = format!("{:?}", d.scheduler());
            let e = match kind {
                0 => Event::JobCancelled(x),
                1 => Event::ServerDown(x % (servers + 1)),
                2 => Event::ServerUp(x % (servers + 1)),
                3 => Event::Capacity(x % servers, rv(&[amount as f64 * 1.5])),
                _ => {
                    if let Some(mut j) = extra_left.pop() {
                        j.arrival = t;
                        if let Ok(i) = d.scheduler_mut().submit(j) {
                            d.on_event(
                                t,
                                Event::JobArrived(i),
                                &mut sink,
                                &mut |_: &OasisDecision<'_>| {},
                            )
                            .unwrap();
                        }
                    }
                    continue;
                }
            };
            let target = match e {
                Event::Capacity(h, _) => h,
                _ => x % (servers + 1),
            };
            let was_down = d.scheduler().server_is_down(target);
            match d.on_event(t, e, &mut sink, &mut |_: &OasisDecision<'_>| {}) {
                Err(_) => assert_eq!(format!("{:?}", d.scheduler()), before, "{e:?}"),
                Ok(()) => match e {
                    Event::JobCancelled(j) => cancelled_at[j as usize] = Some(t),
                    Event::ServerDown(h) => cap[h as usize][t as usize..]
                        .iter_mut()
                        .for_each(|c| *c = 0.0),
                    Event::ServerUp(h) | Event::Capacity(h, _) => {
                        let c = d.scheduler().capacity_in_force(h, 0);
                        if was_down != Some(true) || matches!(e, Event::ServerUp(_)) {
                            cap[h as usize][t as usize..]
                                .iter_mut()
                                .for_each(|x| *x = c);
                        }
                    }
                    _ => {}
                },
            }
            check(d.scheduler(), &cap, &cancelled_at, t);
        }
        d.on_event(
            t,
            Event::SlotAdvanced,
            &mut sink,
            &mut |_: &OasisDecision<'_>| {},
        )
        .unwrap();
    }
    d.finish(&mut sink, &mut |_: &OasisDecision<'_>| {})
        .unwrap();
    let sc = d.scheduler();
    for j in 0..sc.jobs.len() as u32 {
        assert!(sc.status(j).is_some());
        assert_ne!(
            sc.status(j),
            Some(Status::Unfinished),
            "every job is decided by T"
        );
    }
    sink.records
}

/// The rules at one point of a run: the ledger within the capacity in force at every slot,
/// the market's usage the ledger's plus the capacity withheld, nothing held by a cancelled
/// job from its cancel on, and the fast DP agreeing with the paper-literal reference on the
/// market as it stands.
fn check(s: &OasisScheduler, cap: &[Vec<f64>], cancelled_at: &[Option<u32>], now: u32) {
    let nw = s.market.workers.servers();
    for (h, row) in cap.iter().enumerate() {
        let h = h as u32;
        let (pool, k) = s.market.pool_of(h);
        for (t, &c) in row.iter().enumerate() {
            let t = t as u32;
            let u = held(s, t, h);
            assert!(u <= c + 1e-9, "server {h} slot {t}: {u} held, {c} in force");
            if t >= now {
                let withheld = pool.capacity(k, 0) - c;
                let m = pool.usage(t, k, 0);
                assert!(
                    (m - u - withheld).abs() < 1e-9,
                    "server {h} slot {t}: market {m}, held {u} + {withheld}"
                );
            }
        }
    }
    let _ = nw;
    for (j, at) in cancelled_at.iter().enumerate() {
        if let Some(at) = at {
            assert!(s.ledger.holds(j as u32).iter().all(|e| e.slot < *at));
        }
    }
    // the fast DP and the reference agree on the market after the events
    let mut scn = OasisScenario {
        slots: s.market.slots(),
        resources: 1,
        worker_servers: (0..nw)
            .map(|h| rv(&[s.market.workers.capacity(h, 0)]))
            .collect(),
        ps_servers: (0..s.market.ps.servers())
            .map(|k| rv(&[s.market.ps.capacity(k, 0)]))
            .collect(),
        prices: Some(*s.market.bounds()),
        jobs: Vec::new(),
        throughput: None,
    };
    let Some(mut probe) = s.jobs.first().cloned() else {
        return;
    };
    probe.arrival = now;
    scn.jobs.push(probe.clone());
    let mut rm = reference::RefMarket::new(&scn).unwrap();
    rm.set_usage(
        |t, h, r| s.market.workers.usage(t, h, r),
        |t, k, r| s.market.ps.usage(t, k, r),
    );
    let want = reference::decide(&rm, &probe).decision;
    let mut m = s.market.clone();
    m.settle();
    m.advance(now);
    let p = market::JobParams::of(&probe);
    let Some(size) = FastDp::size_of(&m, &p, &probe.utility) else {
        assert!(!want.admitted);
        return;
    };
    let got = FastDp::new(size).decide(&m, 0, &p, &probe.utility).unwrap();
    assert_eq!(
        (got.admitted, got.completion_slot),
        (want.admitted, want.completion_slot)
    );
}
