//! Baselines the papers compare against (`docs/semantics.md`, "Baselines"): FIFO, DRF, Tiresias-LAS,
//! Optimus, RRH, Dorm and AntMan, on the two scenario models where they make sense. Policies are the enum [`Policy`];
//! their names (and which document kinds accept them) live with the callers.
//!
//! - OASiS scenarios ([`oasis`], Bao et al. section V): every job is admitted (the papers'
//!   FIFO and DRF admit everything); each slot t the policy decides how many workers x_i(t) and
//!   parameter servers z_i(t) = ceil(x_i(t) b_i / B_i) each arrived, unfinished job gets, placed
//!   round-robin on the servers as the paper's comparison does. A job processes
//!   floor(x_i(t) / m_i) chunks in slot t (the OASiS model: d chunks need ceil(d m_i) workers);
//!   its utility is f_i(t_hat - a_i) for the slot t_hat in which its last chunk is done, 0 if it
//!   does not finish by T - 1.
//! - Online scenarios ([`online`], Zhou et al. section VI): one uninterrupted run per job (the
//!   format's start / duration / placement), so the baselines are non-preemptive there: each slot
//!   the policy starts waiting jobs with a worker count N, duration
//!   L = ceil(E_j D_j K_j / (N rho_j)) and a round-robin placement held until t + L.
//!
//! Policies ([`Policy`]):
//! - FIFO: arrival order (ties: input order), a fixed worker count min(N_i, [`FIXED_WORKERS`]),
//!   gang-placed; the queue head blocks the jobs behind it.
//! - DRF (Ghodsi et al.): progressive filling — repeatedly one more worker (with its PS share)
//!   to the job of least dominant share max_r (x w^r + z s^r) / C^r (ties: lower index) until no
//!   job can grow; recomputed every slot (on OASiS scenarios, where workers may change per slot).
//! - Tiresias-LAS (Gu et al.): discretised priority queues ([`LAS_QUEUE_LIMITS`]) of attained
//!   GPU-time; within a queue by arrival; fixed worker count as FIFO, preemptive per slot and
//!   work-conserving (a job that does not fit is skipped). On online scenarios (no preemption) waiting
//!   jobs have no attained service, so the queues are of the *requested* GPU-time (remaining
//!   workload x GPUs, the way Zhou et al. describe Tiresias).
//! - Optimus (Peng et al.): one worker to each job in arrival order, then repeatedly one more
//!   worker to the job with the largest marginal gain (reduction of its estimated remaining time
//!   per unit of dominant share of the added worker and PS; ties: lower index).
//! - Tiresias (OASiS scenarios only; Gu et al. as the Pollux simulator runs it): queue 0 in
//!   arrival order, then queue 1 in demotion order; a job moves to queue 1 once its attained
//!   service reaches [`TIRESIAS_THRESHOLD_GPU_SECONDS`]; each job runs its requested workers
//!   (or the fixed count), a gang keeps its servers while it runs, a new gang takes the servers
//!   with the most free GPUs first ([`oasis`] module `peer`).
//! - RRH (OASiS scenarios only; Bao et al.'s scheme (iii)): admission and continue / pause by
//!   utility gain minus delay cost, FIFO's fixed gang ([`oasis`] module `rrh`).
//! - Dorm (OASiS scenarios only; Bao et al.'s scheme (iv), after Sun et al.): on each arrival
//!   and completion, worker counts that maximise utilisation subject to a fairness-loss and an
//!   adjustment bound, solved by branch and bound within a per-event node budget (exactly
//!   unless the event reaches it), placed first fit decreasing rather than round-robin
//!   ([`oasis::dorm`]).
//! - AntMan (online scenarios only; Zhou et al.'s scheme (iii)): resource-guarantee jobs first
//!   as gangs, opportunistic jobs best-effort on what is left ([`online`] module `antman`).
//!
//! "GPU" is resource 0 (the bundled scenarios and the importers put it first); a job without
//! resource-0 demand counts worker-slots. Every decision is logged under [`TAG_BASELINE`].
//! Scratch buffers are allocated once when a runner is built; the slot loop allocates nothing.
pub mod oasis;
pub mod online;
mod pool;
pub mod world;
#[cfg(test)]
mod world_tests;

