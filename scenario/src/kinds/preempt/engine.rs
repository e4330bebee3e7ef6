//! Kind `"preempt"` behind the façade: A_online with A_greedy / A_ps (Wang et al. 2022) or a
//! baseline dispatch (all-cloud, edge-FIFO, random).
use crate::engine::{Built, Data, Decision, Kind, KindEngine, Out};
use crate::error::{InputError, RunError};
use crate::kinds::preempt::doc::{
    PreemptDoc, PreemptExplain, PreemptJobDoc, PreemptJobResult, PreemptResult, PreemptSummary,
};
use crate::kinds::preempt::exec::{collect, finish, kernel_error};
use crate::records::{exact_value, json_fields, RecordType};
use crate::run::{ResultDoc, RunOptions};
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::preempt::{
    CandidateRec, DispatchRec, InterruptRec, Policy, PreemptDecision, PreemptError,
    PreemptScheduler, PsMissRec, PsRec,
};
use mlsched_kernel::record::DecisionRecord;
use mlsched_kernel::world::Status;
use mlsched_kernel::Slot;
use serde_json::{Map, Value};

/// Kind `"preempt"`.
pub struct Preempt;

/// The records of a preempt run ([`Kind::records`]).
const RECORDS: &[RecordType] = &[
    RecordType::of::<CandidateRec>(),
    RecordType::of::<DispatchRec>(),
    RecordType::of::<PsRec>(),
    RecordType::of::<PsMissRec>(),
    RecordType::with::<InterruptRec>(interrupt_fields),
];

/// An [`InterruptRec`]'s fields, its cause and outcome by name (`server_down`, `lost`).
fn interrupt_fields(body: &[u8]) -> Option<Map<String, Value>> {
    let r: InterruptRec = exact_value(body)?;
    let mut m = json_fields(&r)?;
    m.insert("cause".into(), r.cause.name().into());
    m.insert("outcome".into(), r.outcome.name().into());
    Some(m)
}

/// Policy names of kind "preempt" (the first is the kind's own algorithm).
const POLICIES: &[(&str, Policy)] = &[
    ("preempt", Policy::Greedy),
    ("all-cloud", Policy::AllCloud),
    ("edge-fifo", Policy::EdgeFifo),
    ("random", Policy::Random),
];

impl Kind for Preempt {
    const NAME: &'static str = "preempt";
    type Doc = PreemptDoc;
    type Result = PreemptResult;

    fn records() -> &'static [RecordType] {
        RECORDS
    }

    fn policies() -> &'static [&'static str] {
        crate::kinds::preempt::exec::policies()
    }

    fn engine<L: LogSink>(doc: &PreemptDoc, opts: &RunOptions) -> Result<Built<L>, RunError> {
        let scn = doc.validate()?;
        let name = opts.policy.as_deref().unwrap_or("preempt");
        let Some(&(name, policy)) = POLICIES.iter().find(|(n, _)| *n == name) else {
            return Err(crate::run::unknown_policy(
                Self::NAME,
                name,
                Self::policies(),
            ));
        };
        let sched = PreemptScheduler::new(&scn, policy).map_err(|e| kernel_error(doc, e))?;
        let sched = sched.with_restart(doc.restart()?.unwrap_or(0));
        let jobs = doc.jobs.iter().map(|j| row(&j.id, policy)).collect();
        Ok(Built {
            arrivals: scn.jobs.iter().map(|j| j.arrival).collect(),
            ids: doc.jobs.iter().map(|j| j.id.clone()).collect(),
            policy: name.into(),
            inner: Box::new(Engine {
                doc: doc.clone(),
                name,
                policy,
                driver: Driver::new(sched),
                jobs,
                cuts: Vec::new(),
            }),
        })
    }

    crate::engine::kind_documents!(crate::kinds::preempt::exec::summary_text);

    fn result_of(r: &crate::run::ResultDoc) -> Option<&Self::Result> {
        match r {
            crate::run::ResultDoc::Preempt(x) => Some(x),
            _ => None,
        }
    }

    fn doc_of(d: &crate::doc::ScenarioDoc) -> Option<&Self::Doc> {
        match d {
            crate::doc::ScenarioDoc::Preempt(x) => Some(x),
            _ => None,
        }
    }

    fn server_ids(doc: &PreemptDoc) -> Vec<String> {
        doc.server_ids()
    }

    fn capacity_len(_doc: &PreemptDoc) -> usize {
        2
    }

    fn set_statuses(
        r: &mut PreemptResult,
        known: &dyn Fn(u32) -> Option<crate::status::JobStatus>,
    ) {
        crate::kinds::preempt::exec::set_statuses(r, known)
    }
}

/// An empty result row for job `id` (filled by [`collect`] and [`finish`]).
fn row(id: &str, policy: Policy) -> PreemptJobResult {
    PreemptJobResult {
        status: None,
        id: id.to_string(),
        completion_slot: 0,
        jct: 0,
        chunks: Vec::new(),
        ps: Vec::new(),
        zeta: None,
        explain: (policy == Policy::Greedy).then(|| PreemptExplain {
            candidates: Vec::new(),
            dispatch: Vec::new(),
        }),
    }
}

struct Engine {
    /// The scenario as written, with every submitted job appended to `jobs` (ids for errors).
    doc: PreemptDoc,
    name: &'static str,
    policy: Policy,
    driver: Driver<PreemptScheduler>,
    jobs: Vec<PreemptJobResult>,
    /// The open-world records so far (interruptions, cancels, losses), log order.
    cuts: Vec<InterruptRec>,
}

