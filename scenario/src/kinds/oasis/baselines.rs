//! Kind `"oasis"` with a baseline (FIFO, DRF, Tiresias-LAS, Optimus, Tiresias, Dorm, RRH):
//! the driver and the result rows filled from the units it places each slot.
use super::engine::job_ids;
use crate::engine::{Data, Decision, KindEngine, Out};
use crate::error::{from_driver, RunError};
use crate::kinds::baseline::baseline_error;
use crate::kinds::oasis::doc::{
    DormSummary, OasisDoc, OasisJobResult, OasisPlacement, OasisResult, OasisSummary,
};
use crate::run::ResultDoc;
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::baseline::oasis::dorm::DormStats;
use mlsched_kernel::baseline::oasis::{OasisBaseline, OasisBaselineDecision, SlotRec};
use mlsched_kernel::baseline::world::{CancelRec, InterruptRec, WorldRec};
use mlsched_kernel::baseline::{BaselineError, Policy};
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::oasis::{OasisJob, OasisScenario};
use mlsched_kernel::record::DecisionRecord;
use mlsched_kernel::Slot;
use std::collections::BTreeMap;

self_cell::self_cell!(
    /// A baseline runner with the scenario it borrows.
    struct BaselineCell {
        owner: OasisScenario,
        #[not_covariant]
        dependent: BaselineDriver,
    }
);

type BaselineDriver<'a> = Driver<OasisBaseline<'a>>;

/// (slot) -> (worker server -> count, ps server -> count); BTreeMaps keep output order.
type Slots = BTreeMap<u32, (BTreeMap<u32, u32>, BTreeMap<u32, u32>)>;

/// A baseline: every unit placed, collected per job and slot.
pub(super) struct Baselines {
    ids: Vec<String>,
    policy: String,
    cell: BaselineCell,
    per_job: Vec<Slots>,
    /// The document without its jobs (a submission is checked against it).
    doc: OasisDoc,
    /// Submitted jobs (the scenario the cell owns holds the listed ones).
    submitted: Vec<OasisJob>,
    /// Per job: the host cancelled it (its `baseline.cancelled` record, or before it arrived).
    cancelled: Vec<bool>,
    /// Jobs the host cancelled before they arrived, not yet told to the kernel (the baselines
    /// schedule every job from its scenario arrival on, so the kernel must know).
    pending_cancels: Vec<u32>,
}

impl Baselines {
    pub(super) fn new(
        doc: &OasisDoc,
        scn: OasisScenario,
        p: mlsched_kernel::baseline::Policy,
    ) -> Result<Self, RunError> {
        let n = scn.jobs.len();
        let cost = doc.restart()?;
        let (requested, slot_seconds, first) = doc.peer()?;
        let nodes = doc.dorm_nodes()?;
        let cell = BaselineCell::try_new(scn, |scn| {
            OasisBaseline::new(p, scn)
                .map(|b| match cost {
                    Some(c) if first => b.with_restart(c).with_restart_first(),
                    Some(c) => b.with_restart(c),
                    None => b,
                })
                .map(|b| b.with_peer(&requested, slot_seconds))
                .map(|mut b| {
                    if let Some(n) = nodes {
                        b.set_dorm_event_nodes(n);
                    }
                    b
                })
                .map(Driver::new)
        })
        .map_err(baseline_error)?;
        Ok(Baselines {
            ids: job_ids(doc),
            policy: crate::kinds::baseline::policy_name(p).into(),
            cell,
            per_job: vec![BTreeMap::new(); n],
            doc: doc.frame(),
            submitted: Vec::new(),
            cancelled: vec![false; n],
            pending_cancels: Vec::new(),
        })
    }

    /// Tells the kernel of the cancels before arrival, at `now` (the first event after them,
    /// before anything is decided): its `CancelRec` is logged (the façade logged the event).
    fn flush_cancels<L: LogSink>(
        &mut self,
        now: Slot,
        sink: &mut L,
        out: &mut Out<'_>,
    ) -> Result<(), RunError> {
        use mlsched_kernel::api::Record;
        for j in std::mem::take(&mut self.pending_cancels) {
            let (per_job, cancelled) = (&mut self.per_job, &mut self.cancelled);
            let mut logged = Ok(());
            self.cell
                .with_dependent_mut(|_, d| {
                    let ev = Event::JobCancelled(j);
                    d.scheduler_mut()
                        .on_event(now, ev, &mut |o: &OasisBaselineDecision| {
                            if logged.is_ok() {
                                logged = o.log(sink);
                            }
                            baseline_collect(o, per_job, cancelled);
                            out.emit(|| baseline_decision(o))
                        })
                })
                .map_err(baseline_error)?;
            logged.map_err(|e| RunError::kernel(e, format!("cannot log the cancel: {e}")))?;
        }
        Ok(())
    }
}

