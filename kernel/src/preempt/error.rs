//! [`PreemptError`]: why a Wang et al. scheduler cannot be built or run.
use super::plan::PlanError;
use crate::error::{CapacityError, Limit};
use crate::Slot;

/// Errors of the preemptive scheduler.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreemptError {
    /// Building the scheduler would exceed a fixed capacity of [`crate::limits`].
    Capacity(CapacityError),
    /// The decision log refused a record.
    Log(crate::log::LogError),
    /// An open-world event was refused (`crate::world`); nothing changed.
    OpenWorld(crate::world::OpenWorldError),
    /// An event named a job index outside the scenario.
    UnknownJob {
        /// index
        job: u32,
    },
    /// A job was announced in a slot other than its r_j.
    WrongSlot {
        /// index
        job: u32,
        /// r_j
        arrival: Slot,
        /// slot of the event
        now: Slot,
    },
    /// A job was announced (dispatched) a second time.
    AlreadyDispatched {
        /// index
        job: u32,
    },
    /// No worker (edge or cloud) is eligible for a chunk of the job.
    NoEligibleWorker {
        /// index
        job: u32,
    },
    /// An event came with a slot before the previous event's.
    TimeWentBack {
        /// slot of the event
        now: Slot,
    },
}

impl core::fmt::Display for PreemptError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            PreemptError::Capacity(e) => e.fmt(f),
            PreemptError::Log(e) => write!(f, "decision log: {e}"),
            PreemptError::OpenWorld(e) => write!(f, "{e}"),
            PreemptError::UnknownJob { job } => write!(f, "job index {job} is not in the scenario"),
            PreemptError::WrongSlot { job, arrival, now } => write!(
                f,
                "job index {job} arrives at slot {arrival} but was announced at slot {now}"
            ),
            PreemptError::AlreadyDispatched { job } => {
                write!(f, "job index {job} was already dispatched")
            }
            PreemptError::NoEligibleWorker { job } => write!(
                f,
                "job index {job}: no eligible worker (every rate is 0 for this chunk)"
            ),
            PreemptError::TimeWentBack { now } => {
                write!(f, "event at slot {now} is earlier than the previous event")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for PreemptError {}

impl From<PlanError> for PreemptError {
    fn from(e: PlanError) -> Self {
        match e {
            PlanError::TooLong(c) => PreemptError::Capacity(c),
            // Two segments per chunk are reserved and each chunk is placed once.
            PlanError::PoolFull | PlanError::OutOfRange => PreemptError::Capacity(CapacityError {
                limit: Limit::PreemptTotalChunks,
                max: crate::limits::PREEMPT_TOTAL_CHUNKS_MAX as u64,
                got: u64::MAX,
                job: None,
            }),
        }
    }
}

impl From<crate::world::OpenWorldError> for PreemptError {
    fn from(e: crate::world::OpenWorldError) -> Self {
        PreemptError::OpenWorld(e)
    }
}
