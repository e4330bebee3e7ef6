//! Kind `"oasis"`: per-slot placements of workers and PSs (the result's `placements`), OASiS's
//! prices p_h^r(t) = L (U^r / L)^(y_h^r(t) / c_h^r) of eq. (22) from the kernel's market, and
//! the explanations of the kernel's `oasis.decision` (or a baseline's `baseline.slot`) records.
use super::{
    finite, json, num, records, slot_of, steps_of, zeros, Bar, Decision, EngineDecision, JobInfo,
    Server, Timeline,
};
use mlsched_kernel::oasis::OasisJobDecision;
use mlsched_scenario::engine::{Data, Trace};
use mlsched_scenario::kinds::oasis::doc::{OasisDoc, OasisResult};
use std::collections::BTreeMap;

pub(super) fn build(
    d: &OasisDoc,
    r: &OasisResult,
    ds: &[EngineDecision],
    trace: Option<&Trace>,
) -> Timeline {
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
    let mut usage = zeros(nr, ns, steps);
    let (mut bars, mut decisions, mut jobs) = (Vec::new(), Vec::new(), Vec::new());
    // Per job: first and one-past-last slot it runs.
    let mut spans: Vec<(Option<u32>, Option<u32>)> = vec![(None, None); d.jobs.len()];
    for (i, jd) in d.jobs.iter().enumerate() {
        // Results list jobs in input order (formats.md); the search is only a fallback, as a
        // search per job is quadratic on a whole trace.
        let jr = r
            .jobs
            .get(i)
            .filter(|j| j.id == jd.id)
            .or_else(|| r.jobs.iter().find(|j| j.id == jd.id));
        // (row, slot) -> units of this job there. Sparse: a job uses a few of the servers x
        // slots cells, and a dense grid per job is quadratic on a whole cluster.
        let mut cells: BTreeMap<(usize, u32), u32> = BTreeMap::new();
        for p in jr.iter().flat_map(|j| &j.placements) {
            for (list, offset, demand) in [
                (&p.workers, 0, &jd.worker_demand),
                (&p.ps, nh, &jd.ps_demand),
            ] {
                for &[srv, n] in list {
                    let row = offset + srv as usize;
                    if row >= ns || p.slot >= steps {
                        continue;
                    }
                    for (r, dem) in demand.iter().enumerate().take(nr) {
                        usage[r][row][p.slot as usize] += n as f64 * dem;
                    }
                    if n > 0 {
                        *cells.entry((row, p.slot)).or_insert(0) += n;
                    }
                }
            }
        }
        // One bar per maximal run of slots on a row, labelled with its first slot's units.
        let (mut first, mut last) = (None::<u32>, None::<u32>);
        let mut runs = cells.iter().peekable();
        while let Some((&(row, a), &units)) = runs.next() {
            let mut b = a + 1;
            while runs
                .next_if(|&(&(r2, s2), _)| r2 == row && s2 == b)
                .is_some()
            {
                b += 1;
            }
            first = Some(first.map_or(a, |f| f.min(a)));
            last = Some(last.map_or(b, |l| l.max(b)));
            bars.push(Bar {
                job: jd.id.clone(),
                server: row as u32,
                lane: 0,
                start: a,
                end: b,
                label: format!("{units}{}", if row < nh { "w" } else { "ps" }),
            });
        }
        spans[i] = (first, last);
        let admitted = jr.is_some_and(|j| j.admitted);
        if let Some(done) = jr.and_then(|j| j.completion_slot).filter(|_| admitted) {
            let text = format!("completes its {} epochs in slot {done}", num(jd.epochs));
            decisions.push(Decision::consequence(done, steps, &jd.id, "complete", text));
        }
        jobs.push(JobInfo {
            id: jd.id.clone(),
            arrival: slot_of(jd.arrival),
            start: first,
            end: last,
            accepted: admitted,
        });
    }
    let id = |j: u32| d.jobs.get(j as usize).map_or("", |x| x.id.as_str());
    for (e, k) in records(ds, |d| match d {
        Data::OasisDecision(k) if finite(&[k.utility, k.cost, k.payoff]) => Some(k),
        _ => None,
    }) {
        let (first, last) = spans.get(k.job as usize).copied().unwrap_or_default();
        decisions.push(explain(id(k.job), k, first, last, steps, e));
    }
    for (e, b) in records(ds, |d| match d {
        Data::BaselineSlot(b) => Some(b),
        _ => None,
    }) {
        let text = format!(
            "{}: {} worker(s) and {} PS this slot, {} chunk(s){}",
            r.policy,
            b.workers,
            b.ps,
            b.chunks,
            if b.done { "; all epochs done" } else { "" }
        );
        decisions.push(Decision::of(b.slot, steps, id(b.job), "schedule", text, e));
    }
    let (price, price_note) = match trace {
        Some(Trace::Oasis(tr)) if tr.price.iter().all(|per_s| per_s.len() == ns) => {
            let from = if tr.bounds_derived {
                "U, L derived by eqs. (23)-(26)"
            } else {
                "U, L from the scenario"
            };
            (
                tr.price.clone(),
                format!(
                    "p(t) = L * (U/L)^(used/capacity), eq. (22): the kernel's prices after every \
                     decision ({from}); a slot's prices are final once the jobs arriving by then \
                     are decided"
                ),
            )
        }
        _ => (Vec::new(), String::new()),
    };
    Timeline {
        kind: "oasis".into(),
        policy: String::new(),
        steps,
        step_unit: "slot".into(),
        resources: d.resources.clone(),
        servers,
        bars,
        usage,
        usage_series: Vec::new(),
        price_series: Vec::new(),
        price,
        price_note,
        decisions,
        jobs,
        summary: json(&r.summary),
        extra: serde_json::Value::Null,
        waits: Vec::new(),
        markets: Vec::new(),
    }
}

fn server(id: String, group: &str, c: &[f64]) -> Server {
    Server {
        id,
        group: group.into(),
        capacity: c.to_vec(),
    }
}

/// The explanation of the kernel's decision record (OASiS Alg. 1 lines 6-15).
fn explain(
    id: &str,
    k: &OasisJobDecision,
    first: Option<u32>,
    last: Option<u32>,
    steps: u32,
    e: &EngineDecision,
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
    let action = if k.admitted { "admit" } else { "reject" };
    Decision::of(k.arrival, steps, id, action, text, e)
}

impl super::SimKind for mlsched_scenario::engine::Oasis {
    fn build(
        d: &OasisDoc,
        r: &OasisResult,
        ds: &[EngineDecision],
        tr: Option<&mlsched_scenario::engine::Trace>,
    ) -> Timeline {
        build(d, r, ds, tr)
    }
}
