//! Kind `"preempt"`: the scenario document, its validation, and the result document.
use crate::doc::check::{self, job};
use crate::error::InputError;
use mlsched_kernel::limits::{
    CHUNKS_MAX, EDGE_SERVERS_MAX, JOBS_MAX, PS_PER_SERVER_MAX, SLOTS_MAX, WORKERS_PER_SERVER_MAX,
};
use mlsched_kernel::model::preempt::{PreemptJob, PreemptScenario, PreemptServer};
use serde::{Deserialize, Serialize};

/// The `"preempt"` scenario as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PreemptDoc {
    /// Always "preempt".
    pub kind: String,
    /// Horizon.
    pub slots: f64,
    /// PRNG seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<f64>,
    /// Servers.
    pub servers: Vec<PreemptServerDoc>,
    /// Restart time a preempted chunk pays, whole slots (`docs/restart.md`): absent = not
    /// modelled (today's results byte for byte); set, even to 0, = restarts are counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_slots: Option<f64>,
    /// Jobs.
    pub jobs: Vec<PreemptJobDoc>,
}

/// A server.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PreemptServerDoc {
    /// Id.
    pub id: String,
    /// abs(W_s) (edge servers; absent for the cloud).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<f64>,
    /// Parameter servers.
    pub ps: f64,
    /// The cloud?
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cloud: bool,
}

/// A job.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PreemptJobDoc {
    /// Id.
    pub id: String,
    /// r_j.
    pub arrival: f64,
    /// E_j.
    pub epochs: f64,
    /// D_j.
    pub chunks: f64,
    /// B_j.
    pub minibatches_per_chunk: f64,
    /// n_jsw (zeta_j = 0).
    pub rate: Vec<Vec<f64>>,
    /// n_jsw (zeta_j = 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_colocated: Option<Vec<Vec<f64>>>,
    /// Delta_js^up.
    pub upload_delay: Vec<f64>,
    /// o_jsp.
    pub ps_eligible: Vec<Vec<bool>>,
}

impl PreemptDoc {
    /// The servers' ids in the kernel's index order (`docs/open-world.md`): each server's `id`
    /// (its capacity has two entries: `workers`, `ps`).
    pub fn server_ids(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.id.clone()).collect()
    }

    /// The validated `restart_slots`: whole slots, 0 up to the plan horizon (`None` when
    /// absent).
    pub fn restart(&self) -> Result<Option<u32>, InputError> {
        self.restart_slots
            .map(|v| {
                let max = mlsched_kernel::limits::PREEMPT_PLAN_SLOTS_MAX as u64;
                check::int("scenario", "restart_slots", v, 0, max)
            })
            .transpose()
    }

    /// Checks every value and builds the kernel model.
    pub fn validate(&self) -> Result<PreemptScenario, InputError> {
        let s = "scenario";
        let slots = check::int_limit(s, "slots", self.slots, 1, SLOTS_MAX as u64, "SLOTS_MAX")?;
        self.restart()?;
        check::count_limit(
            s,
            "servers",
            self.servers.len(),
            1,
            EDGE_SERVERS_MAX,
            "EDGE_SERVERS_MAX",
        )?;
        check::ids(
            "server",
            "servers",
            self.servers.iter().map(|x| x.id.as_str()),
        )?;
        let mut servers = Vec::with_capacity(self.servers.len());
        let mut clouds = 0;
        for (i, sv) in self.servers.iter().enumerate() {
            let ss = format!("server `{}`", sv.id);
            let workers = match (sv.cloud, sv.workers) {
                (true, None) => 0,
                (true, Some(_)) => {
                    return Err(InputError::new(
                        ss,
                        "workers",
                        "must be absent on the cloud (unlimited workers)",
                    ))
                }
                (false, None) => {
                    return Err(InputError::new(
                        ss,
                        "workers",
                        "missing; an edge server needs >= 1 worker",
                    ))
                }
                (false, Some(w)) => check::int_limit(
                    &ss,
                    "workers",
                    w,
                    1,
                    WORKERS_PER_SERVER_MAX as u64,
                    "WORKERS_PER_SERVER_MAX",
                )
                .map_err(|e| check::locate(e, "servers", i))?,
            };
            clouds += sv.cloud as u32;
            if clouds > 1 {
                return Err(InputError::new(
                    ss,
                    "cloud",
                    "only one server may be the cloud",
                ));
            }
            let ps = check::int_limit(
                &ss,
                "ps",
                sv.ps,
                0,
                PS_PER_SERVER_MAX as u64,
                "PS_PER_SERVER_MAX",
            )
            .map_err(|e| check::locate(e, "servers", i))?;
            servers.push(PreemptServer {
                workers,
                ps,
                cloud: sv.cloud,
            });
        }
        check::count_limit(s, "jobs", self.jobs.len(), 0, JOBS_MAX, "JOBS_MAX")?;
        check::ids("job", "jobs", self.jobs.iter().map(|j| j.id.as_str()))?;
        let jobs = self
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| {
                j.validate(slots, &self.servers, &servers)
                    .map_err(|e| check::locate(e, "jobs", i))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(PreemptScenario {
            slots,
            seed: check::seed(s, "seed", self.seed)?,
            servers,
            jobs,
        })
    }
}

