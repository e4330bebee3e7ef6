//! CSRP / Aggregated CSRP and the routing baselines (Song et al. 2023): invariants of every
//! schedule (eqs. 6-10), the fast paths against their paper-literal references (Dijkstra vs
//! O(V^2), the incremental eq. 11 vs the set-based recomputation of eqs. 1-3), determinism.
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::index::NONE;
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::route::{Link, Node, NodeKind, RouteScenario, Topology};
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::route::dijkstra::{reference, Dijkstra, Weight};
use mlsched_kernel::route::graph::Graph;
use mlsched_kernel::route::reference::{summary as reference_summary, Decided};
use mlsched_kernel::route::topo::{clos, fat_tree, ClosShape, TopoParams};
use mlsched_kernel::route::RouteDecision;
use mlsched_kernel::route::{Policy, RouteOutcome, RouteScheduler};
use mlsched_tests::route_instances::{self, random_jobs, JobRanges};
use proptest::prelude::*;

const POLICIES: [Policy; 5] = [
    Policy::Csrp,
    Policy::Fifo,
    Policy::Fair,
    Policy::Capacity,
    Policy::Deadline,
];

/// A random scenario on a 4-ary fat-tree (16 hosts) or a small Clos.
fn scenario(seed: u64, jobs: usize, aggregate: bool, use_clos: bool) -> RouteScenario {
    let mut rng = SplitMix64::new(seed);
    let p = TopoParams {
        hosts: 16,
        ps: 3,
        slots: 1 + rng.below(4) as u32,
        background: (0.0, 0.95),
        ..TopoParams::default()
    };
    let topology = if use_clos {
        let s = ClosShape {
            spines: 4,
            blocks: 2,
            middles: 2,
            tors: 2,
            hosts_per_tor: 4,
        };
        clos(&s, &p, &mut rng)
    } else {
        fat_tree(4, &p, &mut rng)
    };
    let r = JobRanges {
        release: 20,
        duration: 8,
        workers: 5,
        slack: 10,
    };
    let jobs = random_jobs(&topology, jobs, &r, &mut rng);
    route_instances::scenario(seed, aggregate, topology, jobs, 6, 8)
}

fn run(s: &RouteScenario, p: Policy) -> (RouteOutcome, String) {
    let mut sink = HashSink::new();
    let out = RouteScheduler::new(s, p).unwrap().run(&mut sink).unwrap();
    (out, sink.hash().hex().to_string())
}

/// (slot, job) of every placement in decision order, from a run driven event by event as
/// `RouteScheduler::run` drives it (releases at their times, then `SlotAdvanced`).
fn decision_times(s: &RouteScenario, p: Policy) -> Vec<(u32, u32)> {
    let mut r = RouteScheduler::new(s, p).unwrap();
    let arrivals: Vec<(u32, u32)> = r
        .release_order()
        .iter()
        .map(|&j| (s.jobs[j as usize].release, j))
        .collect();
    let mut placed = Vec::new();
    let mut next = 0;
    let earliest = |a: Option<u32>, b: Option<u32>| match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    };
    let mut t = earliest(arrivals.first().map(|a| a.0), r.next_wakeup(None));
    while let Some(now) = t {
        while next < arrivals.len() && arrivals[next].0 <= now {
            r.on_event(
                now,
                Event::JobArrived(arrivals[next].1),
                &mut |_: &RouteDecision| {},
            )
            .unwrap();
            next += 1;
        }
        r.on_event(now, Event::SlotAdvanced, &mut |d: &RouteDecision| {
            if let RouteDecision::Placed(rec) = d {
                placed.push((now, rec.job));
            }
        })
        .unwrap();
        let wake = r.next_wakeup(Some(now)).map(|w| w.max(now + 1));
        t = earliest(arrivals.get(next).map(|a| a.0.max(now)), wake);
    }
    placed
}

