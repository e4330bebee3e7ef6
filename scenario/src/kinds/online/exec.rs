//! Runs kind `"online"`: A_online (Zhou et al. 2022) through the kernel's
//! [`OnlineScheduler`](mlsched_kernel::online::OnlineScheduler), or a baseline with `--policy`.
use crate::kinds::online::doc::{OnlineDoc, OnlineJobResult, OnlineResult, OnlineSummary};
use crate::status::{JobStatus, StatusCounts};
use mlsched_kernel::model::online::OnlineScenario;
use mlsched_kernel::online::{theoretical_alpha, OnlineJobDecision};

/// Builds the result document from the decisions (jobs in input order).
pub fn result(
    doc: &OnlineDoc,
    scn: &OnlineScenario,
    decisions: &[OnlineJobDecision],
    log_hash: String,
) -> OnlineResult {
    let mut jobs: Vec<OnlineJobResult> = doc
        .jobs
        .iter()
        .map(|j| OnlineJobResult {
            status: None,
            id: j.id.clone(),
            scheduled: false,
            start_slot: None,
            duration: None,
            completion_slot: None,
            worker_type: None,
            ps_type: None,
            colocated: false,
            placement: Vec::new(),
            round: None,
            cost: None,
            utility: None,
        })
        .collect();
    let (mut scheduled, mut total) = (0u32, 0.0);
    for d in decisions {
        let Some(r) = jobs.get_mut(d.job as usize) else {
            continue;
        };
        if d.feasible {
            // The cost and utility that decided it (the last attempt for unscheduled jobs).
            r.cost = Some(d.cost);
            r.utility = Some(d.utility);
        }
        if !d.scheduled {
            continue;
        }
        scheduled += 1;
        total += scn.jobs[d.job as usize].weight * d.completion() as f64;
        r.scheduled = true;
        r.start_slot = Some(d.start);
        r.duration = Some(d.duration);
        r.completion_slot = Some(d.completion());
        r.worker_type = Some(d.worker_type);
        r.ps_type = d.ps_type;
        r.colocated = d.colocated;
        r.placement = d
            .placement
            .iter()
            .map(|p| [p.server, p.workers, p.ps])
            .collect();
        r.round = Some(d.round);
    }
    OnlineResult {
        kind: "online".into(),
        policy: "online".into(),
        summary: OnlineSummary {
            statuses: Default::default(),
            scheduled,
            total_weighted_completion_time: total,
            alpha: scn.alpha,
            alpha_theoretical: theoretical_alpha(scn),
        },
        occupancy: crate::kinds::online::occupancy::spans(&jobs),
        jobs,
        log_hash,
    }
}

/// The human summary `mlsched run` prints.
pub fn summary_text(r: &OnlineResult) -> String {
    let s = &r.summary;
    let mut t = format!(
        "{} ({}): {} of {} jobs scheduled, total weighted completion time {:.1}, alpha {}{}\n",
        r.kind,
        r.policy,
        s.scheduled,
        r.jobs.len(),
        s.total_weighted_completion_time,
        s.alpha,
        s.alpha_theoretical
            .map(|a| format!(" (Theorem 5: {a})"))
            .unwrap_or_default()
    );
    t.push_str("  job                  start  dur  done  type   q  round  workers@server\n");
    for j in &r.jobs {
        if !j.scheduled {
            t.push_str(&format!(
                "  {:<20} not scheduled\n",
                crate::text::terminal_safe(&j.id)
            ));
            continue;
        }
        t.push_str(&format!(
            "  {:<20} {:>5} {:>4} {:>5}  {:<6} {}  {:>5}  {}\n",
            crate::text::terminal_safe(&j.id),
            j.start_slot.unwrap_or(0),
            j.duration.unwrap_or(0),
            j.completion_slot.unwrap_or(0),
            j.type_label(),
            u8::from(j.colocated),
            j.round.unwrap_or(0),
            j.placement_label()
        ));
    }
    t.push_str(&format!("  log_hash {}", r.log_hash));
    t
}

/// Policies this kind accepts with `--policy` (the first is the kind's own algorithm).
pub fn policies() -> &'static [&'static str] {
    crate::kinds::baseline::ONLINE_POLICIES
}

/// Sets every job's `status` (`known`: the scheduler's own, when it keeps one; then a status
/// the row was built with) and
/// `summary.statuses`. Derived from the row otherwise: scheduled = `finished`; not scheduled =
/// `rejected` for A_online (it refused the job at arrival), `unfinished` for a baseline (it
/// never refuses: the job was still waiting at the horizon).
pub fn set_statuses(r: &mut OnlineResult, known: &dyn Fn(u32) -> Option<JobStatus>) {
    let refuses = r.policy == "online";
    for (j, row) in r.jobs.iter_mut().enumerate() {
        let derived = match (row.scheduled, refuses) {
            (true, _) => JobStatus::Finished,
            (false, true) => JobStatus::Rejected,
            (false, false) => JobStatus::Unfinished,
        };
        row.status = Some(known(j as u32).or(row.status).unwrap_or(derived));
    }
    r.summary.statuses = StatusCounts::of(r.jobs.iter().filter_map(|x| x.status));
}
