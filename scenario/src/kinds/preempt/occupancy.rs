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
        // A chunk runs on one worker: a slot listed twice is still one.
        for c in &j.chunks {
            let mut slots: Vec<(u32, u32)> = c.slots.iter().map(|&t| (c.server, t)).collect();
            crate::order::sort(&mut slots);
            slots.dedup();
            hold_runs(&mut b, &j.id, Role::Worker, &slots, &id);
        }
        // Each `ps` entry is one parameter server: a slot listed twice holds two.
        let mut ps: Vec<(u32, u32)> = j.ps.iter().map(|p| (p.server, p.slot)).collect();
        crate::order::sort(&mut ps);
        hold_runs(&mut b, &j.id, Role::Ps, &ps, &id);
    }
    b.finish()
}

/// Holds sorted `(server, slot)` units as pieces: equal entries are one piece of their count,
/// and a run of consecutive slots on one server with the same count is one piece (the builder
/// sums and merges pieces anyway; one piece per slot made long runs slow to sort).
fn hold_runs(
    b: &mut Builder,
    job: &str,
    role: Role,
    units: &[(u32, u32)],
    id: &dyn Fn(u32) -> String,
) {
    let mut counted: Vec<(u32, u32, u64)> = Vec::new();
    for same in units.chunk_by(|a, b| a == b) {
        if let Some(&(server, slot)) = same.first() {
            counted.push((server, slot, same.len() as u64));
        }
    }
    let next = |a: &(u32, u32, u64), b: &(u32, u32, u64)| {
        a.0 == b.0 && a.2 == b.2 && a.1.checked_add(1) == Some(b.1)
    };
    for run in counted.chunk_by(next) {
        if let (Some(first), Some(last)) = (run.first(), run.last()) {
            let span = (u64::from(first.1), u64::from(last.1) + 1);
            b.hold(job, id(first.0), role, first.2, span);
        }
    }
}
