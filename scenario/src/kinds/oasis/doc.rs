//! Kind `"oasis"`: the scenario document, its validation, and the result document.
use crate::doc::check::{self, job};
use crate::error::InputError;
use mlsched_kernel::limits::{JOBS_MAX, PS_SERVERS_MAX, SERVERS_MAX, SLOTS_MAX};
use mlsched_kernel::model::oasis::{OasisJob, OasisScenario, PriceBounds, Utility};
use mlsched_kernel::restart::RestartCost;
use serde::{Deserialize, Serialize};

/// The `"oasis"` scenario as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OasisDoc {
    /// Always "oasis".
    pub kind: String,
    /// T.
    pub slots: f64,
    /// Resource names.
    pub resources: Vec<String>,
    /// c_h^r.
    pub worker_servers: crate::doc::servers::ServerList,
    /// c_k^r.
    pub ps_servers: crate::doc::servers::ServerList,
    /// U1, U2, L1, L2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prices: Option<PricesDoc>,
    /// The cost of preemption in slots (`docs/restart.md`): absent = not modelled (today's
    /// results, byte for byte); set (even 0) = restarts are counted in the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_slots: Option<f64>,
    /// Charge the restart time on every job's first start too, as the Pollux simulator does
    /// (`docs/peer.md`; needs `restart_slots`). Absent or false: the first start is free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_first: Option<bool>,
    /// Seconds per slot, when the slots are real time (`import pollux --workload` writes 60):
    /// Tiresias' 16 GPU-hour demotion threshold is counted with it (absent: 3,600 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot_seconds: Option<f64>,
    /// The Dorm baseline's branch-and-bound node budget per event (`docs/oasis.md`, "The work
    /// bound is a budget"): a whole number >= 0 or `"unlimited"` (2^64 - 1 nodes, so every
    /// event is solved to proven optimality). Absent: `DORM_EVENT_NODES`. Other policies
    /// ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dorm_event_nodes: Option<DormNodesDoc>,
    /// Jobs.
    pub jobs: Vec<OasisJobDoc>,
    /// Placement-aware speed-ups per model family for the baselines (absent: the linear chunk
    /// model); see `docs/throughput.md`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput: Option<crate::doc::throughput::ThroughputDoc>,
}

/// `dorm_event_nodes`: a node count, or the word `"unlimited"`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum DormNodesDoc {
    /// A budget of this many nodes per event (a whole number >= 0).
    Count(f64),
    /// `"unlimited"`: 2^64 - 1 nodes per event (the search's counter is a u64, so its loop
    /// stays bounded; the tree is finite and is always exhausted long before).
    Word(String),
}

/// Largest numeric `dorm_event_nodes`: 2^53, the largest whole number a JSON number (an
/// f64) holds exactly; `"unlimited"` is the way to ask for more.
pub const DORM_EVENT_NODES_DOC_MAX: u64 = 1 << 53;

/// `prices`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PricesDoc {
    /// U1^r.
    pub u_worker: Vec<f64>,
    /// U2^r.
    pub u_ps: Vec<f64>,
    /// L1.
    pub l_worker: f64,
    /// L2.
    pub l_ps: f64,
}

/// One job as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OasisJobDoc {
    /// Id.
    pub id: String,
    /// a_i.
    pub arrival: f64,
    /// E_i.
    pub epochs: f64,
    /// N_i.
    pub chunks: f64,
    /// M_i.
    pub minibatches_per_chunk: f64,
    /// tau_i.
    pub minibatch_time: f64,
    /// e_i / b_i.
    pub comm_time: f64,
    /// b_i.
    pub worker_bw: f64,
    /// B_i.
    pub ps_bw: f64,
    /// w_i^r.
    pub worker_demand: Vec<f64>,
    /// s_i^r.
    pub ps_demand: Vec<f64>,
    /// f_i.
    pub utility: UtilityDoc,
    /// The job's model family in `throughput.models` (absent: linear speed-up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The workers (GPUs) the job asks for, at most N_i: FIFO, LAS and Tiresias run exactly
    /// this many instead of min(N_i, 8), and in a scenario that gives it Optimus decides from
    /// the speed-up table (`docs/peer.md`). Absent: today's baselines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<f64>,
}

