//! CSRP and Aggregated CSRP (Song et al. 2023): job start times, compute nodes and network paths
//! chosen by a binary particle swarm (eqs. 12-16) that minimises the objective (11), plus the
//! paper's comparison schedulers (FIFO, Fair, Capacity-like, Deadline-aware, with and without
//! preemption).
//!
//! | module | what |
//! |---|---|
//! | [`graph`] | fixed-capacity topology G = (V, E): CSR adjacency, link capacity C and used bandwidth BW_u |
//! | [`dijkstra`] | Dijkstra with a binary heap and total tie-breaks (+ the O(V^2) reference) |
//! | [`cost`] | eqs. (1)-(5) and (11), the lexicographic [`cost::Fitness`] |
//! | [`pso`] | binary PSO: inertia (13), velocity (14), sigmoid (15), position (16) |
//! | [`aggregate`] | Algorithm 2: aggregation node and aggregated paths |
//! | [`topo`] | k-ary fat-tree and Jupiter-like Clos generators |
//! | `scheduler` | [`RouteScheduler`]: the event-driven run of CSRP / Aggregated CSRP and the baselines, its [`crate::api::Scheduler`] impl |
//! | `tables` | tables built once from the scenario (hop trees per PS, release order, shares) |
//! | `lanes` | compute slots as lanes with a "free from" time |
//! | `policy` | [`Policy`]: queue order and which job is tried next |
//! | `preempt` | the preemptive Deadline-aware baseline: which running jobs make room, and how |
//! | `csrp` | CSRP (Algorithm 1) for one job: candidates, PSO, particle decoding |
//! | `baseline` | how the comparison schedulers place a job (nearest nodes, hop-shortest paths) |
//! | `commit` | a decided job's lanes, paths, links, totals; Algorithm 2 on its paths |
//! | [`records`] | the decision records ([`RouteDecision`]) |
//! | `outcome` | [`RouteOutcome`], [`JobPlan`], [`RouteSummary`] |
//! | `snapshot` | [`RouteState`] and the [`crate::snapshot::Snapshot`] impl |
//! | `error` | [`RouteError`] |
//! | `world` | the open world: cancel, server down / up, capacity, status (`docs/open-world.md`) |
//! | `submit` | the open world's submissions: a job appended, the tables extended |
//! | `reference` | (feature `reference`) eqs. (1)-(5) and (11) recomputed from a schedule's sets |
//!
//! Readings (`docs/route.md`): BW_b of eq. (5) is the **used**
//! bandwidth of the bottleneck link; eq. (11) is compared lexicographically
//! (cost, F-score part, network cost, start). Everything is deterministic given the seed
//! ([`crate::rng::SplitMix64`]); decision paths allocate nothing (scratch is built once).
pub mod aggregate;
mod baseline;
mod commit;
pub mod cost;
mod csrp;
pub mod dijkstra;
mod error;
pub mod graph;
mod lanes;
mod outcome;
mod policy;
mod preempt;
pub mod pso;
pub mod records;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod scheduler;
mod scratch;
mod snapshot;
mod submit;
mod tables;
pub mod topo;
mod world;
#[cfg(test)]
mod world_tests;

pub use error::RouteError;
pub use outcome::{JobPlan, RouteOutcome, RouteSummary};
pub use policy::Policy;
pub use preempt::PREEMPT_RERUNS;
pub use records::{
    AggRec, DecisionRec, InterruptRec, PreemptRec, PsoRec, RouteDecision, ServerRec, SummaryRec,
    TAG_ROUTE_AGGREGATION, TAG_ROUTE_DECISION, TAG_ROUTE_INTERRUPT, TAG_ROUTE_PREEMPT,
    TAG_ROUTE_PSO, TAG_ROUTE_SERVER, TAG_ROUTE_SUMMARY,
};
pub use scheduler::{pso_work, RouteScheduler};
pub use snapshot::RouteState;
// The sibling modules name the absent node `NONE` (`use super::NONE`).
use crate::index::NONE;

/// The former home of the router (before the per-idea split): the same items, re-exported.
pub mod sim {
    pub use super::records::*;
    pub use super::{JobPlan, Policy, RouteOutcome, RouteScheduler, RouteState, RouteSummary};
}

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
pub use crate::limits::PATH_NODES_MAX;
/// Velocity clamp |v| <= V_MAX of the binary PSO (Kennedy & Eberhart 1997; the paper is silent).
pub const V_MAX: f64 = 4.0;
