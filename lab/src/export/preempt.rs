//! Kind `preempt`: one process per server (edge servers and the cloud), one thread per worker
//! and per parameter server. A dispatch record says where a chunk goes and when it was planned
//! to start, but a later job may preempt it (split it around its own chunks), so the slots a
//! chunk really ran in are not in the log: they are the run's final plans. The export re-runs
//! the logged scenario (deterministic), checks that the re-run writes exactly the log's
//! records, and draws each chunk's runs of consecutive slots from it. Parameter-server slices
//! come from the PS records; dispatches, candidates and PS misses are instants.
use super::trace::{Group, SchedThread, TraceBuilder};
use super::{args, events, runs, Input};
use mlsched_kernel::log::VecSink;
use mlsched_kernel::preempt::{CandidateRec, DispatchRec, PsMissRec, PsRec};
use mlsched_kernel::record::LogRecord;
use mlsched_scenario::engine::Kind;
use mlsched_scenario::kinds::preempt::doc::PreemptDoc;
use mlsched_scenario::run::run_doc;
use mlsched_scenario::RunError;
use std::collections::BTreeMap;

/// Thread order of the parameter servers, after every worker.
const PS_ORDER: u32 = 1 << 20;

impl super::Export for mlsched_scenario::engine::Preempt {
    fn export(x: &PreemptDoc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
        export(x, inp, b)
    }
}

/// Exports a Wang et al. (or baseline) run of `x`.
fn export(x: &PreemptDoc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
    let ids: Vec<&str> = x.jobs.iter().map(|j| j.id.as_str()).collect();
    let servers = x.servers.len();
    events(inp.recs, &ids, inp.clock, b)?;
    for (s, sv) in x.servers.iter().enumerate() {
        let name = if sv.cloud {
            format!("{} (cloud)", sv.id)
        } else {
            format!("edge server {}", sv.id)
        };
        b.process(1 + s as u32, name);
    }
    let mut ps: BTreeMap<(usize, u32, usize), Vec<(u64, ())>> = BTreeMap::new();
    let mut admitted = vec![false; ids.len()];
    for r in inp.recs {
        match r.tag {
            CandidateRec::TAG => {
                let j = r.job(ids.len())?;
                let s = r.index_below("server", servers, "servers")?;
                let mut a = r.args();
                a.insert("job".into(), ids[j].into());
                b.instant(
                    SchedThread::Search,
                    format!(
                        "candidate {} on {} worker {}",
                        ids[j],
                        x.servers[s].id,
                        r.u("worker")?
                    ),
                    inp.when(r),
                    a,
                );
            }
            DispatchRec::TAG => {
                let j = r.job(ids.len())?;
                let s = r.index_below("server", servers, "servers")?;
                let mut a = r.args();
                a.insert("job".into(), ids[j].into());
                a.insert("server_id".into(), x.servers[s].id.clone().into());
                a.insert(
                    "explanation".into(),
                    format!(
                        "least Q among the candidates: {} (the worker's Q after it: {}); splits {} chunks of other jobs",
                        r.f("q")?,
                        r.f("q_next").map_or_else(|_| "inf".to_string(), |q| q.to_string()),
                        r.u("preempted")?
                    )
                    .into(),
                );
                if !std::mem::replace(&mut admitted[j], true) {
                    b.instant(
                        SchedThread::Decisions,
                        format!("admit {}", ids[j]),
                        inp.when(r),
                        args([("job", ids[j].into()), ("chunks", x.jobs[j].chunks.into())]),
                    );
                }
                b.instant(
                    SchedThread::Decisions,
                    format!(
                        "dispatch {} chunk {} to {}",
                        ids[j],
                        r.u("chunk")?,
                        x.servers[s].id
                    ),
                    inp.when(r),
                    a,
                );
            }
            PsRec::TAG => {
                let j = r.job(ids.len())?;
                let s = r.index_below("server", servers, "servers")?;
                let key = (s, r.u("ps")? as u32, j);
                ps.entry(key).or_default().push((r.u("slot")?, ()));
            }
            PsMissRec::TAG => {
                let j = r.job(ids.len())?;
                b.instant(
                    SchedThread::Decisions,
                    format!("PS miss {}", ids[j]),
                    inp.when(r),
                    args([
                        ("job", ids[j].into()),
                        ("slot", r.u("slot")?.into()),
                        (
                            "reason",
                            "no eligible parameter server free in this slot".into(),
                        ),
                    ]),
                );
            }
            _ => {}
        }
    }
    // From the PS records, not the re-run's occupancy: a track is one parameter server `p` of
    // a server, and occupancy sums the PS units per server.
    for ((s, p, j), slots) in ps {
        for (from, to, ()) in runs(slots) {
            b.slice(
                Group::new(1 + s as u32, PS_ORDER + p, format!("PS {p}")),
                ids[j].to_string(),
                inp.clock.at(from),
                inp.clock.span(to - from),
                args([
                    ("job", ids[j].into()),
                    ("slots", format!("{from}..{to}").into()),
                ]),
            );
        }
    }
    chunks(&ids, inp, b)
}

/// The chunks' slices from a re-run that wrote exactly the log's records.
fn chunks(ids: &[&str], inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
    let mut sink = VecSink::new();
    let result = run_doc(inp.doc, inp.opts, &mut sink)?;
    let same = sink.records.len() == inp.raw.len()
        && sink
            .records
            .iter()
            .zip(inp.raw)
            .all(|((t, body), (lt, lbody))| t == lt && body.as_slice() == *lbody);
    if !same {
        return Err(super::log_error(
            "the log's records differ from a re-run of its scenario (run `mlsched replay` on it to see where)",
        ));
    }
    let Some(r) = <mlsched_scenario::engine::Preempt as Kind>::result_of(&result) else {
        return Err(super::log_error(
            "the re-run of a preempt scenario gave another kind",
        ));
    };
    // The typed chunks, not the result's occupancy: a track is one worker of a server and a
    // slice one chunk (with its `preempted` flag), and occupancy sums the units per server.
    for (j, job) in r.jobs.iter().enumerate() {
        for (c, chunk) in job.chunks.iter().enumerate() {
            let slots: Vec<(u64, ())> = chunk.slots.iter().map(|&t| (u64::from(t), ())).collect();
            let split = runs(slots.clone()).len() > 1;
            let pid = 1 + chunk.server;
            for (from, to, ()) in runs(slots) {
                b.slice(
                    Group::new(pid, chunk.worker, format!("worker {}", chunk.worker)),
                    format!("{} chunk {c}", ids[j]),
                    inp.clock.at(from),
                    inp.clock.span(to - from),
                    args([
                        ("job", ids[j].into()),
                        ("chunk", c.into()),
                        ("slots", format!("{from}..{to}").into()),
                        ("preempted", split.into()),
                    ]),
                );
            }
        }
    }
    Ok(())
}
