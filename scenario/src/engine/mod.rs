//! The engine façade: one event-driven engine over the five kinds, built from a validated
//! scenario document.
//!
//! Every surface runs through it: `mlsched run` ([`crate::run::run_doc`]) is an [`Engine`] fed
//! the scenario's own arrivals to the end ([`Engine::run_to_end`]); a control plane (Rust, the
//! wasm `Engine`, the C ABI, Python) feeds the same events one at a time with
//! [`Engine::on_event`] and gets the same decisions, the same log and the same result document.
//!
//! - **Events** are the kernel's [`Event`]s with the current slot as an argument, in the order
//!   of [`mlsched_kernel::api`]: per slot, finishes, arrivals in (arrival, index) order, then
//!   `SlotAdvanced`. The engine refuses, with a typed [`RunError`] naming the field, an event
//!   whose slot goes back in time, an unknown job, a second arrival of a job, an arrival before
//!   the job's `arrival`, a finish of a job that never arrived, and any event after
//!   [`Engine::finish`].
//! - **Decisions** come back as [`Decision`]s: the record's name, the job it concerns and the
//!   kernel's decision record as JSON (its explanation included).
//! - **Snapshots** are the events fed so far ([`Engine::snapshot`]): restoring rebuilds the
//!   engine from the same scenario and options and replays them, so the restored engine's
//!   scheduler, collected results and log are exactly those of the original (the kernel's own
//!   algorithm snapshots, `mlsched_kernel::snapshot`, stay available to Rust embedders).
//! - **One per-kind trait**: each kind implements [`Kind`] (its documents, policies, engine and
//!   summary); [`dispatch!`](crate::dispatch) is the single place that matches on the kind.
mod decision;
mod not_built;
mod slots;
mod snapshot;
pub mod trace;
mod world;

pub use decision::{Data, Decision};
pub use not_built::NotBuilt;
pub use trace::Trace;

use crate::doc::{self, ScenarioDoc};
use crate::error::{InputError, RunError};
use crate::run::{ResultDoc, RunOptions};
use mlsched_kernel::api::Event;
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::Slot;

