use super::*;
use crate::model::oasis::{OasisJob, OasisScenario, PriceBounds, Utility};
use crate::oasis::market::{JobParams, Market, GROUP};
use crate::oasis::scheduler::{commit, commit_owed};
use crate::oasis::OasisError;
use crate::ResourceVec;
use alloc::vec::Vec;

fn rv(v: &[f64]) -> ResourceVec {
    ResourceVec::from_slice(v).unwrap()
}

/// The queue of unread group changes is an optimisation only: a sweep whose queue is full
/// (every group read at once) decides and places every job the same.
#[test]
fn a_full_change_queue_gives_the_same_decisions() {
    let mut x = 99u64;
    let mut draw = |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let (slots, nw, np) = (30u32, 300usize, 90usize);
    let cap = |i: u64| rv(&[8.0 + (i % 3) as f64 * 4.0, 16.0 + (i % 2) as f64 * 8.0]);
    let mut jobs = Vec::new();
    for i in 0..200u32 {
        jobs.push(OasisJob {
            arrival: i * slots / 200,
            epochs: 1 + draw(3) as u32,
            chunks: 2 + draw(30) as u32,
            minibatches_per_chunk: 1 + draw(3) as u32,
            minibatch_time: 0.2 + draw(5) as f64 * 0.1,
            comm_time: 0.01,
            worker_bw: 1.0,
            ps_bw: 1.0 + draw(3) as f64,
            worker_demand: rv(&[1.0 + draw(3) as f64, draw(4) as f64]),
            ps_demand: rv(&[1.0, 1.0 + draw(2) as f64]),
            utility: Utility::Sigmoid {
                priority: 50.0 + draw(200) as f64,
                decay: 0.02 * draw(4) as f64,
                target: 1.0 + draw(8) as f64,
            },
        });
    }
    let scn = OasisScenario {
        slots,
        resources: 2,
        worker_servers: (0..nw as u64).map(cap).collect(),
        ps_servers: (0..np as u64).map(cap).collect(),
        prices: None,
        jobs: jobs.clone(),
        throughput: None,
    };
    let bounds = PriceBounds {
        u_worker: rv(&[16.0, 16.0]),
        u_ps: rv(&[16.0, 16.0]),
        l_worker: 0.5,
        l_ps: 0.5,
    };
    let mut m = Market::new(&scn, bounds).unwrap();
    m.drop_grids(); // the queue belongs to the sweep of the time-major copy
                    // in the first third of each pool, whole groups of servers turn busy and idle from
                    // slot to slot: their changes queue up while the listing takes idle servers, and a
                    // group turning busy leaves its servers' idle keys in the index
    let p0 = JobParams::of(&OasisJob {
        worker_demand: rv(&[1.0, 1.0]),
        ps_demand: rv(&[1.0, 1.0]),
        ..jobs[0].clone()
    });
    m.reserve(nw * slots as usize, np * slots as usize);
    for t in 0..slots {
        let mut busy = false;
        for s in 0..nw as u32 / 3 {
            if s as usize % GROUP == 0 {
                busy = draw(2) == 0;
            }
            if busy {
                m.add_workers_raw(t, s, &p0, 1 + draw(3) as u32);
            }
        }
        for s in 0..np as u32 / 3 {
            m.add_ps_raw(t, s, &p0, 1 + draw(3) as u32);
        }
    }
    m.merge();
    let size = jobs
        .iter()
        .filter_map(|j| FastDp::size_of(&m, &JobParams::of(j), &j.utility))
        .fold(DpSize::default(), DpSize::max);
    let mut full = FastDp::new(size);
    let mut short = [0usize, 1, 5].map(|k| {
        let mut dp = FastDp::new(size);
        dp.wsw.occ.truncate(k);
        dp.psw.occ.truncate(k);
        dp
    });
    let mut admitted = 0;
    for (i, j) in jobs.iter().enumerate() {
        let p = JobParams::of(j);
        m.advance(p.arrival);
        let want = full.decide(&m, i as u32, &p, &j.utility).unwrap();
        for dp in &mut short {
            let got = dp.decide(&m, i as u32, &p, &j.utility).unwrap();
            assert_eq!(got, want, "job {i}");
            assert!(dp.schedule().iter().eq(full.schedule().iter()), "job {i}");
        }
        if want.admitted {
            admitted += 1;
            m.reserve(nw * slots as usize, np * slots as usize);
            m.reserve_window(&p, p.arrival, slots - p.arrival);
            commit(&mut m, &p, &full.schedule());
        }
    }
    assert!(admitted > 10, "{admitted} admitted");
}

