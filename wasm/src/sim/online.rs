//! Kind `"online"`: each scheduled job holds its `placement` = [server, workers, PSs] from
//! `start_slot` to `completion_slot`; prices are the kernel's lambda^(used/capacity) - 1
//! (eq. 11) of A_online's usage; explanations come from the kernel's `online.decision` (or a
//! baseline's `baseline.start`) records.
use super::{
    finite, json, num, records, series, slot_of, steps_of, Bar, Decision, EngineDecision, JobInfo,
    Server, Timeline,
};
use mlsched_kernel::online::OnlineJobDecision;
use mlsched_scenario::engine::{Data, Trace};
use mlsched_scenario::kinds::online::doc::{ArchitectureDoc, OnlineDoc, OnlineResult};

pub(super) fn build(
    d: &OnlineDoc,
    r: &OnlineResult,
    ds: &[EngineDecision],
    trace: Option<&Trace>,
) -> Timeline {
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
    // Per resource and server, the amounts each placement holds over its slots, in job order
    // (a dense servers x slots matrix per resource does not fit at hour slots: see `series`).
    let mut held: Vec<Vec<Vec<(u32, u32, f64)>>> = vec![vec![Vec::new(); ns]; nr];
    let (mut bars, mut decisions, mut jobs) = (Vec::new(), Vec::new(), Vec::new());
    for jd in &d.jobs {
        let jr = r.jobs.iter().find(|j| j.id == jd.id);
        let scheduled = jr.is_some_and(|j| j.scheduled);
        let (start, end) = jr.map_or((None, None), |j| (j.start_slot, j.completion_slot));
        if let (Some(jr), true, Some(a), Some(b)) = (jr, scheduled, start, end) {
            let wt = jr.worker_type.and_then(|m| d.worker_types.get(m as usize));
            let pt = jr.ps_type.and_then(|p| ps_types.get(p as usize));
            for &[h, w, s] in &jr.placement {
                let (h, w, s) = (h as usize, w as f64, s as f64);
                if h >= ns {
                    continue;
                }
                for (r, per_s) in held.iter_mut().enumerate() {
                    let e = wt.and_then(|x| x.demand.get(r)).copied().unwrap_or(0.0);
                    let z = pt.and_then(|x| x.demand.get(r)).copied().unwrap_or(0.0);
                    per_s[h].push((a, b.min(steps), w * e + s * z));
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
            if a < steps {
                let text = format!("starts on {} server(s)", jr.placement.len());
                decisions.push(Decision::consequence(a, steps, &jd.id, "start", text));
            }
            let text = format!(
                "completes in slot {b}: weighted completion {} x {b} = {}",
                num(jd.weight),
                num(jd.weight * b as f64)
            );
            decisions.push(Decision::consequence(b, steps, &jd.id, "complete", text));
        }
        jobs.push(JobInfo {
            id: jd.id.clone(),
            arrival: slot_of(jd.arrival),
            start: start.filter(|_| scheduled),
            end: end.filter(|_| scheduled),
            accepted: scheduled,
        });
    }
    let job = |j: u32| d.jobs.get(j as usize);
    // A cost beyond u64 had no JSON: such a record was skipped (see `finite`).
    for (e, k) in records(ds, |d| match d {
        Data::OnlineDecision(k)
            if k.cost_fixed <= u128::from(u64::MAX) && finite(&[k.cost, k.utility]) =>
        {
            Some(k)
        }
        _ => None,
    }) {
        if let Some(jd) = job(k.job) {
            decisions.push(explain(&jd.id, jd.weight, k, steps, e));
        }
    }
    for (e, b) in records(ds, |d| match d {
        Data::BaselineStart(b) => Some(b),
        _ => None,
    }) {
        if let Some(jd) = job(b.job) {
            let text = format!(
                "{}: starts with {} worker(s) and {} PS for {} slot(s), done in slot {}",
                r.policy,
                b.workers,
                b.ps,
                b.duration,
                b.slot + b.duration
            );
            decisions.push(Decision::of(b.slot, steps, &jd.id, "schedule", text, e));
        }
    }
    let usage_series: Vec<Vec<Vec<f64>>> = held
        .iter()
        .map(|per_s| {
            per_s
                .iter()
                .map(|iv| series::of_intervals(iv, steps))
                .collect()
        })
        .collect();
    let usage = if nr * ns * steps as usize <= series::DENSE_MAX {
        let dense =
            |per_s: &Vec<Vec<f64>>| per_s.iter().map(|x| series::expand(x, steps)).collect();
        usage_series.iter().map(dense).collect()
    } else {
        Vec::new()
    };
    // The kernel's prices come as change points; `Timeline::fill_series` expands them when small.
    let (price_series, price_note) = match trace {
        Some(Trace::Online(tr)) if tr.price.iter().all(|per_s| per_s.len() == ns) => (
            tr.price.clone(),
            format!(
                "p(t) = lambda^(used/capacity) - 1, eq. (11), lambda = {}: the kernel's dual prices \
                 of its usage; a slot's prices are final once it has run",
                num(tr.lambda)
            ),
        ),
        _ => (Vec::new(), String::new()),
    };
    Timeline {
        kind: "online".into(),
        policy: String::new(),
        steps,
        step_unit: "slot".into(),
        resources: d.resources.clone(),
        servers,
        bars,
        usage,
        usage_series,
        price_series,
        price: Vec::new(),
        price_note,
        decisions,
        jobs,
        summary: json(&r.summary),
        extra: serde_json::Value::Null,
        waits: Vec::new(),
        markets: Vec::new(),
    }
}

/// The explanation of one kernel `OnlineJobDecision` (A_online round i, A_dual window iota).
fn explain(
    id: &str,
    weight: f64,
    k: &OnlineJobDecision,
    steps: u32,
    e: &EngineDecision,
) -> Decision {
    let at = format!("round {} (tau = {}), window {}", k.round, k.tau, k.iota);
    let mut what = format!(
        "start slot {} for {} slots on {} workers of type {}",
        k.start, k.duration, k.workers, k.worker_type
    );
    if let Some(p) = k.ps_type {
        what += &format!(", PS type {p}");
    }
    if k.colocated {
        what += ", co-located";
    }
    let (action, text) = if !k.feasible {
        (
            "defer",
            format!("{at}: no feasible schedule in the window; waits"),
        )
    } else if k.scheduled {
        (
            "schedule",
            format!(
                "{at}: scheduled, {what}; u_j = w_j - cost = {} - {} = {} > 0 (cost at the dual prices)",
                num(weight),
                num(k.cost),
                num(k.utility)
            ),
        )
    } else {
        (
            "defer",
            format!(
                "{at}: best schedule {what} costs {} at the dual prices; u_j = {} - {} = {} <= 0, waits",
                num(k.cost),
                num(weight),
                num(k.cost),
                num(k.utility)
            ),
        )
    };
    Decision::of(k.tau, steps, id, action, text, e)
}

impl super::SimKind for mlsched_scenario::engine::Online {
    fn build(
        d: &OnlineDoc,
        r: &OnlineResult,
        ds: &[EngineDecision],
        tr: Option<&mlsched_scenario::engine::Trace>,
    ) -> Timeline {
        build(d, r, ds, tr)
    }
}