/// One scenario kind: its documents, its policies, its engine and its human summary.
///
/// Implemented by [`Oasis`], [`Online`], [`Placement`], [`Preempt`] and [`Route`];
/// [`dispatch!`](crate::dispatch) selects one. A kind whose cargo feature is off is a
/// [`NotBuilt`] stand-in: its documents cannot exist, so its arms of every match are dead code.
pub trait Kind {
    /// The `kind` string of its documents.
    const NAME: &'static str;
    /// The document field that lists its servers, as a build-limit message names it
    /// ([`crate::limit::field`] for `Limit::Servers`).
    const SERVERS_FIELD: &'static str = "servers";
    /// Whether its runs read [`RunOptions::all_categories`] (placement: every job category
    /// allocated and listed in the result's `per_category`); the other kinds ignore it.
    const CATEGORIES: bool = false;
    /// The scenario document.
    type Doc;
    /// The result document.
    type Result;
    /// Policies accepted by `--policy` (the first is the kind's own algorithm).
    fn policies() -> &'static [&'static str];
    /// Validates `doc` and builds the engine running the policy of `opts`.
    fn engine<L: LogSink>(doc: &Self::Doc, opts: &RunOptions) -> Result<Built<L>, RunError>;
    /// Number of jobs of a scenario document.
    fn jobs(doc: &Self::Doc) -> usize;
    /// The id of job `j` of a scenario document (document order).
    fn job_id(doc: &Self::Doc, j: usize) -> Option<&str>;
    /// Checks every value of a scenario document (the errors `mlsched run` reports).
    fn validate(doc: &Self::Doc) -> Result<(), InputError>;
    /// The human summary `mlsched run` prints.
    fn summary_text(r: &Self::Result) -> String;
    /// The result's `log_hash`.
    fn log_hash(r: &Self::Result) -> &str;
    /// The policy that produced the result.
    fn policy(r: &Self::Result) -> &str;
    /// The result's `occupancy`: who holds which server when, derived by the kind from its own
    /// result data when the run finished ([`crate::occupancy`]).
    fn occupancy(r: &Self::Result) -> &[crate::occupancy::Span];
    /// The result's `summary.statuses`.
    fn statuses(r: &Self::Result) -> crate::status::StatusCounts;
    /// The result's `occupancy`, to rename its servers (explicit server ids).
    fn occupancy_mut(r: &mut Self::Result) -> &mut Vec<crate::occupancy::Span>;
    /// The ids of the scenario's servers in the kernel's index order (`docs/open-world.md`):
    /// what `server_down`, `server_up` and `capacity` events name.
    fn server_ids(doc: &Self::Doc) -> Vec<String>;
    /// The ids the kind's occupancy is derived with (`w<h>`, `h<h>`, ...): [`Kind::server_ids`]
    /// without the servers' explicit ids. The façade renames occupancy spans from these to those.
    fn default_server_ids(doc: &Self::Doc) -> Vec<String> {
        Self::server_ids(doc)
    }
    /// Entries of a `capacity` event's vector.
    fn capacity_len(doc: &Self::Doc) -> usize;
    /// The decision records its logs hold besides the driver's events ([`crate::records`]):
    /// the kernel record types of its algorithm and its baselines. A kind not built has none.
    fn records() -> &'static [crate::records::RecordType] {
        &[]
    }
    /// Sets every job row's `status` and the summary's counts (`crate::status`): `known` gives
    /// the status the engine or the scheduler keeps for a job, the kind derives the others.
    fn set_statuses(r: &mut Self::Result, known: &dyn Fn(u32) -> Option<crate::status::JobStatus>);
    /// The kind's result inside `r` (`None`: a result of another kind). With [`dispatch!`]
    /// (crate::dispatch) on the scenario, it pairs a scenario with its result without a match
    /// on the kind outside the kind's folder.
    fn result_of(r: &ResultDoc) -> Option<&Self::Result>;
    /// The kind's document inside `d` (`None`: a document of another kind), for a caller that
    /// takes one kind only.
    fn doc_of(d: &ScenarioDoc) -> Option<&Self::Doc>;
    /// What the kind's results measure, as the reports show them (the kind's `METRICS`,
    /// [`crate::metrics`]).
    fn metrics() -> &'static crate::metrics::Metrics {
        crate::metrics::of(Self::NAME)
    }
}

/// The [`Kind`] methods every kind answers the same way from its documents' common fields
/// (`jobs`, `log_hash`, `policy`, `occupancy`, `validate`), given the kind's summary function.
macro_rules! kind_documents {
    ($summary:path) => {
        fn summary_text(r: &Self::Result) -> String {
            $summary(r)
        }

        fn log_hash(r: &Self::Result) -> &str {
            &r.log_hash
        }

        fn policy(r: &Self::Result) -> &str {
            &r.policy
        }

        fn occupancy(r: &Self::Result) -> &[crate::occupancy::Span] {
            &r.occupancy
        }

        fn occupancy_mut(r: &mut Self::Result) -> &mut Vec<crate::occupancy::Span> {
            &mut r.occupancy
        }

        fn statuses(r: &Self::Result) -> crate::status::StatusCounts {
            r.summary.statuses
        }

        fn jobs(doc: &Self::Doc) -> usize {
            doc.jobs.len()
        }

        fn job_id(doc: &Self::Doc, j: usize) -> Option<&str> {
            doc.jobs.get(j).map(|x| x.id.as_str())
        }

        fn validate(doc: &Self::Doc) -> Result<(), crate::InputError> {
            doc.validate().map(drop)
        }
    };
}
pub(crate) use kind_documents;

/// What a [`Kind`] builds: the engine and the scenario facts the façade checks events against.
pub struct Built<L> {
    pub(crate) inner: Box<dyn KindEngine<L>>,
    /// Arrival slot of every job, input order.
    pub(crate) arrivals: Vec<Slot>,
    /// Job ids, input order.
    pub(crate) ids: Vec<String>,
    /// The policy's document name.
    pub(crate) policy: String,
}

