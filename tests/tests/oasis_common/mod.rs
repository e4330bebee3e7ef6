//! Shared helpers of the OASiS tests: small random instances and the schedule invariants.
#![allow(dead_code)]
use mlsched_kernel::model::oasis::{OasisJob, OasisScenario, PriceBounds, Utility};
use mlsched_kernel::oasis::{JobParams, Market, OasisJobDecision, Reason, Schedule};
use mlsched_kernel::price::oasis_price;
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::ResourceVec;

fn rv(v: &[f64]) -> ResourceVec {
    ResourceVec::from_slice(v).unwrap()
}

/// A small random instance (T <= 12, workload <= 60 chunks, 2-4 servers per pool, tight
/// capacities so that some jobs are rejected).
pub fn small_instance(seed: u64) -> OasisScenario {
    let mut g = SplitMix64::new(seed);
    let r = 2 + g.below(2) as usize;
    let slots = 2 + g.below(11) as u32;
    let pool = |g: &mut SplitMix64| -> Vec<ResourceVec> {
        let n = 2 + g.below(3) as usize;
        (0..n)
            .map(|_| rv(&(0..r).map(|_| (1 + g.below(10)) as f64).collect::<Vec<_>>()))
            .collect()
    };
    let worker_servers = pool(&mut g);
    let ps_servers = pool(&mut g);
    let jobs = (0..2 + g.below(5))
        .map(|_| {
            let chunks = 1 + g.below(8) as u32;
            let epochs = 1 + g.below((60 / chunks).min(8) as u64) as u32;
            let demand = |g: &mut SplitMix64| {
                let mut v: Vec<f64> = (0..r).map(|_| g.below(4) as f64).collect();
                if g.below(3) == 0 {
                    v[0] = 0.5 * (1 + g.below(3)) as f64; // fractional demands too
                }
                rv(&v)
            };
            let utility = if g.below(2) == 0 {
                Utility::Sigmoid {
                    priority: g.range_f64(1.0, 60.0),
                    decay: [0.0, g.range_f64(0.01, 1.0), g.range_f64(4.0, 6.0)]
                        [g.below(3) as usize],
                    target: g.range_f64(0.0, 6.0),
                }
            } else {
                let mut v = g.range_f64(1.0, 60.0);
                Utility::Table(
                    (0..1 + g.below(8))
                        .map(|_| {
                            v *= g.range_f64(0.3, 1.0);
                            v
                        })
                        .collect(),
                )
            };
            OasisJob {
                arrival: g.below(slots as u64 / 2 + 1) as u32,
                epochs,
                chunks,
                minibatches_per_chunk: 1 + g.below(4) as u32,
                minibatch_time: [0.05, 0.1, 0.25, 0.3, 0.7][g.below(5) as usize],
                comm_time: [0.0, 0.01, 0.05][g.below(3) as usize],
                worker_bw: 1.0 + g.below(3) as f64,
                ps_bw: 1.0 + g.below(6) as f64,
                worker_demand: demand(&mut g),
                ps_demand: demand(&mut g),
                utility,
            }
        })
        .collect();
    let u = |g: &mut SplitMix64| rv(&(0..r).map(|_| g.range_f64(1.0, 40.0)).collect::<Vec<_>>());
    let prices = Some(PriceBounds {
        u_worker: u(&mut g),
        u_ps: u(&mut g),
        l_worker: g.range_f64(0.01, 0.8),
        l_ps: g.range_f64(0.01, 0.8),
    });
    OasisScenario {
        slots,
        resources: r as u32,
        worker_servers,
        ps_servers,
        prices,
        jobs,
        throughput: None,
    }
}

/// A medium instance (T 20-30, workload up to ~400 chunks, up to 6 servers per pool), for the
/// row band and pruning paths that tiny instances rarely reach.
pub fn medium_instance(seed: u64) -> OasisScenario {
    let mut scn = small_instance(seed);
    let mut g = SplitMix64::new(seed ^ 0x5eed);
    scn.slots = 20 + g.below(11) as u32;
    let r = scn.resources as usize;
    for pool in [&mut scn.worker_servers, &mut scn.ps_servers] {
        while pool.len() < 6 {
            pool.push(rv(&(0..r)
                .map(|_| (1 + g.below(20)) as f64)
                .collect::<Vec<_>>()));
        }
        for c in pool.iter_mut() {
            for x in c.as_mut_slice() {
                *x *= 2.0;
            }
        }
    }
    for j in &mut scn.jobs {
        j.arrival = g.below(scn.slots as u64 / 2) as u32;
        j.chunks = 2 + g.below(12) as u32;
        j.epochs = 5 + g.below(30) as u32;
        j.minibatch_time = [0.01, 0.02, 0.05, 0.1][g.below(4) as usize];
        j.comm_time = 0.0;
        j.minibatches_per_chunk = 1 + g.below(3) as u32;
    }
    scn
}

/// Relative closeness used by the comparisons (1e-9 relative, absolute near 0).
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// One slot of an owned schedule: (t, `[h, y]` pairs, `[k, z]` pairs).
pub type OwnedSlot = (u32, Vec<[u32; 2]>, Vec<[u32; 2]>);

