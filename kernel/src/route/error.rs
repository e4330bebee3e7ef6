//! [`RouteError`]: why a routing run was refused.
use super::{NONE, PATH_NODES_MAX};
use crate::error::Limit;
use core::fmt;

/// Why a routing run was refused.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RouteError {
    /// A fixed capacity was exceeded.
    Capacity(crate::CapacityError),
    /// A link names a node index outside the topology.
    BadLink {
        /// link index
        link: u32,
    },
    /// A job's PS index is not a PS node.
    BadPs {
        /// job index
        job: u32,
    },
    /// A job asks for more workers than the compute slots reachable from its PS.
    Unreachable {
        /// job index
        job: u32,
        /// workers asked for
        workers: u32,
        /// compute slots reachable from the PS
        reachable: u32,
    },
    /// A path would exceed [`PATH_NODES_MAX`] nodes.
    PathTooLong {
        /// job index
        job: u32,
    },
    /// Scratch sized at build time was too small (an internal invariant; never expected).
    Scratch,
    /// The decision log refused a record.
    Log(crate::log::LogError),
    /// An open-world event was refused (`crate::world`); nothing changed.
    OpenWorld(crate::world::OpenWorldError),
    /// An event named a job index outside the scenario.
    UnknownJob {
        /// index given
        job: u32,
    },
    /// A job was released twice.
    AlreadyReleased {
        /// job index
        job: u32,
    },
    /// An event came before the previous one, or a job before its release time.
    EventTime {
        /// job index ([`NONE`] for a clock event)
        job: u32,
        /// slot of the event
        now: u32,
    },
}

impl fmt::Display for RouteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RouteError::Capacity(e) => write!(f, "{e}"),
            RouteError::BadLink { link } => write!(f, "link {link} names an unknown node"),
            RouteError::BadPs { job } => write!(f, "job {job}: its ps is not a ps node"),
            RouteError::Unreachable {
                job,
                workers,
                reachable,
            } => write!(
                f,
                "job {job} needs {workers} compute slots but only {reachable} are reachable from its ps"
            ),
            RouteError::PathTooLong { job } => write!(
                f,
                "job {job}: a path would exceed {} = {PATH_NODES_MAX} nodes",
                Limit::PathNodes.name()
            ),
            RouteError::Scratch => f.write_str("internal scratch buffer too small"),
            RouteError::Log(e) => write!(f, "{e}"),
            RouteError::OpenWorld(e) => write!(f, "{e}"),
            RouteError::UnknownJob { job } => write!(f, "job index {job} is not in the scenario"),
            RouteError::AlreadyReleased { job } => write!(f, "job index {job} was released twice"),
            RouteError::EventTime { job, now } if job == NONE => {
                write!(f, "event at slot {now} is earlier than the previous event")
            }
            RouteError::EventTime { job, now } => write!(
                f,
                "job index {job} released at slot {now}, before its release time or the previous event"
            ),
        }
    }
}

impl From<crate::CapacityError> for RouteError {
    fn from(e: crate::CapacityError) -> Self {
        RouteError::Capacity(e)
    }
}

impl From<crate::log::LogError> for RouteError {
    fn from(e: crate::log::LogError) -> Self {
        RouteError::Log(e)
    }
}

impl From<crate::world::OpenWorldError> for RouteError {
    fn from(e: crate::world::OpenWorldError) -> Self {
        RouteError::OpenWorld(e)
    }
}
