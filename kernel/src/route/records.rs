//! The decision records of a routing run ([`RouteDecision`], tags [`TAG_ROUTE`] + 0..=6): what
//! [`super::RouteScheduler`] passes to the callback of [`crate::api::Scheduler::on_event`] and writes to
//! the decision log. Floats are canonical ([`crate::num::canon`]).
#[cfg(doc)]
use super::{Policy, RouteScheduler, NONE};
#[cfg(doc)]
use crate::api::Scheduler;
use crate::limits::ROUTE_WORKERS_MAX;
use crate::log::{LogSink, TAG_ROUTE};
use crate::record::log_record;
use serde::{Deserialize, Serialize};

/// Tag of a placement decision record.
pub const TAG_ROUTE_DECISION: u8 = TAG_ROUTE;
/// Tag of a PSO result record (gbest's fitness).
pub const TAG_ROUTE_PSO: u8 = TAG_ROUTE + 1;
/// Tag of an aggregation record (Algorithm 2).
pub const TAG_ROUTE_AGGREGATION: u8 = TAG_ROUTE + 2;
/// Tag of the final summary record.
pub const TAG_ROUTE_SUMMARY: u8 = TAG_ROUTE + 3;
/// Tag of a preemption record (the preemptive Deadline-aware baseline).
pub const TAG_ROUTE_PREEMPT: u8 = TAG_ROUTE + 4;

/// Tag of an open-world interruption record ([`InterruptRec`]).
pub const TAG_ROUTE_INTERRUPT: u8 = TAG_ROUTE + 5;
/// Tag of an open-world server record ([`ServerRec`]).
pub const TAG_ROUTE_SERVER: u8 = TAG_ROUTE + 6;

/// [`InterruptRec::outcome`]: the job queues again (re-planned / restarted).
pub const OUTCOME_RECOVERED: u8 = 0;
/// [`InterruptRec::outcome`]: the job is lost.
pub const OUTCOME_LOST: u8 = 1;
/// [`InterruptRec::outcome`]: the job is cancelled.
pub const OUTCOME_CANCELLED: u8 = 2;

/// An open-world event stopped a job (tag [`TAG_ROUTE_INTERRUPT`], `docs/open-world.md`,
/// "Kind route"): a cancel, a down server or a capacity cut. Its run from `start` (or its
/// reservation) is cut at `at`, its lanes and link bandwidth are given back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptRec {
    /// The job.
    pub job: u32,
    /// The event time.
    pub at: u32,
    /// The server (node index) whose event it was ([`NONE`] for a cancel).
    pub server: u32,
    /// Start of the run that was cut ([`NONE`] if the job held nothing: queued or not arrived).
    pub start: u32,
    /// [`OUTCOME_RECOVERED`], [`OUTCOME_LOST`] or [`OUTCOME_CANCELLED`].
    pub outcome: u8,
    /// Slots of work it queues again with (0 unless recovered): CSRP the rest of its run,
    /// the baselines the whole job.
    pub remaining: u32,
}

/// An open-world server event applied (tag [`TAG_ROUTE_SERVER`]): the node's compute slots
/// in force from `at` on, whether it is down, and the jobs it interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRec {
    /// The node index.
    pub server: u32,
    /// The event time.
    pub at: u32,
    /// Compute slots usable from `at` (0 while down; a PS node has none).
    pub slots: u32,
    /// The capacity it has when up (what `server_up` restores).
    pub capacity: u32,
    /// Down from `at`.
    pub down: bool,
    /// Jobs the event interrupted (each also has an [`InterruptRec`], written before this).
    pub interrupted: u32,
}

/// A running job stopped to make room (tag [`TAG_ROUTE_PREEMPT`]): its run from `start` is
/// cut at `at`, its lanes and link bandwidth are given back and it queues again, to run again
/// in full later (kill and restart, as YARN preempts containers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreemptRec {
    /// The preempted job.
    pub job: u32,
    /// The job it made room for.
    pub by: u32,
    /// Start of the run that was cut.
    pub start: u32,
    /// The event time of the preemption.
    pub at: u32,
}

/// A placement decision (tag [`TAG_ROUTE_DECISION`]): e^r, the compute node of each worker,
/// the hops of its paths, N (eq. 4) and the aggregation node. Floats are canonical.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionRec {
    /// Job index.
    pub job: u32,
    /// [`Policy`] code.
    pub policy: u8,
    /// e^r.
    pub start: u32,
    /// Compute node of each worker.
    pub nodes: heapless::Vec<u32, ROUTE_WORKERS_MAX>,
    /// Links over all its paths.
    pub hops: u32,
    /// N of the job.
    pub network_cost: f64,
    /// e^r + Delta <= e^d.
    pub deadline_met: bool,
    /// Aggregation node ([`NONE`] without).
    pub aggregation: u32,
}