/// Recomputes a schedule's cost from the market's current prices, slot by slot.
pub fn priced_cost(m: &Market, job: &JobParams, slots: &[OwnedSlot]) -> f64 {
    let mut c = 0.0;
    for (t, w, p) in slots {
        for &[h, y] in w {
            c += m.workers.unit_price(*t, h, &job.worker_demand) * y as f64;
        }
        for &[k, z] in p {
            c += m.ps.unit_price(*t, k, &job.ps_demand) * z as f64;
        }
    }
    c
}

/// An owned copy of a schedule: (slot, worker pairs, ps pairs) plus chunks per slot.
pub fn owned(s: &Schedule<'_>) -> (Vec<OwnedSlot>, Vec<u64>) {
    let mut v = Vec::new();
    let mut c = Vec::new();
    for sp in s.iter() {
        v.push((sp.slot, sp.worker_pairs.to_vec(), sp.ps_pairs.to_vec()));
        c.push(sp.chunks);
    }
    (v, c)
}

/// Checks every invariant of one schedule against the market *before* it is committed.
pub fn check_schedule(m: &Market, job: &JobParams, d: &OasisJobDecision, s: &Schedule<'_>) {
    let (slots, chunks) = owned(s);
    if !d.admitted {
        assert!(
            s.is_empty() && d.completion_slot.is_none(),
            "a rejected job has no schedule"
        );
        assert_ne!(d.reason, Reason::Admitted);
        return;
    }
    let tb = d.completion_slot.expect("feasible decision has t_hat");
    assert!(tb >= job.arrival && tb < m.slots(), "t_hat within a_i..T-1");
    assert_eq!(
        slots.last().map(|s| s.0),
        Some(tb),
        "t_hat is the last slot with workers"
    );
    assert_eq!(
        chunks.iter().sum::<u64>(),
        job.workload,
        "workload D_i = E_i N_i covered (29)"
    );
    let mut sum = 0.0;
    for (sp, (&ch, (t, w, p))) in s.iter().zip(chunks.iter().zip(&slots)) {
        assert!(
            *t >= job.arrival && *t < m.slots(),
            "no slot before arrival or at/after T (9, 10)"
        );
        let y: u64 = w.iter().map(|x| x[1] as u64).sum();
        let z: u64 = p.iter().map(|x| x[1] as u64).sum();
        assert_eq!(y, sp.workers as u64);
        assert_eq!(z, sp.ps as u64);
        assert!(
            y >= job.workers_for(ch),
            "enough workers for the slot's chunks"
        );
        assert!(y <= job.max_workers as u64, "at most N_i workers (3)");
        assert!(
            z as f64 * job.ps_bw >= y as f64 * job.worker_bw - 1e-9,
            "PS bandwidth (6)"
        );
        assert!(z <= y, "PS count <= worker count (7)");
        for &[h, c] in w {
            assert!(
                c <= m.workers.fit(*t, h, &job.worker_demand),
                "worker capacity (30)"
            );
        }
        for &[k, c] in p {
            assert!(c <= m.ps.fit(*t, k, &job.ps_demand), "PS capacity (31)");
        }
        sum += sp.cost;
    }
    let priced = priced_cost(m, job, &slots);
    assert!(
        close(priced, d.cost),
        "cost {} vs priced {}",
        d.cost,
        priced
    );
    assert!(
        close(sum, d.cost),
        "per-slot costs sum {} vs {}",
        sum,
        d.cost
    );
    assert_eq!(d.payoff, d.utility - d.cost, "payoff = utility - cost");
    assert_eq!(
        d.admitted,
        mlsched_kernel::num::greater(d.payoff, 0.0),
        "admit iff payoff > 0"
    );
}

/// After a commit: usage within capacity everywhere, prices = eq. (22) of usage and never lower
/// than before (`before` = prices snapshot), unchanged where usage did not change.
pub fn check_market(m: &Market, before: &Market) {
    let r = m.resources() as usize;
    for (pool, old) in [(&m.workers, &before.workers), (&m.ps, &before.ps)] {
        let (l, u) = if std::ptr::eq(pool, &m.workers) {
            (m.bounds().l_worker, m.bounds().u_worker)
        } else {
            (m.bounds().l_ps, m.bounds().u_ps)
        };
        for t in 0..m.slots() {
            for s in 0..pool.servers() {
                for k in 0..r {
                    let (g, c) = (pool.usage(t, s, k), pool.capacity(s, k));
                    assert!(
                        g <= c + 1e-9 * c.max(1.0),
                        "capacity exceeded at t={t} s={s} r={k}: {g} > {c}"
                    );
                    let p = pool.price(t, s, k);
                    assert_eq!(
                        p,
                        oasis_price(l, u.get(k), g, c),
                        "price is eq. (22) of usage"
                    );
                    assert!(p >= old.price(t, s, k), "prices monotone in usage");
                    if g == old.usage(t, s, k) {
                        assert_eq!(p, old.price(t, s, k), "untouched cell repriced");
                    }
                }
            }
        }
    }
}
