//! Replay of kind `"oasis"`: per-slot placements of workers and PSs, and the resource prices
//! p_h^r(t) = L (U^r / L)^(y_h^r(t) / c_h^r) of eq. (22) those placements imply.
use super::{
    arr, f64_of, job_result, num, runs, steps_of, u32_of, zeros, Bar, Decision, JobInfo, Server,
    Timeline,
};
use mlsched_kernel::price::oasis_price;
use mlsched_scenario::doc::oasis::OasisDoc;
use serde_json::Value;
use std::collections::BTreeMap;

pub(super) fn build(d: &OasisDoc, res: &Value) -> Result<Timeline, String> {
    let steps = steps_of(d.slots);
    let nr = d.resources.len();
    let nh = d.worker_servers.len();
    let mut servers: Vec<Server> = Vec::new();
    for (h, c) in d.worker_servers.iter().enumerate() {
        servers.push(server(format!("w{h}"), "worker", c));
    }
    for (k, c) in d.ps_servers.iter().enumerate() {
        servers.push(server(format!("ps{k}"), "ps", c));
    }
    let ns = servers.len();
    let trace = super::kernel::oasis(d, res);
    let mut usage = zeros(nr, ns, steps);
    let mut bars = Vec::new();
    let mut decisions = Vec::new();
    let mut jobs = Vec::new();
    for (i, jd) in d.jobs.iter().enumerate() {
        let jr = job_result(res, i, &jd.id)?;
        let arrival = steps_of(jd.arrival + 1.0) - 1;
        let admitted = jr.get("admitted").and_then(Value::as_bool).unwrap_or(false);
        // (server row, slot) -> (workers, ps) count of this job.
        let mut cells: BTreeMap<(usize, u32), u32> = BTreeMap::new();
        for p in arr(jr, "placements") {
            let Some(slot) = u32_of(p, "slot") else {
                continue;
            };
            for (list, offset, demand) in
                [("workers", 0, &jd.worker_demand), ("ps", nh, &jd.ps_demand)]
            {
                for pair in arr(p, list) {
                    let (Some(srv), Some(n)) = (
                        pair.get(0).and_then(Value::as_u64),
                        pair.get(1).and_then(Value::as_u64),
                    ) else {
                        continue;
                    };
                    let row = offset + srv as usize;
                    if row >= ns || slot >= steps {
                        return Err(format!(
                            "result: job `{}` places on {list} server {srv} at slot {slot}, outside the scenario",
                            jd.id
                        ));
                    }
                    for (r, dem) in demand.iter().enumerate().take(nr) {
                        usage[r][row][slot as usize] += n as f64 * dem;
                    }
                    *cells.entry((row, slot)).or_default() += n as u32;
                }
            }
        }
        let mut first: Option<u32> = None;
        let mut last: Option<u32> = None;
        let mut rows: BTreeMap<usize, Vec<(u32, u32)>> = BTreeMap::new();
        for (&(row, slot), &n) in &cells {
            rows.entry(row).or_default().push((slot, n));
            first = Some(first.map_or(slot, |f: u32| f.min(slot)));
            last = Some(last.map_or(slot + 1, |l: u32| l.max(slot + 1)));
        }
        for (row, cells) in rows {
            let slots: Vec<u32> = cells.iter().map(|c| c.0).collect();
            for (a, b) in runs(&slots) {
                let n = cells.iter().find(|c| c.0 == a).map_or(0, |c| c.1);
                let what = if row < nh { "w" } else { "ps" };
                bars.push(Bar {
                    job: jd.id.clone(),
                    server: row as u32,
                    lane: 0,
                    start: a,
                    end: b,
                    label: format!("{n}{what}"),
                });
            }
        }
        let kd = trace
            .as_ref()
            .and_then(|tr| tr.decisions.iter().find(|k| k.job as usize == i));
        decisions.push(match kd {
            Some(k) => explain_kernel(jd.id.as_str(), k, first, last),
            None => explain(jd.id.as_str(), arrival, admitted, jr, first, last),
        });
        if let (Some(done), true) = (u32_of(jr, "completion_slot"), admitted) {
            decisions.push(Decision {
                step: done.min(steps - 1),
                job: jd.id.clone(),
                record: Value::Null,
                action: "complete".into(),
                text: format!("completes its {} epochs in slot {done}", num(jd.epochs)),
            });
        }
        jobs.push(JobInfo {
            id: jd.id.clone(),
            arrival,
            start: first,
            end: last,
            accepted: admitted,
        });
    }
    let (price, price_note) = match trace {
        Some(tr) if tr.price.iter().all(|per_s| per_s.len() == ns) => {
            let from = if tr.bounds_derived {
                "U, L derived by eqs. (23)-(26)"
            } else {
                "U, L from the scenario"
            };
            (
                tr.price,
                format!(
                    "p(t) = L * (U/L)^(used/capacity), eq. (22): the kernel's prices after every \
                     decision ({from}); a slot's prices are final once the jobs arriving by then \
                     are decided"
                ),
            )
        }
        _ => prices(d, &usage, &servers, steps),
    };
    Ok(Timeline {
        kind: "oasis".into(),
        policy: String::new(),
        steps,
        step_unit: "slot".into(),
        resources: d.resources.clone(),
        servers,
        bars,
        usage,
        price,
        price_note,
        decisions,
        jobs,
        summary: res.get("summary").cloned().unwrap_or(Value::Null),
        extra: Value::Null,
    })
}

