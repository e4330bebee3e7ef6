//! `mlsched compare`: several policies on the same scenario, one table.
//!
//! Per policy ([`Metrics`]): total utility (kind "oasis": sum of f_i of the achieved completion),
//! total weighted completion time (kind "online": sum w_j (t_j + d_j), the paper's objective),
//! weighted and average JCT over the jobs that finished, admitted / finished counts, makespan,
//! and the decision latency p50 / p99.
//!
//! Definitions used for every kind:
//! - JCT of a finished job = end - arrival in slots, with end = completion slot + 1 on kind
//!   "oasis" (t_hat is the slot *in* which the last chunk is done) and end = t_j + d_j on kind
//!   "online"; kind "preempt" reports `jct` itself.
//! - Weighted JCT = sum w JCT / sum w, with w = the job's weight (online) or its best utility
//!   f_i(0) (oasis).
//! - Decision latency: the wall time between consecutive decision records the scheduler logs
//!   (the first from the start of the run), measured by a timing [`LogSink`]; it is the only
//!   non-reproducible number and is kept apart ([`Timing`]) so that everything else can be
//!   compared byte for byte.
//! - Utilisation over time: per slot, GPUs (resource 0) in use / GPUs of the cluster.
//! - Unfinished jobs = jobs - finished (rejected, never scheduled, or not done by the horizon);
//!   every JCT statistic (average, weighted, p50 / p90 / p99) is over the finished jobs only,
//!   and the unfinished count is shown beside it in every table, CSV and the JCT CDF.
//! - Percentiles: nearest rank ([`percentile`]).
//! - Mean utilisation per resource (kinds oasis and online): use / capacity over all servers,
//!   averaged over the busy horizon, slots 0 up to the last slot anything runs ([`usage`]).
//! - Seconds: when the slot length is known (imported scenarios), JCT and makespan are also
//!   shown in seconds = slots x slot length.
use mlsched_kernel::log::{HashSink, LogError, LogHash, LogSink};
use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_scenario::run::{run_doc, ResultDoc, RunOptions};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// Decision metrics of one policy on one scenario (reproducible bit for bit).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Policy name.
    pub policy: String,
    /// "ok", or why the policy could not run.
    pub status: String,
    /// Jobs in the scenario.
    pub jobs: u32,
    /// Admitted (oasis) or scheduled (online) jobs.
    pub admitted: Option<u32>,
    /// Jobs that finished within the horizon.
    pub finished: u32,
    /// Sum of utilities (kind "oasis").
    pub total_utility: Option<f64>,
    /// Sum of w_j (t_j + d_j) (kind "online").
    pub total_weighted_completion_time: Option<f64>,
    /// Sum w JCT / sum w over finished jobs, slots.
    pub weighted_jct: Option<f64>,
    /// Mean JCT over finished jobs, slots.
    pub avg_jct: Option<f64>,
    /// Jobs that did not finish within the horizon (rejected, never scheduled, or cut off by
    /// the horizon): counted here, never in the JCT statistics (None for kind "route", whose
    /// jobs have deadlines, not completions).
    #[serde(default)]
    pub unfinished: Option<u32>,
    /// Nearest-rank 50th, 90th and 99th percentile JCT of the finished jobs (unit of avg_jct).
    #[serde(default)]
    pub jct_p50: Option<f64>,
    /// See [`Self::jct_p50`].
    #[serde(default)]
    pub jct_p90: Option<f64>,
    /// See [`Self::jct_p50`].
    #[serde(default)]
    pub jct_p99: Option<f64>,
    /// Seconds per slot when known (imported scenarios): JCT and makespan in seconds are the
    /// slot values times this (so rounded to whole slots like them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot_seconds: Option<f64>,
    /// Mean utilisation per resource type over the busy horizon (kinds oasis and online; see
    /// [`usage`]), by resource name, fractions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub utilisation: Vec<(String, f64)>,
    /// Last slot end of any finished job.
    pub makespan: Option<u32>,
    /// Kind-specific summary numbers (route: cost, deadline violation rate, ...; preempt:
    /// preemptions, cloud chunks), by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub extra: BTreeMap<String, f64>,
    /// Hash of the decision log.
    pub log_hash: String,
}

/// Decision latency of one run (wall clock: not reproducible).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Decision records logged.
    pub decisions: u64,
    /// Median gap between records, microseconds.
    pub latency_p50_us: f64,
    /// 99th percentile gap, microseconds.
    pub latency_p99_us: f64,
    /// Whole run, milliseconds.
    pub wall_ms: f64,
}