/// `utility`: exactly one of `sigmoid` or `table`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum UtilityDoc {
    /// g1 / (1 + exp(g2 (t - a - g3))).
    Sigmoid(SigmoidDoc),
    /// f(0), f(1), ...
    Table(Vec<f64>),
}

/// Sigmoid parameters.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SigmoidDoc {
    /// gamma_1.
    pub priority: f64,
    /// gamma_2.
    pub decay: f64,
    /// gamma_3.
    pub target: f64,
}

impl OasisDoc {
    /// The servers' ids in the kernel's index order (`docs/open-world.md`): the worker
    /// servers (`w<h>` unless given an `id`), then the parameter servers (`ps<k>`).
    pub fn server_ids(&self) -> Vec<String> {
        let w = &self.worker_servers;
        let workers = (0..w.len()).map(|h| w.id_or(h, |h| format!("w{h}")));
        let p = &self.ps_servers;
        workers
            .chain((0..p.len()).map(|k| p.id_or(k, |k| format!("ps{k}"))))
            .collect()
    }

    /// The default ids (`w<h>`, `ps<k>`): the ones the kind's occupancy is derived with.
    pub fn default_server_ids(&self) -> Vec<String> {
        let workers = (0..self.worker_servers.len()).map(|h| format!("w{h}"));
        workers
            .chain((0..self.ps_servers.len()).map(|k| format!("ps{k}")))
            .collect()
    }

    /// Checks every value and builds the kernel model; errors name the job/server and field.
    pub fn validate(&self) -> Result<OasisScenario, InputError> {
        let s = "scenario";
        crate::doc::servers::check_ids(&self.server_ids())?;
        let slots = check::int_limit(s, "slots", self.slots, 1, SLOTS_MAX as u64, "SLOTS_MAX")?;
        self.restart()?;
        self.peer()?;
        self.dorm_nodes()?;
        check::resources(&self.resources)?;
        let r = self.resources.len();
        check::count_limit(
            s,
            "worker_servers",
            self.worker_servers.len(),
            1,
            SERVERS_MAX,
            "SERVERS_MAX",
        )?;
        check::count_limit(
            s,
            "ps_servers",
            self.ps_servers.len(),
            1,
            PS_SERVERS_MAX,
            "PS_SERVERS_MAX",
        )?;
        let worker_servers = self
            .worker_servers
            .iter()
            .enumerate()
            .map(|(h, c)| check::vector(&format!("worker server {h}"), "capacity", c, r))
            .collect::<Result<Vec<_>, _>>()?;
        let ps_servers = self
            .ps_servers
            .iter()
            .enumerate()
            .map(|(k, c)| check::vector(&format!("ps server {k}"), "capacity", c, r))
            .collect::<Result<Vec<_>, _>>()?;
        let prices = self.prices.as_ref().map(|p| p.validate(r)).transpose()?;
        check::count_limit(s, "jobs", self.jobs.len(), 0, JOBS_MAX, "JOBS_MAX")?;
        check::ids("job", "jobs", self.jobs.iter().map(|j| j.id.as_str()))?;
        let jobs = self
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| {
                j.validate(slots, &self.resources, &worker_servers, &ps_servers)
                    .map_err(|e| check::locate(e, "jobs", i))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(OasisScenario {
            slots,
            resources: r as u32,
            worker_servers,
            ps_servers,
            prices,
            jobs,
            throughput: self.throughput()?,
        })
    }

    /// The validated `throughput` table; a job naming a `model` without one is an error.
    fn throughput(
        &self,
    ) -> Result<Option<mlsched_kernel::model::throughput::Throughput>, InputError> {
        let jobs = self
            .jobs
            .iter()
            .map(|j| (j.id.as_str(), j.model.as_deref()));
        crate::doc::throughput::resolve(self.throughput.as_ref(), jobs)
    }
}

impl OasisDoc {
    /// The validated peer options: each job's requested workers (1 ..= N_i; 0 where absent,
    /// empty when no job gives one), `slot_seconds` (> 0) and whether the first start is
    /// charged (`restart_first` needs `restart_slots`).
    pub fn peer(&self) -> Result<(Vec<u32>, Option<f64>, bool), InputError> {
        let s = "scenario";
        let slot = self
            .slot_seconds
            .map(|v| check::positive(s, "slot_seconds", v))
            .transpose()?;
        let first = self.restart_first.unwrap_or(false);
        if first && self.restart_slots.is_none() {
            return Err(InputError::new(
                s,
                "restart_first",
                "needs restart_slots (the restart time to charge)",
            ));
        }
        let mut req = Vec::new();
        if self.jobs.iter().any(|j| j.workers.is_some()) {
            for j in &self.jobs {
                let w = match j.workers {
                    Some(w) => {
                        let hi = if j.chunks.is_finite() && j.chunks >= 1.0 {
                            j.chunks as u64
                        } else {
                            1
                        };
                        check::int(&job(&j.id), "workers", w, 1, hi)?
                    }
                    None => 0,
                };
                req.push(w);
            }
        }
        Ok((req, slot, first))
    }

