//! Kind `"online"`: the scenario document, its validation, and the result document.
use crate::doc::check::{self, job};
use crate::error::InputError;
use mlsched_kernel::limits::{JOBS_MAX, PS_TYPES_MAX, SERVERS_MAX, SLOTS_MAX, WORKER_TYPES_MAX};
use mlsched_kernel::model::online::{Architecture, OnlineJob, OnlineScenario, TaskType};
use mlsched_kernel::ResourceVec;
use serde::{Deserialize, Serialize};

/// The `"online"` scenario as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OnlineDoc {
    /// Always "online".
    pub kind: String,
    /// T.
    pub slots: f64,
    /// "ps" or "ring".
    pub architecture: ArchitectureDoc,
    /// Resource names.
    pub resources: Vec<String>,
    /// C_h^r.
    pub servers: crate::doc::servers::ServerList,
    /// Worker types.
    pub worker_types: Vec<TaskTypeDoc>,
    /// PS types (absent for ring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ps_types: Option<Vec<TaskTypeDoc>>,
    /// F.
    #[serde(rename = "F")]
    pub f: f64,
    /// alpha (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// A_online's rounds continue past T (absent = false: windows clipped at T).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds_past_horizon: Option<bool>,
    /// Jobs.
    pub jobs: Vec<OnlineJobDoc>,
    /// Placement-aware speed-ups per model family for the baselines (absent: eq. (1));
    /// see `docs/throughput.md`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput: Option<crate::doc::throughput::ThroughputDoc>,
}

/// `architecture`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ArchitectureDoc {
    /// Parameter servers.
    Ps,
    /// Ring-AllReduce.
    Ring,
}

/// A worker or PS type.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TaskTypeDoc {
    /// e_m^r / z_p^r.
    pub demand: Vec<f64>,
    /// b_m / B_p.
    pub bw: f64,
}

/// One job as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OnlineJobDoc {
    /// Id.
    pub id: String,
    /// a_j.
    pub arrival: f64,
    /// w_j.
    pub weight: f64,
    /// E_j.
    pub epochs: f64,
    /// D_j.
    pub chunks: f64,
    /// K_j.
    pub minibatches_per_chunk: f64,
    /// v_jm.
    pub minibatch_time: Vec<f64>,
    /// U_j^p (ring: one value).
    pub update_time: Vec<f64>,
    /// pi_j.
    pub gradient_size: f64,
    /// The job's model family in `throughput.models` (absent: linear speed-up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Default alpha of A_dual (the paper's observed value).
pub const ALPHA_DEFAULT: u32 = 4;

impl OnlineDoc {
    /// The servers' ids in the kernel's index order (`docs/open-world.md`): `h<h>`.
    pub fn server_ids(&self) -> Vec<String> {
        (0..self.servers.len())
            .map(|h| self.servers.id_or(h, |h| format!("h{h}")))
            .collect()
    }

    /// The default ids (`h<h>`): the ones the kind's occupancy is derived with.
    pub fn default_server_ids(&self) -> Vec<String> {
        (0..self.servers.len()).map(|h| format!("h{h}")).collect()
    }

