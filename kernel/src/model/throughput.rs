//! Placement-aware throughput: a measured speed-up table s(g, n) per model family.
//!
//! s(g, n) is how many single-GPU workers' worth of progress a job of that family makes per slot
//! when it runs g workers (one GPU each, one data-parallel replica each) spread over n distinct
//! servers. A linear model is s(g, n) = g; measured tables (the Pollux step times, see
//! `docs/throughput.md`) are sub-linear and fall as n grows for the same g, so consolidating a
//! job's workers on few servers makes it faster than spreading them.
//!
//! The table is dense: `models[m][(n - 1) * gpus + (g - 1)]` for 1 <= n <= `nodes`,
//! 1 <= g <= `gpus`. Entries with g < n cannot be reached (a job spans at most one server per
//! worker) and are never read. Beyond the table, [`Throughput::speedup`] documents its rule:
//! more than `nodes` servers run as `nodes` servers, more than `gpus` GPUs extend the last
//! column at its per-GPU efficiency.
use crate::error::{CapacityError, Limit};
use crate::limits::{check, SPEEDUP_GPUS_MAX, SPEEDUP_MODELS_MAX, SPEEDUP_NODES_MAX};
use alloc::vec::Vec;
use core::fmt;
use serde::{Deserialize, Serialize};

/// A validated speed-up table and each job's model family (`None`: linear, s(g, n) = g).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Throughput {
    /// G: GPU columns of every model's table.
    gpus: u32,
    /// N: node rows of every model's table.
    nodes: u32,
    /// Per model family, N x G speed-ups, row n - 1, column g - 1.
    models: Vec<Vec<f64>>,
    /// Per job (input order), the model family index.
    job_model: Vec<Option<u32>>,
}

/// Why a speed-up table was refused; every variant names the field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ThroughputError {
    /// A table dimension or the model count exceeds its limit.
    Capacity(CapacityError),
    /// `field` is empty (no model, or a zero dimension).
    Empty {
        /// `"models"`, `"gpus"` or `"nodes"`.
        field: &'static str,
    },
    /// Model `model`'s table does not hold `nodes x gpus` values.
    Shape {
        /// Model index.
        model: u32,
        /// nodes x gpus.
        expected: u64,
        /// Values given.
        got: u64,
    },
    /// A speed-up is NaN, infinite or negative.
    Value {
        /// Model index.
        model: u32,
        /// n (1-based).
        nodes: u32,
        /// g (1-based).
        gpus: u32,
        /// The value.
        value: f64,
    },
    /// A job names a model index the table does not have.
    JobModel {
        /// Job index.
        job: u32,
        /// The index given.
        model: u32,
        /// Models in the table.
        models: u32,
    },
    /// `job_model` does not hold one entry per job.
    Jobs {
        /// Jobs of the scenario.
        expected: u64,
        /// Entries given.
        got: u64,
    },
}

impl fmt::Display for ThroughputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ThroughputError::Capacity(e) => write!(f, "throughput: {e}"),
            ThroughputError::Empty { field } => write!(f, "throughput.{field}: must not be empty"),
            ThroughputError::Shape {
                model,
                expected,
                got,
            } => write!(
                f,
                "throughput.speedup[{model}]: needs nodes x gpus = {expected} values, got {got}"
            ),
            ThroughputError::Value {
                model,
                nodes,
                gpus,
                value,
            } => write!(
                f,
                "throughput.speedup[{model}] at {nodes} nodes, {gpus} GPUs: must be a finite \
                 number >= 0, got {value}"
            ),
            ThroughputError::JobModel { job, model, models } => write!(
                f,
                "job {job} model: index {model} is out of range (the table has {models} models)"
            ),
            ThroughputError::Jobs { expected, got } => write!(
                f,
                "throughput job models: expected one per job ({expected}), got {got}"
            ),
        }
    }
}

