//! CSRP hot loops (Song et al. 2023): Dijkstra with a binary heap against the O(V^2)
//! reference on 1,500-compute-node fabrics, and one CSRP decision (30 particles x 100
//! iterations, Algorithm 1) on the 1,500-node Jupiter-like Clos (target <= 1 s).
use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use mlsched_kernel::log::HashSink;
use mlsched_kernel::model::route::{NodeKind, PsoParams, RouteJob, RouteScenario, Topology};
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::route::dijkstra::{reference, Dijkstra, Weight};
use mlsched_kernel::route::graph::Graph;
use mlsched_kernel::route::topo::{clos, fat_tree, fat_tree_k, ClosShape, TopoParams};
use mlsched_kernel::route::{Policy, RouteScheduler};

fn params() -> TopoParams {
    TopoParams {
        hosts: 1500,
        ps: 10,
        ..TopoParams::default()
    }
}

fn dijkstra(c: &mut Criterion) {
    let fabrics: [(&str, Topology); 2] = [
        (
            "fat-tree k=20",
            fat_tree(fat_tree_k(1500), &params(), &mut SplitMix64::new(1)),
        ),
        (
            "clos",
            clos(
                &ClosShape::for_hosts(1500),
                &params(),
                &mut SplitMix64::new(1),
            ),
        ),
    ];
    for (name, t) in fabrics {
        let g = Graph::new(&t).unwrap();
        let src = (t.nodes.len() - 1) as u32; // a PS node
        let mut grp = c.benchmark_group(format!(
            "route/dijkstra {name} ({} nodes, {} links)",
            g.nodes(),
            g.links()
        ));
        grp.bench_function("reference O(V^2)", |b| {
            b.iter(|| black_box(reference(&g, black_box(src), Weight::Load)))
        });
        grp.bench_function("fast binary heap", |b| {
            let mut d = Dijkstra::new(g.nodes(), g.links());
            b.iter(|| {
                d.run(&g, black_box(src), Weight::Load).unwrap();
                black_box(d.dist(0))
            })
        });
        grp.finish();
    }
}

fn one_job(aggregate: bool) -> RouteScenario {
    let topology = clos(
        &ClosShape::for_hosts(1500),
        &params(),
        &mut SplitMix64::new(1),
    );
    let ps = topology
        .nodes
        .iter()
        .position(|n| n.kind == NodeKind::Ps)
        .unwrap() as u32;
    RouteScenario {
        seed: 5,
        aggregate,
        topology,
        jobs: vec![RouteJob {
            ps,
            workers: 4,
            release: 0,
            duration: 10,
            deadline: 20,
            bandwidth: 1.0,
        }],
        pso: PsoParams::default(),
        load_factor: 3.0,
        beta: 4.0,
    }
}

fn csrp(c: &mut Criterion) {
    let mut grp = c.benchmark_group(
        "route/csrp 1 job x 4 workers, 30 particles x 100 iterations, 1500-node clos",
    );
    grp.sample_size(10);
    for (name, agg) in [("CSRP", false), ("Aggregated CSRP", true)] {
        let s = one_job(agg);
        grp.bench_function(name, |b| {
            b.iter_batched(
                || RouteScheduler::new(&s, Policy::Csrp).unwrap(),
                |r| black_box(r.run(&mut HashSink::new()).unwrap()),
                BatchSize::LargeInput,
            )
        });
    }
    let s = one_job(false);
    grp.bench_function("FIFO baseline", |b| {
        b.iter_batched(
            || RouteScheduler::new(&s, Policy::Fifo).unwrap(),
            |r| black_box(r.run(&mut HashSink::new()).unwrap()),
            BatchSize::LargeInput,
        )
    });
    grp.finish();
}

criterion_group!(benches, dijkstra, csrp);
criterion_main!(benches);
