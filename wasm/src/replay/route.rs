//! Replay of kind `"route"`: each job occupies worker slots on its compute nodes from `start`
//! for `duration` slots, and its PS-to-worker `paths` load the links they cross.
use super::{
    arr, f64_of, job_result, num, steps_of, str_of, u32_of, zeros, Bar, Decision, JobInfo, Server,
    Timeline,
};
use mlsched_scenario::doc::route::{NodeKindDoc, RouteDoc};
use serde_json::{json, Value};

pub(super) fn build(d: &RouteDoc, res: &Value) -> Result<Timeline, String> {
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
    let mut horizon = 1u32;
    for (i, jd) in d.jobs.iter().enumerate() {
        let jr = job_result(res, i, &jd.id)?;
        let start = u32_of(jr, "start").unwrap_or(0);
        horizon = horizon
            .max(start.saturating_add(steps_of(jd.duration + 1.0) - 1))
            .max(steps_of(jd.deadline + 1.0) - 1)
            .max(steps_of(jd.release + 1.0));
    }
    let steps = horizon.min(super::STEPS_MAX);
    let nl = d.topology.links.len();
    let mut usage = zeros(1, servers.len(), steps);
    let mut link_load: Vec<Vec<f64>> = d
        .topology
        .links
        .iter()
        .map(|l| vec![l.used; steps as usize])
        .collect();
    let (mut bars, mut decisions, mut jobs, mut routes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, jd) in d.jobs.iter().enumerate() {
        let jr = job_result(res, i, &jd.id)?;
        let release = steps_of(jd.release + 1.0) - 1;
        let start = u32_of(jr, "start").unwrap_or(release);
        let end = start
            .saturating_add(steps_of(jd.duration + 1.0) - 1)
            .min(steps);
        let cn: Vec<&str> = arr(jr, "compute_nodes")
            .iter()
            .filter_map(Value::as_str)
            .collect();
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
                label: format!("{}w", n),
            });
        }
        let paths: Vec<Vec<String>> = arr(jr, "paths")
            .iter()
            .map(|p| {
                p.as_array()
                    .map(|v| {
                        v.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect();
        for p in &paths {
            for hop in p.windows(2) {
                if let Some(l) = (0..nl).find(|&l| {
                    let lk = &d.topology.links[l];
                    (lk.a == hop[0] && lk.b == hop[1]) || (lk.a == hop[1] && lk.b == hop[0])
                }) {
                    for t in start..end {
                        link_load[l][t as usize] += jd.bandwidth;
                    }
                }
            }
        }
        let met = jr
            .get("deadline_met")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let agg = str_of(jr, "aggregation_node");
        let text = format!(
            "routed: {} workers on [{}], start slot {start} (released {release}), {} path(s){}; network cost {}; deadline {} {}",
            cn.len(),
            cn.join(", "),
            paths.len(),
            if agg.is_empty() { String::new() } else { format!(", aggregated at {agg}") },
            f64_of(jr, "network_cost").map_or("-".into(), num),
            num(jd.deadline),
            if met { "met" } else { "VIOLATED" }
        );
        decisions.push(dec(release, &jd.id, "route", text, steps));
        if accepted {
            decisions.push(dec(start, &jd.id, "start", "starts training".into(), steps));
            decisions.push(dec(
                end,
                &jd.id,
                "complete",
                format!("completes at slot {end}"),
                steps,
            ));
        }
        routes.push(
            json!({"job": jd.id, "ps": jd.ps, "start": start, "end": end,
            "compute_nodes": cn, "paths": paths, "aggregation_node": jr.get("aggregation_node"),
            "deadline_met": met}),
        );
        jobs.push(JobInfo {
            id: jd.id.clone(),
            arrival: release,
            start: Some(start).filter(|_| accepted),
            end: Some(end).filter(|_| accepted),
            accepted,
        });
    }
    let topo_nodes: Vec<Value> = nodes
        .iter()
        .map(|n| {
            let kind = match n.kind {
                NodeKindDoc::Switch => "switch",
                NodeKindDoc::Compute => "compute",
                NodeKindDoc::Ps => "ps",
            };
            json!({"id": n.id, "kind": kind, "slots": n.slots})
        })
        .collect();
    let links: Vec<Value> = d
        .topology
        .links
        .iter()
        .map(|l| json!({"a": l.a, "b": l.b, "capacity": l.capacity, "used": l.used}))
        .collect();
    Ok(Timeline {
        kind: "route".into(),
        policy: String::new(),
        steps,
        step_unit: "slot".into(),
        resources: vec!["worker slots".into()],
        servers,
        bars,
        usage,
        price: Vec::new(),
        price_note: String::new(),
        decisions,
        jobs,
        summary: res.get("summary").cloned().unwrap_or(Value::Null),
        extra: json!({"topology": {"nodes": topo_nodes, "links": links},
            "routes": routes, "link_load": link_load, "aggregate": d.aggregate}),
    })
}

fn dec(step: u32, job: &str, action: &str, text: String, steps: u32) -> Decision {
    Decision {
        step: step.min(steps - 1),
        job: job.into(),
        record: Value::Null,
        action: action.into(),
        text,
    }
}
