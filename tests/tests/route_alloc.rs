//! A counting global allocator proves that a whole CSRP / Aggregated CSRP / baseline run —
//! every Dijkstra, PSO, aggregation and decision record — allocates nothing once the
//! [`Router`] is built (all scratch is sized in `Router::new`).
use mlsched_kernel::log::HashSink;
use mlsched_kernel::model::route::{NodeKind, PsoParams, RouteJob, RouteScenario};
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::route::topo::{fat_tree, TopoParams};
use mlsched_kernel::route::{Policy, Router};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::SeqCst);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
    ] {
        let s = scenario(agg);
        let router = Router::new(&s, policy).unwrap();
        let mut sink = HashSink::new();
        let before = ALLOCS.load(Ordering::SeqCst);
        let out = router.run(&mut sink).unwrap();
        let after = ALLOCS.load(Ordering::SeqCst);
        assert_eq!(after, before, "{policy:?} (aggregate {agg}) allocated");
        assert_eq!(out.plans.len(), 40);
    }
}
