//! The stepping API's engine: a [`Timeline`] rebuilt from a scenario and its result document by
//! replaying the decisions the result records (`placements`, `placement`, `chunks`, `paths`,
//! `per_category`), slot by slot.
//!
//! Working from the result document (not from a scheduler's internals) keeps the visualisation
//! exactly consistent with what `run` returns, whatever algorithm produced it: the page shows the
//! decisions the CLI would print, never a re-derivation that could drift from them.
pub mod kernel;
mod oasis;
mod online;
mod placement;
mod preempt;
mod route;

use mlsched_scenario::doc::{self, ScenarioDoc};
use serde::Serialize;
use serde_json::Value;

/// Largest number of steps a timeline holds (the kernel's slot limit bounds real scenarios far
/// below this; it keeps a hand-edited result from allocating without bound).
pub const STEPS_MAX: u32 = 100_000;

/// A server (or worker, or compute node) drawn as one row of the timeline and heatmaps.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Server {
    /// Display id, e.g. `w0`, `ps1`, `edge-0`, `c3`.
    pub id: String,
    /// Group: `worker`, `ps`, `server`, `edge`, `cloud`, `gpu`, `compute`.
    pub group: String,
    /// Capacity per resource of [`Timeline::resources`] (0 = unlimited or not applicable).
    pub capacity: Vec<f64>,
}

/// One bar of the Gantt timeline: `job` holds a share of `server` over slots `start..end`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Bar {
    /// Job id.
    pub job: String,
    /// Index into [`Timeline::servers`].
    pub server: u32,
    /// Lane within the server (a worker index for preempt, else 0).
    pub lane: u32,
    /// First step.
    pub start: u32,
    /// One past the last step.
    pub end: u32,
    /// Short text shown on the bar, e.g. `2w+1ps`, `chunk 3`.
    pub label: String,
}

/// A decision (or a consequence of one) at a step, with its explanation.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Decision {
    /// Step at which it happens.
    pub step: u32,
    /// Job id.
    pub job: String,
    /// `admit`, `reject`, `schedule`, `start`, `complete`, `preempt`, `resume`, `route`, `category`...
    pub action: String,
    /// Human explanation: from the kernel's decision record when the visualiser re-ran the
    /// kernel (`record` is then set), else from the result document's numbers.
    pub text: String,
    /// The kernel's decision record behind `text` (OASiS `Decision`, Zhou `OnlineDecision`),
    /// as JSON; absent when the explanation comes from the result document only.
    #[serde(skip_serializing_if = "Value::is_null")]
    pub record: Value,
}

/// Per-job facts for the job list.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct JobInfo {
    /// Job id.
    pub id: String,
    /// Arrival (release) step.
    pub arrival: u32,
    /// First step it runs, if it runs.
    pub start: Option<u32>,
    /// One past its last running step, if it runs.
    pub end: Option<u32>,
    /// Whether the scheduler accepted it (admitted / scheduled / placed / routed).
    pub accepted: bool,
}

/// Everything the page draws for one run, precomputed once.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Timeline {
    /// Scenario kind.
    pub kind: String,
    /// Policy that produced the result.
    pub policy: String,
    /// Number of steps.
    pub steps: u32,
    /// What one step is: `slot` or `category`.
    pub step_unit: String,
    /// Resource names (columns of capacities and usage).
    pub resources: Vec<String>,
    /// Rows.
    pub servers: Vec<Server>,
    /// Gantt bars.
    pub bars: Vec<Bar>,
    /// `usage[r][s][t]`: amount of resource r used on server s at step t.
    pub usage: Vec<Vec<Vec<f64>>>,
    /// `price[r][s][t]`: resource price (OASiS eq. 22 / Zhou eq. 11) after step t's decisions;
    /// empty when the kind has no prices or they are not given.
    pub price: Vec<Vec<Vec<f64>>>,
    /// What the price is, e.g. `p_h^r(t) = L (U/L)^(used/cap)`; empty without prices.
    pub price_note: String,
    /// Decisions and their consequences in step order.
    pub decisions: Vec<Decision>,
    /// Jobs in input order.
    pub jobs: Vec<JobInfo>,
    /// `summary` of the result (or `best` for placement).
    pub summary: Value,
    /// Kind-specific extras: `topology` + `routes` (route), `rounds` + `workers` + `market`
    /// (placement: the kernel's matching-market rounds per step, see [`Frame::market`]),
    /// `queues` (preempt).
    pub extra: Value,
}

