//! Kind `"placement"` (Liu et al. 2024): method names, the result's assignment tables and the
//! human summary; the engine is [`crate::engine::Placement`].
use crate::kinds::placement::doc::{PlacementBest, PlacementCategory, PlacementResult};
use crate::status::{JobStatus, StatusCounts};
use mlsched_kernel::model::placement::Method;
use mlsched_kernel::placement::{workload, Assignment, CategoryReport, PlacementScheduler};
use mlsched_kernel::world::Status;
use std::collections::BTreeMap;

/// Method names as written in scenarios and accepted by `--policy`.
pub const METHODS: &[(&str, Method)] = &[
    ("has", Method::Has),
    ("jps", Method::Jps),
    ("exact", Method::Exact),
    ("exhaustive", Method::Exhaustive),
    ("optimus", Method::Optimus),
    ("optimus-lb", Method::OptimusLb),
    ("las", Method::Las),
];

/// The scenario-document name of `m`.
pub fn method_name(m: Method) -> &'static str {
    METHODS
        .iter()
        .find(|(_, x)| *x == m)
        .map_or("has", |(n, _)| n)
}

fn assignment_map(ids: &[&str], a: &Assignment) -> BTreeMap<String, Vec<u32>> {
    // Inserted one by one rather than collected: `collect` into a BTreeMap compiles a stable
    // sort of its own for the pair type (wasm size). A repeated id keeps one entry either way.
    let mut m: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for id in ids {
        m.insert(id.to_string(), vec![]);
    }
    for (k, &i) in a.job_of.iter().enumerate() {
        if let Some(v) = m.get_mut(ids[i as usize]) {
            v.push(k as u32);
        }
    }
    m
}

pub(crate) fn category_row(ids: &[&str], r: &CategoryReport<'_>) -> PlacementCategory {
    let a = r.assignment;
    PlacementCategory {
        category: a.counts.clone(),
        assignment: assignment_map(ids, a),
        avg_jct: a.avg_jct,
        total_throughput: a.total_throughput,
        fairness: a.fairness,
        rank: Some(r.rank),
        market_rounds: r.market.map(|m| m.rounds),
    }
}

pub(crate) fn best_doc(
    ids: &[&str],
    inst: &mlsched_kernel::placement::Instance,
    a: &Assignment,
) -> PlacementBest {
    let assignment = assignment_map(ids, a);
    let mut workload = BTreeMap::new();
    let mut throughput = BTreeMap::new();
    let mut jct = BTreeMap::new();
    for (i, id) in ids.iter().enumerate() {
        let w: Vec<f64> = assignment[*id]
            .iter()
            .map(|&k| {
                workload::samples_for(
                    a.split,
                    inst.samples[i],
                    inst.rho(i, k as usize),
                    a.throughput[i],
                    a.counts[i],
                )
            })
            .collect();
        workload.insert(id.to_string(), w);
        throughput.insert(id.to_string(), a.throughput[i]);
        jct.insert(id.to_string(), a.jct[i]);
    }
    PlacementBest {
        category: a.counts.clone(),
        assignment,
        workload,
        throughput,
        jct,
        avg_jct: a.avg_jct,
        fairness: a.fairness,
    }
}

/// `best` of a run that open-world events changed (`docs/open-world.md`, "Kind placement",
/// "In the result"): per job the workers of its last run (`assignment`, their count in
/// `category`), and for a finished job its JCT, the end of its last run minus its arrival
/// (`jct`; `avg_jct` their mean, 0 when none finished). The runs come from different batches,
/// so no single assignment's `workload`, `throughput` or Jain `fairness` describes them: the
/// two maps are empty and `fairness` is 0.
pub(crate) fn runs_doc(ids: &[&str], ps: &PlacementScheduler) -> PlacementBest {
    let holds = ps.holds();
    let mut assignment = BTreeMap::new();
    let mut category = Vec::with_capacity(ids.len());
    let mut jct = BTreeMap::new();
    for (j, id) in ids.iter().enumerate() {
        let j = j as u32;
        let last = holds
            .iter()
            .filter(|h| h.job == j)
            .map(|h| h.from)
            .fold(None, |m: Option<f64>, f| Some(m.map_or(f, |m| m.max(f))));
        let workers: Vec<u32> = holds
            .iter()
            .filter(|h| h.job == j && Some(h.from) == last)
            .map(|h| h.worker)
            .collect();
        category.push(workers.len() as u32);
        assignment.insert(id.to_string(), workers);
        let run = ps.job_run(j);
        if let (Some(Status::Finished), Some(r)) = (ps.status(j), run) {
            jct.insert(id.to_string(), r.end - f64::from(r.arrival));
        }
    }
    let avg_jct = if jct.is_empty() {
        0.0
    } else {
        jct.values().sum::<f64>() / jct.len() as f64
    };
    PlacementBest {
        category,
        assignment,
        workload: BTreeMap::new(),
        throughput: BTreeMap::new(),
        jct,
        avg_jct,
        fairness: 0.0,
    }
}

/// The human summary `mlsched run` prints.
pub fn summary_text(r: &PlacementResult) -> String {
    let assign: Vec<String> = r
        .best
        .assignment
        .iter()
        .map(|(id, w)| format!("{}: {w:?}", crate::text::terminal_safe(id)))
        .collect();
    format!(
        "placement ({}): category {:?}, avg JCT {:.1} s, fairness {:.3}, {} examined; {}; log_hash {}",
        r.policy,
        r.best.category,
        r.best.avg_jct,
        r.best.fairness,
        r.categories_examined,
        assign.join(", "),
        r.log_hash
    )
}

/// Policies this kind accepts with `--policy` (the first is the scenario's own `method`).
pub fn policies() -> &'static [&'static str] {
    &[
        "placement",
        "has",
        "jps",
        "exact",
        "exhaustive",
        "optimus",
        "optimus-lb",
        "las",
    ]
}

/// Sets every job's `status` (`known`: the scheduler's own, when it keeps one; then a status
/// the row was built with) and
/// `summary.statuses`. Derived otherwise: every job of a closed-world placement gets its
/// workers (the paper assumes K >= S), so it is `finished`.
pub fn set_statuses(r: &mut PlacementResult, known: &dyn Fn(u32) -> Option<JobStatus>) {
    for (j, row) in r.jobs.iter_mut().enumerate() {
        row.status = Some(
            known(j as u32)
                .or(row.status)
                .unwrap_or(JobStatus::Finished),
        );
    }
    r.summary.statuses = StatusCounts::of(r.jobs.iter().filter_map(|x| x.status));
}