/// Everything compare keeps of one policy's run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicyReport {
    /// The metrics.
    pub metrics: Metrics,
    /// JCT of every finished job (input order), for the CDF.
    pub jct: Vec<f64>,
    /// GPU utilisation per slot (0..T).
    pub utilisation: Vec<f64>,
    /// Latency (omitted with `--no-timing`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub timing: Option<Timing>,
    /// What the kind's plots need beyond the metrics (not written to compare.json).
    #[serde(skip)]
    pub plot: PlotData,
}

/// Per-kind data of the plots: placement's JCT per job and per examined category, preempt's
/// per-worker queues.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlotData {
    /// Placement: (job id, JCT in seconds) in input order.
    pub job_jct: Vec<(String, f64)>,
    /// Placement: the average JCT (seconds) of every category examined, in examination order
    /// (at most [`CATEGORIES_PLOTTED`], evenly strided, the chosen one always kept).
    pub categories: Vec<(f64, f64)>,
    /// Placement: (position, average JCT) of the chosen category among [`Self::categories`].
    pub chosen: Option<(f64, f64)>,
    /// Placement: the chosen category, K_i per job.
    pub chosen_category: Vec<u32>,
    /// Preempt: (worker label `server/worker`, chunks queued on it) in server, worker order.
    pub workers: Vec<(String, f64)>,
}

/// Most placement categories a plot shows (a longer list is strided evenly).
pub const CATEGORIES_PLOTTED: usize = 2_000;

/// Most categories a placement run may examine for compare to collect them for the category
/// plot (a second run keeps a row per category; beyond this the plot is left out rather than
/// the memory spent).
pub const CATEGORIES_COLLECTED_MAX: u64 = 200_000;

/// A [`LogSink`] that hashes like [`HashSink`] and notes when each record arrives.
pub struct TimingSink {
    inner: HashSink,
    last: Instant,
    /// Gaps between records, microseconds.
    pub gaps_us: Vec<f64>,
}

impl TimingSink {
    /// Starts the clock.
    pub fn new() -> Self {
        TimingSink {
            inner: HashSink::new(),
            last: Instant::now(),
            gaps_us: Vec::new(),
        }
    }
}

impl Default for TimingSink {
    fn default() -> Self {
        Self::new()
    }
}

impl LogSink for TimingSink {
    fn record<T: Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        let r = self.inner.record(tag, rec);
        let now = Instant::now();
        self.gaps_us
            .push(now.duration_since(self.last).as_secs_f64() * 1e6);
        self.last = now;
        r
    }
    fn hash(&self) -> LogHash {
        self.inner.hash()
    }
}

/// Nearest-rank percentile of `v` (sorted copy), 0 when empty.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let k = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[k.clamp(1, s.len()) - 1]
}

/// Runs `policy` on `doc` and measures it.
pub fn run_policy(doc: &ScenarioDoc, policy: &str) -> PolicyReport {
    let opts = RunOptions {
        policy: Some(policy.to_string()),
        all_categories: false,
    };
    let start = Instant::now();
    let mut sink = TimingSink::new();
    let res = run_doc(doc, &opts, &mut sink);
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    let timing = Timing {
        decisions: sink.gaps_us.len() as u64,
        latency_p50_us: percentile(&sink.gaps_us, 50.0),
        latency_p99_us: percentile(&sink.gaps_us, 99.0),
        wall_ms,
    };
    match res {
        Ok(r) => {
            let mut rep = report(doc, &r);
            rep.metrics.policy = policy.to_string();
            rep.timing = Some(timing);
            crate::kinds::after_run(doc, &r, policy, &mut rep.plot);
            rep
        }
        Err(e) => PolicyReport {
            metrics: Metrics {
                policy: policy.to_string(),
                status: format!("unavailable: {e}"),
                jobs: job_count(doc),
                ..Metrics::default()
            },
            ..PolicyReport::default()
        },
    }
}

fn job_count(doc: &ScenarioDoc) -> u32 {
    doc.jobs() as u32
}

