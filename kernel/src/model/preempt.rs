//! Kind `"preempt"` (Wang et al. 2022): edge servers with workers and PSs, one unlimited cloud.
use crate::Slot;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// One server s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreemptServer {
    /// abs(W_s) (ignored for the cloud: unlimited).
    pub workers: u32,
    /// Parameter servers on s.
    pub ps: u32,
    /// The cloud: a fresh worker per chunk, no queue.
    pub cloud: bool,
}

/// One job j.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PreemptJob {
    /// r_j.
    pub arrival: Slot,
    /// E_j.
    pub epochs: u32,
    /// D_j.
    pub chunks: u32,
    /// B_j: mini-batches per chunk.
    pub minibatches_per_chunk: u32,
    /// n_jsw with zeta_j = 0 (0 = not eligible); the cloud has one value.
    pub rate: Vec<Vec<f64>>,
    /// n_jsw with zeta_j = 1.
    pub rate_colocated: Vec<Vec<f64>>,
    /// Delta_js^up in slots.
    pub upload_delay: Vec<u32>,
    /// o_jsp.
    pub ps_eligible: Vec<Vec<bool>>,
}

/// A validated `"preempt"` scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PreemptScenario {
    /// Horizon in slots.
    pub slots: u32,
    /// PRNG seed (A_ps).
    pub seed: u64,
    /// Servers s.
    pub servers: Vec<PreemptServer>,
    /// Jobs in input order.
    pub jobs: Vec<PreemptJob>,
}
