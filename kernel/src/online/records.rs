//! The A_online decision records (tags [`TAG_ONLINE_DECISION`], [`TAG_ONLINE_PLACED`] and
//! [`TAG_ONLINE_INTERRUPTED`]) and
//! [`OnlineDecision`], what [`super::OnlineScheduler`] passes out per decision.
use super::OnlineJobDecision;
use crate::log::{LogError, LogSink, TAG_ONLINE};
use crate::num::canon;
use crate::record::{log_record, LogRecord};
use serde::{Deserialize, Serialize};

/// Tag of a [`DecisionRec`].
pub const TAG_ONLINE_DECISION: u8 = TAG_ONLINE + 1;
/// Tag of a [`PlacedRec`].
pub const TAG_ONLINE_PLACED: u8 = TAG_ONLINE + 2;

/// Tag of an [`InterruptRec`].
pub const TAG_ONLINE_INTERRUPTED: u8 = TAG_ONLINE + 3;

/// [`InterruptRec::cause`]: the host cancelled the job.
pub const CAUSE_CANCEL: u8 = 0;
/// [`InterruptRec::cause`]: a server the job held went down.
pub const CAUSE_DOWN: u8 = 1;
/// [`InterruptRec::cause`]: a capacity cut on a server the job held.
pub const CAUSE_CAPACITY: u8 = 2;

/// Decision-log record (tag [`TAG_ONLINE_INTERRUPTED`]): an open-world event stopped a job at
/// `slot` (`docs/open-world.md`, "Kind online"). Its reservations from `slot` on are released;
/// when `requeued`, the rest of its work waits for the next round as a job arriving at `slot`
/// (its later decision records are its recovery; never admitted again, it is lost).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptRec {
    /// The event's slot T.
    pub slot: u32,
    /// job j
    pub job: u32,
    /// The server whose failure or capacity cut interrupted it (`u32::MAX` for a cancel).
    pub server: u32,
    /// [`CAUSE_CANCEL`], [`CAUSE_DOWN`] or [`CAUSE_CAPACITY`].
    pub cause: u8,
    /// Slots of its schedule run before T.
    pub done_slots: u32,
    /// Requeued: the mini-batches per chunk left (E' K', with E' = 1); cancel: the slots of its
    /// schedule it gave up.
    pub remaining: u32,
    /// The rest of the work waits for the next round (false for a cancel).
    pub requeued: bool,
}

/// Decision-log record (tag [`TAG_ONLINE_DECISION`]): one per A_maxweight decision.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionRec {
    /// job j
    pub job: u32,
    /// round i
    pub round: u32,
    /// A_dual round iota
    pub iota: u32,
    /// a schedule exists
    pub feasible: bool,
    /// u_j > 0
    pub scheduled: bool,
    /// q_j
    pub colocated: bool,
    /// m
    pub worker_type: u32,
    /// p (`u32::MAX` for none)
    pub ps_type: u32,
    /// t_j
    pub start: u32,
    /// d_j
    pub duration: u32,
    /// workers
    pub workers: u32,
    /// cost
    pub cost: f64,
    /// u_j
    pub utility: f64,
}

/// Decision-log record (tag [`TAG_ONLINE_PLACED`]): one per server of a scheduled job.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacedRec {
    /// job j
    pub job: u32,
    /// server h
    pub server: u32,
    /// y_jhm
    pub workers: u32,
    /// s_jhp
    pub ps: u32,
}

log_record!(
    DecisionRec,
    TAG_ONLINE_DECISION,
    "online decision",
    "online.decision"
);
log_record!(
    PlacedRec,
    TAG_ONLINE_PLACED,
    "online placement",
    "online.placed"
);
log_record!(
    InterruptRec,
    TAG_ONLINE_INTERRUPTED,
    "online interruption",
    "online.interrupted"
);

/// One A_online decision record: an A_maxweight decision (tag [`TAG_ONLINE_DECISION`]), then,
/// if scheduled, one record per server of its placement (tag [`TAG_ONLINE_PLACED`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OnlineDecision<'a> {
    /// The decision with its explanation (logged as a [`DecisionRec`]).
    Decision(&'a OnlineJobDecision),
    /// One server of a scheduled job's placement.
    Placed(PlacedRec),
    /// An open-world event stopped a job (cancel, server down, capacity cut).
    Interrupted(InterruptRec),
}

impl crate::api::Record for OnlineDecision<'_> {
    fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), LogError> {
        match self {
            OnlineDecision::Decision(d) => sink.record(DecisionRec::TAG, &DecisionRec::from(*d)),
            OnlineDecision::Placed(p) => sink.record(PlacedRec::TAG, p),
            OnlineDecision::Interrupted(x) => sink.record(InterruptRec::TAG, x),
        }
    }
}

impl From<&OnlineJobDecision> for DecisionRec {
    fn from(d: &OnlineJobDecision) -> Self {
        DecisionRec {
            job: d.job,
            round: d.round,
            iota: d.iota,
            feasible: d.feasible,
            scheduled: d.scheduled,
            colocated: d.colocated,
            worker_type: d.worker_type,
            ps_type: d.ps_type.unwrap_or(u32::MAX),
            start: d.start,
            duration: d.duration,
            workers: d.workers,
            cost: canon(d.cost),
            utility: canon(d.utility),
        }
    }
}

/// Records one decision (and its placement when scheduled) into `sink`: the records
/// [`OnlineDecision`] yields for it.
pub fn log_decision<S: LogSink>(sink: &mut S, d: &OnlineJobDecision) -> Result<(), LogError> {
    use crate::api::Record;
    let mut failed = Ok(());
    emit(d, &mut |o: &OnlineDecision<'_>| {
        if failed.is_ok() {
            failed = o.log(sink);
        }
    });
    failed
}

/// Passes a decision and (if scheduled) its placement records to `out`.
pub(super) fn emit<F: FnMut(&OnlineDecision<'_>) + ?Sized>(d: &OnlineJobDecision, out: &mut F) {
    out(&OnlineDecision::Decision(d));
    if d.scheduled {
        for p in d.placement.iter() {
            out(&OnlineDecision::Placed(PlacedRec {
                job: d.job,
                server: p.server,
                workers: p.workers,
                ps: p.ps,
            }));
        }
    }
}
