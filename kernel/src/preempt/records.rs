//! The Wang et al. decision records (tag range 0x40: [`TAG_CANDIDATE`], [`TAG_DISPATCH`],
//! [`TAG_PS`], [`TAG_PS_MISS`], and for the open world [`TAG_INTERRUPT`]) and
//! [`PreemptDecision`], every decision the scheduler makes.
use crate::log::TAG_PREEMPT;
use crate::record::log_record;
use crate::Slot;
use serde::{Deserialize, Serialize};

/// Tag of a [`CandidateRec`] (one entry of C_j).
pub const TAG_CANDIDATE: u8 = TAG_PREEMPT;
/// Tag of a [`DispatchRec`].
pub const TAG_DISPATCH: u8 = TAG_PREEMPT + 1;
/// Tag of a [`PsRec`].
pub const TAG_PS: u8 = TAG_PREEMPT + 2;
/// Tag of a [`PsMissRec`].
pub const TAG_PS_MISS: u8 = TAG_PREEMPT + 3;

/// Tag of an [`InterruptRec`] (open world).
pub const TAG_INTERRUPT: u8 = TAG_PREEMPT + 4;

/// What made an open-world record (`docs/open-world.md`, "Kind preempt").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cause {
    /// `JobCancelled`: the chunk's remaining slots are dropped.
    Cancel,
    /// `ServerDown` of the chunk's edge server.
    ServerDown,
    /// `Capacity` cut the chunk's worker.
    Capacity,
    /// The job arrived when no worker that is on (nor the cloud) can train it.
    Arrival,
}

impl Cause {
    /// Its name in a decoded record (`mlsched replay`, `mlsched export`): `cancel`,
    /// `server_down`, `capacity`, `arrival`.
    pub fn name(self) -> &'static str {
        match self {
            Cause::Cancel => "cancel",
            Cause::ServerDown => "server_down",
            Cause::Capacity => "capacity",
            Cause::Arrival => "arrival",
        }
    }
}

/// How an open-world record ends for its job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// The chunk is re-dispatched (the dispatch records follow) and restarts from scratch.
    Recovered,
    /// No worker that is on (nor the cloud) can train it: the job is lost.
    Lost,
    /// The job was cancelled.
    Cancelled,
    /// The job is rejected on arrival.
    Rejected,
}

impl Outcome {
    /// Its name in a decoded record: `recovered`, `lost`, `cancelled`, `rejected`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Recovered => "recovered",
            Outcome::Lost => "lost",
            Outcome::Cancelled => "cancelled",
            Outcome::Rejected => "rejected",
        }
    }
}

/// An open-world consequence for one chunk of `job` at `slot`: its planned slots from `slot` on
/// were removed from `server`/`worker` (for [`Cause::Arrival`]: chunk, server and worker are 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptRec {
    /// Slot of the event.
    pub slot: Slot,
    /// Job index.
    pub job: u32,
    /// Chunk d (0-based).
    pub chunk: u32,
    /// Server s the chunk was on.
    pub server: u32,
    /// Worker w it was on (the cloud: its fresh worker's number).
    pub worker: u32,
    /// On the cloud.
    pub cloud: bool,
    /// Why.
    pub cause: Cause,
    /// What became of the job.
    pub outcome: Outcome,
}

/// One entry of C_j (Algorithm 2, lines 3-8): Q of chunk 1 of `job` on one candidate worker.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CandidateRec {
    /// Job index.
    pub job: u32,
    /// Server s.
    pub server: u32,
    /// Worker w (0 for the cloud).
    pub worker: u32,
    /// Q_jd1sw.
    pub q: f64,
    /// t* on that worker.
    pub t_star: Slot,
}

