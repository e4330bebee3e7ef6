//! Kind `"route"` behind the façade: CSRP / Aggregated CSRP (Song et al. 2023) or the paper's
//! comparison schedulers (FIFO, fair, capacity, deadline).
use crate::engine::{Built, Data, Decision, Kind, KindEngine, Out};
use crate::error::InputError;
use crate::error::RunError;
use crate::kinds::route::doc::{RouteDoc, RouteJobDoc, RouteResult};
use crate::kinds::route::exec::{kernel_error, JobRuns};
use crate::records::RecordType;
use crate::run::{ResultDoc, RunOptions};
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::route::RouteScenario;
use mlsched_kernel::record::DecisionRecord;
use mlsched_kernel::route::sim::OUTCOME_RECOVERED;
use mlsched_kernel::route::{records, Policy, RouteDecision, RouteError, RouteScheduler};
use mlsched_kernel::world::Status;
use mlsched_kernel::Slot;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Kind `"route"`.
pub struct Route;

/// The records of a routing run ([`Kind::records`]).
const RECORDS: &[RecordType] = &[
    RecordType::of::<records::DecisionRec>(),
    RecordType::of::<records::PsoRec>(),
    RecordType::of::<records::AggRec>(),
    RecordType::of::<records::SummaryRec>(),
    RecordType::of::<records::PreemptRec>(),
    RecordType::of::<records::InterruptRec>(),
    RecordType::of::<records::ServerRec>(),
];

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

    fn records() -> &'static [RecordType] {
        RECORDS
    }

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
                nodes: (doc.topology.nodes.iter().enumerate())
                    .map(|(i, n)| (n.id.clone(), i as u32))
                    .collect(),
                runs: vec![JobRuns::default(); doc.jobs.len()],
                statuses: Vec::new(),
                doc: doc.clone(),
                scn,
                policy,
                name,
                driver: Some(Driver::new(router)),
            }),
        })
    }

    crate::engine::kind_documents!(crate::kinds::route::exec::summary_text);

    fn result_of(r: &crate::run::ResultDoc) -> Option<&Self::Result> {
        match r {
            crate::run::ResultDoc::Route(x) => Some(x),
            _ => None,
        }
    }

    fn doc_of(d: &crate::doc::ScenarioDoc) -> Option<&Self::Doc> {
        match d {
            crate::doc::ScenarioDoc::Route(x) => Some(x),
            _ => None,
        }
    }

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
    /// Node id -> node index (a submission's `ps`).
    nodes: BTreeMap<String, u32>,
    /// Per job: the runs it really held, from its `route.placed` and `route.interrupted`
    /// records (the kernel's plan is only its last run).
    runs: Vec<JobRuns>,
    /// Every job's status when the run finished (the router is consumed by then).
    statuses: Vec<Status>,
}

fn decision(d: &RouteDecision) -> Decision {
    match d {
        RouteDecision::Pso(r) => Decision::of(records::PsoRec::NAME, Some(r.job), r),
        RouteDecision::Aggregation(r) => {
            Decision::typed(records::AggRec::NAME, Some(r.job), Data::Aggregation(*r))
        }
        RouteDecision::Placed(r) => Decision::typed(
            records::DecisionRec::NAME,
            Some(r.job),
            Data::RoutePlaced(r.clone()),
        ),
        RouteDecision::Summary(r) => Decision::of(records::SummaryRec::NAME, None, r),
        RouteDecision::Preempted(r) => Decision::of(records::PreemptRec::NAME, Some(r.job), r),
        RouteDecision::Interrupted(r) => Decision::of(records::InterruptRec::NAME, Some(r.job), r),
        RouteDecision::Server(r) => Decision::of(records::ServerRec::NAME, None, r),
    }
}

/// Job `j` of `runs` as decision `d` says: a placement starts a run, an interruption cuts it,
/// a preemption ends it (the killed run is not an open-world cut: `occupancy.rs`).
fn track(runs: &mut [JobRuns], doc: &RouteDoc, d: &RouteDecision) {
    match d {
        RouteDecision::Placed(r) => {
            if let Some(x) = runs.get_mut(r.job as usize) {
                x.live = Some((r.start, r.nodes.to_vec()));
            }
        }
        // `deadline-preemptive` killed the run to make room: the job is queued again, holding
        // nothing until its rerun is placed, so no later interruption may cut this run (a
        // cancel of the queued job would otherwise report it held until the cancel).
        RouteDecision::Preempted(r) => {
            if let Some(x) = runs.get_mut(r.job as usize) {
                x.live = None;
            }
        }
        RouteDecision::Interrupted(r) => {
            let Some(x) = runs.get_mut(r.job as usize) else {
                return;
            };
            if let Some((start, nodes)) = x.live.take() {
                // A reservation cut before its start held nothing.
                if r.at > start {
                    x.cut.push((start, r.at, nodes));
                }
            }
            if r.outcome == OUTCOME_RECOVERED {
                let whole = doc.jobs.get(r.job as usize).map(|j| j.duration as u32);
                x.run_length = (whole != Some(r.remaining)).then_some(r.remaining);
            }
        }
        _ => {}
    }
}