    /// The validated `dorm_event_nodes` (`None` when absent: the kernel's default budget);
    /// `"unlimited"` is `u64::MAX`.
    pub fn dorm_nodes(&self) -> Result<Option<u64>, InputError> {
        let (s, f) = ("scenario", "dorm_event_nodes");
        match &self.dorm_event_nodes {
            None => Ok(None),
            Some(DormNodesDoc::Word(w)) if w == "unlimited" => Ok(Some(u64::MAX)),
            Some(DormNodesDoc::Word(w)) => Err(InputError::new(
                s,
                f,
                format!("must be a whole number >= 0 or \"unlimited\", got \"{w}\""),
            )),
            Some(DormNodesDoc::Count(v)) => {
                check::finite(s, f, *v)?;
                let hi = DORM_EVENT_NODES_DOC_MAX;
                if v.fract() != 0.0 || *v < 0.0 || *v > hi as f64 {
                    return Err(InputError::new(
                        s,
                        f,
                        format!("must be a whole number in 0..={hi} or \"unlimited\", got {v}"),
                    ));
                }
                Ok(Some(*v as u64))
            }
        }
    }

    /// The validated `restart_slots` (`None` when absent).
    pub fn restart(&self) -> Result<Option<RestartCost>, InputError> {
        self.restart_slots
            .map(|v| {
                let v = check::non_negative("scenario", "restart_slots", v)?;
                RestartCost::slots(v)
                    .map_err(|e| InputError::new("scenario", "restart_slots", e.to_string()))
            })
            .transpose()
    }
}

impl OasisDoc {
    /// This document without its jobs: what [`OasisDoc::submitted`] checks a job against,
    /// kept by an engine that accepts submissions.
    pub(crate) fn frame(&self) -> OasisDoc {
        OasisDoc {
            kind: self.kind.clone(),
            slots: self.slots,
            resources: self.resources.clone(),
            worker_servers: self.worker_servers.clone(),
            ps_servers: self.ps_servers.clone(),
            prices: self.prices.clone(),
            restart_slots: self.restart_slots,
            restart_first: self.restart_first,
            slot_seconds: self.slot_seconds,
            dorm_event_nodes: self.dorm_event_nodes.clone(),
            jobs: Vec::new(),
            throughput: self.throughput.clone(),
        }
    }

