//! Kind `placement`: a one-shot assignment of GPUs to jobs, so time is in seconds from 0, not
//! slots. One process per node, one thread per GPU (worker); the chosen assignment's slice on
//! a GPU lasts T_i x samples / rho_ik, the compute time of the job's share there (the
//! Ring-AllReduce term of `include_comm` is the job's, not a GPU's, and is not drawn). Each
//! job gets an instant: placed (its GPUs, the longest share) or not placed. The categories,
//! greedy steps, JPS window and exhaustive improvements are instants on `search`.
use super::trace::{Group, SchedThread, TraceBuilder};
use super::{args, Input};
use mlsched_kernel::model::placement::Method;
use mlsched_kernel::placement::records::{
    CategoryRec, ChoiceRec, ExhaustiveRec, GreedyRec, JpsRec, WorkerRec,
};
use mlsched_kernel::record::LogRecord;
use mlsched_scenario::kinds::placement::doc::PlacementDoc;
use mlsched_scenario::kinds::placement::exec::method_name;
use mlsched_scenario::RunError;
use serde_json::Value;
use std::collections::BTreeMap;

fn method(code: u64) -> &'static str {
    u8::try_from(code)
        .ok()
        .and_then(Method::from_code)
        .map_or("unknown method code", method_name)
}

impl super::Export for mlsched_scenario::engine::Placement {
    const SLOTS: bool = false;

    fn export(x: &PlacementDoc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
        export(x, inp, b)
    }
}

/// Exports a placement run of `x`.
fn export(x: &PlacementDoc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
    let ids: Vec<&str> = x.jobs.iter().map(|j| j.id.as_str()).collect();
    let nodes: Vec<u64> = {
        let mut n: Vec<u64> = x.workers.iter().map(|w| w.node as u64).collect();
        n.sort_unstable();
        n.dedup();
        n
    };
    for (i, n) in nodes.iter().enumerate() {
        b.process(1 + i as u32, format!("node {n}"));
    }
    // job -> (GPU, seconds of its share)
    let mut placed: BTreeMap<usize, Vec<(usize, f64)>> = BTreeMap::new();
    for r in inp.recs {
        let search = |name: String, b: &mut TraceBuilder| {
            b.instant(SchedThread::Search, name, 0.0, r.args())
        };
        match r.tag {
            CategoryRec::TAG => search(format!("category rank {}", r.u("rank")?), b),
            GreedyRec::TAG => {
                let j = r.job(ids.len())?;
                let mut a = r.args();
                a.insert("job".into(), ids[j].into());
                b.instant(
                    SchedThread::Search,
                    format!(
                        "greedy step {}: GPU {} to {}",
                        r.u("step")?,
                        r.u("worker")?,
                        ids[j]
                    ),
                    0.0,
                    a,
                );
            }
            ChoiceRec::TAG => {
                let mut a = r.args();
                a.insert("method".into(), method(r.u("method")?).into());
                b.instant(SchedThread::Decisions, "choice".into(), 0.0, a);
            }
            WorkerRec::TAG => {
                let j = r.job(ids.len())?;
                let k = r.index_below("worker", x.workers.len(), "workers")?;
                let job = &x.jobs[j];
                let rho = job.throughput.get(k).copied().unwrap_or(0.0);
                let secs = job.epochs * r.f("samples")? / rho;
                if !(secs.is_finite() && secs >= 0.0) {
                    return Err(r
                        .bad(
                            "samples",
                            format!(
                                "{} samples at throughput {rho} on GPU {k}: no finite time",
                                r.f("samples")?
                            ),
                        )
                        .into());
                }
                placed.entry(j).or_default().push((k, secs));
                let node = x.workers[k].node as u64;
                let pid = 1 + nodes.binary_search(&node).unwrap_or(0) as u32;
                let mut a = r.args();
                a.insert("job".into(), ids[j].into());
                a.insert("seconds".into(), secs.into());
                a.insert("throughput".into(), rho.into());
                b.slice(
                    Group::new(pid, k as u32, format!("GPU {k} ({})", x.workers[k].gpu)),
                    ids[j].to_string(),
                    0.0,
                    secs * 1e6,
                    a,
                );
            }
            JpsRec::TAG => search("JPS window".into(), b),
            ExhaustiveRec::TAG => search(format!("exhaustive improvement {}", r.u("number")?), b),
            _ => {}
        }
    }
    for (j, id) in ids.iter().enumerate() {
        let (name, a) = match placed.get(&j) {
            Some(gpus) => {
                let longest = gpus.iter().map(|g| g.1).fold(0.0, f64::max);
                let list: Vec<Value> = gpus.iter().map(|g| g.0.into()).collect();
                (
                    format!("place {id}"),
                    args([
                        ("job", (*id).into()),
                        ("gpus", list.into()),
                        ("longest_share_seconds", longest.into()),
                    ]),
                )
            }
            None => (
                format!("not placed {id}"),
                args([
                    ("job", (*id).into()),
                    ("reason", "no GPU in the chosen assignment".into()),
                ]),
            ),
        };
        b.instant(SchedThread::Decisions, name, 0.0, a);
    }
    Ok(())
}
