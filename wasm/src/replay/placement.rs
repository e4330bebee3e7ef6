//! Replay of kind `"placement"`: one step per category K = (K_1..K_n) the heterogeneity-aware
//! search examined (`per_category`, present with `allCategories`), then the chosen `best`. Each
//! step shows which workers the matching assigns to which job.
use super::{arr, f64_of, num, str_of, Bar, Decision, JobInfo, Server, Timeline};
use mlsched_scenario::doc::placement::PlacementDoc;
use serde_json::{json, Value};

pub(super) fn build(d: &PlacementDoc, res: &Value) -> Result<Timeline, String> {
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
    let best = res.get("best").cloned().unwrap_or(Value::Null);
    let mut rounds: Vec<Value> = arr(res, "per_category").to_vec();
    let mut b = best.clone();
    if let Some(o) = b.as_object_mut() {
        o.insert("best".into(), Value::Bool(true));
    }
    rounds.push(b);
    let steps = rounds.len() as u32;
    let mut usage = vec![vec![vec![0.0; steps as usize]; servers.len()]];
    let (mut bars, mut decisions) = (Vec::new(), Vec::new());
    for (t, round) in rounds.iter().enumerate() {
        let t = t as u32;
        let mut parts = Vec::new();
        for jd in &d.jobs {
            let ks: Vec<u32> = round
                .get("assignment")
                .and_then(|a| a.get(&jd.id))
                .and_then(Value::as_array)
                .map(|v| {
                    v.iter()
                        .filter_map(Value::as_u64)
                        .map(|k| k as u32)
                        .collect()
                })
                .unwrap_or_default();
            for &k in &ks {
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
        let cat: Vec<u64> = arr(round, "category")
            .iter()
            .filter_map(Value::as_u64)
            .collect();
        let is_best = round.get("best").is_some();
        let metric = |k: &str| f64_of(round, k).map_or("-".into(), num);
        decisions.push(Decision {
            step: t,
            job: String::new(),
            record: Value::Null,
            action: if is_best { "best" } else { "category" }.into(),
            text: format!(
                "{}K = {cat:?}: {}; avg JCT {} s, fairness {}{}",
                if is_best { "chosen " } else { "" },
                parts.join(", "),
                metric("avg_jct"),
                metric("fairness"),
                f64_of(round, "total_throughput")
                    .map_or(String::new(), |x| format!(", total throughput {}", num(x)))
            ),
        });
    }
    let cats: Vec<Vec<u32>> = rounds
        .iter()
        .map(|r| {
            arr(r, "category")
                .iter()
                .filter_map(Value::as_u64)
                .map(|k| k as u32)
                .collect()
        })
        .collect();
    let market = super::kernel::placement_market(d, res, &cats).unwrap_or(Value::Null);
    let jobs = d
        .jobs
        .iter()
        .map(|jd| JobInfo {
            id: jd.id.clone(),
            arrival: 0,
            start: Some(0),
            end: Some(steps),
            accepted: best.get("assignment").and_then(|a| a.get(&jd.id)).is_some(),
        })
        .collect();
    let workers: Vec<Value> = d
        .workers
        .iter()
        .map(|w| json!({"gpu": w.gpu, "node": w.node}))
        .collect();
    Ok(Timeline {
        kind: "placement".into(),
        policy: String::new(),
        steps,
        step_unit: "category".into(),
        resources: vec!["jobs".into()],
        servers,
        bars,
        usage,
        price: Vec::new(),
        price_note: String::new(),
        decisions,
        jobs,
        summary: best,
        extra: json!({
            "workers": workers,
            "rounds": rounds,
            "categories_examined": res.get("categories_examined").cloned().unwrap_or(Value::Null),
            "method": str_of(res, "policy"),
            "market_stats": res.get("market").cloned().unwrap_or(Value::Null),
            "market": market,
        }),
    })
}
