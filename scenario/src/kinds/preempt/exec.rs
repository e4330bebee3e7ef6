//! Runs kind `"preempt"`: A_online with A_greedy / A_ps (Wang et al. 2022) or a baseline
//! dispatch (`--policy all-cloud | edge-fifo | random`), and builds the result document.
use crate::error::RunError;
use crate::kinds::preempt::doc::{
    PreemptCandidate, PreemptChunk, PreemptDispatch, PreemptDoc, PreemptJobResult, PreemptPs,
    PreemptResult,
};
use crate::status::{JobStatus, StatusCounts};
use mlsched_kernel::preempt::{
    InterruptRec, Outcome, Placement, PreemptDecision, PreemptError, PreemptScheduler,
};
use mlsched_kernel::world::Status;
use mlsched_kernel::Slot;
use std::collections::{BTreeMap, BTreeSet};

/// Files one decision into the job results (PS per slot, explanations) and the open-world
/// records into `cuts` (read by [`finish`]).
pub(crate) fn collect(
    jobs: &mut [PreemptJobResult],
    cuts: &mut Vec<InterruptRec>,
    d: &PreemptDecision,
) {
    match *d {
        PreemptDecision::Candidate(c) => {
            // C_j before chunk 1 only: a re-dispatch after an interruption (open world)
            // computes C_j again; its dispatch entries follow the first ones.
            if let Some(e) = jobs
                .get_mut(c.job as usize)
                .and_then(|j| j.explain.as_mut())
                .filter(|e| e.dispatch.is_empty())
            {
                e.candidates.push(PreemptCandidate {
                    server: c.server,
                    worker: c.worker,
                    q: c.q,
                    t_star: c.t_star,
                });
            }
        }
        PreemptDecision::Dispatch(x) => {
            if let Some(e) = jobs
                .get_mut(x.job as usize)
                .and_then(|j| j.explain.as_mut())
            {
                e.dispatch.push(PreemptDispatch {
                    chunk: x.chunk,
                    server: x.server,
                    worker: x.worker,
                    q: x.q,
                    q_next: x.q_next.is_finite().then_some(x.q_next),
                    preempted: x.preempted,
                });
            }
        }
        PreemptDecision::Ps(p) => {
            if let Some(j) = jobs.get_mut(p.job as usize) {
                j.ps.push(PreemptPs {
                    slot: p.slot,
                    server: p.server,
                    ps: p.ps,
                });
            }
        }
        PreemptDecision::Interrupt(r) => cuts.push(r),
        PreemptDecision::PsMiss(_) => {}
    }
}

/// Chunks (every slot each ran in), c_j and JCT from the final plans. `cuts` are the run's
/// open-world records ([`InterruptRec`], log order): a chunk interrupted at T (recovered or
/// lost) gets one row for the run it lost (the slots before T on the worker it was on, marked
/// `interrupted`: T) and one for its run after T on its new placement; a job an event touched
/// (or that never ran) has no row for a run without a slot, so a cancelled chunk shows only the
/// slots before its cancel.
pub(crate) fn finish(
    sched: &PreemptScheduler,
    cuts: &[InterruptRec],
    jobs: &mut [PreemptJobResult],
) {
    let scn = sched.scenario();
    let mut slots: Vec<Vec<u32>> =
        vec![Vec::new(); scn.jobs.iter().map(|j| j.chunks as usize).sum()];
    // Per global chunk, (global worker, slot) of every planned slot: only for chunks an event
    // cut (the closed world never reads it).
    let cut_chunks: BTreeSet<u32> = cuts
        .iter()
        .filter_map(|r| sched.chunk_index(r.job as usize, r.chunk))
        .collect();
    let mut on: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
    for w in 0..sched.plans().workers_len() {
        for seg in sched.plans().segments(w) {
            if cut_chunks.contains(&seg.chunk) {
                on.entry(seg.chunk)
                    .or_default()
                    .extend((seg.start..seg.end).map(|t| (w as u32, t)));
            } else if let Some(v) = slots.get_mut(seg.chunk as usize) {
                v.extend(seg.start..seg.end);
            }
        }
    }
    for (j, res) in jobs.iter_mut().enumerate() {
        let Some(job) = scn.jobs.get(j) else { continue };
        let quiet = !matches!(sched.status(j as u32), Some(Status::Finished))
            || cuts.iter().any(|r| r.job == j as u32);
        for d in 0..job.chunks {
            let Some(c) = sched.chunk_index(j, d) else {
                continue;
            };
            let Some(p) = sched.placement(c) else {
                continue;
            };
            let mut from = 0;
            if cut_chunks.contains(&c) {
                let planned = on.get(&c).map_or(&[][..], Vec::as_slice);
                for r in cuts.iter().filter(|r| {
                    r.job == j as u32
                        && r.chunk == d
                        && matches!(r.outcome, Outcome::Recovered | Outcome::Lost)
                }) {
                    let was = Placement {
                        placed: true,
                        server: r.server,
                        worker: r.worker,
                        cloud: r.cloud,
                        ..p
                    };
                    let ran = run(sched, planned, was, from, r.slot);
                    if !ran.is_empty() {
                        res.chunks.push(row(was, ran, Some(r.slot)));
                    }
                    from = from.max(r.slot);
                }
                let ran = run(sched, planned, p, from, Slot::MAX);
                if !ran.is_empty() || !quiet {
                    res.chunks.push(row(p, ran, None));
                }
                continue;
            }
            let ran: Vec<u32> = if p.cloud {
                (p.start..p.end).collect()
            } else {
                slots
                    .get_mut(c as usize)
                    .map(std::mem::take)
                    .unwrap_or_default()
            };
            if !ran.is_empty() || !quiet {
                res.chunks.push(row(p, ran, None));
            }
        }
        res.completion_slot = sched.completion(j);
        res.jct = res.completion_slot.saturating_sub(job.arrival);
        res.zeta = Some(sched.zeta(j));
    }
}