/// A kind's engine behind the façade: feeds one event through the kernel's driver, collects
/// what the result document needs, and writes that document at the end.
pub(crate) trait KindEngine<L> {
    /// Feeds `ev` at `now`: event record and decision records to `sink`, decisions to `out`.
    fn on_event(
        &mut self,
        now: Slot,
        ev: Event<u32>,
        sink: &mut L,
        out: &mut Out<'_>,
    ) -> Result<(), RunError>;
    /// The scheduler's next wake-up after `after` ([`mlsched_kernel::api::Scheduler::next_wakeup`]).
    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot>;
    /// Ends the run: final decisions, then the result document.
    fn finish(&mut self, sink: &mut L, out: &mut Out<'_>) -> Result<ResultDoc, RunError>;
    /// The kernel state behind the explanations ([`Engine::trace`]); `result` is the finished
    /// run's document, if any.
    fn trace(&self, _result: Option<&ResultDoc>) -> Option<Trace> {
        None
    }
    /// Open world: appends `job` (a job object of the kind's `jobs` array, validated with the
    /// document's messages) submitted at `now` to the scheduler and the result rows; returns its
    /// index (the next one). Nothing is fed: the façade feeds its `JobArrived`.
    fn submit(
        &mut self,
        _now: Slot,
        _job: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<u32, RunError> {
        Err(crate::event::unsupported("submit"))
    }
    /// Open world: the job's status as of the last event (`None` while the kind has none).
    fn status(&self, _j: u32) -> Option<mlsched_kernel::world::Status> {
        None
    }
    /// Open world: job `j` was cancelled before it arrived (it never will): its result row says
    /// `cancelled`.
    fn cancelled_before_arrival(&mut self, _j: u32) {}
}

/// Where decisions go: to the caller, or nowhere — then they are never built (a whole run, as
/// `mlsched run` does it, pays only for the log and the result document).
pub(crate) struct Out<'a>(Option<&'a mut dyn FnMut(Decision)>);

impl Out<'_> {
    /// Passes the decision `make` builds to the caller, if there is one.
    pub(crate) fn emit(&mut self, make: impl FnOnce() -> Decision) {
        if let Some(f) = self.0.as_mut() {
            f(make())
        }
    }
}

/// Matches a [`ScenarioDoc`] once for every kind: `dispatch!(doc, d, K => expr)` evaluates
/// `expr` with `d` bound to the kind's document and `K` to its [`Kind`] type.
#[macro_export]
macro_rules! dispatch {
    ($doc:expr, $d:ident, $k:ident => $body:expr) => {
        match $doc {
            $crate::doc::ScenarioDoc::Oasis($d) => {
                type $k = $crate::engine::Oasis;
                $body
            }
            $crate::doc::ScenarioDoc::Online($d) => {
                type $k = $crate::engine::Online;
                $body
            }
            $crate::doc::ScenarioDoc::Placement($d) => {
                type $k = $crate::engine::Placement;
                $body
            }
            $crate::doc::ScenarioDoc::Preempt($d) => {
                type $k = $crate::engine::Preempt;
                $body
            }
            $crate::doc::ScenarioDoc::Route($d) => {
                type $k = $crate::engine::Route;
                $body
            }
        }
    };
}

/// Matches a kind's name once for every kind: `by_kind_name!(name, K => expr)` is `Some(expr)`
/// with `K` the [`Kind`] whose [`Kind::NAME`] is `name`, `None` when no kind has that name.
#[macro_export]
macro_rules! by_kind_name {
    ($name:expr, $k:ident => $body:expr) => {{
        use $crate::engine::Kind as _;
        match $name {
            n if n == $crate::engine::Oasis::NAME => {
                type $k = $crate::engine::Oasis;
                Some($body)
            }
            n if n == $crate::engine::Online::NAME => {
                type $k = $crate::engine::Online;
                Some($body)
            }
            n if n == $crate::engine::Placement::NAME => {
                type $k = $crate::engine::Placement;
                Some($body)
            }
            n if n == $crate::engine::Preempt::NAME => {
                type $k = $crate::engine::Preempt;
                Some($body)
            }
            n if n == $crate::engine::Route::NAME => {
                type $k = $crate::engine::Route;
                Some($body)
            }
            _ => None,
        }
    }};
}