    /// A submitted job (`docs/open-world.md`): `job` is checked exactly as an entry of `jobs`
    /// (the same messages, the field named `job.<field>`), against the scenario `scn` built
    /// from this document, so a submission costs what one job's check costs. `arrival`
    /// absent = `now`.
    pub fn submitted(
        &self,
        job: &serde_json::Map<String, serde_json::Value>,
        now: u32,
        scn: &OasisScenario,
    ) -> Result<(OasisJobDoc, OasisJob), InputError> {
        let mut m = job.clone();
        m.entry("arrival").or_insert_with(|| now.into());
        let d: OasisJobDoc = serde_json::from_value(serde_json::Value::Object(m)).map_err(|e| {
            let msg = e.to_string();
            let id = job.get("id").and_then(|v| v.as_str()).unwrap_or("");
            match msg
                .strip_prefix("missing field `")
                .and_then(|m| m.strip_suffix('`'))
            {
                Some(f) => {
                    InputError::new(check::job(id), format!("job.{f}"), "missing (required)")
                }
                None => InputError::new(check::job(id), "job", msg),
            }
        })?;
        let in_job = |mut e: InputError| {
            e.field = format!("job.{}", e.field);
            e
        };
        if let Some(w) = d.workers {
            let hi = if d.chunks.is_finite() && d.chunks >= 1.0 {
                d.chunks as u64
            } else {
                1
            };
            check::int(&check::job(&d.id), "workers", w, 1, hi).map_err(in_job)?;
        }
        crate::doc::throughput::resolve(
            self.throughput.as_ref(),
            std::iter::once((d.id.as_str(), d.model.as_deref())),
        )
        .map_err(in_job)?;
        let j = d
            .validate(
                scn.slots,
                &self.resources,
                &scn.worker_servers,
                &scn.ps_servers,
            )
            .map_err(in_job)?;
        Ok((d, j))
    }
}

impl PricesDoc {
    fn validate(&self, r: usize) -> Result<PriceBounds, InputError> {
        let s = "prices";
        let l_worker = check::positive(s, "l_worker", self.l_worker)?;
        let l_ps = check::positive(s, "l_ps", self.l_ps)?;
        let u_worker = check::vector(s, "u_worker", &self.u_worker, r)?;
        let u_ps = check::vector(s, "u_ps", &self.u_ps, r)?;
        for (field, u, l) in [("u_worker", &u_worker, l_worker), ("u_ps", &u_ps, l_ps)] {
            for (i, &x) in u.as_slice().iter().enumerate() {
                if x < l {
                    return Err(InputError::new(
                        s,
                        format!("{field}[{i}]"),
                        format!("must be >= the price floor {l}, got {x}"),
                    ));
                }
            }
        }
        Ok(PriceBounds {
            u_worker,
            u_ps,
            l_worker,
            l_ps,
        })
    }
}

impl OasisJobDoc {
    fn validate(
        &self,
        slots: u32,
        resources: &[String],
        workers: &[mlsched_kernel::ResourceVec],
        ps: &[mlsched_kernel::ResourceVec],
    ) -> Result<OasisJob, InputError> {
        let s = &job(&self.id);
        let arrival = check::int(s, "arrival", self.arrival, 0, slots as u64 - 1)
            .map_err(|e| horizon(e, self.arrival, slots))?;
        Ok(OasisJob {
            arrival,
            epochs: check::int(s, "epochs", self.epochs, 1, u32::MAX as u64)?,
            chunks: check::int(s, "chunks", self.chunks, 1, u32::MAX as u64)?,
            minibatches_per_chunk: check::int(
                s,
                "minibatches_per_chunk",
                self.minibatches_per_chunk,
                1,
                u32::MAX as u64,
            )?,
            minibatch_time: check::positive(s, "minibatch_time", self.minibatch_time)?,
            comm_time: check::non_negative(s, "comm_time", self.comm_time)?,
            worker_bw: check::positive(s, "worker_bw", self.worker_bw)?,
            ps_bw: check::positive(s, "ps_bw", self.ps_bw)?,
            worker_demand: check::demand(
                s,
                "worker_demand",
                &self.worker_demand,
                resources,
                workers,
                "worker server",
            )?,
            ps_demand: check::demand(s, "ps_demand", &self.ps_demand, resources, ps, "ps server")?,
            utility: self.utility.validate(s)?,
        })
    }
}

/// Rewords an out-of-range arrival as "outside the horizon".
pub(crate) fn horizon(e: InputError, arrival: f64, slots: u32) -> InputError {
    if arrival.is_finite() && arrival.fract() == 0.0 && arrival >= slots as f64 {
        InputError::new(
            e.subject,
            e.field,
            format!("{arrival} is outside the horizon 0..{slots}"),
        )
    } else {
        e
    }
}

impl UtilityDoc {
    fn validate(&self, s: &str) -> Result<Utility, InputError> {
        match self {
            UtilityDoc::Sigmoid(g) => Ok(Utility::Sigmoid {
                priority: check::positive(s, "utility.sigmoid.priority", g.priority)?,
                decay: check::non_negative(s, "utility.sigmoid.decay", g.decay)?,
                target: check::real(s, "utility.sigmoid.target", g.target)?,
            }),
            UtilityDoc::Table(v) => {
                if v.is_empty() {
                    return Err(InputError::new(
                        s,
                        "utility.table",
                        "needs at least 1 entry, got 0",
                    ));
                }
                for (i, &x) in v.iter().enumerate() {
                    check::non_negative(s, &format!("utility.table[{i}]"), x)?;
                    if i > 0 && x > v[i - 1] {
                        return Err(InputError::new(
                            s,
                            format!("utility.table[{i}]"),
                            format!("must be non-increasing: {x} > {}", v[i - 1]),
                        ));
                    }
                }
                Ok(Utility::Table(v.clone()))
            }
        }
    }
}

/// The result document of kind `"oasis"`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OasisResult {
    /// "oasis".
    pub kind: String,
    /// Policy that produced it ("oasis" or a baseline).
    pub policy: String,
    /// Totals.
    pub summary: OasisSummary,
    /// Per job, in input order.
    pub jobs: Vec<OasisJobResult>,
    /// Who holds which server when, sorted and merged (`docs/formats.md`, "Occupancy";
    /// [`crate::occupancy`]).
    #[serde(default)]
    pub occupancy: Vec<crate::occupancy::Span>,
    /// Hash of the decision records (16 hex digits).
    pub log_hash: String,
}