use crate::error::{CapacityError, LedgerError};
use crate::log::LogError;
pub use crate::log::TAG_BASELINE;
/// Tags a baseline's slot or start record may take: [`TAG_BASELINE`] + its policy's code, one
/// per policy (`TAG_BASELINE + 0x10` and after are the records every policy shares).
pub const POLICY_TAGS: u8 = 16;
use core::fmt;

/// Fixed worker count of FIFO and LAS (the papers fix it "to a number within [1, 30]"); a job
/// never gets more than its N_i (D_j) workers.
pub const FIXED_WORKERS: u32 = 8;
/// Upper limits of Tiresias' discretised queues in attained GPU-slots: queue 0 holds jobs below
/// the first limit, queue 1 below the second, queue 2 the rest (Tiresias uses 2-3 queues with
/// exponentially spaced limits).
pub const LAS_QUEUE_LIMITS: [f64; 2] = [16.0, 256.0];
/// Tiresias' demotion threshold (queue 0 -> queue 1) in GPU-seconds of attained service:
/// 16 GPU-hours, the Pollux simulator's (`simulator/tiresias.py`, `_queue_threshold`) with
/// Tiresias' two queues. A scenario without a slot length counts 3,600 s per slot.
pub const TIRESIAS_THRESHOLD_GPU_SECONDS: f64 = 16.0 * 3600.0;
/// RRH's admission / continuation threshold on gain - cost (utility units): a job must be
/// worth more than the delay it costs the others (the OASiS paper leaves the value open).
pub const RRH_THRESHOLD: f64 = 0.0;
/// Dorm's bound on the fairness loss: the sum over active jobs of the dominant share each falls
/// short of its dominant-resource-fair share (a fraction of the cluster; Sun et al. leave the
/// value to the operator).
pub const DORM_FAIRNESS_LOSS_MAX: f64 = 0.2;
/// Dorm's adjustment bound: at most this many jobs that held workers before an event may have
/// their worker count changed by it (Sun et al. leave the value to the operator).
pub const DORM_ADJUST_MAX: u32 = 3;
/// AntMan's queuing limit: a resource-guarantee job still waiting this many slots after its
/// arrival runs as an opportunistic job from the next slot on (Zhou et al. leave it open).
pub const ANTMAN_QUEUE_SLOTS: u32 = 4;
/// Bound on the units (workers) handed out in one slot by the filling loops of DRF and Optimus.
pub const UNITS_PER_SLOT_MAX: u32 = 1 << 20;

/// A baseline policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// First in, first out with a fixed number of workers.
    Fifo,
    /// Dominant resource fairness (max-min of dominant shares).
    Drf,
    /// Tiresias least attained service with discretised queues.
    Las,
    /// Optimus marginal-gain greedy.
    Optimus,
    /// Risk-Reward Heuristic (OASiS scenarios only): admission and continue / pause by utility
    /// gain minus delay cost ([`oasis`] module `rrh`).
    Rrh,
    /// AntMan (online scenarios only): resource-guarantee jobs first, opportunistic jobs on
    /// the free resources ([`online`] module `antman`).
    AntMan,
    /// Dorm (OASiS scenarios only): utilisation-maximising worker counts under fairness-loss
    /// and adjustment bounds, re-solved on arrivals and completions by branch and bound within
    /// a node budget per event ([`oasis::dorm`]).
    Dorm,
    /// Tiresias as the Pollux simulator runs it (OASiS scenarios only; Gu et al.): two queues
    /// of attained GPU-time split at [`TIRESIAS_THRESHOLD_GPU_SECONDS`], each job its
    /// requested workers, gangs kept where they run, new gangs consolidated
    /// ([`oasis`] module `peer`).
    Tiresias,
}