/// Metrics, JCTs and utilisation of a result: the kind's numbers ([`crate::kinds::LabKind`]),
/// then the statistics every kind shares.
pub fn report(doc: &ScenarioDoc, r: &ResultDoc) -> PolicyReport {
    let mut m = Metrics {
        policy: r.policy().to_string(),
        status: "ok".into(),
        jobs: job_count(doc),
        log_hash: r.log_hash().to_string(),
        ..Metrics::default()
    };
    let mut out = crate::kinds::Measured::default();
    crate::kinds::measure(doc, r, &mut m, &mut out);
    // GPUs are resource 0; who holds what when is the result's occupancy ([`usage`]).
    if let Some(u) = crate::kinds::usage(doc, r) {
        let slots = crate::kinds::cluster(doc).1.unwrap_or(0.0).max(0.0) as usize;
        out.utilisation = u.share_per_slot(0, slots);
        m.utilisation = u.mean();
    }
    let fin = &out.finished;
    m.finished = fin.len() as u32;
    if mlsched_scenario::metrics::of(doc.kind()).jct {
        m.unfinished = Some(m.jobs.saturating_sub(m.finished));
    }
    if !fin.is_empty() {
        let jct: Vec<f64> = fin.iter().map(|f| f.jct).collect();
        m.jct_p50 = Some(percentile(&jct, 50.0));
        m.jct_p90 = Some(percentile(&jct, 90.0));
        m.jct_p99 = Some(percentile(&jct, 99.0));
        let sw: f64 = fin.iter().map(|f| f.weight).sum();
        let swj: f64 = fin.iter().map(|f| f.weight * f.jct).sum();
        m.weighted_jct = Some(if sw > 0.0 { swj / sw } else { 0.0 });
        m.avg_jct = Some(jct.iter().sum::<f64>() / fin.len() as f64);
        m.makespan = fin.iter().map(|f| f.end).max().filter(|&x| x > 0);
    }
    PolicyReport {
        metrics: m,
        jct: fin.iter().map(|f| f.jct).collect(),
        utilisation: out.utilisation,
        timing: None,
        plot: out.plot,
    }
}

/// Notes the slot length `seconds` (when known) in every report, for the columns in seconds.
pub fn set_slot_seconds(reports: &mut [PolicyReport], seconds: Option<f64>) {
    for r in reports {
        r.metrics.slot_seconds = seconds.filter(|s| *s > 0.0);
    }
}

/// Runs every policy of `policies` on `doc` (in order).
pub fn compare(doc: &ScenarioDoc, policies: &[String]) -> Vec<PolicyReport> {
    policies.iter().map(|p| run_policy(doc, p)).collect()
}

/// Parses and checks `--policies a,b,c` against the kind's accepted list ("all" = every one).
pub fn parse_policies(
    doc: &ScenarioDoc,
    list: Option<&str>,
) -> Result<Vec<String>, mlsched_scenario::RunError> {
    let accepted = mlsched_scenario::run::policies(doc.kind());
    let names: Vec<String> = match list {
        None | Some("all") => accepted.iter().map(|s| s.to_string()).collect(),
        Some(l) => l
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
    };
    for (i, n) in names.iter().enumerate() {
        if !accepted.contains(&n.as_str()) {
            return Err(mlsched_scenario::run::unknown_policy(
                doc.kind(),
                n,
                accepted,
            ));
        }
        if names[..i].contains(n) {
            return Err(mlsched_scenario::InputError::new(
                "option",
                "policies",
                format!("`{n}` is listed twice"),
            )
            .into());
        }
    }
    if names.is_empty() {
        return Err(
            mlsched_scenario::InputError::new("option", "policies", "no policy given").into(),
        );
    }
    Ok(names)
}

/// Parses and validates `text` (errors name the job or server and the field), so that bad
/// input is refused once (exit code 2) instead of once per policy.
pub fn parse(text: &str) -> Result<ScenarioDoc, mlsched_scenario::InputError> {
    let d = doc::parse(text)?;
    validate(&d)?;
    Ok(d)
}

/// Validates a parsed document of any kind.
pub fn validate(d: &ScenarioDoc) -> Result<(), mlsched_scenario::InputError> {
    d.validate()
}

#[cfg(feature = "reports")]
pub mod html;
// Plain number formatting, no dependencies: also for the benches' scale plots.
pub mod number;
#[cfg(feature = "reports")]
pub mod output;
#[cfg(feature = "reports")]
pub mod plot;
#[cfg(feature = "reports")]
pub mod shard;
#[cfg(feature = "reports")]
pub mod sweep;
#[cfg(feature = "reports")]
pub mod table;
pub mod usage;
#[cfg(feature = "reports")]
pub use table::table;
