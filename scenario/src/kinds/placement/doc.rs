//! Kind `"placement"`: the scenario document, its validation, and the result document.
use crate::doc::check::{self, job};
use crate::error::InputError;
use mlsched_kernel::limits::{PLACEMENT_JOBS_MAX, PLACEMENT_WORKERS_MAX, THROUGHPUT_MAX};
use mlsched_kernel::model::placement::{
    CategorySolver, JpsParams, Method, PlacementJob, PlacementScenario, Worker,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `"placement"` scenario as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementDoc {
    /// Always "placement".
    pub kind: String,
    /// Method.
    pub method: MethodDoc,
    /// Workers k.
    pub workers: Vec<WorkerDoc>,
    /// Link rates.
    pub link_rate: LinkRateDoc,
    /// Jobs i.
    pub jobs: Vec<PlacementJobDoc>,
    /// Add the eq. (6) communication term.
    pub include_comm: bool,
    /// JPS parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jps: Option<JpsDoc>,
    /// PRNG seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<f64>,
    /// Per-category solver of HAS and JPS: "market" (default) or "transfer".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<String>,
}

/// `method`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum MethodDoc {
    /// HAS.
    Has,
    /// JPS.
    Jps,
    /// Exact.
    Exact,
    /// Exhaustive.
    Exhaustive,
    /// Optimus.
    Optimus,
    /// Optimus-LB.
    OptimusLb,
    /// LAS.
    Las,
}

/// A worker.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorkerDoc {
    /// Explicit id (`docs/formats.md`, "Server ids"); absent = `k<k>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// GPU type name.
    pub gpu: String,
    /// Node id.
    pub node: f64,
}

/// `link_rate`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkRateDoc {
    /// Bytes/s within a node.
    pub intra_node: f64,
    /// Bytes/s between nodes.
    pub inter_node: f64,
}

/// A job.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementJobDoc {
    /// Id.
    pub id: String,
    /// abs(Pi_i).
    pub samples: f64,
    /// T_i.
    pub epochs: f64,
    /// D_i.
    pub model_bytes: f64,
    /// rho_ik.
    pub throughput: Vec<f64>,
}

/// `jps`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct JpsDoc {
    /// N.
    #[serde(default)]
    pub samples: Option<f64>,
    /// alpha.
    #[serde(default)]
    pub alpha: Option<f64>,
    /// beta.
    #[serde(default)]
    pub beta: Option<f64>,
}

impl PlacementDoc {
    /// The servers' ids in the kernel's index order (`docs/open-world.md`): each worker `k<k>`
    /// (its capacity is one entry: 1 when it can hold a job's worker, 0 when not).
    pub fn server_ids(&self) -> Vec<String> {
        let ids = self.workers.iter().enumerate();
        ids.map(|(k, w)| w.id.clone().unwrap_or_else(|| format!("k{k}")))
            .collect()
    }

    /// The default ids (`k<k>`): the ones the kind's occupancy is derived with.
    pub fn default_server_ids(&self) -> Vec<String> {
        (0..self.workers.len()).map(|k| format!("k{k}")).collect()
    }

