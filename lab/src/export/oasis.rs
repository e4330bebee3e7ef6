//! Kind `oasis`: one process per worker server and per parameter-server server; a job's
//! slice on a server spans the consecutive slots it holds the same number of units there.
//! OASiS's decision record gives the admission instant (utility against the priced cost of
//! the schedule, payoff, reason); the baselines (FIFO, DRF, LAS, Optimus) log workers per
//! job and slot but not which server, so their slices sit on one `cluster` process.
use super::trace::{Group, SchedThread, TraceBuilder};
use super::{args, events, runs, Input, Rec};
use mlsched_kernel::baseline::oasis::SlotRec;
use mlsched_kernel::log::TAG_BASELINE;
use mlsched_kernel::oasis::{OasisRecord, OasisSlotRecord, Reason};
use mlsched_kernel::record::LogRecord;
use mlsched_scenario::kinds::oasis::doc::OasisDoc;
use mlsched_scenario::RunError;
use std::collections::BTreeMap;

/// Process of the baselines' per-job slices.
const CLUSTER_PID: u32 = 1;

/// The explanation of an admission decision's reason code (an open-world code has no place
/// in a decision record).
fn reason(code: u64) -> &'static str {
    u8::try_from(code)
        .ok()
        .and_then(|c| Reason::from_code(c, u32::MAX))
        .filter(|r| !r.is_world())
        .map_or("unknown reason code", Reason::text)
}

/// (pool, server, job) -> slots held with the unit count.
type Usage = BTreeMap<(u32, usize, usize), Vec<(u64, u64)>>;

impl super::Export for mlsched_scenario::engine::Oasis {
    fn export(x: &OasisDoc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
        export(x, inp, b)
    }
}

/// Exports an OASiS or baseline run of `x`.
fn export(x: &OasisDoc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
    let ids: Vec<&str> = x.jobs.iter().map(|j| j.id.as_str()).collect();
    let (h, k) = (x.worker_servers.len(), x.ps_servers.len());
    events(inp.recs, &ids, inp.clock, b)?;
    let mut usage = Usage::new();
    let mut baseline: BTreeMap<usize, Vec<(u64, u64)>> = BTreeMap::new();
    for r in inp.recs {
        match r.tag {
            OasisRecord::TAG => decision(r, &ids, inp, b)?,
            OasisSlotRecord::TAG => {
                let j = r.job(ids.len())?;
                let slot = r.u("slot")?;
                for (pool, n) in [("workers", h), ("ps", k)] {
                    for (server, count) in pairs(r, pool, n)? {
                        let key = (u32::from(pool == "ps"), server, j);
                        usage.entry(key).or_default().push((slot, count));
                    }
                }
            }
            t if t.wrapping_sub(SlotRec::TAG) < SlotRec::TAGS => {
                let j = r.job(ids.len())?;
                baseline
                    .entry(j)
                    .or_default()
                    .push((r.u("slot")?, r.u("workers")?));
                if r.b("done")? {
                    let mut a = r.args();
                    a.insert("job".into(), ids[j].into());
                    b.instant(
                        SchedThread::Decisions,
                        format!("done {}", ids[j]),
                        inp.clock.at(r.u("slot")?),
                        a,
                    );
                }
            }
            _ => {}
        }
    }
    for s in 0..h {
        b.process(1 + s as u32, format!("worker server {s}"));
    }
    for s in 0..k {
        b.process(1 + (h + s) as u32, format!("parameter-server server {s}"));
    }
    for ((pool, server, j), slots) in usage {
        let pid = 1 + server as u32 + pool * h as u32;
        let group = if pool == 0 {
            "workers"
        } else {
            "parameter servers"
        };
        for (from, to, count) in runs(slots) {
            b.slice(
                Group::new(pid, pool, group),
                ids[j].to_string(),
                inp.clock.at(from),
                inp.clock.span(to - from),
                args([
                    ("job", ids[j].into()),
                    ("units", count.into()),
                    ("slots", format!("{from}..{to}").into()),
                ]),
            );
        }
    }
    let baseline_run = inp.recs.iter().any(|r| r.tag >= TAG_BASELINE);
    if baseline_run {
        let end = inp.clock.at(inp.now.last().copied().unwrap_or(0));
        for (_, id) in ids
            .iter()
            .enumerate()
            .filter(|(j, _)| !baseline.contains_key(j))
        {
            b.instant(
                SchedThread::Decisions,
                format!("never started {id}"),
                end,
                args([
                    ("job", (*id).into()),
                    (
                        "reason",
                        "the baseline gave it no worker before the horizon".into(),
                    ),
                ]),
            );
        }
    }
    if !baseline.is_empty() {
        b.process(
            CLUSTER_PID,
            "cluster (baselines log workers per job, not servers)",
        );
        for (j, slots) in baseline {
            if let Some(&(first, _)) = slots.iter().min() {
                b.instant(
                    SchedThread::Decisions,
                    format!("start {}", ids[j]),
                    inp.clock.at(first),
                    args([("job", ids[j].into()), ("slot", first.into())]),
                );
            }
            for (from, to, workers) in runs(slots) {
                b.slice(
                    Group::new(CLUSTER_PID, 0, "jobs"),
                    ids[j].to_string(),
                    inp.clock.at(from),
                    inp.clock.span(to - from),
                    args([
                        ("job", ids[j].into()),
                        ("workers", workers.into()),
                        ("slots", format!("{from}..{to}").into()),
                    ]),
                );
            }
        }
    }
    Ok(())
}

/// The admission instant of one OASiS decision, at the job's arrival.
fn decision(r: &Rec, ids: &[&str], inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
    let j = r.job(ids.len())?;
    let admitted = r.b("admitted")?;
    let mut a = r.args();
    a.insert("job".into(), ids[j].into());
    a.insert("reason".into(), reason(r.u("reason")?).into());
    let explanation = if admitted {
        format!(
            "utility {} against priced cost {}: payoff {} > 0",
            r.f("utility")?,
            r.f("cost")?,
            r.f("payoff")?
        )
    } else {
        // A rejected job's record carries no schedule: utility, cost and completion are unset.
        for k in ["completion_slot", "utility", "cost", "payoff"] {
            a.remove(k);
        }
        reason(r.u("reason")?).to_string()
    };
    a.insert("explanation".into(), explanation.into());
    let verb = if admitted { "admit" } else { "reject" };
    b.instant(
        SchedThread::Decisions,
        format!("{verb} {}", ids[j]),
        inp.when(r),
        a,
    );
    Ok(())
}

/// A `[[server, count], ...]` field with every server below `n`.
fn pairs(r: &Rec, k: &str, n: usize) -> Result<Vec<(usize, u64)>, RunError> {
    let list =
        r.d.fields
            .get(k)
            .and_then(|v| v.as_array())
            .ok_or_else(|| r.bad(k, "not a list"))?;
    list.iter()
        .map(|p| {
            let s = p.get(0).and_then(|v| v.as_u64());
            let c = p.get(1).and_then(|v| v.as_u64());
            match (s, c) {
                (Some(s), Some(c)) if (s as usize) < n => Ok((s as usize, c)),
                _ => Err(r
                    .bad(k, format!("entry {p} is not [server below {n}, count]"))
                    .into()),
            }
        })
        .collect()
}
