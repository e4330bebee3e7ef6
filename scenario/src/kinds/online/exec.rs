//! Runs kind `"online"`: A_online (Zhou et al. 2022) through the kernel's
//! [`OnlineScheduler`](mlsched_kernel::online::OnlineScheduler), or a baseline with `--policy`.
use crate::kinds::online::doc::{OnlineJobResult, OnlineResult, OnlineRun, OnlineSummary};
use crate::status::{JobStatus, StatusCounts};
use mlsched_kernel::model::online::OnlineScenario;
use mlsched_kernel::online::{theoretical_alpha, OnlineJobDecision};

/// What the result needs from A_online's decisions, in the order they came.
#[derive(Clone, Debug)]
pub enum Seen {
    /// An A_maxweight decision (a recovered job's new schedule is one too).
    Decision(OnlineJobDecision),
    /// Open world: the job's schedule was cut at `slot` (a cancel or an interruption).
    Cut {
        /// Job index.
        job: u32,
        /// The event's slot.
        slot: u32,
    },
}

fn empty_row(id: &str) -> OnlineJobResult {
    OnlineJobResult {
        status: None,
        id: id.to_string(),
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
        cut_runs: Vec::new(),
    }
}

/// A decision's schedule into the row (the job's current run).
fn schedule(r: &mut OnlineJobResult, d: &OnlineJobDecision) {
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

/// Cuts the row's current run at `slot`: what it ran before `slot` becomes a cut run, and the
/// row has no current run.
fn cut(r: &mut OnlineJobResult, slot: u32) {
    if !r.scheduled {
        return;
    }
    if let (Some(a), Some(c), Some(m)) = (r.start_slot, r.completion_slot, r.worker_type) {
        let end = c.min(slot);
        if a < end {
            r.cut_runs.push(OnlineRun {
                start_slot: a,
                end_slot: end,
                worker_type: m,
                ps_type: r.ps_type,
                placement: std::mem::take(&mut r.placement),
            });
        }
    }
    let (cost, utility, cuts) = (r.cost, r.utility, std::mem::take(&mut r.cut_runs));
    *r = OnlineJobResult {
        cost,
        utility,
        cut_runs: cuts,
        ..empty_row(&r.id)
    };
}

/// Builds the result document from what A_online decided (jobs in index order: `ids`, with
/// weights `weights`; `scn`: the scenario with every job, for Theorem 5's alpha).
pub fn result(
    ids: &[String],
    weights: &[f64],
    scn: &OnlineScenario,
    seen: &[Seen],
    log_hash: String,
) -> OnlineResult {
    let mut jobs: Vec<OnlineJobResult> = ids.iter().map(|id| empty_row(id)).collect();
    // Per job, the position in `seen` of the decision behind its current run: the total is
    // summed in decision order, as a closed-world run always did.
    let mut by: Vec<Option<usize>> = vec![None; jobs.len()];
    for (k, x) in seen.iter().enumerate() {
        match x {
            Seen::Decision(d) => {
                let Some(r) = jobs.get_mut(d.job as usize) else {
                    continue;
                };
                if d.feasible {
                    // The cost and utility that decided it (the last attempt for unscheduled jobs).
                    r.cost = Some(d.cost);
                    r.utility = Some(d.utility);
                }
                if d.scheduled {
                    schedule(r, d);
                    by[d.job as usize] = Some(k);
                }
            }
            Seen::Cut { job, slot } => {
                if let Some(r) = jobs.get_mut(*job as usize) {
                    cut(r, *slot);
                    by[*job as usize] = None;
                }
            }
        }
    }
    let mut order: Vec<(usize, usize)> = by
        .iter()
        .enumerate()
        .filter_map(|(j, k)| k.map(|k| (k, j)))
        .collect();
    crate::order::sort(&mut order);
    let (mut scheduled, mut total) = (0u32, 0.0);
    for (_, j) in order {
        scheduled += 1;
        let c = jobs[j].completion_slot.unwrap_or(0);
        total += weights.get(j).copied().unwrap_or(0.0) * c as f64;
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