fn rates(
    s: &str,
    field: &str,
    v: &[Vec<f64>],
    docs: &[PreemptServerDoc],
    servers: &[PreemptServer],
) -> Result<(), InputError> {
    if v.len() != servers.len() {
        return Err(InputError::new(
            s,
            field,
            format!(
                "has {} entries, expected {} (one per server)",
                v.len(),
                servers.len()
            ),
        ));
    }
    for (i, (row, sv)) in v.iter().zip(servers).enumerate() {
        let want = if sv.cloud { 1 } else { sv.workers as usize };
        if row.len() != want {
            return Err(InputError::new(
                s,
                format!("{field}[{i}]"),
                format!(
                    "has {} entries, expected {want} (workers of server `{}`)",
                    row.len(),
                    docs[i].id
                ),
            ));
        }
        for (w, &x) in row.iter().enumerate() {
            check::non_negative(s, &format!("{field}[{i}][{w}]"), x)?;
        }
    }
    if v.iter().flatten().all(|&x| x == 0.0) {
        return Err(InputError::new(
            s,
            field,
            "no worker is eligible (every rate is 0)",
        ));
    }
    Ok(())
}

impl PreemptJobDoc {
    /// Checks the job against the scenario's horizon and servers (`docs`: as written, `servers`:
    /// validated) and builds the kernel's job; errors name `job `<id>`` and the field.
    pub(crate) fn validate(
        &self,
        slots: u32,
        docs: &[PreemptServerDoc],
        servers: &[PreemptServer],
    ) -> Result<PreemptJob, InputError> {
        let s = &job(&self.id);
        let arrival = check::int(s, "arrival", self.arrival, 0, slots as u64 - 1)
            .map_err(|e| crate::kinds::oasis::doc::horizon(e, self.arrival, slots))?;
        rates(s, "rate", &self.rate, docs, servers)?;
        if let Some(rc) = &self.rate_colocated {
            rates(s, "rate_colocated", rc, docs, servers)?;
        }
        if self.upload_delay.len() != servers.len() {
            return Err(InputError::new(
                s,
                "upload_delay",
                format!(
                    "has {} entries, expected {} (one per server)",
                    self.upload_delay.len(),
                    servers.len()
                ),
            ));
        }
        let upload_delay = self
            .upload_delay
            .iter()
            .enumerate()
            .map(|(i, &d)| {
                check::int_limit(
                    s,
                    &format!("upload_delay[{i}]"),
                    d,
                    0,
                    SLOTS_MAX as u64,
                    "SLOTS_MAX",
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        if self.ps_eligible.len() != servers.len() {
            return Err(InputError::new(
                s,
                "ps_eligible",
                format!(
                    "has {} entries, expected {} (one per server)",
                    self.ps_eligible.len(),
                    servers.len()
                ),
            ));
        }
        for (i, (row, sv)) in self.ps_eligible.iter().zip(servers).enumerate() {
            if row.len() != sv.ps as usize {
                return Err(InputError::new(
                    s,
                    format!("ps_eligible[{i}]"),
                    format!(
                        "has {} entries, expected {} (PSs of server `{}`)",
                        row.len(),
                        sv.ps,
                        docs[i].id
                    ),
                ));
            }
        }
        Ok(PreemptJob {
            arrival,
            epochs: check::int(s, "epochs", self.epochs, 1, u32::MAX as u64)?,
            chunks: check::int_limit(s, "chunks", self.chunks, 1, CHUNKS_MAX as u64, "CHUNKS_MAX")?,
            minibatches_per_chunk: check::int(
                s,
                "minibatches_per_chunk",
                self.minibatches_per_chunk,
                1,
                u32::MAX as u64,
            )?,
            rate: self.rate.clone(),
            rate_colocated: self
                .rate_colocated
                .clone()
                .unwrap_or_else(|| self.rate.clone()),
            upload_delay,
            ps_eligible: self.ps_eligible.clone(),
        })
    }
}

/// The result document of kind `"preempt"`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PreemptResult {
    /// "preempt".
    pub kind: String,
    /// Policy.
    pub policy: String,
    /// Totals.
    pub summary: PreemptSummary,
    /// Per job, input order.
    pub jobs: Vec<PreemptJobResult>,
    /// Who holds which server when, sorted and merged (`docs/formats.md`, "Occupancy";
    /// [`crate::occupancy`]).
    #[serde(default)]
    pub occupancy: Vec<crate::occupancy::Span>,
    /// Hash of the decision records.
    pub log_hash: String,
}

/// `summary`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PreemptSummary {
    /// How many jobs ended with each status.
    #[serde(default)]
    pub statuses: crate::status::StatusCounts,
    /// Average JCT (slots).
    pub avg_jct: f64,
    /// Total JCT.
    pub total_jct: u64,
    /// Preemptions.
    pub preemptions: u64,
    /// Chunks run on the cloud.
    pub cloud_chunks: u64,
    /// Job-slots in which a running job found no free eligible PS (A_ps; optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ps_unassigned: Option<u64>,
    /// Last slot + 1 in which any chunk ran (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub makespan: Option<u32>,
    /// Restarts: the preemptions, each paying the scenario's `restart_slots` (only when it
    /// sets one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarts: Option<u64>,
}

/// One job.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PreemptJobResult {
    /// Id.
    pub id: String,
    /// How the job ended (`docs/open-world.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<crate::status::JobStatus>,
    /// c_j.
    pub completion_slot: u32,
    /// c_j - r_j.
    pub jct: u32,
    /// Chunks.
    pub chunks: Vec<PreemptChunk>,
    /// PS per slot.
    pub ps: Vec<PreemptPs>,
    /// zeta_j: the whole job on the cloud from its first chunk (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zeta: Option<bool>,
    /// Why each chunk went where it went (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<PreemptExplain>,
}