/// Matches a [`ResultDoc`] once for every kind: `dispatch_result!(res, r, K => expr)`.
#[macro_export]
macro_rules! dispatch_result {
    ($res:expr, $r:ident, $k:ident => $body:expr) => {
        match $res {
            $crate::run::ResultDoc::Oasis($r) => {
                type $k = $crate::engine::Oasis;
                $body
            }
            $crate::run::ResultDoc::Online($r) => {
                type $k = $crate::engine::Online;
                $body
            }
            $crate::run::ResultDoc::Placement($r) => {
                type $k = $crate::engine::Placement;
                $body
            }
            $crate::run::ResultDoc::Preempt($r) => {
                type $k = $crate::engine::Preempt;
                $body
            }
            $crate::run::ResultDoc::Route($r) => {
                type $k = $crate::engine::Route;
                $body
            }
        }
    };
}

#[cfg(feature = "oasis")]
pub use crate::kinds::oasis::engine::Oasis;
#[cfg(feature = "online")]
pub use crate::kinds::online::engine::Online;
#[cfg(feature = "placement")]
pub use crate::kinds::placement::engine::Placement;
#[cfg(feature = "preempt")]
pub use crate::kinds::preempt::engine::Preempt;
#[cfg(feature = "route")]
pub use crate::kinds::route::engine::Route;
#[cfg(not(feature = "oasis"))]
pub use not_built::Oasis;
#[cfg(not(feature = "online"))]
pub use not_built::Online;
#[cfg(not(feature = "placement"))]
pub use not_built::Placement;
#[cfg(not(feature = "preempt"))]
pub use not_built::Preempt;
#[cfg(not(feature = "route"))]
pub use not_built::Route;

/// An event as fed to the engine (kept for [`Engine::snapshot`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Fed {
    pub(crate) now: Slot,
    pub(crate) ev: FedEvent,
}

/// What [`Fed`] holds: a kernel event, or a submission as its JSON text.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) enum FedEvent {
    Arrive(u32),
    Advance,
    Finish(u32),
    Cancel(u32),
    Down(u32),
    Up(u32),
    Capacity(u32, Vec<f64>),
    /// A `submit` event's JSON text.
    Submit(String),
}

impl Fed {
    fn of(now: Slot, ev: Event<u32>) -> Fed {
        let ev = match ev {
            Event::JobArrived(j) => FedEvent::Arrive(j),
            Event::SlotAdvanced => FedEvent::Advance,
            Event::JobFinished(j) => FedEvent::Finish(j),
            Event::JobCancelled(j) => FedEvent::Cancel(j),
            Event::ServerDown(h) => FedEvent::Down(h),
            Event::ServerUp(h) => FedEvent::Up(h),
            Event::Capacity(h, c) => FedEvent::Capacity(h, c.as_slice().to_vec()),
        };
        Fed { now, ev }
    }
}

/// How far [`Engine::run_observed`] has come, told after every arrival and every slot: the
/// current slot and how many of the scenario's jobs have arrived by then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunProgress {
    /// The current slot (its arrival or `SlotAdvanced` was just fed).
    pub slot: Slot,
    /// Jobs of the scenario arrived so far (arrival order).
    pub arrived: u32,
    /// Jobs of the scenario.
    pub jobs: u32,
}

/// The engine of one scenario run: see the module docs.
pub struct Engine<L: LogSink = HashSink> {
    kind: &'static str,
    policy: String,
    inner: Box<dyn KindEngine<L>>,
    sink: L,
    /// `(arrival, job)` sorted: the scenario's own arrival order.
    order: Vec<(Slot, u32)>,
    arrivals: Vec<Slot>,
    ids: Vec<String>,
    arrived: Vec<bool>,
    /// Jobs cancelled (before or after they arrived).
    cancelled: Vec<bool>,
    /// Job id -> index, listed and submitted jobs.
    job_index: std::collections::HashMap<String, u32>,
    /// The servers as open-world events name them.
    world: world::World,
    events: Vec<Fed>,
    fingerprint: u64,
    now: Option<Slot>,
    /// `SlotAdvanced` was fed at `now`.
    advanced: bool,
    result: Option<ResultDoc>,
    /// The scheduler failed on an event: its state is no longer the run's, so the engine
    /// refuses everything after (a snapshot still holds the events before the failure).
    failed: Option<RunError>,
}