/// The reference's eqs. (1)-(5), (11) on `out`'s sets (each job's N recomputed on the link
/// state rebuilt at its decision) against the fast path's per-job N and summary.
fn check_objective(s: &RouteScenario, p: Policy, out: &RouteOutcome) {
    let times = decision_times(s, p);
    assert_eq!(times.len(), s.jobs.len(), "every job placed once");
    let mut decided: Vec<Decided> = out
        .plans
        .iter()
        .map(|p| Decided {
            start: p.start,
            decided_at: u32::MAX,
            order: u32::MAX,
            paths: (0..p.workers)
                .map(|w| out.path(p.first_path + w).to_vec())
                .collect(),
            aggregation: p.aggregation,
        })
        .collect();
    for (i, &(t, j)) in times.iter().enumerate() {
        decided[j as usize].decided_at = t;
        decided[j as usize].order = i as u32;
    }
    let r = reference_summary(&s.topology, &s.jobs, &decided, s.load_factor, s.beta)
        .expect("paths fit the topology");
    for (j, (p, n)) in out.plans.iter().zip(&r.network).enumerate() {
        assert!(
            (p.network_cost - n).abs() <= 1e-9 * n.abs().max(1.0),
            "job {j}: fast N {} vs eqs. (4)-(5) {n} ({p:?})",
            p.network_cost
        );
    }
    let sm = &out.summary;
    assert_eq!(sm.servers_used, r.servers);
    assert!((sm.deadline_violation_rate - r.rdv).abs() < 1e-12);
    assert!((sm.avg_network_cost - r.n_bar).abs() <= 1e-9 * r.n_bar.max(1.0));
    assert!((sm.cost - r.cost).abs() <= 1e-9 * r.cost.max(1.0));
}

/// Eqs. (6)-(10) and (8), plus the bandwidth promise of aggregation.
fn check_invariants(s: &RouteScenario, out: &RouteOutcome) {
    let g = Graph::new(&s.topology).unwrap();
    let n = s.topology.nodes.len();
    let horizon = out
        .plans
        .iter()
        .zip(&s.jobs)
        .map(|(p, j)| p.start + j.duration)
        .max()
        .unwrap_or(0);
    for (i, (p, j)) in out.plans.iter().zip(&s.jobs).enumerate() {
        assert!(
            p.start >= j.release,
            "job {i} starts before its release (8)"
        );
        assert_eq!(p.workers, j.workers, "job {i}: one path per worker");
        assert_eq!(p.deadline_met, p.start + j.duration <= j.deadline);
        assert!(
            p.bandwidth_units <= p.bandwidth_units_plain,
            "job {i}: aggregation increased bandwidth"
        );
        if p.aggregation == NONE {
            assert_eq!(p.bandwidth_units, p.bandwidth_units_plain);
        }
        for w in 0..p.workers {
            let path = out.path(p.first_path + w);
            assert_eq!(
                path.first(),
                Some(&j.ps),
                "job {i}: path must start at the PS"
            );
            let last = *path.last().unwrap();
            assert_eq!(
                s.topology.nodes[last as usize].kind,
                NodeKind::Compute,
                "(10)"
            );
            for e in path.windows(2) {
                assert!(
                    g.link_between(e[0], e[1]).is_some(),
                    "job {i}: not a link (9)"
                );
            }
        }
    }
    // Eq. (7) literally: for every time point Theta, count tasks running on each node.
    for theta in 0..horizon {
        let mut busy = vec![0u32; n];
        for (p, j) in out.plans.iter().zip(&s.jobs) {
            if p.start <= theta && theta < p.start + j.duration {
                for w in 0..p.workers {
                    busy[*out.path(p.first_path + w).last().unwrap() as usize] += 1;
                }
            }
        }
        for (v, (b, node)) in busy.iter().zip(&s.topology.nodes).enumerate() {
            assert!(*b <= node.slots, "node {v} over its slots at {theta} (6)");
        }
    }
}

