//! Kind `online`: one process per server; a scheduled job's slice on each server it uses spans
//! its start slot to start + duration (A_online fixes both when it decides). Every decision,
//! taken or not, is an instant at the job's arrival with cost against weight (u_j = w_j -
//! cost). The baselines log workers per job, not servers: their slices sit on `cluster`.
use super::trace::{Group, SchedThread, TraceBuilder};
use super::{events, Input, Rec};
use mlsched_kernel::baseline::online::StartRec;
use mlsched_kernel::online::{DecisionRec, PlacedRec};
use mlsched_kernel::record::LogRecord;
use mlsched_scenario::kinds::online::doc::OnlineDoc;
use mlsched_scenario::RunError;
use std::collections::BTreeMap;

/// Process of the baselines' per-job slices.
const CLUSTER_PID: u32 = 1;
/// First process id of the servers.
const SERVER_PID: u32 = 2;

impl super::Export for mlsched_scenario::engine::Online {
    fn export(x: &OnlineDoc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
        export(x, inp, b)
    }
}

/// Exports an A_online or baseline run of `x`.
fn export(x: &OnlineDoc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
    let ids: Vec<&str> = x.jobs.iter().map(|j| j.id.as_str()).collect();
    let servers = x.servers.len();
    events(inp.recs, &ids, inp.clock, b)?;
    for s in 0..servers {
        b.process(SERVER_PID + s as u32, format!("server {s}"));
    }
    // The latest decision of each job: its start and duration place the records that follow.
    let mut taken: BTreeMap<usize, (u64, u64)> = BTreeMap::new();
    // Each job's last decision time and whether any decision scheduled it.
    let mut fate: BTreeMap<usize, (f64, bool)> = BTreeMap::new();
    for r in inp.recs {
        match r.tag {
            DecisionRec::TAG => {
                let j = r.job(ids.len())?;
                decision(r, ids[j], inp, b)?;
                taken.insert(j, (r.u("start")?, r.u("duration")?));
                let seen = fate.entry(j).or_insert((0.0, false));
                *seen = (inp.when(r), seen.1 || r.b("scheduled")?);
            }
            PlacedRec::TAG => {
                let j = r.job(ids.len())?;
                let s = r.index_below("server", servers, "servers")?;
                let (start, dur) = *taken
                    .get(&j)
                    .ok_or_else(|| r.bad("job", "placed before any decision about it"))?;
                let mut a = r.args();
                a.insert("job".into(), ids[j].into());
                a.insert("slots".into(), format!("{start}..{}", start + dur).into());
                b.slice(
                    Group::new(SERVER_PID + s as u32, 0, "jobs"),
                    ids[j].to_string(),
                    inp.clock.at(start),
                    inp.clock.span(dur),
                    a,
                );
            }
            t if t.wrapping_sub(StartRec::TAG) < StartRec::TAGS => baseline(r, &ids, inp, b)?,
            _ => {}
        }
    }
    for (j, (ts, _)) in fate.into_iter().filter(|f| !f.1 .1) {
        b.instant(
            SchedThread::Decisions,
            format!("reject {}", ids[j]),
            ts,
            super::args([
                ("job", ids[j].into()),
                ("reason", "no window of the run scheduled it".into()),
            ]),
        );
    }
    Ok(())
}

/// The instant of one A_maxweight decision.
fn decision(r: &Rec, id: &str, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
    let (feasible, scheduled) = (r.b("feasible")?, r.b("scheduled")?);
    let why = if scheduled {
        "scheduled: utility w_j - cost > 0"
    } else if feasible {
        "not taken: utility w_j - cost <= 0 in this window"
    } else {
        "not taken: no feasible schedule in this window"
    };
    let mut a = r.args();
    a.insert("job".into(), id.into());
    a.insert("reason".into(), why.into());
    let verb = if scheduled { "schedule" } else { "not taken" };
    b.instant(
        SchedThread::Decisions,
        format!("{verb} {id} (round {})", r.u("round")?),
        inp.when(r),
        a,
    );
    Ok(())
}

/// A baseline start: the job's slice on `cluster` and its start instant.
fn baseline(r: &Rec, ids: &[&str], inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError> {
    let j = r.job(ids.len())?;
    let (start, dur) = (r.u("slot")?, r.u("duration")?);
    b.process(
        CLUSTER_PID,
        "cluster (baselines log workers per job, not servers)",
    );
    let mut a = r.args();
    a.insert("job".into(), ids[j].into());
    b.slice(
        Group::new(CLUSTER_PID, 0, "jobs"),
        ids[j].to_string(),
        inp.clock.at(start),
        inp.clock.span(dur),
        a.clone(),
    );
    b.instant(
        SchedThread::Decisions,
        format!("start {}", ids[j]),
        inp.clock.at(start),
        a,
    );
    Ok(())
}
