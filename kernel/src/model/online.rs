//! Kind `"online"` (Zhou et al. 2022): one server pool, worker types m, PS types p, weighted jobs.
use crate::resources::ResourceVec;
use crate::Slot;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Communication architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Architecture {
    /// Parameter servers (Algorithms 3-5).
    Ps,
    /// Ring-AllReduce (Algorithms 6-7, eq. 14).
    Ring,
}

/// A worker type m: demand e_m^r and bandwidth b_m; or a PS type p: z_p^r and B_p.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskType {
    /// e_m^r (or z_p^r).
    pub demand: ResourceVec,
    /// b_m (or B_p).
    pub bw: f64,
}

/// One job j.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OnlineJob {
    /// a_j.
    pub arrival: Slot,
    /// w_j.
    pub weight: f64,
    /// E_j.
    pub epochs: u32,
    /// D_j: chunks (the maximum number of workers).
    pub chunks: u32,
    /// K_j: mini-batches per chunk.
    pub minibatches_per_chunk: u32,
    /// v_jm: mini-batch time on worker type m, in slots.
    pub minibatch_time: Vec<f64>,
    /// U_j^p per PS type (ring: one value U_j).
    pub update_time: Vec<f64>,
    /// pi_j: gradient size in bandwidth-unit x slots.
    pub gradient_size: f64,
}

/// A validated `"online"` scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OnlineScenario {
    /// T.
    pub slots: u32,
    /// PS or Ring-AllReduce.
    pub architecture: Architecture,
    /// R.
    pub resources: u32,
    /// C_h^r.
    pub servers: Vec<ResourceVec>,
    /// Worker types m.
    pub worker_types: Vec<TaskType>,
    /// PS types p (empty for ring).
    pub ps_types: Vec<TaskType>,
    /// F: upper bound of weight per resource consumption.
    pub f: f64,
    /// alpha of A_dual (default 4).
    pub alpha: u32,
    /// A_online's rounds continue past T (Algorithm 1 has no horizon): windows are clipped at
    /// [`OnlineScenario::horizon`] instead of T, and the baselines run to the same horizon.
    /// False (the default) keeps every window inside T.
    #[serde(default)]
    pub rounds_past_horizon: bool,
    /// Jobs in input order.
    pub jobs: Vec<OnlineJob>,
    /// Placement-aware speed-ups for the baselines (`None`: eq. (1) with n workers wherever
    /// they are); see [`crate::model::throughput`].
    #[serde(default)]
    pub throughput: Option<crate::model::throughput::Throughput>,
}

/// With `rounds_past_horizon`, rounds continue this many doublings past the first round whose
/// batch holds every job (tau_c = the smallest power of two >= T, since every arrival is < T).
pub const PAST_HORIZON_ROUNDS: u32 = 3;

impl OnlineScenario {
    /// The last slot (exclusive) any schedule may use: T by default; with
    /// `rounds_past_horizon`, the end of the last window of round tau_last = tau_c 2^3
    /// ([`PAST_HORIZON_ROUNDS`]), i.e. 2 alpha tau_last, so that window is never clipped.
    /// Arrivals stay before T, and eq. (11)'s lambda keeps T.
    pub fn horizon(&self) -> u32 {
        if !self.rounds_past_horizon {
            return self.slots;
        }
        let tau_c = (self.slots as u64).next_power_of_two();
        let end = 2 * self.alpha as u64 * (tau_c << PAST_HORIZON_ROUNDS);
        end.min(u32::MAX as u64) as u32
    }
}