fn baseline_collect(o: &OasisBaselineDecision, per_job: &mut [Slots], cancelled: &mut [bool]) {
    match o {
        OasisBaselineDecision::Unit(u) => {
            if let Some(s) = per_job.get_mut(u.job as usize) {
                let e = s.entry(u.slot).or_default();
                let m = if u.ps { &mut e.1 } else { &mut e.0 };
                *m.entry(u.server).or_insert(0) += 1;
            }
        }
        OasisBaselineDecision::Slot(SlotRec {
            world: Some(WorldRec::Cancelled(c)),
            ..
        }) => {
            if let Some(x) = cancelled.get_mut(c.job as usize) {
                *x = true;
            }
        }
        OasisBaselineDecision::Slot(_) => {}
    }
}

fn baseline_decision(o: &OasisBaselineDecision) -> Decision {
    match o {
        OasisBaselineDecision::Unit(u) => Decision {
            record: "baseline.unit",
            job: Some(u.job),
            data: Data::Json(serde_json::json!({
                "slot": u.slot, "job": u.job, "ps": u.ps, "server": u.server,
            })),
        },
        OasisBaselineDecision::Slot(SlotRec { world: Some(w), .. }) => world_decision(w),
        OasisBaselineDecision::Slot(r) => {
            Decision::typed(SlotRec::NAME, Some(r.job), Data::BaselineSlot(*r))
        }
    }
}

/// An open-world record (carried by a `SlotRec` with 0 workers) as its own decision:
/// `baseline.cancelled` or `baseline.interrupted`, with the record's fields.
fn world_decision(w: &WorldRec) -> Decision {
    let (record, job, data) = match w {
        WorldRec::Cancelled(c) => (CancelRec::NAME, c.job, serde_json::to_value(c)),
        WorldRec::Interrupted(i) => (InterruptRec::NAME, i.job, serde_json::to_value(i)),
    };
    Decision {
        record,
        job: Some(job),
        data: Data::Json(data.unwrap_or_default()),
    }
}

impl<L: LogSink> KindEngine<L> for Baselines {
    fn on_event(
        &mut self,
        now: Slot,
        ev: Event<u32>,
        sink: &mut L,
        out: &mut Out<'_>,
    ) -> Result<(), RunError> {
        self.flush_cancels(now, sink, out)?;
        let (per_job, cancelled) = (&mut self.per_job, &mut self.cancelled);
        self.cell
            .with_dependent_mut(|_, d| {
                d.on_event(now, ev, sink, &mut |o: &OasisBaselineDecision| {
                    baseline_collect(o, per_job, cancelled);
                    out.emit(|| baseline_decision(o))
                })
            })
            .map_err(|e| match e {
                DriverError::Scheduler(e) | DriverError::Refused(e) => baseline_error(e),
                e => from_driver(e, |m| m),
            })
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.cell
            .with_dependent(|_, d| d.scheduler().next_wakeup(after))
    }

