//! Kind `"route"`: servers are the scenario's `topology.nodes[].id`; role `worker` on compute
//! nodes (one per entry of `compute_nodes`, a compute slot) and `ps` on the job's PS node (count
//! 1), both from `start` for the job's `duration` (or the row's `run_length`, a re-planned
//! rest). Runs an open-world event cut (`cut_runs`) hold the same from their `start` to their
//! `end`. A run `deadline-preemptive` cut to make room (`route.preempted`) is not in the
//! result (closed-world results stay as they were).
use crate::kinds::route::doc::{RouteJobDoc, RouteJobResult};
use crate::occupancy::{Builder, Role, Span};

/// The occupancy of a `"route"` result's jobs (`docs`: the scenario's jobs, same order, for
/// `ps` and `duration`); a job with no compute node was not placed and holds nothing.
pub fn spans(docs: &[RouteJobDoc], jobs: &[RouteJobResult]) -> Vec<Span> {
    let mut b = Builder::default();
    for (d, j) in docs.iter().zip(jobs) {
        for c in &j.cut_runs {
            hold(
                &mut b,
                j,
                &d.ps,
                &c.compute_nodes,
                (c.start as u64, c.end as u64),
            );
        }
        if j.compute_nodes.is_empty() {
            continue;
        }
        // `duration` is validated as a whole number >= 1.
        let len = j.run_length.map_or(d.duration as u64, u64::from);
        let run = (j.start as u64, j.start as u64 + len);
        hold(&mut b, j, &d.ps, &j.compute_nodes, run);
    }
    b.finish()
}

/// Job `j`'s run `run` (slots, end exclusive): a worker slot per compute node and its PS.
fn hold(b: &mut Builder, j: &RouteJobResult, ps: &str, nodes: &[String], run: (u64, u64)) {
    for node in nodes {
        b.hold(&j.id, node.clone(), Role::Worker, 1, run);
    }
    b.hold(&j.id, ps.to_string(), Role::Ps, 1, run);
}
