//! Replay of kind `"online"`: each scheduled job holds `placement` = [server, workers, PSs] from
//! `start_slot` to `completion_slot`; prices are Zhou et al.'s lambda^(used/capacity) - 1 (eq. 11).
use super::{
    arr, f64_of, job_result, num, steps_of, u32_of, zeros, Bar, Decision, JobInfo, Server, Timeline,
};
use mlsched_kernel::price::zhou_price;
use mlsched_scenario::doc::online::{ArchitectureDoc, OnlineDoc};
use serde_json::Value;

pub(super) fn build(d: &OnlineDoc, res: &Value) -> Result<Timeline, String> {
    let steps = steps_of(d.slots);
    let nr = d.resources.len();
    let servers: Vec<Server> = d
        .servers
        .iter()
        .enumerate()
        .map(|(h, c)| Server {
            id: format!("h{h}"),
            group: "server".into(),
            capacity: c.clone(),
        })
        .collect();
    let ns = servers.len();
    let ps_types = d.ps_types.as_deref().unwrap_or(&[]);
    let trace = super::kernel::online(d, res);
    let mut usage = zeros(nr, ns, steps);
    let (mut bars, mut decisions, mut jobs) = (Vec::new(), Vec::new(), Vec::new());
    for (i, jd) in d.jobs.iter().enumerate() {
        let jr = job_result(res, i, &jd.id)?;
        let arrival = steps_of(jd.arrival + 1.0) - 1;
        let scheduled = jr
            .get("scheduled")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let start = u32_of(jr, "start_slot");
        let end = u32_of(jr, "completion_slot");
        let wt = u32_of(jr, "worker_type").and_then(|m| d.worker_types.get(m as usize));
        let pt = u32_of(jr, "ps_type").and_then(|p| ps_types.get(p as usize));
        if let (true, Some(a), Some(b)) = (scheduled, start, end) {
            for p in arr(jr, "placement") {
                let g = |k: usize| p.get(k).and_then(Value::as_u64).unwrap_or(0);
                let (h, w, s) = (g(0) as usize, g(1) as f64, g(2) as f64);
                if h >= ns {
                    return Err(format!(
                        "result: job `{}` placed on server {h}, the scenario has {ns}",
                        jd.id
                    ));
                }
                for (r, per_s) in usage.iter_mut().enumerate() {
                    let e = wt.and_then(|x| x.demand.get(r)).copied().unwrap_or(0.0);
                    let z = pt.and_then(|x| x.demand.get(r)).copied().unwrap_or(0.0);
                    for t in a..b.min(steps) {
                        per_s[h][t as usize] += w * e + s * z;
                    }
                }
                let label = if d.architecture == ArchitectureDoc::Ring || s == 0.0 {
                    format!("{w}w")
                } else {
                    format!("{w}w+{s}ps")
                };
                bars.push(Bar {
                    job: jd.id.clone(),
                    server: h as u32,
                    lane: 0,
                    start: a,
                    end: b.min(steps),
                    label,
                });
            }
            if trace.is_none() {
                decisions.push(Decision {
                    step: arrival,
                    job: jd.id.clone(),
                    record: Value::Null,
                    action: "schedule".into(),
                    text: explain_schedule(jr, jd.weight, a, b),
                });
            }
            if a < steps {
                decisions.push(Decision {
                    step: a,
                    job: jd.id.clone(),
                    record: Value::Null,
                    action: "start".into(),
                    text: format!("starts on {} server(s)", arr(jr, "placement").len()),
                });
            }
            decisions.push(Decision {
                step: b.min(steps - 1),
                job: jd.id.clone(),
                record: Value::Null,
                action: "complete".into(),
                text: format!(
                    "completes in slot {b}: weighted completion {} x {b} = {}",
                    num(jd.weight),
                    num(jd.weight * b as f64)
                ),
            });
        } else if trace.is_none() {
            decisions.push(Decision {
                step: arrival,
                job: jd.id.clone(),
                record: Value::Null,
                action: "reject".into(),
                text: "not scheduled: no schedule within the horizon pays for its dual prices"
                    .into(),
            });
        }
        jobs.push(JobInfo {
            id: jd.id.clone(),
            arrival,
            start: start.filter(|_| scheduled),
            end: end.filter(|_| scheduled),
            accepted: scheduled,
        });
    }
    if let Some(tr) = &trace {
        for k in &tr.decisions {
            if let Some(jd) = d.jobs.get(k.job as usize) {
                decisions.push(explain_kernel(&jd.id, jd.weight, k, steps));
            }
        }
    }
    if let Some(tr) = trace.filter(|tr| tr.price.iter().all(|per_s| per_s.len() == ns)) {
        return Ok(Timeline {
            kind: "online".into(),
            policy: String::new(),
            steps,
            step_unit: "slot".into(),
            resources: d.resources.clone(),
            servers,
            bars,
            usage,
            price: tr.price,
            price_note: format!(
                "p(t) = lambda^(used/capacity) - 1, eq. (11), lambda = {}: the kernel's dual prices \
                 of its usage; a slot's prices are final once it has run",
                num(tr.lambda)
            ),
            decisions,
            jobs,
            summary: res.get("summary").cloned().unwrap_or(Value::Null),
            extra: Value::Null,
        });
    }
    // Not the kernel's own run: prices of the replayed usage, lambda = 2 T H R F + 1 (eq. 11).
    let lambda = 2.0 * steps as f64 * ns as f64 * nr as f64 * d.f + 1.0;
    let mut price = zeros(nr, ns, steps);
    for (r, per_s) in price.iter_mut().enumerate() {
        for (h, per_t) in per_s.iter_mut().enumerate() {
            let cap = servers[h].capacity.get(r).copied().unwrap_or(0.0);
            for (t, p) in per_t.iter_mut().enumerate() {
                *p = zhou_price(lambda, usage[r][h][t], cap);
            }
        }
    }
    Ok(Timeline {
        kind: "online".into(),
        policy: String::new(),
        steps,
        step_unit: "slot".into(),
        resources: d.resources.clone(),
        servers,
        bars,
        usage,
        price,
        price_note: format!(
            "p(t) = lambda^(used/capacity) - 1, lambda = 2THRF + 1 = {} (eq. 11)",
            num(lambda)
        ),
        decisions,
        jobs,
        summary: res.get("summary").cloned().unwrap_or(Value::Null),
        extra: Value::Null,
    })
}

