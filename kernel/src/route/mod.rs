//! CSRP and Aggregated CSRP (Song et al. 2023): job start times, compute nodes and network paths
//! chosen by a binary particle swarm (eqs. 12-16) that minimises the objective (11), plus the
//! paper's comparison schedulers (FIFO, Fair, Capacity-like, Deadline-aware).
//!
//! | module | what |
//! |---|---|
//! | [`graph`] | fixed-capacity topology G = (V, E): CSR adjacency, link capacity C and used bandwidth BW_u |
//! | [`dijkstra`] | Dijkstra with a binary heap and total tie-breaks (+ the O(V^2) reference) |
//! | [`cost`] | eqs. (1)-(5) and (11), the lexicographic [`cost::Fitness`] |
//! | [`pso`] | binary PSO: inertia (13), velocity (14), sigmoid (15), position (16) |
//! | [`aggregate`] | Algorithm 2: aggregation node and aggregated paths |
//! | [`topo`] | k-ary fat-tree and Jupiter-like Clos generators |
//! | [`sim`] | the event-driven run of CSRP / Aggregated CSRP and the baselines |
//!
//! Readings (design.md section 7, reconstructions.md "CSRP"): BW_b of eq. (5) is the **used**
//! bandwidth of the bottleneck link; eq. (11) is compared lexicographically
//! (cost, F-score part, network cost, start). Everything is deterministic given the seed
//! ([`crate::rng::SplitMix64`]); decision paths allocate nothing (scratch is built once).
use core::fmt;

pub mod aggregate;
pub mod cost;
pub mod dijkstra;
pub mod graph;
pub mod pso;
pub mod sim;
pub mod topo;

pub use sim::{
    AggRec, DecisionRec, JobPlan, Policy, PsoRec, RouteDecision, RouteOutcome, RouteSummary,
    Router, RouterState,
};

/// Bits of the particle's start dimension p_{i0} (eq. 12): the start is `now + delta`,
/// delta in `0..2^START_BITS`.
pub const START_BITS: usize = 3;
/// Bits choosing a worker's compute node among the first [`NODE_CHOICES`] candidates.
pub const NODE_BITS: usize = 4;
/// Candidate compute nodes a particle chooses among (2^[`NODE_BITS`]).
pub const NODE_CHOICES: usize = 1 << NODE_BITS;
/// Hop dimensions p_{i1..ih} per worker path (eq. 12): bit 1 = next hop on the least-loaded
/// tree, 0 = on the hop-shortest tree. Hops beyond these follow the hop-shortest tree.
pub const HOP_BITS: usize = 8;
/// Dimensions of one worker in a particle.
pub const WORKER_DIMS: usize = NODE_BITS + HOP_BITS;
/// Nodes of one routed path (PS .. compute node), loop-erased; longer paths are refused.
pub const PATH_NODES_MAX: usize = 64;
/// Velocity clamp |v| <= V_MAX of the binary PSO (Kennedy & Eberhart 1997; the paper is silent).
pub const V_MAX: f64 = 4.0;
/// "No node" marker in predecessor arrays and records.
pub const NONE: u32 = u32::MAX;

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
                "job {job}: a path would exceed PATH_NODES_MAX = {PATH_NODES_MAX} nodes"
            ),
            RouteError::Scratch => f.write_str("internal scratch buffer too small"),
            RouteError::Log(e) => write!(f, "{e}"),
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
