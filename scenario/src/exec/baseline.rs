//! Baseline policies (`--policy fifo|drf|las|optimus`) on the kinds where they make sense
//! (`mlsched_kernel::baseline`): kind "oasis" (admission + per-slot placement, utility
//! f_i(t_hat - a_i) of the completion the baseline achieves) and kind "online" (one run per job,
//! weighted completion time).
use crate::doc::oasis::{OasisDoc, OasisJobResult, OasisPlacement, OasisResult, OasisSummary};
use crate::doc::online::{OnlineDoc, OnlineJobResult, OnlineResult, OnlineSummary};
use crate::error::RunError;
use crate::run::unknown_policy;
use mlsched_kernel::baseline::oasis::{OasisBaseline, Unit};
use mlsched_kernel::baseline::online::{OnlineBaseline, Placed};
use mlsched_kernel::baseline::{BaselineError, Policy};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::oasis::OasisScenario;
use mlsched_kernel::model::online::{Architecture, OnlineScenario};
use std::collections::BTreeMap;

/// Policies accepted by kind "oasis" (the first is the kind's own algorithm).
pub const OASIS_POLICIES: &[&str] = &["oasis", "fifo", "drf", "las", "optimus"];
/// Policies accepted by kind "online".
pub const ONLINE_POLICIES: &[&str] = &["online", "fifo", "drf", "las", "optimus"];
/// Every baseline name, for the error of kinds the baselines do not run.
pub const BASELINES: &[&str] = &["fifo", "drf", "las", "optimus"];

/// Scenario kinds the baselines run.
pub const BASELINE_KINDS: &[&str] = &["oasis", "online"];

/// The name of a baseline policy (the `--policy` value, the result's `policy`).
pub const fn policy_name(p: Policy) -> &'static str {
    match p {
        Policy::Fifo => "fifo",
        Policy::Drf => "drf",
        Policy::Las => "las",
        Policy::Optimus => "optimus",
    }
}

/// The baseline policy named `name`, if any.
pub fn policy_from_name(name: &str) -> Option<Policy> {
    Policy::ALL.into_iter().find(|&p| policy_name(p) == name)
}

/// `Some(error)` if `policy` is a baseline name and `kind` is not one the baselines run: the
/// other kinds' `run` can answer with this clear message instead of "unknown policy".
pub fn unsupported_kind(kind: &'static str, policy: &str) -> Option<RunError> {
    let p = policy_from_name(policy)?;
    if BASELINE_KINDS.contains(&kind) {
        return None;
    }
    Some(RunError::Input(crate::InputError::new(
        "option",
        "policy",
        format!(
            "baseline `{}` does not run kind \"{kind}\" (baselines run kinds \"oasis\" and \"online\")",
            policy_name(p)
        ),
    )))
}

fn runtime(e: BaselineError) -> RunError {
    RunError::Runtime(e.to_string())
}