/// The explanation of one kernel `OnlineDecision` (A_online round i, A_dual window iota).
fn explain_kernel(
    id: &str,
    weight: f64,
    k: &mlsched_kernel::online::OnlineDecision,
    steps: u32,
) -> Decision {
    let at = format!("round {} (tau = {}), window {}", k.round, k.tau, k.iota);
    let what = |k: &mlsched_kernel::online::OnlineDecision| {
        let mut s = format!(
            "start slot {} for {} slots on {} workers of type {}",
            k.start, k.duration, k.workers, k.worker_type
        );
        if let Some(p) = k.ps_type {
            s += &format!(", PS type {p}");
        }
        if k.colocated {
            s += ", co-located";
        }
        s
    };
    let (action, text) = if !k.feasible {
        (
            "defer",
            format!("{at}: no feasible schedule in the window; waits"),
        )
    } else if k.scheduled {
        (
            "schedule",
            format!(
                "{at}: scheduled, {}; u_j = w_j - cost = {} - {} = {} > 0 (cost at the dual prices)",
                what(k),
                num(weight),
                num(k.cost),
                num(k.utility)
            ),
        )
    } else {
        (
            "defer",
            format!(
                "{at}: best schedule {} costs {} at the dual prices; u_j = {} - {} = {} <= 0, waits",
                what(k),
                num(k.cost),
                num(weight),
                num(k.cost),
                num(k.utility)
            ),
        )
    };
    Decision {
        step: k.tau.min(steps.saturating_sub(1)),
        job: id.into(),
        record: super::kernel::online_record(k),
        action: action.into(),
        text,
    }
}

fn explain_schedule(jr: &Value, weight: f64, a: u32, b: u32) -> String {
    let mut s = format!("scheduled: slots {a}..{}", b.saturating_sub(1));
    if let Some(m) = u32_of(jr, "worker_type") {
        s += &format!(", worker type {m}");
    }
    if let Some(p) = u32_of(jr, "ps_type") {
        s += &format!(", PS type {p}");
    }
    if jr.get("colocated").and_then(Value::as_bool) == Some(true) {
        s += ", co-located";
    }
    if let Some(r) = u32_of(jr, "round") {
        s += &format!(", A_dual round {r}");
    }
    if let (Some(u), Some(c)) = (f64_of(jr, "utility"), f64_of(jr, "cost")) {
        s += &format!("; utility {} vs. priced cost {}", num(u), num(c));
    } else {
        s += &format!("; weight {}", num(weight));
    }
    s
}
