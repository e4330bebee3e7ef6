//! Runs kind `"placement"` (Liu et al. 2024): the scenario's `method`, or the method named by
//! `--policy` (one of [`policies`]); `--all` fills `per_category`.
use crate::doc::placement::{
    PlacementBest, PlacementCategory, PlacementDoc, PlacementJpsInfo, PlacementMarketStats,
    PlacementResult,
};
use crate::error::RunError;
use crate::run::RunOptions;
use mlsched_kernel::driver::Driver;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::placement::{Method, PlacementScenario};
use mlsched_kernel::placement::{
    workload, Assignment, CategoryReport, PlacementOutput, PlacementScheduler, Placer,
};
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

/// Runs the scenario with the policy of `opts` (default: the scenario's `method`).
pub fn run<S: LogSink>(
    doc: &PlacementDoc,
    scn: &PlacementScenario,
    opts: &RunOptions,
    sink: &mut S,
) -> Result<PlacementResult, RunError> {
    let method = match opts.policy.as_deref() {
        None | Some("placement") => scn.method,
        Some(p) => match METHODS.iter().find(|(n, _)| *n == p) {
            Some((_, m)) => *m,
            None => return Err(crate::run::unknown_policy("placement", p, policies())),
        },
    };
    let placer = Placer::new(scn).map_err(|e| RunError::Runtime(e.to_string()))?;
    let ids: Vec<&str> = doc.jobs.iter().map(|j| j.id.as_str()).collect();
    let mut rows: Vec<PlacementCategory> = Vec::new();
    let all = opts.all_categories;
    // Every job arrives at slot 0; SlotAdvanced(0) runs the method.
    let arrivals: Vec<(u32, u32)> = (0..doc.jobs.len() as u32).map(|j| (0, j)).collect();
    let mut driver = Driver::new(PlacementScheduler::new(placer, method));
    driver
        .run(&arrivals, sink, &mut |o: &PlacementOutput<'_>| {
            if let (true, PlacementOutput::Category(r)) = (all, o) {
                rows.push(category_row(&ids, r));
            }
        })
        .map_err(|e| RunError::Runtime(format!("placement ({}): {e}", method_name(method))))?;
    let ps = driver.into_inner();
    let summary = ps.summary().copied().unwrap_or_default();
    let placer = ps.placer();
    let best = best_doc(&ids, placer.instance(), placer.best());
    let market = matches!(method, Method::Has | Method::Jps).then(|| PlacementMarketStats {
        rounds: summary.market_rounds,
        max_rounds: summary.market_rounds_max,
        unit_rounds: summary.market_unit_rounds,
        fallbacks: summary.market_fallbacks,
        classes: placer.instance().classes.len() as u32,
    });
    let jps = (method == Method::Jps).then(|| PlacementJpsInfo {
        categories: summary.category_count,
        from: summary.jps_from,
        priority: placer
            .jps_order()
            .iter()
            .map(|&i| ids[i as usize].to_string())
            .collect(),
    });
    let mut best = best;
    best.category = placer.best().counts.clone();
    Ok(PlacementResult {
        kind: "placement".into(),
        policy: method_name(method).into(),
        best,
        categories_examined: summary.examined,
        per_category: all.then_some(rows),
        market,
        jps,
        log_hash: sink.hash().hex().to_string(),
    })
}

fn assignment_map(ids: &[&str], a: &Assignment) -> BTreeMap<String, Vec<u32>> {
    let mut m: BTreeMap<String, Vec<u32>> = ids.iter().map(|id| (id.to_string(), vec![])).collect();
    for (k, &i) in a.job_of.iter().enumerate() {
        if let Some(v) = m.get_mut(ids[i as usize]) {
            v.push(k as u32);
        }
    }
    m
}

fn category_row(ids: &[&str], r: &CategoryReport<'_>) -> PlacementCategory {
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

fn best_doc(
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

/// The human summary `mlsched run` prints.
pub fn summary_text(r: &PlacementResult) -> String {
    let assign: Vec<String> = r
        .best
        .assignment
        .iter()
        .map(|(id, w)| format!("{id}: {w:?}"))
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
