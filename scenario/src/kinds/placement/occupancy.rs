//! Kind `"placement"`: servers `k<k>` (worker k of `workers`, one GPU); role `worker`, count 1;
//! times in **seconds**: every job holds the workers of `best.assignment` from 0 to its
//! `best.jct` rounded up to a whole second (a static assignment: all jobs start together).
use crate::kinds::placement::doc::PlacementBest;
use crate::occupancy::{Builder, Role, Span};

/// The occupancy of a `"placement"` result's chosen assignment (a job whose JCT is infinite or
/// 0 holds nothing).
pub fn spans(best: &PlacementBest) -> Vec<Span> {
    let mut b = Builder::default();
    for (job, workers) in &best.assignment {
        let Some(&jct) = best.jct.get(job).filter(|x| x.is_finite() && **x > 0.0) else {
            continue;
        };
        // f64 -> u64 saturates; a finite JCT beyond 2^64 seconds is no real run.
        let to = jct.ceil() as u64;
        for &k in workers {
            b.hold(job, format!("k{k}"), Role::Worker, 1, (0, to));
        }
    }
    b.finish()
}
