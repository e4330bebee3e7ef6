//! Kind `"online"` with a baseline (FIFO, DRF, LAS, Optimus, AntMan): the driver and the
//! result rows filled from the runs it places.
use crate::engine::{Data, Decision, KindEngine, Out};
use crate::error::{from_driver, RunError};
use crate::kinds::baseline::{baseline_error, policy_name};
use crate::kinds::online::doc::{OnlineDoc, OnlineJobResult, OnlineResult, OnlineSummary};
use crate::run::ResultDoc;
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::baseline::online::{OnlineBaseline, OnlineBaselineDecision};
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::online::{Architecture, OnlineScenario};
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
    ids: Vec<String>,
    policy: String,
    cell: BaselineCell,
    placement: Vec<Vec<[u32; 3]>>,
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
            policy: policy_name(p).into(),
            cell,
            placement: vec![Vec::new(); n],
        })
    }
}

fn baseline_collect(o: &OnlineBaselineDecision, placement: &mut [Vec<[u32; 3]>]) {
    match o {
        OnlineBaselineDecision::Placed(p) => {
            if let Some(v) = placement.get_mut(p.job as usize) {
                v.push([p.server, p.workers, p.ps]);
            }
        }
        // An AntMan cut: the job's result is its later, complete run.
        OnlineBaselineDecision::Preempted(p) => {
            if let Some(v) = placement.get_mut(p.job as usize) {
                v.clear();
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
            Decision::typed("baseline.start", Some(r.job), Data::BaselineStart(*r))
        }
        OnlineBaselineDecision::Preempted(p) => Decision {
            record: "baseline.preempted",
            job: Some(p.job),
            data: Data::Json(serde_json::json!({
                "slot": p.slot, "job": p.job, "by": p.by, "start": p.start,
            })),
        },
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
        let placement = &mut self.placement;
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

    fn finish(&mut self, sink: &mut L, _out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        self.cell
            .with_dependent_mut(|_, d| d.finish(sink, &mut |_: &OnlineBaselineDecision| {}))
            .map_err(|e| from_driver(e, |m| m))?;
        let placement = std::mem::take(&mut self.placement);
        let ids = &self.ids;
        let (jobs, scheduled, twct, alpha) = self.cell.with_dependent(|scn, d| {
            let mut jobs = Vec::with_capacity(scn.jobs.len());
            let (mut scheduled, mut twct) = (0u32, 0.0f64);
            for ((id, job), (st, pl)) in ids
                .iter()
                .zip(&scn.jobs)
                .zip(d.scheduler().jobs().iter().zip(placement))
            {
                let done = st.start.map(|s| s + st.duration);
                if let Some(c) = done {
                    scheduled += 1;
                    twct += job.weight * c as f64;
                }
                jobs.push(OnlineJobResult {
                    status: None,
                    id: id.clone(),
                    scheduled: done.is_some(),
                    start_slot: st.start,
                    duration: st.start.map(|_| st.duration),
                    completion_slot: done,
                    worker_type: st.start.map(|_| st.worker_type),
                    ps_type: match scn.architecture {
                        Architecture::Ps => st.start.and(st.ps_type),
                        Architecture::Ring => None,
                    },
                    colocated: false,
                    placement: pl,
                    round: None,
                    cost: None,
                    utility: None,
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