/// One chunk's dispatch y_jdsw: where it goes, its Q (alpha_jd) and why.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DispatchRec {
    /// Job index.
    pub job: u32,
    /// Chunk d (0-based).
    pub chunk: u32,
    /// Server s*.
    pub server: u32,
    /// Worker w* (on the cloud: the fresh worker's number).
    pub worker: u32,
    /// True on the cloud.
    pub cloud: bool,
    /// zeta_j as decided so far.
    pub zeta: bool,
    /// alpha_jd: the chosen Q (the minimum of C_j).
    pub q: f64,
    /// The chosen worker's Q recomputed after placing (the only entry of C_j that changes;
    /// +inf on the cloud, which takes the rest of the job).
    pub q_next: f64,
    /// First slot t*.
    pub start: Slot,
    /// Slots ceil(p_jdsw).
    pub len: u32,
    /// Chunks of other jobs split (preempted) by this placement.
    pub preempted: u32,
}

/// z_jsp(t) = 1: `job` uses PS `ps` of `server` in `slot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PsRec {
    /// Slot t.
    pub slot: Slot,
    /// Job index.
    pub job: u32,
    /// Server s.
    pub server: u32,
    /// PS p on s.
    pub ps: u32,
    /// Kept from slot t - 1 (Algorithm 5, line 3).
    pub kept: bool,
}

/// A running job found no free eligible PS in `slot` (counted, not hidden).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PsMissRec {
    /// Slot t.
    pub slot: Slot,
    /// Job index.
    pub job: u32,
}

log_record!(
    CandidateRec,
    TAG_CANDIDATE,
    "preempt candidate",
    "preempt.candidate"
);
log_record!(
    DispatchRec,
    TAG_DISPATCH,
    "preempt dispatch",
    "preempt.dispatch"
);
log_record!(PsRec, TAG_PS, "preempt PS", "preempt.ps");
log_record!(PsMissRec, TAG_PS_MISS, "preempt PS miss", "preempt.ps_miss");
log_record!(
    InterruptRec,
    TAG_INTERRUPT,
    "preempt interruption",
    "preempt.interrupt"
);

/// Every decision the scheduler makes, in order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum PreemptDecision {
    /// An entry of C_j (explanation of the dispatches that follow).
    Candidate(CandidateRec),
    /// A chunk placed.
    Dispatch(DispatchRec),
    /// A PS assigned for one slot.
    Ps(PsRec),
    /// No PS available.
    PsMiss(PsMissRec),
    /// Open world: a chunk interrupted, dropped or a job rejected.
    Interrupt(InterruptRec),
}

impl PreemptDecision {
    /// The log tag (0x40 range).
    pub fn tag(&self) -> u8 {
        match self {
            PreemptDecision::Candidate(_) => TAG_CANDIDATE,
            PreemptDecision::Dispatch(_) => TAG_DISPATCH,
            PreemptDecision::Ps(_) => TAG_PS,
            PreemptDecision::PsMiss(_) => TAG_PS_MISS,
            PreemptDecision::Interrupt(_) => TAG_INTERRUPT,
        }
    }

    /// Records the decision (its record body only, floats canonical) in `sink` under [`Self::tag`].
    pub fn log<S: crate::log::LogSink>(&self, sink: &mut S) -> Result<(), crate::log::LogError> {
        use crate::num::canon;
        match *self {
            PreemptDecision::Candidate(mut r) => {
                r.q = canon(r.q);
                sink.record(self.tag(), &r)
            }
            PreemptDecision::Dispatch(mut r) => {
                r.q = canon(r.q);
                r.q_next = canon(r.q_next);
                sink.record(self.tag(), &r)
            }
            PreemptDecision::Ps(r) => sink.record(self.tag(), &r),
            PreemptDecision::PsMiss(r) => sink.record(self.tag(), &r),
            PreemptDecision::Interrupt(r) => sink.record(self.tag(), &r),
        }
    }
}

impl crate::api::Record for PreemptDecision {
    fn log<S: crate::log::LogSink>(&self, sink: &mut S) -> Result<(), crate::log::LogError> {
        PreemptDecision::log(self, sink)
    }
}
