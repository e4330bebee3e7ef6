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

impl PreemptJob {
    /// E_j B_j: mini-batches one chunk of j trains over all its epochs.
    pub fn chunk_work(&self) -> f64 {
        self.epochs as f64 * self.minibatches_per_chunk as f64
    }

    /// n_jsw for worker `w` of server `s` (the cloud has one value, any `w`); `colocated` picks
    /// the zeta_j = 1 rate. 0 when not eligible (v_jsw = 0) or out of range.
    pub fn rate_of(&self, s: usize, w: usize, cloud: bool, colocated: bool) -> f64 {
        let table = if colocated {
            &self.rate_colocated
        } else {
            &self.rate
        };
        let w = if cloud { 0 } else { w };
        table
            .get(s)
            .and_then(|row| row.get(w))
            .copied()
            .filter(|n| n.is_finite() && *n > 0.0)
            .unwrap_or(0.0)
    }

    /// p_jdsw = E_j B_j / n_jsw: slots (fractional) one chunk needs on a worker of rate `n`.
    pub fn processing(&self, n: f64) -> f64 {
        self.chunk_work() / n
    }

    /// gamma_jd = n_jsw / (E_j D_j B_j): the chunk's average processing rate (fig. 12).
    pub fn gamma(&self, n: f64) -> f64 {
        n / (self.chunk_work() * self.chunks as f64)
    }

    /// Delta_js^up for server `s` (0 when out of range; validated scenarios always have it).
    pub fn delay(&self, s: usize) -> u32 {
        self.upload_delay.get(s).copied().unwrap_or(0)
    }
}

impl PreemptScenario {
    /// Index of the cloud server s_c, if any.
    pub fn cloud(&self) -> Option<usize> {
        self.servers.iter().position(|s| s.cloud)
    }
}