/// Runs a baseline `policy` on an "oasis" scenario.
pub fn run_oasis<S: LogSink>(
    policy: &str,
    doc: &OasisDoc,
    scn: &OasisScenario,
    sink: &mut S,
) -> Result<OasisResult, RunError> {
    let Some(p) = policy_from_name(policy) else {
        return Err(unknown_policy("oasis", policy, OASIS_POLICIES));
    };
    let mut runner = OasisBaseline::new(p, scn).map_err(runtime)?;
    // (job, slot) -> (worker server -> count, ps server -> count); BTreeMaps keep output order.
    type Slots = BTreeMap<u32, (BTreeMap<u32, u32>, BTreeMap<u32, u32>)>;
    let mut per_job: Vec<Slots> = vec![BTreeMap::new(); scn.jobs.len()];
    runner
        .run(sink, &mut |u: Unit| {
            if let Some(s) = per_job.get_mut(u.job as usize) {
                let e = s.entry(u.slot).or_default();
                let m = if u.ps { &mut e.1 } else { &mut e.0 };
                *m.entry(u.server).or_insert(0) += 1;
            }
        })
        .map_err(runtime)?;
    let mut jobs = Vec::with_capacity(scn.jobs.len());
    let (mut admitted, mut total) = (0u32, 0.0f64);
    for ((jd, job), (st, slots)) in doc
        .jobs
        .iter()
        .zip(&scn.jobs)
        .zip(runner.jobs().iter().zip(per_job))
    {
        admitted += 1;
        let placements: Vec<OasisPlacement> = slots
            .into_iter()
            .map(|(slot, (w, z))| OasisPlacement {
                slot,
                workers: w.into_iter().map(|(h, c)| [h, c]).collect(),
                ps: z.into_iter().map(|(k, c)| [k, c]).collect(),
            })
            .collect();
        let utility = st
            .completion
            .map_or(0.0, |t| job.utility.at(t - job.arrival));
        total += utility;
        jobs.push(OasisJobResult {
            id: jd.id.clone(),
            admitted: true,
            completion_slot: st.completion,
            utility: Some(utility),
            cost: None,
            payoff: None,
            reason: st.completion.is_none().then(|| {
                format!(
                    "{} chunks of {} not processed by the horizon",
                    st.remaining,
                    job.workload()
                )
            }),
            placements,
        });
    }
    Ok(OasisResult {
        kind: "oasis".into(),
        policy: policy_name(p).into(),
        summary: OasisSummary {
            admitted,
            rejected: scn.jobs.len() as u32 - admitted,
            total_utility: total,
            prices: None,
        },
        jobs,
        log_hash: sink.hash().hex().to_string(),
    })
}

/// Runs a baseline `policy` on an "online" scenario.
pub fn run_online<S: LogSink>(
    policy: &str,
    doc: &OnlineDoc,
    scn: &OnlineScenario,
    sink: &mut S,
) -> Result<OnlineResult, RunError> {
    let Some(p) = policy_from_name(policy) else {
        return Err(unknown_policy("online", policy, ONLINE_POLICIES));
    };
    let mut runner = OnlineBaseline::new(p, scn).map_err(runtime)?;
    let mut placement: Vec<Vec<[u32; 3]>> = vec![Vec::new(); scn.jobs.len()];
    runner
        .run(sink, &mut |pl: Placed| {
            if let Some(v) = placement.get_mut(pl.job as usize) {
                v.push([pl.server, pl.workers, pl.ps]);
            }
        })
        .map_err(runtime)?;
    let mut jobs = Vec::with_capacity(scn.jobs.len());
    let (mut scheduled, mut twct) = (0u32, 0.0f64);
    for ((jd, job), (st, pl)) in doc
        .jobs
        .iter()
        .zip(&scn.jobs)
        .zip(runner.jobs().iter().zip(placement))
    {
        let done = st.start.map(|s| s + st.duration);
        if let Some(c) = done {
            scheduled += 1;
            twct += job.weight * c as f64;
        }
        jobs.push(OnlineJobResult {
            id: jd.id.clone(),
            scheduled: done.is_some(),
            start_slot: st.start,
            duration: st.start.map(|_| st.duration),
            completion_slot: done,
            worker_type: st.start.map(|_| st.worker_type),
            ps_type: match scn.architecture {
                Architecture::Ps => st.start.and(st.ps_type),
                Architecture::Ring => None,
            },
            colocated: false,
            placement: pl,
            round: None,
            cost: None,
            utility: None,
        });
    }
    Ok(OnlineResult {
        kind: "online".into(),
        policy: policy_name(p).into(),
        summary: OnlineSummary {
            scheduled,
            total_weighted_completion_time: twct,
            alpha: scn.alpha,
            alpha_theoretical: None,
        },
        jobs,
        log_hash: sink.hash().hex().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Policy::ALL {
            assert_eq!(policy_from_name(policy_name(p)), Some(p));
        }
        assert_eq!(policy_from_name("oasis"), None);
    }

    #[test]
    fn other_kinds_are_refused_clearly() {
        let Some(RunError::Input(e)) = unsupported_kind("route", "drf") else {
            panic!("drf on route must be refused");
        };
        assert!(e.to_string().contains(
            "baseline `drf` does not run kind \"route\" (baselines run kinds \"oasis\" and \"online\")"
        ));
        assert!(unsupported_kind("oasis", "fifo").is_none());
        assert!(unsupported_kind("route", "csrp").is_none());
    }
}