    /// Checks every value and builds the kernel model.
    pub fn validate(&self) -> Result<OnlineScenario, InputError> {
        let s = "scenario";
        crate::doc::servers::check_ids(&self.server_ids())?;
        let slots = check::int_limit(s, "slots", self.slots, 1, SLOTS_MAX as u64, "SLOTS_MAX")?;
        check::resources(&self.resources)?;
        let r = self.resources.len();
        check::count_limit(
            s,
            "servers",
            self.servers.len(),
            1,
            SERVERS_MAX,
            "SERVERS_MAX",
        )?;
        let servers = self
            .servers
            .iter()
            .enumerate()
            .map(|(h, c)| check::vector(&format!("server {h}"), "capacity", c, r))
            .collect::<Result<Vec<_>, _>>()?;
        check::count_limit(
            s,
            "worker_types",
            self.worker_types.len(),
            1,
            WORKER_TYPES_MAX,
            "WORKER_TYPES_MAX",
        )?;
        let worker_types = self
            .worker_types
            .iter()
            .enumerate()
            .map(|(m, t)| t.validate(&format!("worker type {m}"), &self.resources, &servers))
            .collect::<Result<Vec<_>, _>>()?;
        let architecture = match self.architecture {
            ArchitectureDoc::Ps => Architecture::Ps,
            ArchitectureDoc::Ring => Architecture::Ring,
        };
        let ps_types = match (architecture, &self.ps_types) {
            (Architecture::Ring, None) => Vec::new(),
            (Architecture::Ring, Some(_)) => {
                return Err(InputError::new(
                    s,
                    "ps_types",
                    "must be absent when architecture is \"ring\"",
                ))
            }
            (Architecture::Ps, None) => {
                return Err(InputError::new(
                    s,
                    "ps_types",
                    "missing; architecture \"ps\" needs at least one PS type",
                ))
            }
            (Architecture::Ps, Some(v)) => {
                check::count_limit(s, "ps_types", v.len(), 1, PS_TYPES_MAX, "PS_TYPES_MAX")?;
                v.iter()
                    .enumerate()
                    .map(|(p, t)| t.validate(&format!("ps type {p}"), &self.resources, &servers))
                    .collect::<Result<Vec<_>, _>>()?
            }
        };
        let f = check::positive(s, "F", self.f)?;
        let alpha = match self.alpha {
            None => ALPHA_DEFAULT,
            Some(a) => check::int(s, "alpha", a, 1, 64)?,
        };
        check::count_limit(s, "jobs", self.jobs.len(), 0, JOBS_MAX, "JOBS_MAX")?;
        check::ids("job", "jobs", self.jobs.iter().map(|j| j.id.as_str()))?;
        let updates = if architecture == Architecture::Ring {
            1
        } else {
            ps_types.len()
        };
        let jobs = self
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| {
                j.validate(slots, worker_types.len(), updates, architecture)
                    .map_err(|e| check::locate(e, "jobs", i))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let scn = OnlineScenario {
            slots,
            architecture,
            resources: r as u32,
            servers,
            worker_types,
            ps_types,
            f,
            alpha,
            rounds_past_horizon: self.rounds_past_horizon.unwrap_or(false),
            jobs,
            throughput: crate::doc::throughput::resolve(
                self.throughput.as_ref(),
                self.jobs
                    .iter()
                    .map(|j| (j.id.as_str(), j.model.as_deref())),
            )?,
        };
        // Rounds past T schedule up to 2 alpha 2^3 tau_c slots (tau_c the first power of two
        // >= T): that extended horizon must itself be a valid horizon.
        if scn.horizon() as usize > SLOTS_MAX {
            return Err(InputError::new(
                s,
                "rounds_past_horizon",
                format!(
                    "extends the horizon to {} slots (2 alpha 8 tau_c), more than SLOTS_MAX = {SLOTS_MAX}; use a smaller slots or alpha",
                    scn.horizon()
                ),
            ));
        }
        Ok(scn)
    }
}

/// A job submitted at `now` (open world, `docs/open-world.md`): the object of a `jobs` entry
/// (`arrival` absent = `now`), checked with a listed job's rules and messages against the
/// scenario `scn` was built from, the field named `job.<field>`. Costs what one listed job's
/// check costs (the document is not checked again). A `model` is refused: the kernel's speed-up
/// table is fixed when the run starts, so a submitted job would silently get eq. (1).
pub fn submitted_job(
    scn: &OnlineScenario,
    now: u32,
    obj: &serde_json::Map<String, serde_json::Value>,
) -> Result<(OnlineJobDoc, OnlineJob), InputError> {
    let mut obj = obj.clone();
    obj.entry("arrival").or_insert_with(|| now.into());
    let doc: OnlineJobDoc = serde_json::from_value(serde_json::Value::Object(obj))
        .map_err(|e| InputError::new("event", "job", e.to_string()))?;
    let named = |mut e: InputError| {
        let field = e.field.rsplit("].").next().unwrap_or(&e.field).to_string();
        e.field = format!("job.{field}");
        e
    };
    check::ids("job", "job", std::iter::once(doc.id.as_str())).map_err(named)?;
    if doc.model.is_some() {
        return Err(InputError::new(
            job(&doc.id),
            "job.model",
            "a submitted job cannot name a model family (the speed-up table is fixed when the run starts)",
        ));
    }
    let updates = match scn.architecture {
        Architecture::Ring => 1,
        Architecture::Ps => scn.ps_types.len(),
    };
    let kernel = doc
        .validate(scn.slots, scn.worker_types.len(), updates, scn.architecture)
        .map_err(named)?;
    Ok((doc, kernel))
}

impl TaskTypeDoc {
    fn validate(
        &self,
        s: &str,
        resources: &[String],
        servers: &[ResourceVec],
    ) -> Result<TaskType, InputError> {
        Ok(TaskType {
            demand: check::demand(s, "demand", &self.demand, resources, servers, "server")?,
            bw: check::positive(s, "bw", self.bw)?,
        })
    }
}

impl OnlineJobDoc {
    fn validate(
        &self,
        slots: u32,
        worker_types: usize,
        updates: usize,
        arch: Architecture,
    ) -> Result<OnlineJob, InputError> {
        let s = &job(&self.id);
        let arrival = check::int(s, "arrival", self.arrival, 0, slots as u64 - 1)
            .map_err(|e| crate::kinds::oasis::doc::horizon(e, self.arrival, slots))?;
        if self.minibatch_time.len() != worker_types {
            return Err(InputError::new(
                s,
                "minibatch_time",
                format!(
                    "has {} entries, expected {worker_types} (one per worker type)",
                    self.minibatch_time.len()
                ),
            ));
        }
        for (m, &v) in self.minibatch_time.iter().enumerate() {
            check::positive(s, &format!("minibatch_time[{m}]"), v)?;
        }
        if self.update_time.len() != updates {
            let what = if arch == Architecture::Ring {
                "one value U_j for ring"
            } else {
                "one per PS type"
            };
            return Err(InputError::new(
                s,
                "update_time",
                format!(
                    "has {} entries, expected {updates} ({what})",
                    self.update_time.len()
                ),
            ));
        }
        for (p, &u) in self.update_time.iter().enumerate() {
            check::non_negative(s, &format!("update_time[{p}]"), u)?;
        }
        Ok(OnlineJob {
            arrival,
            weight: check::positive(s, "weight", self.weight)?,
            epochs: check::int(s, "epochs", self.epochs, 1, u32::MAX as u64)?,
            chunks: check::int(s, "chunks", self.chunks, 1, u32::MAX as u64)?,
            minibatches_per_chunk: check::int(
                s,
                "minibatches_per_chunk",
                self.minibatches_per_chunk,
                1,
                u32::MAX as u64,
            )?,
            minibatch_time: self.minibatch_time.clone(),
            update_time: self.update_time.clone(),
            gradient_size: check::non_negative(s, "gradient_size", self.gradient_size)?,
        })
    }
}

/// The result document of kind `"online"`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OnlineResult {
    /// "online".
    pub kind: String,
    /// Policy.
    pub policy: String,
    /// Totals.
    pub summary: OnlineSummary,
    /// Per job, input order.
    pub jobs: Vec<OnlineJobResult>,
    /// Who holds which server when, sorted and merged (`docs/formats.md`, "Occupancy";
    /// [`crate::occupancy`]).
    #[serde(default)]
    pub occupancy: Vec<crate::occupancy::Span>,
    /// Hash of the decision records.
    pub log_hash: String,
}

