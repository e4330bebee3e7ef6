//! [`JobParams`]: the constants of job i that Alg. 2 uses (a_i, D_i, N_i, m_i, b_i, B_i and
//! the demands), with the worker, parameter-server and chunk counts derived from them.
use crate::model::oasis::OasisJob;
use crate::num::{ceil_eps, floor_eps};
use crate::resources::ResourceVec;

/// The constants of job i that Alg. 2 uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobParams {
    /// a_i.
    pub arrival: u32,
    /// D_i = E_i N_i (chunks).
    pub workload: u64,
    /// N_i: at most this many workers per slot (constraint 3).
    pub max_workers: u32,
    /// m_i = M_i (tau_i + 2 e_i / b_i): slots one worker needs per chunk.
    pub chunk_time: f64,
    /// b_i.
    pub worker_bw: f64,
    /// B_i.
    pub ps_bw: f64,
    /// w_i^r.
    pub worker_demand: ResourceVec,
    /// s_i^r.
    pub ps_demand: ResourceVec,
}

impl JobParams {
    /// The constants of `job`.
    pub fn of(job: &OasisJob) -> Self {
        JobParams {
            arrival: job.arrival,
            workload: job.workload(),
            max_workers: job.chunks,
            chunk_time: job.chunk_time(),
            worker_bw: job.worker_bw,
            ps_bw: job.ps_bw,
            worker_demand: job.worker_demand,
            ps_demand: job.ps_demand,
        }
    }

    /// ceil(d m_i): workers needed for `d` chunks in one slot (Alg. 2 line 26), saturating.
    pub fn workers_for(&self, d: u64) -> u64 {
        sat_u64(ceil_eps(d as f64 * self.chunk_time))
    }

    /// ceil(y b_i / B_i): parameter servers needed by `y` workers (constraint 6), saturating.
    pub fn ps_for(&self, y: u64) -> u64 {
        sat_u64(ceil_eps(y as f64 * self.worker_bw / self.ps_bw))
    }

    /// The most chunks `w` workers cover in one slot: max d with ceil(d m_i) <= w, capped at
    /// D_i. Consistent with [`Self::workers_for`] by construction (checked both ways).
    pub fn chunks_for(&self, w: u64) -> u64 {
        let guess = floor_eps(w as f64 / self.chunk_time);
        let mut d = sat_u64(guess).min(self.workload);
        // The float guess can be off by one either way; settle it with workers_for itself.
        let mut steps = 0;
        while d > 0 && self.workers_for(d) > w && steps < 4 {
            d -= 1;
            steps += 1;
        }
        while d < self.workload && self.workers_for(d + 1) <= w && steps < 8 {
            d += 1;
            steps += 1;
        }
        d
    }
}

fn sat_u64(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x as u64
    }
}
