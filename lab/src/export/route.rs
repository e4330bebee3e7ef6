//! Kind `route`: one process per topology node a job uses (compute nodes and parameter-server
//! nodes, named by their ids). A placed job's slice on each of its compute nodes (and on its
//! PS node) spans start e^r to e^r + Delta, the job's duration. The placement instant carries
//! network cost N, hops, the deadline and whether it is met (a CSRP job is never rejected: a
//! missed deadline is its failure); PSO results, aggregation choices and the run summary are
//! instants too.
use super::trace::{Group, SchedThread, TraceBuilder};
use super::{args, events, Input};
use mlsched_kernel::record::LogRecord;
use mlsched_kernel::route::{AggRec, DecisionRec, PsoRec, SummaryRec};
use mlsched_scenario::kinds::route::doc::RouteDoc;
use mlsched_scenario::RunError;
use std::collections::BTreeMap;

impl super::Export for mlsched_scenario::engine::Route {
    fn export(x: &RouteDoc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
        export(x, inp, b)
    }
}

/// Exports a CSRP (or baseline) run of `x`.
fn export(x: &RouteDoc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
    let ids: Vec<&str> = x.jobs.iter().map(|j| j.id.as_str()).collect();
    let nodes: Vec<&str> = x.topology.nodes.iter().map(|n| n.id.as_str()).collect();
    let n = nodes.len();
    events(inp.recs, &ids, inp.clock, b)?;
    for r in inp.recs {
        match r.tag {
            DecisionRec::TAG => {
                let j = r.job(ids.len())?;
                let job = &x.jobs[j];
                let start = r.u("start")?;
                let mut used: BTreeMap<usize, u64> = BTreeMap::new();
                for v in
                    r.d.fields
                        .get("nodes")
                        .and_then(|v| v.as_array())
                        .ok_or_else(|| r.bad("nodes", "not a list"))?
                {
                    let i = v
                        .as_u64()
                        .and_then(|i| usize::try_from(i).ok())
                        .filter(|&i| i < n)
                        .ok_or_else(|| r.bad("nodes", format!("{v} is not a node below {n}")))?;
                    *used.entry(i).or_default() += 1;
                }
                let dur = job.duration as u64;
                let span = format!("{start}..{}", start + dur);
                for (&i, &workers) in &used {
                    b.process(1 + i as u32, format!("compute node {}", nodes[i]));
                    b.slice(
                        Group::new(1 + i as u32, 0, "workers"),
                        ids[j].to_string(),
                        inp.clock.at(start),
                        inp.clock.span(dur),
                        args([
                            ("job", ids[j].into()),
                            ("workers", workers.into()),
                            ("slots", span.clone().into()),
                        ]),
                    );
                }
                if let Some(p) = nodes.iter().position(|&id| id == job.ps) {
                    b.process(1 + p as u32, format!("PS node {}", nodes[p]));
                    b.slice(
                        Group::new(1 + p as u32, 1, "parameter server"),
                        ids[j].to_string(),
                        inp.clock.at(start),
                        inp.clock.span(dur),
                        args([("job", ids[j].into()), ("slots", span.into())]),
                    );
                }
                let met = r.b("deadline_met")?;
                let mut a = r.args();
                a.insert("job".into(), ids[j].into());
                a.insert("deadline".into(), job.deadline.into());
                a.insert(
                    "compute_nodes".into(),
                    used.keys().map(|&i| nodes[i]).collect::<Vec<_>>().into(),
                );
                let agg = r.u("aggregation")?;
                if let Some(id) = usize::try_from(agg).ok().and_then(|i| nodes.get(i)) {
                    a.insert("aggregation_node".into(), (*id).into());
                }
                a.insert(
                    "reason".into(),
                    if met {
                        "placed: start + duration <= deadline"
                    } else {
                        "placed late: start + duration > deadline (a violation)"
                    }
                    .into(),
                );
                let verb = if met {
                    "place"
                } else {
                    "place (deadline missed)"
                };
                b.instant(
                    SchedThread::Decisions,
                    format!("{verb} {}", ids[j]),
                    inp.clock.at(job.release as u64),
                    a,
                );
            }
            PsoRec::TAG | AggRec::TAG => {
                let j = r.job(ids.len())?;
                let what = if r.tag == PsoRec::TAG {
                    "PSO result"
                } else {
                    "aggregation"
                };
                let mut a = r.args();
                a.insert("job".into(), ids[j].into());
                b.instant(
                    SchedThread::Search,
                    format!("{what} {}", ids[j]),
                    inp.clock.at(x.jobs[j].release as u64),
                    a,
                );
            }
            SummaryRec::TAG => b.instant(
                SchedThread::Decisions,
                "summary".into(),
                inp.when(r),
                r.args(),
            ),
            _ => {}
        }
    }
    Ok(())
}
