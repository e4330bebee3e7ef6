//! The immutable data of one placement problem, derived once from the scenario: the S x K
//! throughput matrix rho_{i,k}, job sizes, link rates, and the worker classes the market and
//! the exact solver work on.
use super::PlacementError;
use crate::limits::{self, PLACEMENT_JOBS_MAX, PLACEMENT_WORKERS_MAX};
use crate::model::placement::PlacementScenario;
use crate::Limit;
use alloc::vec;
use alloc::vec::Vec;

/// Workers grouped by identical throughput columns (rho_{i,k} equal bit for bit for every job
/// i). Workers of one class are interchangeable for throughput (eq. 13), so the market and the
/// exact solver price and count classes; [`super::Assignment`] expands counts back to workers
/// in index order. With real-valued, distinct throughputs every class has one worker.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Classes {
    /// Class of worker k.
    pub of: Vec<u32>,
    /// Members of each class, ascending, class after class (classes in order of first member).
    pub members: Vec<u32>,
    /// `members[start[c]..start[c + 1]]` are class c's workers.
    pub start: Vec<u32>,
    /// rho_{i,c}: S x C, row-major.
    pub rho: Vec<f64>,
    /// Per job, classes by descending rho_{i,c} (ties: lower class index): the market's
    /// preference order at zero prices. S x C, row-major.
    pub order: Vec<u32>,
}

impl Classes {
    /// C, the number of classes.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }
    /// True when there are no classes (never for a valid instance).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// m_c: workers in class c.
    pub fn size(&self, c: usize) -> u32 {
        self.start[c + 1] - self.start[c]
    }
}

/// One placement problem: S jobs, K workers (Liu et al., Table I symbols).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Instance {
    /// S (`u32` in a snapshot)
    #[serde(with = "crate::snapshot::usize_as_u32")]
    pub s: usize,
    /// K (`u32` in a snapshot)
    #[serde(with = "crate::snapshot::usize_as_u32")]
    pub k: usize,
    /// rho_{i,k}: S x K, row-major (samples/s).
    pub rho: Vec<f64>,
    /// abs(Pi_i)
    pub samples: Vec<f64>,
    /// T_i
    pub epochs: Vec<f64>,
    /// D_i (bytes)
    pub model_bytes: Vec<f64>,
    /// Node of worker k.
    pub node: Vec<u32>,
    /// Link rate between two workers of one node (bytes/s).
    pub intra: f64,
    /// Link rate between nodes (bytes/s).
    pub inter: f64,
    /// Add eq. (6)'s Ring-AllReduce term.
    pub include_comm: bool,
    /// Lambda_i^\[e\] of eq. (32), read per job (the outer sum is a typo, `docs/placement.md`).
    pub equal_jct: Vec<f64>,
    /// Worker classes.
    pub classes: Classes,
}

impl Instance {
    /// Builds the instance (allocates; outside decision paths).
    pub fn new(scn: &PlacementScenario) -> Result<Self, PlacementError> {
        let s = scn.jobs.len();
        let k = scn.workers.len();
        limits::check(Limit::PlacementJobs, s, PLACEMENT_JOBS_MAX)?;
        limits::check(Limit::PlacementWorkers, k, PLACEMENT_WORKERS_MAX)?;
        if s == 0 || k < s {
            return Err(PlacementError::FewerWorkersThanJobs {
                workers: k as u32,
                jobs: s as u32,
            });
        }
        let mut rho = Vec::with_capacity(s * k);
        for (i, j) in scn.jobs.iter().enumerate() {
            if j.throughput.len() != k {
                return Err(PlacementError::ThroughputShape { job: i as u32 });
            }
            let bad = j
                .throughput
                .iter()
                .position(|x| !(0.0..=limits::THROUGHPUT_MAX).contains(x));
            if let Some(w) = bad {
                return Err(PlacementError::ThroughputValue {
                    job: i as u32,
                    worker: w as u32,
                });
            }
            rho.extend_from_slice(&j.throughput);
        }
        let node: Vec<u32> = scn.workers.iter().map(|w| w.node).collect();
        let mut inst = Instance {
            s,
            k,
            rho,
            samples: scn.jobs.iter().map(|j| j.samples).collect(),
            epochs: scn.jobs.iter().map(|j| j.epochs).collect(),
            model_bytes: scn.jobs.iter().map(|j| j.model_bytes).collect(),
            node,
            intra: scn.intra_node,
            inter: scn.inter_node,
            include_comm: scn.include_comm,
            equal_jct: Vec::new(),
            classes: Classes {
                of: Vec::new(),
                members: Vec::new(),
                start: Vec::new(),
                rho: Vec::new(),
                order: Vec::new(),
            },
        };
        inst.equal_jct = (0..s).map(|i| inst.equal_share_jct(i)).collect();
        inst.classes = inst.build_classes();
        Ok(inst)
    }