fn random_graph(seed: u64, n: usize, extra: usize) -> Topology {
    let mut rng = SplitMix64::new(seed);
    let nodes = (0..n)
        .map(|_| Node {
            kind: NodeKind::Switch,
            slots: 0,
        })
        .collect();
    let mut links = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut add = |a: u32, b: u32, rng: &mut SplitMix64| {
        if a != b && seen.insert((a.min(b), a.max(b))) {
            // Coarse weights so that equal-distance ties are frequent.
            let capacity = 4.0;
            let used = rng.below(5) as f64;
            links.push(Link {
                a,
                b,
                capacity,
                used,
            });
        }
    };
    for v in 1..n as u32 {
        let u = rng.below(v as u64) as u32;
        add(u, v, &mut rng);
    }
    for _ in 0..extra {
        let a = rng.below(n as u64) as u32;
        let b = rng.below(n as u64) as u32;
        add(a, b, &mut rng);
    }
    Topology { nodes, links }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn dijkstra_matches_reference(seed in any::<u64>(), n in 2usize..40, extra in 0usize..80) {
        let t = random_graph(seed, n, extra);
        let g = Graph::new(&t).unwrap();
        let mut d = Dijkstra::new(n, t.links.len());
        for w in [Weight::Hops, Weight::Load] {
            for src in [0u32, (n / 2) as u32] {
                d.run(&g, src, w).unwrap();
                let (dist, hops, pred) = reference(&g, src, w);
                for v in 0..n as u32 {
                    prop_assert_eq!(d.dist(v).to_bits(), dist[v as usize].to_bits());
                    prop_assert_eq!(d.hops(v), hops[v as usize]);
                    prop_assert_eq!(d.pred(v), pred[v as usize]);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn every_policy_keeps_the_invariants(seed in any::<u64>(), jobs in 1usize..14, agg in any::<bool>(), c in any::<bool>()) {
        let s = scenario(seed, jobs, agg, c);
        for p in POLICIES {
            let (out, _) = run(&s, p);
            check_invariants(&s, &out);
            check_objective(&s, p, &out);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Every job's N (eqs. 4-5) and the summary (eqs. 1-3, 11) recomputed by the independent
    /// reference equal the fast path's, on 1,000 random scenarios (policy by seed, half of them
    /// with aggregation, fat-tree or Clos, link loads up to 0.95 C).
    #[test]
    fn reference_recomputes_the_objective(seed in any::<u64>(), jobs in 1usize..10, agg in any::<bool>(), c in any::<bool>()) {
        let s = scenario(seed, jobs, agg, c);
        let p = POLICIES[(seed % POLICIES.len() as u64) as usize];
        let (out, _) = run(&s, p);
        check_objective(&s, p, &out);
    }
}

#[test]
fn same_seed_same_output() {
    for agg in [false, true] {
        let s = scenario(11, 20, agg, false);
        let (a, ha) = run(&s, Policy::Csrp);
        let (b, hb) = run(&s, Policy::Csrp);
        assert_eq!(a, b);
        assert_eq!(ha, hb);
        let mut other = s.clone();
        other.seed = 12;
        let (_, hc) = run(&other, Policy::Csrp);
        assert_ne!(ha, hc, "the seed must reach the PSO");
    }
}

#[test]
fn aggregation_reduces_bandwidth_somewhere() {
    let mut applied = 0;
    for seed in 0..20 {
        let s = scenario(seed, 12, true, seed % 2 == 0);
        let (out, _) = run(&s, Policy::Csrp);
        check_invariants(&s, &out);
        check_objective(&s, Policy::Csrp, &out);
        applied += out.plans.iter().filter(|p| p.aggregation != NONE).count();
    }
    assert!(applied > 0, "Algorithm 2 was never applied");
}

#[test]
fn unreachable_workers_are_an_error() {
    let mut s = scenario(3, 2, false, false);
    s.jobs[0].workers = 60; // 16 hosts x at most 4 slots < 60 is possible: make sure it is.
    for n in s.topology.nodes.iter_mut() {
        if n.kind == NodeKind::Compute {
            n.slots = 1;
        }
    }
    let e = RouteScheduler::new(&s, Policy::Fifo).unwrap_err();
    assert!(e.to_string().contains("needs 60 compute slots"), "{e}");
}

#[test]
fn busy_clusters_keep_the_invariants() {
    // Many jobs on few slots: queues, reservations (CSRP starts later than `now`) and waits.
    for seed in 0..4 {
        for c in [false, true] {
            let mut s = scenario(100 + seed, 80, seed % 2 == 0, c);
            for n in s.topology.nodes.iter_mut() {
                if n.kind == NodeKind::Compute {
                    n.slots = 1;
                }
            }
            for j in s.jobs.iter_mut() {
                j.workers = j.workers.min(4);
            }
            for p in POLICIES {
                let (out, _) = run(&s, p);
                check_invariants(&s, &out);
                check_objective(&s, p, &out);
            }
        }
    }
}
