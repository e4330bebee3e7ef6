//! Kind `"preempt"`: servers are the scenario's `servers[].id` (edge servers and the cloud);
//! role `worker` (one per chunk running in a slot) and `ps` (one per `ps` entry of a slot).
use crate::kinds::preempt::doc::PreemptJobResult;
use crate::occupancy::{Builder, Role, Span};

/// The occupancy of a `"preempt"` result's jobs: each chunk holds one worker of its server in
/// every slot of its `slots` (a preempted chunk's gaps hold nothing), each `ps` entry one
/// parameter server of its server in its slot. `servers` are the scenario's server ids, by index.
pub fn spans(jobs: &[PreemptJobResult], servers: &[&str]) -> Vec<Span> {
    let id = |s: u32| {
        servers
            .get(s as usize)
            .map_or_else(|| format!("#{s}"), |x| x.to_string())
    };
    let mut b = Builder::default();
    for j in jobs {
        for c in &j.chunks {
            // A chunk runs on one worker: a slot listed twice is still one.
            let mut slots = c.slots.clone();
            mlsched_kernel::order::sort_u32(&mut slots);
            slots.dedup();
            // One piece per run of consecutive slots (the builder sums and merges pieces
            // anyway; one per slot made long runs slow to sort).
            let server = id(c.server);
            for run in slots.chunk_by(|a, b| a.checked_add(1) == Some(*b)) {
                let (Some(&from), Some(&last)) = (run.first(), run.last()) else {
                    continue;
                };
                b.hold(
                    &j.id,
                    server.clone(),
                    Role::Worker,
                    1,
                    (u64::from(from), u64::from(last) + 1),
                );
            }
        }
        // The `ps` entries as (server, slot), sorted: a run of consecutive slots on one
        // server, each listed the same number of times, is one piece of that count.
        let mut ps: Vec<(u32, u32)> = j.ps.iter().map(|p| (p.server, p.slot)).collect();
        crate::order::sort(&mut ps);
        let mut counted: Vec<(u32, u32, u64)> = Vec::new();
        for same in ps.chunk_by(|a, b| a == b) {
            if let Some(&(server, slot)) = same.first() {
                counted.push((server, slot, same.len() as u64));
            }
        }
        let next = |a: &(u32, u32, u64), b: &(u32, u32, u64)| {
            a.0 == b.0 && a.2 == b.2 && a.1.checked_add(1) == Some(b.1)
        };
        for run in counted.chunk_by(next) {
            let (Some(first), Some(last)) = (run.first(), run.last()) else {
                continue;
            };
            let span = (u64::from(first.1), u64::from(last.1) + 1);
            b.hold(&j.id, id(first.0), Role::Ps, first.2, span);
        }
    }
    b.finish()
}
