//! Kind `"online"` with A_online itself (Zhou et al. 2022): the driver and the result built
//! from its per-job decisions.
use crate::engine::{Data, Decision, KindEngine, Out};
use crate::error::{from_driver, RunError};
use crate::kinds::online::doc::{submitted_job, OnlineDoc};
use crate::kinds::online::exec::Seen;
use crate::run::ResultDoc;
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::online::{OnlineJob, OnlineScenario};
use mlsched_kernel::online::{
    DecisionRec, InterruptRec, OnlineDecision, OnlineScheduler, PlacedRec, Search,
};
use mlsched_kernel::record::DecisionRecord;
use mlsched_kernel::Slot;

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
pub(super) struct Algorithm {
    /// Job ids, index order (listed, then submitted).
    ids: Vec<String>,
    /// w_j, index order.
    weights: Vec<f64>,
    /// The submitted jobs (Theorem 5's alpha reads every job's weight).
    submitted: Vec<OnlineJob>,
    cell: AlgorithmCell,
    seen: Vec<Seen>,
}

impl Algorithm {
    pub(super) fn new(
        doc: &OnlineDoc,
        scn: OnlineScenario,
        mode: Search,
    ) -> Result<Self, RunError> {
        let cell =
            AlgorithmCell::try_new(scn, |scn| OnlineScheduler::new(scn, mode).map(Driver::new))
                .map_err(|e| RunError::kernel(e, format!("online scheduler: {e}")))?;
        Ok(Algorithm {
            ids: doc.jobs.iter().map(|j| j.id.clone()).collect(),
            weights: cell.borrow_owner().jobs.iter().map(|j| j.weight).collect(),
            submitted: Vec::new(),
            cell,
            seen: Vec::new(),
        })
    }
}

fn online_collect(o: &OnlineDecision<'_>, seen: &mut Vec<Seen>) {
    match o {
        OnlineDecision::Decision(d) => seen.push(Seen::Decision((*d).clone())),
        OnlineDecision::Interrupted(x) => seen.push(Seen::Cut {
            job: x.job,
            slot: x.slot,
        }),
        OnlineDecision::Placed(_) => {}
    }
}

fn online_decision(o: &OnlineDecision<'_>) -> Decision {
    match o {
        OnlineDecision::Decision(d) => Decision::typed(
            DecisionRec::NAME,
            Some(d.job),
            Data::OnlineDecision((*d).clone()),
        ),
        OnlineDecision::Placed(p) => Decision::of(PlacedRec::NAME, Some(p.job), p),
        OnlineDecision::Interrupted(x) => Decision::of(InterruptRec::NAME, Some(x.job), x),
    }
}

/// A kernel refusal of a submission as an input error on the job.
fn submit_error(e: mlsched_kernel::online::OnlineError) -> RunError {
    RunError::Input(crate::error::InputError::new(
        "event",
        "job",
        format!("online scheduler refuses the job: {e}"),
    ))
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
        let decisions = &mut self.seen;
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
        let decisions = &mut self.seen;
        self.cell
            .with_dependent_mut(|_, d| {
                d.finish(sink, &mut |o: &OnlineDecision<'_>| {
                    online_collect(o, decisions);
                    out.emit(|| online_decision(o))
                })
            })
            .map_err(online_error)?;
        let hash = sink.hash().hex().to_string();
        let listed = self.cell.borrow_owner();
        let all;
        let scn = if self.submitted.is_empty() {
            listed
        } else {
            let mut s = listed.clone();
            s.jobs.extend(self.submitted.iter().cloned());
            all = s;
            &all
        };
        Ok(ResultDoc::Online(crate::kinds::online::exec::result(
            &self.ids,
            &self.weights,
            scn,
            &self.seen,
            hash,
        )))
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
            .with_dependent_mut(|_, d| d.scheduler_mut().submit(kernel.clone()))
            .map_err(submit_error)?;
        self.ids.push(doc.id);
        self.weights.push(weight);
        self.submitted.push(kernel);
        Ok(j)
    }

    fn status(&self, j: u32) -> Option<mlsched_kernel::world::Status> {
        self.cell.with_dependent(|_, d| d.scheduler().status(j))
    }

    fn trace(&self, _result: Option<&ResultDoc>) -> Option<crate::engine::Trace> {
        Some(
            self.cell
                .with_dependent(|scn, d| crate::engine::trace::online(d.scheduler(), scn)),
        )
    }
}
