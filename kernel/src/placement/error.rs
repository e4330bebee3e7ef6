//! Refusals of the placement algorithms (Liu et al.).
use crate::error::{CapacityError, Limit};
use crate::log::LogError;
use core::fmt;

/// Why a placement run was refused.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementError {
    /// K < S: the paper assumes K >= S (footnote 3) so every job gets a worker.
    FewerWorkersThanJobs {
        /// K
        workers: u32,
        /// S
        jobs: u32,
    },
    /// abs(Psi) = C(K-1, S-1) does not fit in 64 bits.
    CategoryCountOverflow {
        /// K
        workers: u32,
        /// S
        jobs: u32,
    },
    /// A category index n >= abs(Psi).
    CategoryIndex {
        /// the index asked for
        index: u64,
        /// abs(Psi)
        count: u64,
    },
    /// Exhaustive search would enumerate more worker assignments than the build allows.
    ExhaustiveTooLarge {
        /// S
        jobs: u32,
        /// K
        workers: u32,
        /// S^K (saturated at u64::MAX)
        assignments: u64,
        /// [`crate::limits::PLACEMENT_EXHAUSTIVE_MAX`]
        max: u64,
    },
    /// A throughput row does not have one entry per worker.
    ThroughputShape {
        /// job index i
        job: u32,
    },
    /// A throughput rho_ij is not a finite number in 0..=[`crate::limits::THROUGHPUT_MAX`].
    ThroughputValue {
        /// job index i
        job: u32,
        /// worker index j
        worker: u32,
    },
    /// A submitted job's `samples` or `epochs` is not a finite number > 0, or its
    /// `model_bytes` not a finite number >= 0 (the scenario's own checks).
    JobValue {
        /// the index the job would have had
        job: u32,
        /// the field
        field: &'static str,
    },
    /// A fixed capacity of [`crate::limits`] was exceeded.
    Capacity(CapacityError),
    /// The decision log refused a record.
    Log(LogError),
    /// An open-world event was refused (`crate::world`); nothing changed.
    OpenWorld(crate::world::OpenWorldError),
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PlacementError::FewerWorkersThanJobs { workers, jobs } => write!(
                f,
                "{jobs} jobs need at least as many workers, got {workers} (K < S)"
            ),
            PlacementError::CategoryCountOverflow { workers, jobs } => write!(
                f,
                "the number of categories C({} - 1, {} - 1) for K = {workers}, S = {jobs} exceeds 2^64",
                workers, jobs
            ),
            PlacementError::CategoryIndex { index, count } => {
                write!(f, "category index {index} is outside Psi (abs(Psi) = {count})")
            }
            PlacementError::ExhaustiveTooLarge { jobs, workers, assignments, max } => write!(
                f,
                "exhaustive search would enumerate S^K = {jobs}^{workers} = {assignments}{} worker assignments; this build allows at most {max} ({}): use method \"has\" or \"exact\"",
                if assignments == u64::MAX { "+" } else { "" },
                Limit::PlacementExhaustive.name()
            ),
            PlacementError::ThroughputShape { job } => {
                write!(f, "job {job}: throughput needs one entry per worker")
            }
            PlacementError::ThroughputValue { job, worker } => write!(
                f,
                "job {job}: throughput[{worker}] must be finite and in 0..={:e} ({})",
                crate::limits::THROUGHPUT_MAX,
                Limit::Throughput.name()
            ),
            PlacementError::JobValue { job, field } => write!(
                f,
                "job {job}: {field} must be a finite number {}",
                if field == "model_bytes" { ">= 0" } else { "> 0" }
            ),
            PlacementError::Capacity(e) => e.fmt(f),
            PlacementError::Log(e) => e.fmt(f),
            PlacementError::OpenWorld(e) => write!(f, "{e}"),
        }
    }
}

impl From<CapacityError> for PlacementError {
    fn from(e: CapacityError) -> Self {
        PlacementError::Capacity(e)
    }
}

impl From<LogError> for PlacementError {
    fn from(e: LogError) -> Self {
        PlacementError::Log(e)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for PlacementError {}

impl From<crate::world::OpenWorldError> for PlacementError {
    fn from(e: crate::world::OpenWorldError) -> Self {
        PlacementError::OpenWorld(e)
    }
}
