//! Kind `"placement"`: servers `k<k>` (worker k of `workers`, one GPU); role `worker`, count 1;
//! times in **seconds**: every job holds the workers of `best.assignment` from 0 to its
//! `best.jct` rounded up to a whole second (a static assignment: all jobs start together).
//! After open-world events, the spans the jobs really held (`PlacementScheduler::holds`):
//! each from its run's start to its end rounded up, or to the cancel or interruption that
//! stopped it.
use crate::kinds::placement::doc::PlacementBest;
use crate::occupancy::{Builder, Role, Span};
use mlsched_kernel::placement::Hold;

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

/// The occupancy of the runs an open-world run produced (`holds`: the kernel's spans, job
/// indices into `ids`). A span with an infinite end (V_i = 0 on its workers) holds nothing, as
/// in [`spans`]. Rounding the end up overlaps nothing: a worker is free again only at a whole
/// second at or after its span's end.
pub fn holds(ids: &[&str], holds: &[Hold]) -> Vec<Span> {
    let mut b = Builder::default();
    for h in holds.iter().filter(|h| h.to.is_finite()) {
        let Some(id) = ids.get(h.job as usize) else {
            continue;
        };
        // Seconds since the batch, whole at the start (an event's time); f64 -> u64 saturates.
        let span = (h.from as u64, h.to.ceil() as u64);
        b.hold(id, format!("k{}", h.worker), Role::Worker, 1, span);
    }
    b.finish()
}
