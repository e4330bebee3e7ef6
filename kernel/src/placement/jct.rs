//! Job completion time (eqs. 3-8, 11, 14) and the assignment it is computed for.
use super::fairness::jain;
use super::workload::Split;
use super::Instance;
use alloc::vec;
use alloc::vec::Vec;

/// A complete placement sigma_{i,k}: every worker assigned to one job (8c, 8d), every job at
/// least one worker (8b), with its evaluation. Buffers are sized once for the instance.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Assignment {
    /// Job of worker k (sigma_{i,k} = 1 iff `job_of[k] == i`).
    pub job_of: Vec<u32>,
    /// K_i: workers of job i (the category).
    pub counts: Vec<u32>,
    /// V_i: eq. (13) under a proportional split; K_i min_k rho_ik under an equal split.
    pub throughput: Vec<f64>,
    /// Lambda_i: eq. (7) with eq. (11) or the equal-split straggler latency, plus eq. (6).
    pub jct: Vec<f64>,
    /// Lambda = (1/S) sum_i Lambda_i (eq. 8).
    pub avg_jct: f64,
    /// sum_i sum_k sigma_ik rho_ik, the objective of P3 (eq. 18).
    pub total_throughput: f64,
    /// F of eq. (33).
    pub fairness: f64,
    /// How each job's data set is split over its workers.
    pub split: Split,
}

impl Assignment {
    /// Each worker on one job of the instance and K_i the workers of job i: the K workers are
    /// used exactly once (the capacity a placement must respect).
    pub fn within_workers(&self) -> bool {
        let s = self.counts.len();
        self.job_of.iter().all(|&i| (i as usize) < s)
            && (0..s).all(|i| {
                self.job_of.iter().filter(|&&j| j as usize == i).count() == self.counts[i] as usize
            })
    }

    /// An empty assignment for `inst` (all workers on job 0 until filled).
    pub fn new(inst: &Instance) -> Self {
        Assignment {
            job_of: vec![0; inst.k],
            counts: vec![0; inst.s],
            throughput: vec![0.0; inst.s],
            jct: vec![0.0; inst.s],
            avg_jct: f64::INFINITY,
            total_throughput: 0.0,
            fairness: 0.0,
            split: Split::Proportional,
        }
    }

    /// Copies `other` into `self` without allocating (same instance).
    pub fn copy_from(&mut self, other: &Assignment) {
        self.job_of.copy_from_slice(&other.job_of);
        self.counts.copy_from_slice(&other.counts);
        self.throughput.copy_from_slice(&other.throughput);
        self.jct.copy_from_slice(&other.jct);
        self.avg_jct = other.avg_jct;
        self.total_throughput = other.total_throughput;
        self.fairness = other.fairness;
        self.split = other.split;
    }

    /// Recomputes counts, V_i, Lambda_i, the average and F from `job_of`.
    pub fn evaluate(&mut self, inst: &Instance, split: Split) {
        self.split = split;
        for i in 0..inst.s {
            self.counts[i] = 0;
            self.throughput[i] = 0.0;
            self.jct[i] = f64::INFINITY;
        }
        let mut total = 0.0;
        for (k, &i) in self.job_of.iter().enumerate() {
            let i = i as usize;
            let r = inst.rho(i, k);
            self.counts[i] += 1;
            total += r;
            self.throughput[i] = match split {
                Split::Proportional => self.throughput[i] + r,
                // Equal split: the straggler sets the pace, V_i = K_i min_k rho_ik (eqs. 2-4).
                Split::Equal => {
                    if self.counts[i] == 1 {
                        r
                    } else {
                        self.throughput[i].min(r)
                    }
                }
            };
        }
        self.total_throughput = total;
        let mut sum = 0.0;
        for i in 0..inst.s {
            if let Split::Equal = split {
                self.throughput[i] *= f64::from(self.counts[i]);
            }
            self.jct[i] = job_jct(inst, i, self.counts[i], self.throughput[i], &self.job_of);
            sum += self.jct[i];
        }
        self.avg_jct = sum / inst.s as f64;
        self.fairness = jain(inst, &self.jct);
    }
}

/// Lambda_i = T_i (abs(Pi_i) / V_i + l_i^\[c\]) (eqs. 7, 11, 6). Infinite when V_i = 0.
pub fn job_jct(inst: &Instance, i: usize, k_i: u32, v_i: f64, job_of: &[u32]) -> f64 {
    if v_i <= 0.0 || k_i == 0 {
        return f64::INFINITY;
    }
    let comp = inst.samples[i] / v_i;
    let comm = if inst.include_comm && k_i > 1 {
        let r = ring_rate(inst, i as u32, job_of);
        let kf = f64::from(k_i);
        2.0 * (kf - 1.0) * inst.model_bytes[i] / (r * kf)
    } else {
        0.0
    };
    inst.epochs[i] * (comp + comm)
}

/// r_i^min of eq. (5): the slowest link of job i's ring. One node: the intra-node rate. Several
/// nodes: the inter-node rate, or the intra-node rate when that is slower and two of the job's
/// workers share a node (the ring then has an intra-node link too).
pub fn ring_rate(inst: &Instance, i: u32, job_of: &[u32]) -> f64 {
    let mut first: Option<u32> = None;
    let mut spans = false;
    for (k, &j) in job_of.iter().enumerate() {
        if j == i {
            match first {
                None => first = Some(inst.node[k]),
                Some(n) => spans |= n != inst.node[k],
            }
        }
    }
    if !spans {
        return inst.intra;
    }
    if inst.intra >= inst.inter {
        return inst.inter;
    }
    // Rare configuration (intra slower than inter): look for two workers on one node.
    for (a, &ja) in job_of.iter().enumerate() {
        if ja != i {
            continue;
        }
        for (b, &jb) in job_of.iter().enumerate().skip(a + 1) {
            if jb == i && inst.node[a] == inst.node[b] {
                return inst.intra;
            }
        }
    }
    inst.inter
}