impl Engine<HashSink> {
    /// Parses and validates `scenario` and builds the engine for the policy of `opts`; the log
    /// is kept as its hash only.
    pub fn new(scenario: &str, opts: &RunOptions) -> Result<Self, RunError> {
        Self::with_sink(scenario, opts, HashSink::new())
    }

    /// [`Engine::from_doc`] keeping the log as its hash (fingerprint 0: no snapshots).
    ///
    /// Like [`Engine::new`] and [`Engine::restore_hashed`] it is not generic: an embedder calling
    /// only these uses the engine compiled once, in this crate (the wasm package's size).
    pub fn from_doc_hashed(d: &ScenarioDoc, opts: &RunOptions) -> Result<Self, RunError> {
        Self::from_doc(d, opts, HashSink::new(), 0)
    }

    /// [`Engine::restore`] keeping the log as its hash.
    pub fn restore_hashed(
        scenario: &str,
        opts: &RunOptions,
        bytes: &[u8],
    ) -> Result<Self, RunError> {
        Self::restore(scenario, opts, HashSink::new(), bytes)
    }
}

impl<L: LogSink> Engine<L> {
    /// As [`Engine::new`], writing every event and decision record to `sink`.
    pub fn with_sink(scenario: &str, opts: &RunOptions, sink: L) -> Result<Self, RunError> {
        let d = doc::parse(scenario)?;
        Self::from_doc(&d, opts, sink, snapshot::fingerprint(scenario, opts))
    }

    /// Builds the engine of a parsed document; `fingerprint` identifies the scenario and options
    /// in snapshots.
    pub fn from_doc(
        d: &ScenarioDoc,
        opts: &RunOptions,
        sink: L,
        fingerprint: u64,
    ) -> Result<Self, RunError> {
        let (kind, built, world) = crate::dispatch!(d, x, K => (K::NAME, K::engine::<L>(x, opts)
            .map_err(|e| crate::limit::locate(K::NAME, &crate::limit::job_ids(d), None, e))?,
            world::World::new(K::server_ids(x), K::default_server_ids(x), K::capacity_len(x))));
        let mut order: Vec<(Slot, u32)> = built
            .arrivals
            .iter()
            .enumerate()
            .map(|(i, &a)| (a, i as u32))
            .collect();
        mlsched_kernel::order::sort_pairs(&mut order);
        Ok(Engine {
            kind,
            policy: built.policy,
            inner: built.inner,
            sink,
            order,
            arrived: vec![false; built.arrivals.len()],
            cancelled: vec![false; built.arrivals.len()],
            job_index: built
                .ids
                .iter()
                .enumerate()
                .map(|(i, id)| (id.clone(), i as u32))
                .collect(),
            world,
            arrivals: built.arrivals,
            ids: built.ids,
            events: Vec::new(),
            fingerprint,
            now: None,
            advanced: false,
            result: None,
            failed: None,
        })
    }

    /// The scenario's kind.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The policy running (its document name, e.g. `oasis`, `fifo`, `has`).
    pub fn policy(&self) -> &str {
        &self.policy
    }

    /// Number of jobs in the scenario.
    pub fn jobs(&self) -> u32 {
        self.ids.len() as u32
    }

    /// The id of job `j` (input order).
    pub fn job_id(&self, j: u32) -> Option<&str> {
        self.ids.get(j as usize).map(String::as_str)
    }

    /// The scenario's `(arrival slot, job)` pairs in the order a run feeds them.
    pub fn arrival_order(&self) -> &[(Slot, u32)] {
        &self.order
    }

    /// The slot of the last event fed (`None` before the first).
    pub fn now(&self) -> Option<Slot> {
        self.now
    }

