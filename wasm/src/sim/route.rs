//! Kind `"route"`: each job occupies worker slots on its compute nodes from `start` for
//! `duration` slots, and its PS-to-worker `paths` load the links they cross; each job's routing
//! is explained from the kernel's `route.placed` record (with its `route.pso` and
//! `route.aggregation` records: CSRP's PSO cost and Algorithm 2's aggregation).
use super::{
    finite, json, num, records, slot_of, steps_of, zeros, Bar, Decision, EngineDecision, JobInfo,
    Server, Timeline, STEPS_MAX,
};
use mlsched_kernel::route::AggRec;
use mlsched_scenario::engine::Data;
use mlsched_scenario::kinds::route::doc::{NodeKindDoc, RouteDoc, RouteResult};
use serde::Serialize;

/// One job's route, `extra.routes`.
#[derive(Serialize)]
struct Routed<'a> {
    job: &'a str,
    ps: &'a str,
    start: u32,
    end: u32,
    compute_nodes: &'a [String],
    paths: &'a [Vec<String>],
    aggregation_node: &'a Option<String>,
    deadline_met: bool,
}

#[derive(Serialize)]
struct Node<'a> {
    id: &'a str,
    kind: &'static str,
    slots: Option<f64>,
}

pub(super) fn build(d: &RouteDoc, r: &RouteResult, ds: &[EngineDecision]) -> Timeline {
    let nodes = &d.topology.nodes;
    let compute: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].kind == NodeKindDoc::Compute)
        .collect();
    let servers: Vec<Server> = compute
        .iter()
        .map(|&i| Server {
            id: nodes[i].id.clone(),
            group: "compute".into(),
            capacity: vec![nodes[i].slots.unwrap_or(0.0)],
        })
        .collect();
    let result_of = |id: &str| r.jobs.iter().find(|j| j.id == id);
    let mut horizon = 1u32;
    for jd in &d.jobs {
        let start = result_of(&jd.id).map_or(0, |j| j.start);
        horizon = horizon
            .max(start.saturating_add(slot_of(jd.duration)))
            .max(slot_of(jd.deadline))
            .max(steps_of(jd.release + 1.0));
    }
    let steps = horizon.min(STEPS_MAX);
    let links = &d.topology.links;
    let mut usage = zeros(1, servers.len(), steps);
    let mut link_load: Vec<Vec<f64>> = links.iter().map(|l| vec![l.used; steps as usize]).collect();
    let (mut bars, mut decisions, mut jobs, mut routes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for jd in &d.jobs {
        let Some(jr) = result_of(&jd.id) else {
            continue;
        };
        let release = slot_of(jd.release);
        let start = jr.start;
        let end = start.saturating_add(slot_of(jd.duration)).min(steps);
        let cn = &jr.compute_nodes;
        let accepted = !cn.is_empty();
        for (row, &ni) in compute.iter().enumerate() {
            let n = cn.iter().filter(|c| **c == nodes[ni].id).count() as f64;
            if n == 0.0 {
                continue;
            }
            for t in start..end {
                usage[0][row][t as usize] += n;
            }
            bars.push(Bar {
                job: jd.id.clone(),
                server: row as u32,
                lane: 0,
                start,
                end,
                label: format!("{n}w"),
            });
        }
        for p in &jr.paths {
            for hop in p.windows(2) {
                let link = links.iter().position(|lk| {
                    (lk.a == hop[0] && lk.b == hop[1]) || (lk.a == hop[1] && lk.b == hop[0])
                });
                if let Some(l) = link {
                    for t in start..end {
                        link_load[l][t as usize] += jd.bandwidth;
                    }
                }
            }
        }
        if accepted {
            let text = "starts training".to_string();
            decisions.push(Decision::consequence(start, steps, &jd.id, "start", text));
            let text = format!("completes at slot {end}");
            decisions.push(Decision::consequence(end, steps, &jd.id, "complete", text));
        }
        routes.push(Routed {
            job: &jd.id,
            ps: &jd.ps,
            start,
            end,
            compute_nodes: cn,
            paths: &jr.paths,
            aggregation_node: &jr.aggregation_node,
            deadline_met: jr.deadline_met,
        });
        jobs.push(JobInfo {
            id: jd.id.clone(),
            arrival: release,
            start: Some(start).filter(|_| accepted),
            end: Some(end).filter(|_| accepted),
            accepted,
        });
    }
    let node = |n: u32| nodes.get(n as usize).map_or("?", |x| x.id.as_str());
    let aggs: Vec<&AggRec> = records(ds, |d| match d {
        Data::Aggregation(a) if finite(&[a.network_plain, a.network_aggregated]) => Some(a),
        _ => None,
    })
    .map(|(_, a)| a)
    .collect();
    for (e, p) in records(ds, |d| match d {
        Data::RoutePlaced(p) if finite(&[p.network_cost]) => Some(p),
        _ => None,
    }) {
        let Some(jd) = d.jobs.get(p.job as usize) else {
            continue;
        };
        let on: Vec<&str> = p.nodes.iter().map(|&n| node(n)).collect();
        let agg = match aggs.iter().find(|a| a.job == p.job && a.applied) {
            Some(a) if p.aggregation != u32::MAX => format!(
                ", aggregated at {} (network cost {} -> {})",
                node(p.aggregation),
                num(a.network_plain),
                num(a.network_aggregated)
            ),
            _ => String::new(),
        };
        let text = format!(
            "{}: {} worker(s) on [{}], start slot {} (released {}), {} hop(s){agg}; network cost {}; deadline {} {}",
            r.policy,
            on.len(),
            on.join(", "),
            p.start,
            slot_of(jd.release),
            p.hops,
            num(p.network_cost),
            num(jd.deadline),
            if p.deadline_met { "met" } else { "VIOLATED" }
        );
        let release = slot_of(jd.release);
        decisions.push(Decision::of(release, steps, &jd.id, "route", text, e));
    }
    let topo_nodes: Vec<Node> = nodes
        .iter()
        .map(|n| Node {
            id: &n.id,
            kind: match n.kind {
                NodeKindDoc::Switch => "switch",
                NodeKindDoc::Compute => "compute",
                NodeKindDoc::Ps => "ps",
            },
            slots: n.slots,
        })
        .collect();
    Timeline {
        kind: "route".into(),
        policy: String::new(),
        steps,
        step_unit: "slot".into(),
        resources: vec!["worker slots".into()],
        servers,
        bars,
        usage,
        usage_series: Vec::new(),
        price_series: Vec::new(),
        price: Vec::new(),
        price_note: String::new(),
        decisions,
        jobs,
        summary: json(&r.summary),
        extra: serde_json::json!({"topology": {"nodes": topo_nodes, "links": links},
            "routes": routes, "link_load": link_load, "aggregate": d.aggregate}),
        waits: Vec::new(),
        markets: Vec::new(),
    }
}

impl super::SimKind for mlsched_scenario::engine::Route {
    fn build(
        d: &RouteDoc,
        r: &RouteResult,
        ds: &[EngineDecision],
        _: Option<&mlsched_scenario::engine::Trace>,
    ) -> Timeline {
        build(d, r, ds)
    }
}
