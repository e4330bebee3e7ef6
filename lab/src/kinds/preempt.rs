//! Kind `preempt` in the lab: compare's counters and the queue of chunks per worker.
use super::{Finished, LabKind, Measured};
use crate::compare::Metrics;
use mlsched_scenario::engine::Preempt;
use mlsched_scenario::kinds::preempt::doc::{PreemptDoc, PreemptResult};
use std::collections::BTreeMap;

impl LabKind for Preempt {
    fn measure(d: &PreemptDoc, res: &PreemptResult, m: &mut Metrics, out: &mut Measured) {
        out.plot.workers = worker_queues(d, res);
        // The kind reports each job's JCT itself.
        for jr in res.jobs.iter().take(d.jobs.len()) {
            out.finished.push(Finished {
                weight: 1.0,
                jct: jr.jct as f64,
                end: jr.completion_slot,
            });
        }
        m.admitted = Some(res.jobs.len() as u32);
        m.extra
            .insert("preemptions".into(), res.summary.preemptions as f64);
        m.extra
            .insert("cloud_chunks".into(), res.summary.cloud_chunks as f64);
        if let Some(n) = res.summary.restarts {
            m.extra.insert("restarts".into(), n as f64);
        }
    }

    fn cluster(d: &PreemptDoc) -> String {
        let cloud = d.servers.iter().filter(|s| s.cloud).count();
        format!("{} edge servers + {cloud} cloud", d.servers.len() - cloud)
    }

    fn slots(d: &PreemptDoc) -> Option<f64> {
        Some(d.slots)
    }
}

/// Chunks queued on each edge worker over the run (label `server-id/w<worker>`), every edge
/// worker of the scenario listed (0 for an idle one), in server and worker order; the cloud's
/// workers are one bar (`cloud-id (all)`): it has as many as it needs.
fn worker_queues(d: &PreemptDoc, res: &PreemptResult) -> Vec<(String, f64)> {
    let mut count: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    for (s, srv) in d.servers.iter().enumerate() {
        for w in 0..srv.workers.unwrap_or(0.0).max(0.0) as u32 {
            count.insert((s as u32, w), 0.0);
        }
    }
    let cloud = |s: u32| d.servers.get(s as usize).is_some_and(|x| x.cloud);
    // The typed chunks, not the occupancy: this counts chunks per worker, and occupancy holds
    // chunk-slots per server.
    for c in res.jobs.iter().flat_map(|j| &j.chunks) {
        let w = if cloud(c.server) { u32::MAX } else { c.worker };
        *count.entry((c.server, w)).or_default() += 1.0;
    }
    count
        .into_iter()
        .map(|((s, w), n)| {
            let id = d.servers.get(s as usize).map_or("?", |x| x.id.as_str());
            if w == u32::MAX {
                (format!("{id} (all)"), n)
            } else {
                (format!("{id}/w{w}"), n)
            }
        })
        .collect()
}
