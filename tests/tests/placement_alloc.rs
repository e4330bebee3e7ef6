//! Liu et al. (kind "placement"): `Placer::run` allocates nothing once the placer is built —
//! every method on the bundled placement scenarios, under a counting global allocator.
use mlsched_kernel::log::HashSink;
use mlsched_kernel::model::placement::Method;
use mlsched_kernel::placement::Placer;
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::doc::{parse, ScenarioDoc};
use mlsched_tests::alloc_count::{allocations, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[test]
fn runs_allocate_nothing() {
    let mut checked = 0;
    for (name, text) in SCENARIOS.iter().filter(|(n, _)| n.starts_with("placement")) {
        let ScenarioDoc::Placement(d) = parse(text).unwrap() else {
            panic!("{name}")
        };
        let scn = d.validate().unwrap();
        for m in [
            Method::Has,
            Method::Jps,
            Method::Exact,
            Method::Exhaustive,
            Method::Optimus,
            Method::OptimusLb,
            Method::Las,
        ] {
            let mut p = Placer::new(&scn).unwrap();
            let mut sink = HashSink::new();
            let mut seen = 0u64;
            let (r, allocated) = allocations(|| p.run(m, &mut sink, |_| seen += 1));
            // Exhaustive search refuses the larger scenarios (S^K too big): that path too.
            if m != Method::Exhaustive || name.ends_with("table2") {
                r.unwrap();
            }
            assert_eq!(allocated, 0, "{name} {m:?}");
            checked += 1;
        }
    }
    assert!(checked >= 7);
}

/// Every worker distinct (each its own class, the market's per-worker fast paths): HAS, JPS
/// and the exact method allocate nothing either.
#[test]
fn distinct_worker_runs_allocate_nothing() {
    use mlsched_kernel::model::placement::{JpsParams, PlacementJob, PlacementScenario, Worker};
    use mlsched_kernel::rng::SplitMix64;
    let mut r = SplitMix64::new(21);
    let (s, k) = (4usize, 40usize);
    let scn = PlacementScenario {
        method: Method::Has,
        workers: (0..k)
            .map(|w| Worker {
                gpu_type: (w % 3) as u32,
                node: (w / 5) as u32,
            })
            .collect(),
        intra_node: 37.5e9,
        inter_node: 1.25e9,
        jobs: (0..s)
            .map(|_| PlacementJob {
                samples: r.range_f64(3e4, 1e5),
                epochs: 100.0,
                model_bytes: r.range_f64(4e7, 5.5e8),
                throughput: (0..k).map(|_| r.range_f64(200.0, 2000.0)).collect(),
            })
            .collect(),
        include_comm: true,
        jps: JpsParams {
            samples: 40,
            alpha: 0.7,
            beta: 1.0,
        },
        seed: 1,
        solver: Default::default(),
    };
    for m in [Method::Has, Method::Jps, Method::Exact] {
        let mut p = Placer::new(&scn).unwrap();
        assert_eq!(p.instance().classes.len(), k, "every worker its own class");
        let mut sink = HashSink::new();
        let (r, allocated) = allocations(|| p.run(m, &mut sink, |_| {}));
        r.unwrap();
        assert_eq!(allocated, 0, "distinct {m:?}");
    }
    // The transfer solver (`"solver": "transfer"`): its scratch is sized in `Placer::new`,
    // on distinct workers (certified categories) and typed ones (the market fallback and
    // re-seeding).
    use mlsched_kernel::model::placement::CategorySolver;
    let mut typed = scn.clone();
    for j in typed.jobs.iter_mut() {
        for w in 0..k {
            j.throughput[w] = j.throughput[w % 3];
        }
    }
    for base in [&scn, &typed] {
        let tscn = PlacementScenario {
            solver: CategorySolver::Transfer,
            ..base.clone()
        };
        for m in [Method::Has, Method::Jps] {
            let mut p = Placer::new(&tscn).unwrap();
            let mut sink = HashSink::new();
            let (r, allocated) = allocations(|| p.run(m, &mut sink, |_| {}));
            let t = r.unwrap().transfer.unwrap();
            assert!(t.categories + t.degenerate > 0);
            assert_eq!(allocated, 0, "transfer {m:?}");
        }
    }
}