    /// The earliest slot after the current one at which the scheduler wants a `SlotAdvanced`
    /// although no job arrives (`None`: never).
    pub fn next_wakeup(&self) -> Option<Slot> {
        self.inner.next_wakeup(self.now)
    }

    /// The sink holding the log (its hash is the run's `log_hash`).
    pub fn sink(&self) -> &L {
        &self.sink
    }

    /// The sink back, e.g. a log file writer to finish.
    pub fn into_sink(self) -> L {
        self.sink
    }

    /// The result document, once [`Engine::finish`] has run.
    pub fn result(&self) -> Option<&ResultDoc> {
        self.result.as_ref()
    }

    /// Feeds one event at slot `now`; every decision it causes goes to `out`, in order.
    pub fn on_event(
        &mut self,
        now: Slot,
        ev: Event<u32>,
        out: &mut dyn FnMut(Decision),
    ) -> Result<(), RunError> {
        self.feed_to(now, ev, &mut Out(Some(out)))
    }

    fn feed_to(&mut self, now: Slot, ev: Event<u32>, out: &mut Out<'_>) -> Result<(), RunError> {
        self.check(now, ev)?;
        // `false`: a cancel of a job that has not arrived. The scheduler is told (some plan
        // their arrivals themselves and must drop the job); one that refuses it (it never saw
        // the job) leaves it to the façade, which logs the cancel itself: the job never arrives.
        let arrived = self.check_world(&ev)?;
        if let Err(e) = self.inner.on_event(now, ev, &mut self.sink, out) {
            // The kernel refused an open-world event before changing anything: bad input.
            if let Some(w) = e.kernel_error().and_then(|k| k.open_world()) {
                if !arrived {
                    self.applied_world(now, &ev, false)?;
                    self.moved_to(now);
                    self.events.push(Fed::of(now, ev));
                    return Ok(());
                }
                return Err(self.open_world_input(w));
            }
            let job = match ev {
                Event::JobArrived(j) | Event::JobFinished(j) | Event::JobCancelled(j) => Some(j),
                _ => None,
            };
            let e = crate::limit::locate(self.kind, &self.ids, job, e);
            self.failed = Some(e.clone());
            return Err(e);
        }
        self.moved_to(now);
        match ev {
            Event::JobArrived(j) => self.arrived[j as usize] = true,
            Event::SlotAdvanced => self.advanced = true,
            _ => self.applied_world(now, &ev, true)?,
        }
        self.events.push(Fed::of(now, ev));
        Ok(())
    }

    fn moved_to(&mut self, now: Slot) {
        if self.now != Some(now) {
            self.advanced = false;
        }
        self.now = Some(now);
    }

    /// Feeds one event at slot `now` without building decision values: the log and the result
    /// rows advance exactly as with [`Engine::on_event`] (for hosts that only need the result,
    /// and for benchmarks of the kernel behind the façade).
    pub fn step(&mut self, now: Slot, ev: Event<u32>) -> Result<(), RunError> {
        self.feed_to(now, ev, &mut Out(None))
    }

    /// [`Engine::on_event`] returning the decisions as a vector.
    pub fn feed(&mut self, now: Slot, ev: Event<u32>) -> Result<Vec<Decision>, RunError> {
        let mut v = Vec::new();
        self.on_event(now, ev, &mut |d| v.push(d))?;
        Ok(v)
    }

    /// Whether `SlotAdvanced` was fed at the current slot ([`Engine::now`]).
    pub fn advanced(&self) -> bool {
        self.advanced
    }

    /// Kernel events fed so far (what a snapshot holds): a host that feeds several events for
    /// one of its own compares this before and after to know whether the engine moved.
    pub fn events_fed(&self) -> usize {
        self.events.len()
    }

    /// The error [`Engine::on_event`] would refuse `ev` at `now` with, before feeding anything
    /// (`Ok`: the engine would hand it to the kernel). Lets a host that maps one of its events
    /// to several kernel events refuse it whole.
    pub fn check_event(&self, now: Slot, ev: Event<u32>) -> Result<(), RunError> {
        self.check(now, ev)?;
        self.check_world(&ev).map(drop)
    }