    fn submit(
        &mut self,
        now: Slot,
        job: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<u32, RunError> {
        let (d, j) = self.doc.submitted(job, now, self.cell.borrow_owner())?;
        let i = self
            .cell
            .with_dependent_mut(|_, b| b.scheduler_mut().submit(j.clone()))
            .map_err(|e| submit_error(e, &d.id))?;
        self.submitted.push(j);
        self.ids.push(d.id);
        self.per_job.push(BTreeMap::new());
        self.cancelled.push(false);
        Ok(i)
    }

    fn status(&self, j: u32) -> Option<mlsched_kernel::world::Status> {
        self.cell.with_dependent(|_, d| d.scheduler().status(j))
    }

    fn cancelled_before_arrival(&mut self, j: u32) {
        if let Some(x) = self.cancelled.get_mut(j as usize) {
            *x = true;
        }
        self.pending_cancels.push(j);
    }

    fn finish(&mut self, sink: &mut L, _out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        self.cell
            .with_dependent_mut(|_, d| d.finish(sink, &mut |_: &OasisBaselineDecision| {}))
            .map_err(|e| from_driver(e, |m| m))?;
        let per_job = std::mem::take(&mut self.per_job);
        let (ids, submitted, cancelled) = (&self.ids, &self.submitted, &self.cancelled);
        let (jobs, admitted, total, restarts, dorm) = self.cell.with_dependent(|scn, d| {
            let mut jobs = Vec::with_capacity(scn.jobs.len());
            let (mut admitted, mut total) = (0u32, 0.0f64);
            let rs = d.scheduler().restarts();
            for (i, ((id, job), (st, slots))) in ids
                .iter()
                .zip(scn.jobs.iter().chain(submitted))
                .zip(d.scheduler().jobs().iter().zip(per_job))
                .enumerate()
            {
                let restarts = rs.job(i).map(|r| r.restarts);
                if st.rejected {
                    jobs.push(OasisJobResult {
                        status: None,
                        id: id.clone(),
                        admitted: false,
                        completion_slot: None,
                        utility: None,
                        cost: None,
                        payoff: None,
                        reason: Some(
                            "rejected at arrival: utility minus delay cost not above the RRH threshold"
                                .into(),
                        ),
                        placements: Vec::new(),
                        restarts,
                    });
                    continue;
                }
                admitted += 1;
                let placements: Vec<OasisPlacement> = slots
                    .into_iter()
                    .map(|(slot, (w, z))| OasisPlacement {
                        slot,
                        workers: w.into_iter().map(|(h, c)| [h, c]).collect(),
                        ps: z.into_iter().map(|(k, c)| [k, c]).collect(),
                    })
                    .collect();
                let utility = st
                    .completion
                    .map_or(0.0, |t| job.utility.at(t - job.arrival));
                total += utility;
                jobs.push(OasisJobResult {
                    status: None,
                    id: id.clone(),
                    admitted: true,
                    completion_slot: st.completion,
                    utility: Some(utility),
                    cost: None,
                    payoff: None,
                    reason: st.completion.is_none().then(|| {
                        unfinished_reason(cancelled[i], st.remaining, job.workload())
                    }),
                    placements,
                    restarts,
                });
            }
            let dorm = (d.scheduler().policy() == Policy::Dorm)
                .then(|| dorm_summary(&d.scheduler().dorm_stats()));
            (jobs, admitted, total, rs.total(), dorm)
        });
        let n = jobs.len() as u32;
        Ok(ResultDoc::Oasis(OasisResult {
            kind: "oasis".into(),
            policy: self.policy.clone(),
            summary: OasisSummary {
                statuses: Default::default(),
                admitted,
                rejected: n - admitted,
                total_utility: total,
                prices: None,
                restarts,
                dorm,
            },
            occupancy: crate::kinds::oasis::occupancy::spans(&jobs),
            jobs,
            log_hash: sink.hash().hex().to_string(),
        }))
    }
}

/// Why an admitted job did not complete: cancelled by the host, or chunks left at the horizon.
fn unfinished_reason(cancelled: bool, remaining: u64, workload: u64) -> String {
    if cancelled {
        format!("cancelled with {remaining} chunks of {workload} left")
    } else {
        format!("{remaining} chunks of {workload} not processed by the horizon")
    }
}

/// A baseline's refusal of a submission as an input error naming the field.
fn submit_error(e: BaselineError, id: &str) -> RunError {
    let field = match e {
        BaselineError::InvalidJob { field } => format!("job.{field}"),
        _ => "job".to_string(),
    };
    let subject = crate::doc::check::job(id);
    RunError::Input(crate::error::InputError::new(subject, field, e.to_string()))
}

/// The result document's view of Dorm's solver counters.
fn dorm_summary(st: &DormStats) -> DormSummary {
    DormSummary {
        events: st.events,
        optimal: st.optimal,
        stopped_at_budget: st.budget_stops,
        gap_max: st.gap_max,
        fairness_raised: st.relaxed_fair,
        bounds_lifted: st.relaxed_all,
        nodes: st.nodes,
        nodes_event_max: st.nodes_event_max,
    }
}