impl From<CapacityError> for ThroughputError {
    fn from(e: CapacityError) -> Self {
        ThroughputError::Capacity(e)
    }
}

impl Throughput {
    /// Checks and builds the table: G, N and the model count within their limits, every
    /// model N x G finite non-negative values, one model index (or none) per job, in range.
    pub fn new(
        gpus: u32,
        nodes: u32,
        models: Vec<Vec<f64>>,
        job_model: Vec<Option<u32>>,
        jobs: usize,
    ) -> Result<Self, ThroughputError> {
        for (field, v) in [
            ("models", models.len()),
            ("gpus", gpus as usize),
            ("nodes", nodes as usize),
        ] {
            if v == 0 {
                return Err(ThroughputError::Empty { field });
            }
        }
        check(Limit::SpeedupModels, models.len(), SPEEDUP_MODELS_MAX)?;
        check(Limit::SpeedupGpus, gpus as usize, SPEEDUP_GPUS_MAX)?;
        check(Limit::SpeedupNodes, nodes as usize, SPEEDUP_NODES_MAX)?;
        let cells = gpus as u64 * nodes as u64;
        for (m, t) in models.iter().enumerate() {
            if t.len() as u64 != cells {
                return Err(ThroughputError::Shape {
                    model: m as u32,
                    expected: cells,
                    got: t.len() as u64,
                });
            }
            if let Some(k) = t.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
                return Err(ThroughputError::Value {
                    model: m as u32,
                    nodes: (k / gpus as usize) as u32 + 1,
                    gpus: (k % gpus as usize) as u32 + 1,
                    value: t[k],
                });
            }
        }
        if job_model.len() != jobs {
            return Err(ThroughputError::Jobs {
                expected: jobs as u64,
                got: job_model.len() as u64,
            });
        }
        for (j, m) in job_model.iter().enumerate() {
            if let Some(m) = *m {
                if m as usize >= models.len() {
                    return Err(ThroughputError::JobModel {
                        job: j as u32,
                        model: m,
                        models: models.len() as u32,
                    });
                }
            }
        }
        Ok(Throughput {
            gpus,
            nodes,
            models,
            job_model,
        })
    }

    /// N: the node rows of the table (more servers than this run as this many).
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// The model family of job `j` (`None`: linear).
    pub fn job_model(&self, j: usize) -> Option<u32> {
        self.job_model.get(j).copied().flatten()
    }

    /// s(g, n) of model `model`: the table at (g, min(n, g, N)) for g <= G; for g > G,
    /// s(G, n') x g / G (the last measured per-GPU efficiency kept). 0 for g = 0 or an unknown
    /// model (never reached after [`Throughput::new`]).
    pub fn speedup(&self, model: u32, gpus: u32, nodes: u32) -> f64 {
        if gpus == 0 {
            return 0.0;
        }
        let n = nodes.min(gpus).min(self.nodes).max(1);
        let g = gpus.min(self.gpus);
        let cell = (n as usize - 1) * self.gpus as usize + (g as usize - 1);
        let s = self
            .models
            .get(model as usize)
            .and_then(|t| t.get(cell))
            .copied()
            .unwrap_or(0.0);
        if gpus > self.gpus {
            s * gpus as f64 / self.gpus as f64
        } else {
            s
        }
    }

    /// Worker-equivalents of job `j` running `workers` workers over `servers` distinct servers:
    /// s(workers, servers) of its model, or `workers` when it has none.
    pub fn effective_workers(&self, j: usize, workers: u32, servers: u32) -> f64 {
        match self.job_model(j) {
            Some(m) => self.speedup(m, workers, servers),
            None => workers as f64,
        }
    }
}

/// Per-job scratch of a baseline: the distinct servers each job's workers occupy in the current
/// slot, up to the table's N (beyond N, the count stays at N: the table treats more servers as
/// N). Sized once at build; marking and taking allocate nothing.
#[derive(Clone, Debug, Default)]
pub struct Spans {
    /// N: server ids kept per job.
    width: usize,
    /// Per job, `width` server ids; the first `count[j]` are valid.
    ids: Vec<u32>,
    /// Per job, distinct servers recorded (<= width).
    count: Vec<u32>,
}

