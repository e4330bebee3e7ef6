//! Kind `"online"` with a baseline (FIFO, DRF, LAS, Optimus, AntMan): the driver and the
//! result rows filled from the runs it places.
use crate::engine::{Data, Decision, KindEngine, Out};
use crate::error::{from_driver, RunError};
use crate::kinds::baseline::{baseline_error, policy_name};
use crate::kinds::online::doc::{
    submitted_job, OnlineDoc, OnlineJobResult, OnlineResult, OnlineRun, OnlineSummary,
};
use crate::run::ResultDoc;
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::baseline::online::{
    OnlineBaseline, OnlineBaselineDecision, PreemptRec, StartRec,
};
use mlsched_kernel::baseline::world::{CancelRec, InterruptRec, WorldRec};
use mlsched_kernel::baseline::BaselineError;
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::online::{Architecture, OnlineScenario};
use mlsched_kernel::record::DecisionRecord;
use mlsched_kernel::Slot;

self_cell::self_cell!(
    /// A baseline runner with the scenario it borrows.
    struct BaselineCell {
        owner: OnlineScenario,
        #[not_covariant]
        dependent: BaselineDriver,
    }
);

type BaselineDriver<'a> = Driver<OnlineBaseline<'a>>;

/// A baseline: each started job's per-server placement, collected.
pub(super) struct Baselines {
    /// Job ids, index order (listed, then submitted).
    ids: Vec<String>,
    /// w_j, index order.
    weights: Vec<f64>,
    policy: String,
    cell: BaselineCell,
    runs: Vec<JobRuns>,
    /// The last event's slot.
    now: Slot,
}

/// One job's runs as the decisions show them.
#[derive(Clone, Debug, Default)]
struct JobRuns {
    /// The current run's per-server placement.
    placement: Vec<[u32; 3]>,
    /// The current run's start (from its placement records).
    start: Option<Slot>,
    /// Open world: the runs a cancel or an interruption cut, `(start, end, placement)`.
    cut: Vec<(Slot, Slot, Vec<[u32; 3]>)>,
}

impl Baselines {
    pub(super) fn new(
        doc: &OnlineDoc,
        scn: OnlineScenario,
        p: mlsched_kernel::baseline::Policy,
    ) -> Result<Self, RunError> {
        let n = scn.jobs.len();
        let cell = BaselineCell::try_new(scn, |scn| OnlineBaseline::new(p, scn).map(Driver::new))
            .map_err(baseline_error)?;
        Ok(Baselines {
            ids: doc.jobs.iter().map(|j| j.id.clone()).collect(),
            weights: cell.borrow_owner().jobs.iter().map(|j| j.weight).collect(),
            policy: policy_name(p).into(),
            cell,
            runs: vec![JobRuns::default(); n],
            now: 0,
        })
    }
}

fn baseline_collect(o: &OnlineBaselineDecision, runs: &mut [JobRuns]) {
    match o {
        OnlineBaselineDecision::Placed(p) => {
            if let Some(v) = runs.get_mut(p.job as usize) {
                v.placement.push([p.server, p.workers, p.ps]);
                v.start = Some(p.slot);
            }
        }
        // An open-world cancel or interruption: the run (if one) ran until the event's slot.
        OnlineBaselineDecision::Preempted(p) if p.world.is_some() => {
            if let Some(v) = runs.get_mut(p.job as usize) {
                let placement = std::mem::take(&mut v.placement);
                match v.start.take() {
                    Some(a) if p.start == a && a < p.slot && !placement.is_empty() => {
                        v.cut.push((a, p.slot, placement))
                    }
                    _ => {}
                }
            }
        }
        // An AntMan cut: the job's result is its later, complete run.
        OnlineBaselineDecision::Preempted(p) => {
            if let Some(v) = runs.get_mut(p.job as usize) {
                v.placement.clear();
                v.start = None;
            }
        }
        OnlineBaselineDecision::Start(_) => {}
    }
}

fn baseline_decision(o: &OnlineBaselineDecision) -> Decision {
    match o {
        OnlineBaselineDecision::Placed(p) => Decision {
            record: "baseline.placed",
            job: Some(p.job),
            data: Data::Json(serde_json::json!({
                "slot": p.slot, "job": p.job, "server": p.server,
                "workers": p.workers, "ps": p.ps,
            })),
        },
        OnlineBaselineDecision::Start(r) => {
            Decision::typed(StartRec::NAME, Some(r.job), Data::BaselineStart(*r))
        }
        OnlineBaselineDecision::Preempted(p) => match p.world {
            Some(WorldRec::Cancelled(c)) => Decision::of(CancelRec::NAME, Some(p.job), &c),
            Some(WorldRec::Interrupted(x)) => Decision::of(InterruptRec::NAME, Some(p.job), &x),
            None => Decision {
                record: PreemptRec::NAME,
                job: Some(p.job),
                data: Data::Json(serde_json::json!({
                    "slot": p.slot, "job": p.job, "by": p.by, "start": p.start,
                })),
            },
        },
    }
}