/// A kernel refusal of submitted job `id` as an input error naming the field.
fn submit_error(id: &str, e: RouteError) -> RunError {
    let js = crate::doc::check::job(&crate::text::terminal_safe(id));
    let input = |field: &str, why: String| RunError::Input(InputError::new(&js, field, why));
    match e {
        RouteError::Unreachable {
            workers, reachable, ..
        } => input(
            "job.workers",
            format!(
                "{workers} workers but only {reachable} compute slots are reachable from its ps"
            ),
        ),
        RouteError::BadPs { .. } => input("job.ps", "not a ps node".into()),
        RouteError::Capacity(c) if c.limit == mlsched_kernel::Limit::RouteWorkers => {
            input("job.workers", c.to_string())
        }
        RouteError::Capacity(c) => input("job", c.to_string()),
        other => RunError::kernel(other, format!("route: submission of {js}: {other}")),
    }
}

impl Engine {
    /// A submitted job object as the scenario's job (`arrival` and `release`, if present, are
    /// the submission slot `now`; absent, `release` is `now`), checked as a listed job.
    fn submitted(&self, now: Slot, job: &Map<String, Value>) -> Result<RouteJobDoc, RunError> {
        let mut m = job.clone();
        m.remove("arrival");
        let id = m
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let js = crate::doc::check::job(&crate::text::terminal_safe(&id));
        match m.get("release") {
            None => {
                m.insert("release".into(), Value::from(now));
            }
            Some(r) if r.as_f64() == Some(now as f64) => {}
            Some(r) => {
                return Err(RunError::Input(InputError::new(
                    js,
                    "job.release",
                    format!("must equal the submission slot {now} when present, got {r}"),
                )))
            }
        }
        serde_json::from_value(Value::Object(m))
            .map_err(|e| RunError::Input(InputError::new(js, "job", e.to_string())))
    }

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
        let Engine {
            driver, runs, doc, ..
        } = self;
        let driver = driver
            .as_mut()
            .ok_or_else(|| RunError::runtime("route: the run is finished"))?;
        let r = driver.on_event(now, ev, sink, &mut |d: &RouteDecision| {
            track(runs, doc, d);
            out.emit(|| decision(d))
        });
        r.map_err(|e| self.error(e))
    }

    fn submit(&mut self, now: Slot, job: &Map<String, Value>) -> Result<u32, RunError> {
        let d = self.submitted(now, job)?;
        let nodes = &self.scn.topology.nodes;
        let node = |id: &str| self.nodes.get(id).copied();
        let model = d.validate(&node, nodes).map_err(|mut e| {
            e.field = format!("job.{}", e.field);
            RunError::Input(e)
        })?;
        let j = self
            .driver()?
            .scheduler_mut()
            .submit(model)
            .map_err(|e| submit_error(&d.id, e))?;
        self.scn.jobs.push(model);
        self.doc.jobs.push(d);
        self.runs.push(JobRuns::default());
        Ok(j)
    }

    fn status(&self, j: u32) -> Option<Status> {
        match &self.driver {
            Some(d) => d.scheduler().status(j),
            None => self.statuses.get(j as usize).copied(),
        }
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.driver.as_ref()?.scheduler().next_wakeup(after)
    }

    fn finish(&mut self, sink: &mut L, out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        let r = self
            .driver()?
            .finish(sink, &mut |d: &RouteDecision| out.emit(|| decision(d)));
        r.map_err(|e| self.error(e))?;
        if let Some(d) = &self.driver {
            self.statuses = (0..self.doc.jobs.len() as u32)
                .map(|j| d.scheduler().status(j).unwrap_or(Status::Unfinished))
                .collect();
        }
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
            &self.runs,
            sink.hash().hex().to_string(),
        )))
    }
}
