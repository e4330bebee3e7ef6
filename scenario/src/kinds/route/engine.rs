//! Kind `"route"` behind the façade: CSRP / Aggregated CSRP (Song et al. 2023) or the paper's
//! comparison schedulers (FIFO, fair, capacity, deadline).
use crate::engine::{Built, Data, Decision, Kind, KindEngine, Out};
use crate::error::RunError;
use crate::kinds::route::doc::{RouteDoc, RouteResult};
use crate::kinds::route::exec::kernel_error;
use crate::run::{ResultDoc, RunOptions};
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::route::RouteScenario;
use mlsched_kernel::route::{Policy, RouteDecision, RouteError, RouteScheduler};
use mlsched_kernel::Slot;

/// Kind `"route"`.
pub struct Route;

/// Policy names of kind "route" (the first is the kind's own algorithm).
const POLICIES: &[(&str, Policy)] = &[
    ("route", Policy::Csrp),
    ("fifo", Policy::Fifo),
    ("fair", Policy::Fair),
    ("capacity", Policy::Capacity),
    ("deadline", Policy::Deadline),
    ("deadline-preemptive", Policy::DeadlinePreemptive),
];

impl Kind for Route {
    const NAME: &'static str = "route";
    type Doc = RouteDoc;
    type Result = RouteResult;

    fn policies() -> &'static [&'static str] {
        crate::kinds::route::exec::policies()
    }

    fn engine<L: LogSink>(doc: &RouteDoc, opts: &RunOptions) -> Result<Built<L>, RunError> {
        let scn = doc.validate()?;
        let name = opts.policy.as_deref().unwrap_or("route");
        let Some(&(name, policy)) = POLICIES.iter().find(|(n, _)| *n == name) else {
            return Err(crate::run::unknown_policy(
                Self::NAME,
                name,
                Self::policies(),
            ));
        };
        let router = RouteScheduler::new(&scn, policy).map_err(|e| kernel_error(doc, e))?;
        Ok(Built {
            arrivals: scn.jobs.iter().map(|j| j.release).collect(),
            ids: doc.jobs.iter().map(|j| j.id.clone()).collect(),
            policy: name.into(),
            inner: Box::new(Engine {
                doc: doc.clone(),
                scn,
                policy,
                name,
                driver: Some(Driver::new(router)),
            }),
        })
    }

    crate::engine::kind_documents!(crate::kinds::route::exec::summary_text);

    fn server_ids(doc: &RouteDoc) -> Vec<String> {
        doc.server_ids()
    }

    fn capacity_len(_doc: &RouteDoc) -> usize {
        1
    }

    fn set_statuses(r: &mut RouteResult, known: &dyn Fn(u32) -> Option<crate::status::JobStatus>) {
        crate::kinds::route::exec::set_statuses(r, known)
    }
}

struct Engine {
    doc: RouteDoc,
    scn: RouteScenario,
    policy: Policy,
    name: &'static str,
    /// `None` once finished (the outcome consumes the router).
    driver: Option<Driver<RouteScheduler>>,
}

fn decision(d: &RouteDecision) -> Decision {
    match d {
        RouteDecision::Pso(r) => Decision::of("route.pso", Some(r.job), r),
        RouteDecision::Aggregation(r) => {
            Decision::typed("route.aggregation", Some(r.job), Data::Aggregation(*r))
        }
        RouteDecision::Placed(r) => {
            Decision::typed("route.placed", Some(r.job), Data::RoutePlaced(r.clone()))
        }
        RouteDecision::Summary(r) => Decision::of("route.summary", None, r),
        RouteDecision::Preempted(r) => Decision::of("route.preempted", Some(r.job), r),
        RouteDecision::Interrupted(r) => Decision::of("route.interrupted", Some(r.job), r),
        RouteDecision::Server(r) => Decision::of("route.server", None, r),
    }
}

impl Engine {
    fn error(&self, e: DriverError<RouteError>) -> RunError {
        match e {
            DriverError::Scheduler(e) | DriverError::Refused(e) => kernel_error(&self.doc, e),
            DriverError::Log(e) => kernel_error(&self.doc, e.into()),
            e => crate::error::from_driver(e, |m| m),
        }
    }

    fn driver(&mut self) -> Result<&mut Driver<RouteScheduler>, RunError> {
        self.driver
            .as_mut()
            .ok_or_else(|| RunError::runtime("route: the run is finished"))
    }
}

impl<L: LogSink> KindEngine<L> for Engine {
    fn on_event(
        &mut self,
        now: Slot,
        ev: Event<u32>,
        sink: &mut L,
        out: &mut Out<'_>,
    ) -> Result<(), RunError> {
        let r = self
            .driver()?
            .on_event(now, ev, sink, &mut |d: &RouteDecision| {
                out.emit(|| decision(d))
            });
        r.map_err(|e| self.error(e))
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.driver.as_ref()?.scheduler().next_wakeup(after)
    }

    fn finish(&mut self, sink: &mut L, out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        let r = self
            .driver()?
            .finish(sink, &mut |d: &RouteDecision| out.emit(|| decision(d)));
        r.map_err(|e| self.error(e))?;
        let outcome = self
            .driver
            .take()
            .map(|d| d.into_inner().outcome())
            .ok_or_else(|| RunError::runtime("route: the run is finished"))?;
        Ok(ResultDoc::Route(crate::kinds::route::exec::result(
            &self.doc,
            &self.scn,
            self.policy,
            self.name,
            &outcome,
            sink.hash().hex().to_string(),
        )))
    }
}
