//! Runs kind `"preempt"`: A_online with A_greedy / A_ps (Wang et al. 2022) or a baseline
//! dispatch (`--policy all-cloud | edge-fifo | random`), and builds the result document.
use crate::doc::preempt::{
    PreemptCandidate, PreemptChunk, PreemptDispatch, PreemptDoc, PreemptExplain, PreemptJobResult,
    PreemptPs, PreemptResult, PreemptSummary,
};
use crate::error::RunError;
use crate::run::RunOptions;
use mlsched_kernel::driver::{arrival_order, Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::preempt::PreemptScenario;
use mlsched_kernel::preempt::{Policy, PreemptDecision, PreemptError, PreemptScheduler};

/// Runs the scenario with the policy of `opts` (default: the kind's own algorithm).
pub fn run<S: LogSink>(
    doc: &PreemptDoc,
    scn: &PreemptScenario,
    opts: &RunOptions,
    sink: &mut S,
) -> Result<PreemptResult, RunError> {
    let name = opts.policy.as_deref().unwrap_or("preempt");
    let policy = match name {
        "preempt" => Policy::Greedy,
        "all-cloud" => Policy::AllCloud,
        "edge-fifo" => Policy::EdgeFifo,
        "random" => Policy::Random,
        p => return Err(crate::run::unknown_policy("preempt", p, policies())),
    };
    let mut sched = PreemptScheduler::new(scn, policy).map_err(|e| kernel_error(doc, e))?;
    let mut jobs: Vec<PreemptJobResult> = doc
        .jobs
        .iter()
        .map(|j| PreemptJobResult {
            id: j.id.clone(),
            completion_slot: 0,
            jct: 0,
            chunks: Vec::new(),
            ps: Vec::new(),
            zeta: None,
            explain: (policy == Policy::Greedy).then(|| PreemptExplain {
                candidates: Vec::new(),
                dispatch: Vec::new(),
            }),
        })
        .collect();
    let order = arrival_order(scn.jobs.iter().map(|j| j.arrival));
    Driver::new(&mut sched)
        .run(&order, sink, &mut |d: &PreemptDecision| {
            collect(&mut jobs, d)
        })
        .map_err(|e| match e {
            DriverError::Scheduler(e) => kernel_error(doc, e),
            e => RunError::Runtime(e.to_string()),
        })?;
    finish(&sched, scn, &mut jobs);
    let total_jct: u64 = jobs.iter().map(|j| j.jct as u64).sum();
    let cloud_chunks = jobs
        .iter()
        .flat_map(|j| &j.chunks)
        .filter(|c| scn.servers.get(c.server as usize).is_some_and(|s| s.cloud))
        .count() as u64;
    Ok(PreemptResult {
        kind: "preempt".into(),
        policy: name.into(),
        summary: PreemptSummary {
            avg_jct: if jobs.is_empty() {
                0.0
            } else {
                total_jct as f64 / jobs.len() as f64
            },
            total_jct,
            preemptions: sched.preemptions,
            cloud_chunks,
            ps_unassigned: Some(sched.ps_misses),
            makespan: Some(sched.horizon_end()),
        },
        jobs,
        log_hash: sink.hash().hex().to_string(),
    })
}

/// Files one decision into the job results (PS per slot, explanations).
fn collect(jobs: &mut [PreemptJobResult], d: &PreemptDecision) {
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
        PreemptDecision::PsMiss(_) => {}
    }
}

/// Chunks (every slot each ran in), c_j and JCT from the final plans.
fn finish(sched: &PreemptScheduler, scn: &PreemptScenario, jobs: &mut [PreemptJobResult]) {
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
fn kernel_error(doc: &PreemptDoc, e: PreemptError) -> RunError {
    let id = |j: u32| {
        doc.jobs
            .get(j as usize)
            .map_or_else(|| format!("#{j}"), |x| format!("`{}`", x.id))
    };
    match e {
        PreemptError::NoEligibleWorker { job } => RunError::Runtime(format!(
            "job {}: no eligible worker for a chunk (every usable rate is 0)",
            id(job)
        )),
        other => RunError::Runtime(format!("preempt scheduler: {other}")),
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
