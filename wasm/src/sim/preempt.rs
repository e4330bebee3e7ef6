//! Kind `"preempt"`: every chunk's running slots on its (server, worker) lane, the waits in each
//! worker's queue, preemptions (a chunk that ran in slot t-1 and not in slot t before
//! finishing) and the PS each job uses per slot; each job's dispatch is explained from the
//! kernel's `preempt.candidate` and `preempt.dispatch` records (A_greedy, eq. 5).
use super::{
    finite, json, num, records, runs, slot_of, steps_of, zeros, Bar, Decision, EngineDecision,
    JobInfo, Server, Timeline, Wait,
};
use mlsched_kernel::preempt::DispatchRec;
use mlsched_scenario::engine::Data;
use mlsched_scenario::kinds::preempt::doc::{PreemptDoc, PreemptResult};

/// Chunks listed one by one in a dispatch explanation (the rest are counted).
const CHUNKS_SHOWN: usize = 6;

pub(super) fn build(d: &PreemptDoc, r: &PreemptResult, ds: &[EngineDecision]) -> Timeline {
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
    let last = r
        .jobs
        .iter()
        .map(|j| j.completion_slot)
        .chain(d.jobs.iter().map(|j| steps_of(j.arrival + 1.0)))
        .max()
        .unwrap_or(0);
    let steps = (last + 1).min(steps_of(d.slots)).max(1);
    let mut usage = zeros(2, ns, steps);
    let (mut bars, mut decisions, mut jobs, mut waits) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut preemptions = 0u32;
    let sid = |s: u32| d.servers.get(s as usize).map_or("?", |x| x.id.as_str());
    for jd in &d.jobs {
        let arrival = slot_of(jd.arrival);
        let Some(jr) = r.jobs.iter().find(|j| j.id == jd.id) else {
            continue;
        };
        let (mut first, mut end) = (None::<u32>, None::<u32>);
        for (k, c) in jr.chunks.iter().enumerate() {
            let (s, w) = (c.server, c.worker);
            if s as usize >= ns {
                continue;
            }
            let mut slots = c.slots.clone();
            mlsched_kernel::order::sort_u32(&mut slots);
            slots.dedup();
            for &t in slots.iter().filter(|t| **t < steps) {
                usage[0][s as usize][t as usize] += 1.0;
            }
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
                    (
                        "start",
                        format!("chunk {k} starts on {} worker {w}", sid(s)),
                    )
                } else {
                    (
                        "resume",
                        format!("chunk {k} resumes on {} worker {w}", sid(s)),
                    )
                };
                decisions.push(Decision::consequence(a, steps, &jd.id, action, text));
                if n + 1 < rs.len() {
                    preemptions += 1;
                    let text = format!(
                        "chunk {k} preempted on {} worker {w} (a chunk with a shorter remaining time takes the worker)",
                        sid(s)
                    );
                    decisions.push(Decision::consequence(b, steps, &jd.id, "preempt", text));
                }
            }
            // Waiting on the worker: from arrival + upload delay until the end, minus running.
            let delay = jd.upload_delay.get(s as usize).copied().unwrap_or(0.0);
            let ready = arrival + slot_of(delay);
            let cend = slots.last().map_or(ready, |l| l + 1);
            if arrival < ready {
                waits.push(Wait {
                    server: s,
                    from: arrival,
                    to: ready,
                    label: format!("{}#{k} uploading to w{w}", jd.id),
                });
            }
            let mut t0 = ready;
            for &(a, b) in &rs {
                if t0 < a {
                    waits.push(Wait {
                        server: s,
                        from: t0,
                        to: a,
                        label: format!("{}#{k}@w{w}", jd.id),
                    });
                }
                t0 = t0.max(b);
            }
            let f = slots.first().copied().unwrap_or(cend);
            first = Some(first.map_or(f, |x| x.min(f)));
            end = Some(end.map_or(cend, |e| e.max(cend)));
        }
        for p in &jr.ps {
            if p.slot < steps && (p.server as usize) < ns {
                usage[1][p.server as usize][p.slot as usize] += 1.0;
            }
        }
        let c = jr.completion_slot;
        let text = format!(
            "all chunks done at slot {c}: JCT = {c} - {arrival} = {}",
            jr.jct
        );
        decisions.push(Decision::consequence(c, steps, &jd.id, "complete", text));
        jobs.push(JobInfo {
            id: jd.id.clone(),
            arrival,
            start: first,
            end,
            accepted: true,
        });
    }
    // One dispatch decision per job, from the kernel's records of its chunks.
    let mut per_job: Vec<Vec<(&EngineDecision, &DispatchRec)>> =
        d.jobs.iter().map(|_| vec![]).collect();
    for (e, x) in records(ds, |d| match d {
        Data::Dispatch(x) if finite(&[x.q]) => Some(x),
        _ => None,
    }) {
        if let Some(v) = per_job.get_mut(x.job as usize) {
            v.push((e, x));
        }
    }
    let mut candidates = vec![0u32; d.jobs.len()];
    for (_, c) in records(ds, |d| match d {
        Data::Candidate(c) => Some(c),
        _ => None,
    }) {
        if let Some(n) = candidates.get_mut(c.job as usize) {
            *n += 1;
        }
    }
    for ((jd, list), cands) in d.jobs.iter().zip(&per_job).zip(&candidates) {
        let Some((e, _)) = list.first() else {
            continue;
        };
        let shown: Vec<String> = list
            .iter()
            .take(CHUNKS_SHOWN)
            .map(|(_, x)| {
                let mut s = format!(
                    "c{} -> {} w{} (Q = {}, from slot {})",
                    x.chunk,
                    sid(x.server),
                    x.worker,
                    num(x.q),
                    x.start
                );
                if x.preempted > 0 {
                    s += &format!(", preempts {}", x.preempted);
                }
                s
            })
            .collect();
        let more = list.len().saturating_sub(CHUNKS_SHOWN);
        let text = format!(
            "dispatches its {} chunk(s) each to the worker of least Q (eq. 5){}: {}{}",
            list.len(),
            if *cands > 0 {
                format!(" among {cands} candidate(s)")
            } else {
                String::new()
            },
            shown.join("; "),
            if more > 0 {
                format!("; and {more} more")
            } else {
                String::new()
            }
        );
        decisions.push(Decision::of(
            slot_of(jd.arrival),
            steps,
            &jd.id,
            "dispatch",
            text,
            e,
        ));
    }
    Timeline {
        kind: "preempt".into(),
        policy: String::new(),
        steps,
        step_unit: "slot".into(),
        resources: vec!["busy workers".into(), "PS in use".into()],
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
        extra: serde_json::json!({ "queues": &waits, "preemptions_replayed": preemptions }),
        waits,
        markets: Vec::new(),
    }
}

impl super::SimKind for mlsched_scenario::engine::Preempt {
    fn build(
        d: &PreemptDoc,
        r: &PreemptResult,
        ds: &[EngineDecision],
        _: Option<&mlsched_scenario::engine::Trace>,
    ) -> Timeline {
        build(d, r, ds)
    }
}