    /// Refuses an event the kernel must never see, naming the field.
    fn check(&self, now: Slot, ev: Event<u32>) -> Result<(), RunError> {
        let bad =
            |field: &str, why: String| Err(RunError::Input(InputError::new("event", field, why)));
        if self.result.is_some() {
            return bad("event", "the run is finished".into());
        }
        if let Some(e) = &self.failed {
            return Err(stopped(e));
        }
        if let Some(t) = self.now.filter(|&t| now < t) {
            return bad(
                "now",
                format!("slot {now} is before the last event's slot {t}"),
            );
        }
        let job = match ev {
            Event::JobArrived(j) | Event::JobFinished(j) => j,
            // Open-world events: `check_world` checks the rest.
            _ => return Ok(()),
        };
        let Some(&arrival) = self.arrivals.get(job as usize) else {
            return bad(
                "job",
                format!("no job {job}: the scenario has {} jobs", self.ids.len()),
            );
        };
        let id = &self.ids[job as usize];
        match ev {
            Event::JobArrived(_) if self.arrived[job as usize] => {
                bad("job", format!("job `{id}` has already arrived"))
            }
            Event::JobArrived(_) if self.cancelled[job as usize] => {
                bad("job", format!("job `{id}` was cancelled"))
            }
            Event::JobArrived(_) if now < arrival => bad(
                "now",
                format!("job `{id}` arrives at slot {arrival}, not before (got {now})"),
            ),
            Event::JobFinished(_) if !self.arrived[job as usize] => {
                bad("job", format!("job `{id}` finished but never arrived"))
            }
            _ => Ok(()),
        }
    }

    /// Feeds, from the current state, every scenario arrival not fed yet and every wake-up, in
    /// the documented order, as [`mlsched_kernel::driver::Driver::run`] does; then
    /// [`Engine::finish`]. On a fresh engine this is exactly `mlsched run`.
    pub fn run_to_end(&mut self, out: &mut dyn FnMut(Decision)) -> Result<ResultDoc, RunError> {
        self.run_to(&mut Out(Some(out)), &mut |_| {}, &[]).cloned()
    }

    /// [`Engine::run_to_end`] returning the kept result document by reference (no copy: the
    /// wasm package links no `ResultDoc` clone).
    pub fn run_to_end_kept(
        &mut self,
        out: &mut dyn FnMut(Decision),
    ) -> Result<&ResultDoc, RunError> {
        self.run_to(&mut Out(Some(out)), &mut |_| {}, &[])
    }

    /// [`Engine::run_to_end`] without decisions: only the log and the result document are
    /// produced (what `mlsched run` does).
    pub fn run(&mut self) -> Result<ResultDoc, RunError> {
        self.run_to(&mut Out(None), &mut |_| {}, &[]).cloned()
    }

    /// [`Engine::run`], telling `observe` after every arrival and every slot how far the run has come (for a
    /// progress display: it sees the run, it cannot change a decision or a log byte).
    pub fn run_observed(
        &mut self,
        observe: &mut dyn FnMut(RunProgress),
    ) -> Result<ResultDoc, RunError> {
        self.run_to(&mut Out(None), observe, &[]).cloned()
    }

    /// Ends the run: the scheduler's final decisions, then the result document (kept, see
    /// [`Engine::result`]). Later events are refused.
    pub fn finish(&mut self, out: &mut dyn FnMut(Decision)) -> Result<ResultDoc, RunError> {
        self.finish_to(&mut Out(Some(out))).cloned()
    }

    /// [`Engine::finish`] returning the kept result document by reference (no copy).
    pub fn finish_kept(&mut self, out: &mut dyn FnMut(Decision)) -> Result<&ResultDoc, RunError> {
        self.finish_to(&mut Out(Some(out)))
    }

    /// The kept result document, moved out of the engine (`None` before it finished).
    pub fn into_result(self) -> Option<ResultDoc> {
        self.result
    }