/// Builds the timeline of `result_json` (a result document of `scenario_json`).
pub fn timeline(scenario_json: &str, result_json: &str) -> Result<Timeline, String> {
    let scn = doc::parse(scenario_json).map_err(|e| e.to_string())?;
    let res: Value =
        serde_json::from_str(result_json).map_err(|e| format!("result: not JSON: {e}"))?;
    let kind = res.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind != scn.kind() {
        return Err(format!(
            "result: kind `{kind}` does not match the scenario's kind `{}`",
            scn.kind()
        ));
    }
    let mut t = match &scn {
        ScenarioDoc::Oasis(d) => oasis::build(d, &res)?,
        ScenarioDoc::Online(d) => online::build(d, &res)?,
        ScenarioDoc::Placement(d) => placement::build(d, &res)?,
        ScenarioDoc::Preempt(d) => preempt::build(d, &res)?,
        ScenarioDoc::Route(d) => route::build(d, &res)?,
    };
    t.policy = res
        .get("policy")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    t.decisions.sort_by_key(|d| d.step);
    Ok(t)
}

/// The state at one step, what `Simulation.state()` returns.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Frame {
    /// Current step (0-based).
    pub step: u32,
    /// Number of steps.
    pub steps: u32,
    /// True at the last step.
    pub done: bool,
    /// `usage[s][r]` at this step.
    pub usage: Vec<Vec<f64>>,
    /// `utilisation[s]`: largest used/capacity over resources (dominant share) at this step.
    pub utilisation: Vec<f64>,
    /// `price[s][r]` at this step (empty without prices).
    pub price: Vec<Vec<f64>>,
    /// Bars active at this step (indices into [`Timeline::bars`]).
    pub running: Vec<u32>,
    /// `queues[s]`: job ids that arrived and wait for server s (preempt: chunks queued on a
    /// worker, as `job#chunk@worker`); empty lists elsewhere.
    pub queues: Vec<Vec<String>>,
    /// Decisions taken at this step.
    pub decisions: Vec<Decision>,
    /// `status[j]`: `waiting` (not arrived), `pending`, `running`, `done`, `rejected`.
    pub status: Vec<String>,
    /// Placement (HAS / JPS): the matching-market rounds of this step's category as the kernel
    /// ran them (`extra.market.categories[step]`: prices, demands, raised class, final counts);
    /// absent elsewhere.
    #[serde(skip_serializing_if = "Value::is_null")]
    pub market: Value,
}

impl Timeline {
    /// The state at step `t` (clamped to the last step).
    pub fn frame(&self, t: u32) -> Frame {
        let t = t.min(self.steps.saturating_sub(1));
        let ti = t as usize;
        let ns = self.servers.len();
        let at = |m: &Vec<Vec<Vec<f64>>>, s: usize| -> Vec<f64> {
            m.iter()
                .map(|per_r| per_r.get(s).and_then(|v| v.get(ti)).copied().unwrap_or(0.0))
                .collect()
        };
        let usage: Vec<Vec<f64>> = (0..ns).map(|s| at(&self.usage, s)).collect();
        let utilisation = usage
            .iter()
            .zip(&self.servers)
            .map(|(u, srv)| {
                u.iter()
                    .zip(&srv.capacity)
                    .filter(|(_, c)| **c > 0.0)
                    .map(|(u, c)| u / c)
                    .fold(0.0, f64::max)
            })
            .collect();
        let price = if self.price.is_empty() {
            Vec::new()
        } else {
            (0..ns).map(|s| at(&self.price, s)).collect()
        };
        let running = self
            .bars
            .iter()
            .enumerate()
            .filter(|(_, b)| b.start <= t && t < b.end)
            .map(|(i, _)| i as u32)
            .collect();
        let queues = self.queues_at(t);
        let decisions = self
            .decisions
            .iter()
            .filter(|d| d.step == t)
            .cloned()
            .collect();
        let status = self.jobs.iter().map(|j| status(j, t).to_string()).collect();
        let market = self
            .extra
            .get("market")
            .and_then(|m| m.get("categories"))
            .and_then(|c| c.get(ti))
            .cloned()
            .unwrap_or(Value::Null);
        Frame {
            step: t,
            steps: self.steps,
            done: t + 1 >= self.steps,
            usage,
            utilisation,
            price,
            running,
            queues,
            decisions,
            status,
            market,
        }
    }