/// `summary`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OasisSummary {
    /// How many jobs ended with each status.
    #[serde(default)]
    pub statuses: crate::status::StatusCounts,
    /// Jobs admitted.
    pub admitted: u32,
    /// Jobs rejected.
    pub rejected: u32,
    /// Sum of f_i(t_hat - a_i) over admitted jobs.
    pub total_utility: f64,
    /// Present when the scenario gave no `prices`: says that U1, U2, L1, L2 were derived from the
    /// whole job list by eqs. (23)-(26), an offline-knowledge estimate.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub prices: Option<String>,
    /// Restarts over all jobs (only when the scenario sets `restart_slots`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub restarts: Option<u64>,
    /// The Dorm baseline's solver counts (policy `dorm` only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub dorm: Option<DormSummary>,
}

/// `summary.dorm`: how Dorm's per-event MILP solves went (`docs/oasis.md`, "The Dorm
/// baseline").
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DormSummary {
    /// Arrival / completion events solved.
    pub events: u32,
    /// Events solved to proven optimality.
    pub optimal: u32,
    /// Events whose search reached the per-event node budget (`DORM_EVENT_NODES`): the best
    /// feasible allocation found was applied.
    pub stopped_at_budget: u32,
    /// The largest relative optimality gap of a stopped event, (upper bound - applied) / upper
    /// bound; 0 when every event was solved to optimality.
    pub gap_max: f64,
    /// Events whose fairness bound had to be doubled.
    pub fairness_raised: u32,
    /// Events where both bounds were lifted.
    pub bounds_lifted: u32,
    /// Branch-and-bound nodes over all events.
    pub nodes: u64,
    /// Most nodes of one event.
    pub nodes_event_max: u64,
}

/// The note `summary.prices` carries when the price bounds were derived.
pub const PRICES_DERIVED: &str =
    "derived from the whole job list by eqs. (23)-(26) (an offline-knowledge estimate)";

/// One job's decision.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OasisJobResult {
    /// Job id.
    pub id: String,
    /// How the job ended (`docs/open-world.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<crate::status::JobStatus>,
    /// Admitted?
    pub admitted: bool,
    /// t_hat (admitted only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub completion_slot: Option<u32>,
    /// f_i(t_hat - a_i).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub utility: Option<f64>,
    /// Priced cost of the chosen schedule at decision time.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cost: Option<f64>,
    /// utility - cost.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub payoff: Option<f64>,
    /// Why a job was rejected.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    /// Per-slot placement (admitted only).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub placements: Vec<OasisPlacement>,
    /// Restarts of this job (only when the scenario sets `restart_slots`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub restarts: Option<u32>,
}

/// One slot of an admitted schedule.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OasisPlacement {
    /// Slot t.
    pub slot: u32,
    /// `[server index, workers]` pairs.
    pub workers: Vec<[u32; 2]>,
    /// `[server index, parameter servers]` pairs.
    pub ps: Vec<[u32; 2]>,
}