    fn finish_to(&mut self, out: &mut Out<'_>) -> Result<&ResultDoc, RunError> {
        if self.result.is_none() {
            if let Some(e) = &self.failed {
                return Err(stopped(e));
            }
            let mut r = match self.inner.finish(&mut self.sink, out) {
                Ok(r) => r,
                Err(e) => {
                    let e = crate::limit::locate(self.kind, &self.ids, None, e);
                    self.failed = Some(e.clone());
                    return Err(e);
                }
            };
            let known = |j: u32| self.status(j).map(crate::status::JobStatus::from);
            crate::dispatch_result!(&mut r, x, K => {
                K::set_statuses(x, &known);
                self.world.rename(K::occupancy_mut(x));
            });
            self.result = Some(r);
        }
        // Set just above or by an earlier call.
        self.result
            .as_ref()
            .ok_or_else(|| RunError::runtime("the engine kept no result".to_string()))
    }

    /// The kernel state behind the decisions' explanations ([`Trace`]): OASiS's prices, A_online's
    /// priced usage, and (once finished) the HAS / JPS matching market of every reported
    /// category; `None` for the other kinds and policies. Only reads the scheduler: no decision,
    /// log record or result byte depends on it.
    pub fn trace(&self) -> Option<Trace> {
        self.inner.trace(self.result.as_ref())
    }

    /// The engine's state as bytes: format version, the scenario-and-options fingerprint and
    /// every event fed so far ([`Engine::restore`] replays them).
    pub fn snapshot(&self) -> Vec<u8> {
        snapshot::encode(self.fingerprint, &self.events, self.result.is_some())
    }

    /// Rebuilds the engine of `scenario` with `opts` and replays the events of `bytes` (a
    /// snapshot of an engine of the same scenario and options; anything else is refused).
    pub fn restore(
        scenario: &str,
        opts: &RunOptions,
        sink: L,
        bytes: &[u8],
    ) -> Result<Self, RunError> {
        let (fp, events, finished) = snapshot::decode(bytes)?;
        if fp != snapshot::fingerprint(scenario, opts) {
            return Err(RunError::Input(InputError::new(
                "snapshot",
                "fingerprint",
                "taken from another scenario or other options",
            )));
        }
        let mut e = Self::with_sink(scenario, opts, sink)?;
        // A submission is kept as its JSON and then the arrival it caused: re-submitting feeds
        // that arrival again, so the kept one is skipped.
        let mut submitted = false;
        for f in events {
            if std::mem::take(&mut submitted) && matches!(f.ev, FedEvent::Arrive(_)) {
                continue;
            }
            submitted = matches!(f.ev, FedEvent::Submit(_));
            e.refeed(f)?;
        }
        if finished {
            e.finish_to(&mut Out(None))?;
        }
        Ok(e)
    }
}

impl<L: LogSink> Engine<L> {
    /// Feeds one event a snapshot holds again.
    fn refeed(&mut self, f: Fed) -> Result<(), RunError> {
        let bad =
            |why: &str| RunError::Input(InputError::new("snapshot", "events", why.to_string()));
        let ev = match f.ev {
            FedEvent::Arrive(j) => Event::JobArrived(j),
            FedEvent::Advance => Event::SlotAdvanced,
            FedEvent::Finish(j) => Event::JobFinished(j),
            FedEvent::Cancel(j) => Event::JobCancelled(j),
            FedEvent::Down(h) => Event::ServerDown(h),
            FedEvent::Up(h) => Event::ServerUp(h),
            FedEvent::Capacity(h, c) => Event::Capacity(
                h,
                mlsched_kernel::resources::ResourceVec::from_slice(&c)
                    .map_err(|_| bad("a capacity has too many entries"))?,
            ),
            FedEvent::Submit(text) => return self.submit_logged(&text).map(drop),
        };
        self.feed_to(f.now, ev, &mut Out(None))
    }
}

/// The error of any call after the scheduler failed.
fn stopped(e: &RunError) -> RunError {
    RunError::runtime(format!("the engine stopped at an earlier error: {e}"))
}

/// Whether the scheduler failed on an event (the engine then refuses everything after).
impl<L: LogSink> Engine<L> {
    /// The error the scheduler failed with, if it did.
    pub fn failure(&self) -> Option<&RunError> {
        self.failed.as_ref()
    }
}
