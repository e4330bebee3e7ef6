//! Kind `"online"` behind the façade: A_online (Zhou et al. 2022, Algs. 1-7) or a baseline
//! (FIFO, DRF, Tiresias-LAS, Optimus) on the same scenario.
use crate::engine::{Built, Data, Decision, Kind, KindEngine, Out};
use crate::error::{from_driver, RunError};
use crate::kinds::baseline::{baseline_error, baseline_policy, policy_name, ONLINE_POLICIES};
use crate::kinds::online::doc::{OnlineDoc, OnlineJobResult, OnlineResult, OnlineSummary};
use crate::run::{ResultDoc, RunOptions};
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::baseline::online::{OnlineBaseline, OnlineBaselineDecision};
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::online::{Architecture, OnlineScenario};
use mlsched_kernel::online::{OnlineDecision, OnlineJobDecision, OnlineScheduler, Search};
use mlsched_kernel::Slot;

/// Kind `"online"`.
pub struct Online;

impl Kind for Online {
    const NAME: &'static str = "online";
    type Doc = OnlineDoc;
    type Result = OnlineResult;

    fn policies() -> &'static [&'static str] {
        ONLINE_POLICIES
    }

    fn engine<L: LogSink>(doc: &OnlineDoc, opts: &RunOptions) -> Result<Built<L>, RunError> {
        let scn = doc.validate()?;
        let arrivals = scn.jobs.iter().map(|j| j.arrival).collect();
        let ids: Vec<String> = doc.jobs.iter().map(|j| j.id.clone()).collect();
        let (inner, policy): (Box<dyn KindEngine<L>>, String) =
            match opts.policy.as_deref().filter(|p| *p != "online") {
                None => (
                    Box::new(Algorithm::new(doc, scn, Search::Fast)?),
                    "online".into(),
                ),
                Some(name) => {
                    let p = baseline_policy(Self::NAME, name, ONLINE_POLICIES)?;
                    (Box::new(Baselines::new(doc, scn, p)?), name.into())
                }
            };
        Ok(Built {
            inner,
            arrivals,
            ids,
            policy,
        })
    }

    crate::engine::kind_documents!(crate::kinds::online::exec::summary_text);

    fn server_ids(doc: &OnlineDoc) -> Vec<String> {
        doc.server_ids()
    }

    fn capacity_len(doc: &OnlineDoc) -> usize {
        doc.resources.len()
    }

    fn set_statuses(r: &mut OnlineResult, known: &dyn Fn(u32) -> Option<crate::status::JobStatus>) {
        crate::kinds::online::exec::set_statuses(r, known)
    }
}

self_cell::self_cell!(
    /// A_online with the scenario it borrows.
    struct AlgorithmCell {
        owner: OnlineScenario,
        #[not_covariant]
        dependent: AlgorithmDriver,
    }
);

type AlgorithmDriver<'a> = Driver<OnlineScheduler<'a>>;

/// A_online: its decisions, kept for the result document.
struct Algorithm {
    doc: OnlineDoc,
    cell: AlgorithmCell,
    decisions: Vec<OnlineJobDecision>,
}

impl Algorithm {
    fn new(doc: &OnlineDoc, scn: OnlineScenario, mode: Search) -> Result<Self, RunError> {
        let cell =
            AlgorithmCell::try_new(scn, |scn| OnlineScheduler::new(scn, mode).map(Driver::new))
                .map_err(|e| RunError::kernel(e, format!("online scheduler: {e}")))?;
        Ok(Algorithm {
            doc: doc.clone(),
            cell,
            decisions: Vec::new(),
        })
    }
}

fn online_collect(o: &OnlineDecision<'_>, decisions: &mut Vec<OnlineJobDecision>) {
    if let OnlineDecision::Decision(d) = o {
        decisions.push((*d).clone());
    }
}

fn online_decision(o: &OnlineDecision<'_>) -> Decision {
    match o {
        OnlineDecision::Decision(d) => Decision::typed(
            "online.decision",
            Some(d.job),
            Data::OnlineDecision((*d).clone()),
        ),
        OnlineDecision::Placed(p) => Decision::of("online.placed", Some(p.job), p),
    }
}

fn online_error(e: DriverError<mlsched_kernel::online::OnlineError>) -> RunError {
    match e {
        DriverError::Scheduler(s) | DriverError::Refused(s) => {
            RunError::kernel(s, format!("online scheduler: {s}"))
        }
        e => from_driver(e, |m| m),
    }
}

impl<L: LogSink> KindEngine<L> for Algorithm {
    fn on_event(
        &mut self,
        now: Slot,
        ev: Event<u32>,
        sink: &mut L,
        out: &mut Out<'_>,
    ) -> Result<(), RunError> {
        let decisions = &mut self.decisions;
        self.cell
            .with_dependent_mut(|_, d| {
                d.on_event(now, ev, sink, &mut |o: &OnlineDecision<'_>| {
                    online_collect(o, decisions);
                    out.emit(|| online_decision(o))
                })
            })
            .map_err(online_error)
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.cell
            .with_dependent(|_, d| d.scheduler().next_wakeup(after))
    }

    fn finish(&mut self, sink: &mut L, out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        let decisions = &mut self.decisions;
        self.cell
            .with_dependent_mut(|_, d| {
                d.finish(sink, &mut |o: &OnlineDecision<'_>| {
                    online_collect(o, decisions);
                    out.emit(|| online_decision(o))
                })
            })
            .map_err(online_error)?;
        let hash = sink.hash().hex().to_string();
        Ok(ResultDoc::Online(crate::kinds::online::exec::result(
            &self.doc,
            self.cell.borrow_owner(),
            &self.decisions,
            hash,
        )))
    }

    fn trace(&self, _result: Option<&ResultDoc>) -> Option<crate::engine::Trace> {
        Some(
            self.cell
                .with_dependent(|scn, d| crate::engine::trace::online(d.scheduler(), scn)),
        )
    }
}

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
struct Baselines {
    ids: Vec<String>,
    policy: String,
    cell: BaselineCell,
    placement: Vec<Vec<[u32; 3]>>,
}

impl Baselines {
    fn new(
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
