//! The distinct-worker placement instance: `tests/tests/placement_distinct.rs` pins its
//! decision-log hashes, `tests/tests/placement_transfer.rs` runs it through both per-category
//! solvers, and the benchmarks (`mlsched_benches::placement_scenario`) time it, so all three
//! read this one builder (a change to it shows in the pinned hashes).
use mlsched_kernel::model::placement::{
    JpsParams, Method, PlacementJob, PlacementScenario, Worker,
};
use mlsched_kernel::rng::SplitMix64;

/// S jobs, K workers in nodes of 5 (GPU type (w / 5) mod 3), throughputs rho_ik drawn per worker
/// (`typed` false: every worker its own class) or per GPU type (`typed` true), sized like the
/// paper's (hundreds to thousands of samples/s), JPS with N = 40. The typed columns are drawn
/// either way, so both cases share the random stream of the other fields.
pub fn distinct_scenario(seed: u64, s: usize, k: usize, typed: bool) -> PlacementScenario {
    let mut r = SplitMix64::new(seed);
    let jobs = (0..s)
        .map(|_| {
            let per_type: Vec<f64> = (0..3).map(|_| r.range_f64(200.0, 2000.0)).collect();
            PlacementJob {
                samples: r.range_f64(3e4, 1e5),
                epochs: 100.0 + r.below(101) as f64,
                model_bytes: r.range_f64(4e7, 5.5e8),
                throughput: (0..k)
                    .map(|w| {
                        if typed {
                            per_type[(w / 5) % 3]
                        } else {
                            r.range_f64(200.0, 2000.0)
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    PlacementScenario {
        method: Method::Has,
        workers: (0..k)
            .map(|w| Worker {
                gpu_type: ((w / 5) % 3) as u32,
                node: (w / 5) as u32,
            })
            .collect(),
        intra_node: 37.5e9,
        inter_node: 1.25e9,
        jobs,
        include_comm: true,
        jps: JpsParams {
            samples: 40,
            alpha: 0.7,
            beta: 1.0,
        },
        seed: 1,
        solver: Default::default(),
    }
}