/// The slot trees ([`Grid`]) are an optimisation only: a market without them (decisions
/// sweep the time-major copy) decides and places every job the same, on pools of mixed
/// capacities (one without a resource: its own idle stream) with idle and busy servers.
#[test]
fn slot_trees_give_the_same_decisions() {
    let mut x = 7u64;
    let mut draw = |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let (slots, nw, np) = (24u32, 700usize, 150usize);
    let cap = |i: u64| {
        rv(&[
            [0.0, 2.0, 4.0, 8.0][(i % 4) as usize],
            16.0 + (i % 3) as f64 * 8.0,
            32.0 + (i % 5) as f64 * 16.0,
        ])
    };
    let mut jobs = Vec::new();
    for i in 0..260u32 {
        jobs.push(OasisJob {
            arrival: i * slots / 260,
            epochs: 1 + draw(3) as u32,
            chunks: 2 + draw(40) as u32,
            minibatches_per_chunk: 1 + draw(3) as u32,
            minibatch_time: 0.2 + draw(5) as f64 * 0.1,
            comm_time: 0.01,
            worker_bw: 1.0,
            ps_bw: 1.0 + draw(3) as f64,
            worker_demand: rv(&[draw(3) as f64, 1.0 + draw(6) as f64, draw(9) as f64]),
            // every seventh job's parameter servers demand nothing: every server has room
            ps_demand: if i % 7 == 3 {
                rv(&[0.0, 0.0, 0.0])
            } else {
                rv(&[0.0, 1.0 + draw(4) as f64, 2.0 + draw(5) as f64])
            },
            utility: Utility::Sigmoid {
                priority: 50.0 + draw(400) as f64,
                decay: 0.02 * draw(4) as f64,
                target: 1.0 + draw(8) as f64,
            },
        });
    }
    let scn = OasisScenario {
        slots,
        resources: 3,
        worker_servers: (0..nw as u64).map(cap).collect(),
        ps_servers: (0..np as u64).map(|i| cap(i + 1)).collect(),
        prices: None,
        jobs: jobs.clone(),
        throughput: None,
    };
    let bounds = PriceBounds {
        u_worker: rv(&[64.0, 16.0, 8.0]),
        u_ps: rv(&[64.0, 16.0, 8.0]),
        l_worker: 0.25,
        l_ps: 0.25,
    };
    let mut a = Market::new(&scn, bounds).unwrap();
    assert!(a.has_grids());
    let mut b = a.clone();
    b.drop_grids();
    let size = jobs
        .iter()
        .filter_map(|j| FastDp::size_of(&a, &JobParams::of(j), &j.utility))
        .fold(DpSize::default(), DpSize::max);
    let (mut da, mut db) = (FastDp::new(size), FastDp::new(size));
    let mut admitted = 0;
    for (i, j) in jobs.iter().enumerate() {
        let p = JobParams::of(j);
        a.advance(p.arrival);
        b.advance(p.arrival);
        if !a.settled() {
            // a listing refuses trees that owe a commit's cells; settled, they decide
            // as if synced at the commit
            let e = da.decide(&a, i as u32, &p, &j.utility);
            assert_eq!(e, Err(OasisError::Unsettled), "job {i}");
            a.settle();
            assert!(a.settled());
        }
        let got = da.decide(&a, i as u32, &p, &j.utility).unwrap();
        let want = db.decide(&b, i as u32, &p, &j.utility).unwrap();
        assert_eq!(got, want, "job {i}");
        assert!(da.schedule().iter().eq(db.schedule().iter()), "job {i}");
        if want.admitted {
            admitted += 1;
            for (k, m) in [&mut a, &mut b].into_iter().enumerate() {
                m.reserve(nw * slots as usize, np * slots as usize);
                m.reserve_window(&p, p.arrival, slots - p.arrival);
                if k == 0 && admitted % 2 == 0 {
                    // every other admission leaves the trees' sync owed, as the
                    // scheduler does
                    commit_owed(m, &p, &db.schedule());
                    assert!(!m.settled());
                } else {
                    commit(m, &p, &db.schedule());
                }
            }
        }
    }
    assert!(admitted > 30, "{admitted} admitted");
}
