//! [`OasisError`]: why an OASiS scheduler cannot be built, restored or run.
use crate::error::CapacityError;

/// Errors of the OASiS scheduler.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OasisError {
    /// A fixed capacity of [`crate::limits`] was exceeded.
    Capacity(CapacityError),
    /// Price bounds are not positive / finite or U < L (eq. 22 needs 0 < L <= U).
    Bounds,
    /// Capacity or demand vectors do not have R entries.
    Shape,
    /// An event named a job index outside the scenario.
    UnknownJob {
        /// the index asked for
        job: u32,
    },
    /// The event's slot is not the job's arrival a_i, or events went back in time.
    EventTime {
        /// the job
        job: u32,
        /// the slot of the event
        now: u32,
    },
    /// A job was fed (arrived) a second time.
    AlreadyDecided {
        /// the job
        job: u32,
    },
    /// The schedule reconstruction did not cover the workload (a bug; never expected).
    Internal,
    /// A decision was asked of a market whose slot trees still owe the last admission's
    /// cells ([`Market::settle`] first).
    Unsettled,
    /// The decision record could not be logged.
    Log(crate::log::LogError),
    /// An open-world event was refused (`crate::world`); nothing changed.
    OpenWorld(crate::world::OpenWorldError),
}

impl From<CapacityError> for OasisError {
    fn from(e: CapacityError) -> Self {
        OasisError::Capacity(e)
    }
}

impl core::fmt::Display for OasisError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            OasisError::Capacity(e) => write!(f, "{e}"),
            OasisError::Bounds => f.write_str("price bounds must satisfy 0 < L <= U, all finite"),
            OasisError::Shape => f.write_str("a capacity or demand vector does not have R entries"),
            OasisError::UnknownJob { job } => write!(f, "job index {job} is not in the scenario"),
            OasisError::EventTime { job, now } => {
                write!(
                    f,
                    "job {job} fed at slot {now}, which is not its arrival slot"
                )
            }
            OasisError::AlreadyDecided { job } => write!(f, "job {job} was already decided"),
            OasisError::Internal => {
                f.write_str("internal error: schedule does not cover the workload")
            }
            OasisError::Unsettled => f.write_str(
                "the market's slot trees owe the last admission's cells: settle it before deciding",
            ),
            OasisError::Log(e) => write!(f, "{e}"),
            OasisError::OpenWorld(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for OasisError {}

impl From<crate::world::OpenWorldError> for OasisError {
    fn from(e: crate::world::OpenWorldError) -> Self {
        OasisError::OpenWorld(e)
    }
}
