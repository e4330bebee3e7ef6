//! Kind `"route"`: the result document of CSRP / Aggregated CSRP (Song et al. 2023) or one of
//! the paper's comparison schedulers, and the human summary; the engine is
//! [`crate::engine::Route`].
use crate::error::{InputError, RunError};
use crate::kinds::route::doc::{RouteCutRun, RouteDoc, RouteJobResult, RouteResult, RouteSummary};
use crate::status::{JobStatus, StatusCounts};
use mlsched_kernel::index::NONE;
use mlsched_kernel::model::route::{NodeKind, RouteScenario};
use mlsched_kernel::route::{Policy, RouteError, RouteOutcome};

/// What one job really held beyond its last plan (open world): kept by the engine from the
/// decision records, since the kernel's [`mlsched_kernel::route::JobPlan`] is only the last run.
#[derive(Clone, Debug, Default)]
pub(crate) struct JobRuns {
    /// The run placed last and not cut (start, compute node per worker).
    pub(crate) live: Option<(u32, Vec<u32>)>,
    /// Runs an open-world event cut: start, cut time, compute node per worker.
    pub(crate) cut: Vec<(u32, u32, Vec<u32>)>,
    /// The length of a re-planned run when it is not the job's duration (CSRP's rest).
    pub(crate) run_length: Option<u32>,
}

/// The result document of a finished routing run (`out`) under `policy`, named `name`;
/// `runs`: per job, what the engine saw of its runs (empty in a closed-world run).
pub(crate) fn result(
    doc: &RouteDoc,
    scn: &RouteScenario,
    policy: Policy,
    name: &str,
    out: &RouteOutcome,
    runs: &[JobRuns],
    log_hash: String,
) -> RouteResult {
    let node_id = |v: u32| {
        doc.topology
            .nodes
            .get(v as usize)
            .map(|n| n.id.clone())
            .unwrap_or_default()
    };
    let mut jobs = Vec::with_capacity(doc.jobs.len());
    let (mut units, mut plain, mut aggregated) = (0u64, 0u64, 0u32);
    let none = JobRuns::default();
    for (i, (j, p)) in doc.jobs.iter().zip(&out.plans).enumerate() {
        let r = runs.get(i).unwrap_or(&none);
        let paths: Vec<Vec<String>> = (0..p.workers)
            .map(|w| {
                out.path(p.first_path + w)
                    .iter()
                    .map(|&v| node_id(v))
                    .collect()
            })
            .collect();
        let compute_nodes = paths
            .iter()
            .map(|x| x.last().cloned().unwrap_or_default())
            .collect();
        units += p.bandwidth_units as u64;
        plain += p.bandwidth_units_plain as u64;
        aggregated += (p.aggregation != NONE) as u32;
        jobs.push(RouteJobResult {
            status: None,
            id: j.id.clone(),
            start: p.start,
            compute_nodes,
            paths,
            aggregation_node: (p.aggregation != NONE).then(|| node_id(p.aggregation)),
            deadline_met: p.deadline_met,
            network_cost: p.network_cost,
            bandwidth_units: Some(p.bandwidth_units),
            run_length: r.run_length.filter(|_| p.workers > 0),
            cut_runs: r
                .cut
                .iter()
                .map(|(start, end, nodes)| RouteCutRun {
                    start: *start,
                    end: *end,
                    compute_nodes: nodes.iter().map(|&v| node_id(v)).collect(),
                })
                .collect(),
        });
    }
    let computes = scn
        .topology
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Compute)
        .count() as u32;
    let s = out.summary;
    let csrp = policy == Policy::Csrp;
    RouteResult {
        kind: "route".into(),
        policy: name.into(),
        summary: RouteSummary {
            statuses: Default::default(),
            deadline_violation_rate: s.deadline_violation_rate,
            servers_used: s.servers_used,
            avg_network_cost: s.avg_network_cost,
            cost: s.cost,
            inactive_servers: Some(computes.saturating_sub(s.servers_used)),
            aggregated_jobs: (csrp && scn.aggregate).then_some(aggregated),
            bandwidth_units: Some(units),
            bandwidth_units_plain: (csrp && scn.aggregate).then_some(plain),
        },
        occupancy: crate::kinds::route::occupancy::spans(&doc.jobs, &jobs),
        jobs,
        log_hash,
    }
}