/// A_greedy's explanation of one job's dispatch: C_j (Q of chunk 1 on every eligible worker)
/// and, per chunk, the argmin taken and the chosen worker's recomputed Q (the only entry of C_j
/// that changes between chunks). The cloud entry switches to zeta_j = 0 after chunk 1 lands on
/// an edge worker: Delta/D + p/D with the non-colocated rate.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PreemptExplain {
    /// C_j before chunk 1, servers then workers in index order.
    pub candidates: Vec<PreemptCandidate>,
    /// One entry per chunk, in dispatch order.
    pub dispatch: Vec<PreemptDispatch>,
}

/// One entry of C_j.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PreemptCandidate {
    /// Server index.
    pub server: u32,
    /// Worker index (0 on the cloud).
    pub worker: u32,
    /// Q_jd1sw (eq. 5).
    pub q: f64,
    /// t* on that worker.
    pub t_star: u32,
}

/// One chunk's dispatch.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PreemptDispatch {
    /// Chunk d.
    pub chunk: u32,
    /// Server s*.
    pub server: u32,
    /// Worker w*.
    pub worker: u32,
    /// alpha_jd = the chosen (minimal) Q.
    pub q: f64,
    /// Q of the chosen worker recomputed after the placement (null: the cloud took the rest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q_next: Option<f64>,
    /// Chunks of other jobs this placement preempted.
    pub preempted: u32,
}

/// One chunk.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PreemptChunk {
    /// Server index.
    pub server: u32,
    /// Worker index (cloud: the fresh worker's number).
    pub worker: u32,
    /// First slot.
    pub start: u32,
    /// Last slot + 1.
    pub end: u32,
    /// Every slot it ran in.
    pub slots: Vec<u32>,
    /// Open world: this run was interrupted at that slot (its server went down or its worker
    /// was switched off) and its work is lost; the chunk's next row is its run after the
    /// re-dispatch (none if its job was lost). Absent for a run that completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<u32>,
}

/// PS of one slot.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PreemptPs {
    /// Slot.
    pub slot: u32,
    /// Server index.
    pub server: u32,
    /// PS index on that server.
    pub ps: u32,
}