    /// rho_{i,k}.
    pub fn rho(&self, i: usize, k: usize) -> f64 {
        self.rho[i * self.k + k]
    }

    /// The slowest link rate present in the cluster: r of eq. (32).
    pub fn cluster_rate(&self) -> f64 {
        let first = self.node.first().copied();
        let spans = self.node.iter().any(|&n| Some(n) != first);
        if spans {
            self.intra.min(self.inter)
        } else {
            self.intra
        }
    }

    /// Lambda_i^\[e\] = T_i (2 (K/S - 1) D_i / (r K/S) + abs(Pi_i) / (S sum_k rho_ik)) (eq. 32,
    /// per job; the communication term only with `include_comm`).
    fn equal_share_jct(&self, i: usize) -> f64 {
        let share = self.k as f64 / self.s as f64;
        let total: f64 = (0..self.k).map(|k| self.rho(i, k)).sum();
        let comp = self.samples[i] / (self.s as f64 * total);
        let comm = if self.include_comm {
            2.0 * (share - 1.0) * self.model_bytes[i] / (self.cluster_rate() * share)
        } else {
            0.0
        };
        self.epochs[i] * (comp + comm)
    }

    fn same_column(&self, a: usize, b: usize) -> bool {
        (0..self.s).all(|i| self.rho(i, a).to_bits() == self.rho(i, b).to_bits())
    }

    fn build_classes(&self) -> Classes {
        let (s, k) = (self.s, self.k);
        let mut of = vec![u32::MAX; k];
        let mut reps: Vec<usize> = Vec::new();
        for w in 0..k {
            let found = reps.iter().position(|&r| self.same_column(r, w));
            of[w] = match found {
                Some(c) => c as u32,
                None => {
                    reps.push(w);
                    (reps.len() - 1) as u32
                }
            };
        }
        let c = reps.len();
        let mut start = vec![0u32; c + 1];
        for &cl in &of {
            start[cl as usize + 1] += 1;
        }
        for x in 1..=c {
            start[x] += start[x - 1];
        }
        let mut fill: Vec<u32> = start[..c].to_vec();
        let mut members = vec![0u32; k];
        for (w, &cl) in of.iter().enumerate() {
            members[fill[cl as usize] as usize] = w as u32;
            fill[cl as usize] += 1;
        }
        let mut rho = Vec::with_capacity(s * c);
        for i in 0..s {
            for &r in &reps {
                rho.push(self.rho(i, r));
            }
        }
        let mut order = Vec::with_capacity(s * c);
        for i in 0..s {
            let row = &rho[i * c..(i + 1) * c];
            let mut idx: Vec<u32> = (0..c as u32).collect();
            // Descending rho, ties by lower class index.
            crate::order::sort_indices_by(&mut idx, &|a, b| {
                row[b as usize].total_cmp(&row[a as usize]).then(a.cmp(&b))
            });
            order.extend_from_slice(&idx);
        }
        Classes {
            of,
            members,
            start,
            rho,
            order,
        }
    }
}
