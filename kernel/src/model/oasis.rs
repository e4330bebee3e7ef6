//! Kind `"oasis"` (Bao et al. 2018): jobs E_i, N_i, M_i, tau_i, demands w_i / s_i, utility f_i.
use crate::resources::ResourceVec;
use crate::Slot;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The utility f_i of finishing `duration` slots after arrival (t_hat - a_i).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Utility {
    /// f(t) = g1 / (1 + exp(g2 (t - g3))), t = t_hat - a_i (section V-A).
    Sigmoid {
        /// gamma_1: priority (maximum utility)
        priority: f64,
        /// gamma_2: decay rate
        decay: f64,
        /// gamma_3: target completion duration in slots
        target: f64,
    },
    /// f(t) = `table[t]`, the last value repeating; non-increasing.
    Table(Vec<f64>),
}

impl Utility {
    /// f_i(duration) where duration = t_hat - a_i in slots.
    pub fn at(&self, duration: u32) -> f64 {
        match self {
            Utility::Sigmoid {
                priority,
                decay,
                target,
            } => priority / (1.0 + libm::exp(decay * (duration as f64 - target))),
            Utility::Table(v) => {
                let i = (duration as usize).min(v.len().saturating_sub(1));
                v.get(i).copied().unwrap_or(0.0)
            }
        }
    }
}

/// One OASiS job i.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OasisJob {
    /// a_i: arrival slot.
    pub arrival: Slot,
    /// E_i: epochs.
    pub epochs: u32,
    /// N_i: data chunks (also the maximum number of workers).
    pub chunks: u32,
    /// M_i: mini-batches per chunk.
    pub minibatches_per_chunk: u32,
    /// tau_i: time of one mini-batch, in slots.
    pub minibatch_time: f64,
    /// e_i / b_i: time to push/pull one update, in slots.
    pub comm_time: f64,
    /// b_i: bandwidth of one worker.
    pub worker_bw: f64,
    /// B_i: bandwidth of one parameter server.
    pub ps_bw: f64,
    /// w_i^r: demand of one worker.
    pub worker_demand: ResourceVec,
    /// s_i^r: demand of one parameter server.
    pub ps_demand: ResourceVec,
    /// f_i.
    pub utility: Utility,
}

impl OasisJob {
    /// Total workload E_i N_i in chunks.
    pub fn workload(&self) -> u64 {
        self.epochs as u64 * self.chunks as u64
    }
    /// m_i = M_i (tau_i + 2 e_i/b_i): slots one worker needs for one chunk.
    pub fn chunk_time(&self) -> f64 {
        self.minibatches_per_chunk as f64 * (self.minibatch_time + 2.0 * self.comm_time)
    }
}

/// U1^r, U2^r, L1, L2 of eq. (22).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PriceBounds {
    /// U1^r: worker-server price ceiling per resource.
    pub u_worker: ResourceVec,
    /// U2^r: PS-server price ceiling per resource.
    pub u_ps: ResourceVec,
    /// L1: worker-server price floor.
    pub l_worker: f64,
    /// L2: PS-server price floor.
    pub l_ps: f64,
}

/// A validated `"oasis"` scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OasisScenario {
    /// T: slots.
    pub slots: u32,
    /// R: resource types.
    pub resources: u32,
    /// c_h^r of the H worker servers.
    pub worker_servers: Vec<ResourceVec>,
    /// c_k^r of the K parameter-server servers.
    pub ps_servers: Vec<ResourceVec>,
    /// Given price bounds, or `None` to derive them from the job list (eqs. 23-26).
    pub prices: Option<PriceBounds>,
    /// Jobs in input order.
    pub jobs: Vec<OasisJob>,
    /// Placement-aware speed-ups for the baselines (`None`: the linear chunk model, progress
    /// floor(x_i(t) / m_i)); see [`crate::model::throughput`].
    #[serde(default)]
    pub throughput: Option<crate::model::throughput::Throughput>,
}
