//! Kind `"route"`: servers are the scenario's `topology.nodes[].id`; role `worker` on compute
//! nodes (one per entry of `compute_nodes`, a compute slot) and `ps` on the job's PS node (count
//! 1), both from `start` for the job's `duration`. Only the run the result reports is held: a run
//! `deadline-preemptive` cut is not in the result.
use crate::kinds::route::doc::{RouteJobDoc, RouteJobResult};
use crate::occupancy::{Builder, Role, Span};

/// The occupancy of a `"route"` result's jobs (`docs`: the scenario's jobs, same order, for
/// `ps` and `duration`); a job with no compute node was not placed and holds nothing.
pub fn spans(docs: &[RouteJobDoc], jobs: &[RouteJobResult]) -> Vec<Span> {
    let mut b = Builder::default();
    for (d, j) in docs.iter().zip(jobs) {
        if j.compute_nodes.is_empty() {
            continue;
        }
        // `duration` is validated as a whole number >= 1.
        let run = (j.start as u64, j.start as u64 + d.duration as u64);
        for node in &j.compute_nodes {
            b.hold(&j.id, node.clone(), Role::Worker, 1, run);
        }
        b.hold(&j.id, d.ps.clone(), Role::Ps, 1, run);
    }
    b.finish()
}