    /// Checks every value and builds the kernel model.
    pub fn validate(&self) -> Result<PlacementScenario, InputError> {
        let s = "scenario";
        crate::doc::servers::check_ids(&self.server_ids())?;
        check::count_limit(
            s,
            "workers",
            self.workers.len(),
            1,
            PLACEMENT_WORKERS_MAX,
            "PLACEMENT_WORKERS_MAX",
        )?;
        let mut types: BTreeMap<&str, u32> = BTreeMap::new();
        let mut order: Vec<&str> = Vec::new();
        let mut workers = Vec::with_capacity(self.workers.len());
        for (k, w) in self.workers.iter().enumerate() {
            let ws = format!("worker {k}");
            if w.gpu.is_empty() {
                return Err(InputError::new(
                    ws,
                    "gpu",
                    "must be a non-empty GPU type name",
                ));
            }
            let next = order.len() as u32;
            let t = *types.entry(w.gpu.as_str()).or_insert_with(|| {
                order.push(w.gpu.as_str());
                next
            });
            let node = check::int(&ws, "node", w.node, 0, u32::MAX as u64)?;
            workers.push(Worker { gpu_type: t, node });
        }
        let intra_node = check::positive("link_rate", "intra_node", self.link_rate.intra_node)?;
        let inter_node = check::positive("link_rate", "inter_node", self.link_rate.inter_node)?;
        check::count_limit(
            s,
            "jobs",
            self.jobs.len(),
            1,
            PLACEMENT_JOBS_MAX,
            "PLACEMENT_JOBS_MAX",
        )?;
        if self.jobs.len() > self.workers.len() {
            return Err(InputError::new(
                s,
                "jobs",
                format!(
                    "{} jobs need at least as many workers, got {} (K < S)",
                    self.jobs.len(),
                    self.workers.len()
                ),
            ));
        }
        check::ids("job", "jobs", self.jobs.iter().map(|j| j.id.as_str()))?;
        let jobs = self
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| {
                j.validate(self.workers.len())
                    .map_err(|e| check::locate(e, "jobs", i))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut jps = JpsParams::default();
        if let Some(p) = &self.jps {
            if let Some(n) = p.samples {
                jps.samples = check::int("jps", "samples", n, 1, u32::MAX as u64)?;
            }
            if let Some(a) = p.alpha {
                check::real("jps", "alpha", a)?;
                if !(0.0..1.0).contains(&a) {
                    return Err(InputError::new(
                        "jps",
                        "alpha",
                        format!("must be in [0, 1), got {a}"),
                    ));
                }
                jps.alpha = a;
            }
            if let Some(b) = p.beta {
                jps.beta = check::within("jps", "beta", b, 0.0, 1.0)?;
            }
        }
        let method = match self.method {
            MethodDoc::Has => Method::Has,
            MethodDoc::Jps => Method::Jps,
            MethodDoc::Exact => Method::Exact,
            MethodDoc::Exhaustive => Method::Exhaustive,
            MethodDoc::Optimus => Method::Optimus,
            MethodDoc::OptimusLb => Method::OptimusLb,
            MethodDoc::Las => Method::Las,
        };
        let solver = self.solver(method)?;
        Ok(PlacementScenario {
            method,
            workers,
            intra_node,
            inter_node,
            jobs,
            include_comm: self.include_comm,
            jps,
            seed: check::seed(s, "seed", self.seed)?,
            solver,
        })
    }

    /// `solver`: "market" or "transfer", and only for methods has and jps (the others have no
    /// per-category market to replace, so an explicit value there is an error, not ignored).
    fn solver(&self, method: Method) -> Result<CategorySolver, InputError> {
        let Some(name) = self.solver.as_deref() else {
            return Ok(CategorySolver::Market);
        };
        let solver = match name {
            "market" => CategorySolver::Market,
            "transfer" => CategorySolver::Transfer,
            other => {
                return Err(InputError::new(
                    "scenario",
                    "solver",
                    format!("must be \"market\" or \"transfer\", got {other:?}"),
                ))
            }
        };
        if !matches!(method, Method::Has | Method::Jps) {
            return Err(InputError::new(
                "scenario",
                "solver",
                "is only meaningful for methods has and jps (their per-category solver)",
            ));
        }
        Ok(solver)
    }

    /// GPU type names in first-appearance order (index = `Worker::gpu_type`).
    pub fn gpu_types(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for w in &self.workers {
            if !out.contains(&w.gpu) {
                out.push(w.gpu.clone());
            }
        }
        out
    }
}

impl PlacementJobDoc {
    fn validate(&self, k: usize) -> Result<PlacementJob, InputError> {
        let s = &job(&self.id);
        if self.throughput.len() != k {
            return Err(InputError::new(
                s,
                "throughput",
                format!(
                    "has {} entries, expected {k} (one per worker)",
                    self.throughput.len()
                ),
            ));
        }
        for (i, &x) in self.throughput.iter().enumerate() {
            check::finite(s, &format!("throughput[{i}]"), x)?;
            if x < 0.0 {
                return Err(InputError::new(
                    s,
                    format!("throughput[{i}]"),
                    format!("must be >= 0, got {x}"),
                ));
            }
            if x > THROUGHPUT_MAX {
                return Err(InputError::new(
                    s,
                    format!("throughput[{i}]"),
                    format!(
                        "{x:e} exceeds {} THROUGHPUT_MAX = {THROUGHPUT_MAX:e} (the market's unit price steps are exact in f64 only below 2^53)",
                        check::LIMIT_WORDS
                    ),
                ));
            }
        }
        if self.throughput.iter().all(|&x| x == 0.0) {
            return Err(InputError::new(
                s,
                "throughput",
                "must be > 0 on at least one worker",
            ));
        }
        Ok(PlacementJob {
            samples: check::positive(s, "samples", self.samples)?,
            epochs: check::positive(s, "epochs", self.epochs)?,
            model_bytes: check::non_negative(s, "model_bytes", self.model_bytes)?,
            throughput: self.throughput.clone(),
        })
    }
}

/// A submitted job (open world): `job` is an object of the scenario's `jobs` array, checked by
/// the same per-job validation as the document's jobs (same messages; each field named
/// `job.<field>`) against the scenario's `k` workers. `arrival`, which the façade has checked
/// equals the submission's slot, is not part of a placement job (all arrive when submitted).
/// Returns the job's id and kernel model.
pub fn submitted_job(
    job: &serde_json::Map<String, serde_json::Value>,
    k: usize,
) -> Result<(String, PlacementJob), InputError> {
    let mut m = job.clone();
    m.remove("arrival");
    let doc: PlacementJobDoc = serde_json::from_value(serde_json::Value::Object(m))
        .map_err(|e| InputError::new("event", "job", e.to_string()))?;
    let model = doc.validate(k).map_err(|mut e| {
        e.field = format!("job.{}", e.field);
        e
    })?;
    Ok((doc.id, model))
}

/// A submission the kernel refused, as an input error naming the field: `jobs` for the
/// document-level rules (K >= S before the batch, the job limit), `job` otherwise.
pub fn refused(id: &str, e: mlsched_kernel::placement::PlacementError) -> crate::error::RunError {
    use mlsched_kernel::placement::PlacementError as E;
    let s = job(id);
    let err = match e {
        E::FewerWorkersThanJobs { workers, jobs } => InputError::new(
            s,
            "jobs",
            format!("{jobs} jobs need at least as many workers, got {workers} (K < S)"),
        ),
        E::Capacity(c) => InputError::new(s, "jobs", c.to_string()),
        E::JobValue { field, .. } => InputError::new(s, format!("job.{field}"), e.to_string()),
        other => InputError::new(s, "job", other.to_string()),
    };
    crate::error::RunError::Input(err)
}

/// The result document of kind `"placement"`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlacementResult {
    /// "placement".
    pub kind: String,
    /// Method/policy.
    pub policy: String,
    /// The chosen category and assignment.
    pub best: PlacementBest,
    /// Categories examined.
    pub categories_examined: u64,
    /// Per category (with `--all`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub per_category: Option<Vec<PlacementCategory>>,
    /// Market statistics (HAS and JPS only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub market: Option<PlacementMarketStats>,
    /// JPS: the sampling window and prioritised job order.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub jps: Option<PlacementJpsInfo>,
    /// Transfer-solver counters (only when HAS or JPS ran with `"solver": "transfer"`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub transfer: Option<PlacementTransferStats>,
    /// Every job with how it ended (`docs/open-world.md`), in input order.
    #[serde(default)]
    pub jobs: Vec<PlacementJobRow>,
    /// The counts of the jobs' statuses.
    #[serde(default)]
    pub summary: PlacementSummary,
    /// Who holds which server when, sorted and merged (`docs/formats.md`, "Occupancy";
    /// [`crate::occupancy`]).
    #[serde(default)]
    pub occupancy: Vec<crate::occupancy::Span>,
    /// Hash of the decision records.
    pub log_hash: String,
}

