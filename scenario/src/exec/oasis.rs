//! Runs kind `"oasis"`: Alg. 1 over the jobs in arrival order (equal arrivals in input order).
use crate::doc::oasis::{OasisDoc, OasisJobResult, OasisPlacement, OasisResult, OasisSummary};
use crate::error::RunError;
use crate::run::RunOptions;
use mlsched_kernel::driver::{arrival_order, Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::oasis::OasisScenario;
use mlsched_kernel::oasis::{OasisOutput, OasisScheduler};
use std::fmt::Write as _;

/// Runs the scenario with the policy of `opts` (default: the kind's own algorithm).
pub fn run<S: LogSink>(
    doc: &OasisDoc,
    scn: &OasisScenario,
    opts: &RunOptions,
    sink: &mut S,
) -> Result<OasisResult, RunError> {
    if let Some(p) = opts.policy.as_deref().filter(|p| *p != "oasis") {
        return super::baseline::run_oasis(p, doc, scn, sink);
    }
    let mut s = OasisScheduler::new(scn).map_err(|e| match e {
        mlsched_kernel::oasis::OasisError::Bounds if scn.prices.is_none() => {
            let why = mlsched_kernel::price::oasis_bounds(scn)
                .err()
                .map_or_else(|| e.to_string(), |b| b.to_string());
            RunError::Runtime(format!("oasis: {why}"))
        }
        e => RunError::Runtime(format!("oasis: {e}")),
    })?;
    let mut jobs: Vec<Option<OasisJobResult>> = vec![None; scn.jobs.len()];
    let (mut admitted, mut total) = (0u32, 0.0f64);
    let order = arrival_order(scn.jobs.iter().map(|j| j.arrival));
    let mut last = 0usize;
    let run = Driver::new(&mut s).run(&order, sink, &mut |o: &OasisOutput<'_>| match o {
        OasisOutput::Decision(d) => {
            let i = d.job as usize;
            last = i;
            if d.admitted {
                admitted += 1;
                total += d.utility;
            }
            jobs[i] = Some(OasisJobResult {
                id: doc.jobs[i].id.clone(),
                admitted: d.admitted,
                completion_slot: d.completion_slot.filter(|_| d.admitted),
                utility: d.admitted.then_some(d.utility),
                cost: d.admitted.then_some(d.cost),
                payoff: d.admitted.then_some(d.payoff),
                reason: (!d.admitted).then(|| d.reason.text().to_string()),
                placements: Vec::new(),
            });
        }
        OasisOutput::Slot(sp) => {
            if let Some(j) = jobs.get_mut(last).and_then(Option::as_mut) {
                j.placements.push(OasisPlacement {
                    slot: sp.slot,
                    workers: sp.workers.to_vec(),
                    ps: sp.ps.to_vec(),
                });
            }
        }
    });
    if let Err(e) = run {
        // The job being decided when it failed: the first in arrival order without a decision.
        let failed = order
            .iter()
            .map(|&(_, j)| j as usize)
            .find(|&j| jobs[j].is_none());
        return Err(match (e, failed) {
            (DriverError::Scheduler(e), Some(i)) => {
                RunError::Runtime(format!("oasis: job `{}`: {e}", doc.jobs[i].id))
            }
            (e, _) => RunError::Runtime(format!("oasis: {e}")),
        });
    }
    Ok(OasisResult {
        kind: "oasis".into(),
        policy: "oasis".into(),
        summary: OasisSummary {
            admitted,
            rejected: scn.jobs.len() as u32 - admitted,
            total_utility: total,
            prices: scn
                .prices
                .is_none()
                .then(|| crate::doc::oasis::PRICES_DERIVED.to_string()),
        },
        jobs: jobs.into_iter().flatten().collect(),
        log_hash: sink.hash().hex().to_string(),
    })
}

/// The human summary `mlsched run` prints: totals, then one line per job with its explanation
/// (utility, cost, payoff, completion slot or the reason it was rejected) and its slots.
pub fn summary_text(r: &OasisResult) -> String {
    let mut s = format!(
        "{} ({}): {} admitted, {} rejected, total utility {:.3}, log_hash {}\n",
        r.kind,
        r.policy,
        r.summary.admitted,
        r.summary.rejected,
        r.summary.total_utility,
        r.log_hash
    );
    for j in &r.jobs {
        let num = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.3}"));
        if j.admitted {
            let _ = write!(
                s,
                "  {:<16} admitted  t_hat {:>4}  utility {:>10}  cost {:>10}  payoff {:>10}",
                j.id,
                j.completion_slot.map_or("-".into(), |t| t.to_string()),
                num(j.utility),
                num(j.cost),
                num(j.payoff)
            );
            let w: u32 = j
                .placements
                .iter()
                .flat_map(|p| p.workers.iter().map(|x| x[1]))
                .sum();
            let z: u32 = j
                .placements
                .iter()
                .flat_map(|p| p.ps.iter().map(|x| x[1]))
                .sum();
            let _ = writeln!(
                s,
                "  slots {}  worker-slots {w}  ps-slots {z}",
                j.placements.len()
            );
        } else {
            let _ = writeln!(
                s,
                "  {:<16} rejected  ({})",
                j.id,
                j.reason.as_deref().unwrap_or("-")
            );
        }
    }
    s
}

/// Policies this kind accepts with `--policy` (the first is the kind's own algorithm).
pub fn policies() -> &'static [&'static str] {
    super::baseline::OASIS_POLICIES
}
