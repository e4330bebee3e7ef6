//! Kind `"placement"`: one step per category K = (K_1..K_n) the heterogeneity-aware search
//! reported (`per_category`, present with `allCategories`), then the chosen `best`. Each step
//! shows which workers the matching assigns to which job, explained from the engine's
//! `placement.category` record of that category, and (HAS / JPS) the kernel's market rounds.
use super::{finite, json, num, records, Bar, Decision, EngineDecision, JobInfo, Server, Timeline};
use mlsched_scenario::engine::{Data, Trace};
use mlsched_scenario::kinds::placement::doc::{PlacementCategory, PlacementDoc, PlacementResult};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// One step's category: its assignment and metrics.
struct Step<'a> {
    category: &'a [u32],
    assignment: &'a BTreeMap<String, Vec<u32>>,
    best: bool,
}

/// A row of `extra.workers`.
#[derive(Serialize)]
struct Worker<'a> {
    gpu: &'a str,
    node: f64,
}

pub(super) fn build(
    d: &PlacementDoc,
    r: &PlacementResult,
    ds: &[EngineDecision],
    trace: Option<&Trace>,
) -> Timeline {
    let servers: Vec<Server> = d
        .workers
        .iter()
        .enumerate()
        .map(|(k, w)| Server {
            id: format!("k{k} {} n{}", w.gpu, w.node),
            group: "gpu".into(),
            capacity: vec![1.0],
        })
        .collect();
    let per_cat = r.per_category.as_deref().unwrap_or(&[]);
    let mut plan: Vec<Step> = per_cat
        .iter()
        .map(|c| Step {
            category: &c.category,
            assignment: &c.assignment,
            best: false,
        })
        .collect();
    plan.push(Step {
        category: &r.best.category,
        assignment: &r.best.assignment,
        best: true,
    });
    let steps = plan.len() as u32;
    let cats: Vec<(&EngineDecision, &PlacementCategory)> = records(ds, |d| match d {
        Data::Category(c) if finite(&[c.avg_jct, c.total_throughput, c.fairness]) => Some(c),
        _ => None,
    })
    .collect();
    let mut usage = vec![vec![vec![0.0; steps as usize]; servers.len()]];
    let (mut bars, mut decisions) = (Vec::new(), Vec::new());
    for (t, step) in plan.iter().enumerate() {
        let t = t as u32;
        let mut parts = Vec::new();
        for jd in &d.jobs {
            let ks = step.assignment.get(&jd.id).map_or(&[][..], Vec::as_slice);
            for &k in ks {
                if let Some(u) = usage[0].get_mut(k as usize) {
                    u[t as usize] += 1.0;
                }
                bars.push(Bar {
                    job: jd.id.clone(),
                    server: k,
                    lane: 0,
                    start: t,
                    end: t + 1,
                    label: jd.id.clone(),
                });
            }
            parts.push(format!("{} -> {:?}", jd.id, ks));
        }
        let action = if step.best { "best" } else { "category" };
        let chosen = if step.best { "chosen " } else { "" };
        let cat = step.category;
        // The engine's record of this category (the search reports every category it rates).
        let rec = cats.iter().find(|(_, c)| c.category == cat);
        let text = match rec {
            Some((_, c)) => format!(
                "{chosen}K = {cat:?}: {}; avg JCT {} s, fairness {}, total throughput {}{}",
                parts.join(", "),
                num(c.avg_jct),
                num(c.fairness),
                num(c.total_throughput),
                c.market_rounds.map_or(String::new(), |m| format!(
                    "; market cleared in {m} round(s)"
                ))
            ),
            // Methods that rate no category one by one (exact, Optimus, LAS): the best only.
            None => format!(
                "{chosen}K = {cat:?}: {}; avg JCT {} s, fairness {}",
                parts.join(", "),
                num(r.best.avg_jct),
                num(r.best.fairness)
            ),
        };
        decisions.push(match rec {
            Some((e, _)) => Decision::of(t, steps, "", action, text, e),
            None => Decision::consequence(t, steps, "", action, text),
        });
    }
    let rounds: Vec<Value> = per_cat
        .iter()
        .map(json)
        .chain([{
            let mut b = json(&r.best);
            if let Some(o) = b.as_object_mut() {
                o.insert("best".into(), Value::Bool(true));
            }
            b
        }])
        .collect();
    let (market, markets) = match trace {
        Some(Trace::Placement(m)) => (json(m), m.categories.clone()),
        _ => (Value::Null, Vec::new()),
    };
    let jobs = d
        .jobs
        .iter()
        .map(|jd| JobInfo {
            id: jd.id.clone(),
            arrival: 0,
            start: Some(0),
            end: Some(steps),
            accepted: r.best.assignment.contains_key(&jd.id),
        })
        .collect();
    let workers: Vec<Worker> = d
        .workers
        .iter()
        .map(|w| Worker {
            gpu: &w.gpu,
            node: w.node,
        })
        .collect();
    Timeline {
        kind: "placement".into(),
        policy: String::new(),
        steps,
        step_unit: "category".into(),
        resources: vec!["jobs".into()],
        servers,
        bars,
        usage,
        usage_series: Vec::new(),
        price_series: Vec::new(),
        price: Vec::new(),
        price_note: String::new(),
        decisions,
        jobs,
        summary: json(&r.best),
        extra: serde_json::json!({
            "workers": workers,
            "rounds": rounds,
            "categories_examined": r.categories_examined,
            "method": r.policy,
            "market_stats": r.market,
            "market": market,
        }),
        waits: Vec::new(),
        markets,
    }
}

impl super::SimKind for mlsched_scenario::engine::Placement {
    fn build(
        d: &PlacementDoc,
        r: &PlacementResult,
        ds: &[EngineDecision],
        tr: Option<&mlsched_scenario::engine::Trace>,
    ) -> Timeline {
        build(d, r, ds, tr)
    }
}