/// The PSO's gbest for one job (tag [`TAG_ROUTE_PSO`]): eq. (11) and its parts (-1 when
/// infeasible).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PsoRec {
    /// Job index.
    pub job: u32,
    /// Eq. (11) of the schedule with gbest.
    pub cost: f64,
    /// Its F-score part.
    pub f_part: f64,
    /// Its network cost.
    pub network: f64,
    /// gbest's start.
    pub start: u32,
}

/// Algorithm 2 on one job (tag [`TAG_ROUTE_AGGREGATION`]): the aggregation node, bandwidth
/// units and N with and without it, and whether it was applied.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AggRec {
    /// Job index.
    pub job: u32,
    /// Aggregation node a.
    pub node: u32,
    /// Its weight (BW_u / C).
    pub weight: f64,
    /// Units of the plain paths.
    pub units_plain: u32,
    /// Units of the aggregated structure.
    pub units_aggregated: u32,
    /// N of the plain paths.
    pub network_plain: f64,
    /// N aggregated.
    pub network_aggregated: f64,
    /// Aggregation applied (no more units and no more N).
    pub applied: bool,
}

log_record!(
    DecisionRec,
    TAG_ROUTE_DECISION,
    "route placement",
    "route.placed"
);
log_record!(PsoRec, TAG_ROUTE_PSO, "route PSO result", "route.pso");
log_record!(
    AggRec,
    TAG_ROUTE_AGGREGATION,
    "route aggregation",
    "route.aggregation"
);
log_record!(
    SummaryRec,
    TAG_ROUTE_SUMMARY,
    "route summary",
    "route.summary"
);
log_record!(
    PreemptRec,
    TAG_ROUTE_PREEMPT,
    "route preemption",
    "route.preempted"
);
log_record!(
    InterruptRec,
    TAG_ROUTE_INTERRUPT,
    "route interruption",
    "route.interrupted"
);
log_record!(
    ServerRec,
    TAG_ROUTE_SERVER,
    "route server event",
    "route.server"
);

/// Every decision record of a routing run, in order (what [`RouteScheduler`] passes to the callback
/// of [`Scheduler::on_event`]).
#[derive(Clone, Debug, PartialEq)]
// Passed by reference to the callback, never stored by the kernel: boxing the large variant
// would allocate in the decision path.
#[allow(clippy::large_enum_variant)]
pub enum RouteDecision {
    /// The PSO result for a job (CSRP).
    Pso(PsoRec),
    /// Algorithm 2 on a job (Aggregated CSRP).
    Aggregation(AggRec),
    /// A job placed.
    Placed(DecisionRec),
    /// The run's summary, once at the end ([`Scheduler::finish`]).
    Summary(SummaryRec),
    /// A running job preempted (the preemptive Deadline-aware baseline only).
    Preempted(PreemptRec),
    /// A job stopped by an open-world event (cancel, server down, capacity cut).
    Interrupted(InterruptRec),
    /// An open-world server event applied.
    Server(ServerRec),
}

impl RouteDecision {
    /// The log tag (0x50 range).
    pub fn tag(&self) -> u8 {
        match self {
            RouteDecision::Pso(_) => TAG_ROUTE_PSO,
            RouteDecision::Aggregation(_) => TAG_ROUTE_AGGREGATION,
            RouteDecision::Placed(_) => TAG_ROUTE_DECISION,
            RouteDecision::Summary(_) => TAG_ROUTE_SUMMARY,
            RouteDecision::Preempted(_) => TAG_ROUTE_PREEMPT,
            RouteDecision::Interrupted(_) => TAG_ROUTE_INTERRUPT,
            RouteDecision::Server(_) => TAG_ROUTE_SERVER,
        }
    }

    /// Records the decision's record body under [`Self::tag`].
    pub fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), crate::log::LogError> {
        match self {
            RouteDecision::Pso(r) => sink.record(self.tag(), r),
            RouteDecision::Aggregation(r) => sink.record(self.tag(), r),
            RouteDecision::Placed(r) => sink.record(self.tag(), r),
            RouteDecision::Summary(r) => sink.record(self.tag(), r),
            RouteDecision::Preempted(r) => sink.record(self.tag(), r),
            RouteDecision::Interrupted(r) => sink.record(self.tag(), r),
            RouteDecision::Server(r) => sink.record(self.tag(), r),
        }
    }
}

impl crate::api::Record for RouteDecision {
    fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), crate::log::LogError> {
        RouteDecision::log(self, sink)
    }
}

/// The summary record (tag [`TAG_ROUTE_SUMMARY`]), floats canonical.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SummaryRec {
    /// Deadline violation rate.
    pub rdv: f64,
    /// Servers used.
    pub servers: u32,
    /// N-bar: average network cost.
    pub n_bar: f64,
    /// The objective.
    pub cost: f64,
}