fn decision(d: &PreemptDecision) -> Decision {
    let (record, job) = match d {
        PreemptDecision::Candidate(c) => (CandidateRec::NAME, c.job),
        PreemptDecision::Dispatch(x) => (DispatchRec::NAME, x.job),
        PreemptDecision::Ps(p) => (PsRec::NAME, p.job),
        PreemptDecision::PsMiss(m) => (PsMissRec::NAME, m.job),
        PreemptDecision::Interrupt(r) => (InterruptRec::NAME, r.job),
    };
    let data = match d {
        PreemptDecision::Candidate(r) => Data::Candidate(*r),
        PreemptDecision::Dispatch(r) => Data::Dispatch(*r),
        PreemptDecision::Ps(r) => return Decision::of(record, Some(job), r),
        PreemptDecision::PsMiss(r) => return Decision::of(record, Some(job), r),
        PreemptDecision::Interrupt(r) => return Decision::of(record, Some(job), r),
    };
    Decision::typed(record, Some(job), data)
}

impl Engine {
    /// The kernel's error (a build limit's message, naming the job being placed, is written by
    /// [`crate::limit::locate`] for every kind).
    fn error(&self, e: DriverError<PreemptError>) -> RunError {
        match e {
            DriverError::Scheduler(e) | DriverError::Refused(e) => kernel_error(&self.doc, e),
            e => crate::error::from_driver(e, |m| m),
        }
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
        let (jobs, cuts) = (&mut self.jobs, &mut self.cuts);
        let r = self
            .driver
            .on_event(now, ev, sink, &mut |d: &PreemptDecision| {
                collect(jobs, cuts, d);
                out.emit(|| decision(d))
            });
        r.map_err(|e| self.error(e))
    }

    fn submit(
        &mut self,
        now: Slot,
        job: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<u32, RunError> {
        let mut value = serde_json::Value::Object(job.clone());
        if let Some(m) = value.as_object_mut() {
            m.entry("arrival").or_insert(now.into());
        }
        let jd: PreemptJobDoc = serde_json::from_value(value)
            .map_err(|e| InputError::new("event", "job", e.to_string()))?;
        let scn = self.driver.scheduler().scenario();
        let model = jd
            .validate(scn.slots, &self.doc.servers, &scn.servers)
            .map_err(submitted)?;
        let j = self
            .driver
            .scheduler_mut()
            .submit(model)
            .map_err(|e| submit_error(&jd.id, e))?;
        self.jobs.push(row(&jd.id, self.policy));
        self.doc.jobs.push(jd);
        Ok(j)
    }

    fn status(&self, j: u32) -> Option<Status> {
        self.driver.scheduler().status(j)
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.driver.scheduler().next_wakeup(after)
    }

    fn finish(&mut self, sink: &mut L, out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        let (jobs, cuts) = (&mut self.jobs, &mut self.cuts);
        let r = self.driver.finish(sink, &mut |d: &PreemptDecision| {
            collect(jobs, cuts, d);
            out.emit(|| decision(d))
        });
        r.map_err(|e| self.error(e))?;
        let sched = self.driver.scheduler();
        let mut jobs = self.jobs.clone();
        finish(sched, &self.cuts, &mut jobs);
        let scn = sched.scenario();
        let servers: Vec<&str> = self.doc.servers.iter().map(|s| s.id.as_str()).collect();
        let total_jct: u64 = jobs.iter().map(|j| j.jct as u64).sum();
        let cloud_chunks = jobs
            .iter()
            .flat_map(|j| &j.chunks)
            .filter(|c| scn.servers.get(c.server as usize).is_some_and(|s| s.cloud))
            .count() as u64;
        Ok(ResultDoc::Preempt(PreemptResult {
            kind: "preempt".into(),
            policy: self.name.into(),
            summary: PreemptSummary {
                statuses: Default::default(),
                avg_jct: if jobs.is_empty() {
                    0.0
                } else {
                    total_jct as f64 / jobs.len() as f64
                },
                total_jct,
                preemptions: sched.preemptions,
                cloud_chunks,
                ps_unassigned: Some(sched.ps_misses),
                makespan: Some(sched.horizon_end()),
                restarts: self.doc.restart_slots.map(|_| sched.preemptions),
            },
            occupancy: crate::kinds::preempt::occupancy::spans(&jobs, &servers),
            jobs,
            log_hash: sink.hash().hex().to_string(),
        }))
    }
}

/// A submitted job's validation error: its field is `job.<field>` (the event's `job` object).
fn submitted(mut e: InputError) -> RunError {
    e.field = format!("job.{}", e.field);
    RunError::Input(e)
}

/// The kernel's refusal of a submitted job as an input error naming the field.
fn submit_error(id: &str, e: PreemptError) -> RunError {
    let subject = crate::doc::check::job(&crate::text::terminal_safe(id));
    let field = match e {
        PreemptError::NoEligibleWorker { .. } => "job.rate",
        PreemptError::WrongSlot { .. } => "job.arrival",
        _ => "job.chunks",
    };
    let why = match e {
        PreemptError::NoEligibleWorker { .. } => {
            "no server can train it (every usable rate is 0)".to_string()
        }
        other => other.to_string(),
    };
    RunError::Input(InputError::new(subject, field, why))
}