/// The slots in [from, to) a chunk ran in on placement `p`: its cloud window, or its planned
/// slots on p's edge worker (`planned`: (global worker, slot)).
fn run(
    sched: &PreemptScheduler,
    planned: &[(u32, u32)],
    p: Placement,
    from: Slot,
    to: Slot,
) -> Vec<u32> {
    if p.cloud {
        return (p.start.max(from)..p.end.min(to)).collect();
    }
    let Some(gw) = sched.worker_index(p.server as usize, p.worker) else {
        return Vec::new();
    };
    let mut v: Vec<u32> = planned
        .iter()
        .filter(|&&(w, t)| w == gw && t >= from && t < to)
        .map(|&(_, t)| t)
        .collect();
    mlsched_kernel::order::sort_u32(&mut v);
    v
}

/// A chunk row on placement `p` over the slots `ran` (ascending).
fn row(p: Placement, ran: Vec<u32>, interrupted: Option<Slot>) -> PreemptChunk {
    PreemptChunk {
        server: p.server,
        worker: p.worker,
        start: ran.first().copied().unwrap_or(0),
        end: ran.last().map_or(0, |l| l + 1),
        slots: ran,
        interrupted,
    }
}

/// The kernel's error with the job's id instead of its index.
pub(crate) fn kernel_error(doc: &PreemptDoc, e: PreemptError) -> RunError {
    let id = |j: u32| {
        doc.jobs
            .get(j as usize)
            .map_or_else(|| format!("#{j}"), |x| format!("`{}`", x.id))
    };
    match e {
        PreemptError::NoEligibleWorker { job } => RunError::kernel(
            e,
            format!(
                "job {}: no eligible worker for a chunk (every usable rate is 0)",
                id(job)
            ),
        ),
        other => RunError::kernel(other, format!("preempt scheduler: {other}")),
    }
}

/// The human summary `mlsched run` prints.
pub fn summary_text(r: &PreemptResult) -> String {
    let s = &r.summary;
    format!(
        "{} ({}): {} jobs, avg JCT {:.2} slots (total {}), {} preemptions, {} cloud chunks, {} PS misses, makespan {}, log_hash {}",
        r.kind,
        r.policy,
        r.jobs.len(),
        s.avg_jct,
        s.total_jct,
        s.preemptions,
        s.cloud_chunks,
        s.ps_unassigned.unwrap_or(0),
        s.makespan.unwrap_or(0),
        r.log_hash
    )
}

/// Policies this kind accepts with `--policy` (the first is the kind's own algorithm).
pub fn policies() -> &'static [&'static str] {
    &["preempt", "all-cloud", "edge-fifo", "random"]
}

/// Sets every job's `status` (`known`: the scheduler's own, when it keeps one; then a status
/// the row was built with) and
/// `summary.statuses`. Derived from the row otherwise: every chunk of a job is processed (at
/// the edge or in the cloud), so a job of a closed-world run is `finished`.
pub fn set_statuses(r: &mut PreemptResult, known: &dyn Fn(u32) -> Option<JobStatus>) {
    for (j, row) in r.jobs.iter_mut().enumerate() {
        row.status = Some(
            known(j as u32)
                .or(row.status)
                .unwrap_or(JobStatus::Finished),
        );
    }
    r.summary.statuses = StatusCounts::of(r.jobs.iter().filter_map(|x| x.status));
}
