//! The open world (issue 46): the events a live cluster adds to the papers' closed world, and
//! the one error every scheduler answers a bad one with.
//!
//! The papers schedule a job set known in advance on servers that never change. A control
//! plane also sees jobs cancelled, servers failing and returning, and capacity changing; those
//! are the [`crate::api::Event`] variants `JobCancelled`, `ServerDown`, `ServerUp` and
//! `Capacity`. A *submission* is not a separate event: the host appends the job to the
//! scheduler (each scheduler's `submit`, which gives it the next index) and feeds
//! `JobArrived(index)` at the submission slot, so a submitted job is decided exactly as the same
//! job listed with that arrival (`docs/open-world.md`, "Submission is arrival").
//!
//! **Server indices.** An open-world event names a server by the kind's server index: the
//! position in the scenario's server list, and for kind `oasis` the worker servers `0..H`
//! followed by the parameter servers `H..H+K` (so `ps<k>` is `H + k`). The document layer maps
//! the `occupancy` ids (`w<i>`, `ps<i>`, `h<i>`, ...) and explicit server `id`s onto it.
//!
//! **The rule every scheduler follows** (each kind's page says how its algorithm recovers):
//! an event is checked completely before it changes anything, so a refused event leaves the
//! scheduler exactly as it was (and [`crate::driver::Driver`] then logs nothing:
//! `DriverError::Refused`); `ServerDown` of a down server, `ServerUp` of an up one, a capacity
//! vector of the wrong length or with a negative or non-finite entry, an unknown server or job,
//! and a cancel of a job that already ended are refused with [`OpenWorldError`].
use crate::resources::ResourceVec;

/// Why a scheduler refused an open-world event. A refused event changes nothing.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenWorldError {
    /// This scheduler does not implement the event (named as in the events file).
    Unsupported {
        /// the event's name (`cancel`, `server_down`, `server_up`, `capacity`, `submit`)
        event: &'static str,
    },
    /// The server index is not one of the scheduler's servers.
    UnknownServer {
        /// the index asked for
        server: u32,
    },
    /// The job index is not one of the scheduler's jobs.
    UnknownJob {
        /// the index asked for
        job: u32,
    },
    /// `ServerDown` of a server that is already down.
    ServerDown {
        /// the server
        server: u32,
    },
    /// `ServerUp` of a server that is up.
    ServerUp {
        /// the server
        server: u32,
    },
    /// A capacity vector without one entry per resource.
    CapacityLength {
        /// the server
        server: u32,
        /// the number of resources R
        expected: u8,
        /// the entries given
        got: u8,
    },
    /// A capacity entry that is negative or not finite.
    CapacityValue {
        /// the server
        server: u32,
        /// the resource r of the bad entry
        resource: u8,
    },
    /// A cancel of a job that has already finished, been rejected, cancelled or lost. (A cancel
    /// of a job that has not arrived yet is accepted: the job never arrives.)
    JobEnded {
        /// the job
        job: u32,
    },
}

impl core::fmt::Display for OpenWorldError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            OpenWorldError::Unsupported { event } => {
                write!(f, "this scheduler does not support the `{event}` event")
            }
            OpenWorldError::UnknownServer { server } => {
                write!(f, "server index {server} is not in the scenario")
            }
            OpenWorldError::UnknownJob { job } => write!(f, "job index {job} is not in the scenario"),
            OpenWorldError::ServerDown { server } => write!(f, "server index {server} is already down"),
            OpenWorldError::ServerUp { server } => write!(f, "server index {server} is up"),
            OpenWorldError::CapacityLength {
                server,
                expected,
                got,
            } => write!(
                f,
                "capacity of server index {server} has {got} entries, the scenario has {expected} resources"
            ),
            OpenWorldError::CapacityValue { server, resource } => write!(
                f,
                "capacity of server index {server}, resource {resource}, is negative or not finite"
            ),
            OpenWorldError::JobEnded { job } => {
                write!(f, "job index {job} is not waiting or running, so it cannot be cancelled")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for OpenWorldError {}

/// Checks a `Capacity` event's vector against R resources: one finite, non-negative entry each.
pub fn check_capacity(
    server: u32,
    capacity: &ResourceVec,
    resources: usize,
) -> Result<(), OpenWorldError> {
    if capacity.len() != resources {
        return Err(OpenWorldError::CapacityLength {
            server,
            expected: resources as u8,
            got: capacity.len() as u8,
        });
    }
    match capacity
        .as_slice()
        .iter()
        .position(|c| !c.is_finite() || *c < 0.0)
    {
        Some(r) => Err(OpenWorldError::CapacityValue {
            server,
            resource: r as u8,
        }),
        None => Ok(()),
    }
}

/// `Ok` for the papers' own events (arrive, advance, finished), [`OpenWorldError::Unsupported`]
/// for an open-world one: what a scheduler without an open-world rule answers.
pub fn closed_world_only<J>(event: &crate::api::Event<J>) -> Result<(), OpenWorldError> {
    use crate::api::Event;
    match event {
        Event::JobArrived(_) | Event::SlotAdvanced | Event::JobFinished(_) => Ok(()),
        ev => Err(OpenWorldError::Unsupported { event: ev.name() }),
    }
}

/// How a job ended, the `status` of its row in every result document (`docs/open-world.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// It did all its work by the end of the run.
    Finished,
    /// It was admitted or is waiting, and was not done by the end of the run.
    Unfinished,
    /// The scheduler refused it (admission control, a deadline it cannot meet, ...).
    Rejected,
    /// The host cancelled it (`JobCancelled`).
    Cancelled,
    /// A failure or a capacity cut interrupted it and it was not recovered.
    Lost,
}

impl Status {
    /// Every status, in the order of their names.
    pub const ALL: [Status; 5] = [
        Status::Cancelled,
        Status::Finished,
        Status::Lost,
        Status::Rejected,
        Status::Unfinished,
    ];

    /// The `status` string of the result documents.
    pub const fn name(self) -> &'static str {
        match self {
            Status::Finished => "finished",
            Status::Unfinished => "unfinished",
            Status::Rejected => "rejected",
            Status::Cancelled => "cancelled",
            Status::Lost => "lost",
        }
    }
}
