//! [`OnlineError`]: why a Zhou et al. scheduler cannot be built, restored or run.
use crate::error::CapacityError;
use crate::log::LogError;

/// Errors of the Zhou et al. scheduler.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnlineError {
    /// A build limit was exceeded.
    Capacity(CapacityError),
    /// A decision record could not be written.
    Log(LogError),
    /// An open-world event was refused (`crate::world`); nothing changed.
    OpenWorld(crate::world::OpenWorldError),
    /// The model is inconsistent (e.g. a job's `minibatch_time` has the wrong length).
    Model {
        /// what is wrong
        what: &'static str,
        /// the job, server or type index
        index: u32,
    },
    /// `JobArrived` named a job outside the scenario.
    UnknownJob {
        /// the index given
        job: u32,
    },
    /// `JobArrived` for a job that already arrived.
    DuplicateArrival {
        /// the job index
        job: u32,
    },
    /// An event came with a slot before the previous event's.
    TimeWentBack {
        /// the slot given
        now: u32,
        /// the previous slot
        last: u32,
    },
}

impl core::fmt::Display for OnlineError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            OnlineError::Capacity(e) => e.fmt(f),
            OnlineError::Log(e) => write!(f, "decision log: {e}"),
            OnlineError::OpenWorld(e) => write!(f, "{e}"),
            OnlineError::Model { what, index } => write!(f, "{what} (index {index})"),
            OnlineError::UnknownJob { job } => write!(f, "job index {job} is not in the scenario"),
            OnlineError::DuplicateArrival { job } => write!(f, "job index {job} arrived twice"),
            OnlineError::TimeWentBack { now, last } => {
                write!(f, "event at slot {now} after an event at slot {last}")
            }
        }
    }
}

impl From<CapacityError> for OnlineError {
    fn from(e: CapacityError) -> Self {
        OnlineError::Capacity(e)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for OnlineError {}

impl From<crate::world::OpenWorldError> for OnlineError {
    fn from(e: crate::world::OpenWorldError) -> Self {
        OnlineError::OpenWorld(e)
    }
}
