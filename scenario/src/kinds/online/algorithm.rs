//! Kind `"online"` with A_online itself (Zhou et al. 2022): the driver and the result built
//! from its per-job decisions.
use crate::engine::{Data, Decision, KindEngine, Out};
use crate::error::{from_driver, RunError};
use crate::kinds::online::doc::OnlineDoc;
use crate::run::ResultDoc;
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::online::OnlineScenario;
use mlsched_kernel::online::{OnlineDecision, OnlineJobDecision, OnlineScheduler, Search};
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
    doc: OnlineDoc,
    cell: AlgorithmCell,
    decisions: Vec<OnlineJobDecision>,
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
        OnlineDecision::Interrupted(x) => Decision::of("online.interrupted", Some(x.job), x),
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