    /// `extra.queues[s]` = list of `{job, label, from, to}` waiting intervals.
    fn queues_at(&self, t: u32) -> Vec<Vec<String>> {
        let mut out = vec![Vec::new(); self.servers.len()];
        let Some(q) = self.extra.get("queues").and_then(Value::as_array) else {
            return out;
        };
        for w in q {
            let s = w.get("server").and_then(Value::as_u64).unwrap_or(0) as usize;
            let from = w.get("from").and_then(Value::as_u64).unwrap_or(0) as u32;
            let to = w.get("to").and_then(Value::as_u64).unwrap_or(0) as u32;
            if from <= t && t < to {
                if let (Some(slot), Some(label)) =
                    (out.get_mut(s), w.get("label").and_then(Value::as_str))
                {
                    slot.push(label.to_string());
                }
            }
        }
        out
    }
}

fn status(j: &JobInfo, t: u32) -> &'static str {
    if t < j.arrival {
        "waiting"
    } else if !j.accepted {
        "rejected"
    } else {
        match (j.start, j.end) {
            (Some(_), Some(e)) if t >= e => "done",
            (Some(s), _) if t >= s => "running",
            _ => "pending",
        }
    }
}

// ---- small readers over the result's JSON (missing/ill-typed values read as absent) ----

pub(crate) fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

pub(crate) fn u32_of(v: &Value, key: &str) -> Option<u32> {
    v.get(key)
        .and_then(Value::as_u64)
        .map(|x| x.min(u32::MAX as u64) as u32)
}

pub(crate) fn f64_of(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

pub(crate) fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The result's job entry for input job `i`, checking its id.
pub(crate) fn job_result<'a>(res: &'a Value, i: usize, id: &str) -> Result<&'a Value, String> {
    let j = arr(res, "jobs")
        .get(i)
        .ok_or_else(|| format!("result: job `{id}` (index {i}) missing from `jobs`"))?;
    let rid = str_of(j, "id");
    if rid != id {
        return Err(format!(
            "result: jobs[{i}] has id `{rid}`, the scenario's job {i} is `{id}`"
        ));
    }
    Ok(j)
}

/// A number rounded for explanations (4 significant decimals, no trailing zeros).
pub(crate) fn num(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Clamps a document count to [`STEPS_MAX`].
pub(crate) fn steps_of(x: f64) -> u32 {
    if x.is_finite() && x >= 1.0 {
        (x as u64).min(STEPS_MAX as u64) as u32
    } else {
        1
    }
}

/// A zeroed `[r][s][t]` matrix.
pub(crate) fn zeros(r: usize, s: usize, t: u32) -> Vec<Vec<Vec<f64>>> {
    vec![vec![vec![0.0; t as usize]; s]; r]
}

/// Merges a sorted list of slots into maximal runs `[start, end)`.
pub(crate) fn runs(slots: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &s in slots {
        match out.last_mut() {
            Some((_, e)) if *e == s => *e = s + 1,
            Some((_, e)) if *e > s => {}
            _ => out.push((s, s + 1)),
        }
    }
    out
}