impl Spans {
    /// Scratch for `jobs` jobs under `t` (empty, and every call a no-op, without a table).
    pub fn new(t: Option<&Throughput>, jobs: usize) -> Self {
        let width = t.map_or(0, |t| t.nodes() as usize);
        Spans {
            width,
            ids: alloc::vec![0; if width > 0 { jobs * width } else { 0 }],
            count: alloc::vec![0; if width > 0 { jobs } else { 0 }],
        }
    }

    /// Records that job `j` has a worker on server `h` this slot.
    pub fn mark(&mut self, j: usize, h: u32) {
        let Some(c) = self.count.get(j).copied() else {
            return;
        };
        let row = j * self.width;
        let seen = &self.ids[row..row + c as usize];
        if c as usize >= self.width || seen.contains(&h) {
            return;
        }
        self.ids[row + c as usize] = h;
        self.count[j] = c + 1;
    }

    /// Distinct servers of job `j` this slot (capped at N), and resets the job for the next
    /// slot.
    pub fn take(&mut self, j: usize) -> u32 {
        match self.count.get_mut(j) {
            Some(c) => core::mem::take(c),
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn table() -> Throughput {
        // G = 3, N = 2: row n = 1 [1, 1.8, 2.5], row n = 2 [0, 1.5, 2.0].
        Throughput::new(
            3,
            2,
            vec![vec![1.0, 1.8, 2.5, 0.0, 1.5, 2.0]],
            vec![Some(0), None],
            2,
        )
        .unwrap()
    }

    #[test]
    fn lookup_and_extension() {
        let t = table();
        assert_eq!(t.speedup(0, 1, 1), 1.0);
        assert_eq!(t.speedup(0, 2, 1), 1.8);
        assert_eq!(t.speedup(0, 2, 2), 1.5);
        // n > g reads n = g; n > N reads N; g > G keeps the per-GPU efficiency of column G.
        assert_eq!(t.speedup(0, 1, 2), 1.0);
        assert_eq!(t.speedup(0, 3, 5), 2.0);
        assert_eq!(t.speedup(0, 6, 2), 4.0);
        assert_eq!(t.effective_workers(0, 2, 2), 1.5);
        assert_eq!(t.effective_workers(1, 2, 2), 2.0);
    }

    #[test]
    fn refusals_name_the_field() {
        let bad = Throughput::new(2, 1, vec![vec![1.0, f64::NAN]], vec![], 0).unwrap_err();
        assert!(matches!(
            bad,
            ThroughputError::Value {
                model: 0,
                nodes: 1,
                gpus: 2,
                ..
            }
        ));
        let e = Throughput::new(2, 1, vec![vec![1.0, 2.0]], vec![Some(1)], 1).unwrap_err();
        assert!(matches!(e, ThroughputError::JobModel { model: 1, .. }));
        let e = Throughput::new(2, 1, vec![], vec![], 0).unwrap_err();
        assert_eq!(e, ThroughputError::Empty { field: "models" });
        let e = Throughput::new(2, 1, vec![vec![1.0]], vec![], 0).unwrap_err();
        assert!(matches!(e, ThroughputError::Shape { got: 1, .. }));
    }

    #[test]
    fn spans_count_distinct_servers_up_to_n() {
        let t = table();
        let mut s = Spans::new(Some(&t), 2);
        for h in [4, 4, 7, 9] {
            s.mark(0, h);
        }
        assert_eq!(s.take(0), 2);
        assert_eq!(s.take(0), 0);
        let mut none = Spans::new(None, 2);
        none.mark(0, 1);
        assert_eq!(none.take(0), 0);
    }
}