/// Matching-market statistics of a run (optional result field).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlacementMarketStats {
    /// Price updates over all categories.
    pub rounds: u64,
    /// The most price updates one category needed.
    pub max_rounds: u32,
    /// Paper rounds (unit raises counted one by one).
    pub unit_rounds: u64,
    /// Categories where the market hit its cap and the exact solver decided.
    pub fallbacks: u32,
    /// Worker classes (identical throughput columns) the market priced.
    pub classes: u32,
}

/// Transfer-solver statistics of a run (optional result field).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlacementTransferStats {
    /// Categories the transfer solver decided (certified unique optimum).
    pub categories: u64,
    /// Categories the market decided (degenerate or uncertified).
    pub degenerate: u64,
    /// Augmenting paths and cancelled cycles pushed.
    pub paths: u64,
}

/// JPS details (optional result field).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlacementJpsInfo {
    /// abs(Psi).
    pub categories: u64,
    /// First sampled index floor(alpha abs(Psi)).
    pub from: u64,
    /// Job ids in priority order (Algorithm 3, line 1).
    pub priority: Vec<String>,
}

/// One job of a placement result: its id and how it ended.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlacementJobRow {
    /// Job id.
    pub id: String,
    /// How the job ended (`docs/open-world.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<crate::status::JobStatus>,
}

/// `summary` of a placement result.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlacementSummary {
    /// How many jobs ended with each status.
    #[serde(default)]
    pub statuses: crate::status::StatusCounts,
}

/// `best`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlacementBest {
    /// K_i per job.
    pub category: Vec<u32>,
    /// Job id -> worker indices.
    pub assignment: BTreeMap<String, Vec<u32>>,
    /// Job id -> samples per assigned worker.
    pub workload: BTreeMap<String, Vec<f64>>,
    /// Job id -> V_i.
    pub throughput: BTreeMap<String, f64>,
    /// Job id -> JCT seconds.
    pub jct: BTreeMap<String, f64>,
    /// Average JCT.
    pub avg_jct: f64,
    /// Jain fairness F.
    pub fairness: f64,
}

/// One row of `per_category`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlacementCategory {
    /// K_i per job.
    pub category: Vec<u32>,
    /// Job id -> worker indices.
    pub assignment: BTreeMap<String, Vec<u32>>,
    /// Average JCT.
    pub avg_jct: f64,
    /// Sum of V_i.
    pub total_throughput: f64,
    /// Jain fairness.
    pub fairness: f64,
    /// Index of the category in Algorithm 1's order over the input job order.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rank: Option<u64>,
    /// Market price updates for this category.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub market_rounds: Option<u32>,
}
