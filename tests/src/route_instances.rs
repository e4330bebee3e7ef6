//! Random CSRP (Song et al.) instances shared by the route property tests and the snapshot
//! cut-point tests: jobs on a given topology, and the scenario around them.
use mlsched_kernel::model::route::{NodeKind, PsoParams, RouteJob, RouteScenario, Topology};
use mlsched_kernel::rng::SplitMix64;

/// Exclusive upper bounds of the random job draws (`rng.below(x)`).
#[derive(Clone, Copy, Debug)]
pub struct JobRanges {
    /// Release slot in `0..release`.
    pub release: u64,
    /// Duration in `1..=duration`.
    pub duration: u64,
    /// Workers in `1..=workers`.
    pub workers: u64,
    /// Deadline slack beyond release + duration in `0..slack`.
    pub slack: u64,
}

/// `n` random jobs on `topology`, each on one of its PS nodes, bandwidth in [0.2, 3).
pub fn random_jobs(
    topology: &Topology,
    n: usize,
    r: &JobRanges,
    rng: &mut SplitMix64,
) -> Vec<RouteJob> {
    let ps: Vec<u32> = (0..topology.nodes.len() as u32)
        .filter(|&v| topology.nodes[v as usize].kind == NodeKind::Ps)
        .collect();
    (0..n)
        .map(|_| {
            let release = rng.below(r.release) as u32;
            let duration = 1 + rng.below(r.duration) as u32;
            RouteJob {
                ps: ps[rng.below(ps.len() as u64) as usize],
                workers: 1 + rng.below(r.workers) as u32,
                release,
                duration,
                deadline: release + duration + rng.below(r.slack) as u32,
                bandwidth: rng.range_f64(0.2, 3.0),
            }
        })
        .collect()
}

/// A scenario with a small PSO (`particles` x `iterations`), load factor 3 and beta = 4.
pub fn scenario(
    seed: u64,
    aggregate: bool,
    topology: Topology,
    jobs: Vec<RouteJob>,
    particles: u32,
    iterations: u32,
) -> RouteScenario {
    RouteScenario {
        seed,
        aggregate,
        topology,
        jobs,
        pso: PsoParams {
            particles,
            iterations,
            ..PsoParams::default()
        },
        load_factor: 3.0,
        beta: 4.0,
    }
}
