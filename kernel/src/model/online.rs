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
    /// Jobs in input order.
    pub jobs: Vec<OnlineJob>,
    /// Placement-aware speed-ups for the baselines (`None`: eq. (1) with n workers wherever
    /// they are); see [`crate::model::throughput`].
    #[serde(default)]
    pub throughput: Option<crate::model::throughput::Throughput>,
}
