//! A counting global allocator proves that a whole CSRP / Aggregated CSRP / baseline run —
//! every Dijkstra, PSO, aggregation and decision record — allocates nothing once the
//! [`RouteScheduler`] is built (all scratch is sized in `RouteScheduler::new`).
use mlsched_kernel::log::HashSink;
use mlsched_kernel::model::route::{NodeKind, PsoParams, RouteJob, RouteScenario};
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::route::topo::{fat_tree, TopoParams};
use mlsched_kernel::route::{Policy, RouteScheduler};
use mlsched_tests::alloc_count::{allocations, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn scenario(aggregate: bool) -> RouteScenario {
    let mut rng = SplitMix64::new(4);
    let p = TopoParams {
        hosts: 16,
        ps: 2,
        slots: 2,
        ..TopoParams::default()
    };
    let topology = fat_tree(4, &p, &mut rng);
    let ps: Vec<u32> = (0..topology.nodes.len() as u32)
        .filter(|&v| topology.nodes[v as usize].kind == NodeKind::Ps)
        .collect();
    let jobs = (0..40)
        .map(|i| RouteJob {
            ps: ps[i % 2],
            workers: 1 + (i % 4) as u32,
            release: (i / 4) as u32,
            duration: 2 + (i % 5) as u32,
            deadline: (i / 4) as u32 + 8,
            bandwidth: 1.0,
        })
        .collect();
    RouteScenario {
        seed: 9,
        aggregate,
        topology,
        jobs,
        pso: PsoParams {
            particles: 8,
            iterations: 10,
            ..PsoParams::default()
        },
        load_factor: 3.0,
        beta: 4.0,
    }
}

#[test]
fn a_whole_run_allocates_nothing_after_build() {
    for (agg, policy) in [
        (false, Policy::Csrp),
        (true, Policy::Csrp),
        (false, Policy::Fifo),
        (false, Policy::Fair),
        (false, Policy::Capacity),
        (false, Policy::Deadline),
        (false, Policy::DeadlinePreemptive),
    ] {
        let s = scenario(agg);
        let router = RouteScheduler::new(&s, policy).unwrap();
        let mut sink = HashSink::new();
        let (out, allocated) = allocations(|| router.run(&mut sink).unwrap());
        assert_eq!(allocated, 0, "{policy:?} (aggregate {agg}) allocated");
        assert_eq!(out.plans.len(), 40);
    }
}