/// `summary`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OnlineSummary {
    /// How many jobs ended with each status.
    #[serde(default)]
    pub statuses: crate::status::StatusCounts,
    /// Jobs scheduled.
    pub scheduled: u32,
    /// sum_j w_j (t_j + d_j) over scheduled jobs.
    pub total_weighted_completion_time: f64,
    /// alpha used.
    pub alpha: u32,
    /// Theorem 5's alpha, reported beside it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub alpha_theoretical: Option<u64>,
}

/// One job's schedule.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OnlineJobResult {
    /// Id.
    pub id: String,
    /// How the job ended (`docs/open-world.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<crate::status::JobStatus>,
    /// Scheduled within the horizon?
    pub scheduled: bool,
    /// t_j.
    pub start_slot: Option<u32>,
    /// d_j (L_j).
    pub duration: Option<u32>,
    /// t_j + d_j.
    pub completion_slot: Option<u32>,
    /// m.
    pub worker_type: Option<u32>,
    /// p (null for ring).
    pub ps_type: Option<u32>,
    /// q_j.
    pub colocated: bool,
    /// `[server, workers, ps]`.
    pub placement: Vec<[u32; 3]>,
    /// Round i.
    pub round: Option<u32>,
    /// Cost of the chosen schedule under the prices at decision time.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cost: Option<f64>,
    /// u_j = w_j - cost.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub utility: Option<f64>,
    /// Open world: the job's earlier runs that a cancel or an interruption ended before their
    /// end, in time order, each as it really held (absent in a closed world). The fields above
    /// are the job's last run, when it has one that was not cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cut_runs: Vec<OnlineRun>,
}

/// A run of a job that a cancel or an interruption ended at `end_slot` (open world).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OnlineRun {
    /// Its first slot.
    pub start_slot: u32,
    /// The slot it ended at (the event's slot): it held its placement over
    /// `start_slot..end_slot`.
    pub end_slot: u32,
    /// m.
    pub worker_type: u32,
    /// p (null for ring).
    pub ps_type: Option<u32>,
    /// `[server, workers, ps]`.
    pub placement: Vec<[u32; 3]>,
}

impl OnlineJobResult {
    /// The chosen types as printed in summaries: `m<m>/p<p>` (PS), `m<m>` (ring), empty if none.
    pub fn type_label(&self) -> String {
        match (self.worker_type, self.ps_type) {
            (Some(m), Some(p)) => format!("m{m}/p{p}"),
            (Some(m), None) => format!("m{m}"),
            _ => String::new(),
        }
    }

    /// The placement as printed in summaries: `y@h` or `y+sps@h` per server, space-separated.
    pub fn placement_label(&self) -> String {
        let place: Vec<String> = self
            .placement
            .iter()
            .map(|[h, y, s]| {
                if *s > 0 {
                    format!("{y}+{s}ps@{h}")
                } else {
                    format!("{y}@{h}")
                }
            })
            .collect();
        place.join(" ")
    }
}