fn server(id: String, group: &str, c: &[f64]) -> Server {
    Server {
        id,
        group: group.into(),
        capacity: c.to_vec(),
    }
}

/// The explanation of the kernel's decision record (OASiS Alg. 1 lines 6-15).
fn explain_kernel(
    id: &str,
    k: &mlsched_kernel::oasis::Decision,
    first: Option<u32>,
    last: Option<u32>,
) -> Decision {
    let text = if k.admitted {
        let span = match (first, last) {
            (Some(a), Some(b)) => format!("; runs in slots {a}..{}", b - 1),
            _ => String::new(),
        };
        format!(
            "admitted at slot {}: best schedule l* completes in slot {} with utility f_i = {} - \
             priced cost DP_COST = {} = payoff mu_i = {} > 0{span}",
            k.arrival,
            k.completion_slot.map_or("?".into(), |t| t.to_string()),
            num(k.utility),
            num(k.cost),
            num(k.payoff)
        )
    } else {
        format!("rejected at slot {}: {}", k.arrival, k.reason.text())
    };
    Decision {
        step: k.arrival,
        job: id.into(),
        record: super::kernel::oasis_record(k),
        action: if k.admitted { "admit" } else { "reject" }.into(),
        text,
    }
}

fn explain(
    id: &str,
    arrival: u32,
    admitted: bool,
    jr: &Value,
    first: Option<u32>,
    last: Option<u32>,
) -> Decision {
    let text = if admitted {
        let u = f64_of(jr, "utility").map_or("?".into(), num);
        let c = f64_of(jr, "cost").map_or("?".into(), num);
        let p = f64_of(jr, "payoff").map_or("?".into(), num);
        let span = match (first, last) {
            (Some(a), Some(b)) => format!("; runs in slots {a}..{}", b - 1),
            _ => String::new(),
        };
        format!("admitted: utility {u} - priced cost {c} = payoff {p} > 0{span}")
    } else {
        let why = jr
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("no schedule with positive payoff at current prices");
        format!("rejected: {why}")
    };
    Decision {
        step: arrival,
        job: id.into(),
        record: Value::Null,
        action: if admitted { "admit" } else { "reject" }.into(),
        text,
    }
}

/// Prices of eq. (22) from the given bounds; none when `prices` is absent (the scheduler then
/// estimates the bounds itself and the result does not carry them).
fn prices(
    d: &OasisDoc,
    usage: &[Vec<Vec<f64>>],
    servers: &[Server],
    steps: u32,
) -> (Vec<Vec<Vec<f64>>>, String) {
    let Some(p) = &d.prices else {
        return (Vec::new(), String::new());
    };
    let nh = d.worker_servers.len();
    let mut out = zeros(usage.len(), servers.len(), steps);
    for (r, per_s) in usage.iter().enumerate() {
        for (s, per_t) in per_s.iter().enumerate() {
            let (l, u) = if s < nh {
                (p.l_worker, p.u_worker.get(r).copied().unwrap_or(0.0))
            } else {
                (p.l_ps, p.u_ps.get(r).copied().unwrap_or(0.0))
            };
            let cap = servers[s].capacity.get(r).copied().unwrap_or(0.0);
            for (t, used) in per_t.iter().enumerate() {
                out[r][s][t] = if cap > 0.0 {
                    oasis_price(l, u, *used, cap)
                } else {
                    0.0
                };
            }
        }
    }
    (
        out,
        "p(t) = L * (U/L)^(used/capacity), eq. (22), after the slot's allocations".into(),
    )
}