/// A kernel refusal of a submission as an input error on the field it names.
fn submit_error(e: BaselineError) -> RunError {
    let field = match e {
        BaselineError::InvalidJob { field } => format!("job.{field}"),
        _ => "job".into(),
    };
    RunError::Input(crate::error::InputError::new(
        "event",
        field,
        format!("baseline refuses the job: {e}"),
    ))
}

impl<L: LogSink> KindEngine<L> for Baselines {
    fn on_event(
        &mut self,
        now: Slot,
        ev: Event<u32>,
        sink: &mut L,
        out: &mut Out<'_>,
    ) -> Result<(), RunError> {
        let placement = &mut self.runs;
        self.now = self.now.max(now);
        self.cell
            .with_dependent_mut(|_, d| {
                d.on_event(now, ev, sink, &mut |o: &OnlineBaselineDecision| {
                    baseline_collect(o, placement);
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
        let (doc, kernel) = submitted_job(self.cell.borrow_owner(), now, job)?;
        let weight = kernel.weight;
        let j = self
            .cell
            .with_dependent_mut(|_, d| d.scheduler_mut().submit(kernel))
            .map_err(submit_error)?;
        self.ids.push(doc.id);
        self.weights.push(weight);
        self.runs.push(JobRuns::default());
        Ok(j)
    }

    fn status(&self, j: u32) -> Option<mlsched_kernel::world::Status> {
        self.cell.with_dependent(|_, d| d.scheduler().status(j))
    }

    /// The online baselines take a job from its `arrival` (they ignore `JobArrived`), so a job
    /// the façade cancelled before it arrived must leave their queue too: the scheduler is told
    /// directly (no record: the façade logged the cancel). It holds nothing, so this cannot fail
    /// but for an index the façade never passes.
    fn cancelled_before_arrival(&mut self, j: u32) {
        let (now, runs) = (self.now, &mut self.runs);
        let _ = self.cell.with_dependent_mut(|_, d| {
            d.scheduler_mut().on_event(
                now,
                Event::JobCancelled(j),
                &mut |o: &OnlineBaselineDecision| baseline_collect(o, runs),
            )
        });
    }

    fn finish(&mut self, sink: &mut L, _out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        self.cell
            .with_dependent_mut(|_, d| d.finish(sink, &mut |_: &OnlineBaselineDecision| {}))
            .map_err(|e| from_driver(e, |m| m))?;
        let runs = std::mem::take(&mut self.runs);
        let (ids, weights) = (&self.ids, &self.weights);
        let (jobs, scheduled, twct, alpha) = self.cell.with_dependent(|scn, d| {
            let mut jobs = Vec::with_capacity(ids.len());
            let (mut scheduled, mut twct) = (0u32, 0.0f64);
            for (((id, w), st), run) in ids.iter().zip(weights).zip(d.scheduler().jobs()).zip(runs)
            {
                let done = st.start.map(|s| s + st.duration);
                if let Some(c) = done {
                    scheduled += 1;
                    twct += w * c as f64;
                }
                let ps_type = match scn.architecture {
                    Architecture::Ps => st.ps_type,
                    Architecture::Ring => None,
                };
                jobs.push(OnlineJobResult {
                    status: None,
                    id: id.clone(),
                    scheduled: done.is_some(),
                    start_slot: st.start,
                    duration: st.start.map(|_| st.duration),
                    completion_slot: done,
                    worker_type: st.start.map(|_| st.worker_type),
                    ps_type: st.start.and(ps_type),
                    colocated: false,
                    placement: run.placement,
                    round: None,
                    cost: None,
                    utility: None,
                    cut_runs: run
                        .cut
                        .into_iter()
                        .map(|(a, e, placement)| OnlineRun {
                            start_slot: a,
                            end_slot: e,
                            worker_type: st.worker_type,
                            ps_type,
                            placement,
                        })
                        .collect(),
                });
            }
            (jobs, scheduled, twct, scn.alpha)
        });
        Ok(ResultDoc::Online(OnlineResult {
            kind: "online".into(),
            policy: self.policy.clone(),
            summary: OnlineSummary {
                statuses: Default::default(),
                scheduled,
                total_weighted_completion_time: twct,
                alpha,
                alpha_theoretical: None,
            },
            occupancy: crate::kinds::online::occupancy::spans(&jobs),
            jobs,
            log_hash: sink.hash().hex().to_string(),
        }))
    }
}
