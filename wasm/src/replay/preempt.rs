//! Replay of kind `"preempt"`: every chunk's running slots on its (server, worker) lane, the
//! waits in each worker's queue, preemptions (a chunk that ran in slot t-1 and not in slot t
//! before finishing) and the PS each job uses per slot.
use super::{
    arr, job_result, runs, steps_of, u32_of, zeros, Bar, Decision, JobInfo, Server, Timeline,
};
use mlsched_scenario::doc::preempt::PreemptDoc;
use serde_json::{json, Value};

pub(super) fn build(d: &PreemptDoc, res: &Value) -> Result<Timeline, String> {
    let servers: Vec<Server> = d
        .servers
        .iter()
        .map(|s| Server {
            id: s.id.clone(),
            group: if s.cloud { "cloud" } else { "edge" }.into(),
            // A cloud server's workers are unlimited: capacity 0 means "not bounded".
            capacity: vec![
                if s.cloud {
                    0.0
                } else {
                    s.workers.unwrap_or(0.0)
                },
                s.ps,
            ],
        })
        .collect();
    let ns = servers.len();
    // Show the run up to the last completion (the horizon is usually far longer).
    let mut last = 0u32;
    for j in arr(res, "jobs") {
        last = last.max(u32_of(j, "completion_slot").unwrap_or(0));
    }
    for jd in &d.jobs {
        last = last.max(steps_of(jd.arrival + 1.0));
    }
    let steps = (last + 1).min(steps_of(d.slots)).max(1);
    let mut usage = zeros(2, ns, steps);
    let (mut bars, mut decisions, mut jobs, mut queues) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut preemptions = 0u32;
    for (i, jd) in d.jobs.iter().enumerate() {
        let jr = job_result(res, i, &jd.id)?;
        let arrival = steps_of(jd.arrival + 1.0) - 1;
        let (mut first, mut end) = (None::<u32>, None::<u32>);
        let mut per_server = vec![0u32; ns];
        for (k, c) in arr(jr, "chunks").iter().enumerate() {
            let s = u32_of(c, "server").unwrap_or(0);
            let w = u32_of(c, "worker").unwrap_or(0);
            if s as usize >= ns {
                return Err(format!(
                    "result: job `{}` chunk {k} on server {s}, the scenario has {ns}",
                    jd.id
                ));
            }
            let mut slots: Vec<u32> = arr(c, "slots")
                .iter()
                .filter_map(Value::as_u64)
                .map(|x| x.min(u32::MAX as u64) as u32)
                .collect();
            slots.sort_unstable();
            slots.dedup();
            for &t in slots.iter().filter(|t| **t < steps) {
                usage[0][s as usize][t as usize] += 1.0;
            }
            per_server[s as usize] += 1;
            let sid = &d.servers[s as usize].id;
            let rs = runs(&slots);
            for (n, &(a, b)) in rs.iter().enumerate() {
                bars.push(Bar {
                    job: jd.id.clone(),
                    server: s,
                    lane: w,
                    start: a.min(steps),
                    end: b.min(steps),
                    label: format!("c{k}"),
                });
                let (action, text) = if n == 0 {
                    ("start", format!("chunk {k} starts on {sid} worker {w}"))
                } else {
                    ("resume", format!("chunk {k} resumes on {sid} worker {w}"))
                };
                decisions.push(dec(a, &jd.id, action, text, steps));
                if n + 1 < rs.len() {
                    preemptions += 1;
                    let text = format!(
                        "chunk {k} preempted on {sid} worker {w} (a chunk with a shorter remaining time takes the worker)"
                    );
                    decisions.push(dec(b, &jd.id, "preempt", text, steps));
                }
            }
            // Waiting on the worker: from arrival + upload delay until the end, minus running.
            let delay = jd.upload_delay.get(s as usize).copied().unwrap_or(0.0);
            let ready = arrival + steps_of(delay + 1.0) - 1;
            let cend = slots.last().map_or(ready, |l| l + 1);
            if arrival < ready {
                queues.push(json!({"server": s, "from": arrival, "to": ready,
                    "label": format!("{}#{k} uploading to w{w}", jd.id)}));
            }
            let mut t0 = ready;
            for &(a, b) in &rs {
                if t0 < a {
                    queues.push(json!({"server": s, "from": t0, "to": a,
                        "label": format!("{}#{k}@w{w}", jd.id)}));
                }
                t0 = t0.max(b);
            }
            first = Some(
                first.map_or(slots.first().copied().unwrap_or(cend), |f: u32| {
                    f.min(slots.first().copied().unwrap_or(f))
                }),
            );
            end = Some(end.map_or(cend, |e: u32| e.max(cend)));
        }
        let spread: Vec<String> = per_server
            .iter()
            .zip(&d.servers)
            .filter(|(n, _)| **n > 0)
            .map(|(n, s)| format!("{n} on {}", s.id))
            .collect();
        let text = format!(
            "dispatches its {} chunk(s): {}",
            per_server.iter().sum::<u32>(),
            spread.join(", ")
        );
        decisions.push(dec(arrival, &jd.id, "dispatch", text, steps));
        for p in arr(jr, "ps") {
            let (Some(t), Some(s)) = (u32_of(p, "slot"), u32_of(p, "server")) else {
                continue;
            };
            if t < steps && (s as usize) < ns {
                usage[1][s as usize][t as usize] += 1.0;
            }
        }
        if let Some(c) = u32_of(jr, "completion_slot") {
            let jct = u32_of(jr, "jct").unwrap_or(c.saturating_sub(arrival));
            let text = format!("all chunks done at slot {c}: JCT = {c} - {arrival} = {jct}");
            decisions.push(dec(c, &jd.id, "complete", text, steps));
        }
        jobs.push(JobInfo {
            id: jd.id.clone(),
            arrival,
            start: first,
            end,
            accepted: true,
        });
    }
    Ok(Timeline {
        kind: "preempt".into(),
        policy: String::new(),
        steps,
        step_unit: "slot".into(),
        resources: vec!["busy workers".into(), "PS in use".into()],
        servers,
        bars,
        usage,
        price: Vec::new(),
        price_note: String::new(),
        decisions,
        jobs,
        summary: res.get("summary").cloned().unwrap_or(Value::Null),
        extra: json!({ "queues": queues, "preemptions_replayed": preemptions }),
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
