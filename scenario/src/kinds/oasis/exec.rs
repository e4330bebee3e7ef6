//! Runs kind `"oasis"`: Alg. 1 over the jobs in arrival order (equal arrivals in input order).
use crate::kinds::oasis::doc::{DormSummary, OasisResult};
use crate::status::{JobStatus, StatusCounts};
use std::fmt::Write as _;

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
    if let Some(d) = &r.summary.dorm {
        let _ = writeln!(s, "  {}", dorm_line(d));
    }
    for j in &r.jobs {
        let num = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.3}"));
        if j.admitted {
            let _ = write!(
                s,
                "  {:<16} admitted  t_hat {:>4}  utility {:>10}  cost {:>10}  payoff {:>10}",
                crate::text::terminal_safe(&j.id),
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
                crate::text::terminal_safe(&j.id),
                j.reason.as_deref().unwrap_or("-")
            );
        }
    }
    s
}

/// Dorm's solver counts in one line: events solved to proven optimality, stopped at the node
/// budget, the largest optimality gap, and the nodes.
pub fn dorm_line(d: &DormSummary) -> String {
    format!(
        "dorm: {} events, {} solved to optimality, {} stopped at the node budget (largest gap {:.2}%), fairness bound raised in {}, {} nodes (at most {} in one event)",
        d.events,
        d.optimal,
        d.stopped_at_budget,
        d.gap_max * 100.0,
        d.fairness_raised,
        d.nodes,
        d.nodes_event_max
    )
}

/// Policies this kind accepts with `--policy` (the first is the kind's own algorithm).
pub fn policies() -> &'static [&'static str] {
    crate::kinds::baseline::OASIS_POLICIES
}

/// Sets every job's `status` (`known`: the scheduler's own, when it keeps one; then a status
/// the row was built with) and
/// `summary.statuses`. Derived from the row otherwise: not admitted = `rejected`, admitted and
/// completed = `finished`, admitted and not done by the horizon = `unfinished`.
pub fn set_statuses(r: &mut OasisResult, known: &dyn Fn(u32) -> Option<JobStatus>) {
    for (j, row) in r.jobs.iter_mut().enumerate() {
        let derived = match (row.admitted, row.completion_slot) {
            (false, _) => JobStatus::Rejected,
            (true, Some(_)) => JobStatus::Finished,
            (true, None) => JobStatus::Unfinished,
        };
        row.status = Some(known(j as u32).or(row.status).unwrap_or(derived));
    }
    r.summary.statuses = StatusCounts::of(r.jobs.iter().filter_map(|x| x.status));
}