pub(crate) fn kernel_error(doc: &RouteDoc, e: RouteError) -> RunError {
    let job = |i: u32| {
        format!(
            "job `{}`",
            crate::text::terminal_safe(
                doc.jobs
                    .get(i as usize)
                    .map(|j| j.id.as_str())
                    .unwrap_or("?")
            )
        )
    };
    match e {
        RouteError::Unreachable {
            job: i,
            workers,
            reachable,
        } => RunError::Input(InputError::new(
            job(i),
            "workers",
            format!(
                "{workers} workers but only {reachable} compute slots are reachable from its ps"
            ),
        )),
        RouteError::BadPs { job: i } => {
            RunError::Input(InputError::new(job(i), "ps", "not a ps node"))
        }
        RouteError::PathTooLong { job: i } => RunError::kernel(
            e,
            format!(
                "route: {} (index {i}), field `{}`: a path from its ps node is longer than this \
                 build's limit PATH_NODES_MAX = {} nodes",
                job(i),
                crate::limit::field("route", mlsched_kernel::Limit::PathNodes, Some(i)),
                mlsched_kernel::route::PATH_NODES_MAX
            ),
        ),
        other => RunError::kernel(other, other.to_string()),
    }
}

/// The human summary `mlsched run` prints.
pub fn summary_text(r: &RouteResult) -> String {
    let s = &r.summary;
    let algo = match (r.policy.as_str(), s.aggregated_jobs) {
        ("route", Some(_)) => "Aggregated CSRP",
        ("route", None) => "CSRP",
        (p, _) => p,
    };
    let mut t = format!(
        "{} ({}): {} jobs, deadline violation rate {:.4}, servers used {}, avg network cost {:.4}, cost (eq. 11) {:.4}",
        r.kind,
        algo,
        r.jobs.len(),
        s.deadline_violation_rate,
        s.servers_used,
        s.avg_network_cost,
        s.cost
    );
    if let Some(a) = s.aggregated_jobs {
        t.push_str(&format!(", {a} jobs aggregated"));
    }
    if let (Some(u), Some(p)) = (s.bandwidth_units, s.bandwidth_units_plain) {
        t.push_str(&format!(", bandwidth units {u} (unaggregated {p})"));
    }
    t.push_str(&format!(", log_hash {}", r.log_hash));
    t
}

/// Policies this kind accepts with `--policy` (the first is the kind's own algorithm: CSRP,
/// or Aggregated CSRP when the scenario says `aggregate`).
pub fn policies() -> &'static [&'static str] {
    &[
        "route",
        "fifo",
        "fair",
        "capacity",
        "deadline",
        "deadline-preemptive",
    ]
}

/// Sets every job's `status` (`known`: the scheduler's own, when it keeps one; then a status
/// the row was built with) and
/// `summary.statuses`. Derived from the row otherwise: a job given compute nodes ran its
/// `duration` from `start` (`finished`, its deadline met or not); one given none was not placed
/// (`rejected`).
pub fn set_statuses(r: &mut RouteResult, known: &dyn Fn(u32) -> Option<JobStatus>) {
    for (j, row) in r.jobs.iter_mut().enumerate() {
        let derived = if row.compute_nodes.is_empty() {
            JobStatus::Rejected
        } else {
            JobStatus::Finished
        };
        row.status = Some(known(j as u32).or(row.status).unwrap_or(derived));
    }
    r.summary.statuses = StatusCounts::of(r.jobs.iter().filter_map(|x| x.status));
}
