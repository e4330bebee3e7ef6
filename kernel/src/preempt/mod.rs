//! Preemptive edge-cloud chunk scheduling (Wang et al. 2022, "Preemptive Scheduling for
//! Distributed Machine Learning Jobs in Edge-Cloud Networks"), kind `"preempt"`.
//!
//! A job j arriving at r_j has D_j data chunks; each chunk trains E_j B_j mini-batches on one
//! worker, p_jdsw = E_j B_j / n_jsw slots, occupying ceil(p) whole slots. Per slot (A_online,
//! Algorithm 1): the jobs arriving now are dispatched chunk by chunk by [`Policy::Greedy`]
//! (A_greedy, Algorithm 2: argmin of Q, eq. 5), then A_ps (Algorithm 5) gives every job running
//! in this slot one parameter server.
//!
//! Semantics (`docs/preempt.md`, with our reading of the listings):
//! - edge worker plans run highest gamma first, preemptively at slot granularity: a new chunk
//!   runs in [t*, t* + ceil(p)), t* = max(end of the last A1 chunk, t0), t0 = r_j + Delta_js, and
//!   every planned slot >= t* of the lower-gamma chunks (A2) moves ceil(p) slots later;
//! - the cloud has unlimited workers (a fresh one per chunk, no queue): Q = Delta/D + p/D;
//!   zeta_j = 1 (rate without the 2q/b term) only when chunk 1 already picks the cloud;
//! - exact greedy: the candidate Q-values C_j are computed once per job; after a chunk lands on
//!   a worker only that worker's entry is recomputed (no other plan changed).
//!
//! [`PreemptScheduler`] implements [`crate::api::Scheduler`]; [`run_all`] drives it over a whole
//! scenario. Decisions are [`PreemptDecision`]s, each with its log tag (range 0x40).
//! Randomness (A_ps, random dispatch): [`crate::rng::SplitMix64`] seeded from the scenario.
//!
//! | file | what |
//! |---|---|
//! | `scheduler` | `PreemptScheduler`: A_online (Algorithm 1) with A_greedy / A_ps or a baseline dispatch |
//! | `dispatch` | A_greedy (Algorithms 2-3, eq. 5) and the baseline dispatch rules |
//! | `plan` | per-worker plans y_jdsw(t) as sorted slot segments and the fast Q of eq. (5) |
//! | `ps` | A_ps (Algorithm 5): one parameter server per running job per slot |
//! | `records` | the decision records (tag range 0x40) and `PreemptDecision` |
//! | `snapshot` | snapshots of the scheduler |
//! | `world` | the open world: submit, cancel, server down/up, capacity, job status |
//! | `error` | `PreemptError` |
//! | `reference` | (feature `reference`) plans as slot arrays y_jdsw(t) and Q recomputed from them |
mod dispatch;
mod error;
pub mod plan;
mod ps;
mod records;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod scheduler;
mod snapshot;
mod world;
#[cfg(test)]
mod world_tests;

pub use error::PreemptError;
pub use records::{
    CandidateRec, Cause, DispatchRec, InterruptRec, Outcome, PreemptDecision, PsMissRec, PsRec,
    TAG_CANDIDATE, TAG_DISPATCH, TAG_INTERRUPT, TAG_PS, TAG_PS_MISS,
};
use scheduler::Cand;
pub use scheduler::{run_all, Placement, PreemptScheduler};

use serde::{Deserialize, Serialize};

/// Which dispatch rule runs (worker plans and A_ps are the same for all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Policy {
    /// A_greedy (the paper): argmin of Q (eq. 5), preemptive highest-gamma-first plans.
    Greedy,
    /// Every chunk on the cloud with zeta_j = 1.
    AllCloud,
    /// Nearest edge server (smallest Delta_js, ties lowest index), its worker that frees
    /// earliest, appended without preemption; the cloud only if no edge worker is eligible.
    EdgeFifo,
    /// Each chunk on a uniformly random eligible worker (edge or cloud) with the seeded PRNG;
    /// edge plans stay preemptive highest-gamma-first.
    Random,
}