impl Policy {
    /// Every policy, in declaration order.
    pub const ALL: [Policy; 8] = [
        Policy::Fifo,
        Policy::Drf,
        Policy::Las,
        Policy::Optimus,
        Policy::Rrh,
        Policy::AntMan,
        Policy::Dorm,
        Policy::Tiresias,
    ];
    /// The policies that run OASiS scenarios ([`oasis::OasisBaseline`]).
    pub const OASIS: [Policy; 7] = [
        Policy::Fifo,
        Policy::Drf,
        Policy::Las,
        Policy::Optimus,
        Policy::Rrh,
        Policy::Dorm,
        Policy::Tiresias,
    ];
    /// The policies that run online scenarios ([`online::OnlineBaseline`]).
    pub const ONLINE: [Policy; 5] = [
        Policy::Fifo,
        Policy::Drf,
        Policy::Las,
        Policy::Optimus,
        Policy::AntMan,
    ];
}

/// Why a baseline run failed.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BaselineError {
    /// Building the runner would exceed a fixed capacity of [`crate::limits`].
    Capacity(CapacityError),
    /// The usage ledger refused a reservation (only if an internal invariant broke).
    Ledger(LedgerError),
    /// The decision log refused a record.
    Log(LogError),
    /// An open-world event was refused (`crate::world`); nothing changed.
    OpenWorld(crate::world::OpenWorldError),
    /// The policy does not run this scenario kind (RRH and Dorm are OASiS-only, AntMan
    /// online-only).
    WrongKind(Policy),
    /// A submitted job (`submit`) has a field the scenario build refuses (named as in the
    /// model: a zero count, a negative or non-finite number, a vector of the wrong length).
    InvalidJob {
        /// The job field.
        field: &'static str,
    },
    /// Dorm's event at `slot` has `active` unfinished jobs, more than
    /// [`crate::limits::DORM_ACTIVE_MAX`] (the solver's buffers are sized for that many).
    DormActive {
        /// The slot of the event.
        slot: crate::Slot,
        /// Arrived, unfinished jobs at the event.
        active: u32,
    },
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaselineError::Capacity(e) => write!(f, "{e}"),
            BaselineError::Ledger(e) => write!(f, "baseline ledger: {e}"),
            BaselineError::Log(e) => write!(f, "baseline log: {e}"),
            BaselineError::OpenWorld(e) => write!(f, "{e}"),
            BaselineError::InvalidJob { field } => {
                write!(f, "submitted job: field `{field}` is out of range")
            }
            BaselineError::WrongKind(p) => {
                write!(f, "baseline {p:?} does not run this scenario kind")
            }
            BaselineError::DormActive { slot, active } => write!(
                f,
                "dorm: {active} active jobs at slot {slot} exceed DORM_ACTIVE_MAX = {}",
                crate::limits::DORM_ACTIVE_MAX
            ),
        }
    }
}

impl From<CapacityError> for BaselineError {
    fn from(e: CapacityError) -> Self {
        BaselineError::Capacity(e)
    }
}
impl From<LedgerError> for BaselineError {
    fn from(e: LedgerError) -> Self {
        BaselineError::Ledger(e)
    }
}
impl From<LogError> for BaselineError {
    fn from(e: LogError) -> Self {
        BaselineError::Log(e)
    }
}

impl From<crate::world::OpenWorldError> for BaselineError {
    fn from(e: crate::world::OpenWorldError) -> Self {
        BaselineError::OpenWorld(e)
    }
}

/// Tiresias queue index of an attained (or requested) GPU-time.
pub fn las_queue(gpu_time: f64) -> u32 {
    let mut q = 0;
    for lim in LAS_QUEUE_LIMITS {
        if gpu_time < lim {
            return q;
        }
        q += 1;
    }
    q
}

/// Dominant share max_r amount^r / total^r over resources with positive total.
pub(crate) fn dominant_share(amount: &crate::ResourceVec, total: &crate::ResourceVec) -> f64 {
    let mut s: f64 = 0.0;
    for r in 0..amount.len() {
        let c = total.get(r);
        if c > 0.0 {
            let x = amount.get(r) / c;
            if x > s {
                s = x;
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_are_discretised() {
        assert_eq!(las_queue(0.0), 0);
        assert_eq!(las_queue(15.9), 0);
        assert_eq!(las_queue(16.0), 1);
        assert_eq!(las_queue(1e9), 2);
    }
}
