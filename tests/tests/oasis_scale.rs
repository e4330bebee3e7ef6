//! The sparse OASiS market at production scale: a 12,500-worker-server, 100,000-slot cluster
//! builds in memory that follows the bookings (no T x H grid, no `LEDGER_CELLS_MAX`), decides,
//! and books exactly the admitted schedules.
use mlsched_kernel::model::oasis::{OasisJob, OasisScenario, PriceBounds, Utility};
use mlsched_kernel::oasis::OasisScheduler;
use mlsched_kernel::ResourceVec;
use std::collections::BTreeMap;

fn rv(v: &[f64]) -> ResourceVec {
    ResourceVec::from_slice(v).unwrap()
}

fn big() -> OasisScenario {
    let jobs = (0..60u32)
        .map(|i| OasisJob {
            arrival: i * 1_500,
            epochs: 4 + i % 5,
            chunks: 1 + i % 8,
            minibatches_per_chunk: 2,
            minibatch_time: 0.2,
            comm_time: 0.01,
            worker_bw: 1.0,
            ps_bw: 4.0,
            worker_demand: rv(&[1.0 + (i % 4) as f64, 4.0]),
            ps_demand: rv(&[0.0, 2.0]),
            utility: Utility::Sigmoid {
                priority: 50.0,
                decay: 0.5,
                target: 10.0,
            },
        })
        .collect();
    OasisScenario {
        slots: 100_000,
        resources: 2,
        worker_servers: (0..12_500)
            .map(|h| rv(&[8.0, 64.0 + (h % 3) as f64]))
            .collect(),
        ps_servers: (0..2_000).map(|_| rv(&[0.0, 32.0])).collect(),
        prices: Some(PriceBounds {
            u_worker: rv(&[40.0, 10.0]),
            u_ps: rv(&[40.0, 10.0]),
            l_worker: 0.5,
            l_ps: 0.5,
        }),
        jobs,
        throughput: None,
    }
}

#[test]
fn a_cluster_of_12500_servers_and_100000_slots_runs_sparse() {
    let scn = big();
    let mut s = OasisScheduler::new(&scn).expect("builds without a T x H ledger");
    assert_eq!(
        s.market().workers.breakpoints() + s.market().ps.breakpoints(),
        0
    );
    // Expected usage of every booked (slot, server) cell, from the schedules themselves.
    let mut want: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    let (mut admitted, mut pairs) = (0, 0usize);
    for idx in s.arrival_order() {
        let job = &scn.jobs[idx as usize];
        let d = s.decide(job.arrival, idx).expect("decides");
        if d.admitted {
            admitted += 1;
            for sp in s.last_schedule().iter() {
                for &[h, y] in sp.worker_pairs {
                    *want.entry((sp.slot, h)).or_default() += job.worker_demand.get(0) * y as f64;
                    pairs += 1;
                }
            }
        }
    }
    assert!(admitted > 10, "{admitted} admitted");
    let m = s.market();
    // Memory follows the bookings: at most two breakpoints per booked (slot, server) pair.
    assert!(
        m.workers.breakpoints() <= 2 * pairs,
        "{} > 2 x {pairs}",
        m.workers.breakpoints()
    );
    for (&(t, h), &g) in &want {
        assert_eq!(m.workers.usage(t, h, 0), g, "usage at t {t} h {h}");
        for dt in [1u32, 2] {
            if !want.contains_key(&(t + dt, h)) && t + dt < m.slots() {
                assert_eq!(
                    m.workers.usage(t + dt, h, 0),
                    0.0,
                    "untouched after t {t} h {h}"
                );
            }
        }
    }
    assert_eq!(m.workers.usage(99_999, 12_499, 0), 0.0);
    assert_eq!(m.workers.price(99_999, 12_499, 0), 0.5);
}

/// The decision log of a generated cluster with many servers (`mlsched gen oasis --nodes 2000
/// --jobs 1000`: T = 213, 2,000 worker + 2,000 PS servers; its `log_hash`), pinned before the
/// work on issue 15 (per-decision latency on a 100,000-GPU cluster): every speed-up of the fast
/// path must keep each decision and schedule bit for bit.
#[test]
fn a_generated_2000_node_cluster_keeps_its_decision_log() {
    use mlsched_kernel::log::{HashSink, LogSink};
    use mlsched_lab::gen::GenOptions;
    let doc = mlsched_lab::gen::oasis::generate(&GenOptions {
        seed: 1,
        jobs: Some(1000),
        nodes: Some(2000),
        ..GenOptions::default()
    })
    .expect("generates");
    let scn = doc.validate().expect("valid");
    let mut s = OasisScheduler::new(&scn).expect("builds");
    let mut sink = HashSink::new();
    let mut admitted = 0;
    for idx in s.arrival_order() {
        let a = scn.jobs[idx as usize].arrival;
        admitted += s
            .decide_logged(a, idx, &mut sink)
            .expect("decides")
            .admitted as u32;
    }
    assert_eq!(admitted, 126);
    assert_eq!(sink.hash().hex().as_str(), "060dd6e9d0023907");
}
