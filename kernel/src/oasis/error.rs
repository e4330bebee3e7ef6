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
    /// A submitted job would need price bounds outside those in force (`docs/open-world.md`,
    /// "Kind oasis"). With derived bounds (no scenario `prices`), eqs. (23)-(26) take a max
    /// (U1^r, U2^r: the best utility per unit demand) and a min (L1, L2: the horizon utility
    /// per unit work, over eta) over the whole job set; the bounds in force are those of the
    /// initial jobs, so a submission whose own terms would raise a U or lower an L would be
    /// priced differently than the closed-world scenario holding it: it is refused and
    /// nothing changes. `bound` is the first that would move, checked in the order
    /// `L1`, `L2`, `U1`, `U2` (a lower L also raises a U that was lifted to L).
    OutsideBounds {
        /// the index the job would have had
        job: u32,
        /// `L1` (eq. 25), `L2` (eq. 26), `U1` (eq. 23) or `U2` (eq. 24)
        bound: &'static str,
    },
    /// A submission to a scheduler without price bounds: the scenario has neither `prices`
    /// nor an initial job to derive them from (eqs. 23-26); give `prices`.
    NoPriceBounds,
    /// A capacity event above the server's capacity at the build: eq. (22) prices a
    /// resource by the share of the build capacity c_h^r in use, so the capacity in force is
    /// kept between 0 and it.
    CapacityAboveBuild {
        /// the server (kernel server index)
        server: u32,
        /// the resource r
        resource: u8,
    },
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
            OasisError::OutsideBounds { job, bound } => write!(
                f,
                "submitted job {job} would need the price bound {bound} outside the one derived \
                 from the initial jobs (eqs. 23-26); give \"prices\" in the scenario"
            ),
            OasisError::NoPriceBounds => f.write_str(
                "no price bounds: the scenario has no \"prices\" and no initial job to derive them from",
            ),
            OasisError::CapacityAboveBuild { server, resource } => write!(
                f,
                "capacity of server index {server}, resource {resource}, is above its capacity at the build"
            ),
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
