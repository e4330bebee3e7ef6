//! Runs kind `"preempt"`: A_online with A_greedy / A_ps (Wang et al. 2022) or a baseline
//! dispatch (`--policy all-cloud | edge-fifo | random`), and builds the result document.
use crate::error::RunError;
use crate::kinds::preempt::doc::{
    PreemptCandidate, PreemptChunk, PreemptDispatch, PreemptDoc, PreemptJobResult, PreemptPs,
    PreemptResult,
};
use crate::status::{JobStatus, StatusCounts};
use mlsched_kernel::model::preempt::PreemptScenario;
use mlsched_kernel::preempt::{PreemptDecision, PreemptError, PreemptScheduler};

/// Files one decision into the job results (PS per slot, explanations).
pub(crate) fn collect(jobs: &mut [PreemptJobResult], d: &PreemptDecision) {
    match *d {
        PreemptDecision::Candidate(c) => {
            if let Some(e) = jobs
                .get_mut(c.job as usize)
                .and_then(|j| j.explain.as_mut())
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
        PreemptDecision::PsMiss(_) | PreemptDecision::Interrupt(_) => {}
    }
}

/// Chunks (every slot each ran in), c_j and JCT from the final plans.
pub(crate) fn finish(
    sched: &PreemptScheduler,
    scn: &PreemptScenario,
    jobs: &mut [PreemptJobResult],
) {
    let mut slots: Vec<Vec<u32>> =
        vec![Vec::new(); scn.jobs.iter().map(|j| j.chunks as usize).sum()];
    for w in 0..sched.plans().workers_len() {
        for seg in sched.plans().segments(w) {
            if let Some(v) = slots.get_mut(seg.chunk as usize) {
                v.extend(seg.start..seg.end);
            }
        }
    }
    for (j, (res, job)) in jobs.iter_mut().zip(&scn.jobs).enumerate() {
        for d in 0..job.chunks {
            let Some(c) = sched.chunk_index(j, d) else {
                continue;
            };
            let Some(p) = sched.placement(c) else {
                continue;
            };
            let ran = if p.cloud {
                (p.start..p.end).collect()
            } else {
                slots
                    .get_mut(c as usize)
                    .map(std::mem::take)
                    .unwrap_or_default()
            };
            res.chunks.push(PreemptChunk {
                server: p.server,
                worker: p.worker,
                start: ran.first().copied().unwrap_or(0),
                end: ran.last().map_or(0, |l| l + 1),
                slots: ran,
            });
        }
        res.completion_slot = sched.completion(j);
        res.jct = res.completion_slot.saturating_sub(job.arrival);
        res.zeta = Some(sched.zeta(j));
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
