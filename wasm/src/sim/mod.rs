//! The stepping API's model: a [`Timeline`] built from one run of the engine
//! ([`mlsched_scenario::engine::Engine`]): the typed result document (usage, bars, jobs), every
//! [`EngineDecision`] the engine handed out (each decision's explanation is written from the
//! kernel's record) and the engine's [`Trace`] (OASiS prices, Zhou's priced usage, HAS / JPS
//! market rounds).
//!
//! A saved result is shown by running its scenario again ([`Run::from_result`]): the re-run
//! must reproduce the result's `log_hash` (and document), else the result is refused, so the page
//! only ever shows decisions the engine actually takes.
#[cfg(feature = "oasis")]
mod oasis;
#[cfg(feature = "online")]
mod online;
#[cfg(feature = "placement")]
mod placement;
#[cfg(feature = "preempt")]
mod preempt;
#[cfg(feature = "route")]
mod route;
pub mod series;

use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_scenario::engine::trace::CategoryMarket;
use mlsched_scenario::engine::{Data, Decision as EngineDecision, Engine, Kind, Trace};
use mlsched_scenario::run::{ResultDoc, RunOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Largest number of steps a timeline holds (the kernel's slot limit bounds real scenarios far
/// below this).
pub const STEPS_MAX: u32 = 100_000;

/// One run of the engine: the scenario, its result, every decision and the kernel's trace.
#[derive(Clone, Debug)]
pub struct Run {
    /// The scenario document.
    pub doc: ScenarioDoc,
    /// The result document (its JSON is `run`'s bytes).
    pub result: ResultDoc,
    /// Every decision the engine handed out, in order.
    pub decisions: Vec<EngineDecision>,
    /// The kernel state behind the explanations, if the policy has one.
    pub trace: Option<Trace>,
}

/// The first fields of a result document, enough to run it again.
#[derive(Deserialize)]
struct Head {
    kind: String,
    policy: String,
    log_hash: String,
    #[serde(default)]
    per_category: Option<serde::de::IgnoredAny>,
}

impl Run {
    /// Runs `scenario_json` with `opts` through the engine, collecting decisions and trace.
    pub fn new(scenario_json: &str, opts: &RunOptions) -> Result<Run, String> {
        let doc = doc::parse(scenario_json).map_err(|e| e.to_string())?;
        let mut e = Engine::from_doc_hashed(&doc, opts).map_err(|e| e.to_string())?;
        let mut decisions = Vec::new();
        e.run_to_end_kept(&mut |d| decisions.push(d))
            .map_err(|e| e.to_string())?;
        let trace = e.trace();
        // Moved out, not copied: the wasm links no `ResultDoc` clone.
        let result = e
            .into_result()
            .ok_or_else(|| "internal: the engine kept no result".to_string())?;
        Ok(Run {
            doc,
            result,
            decisions,
            trace,
        })
    }

    /// Runs the scenario of a saved result again with the result's policy; refuses a result the
    /// re-run does not reproduce (another `log_hash`: hand-edited, another scenario, another
    /// build), so that there is one source of decisions and explanations: the engine.
    pub fn from_result(scenario_json: &str, result_json: &str) -> Result<Run, String> {
        let head: Head = serde_json::from_str(result_json)
            .map_err(|e| format!("result: not a result document: {e}"))?;
        let kind = doc::parse(scenario_json).map_err(|e| e.to_string())?.kind();
        if head.kind != kind {
            return Err(format!(
                "result: kind `{}` does not match the scenario's kind `{kind}`",
                head.kind
            ));
        }
        let opts = RunOptions {
            policy: Some(head.policy.clone()),
            all_categories: head.per_category.is_some(),
        };
        let run = Run::new(scenario_json, &opts)?;
        let got = run.result.log_hash();
        if got != head.log_hash {
            return Err(format!(
                "result: log_hash `{}` is not the engine's `{got}` for this scenario and policy `{}` \
                 (a hand-edited result, or one of another scenario or build); not replayed",
                head.log_hash, head.policy
            ));
        }
        // Through the scenario crate's parser: no second copy of the `Value` parser in the wasm.
        let same = doc::json_value(result_json).ok() == doc::json_value(&run.result.to_json()).ok();
        if !same {
            return Err(format!(
                "result: log_hash `{got}` matches but the document differs from the engine's \
                 (hand-edited); not replayed"
            ));
        }
        Ok(run)
    }

    /// The timeline the page draws.
    pub fn timeline(&self) -> Result<Timeline, String> {
        let ds = &self.decisions;
        let tr = self.trace.as_ref();
        let mut t = mlsched_scenario::dispatch!(&self.doc, d, K => {
            let r = K::result_of(&self.result)
                .ok_or("result: its kind does not match the scenario's")?;
            <K as SimKind>::build(d, r, ds, tr)
        });
        t.policy = policy_of(&self.result).to_string();
        // In step order, stable (a bucket per step: no sort of decisions compiled in).
        let mut by_step: Vec<Vec<Decision>> = vec![Vec::new(); t.steps as usize];
        for d in std::mem::take(&mut t.decisions) {
            let s = (d.step as usize).min(by_step.len().saturating_sub(1));
            if let Some(b) = by_step.get_mut(s) {
                b.push(d);
            }
        }
        t.decisions = by_step.into_iter().flatten().collect();
        t.fill_series();
        Ok(t)
    }
}

/// The visualiser's side of one kind: the timeline of a run from the kind's own documents
/// (implemented in the kind's file; [`Run::timeline`] reaches it through `dispatch!`, never a
/// match on the kind).
trait SimKind: Kind {
    /// The timeline of scenario `d`, result `r`, decisions `ds` and (where the kind has one)
    /// the kernel's trace `tr`.
    fn build(
        d: &Self::Doc,
        r: &Self::Result,
        ds: &[EngineDecision],
        tr: Option<&Trace>,
    ) -> Timeline;
}

/// A kind this build leaves out (its cargo feature off): its documents cannot exist.
macro_rules! sim_not_built {
    ($feature:literal, $ty:ident) => {
        #[cfg(not(feature = $feature))]
        impl SimKind for mlsched_scenario::engine::$ty {
            fn build(
                d: &mlsched_scenario::engine::NotBuilt,
                _: &mlsched_scenario::engine::NotBuilt,
                _: &[EngineDecision],
                _: Option<&Trace>,
            ) -> Timeline {
                match *d {}
            }
        }
    };
}
sim_not_built!("oasis", Oasis);
sim_not_built!("online", Online);
sim_not_built!("placement", Placement);
sim_not_built!("preempt", Preempt);
sim_not_built!("route", Route);

fn policy_of(r: &ResultDoc) -> &str {
    r.policy()
}

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
    /// `admit`, `reject`, `schedule`, `defer`, `dispatch`, `route`, `category`, `best` (the
    /// scheduler's decisions) or `start`, `complete`, `preempt`, `resume` (their consequences).
    pub action: String,
    /// Human explanation. A decision's text is written from the engine's decision record
    /// (`record`); a consequence's from the typed result document it shows.
    pub text: String,
    /// The engine's record name behind `text` (`oasis.decision`, `online.decision`,
    /// `baseline.slot`, `baseline.start`, `placement.category`, `preempt.dispatch`,
    /// `route.placed`); empty for consequences.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub source: &'static str,
    /// The kernel's decision record behind `text` (the engine's `Decision::data`, serialised as
    /// JSON); absent for consequences.
    #[serde(skip_serializing_if = "Data::is_null")]
    pub record: Data,
}

impl Decision {
    /// A consequence (start, completion, preemption...) at `step` (clamped below `steps`).
    pub(crate) fn consequence(
        step: u32,
        steps: u32,
        job: &str,
        action: &str,
        text: String,
    ) -> Self {
        Decision {
            step: step.min(steps.saturating_sub(1)),
            job: job.into(),
            action: action.into(),
            text,
            source: "",
            record: Data::Json(Value::Null),
        }
    }

    /// A decision explained from the engine's record `d`.
    pub(crate) fn of(
        step: u32,
        steps: u32,
        job: &str,
        action: &str,
        text: String,
        d: &EngineDecision,
    ) -> Self {
        Decision {
            source: d.record,
            record: d.data.clone(),
            ..Decision::consequence(step, steps, job, action, text)
        }
    }
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
    /// `usage[r][s][t]`: amount of resource r used on server s at step t; only while it holds
    /// at most [`series::DENSE_MAX`] numbers, else empty (see `usage_series`).
    pub usage: Vec<Vec<Vec<f64>>>,
    /// `usage_series[r][s]`: the same usage as change points `[t0, v0, t1, v1, ...]`
    /// ([`series`]), for every size.
    pub usage_series: Vec<Vec<Vec<f64>>>,
    /// `price[r][s][t]`: resource price (OASiS eq. 22 / Zhou eq. 11) after step t's decisions;
    /// empty when the kind has no prices or they are not given, or when it would hold more than
    /// [`series::DENSE_MAX`] numbers (see `price_series`).
    pub price: Vec<Vec<Vec<f64>>>,
    /// `price_series[r][s]`: the prices as change points, like `usage_series`.
    pub price_series: Vec<Vec<Vec<f64>>>,
    /// What the price is, e.g. `p_h^r(t) = L (U/L)^(used/cap)`; empty without prices.
    pub price_note: String,
    /// Decisions and their consequences in step order.
    pub decisions: Vec<Decision>,
    /// Jobs in input order.
    pub jobs: Vec<JobInfo>,
    /// `summary` of the result (or `best` for placement).
    pub summary: Value,
    /// Kind-specific extras: `topology` + `routes` + `link_load` (route), `rounds` + `workers` +
    /// `market` (placement: the kernel's matching-market rounds per step, see
    /// [`Frame::market`]), `queues` (preempt).
    pub extra: Value,
    /// Preempt: the waits of `extra.queues`, typed.
    #[serde(skip)]
    pub waits: Vec<Wait>,
    /// Placement (HAS / JPS): the market of each step (`extra.market.categories`), typed.
    #[serde(skip)]
    pub markets: Vec<CategoryMarket>,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub market: Option<CategoryMarket>,
}

/// A wait in a server's queue (preempt): `label` waits on `server` over steps `from..to`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Wait {
    /// Index into [`Timeline::servers`].
    pub server: u32,
    /// First step.
    pub from: u32,
    /// One past the last step.
    pub to: u32,
    /// What waits, e.g. `j1#0@w0`.
    pub label: String,
}

impl Timeline {
    /// The state at step `t` (clamped to the last step).
    pub fn frame(&self, t: u32) -> Frame {
        let t = t.min(self.steps.saturating_sub(1));
        let ti = t as usize;
        let ns = self.servers.len();
        let at = |m: &Vec<Vec<Vec<f64>>>, s: usize| -> Vec<f64> {
            m.iter()
                .map(|per_r| per_r.get(s).map_or(0.0, |v| series::at(v, t)))
                .collect()
        };
        let usage: Vec<Vec<f64>> = (0..ns).map(|s| at(&self.usage_series, s)).collect();
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
        let price = if self.price_series.is_empty() {
            Vec::new()
        } else {
            (0..ns).map(|s| at(&self.price_series, s)).collect()
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
        let market = self.markets.get(ti).cloned();
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

    /// Fills the series from the dense matrices a builder made (online builds its usage series
    /// directly and gets its prices as series), and keeps the dense matrices only up to
    /// [`series::DENSE_MAX`] numbers.
    fn fill_series(&mut self) {
        let compress = |m: &[Vec<Vec<f64>>]| -> Vec<Vec<Vec<f64>>> {
            m.iter()
                .map(|per_s| per_s.iter().map(|row| series::compress(row)).collect())
                .collect()
        };
        if self.usage_series.is_empty() {
            self.usage_series = compress(&self.usage);
        }
        if self.price_series.is_empty() {
            self.price_series = compress(&self.price);
        }
        let cells = self.servers.len() * self.steps as usize * self.resources.len();
        let expand = |m: &[Vec<Vec<f64>>], steps| -> Vec<Vec<Vec<f64>>> {
            m.iter()
                .map(|per_s| per_s.iter().map(|x| series::expand(x, steps)).collect())
                .collect()
        };
        if cells > series::DENSE_MAX {
            self.usage = Vec::new();
            self.price = Vec::new();
        } else if self.price.is_empty() {
            // Prices that came as change points (the kernel's A_online trace).
            self.price = expand(&self.price_series, self.steps);
        }
    }

    /// Labels waiting per server at step `t` ([`Timeline::waits`]).
    fn queues_at(&self, t: u32) -> Vec<Vec<String>> {
        let mut out = vec![Vec::new(); self.servers.len()];
        for w in self.waits.iter().filter(|w| w.from <= t && t < w.to) {
            if let Some(q) = out.get_mut(w.server as usize) {
                q.push(w.label.clone());
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

/// The typed kernel records that `pick` takes from the engine's decisions, each with its
/// decision. Typed, so no JSON reader of the records is compiled into the wasm.
pub(crate) fn records<'a, T: 'a>(
    ds: &'a [EngineDecision],
    pick: fn(&Data) -> Option<&T>,
) -> impl Iterator<Item = (&'a EngineDecision, &'a T)> + 'a {
    ds.iter().filter_map(move |d| pick(&d.data).map(|t| (d, t)))
}

/// Whether the numbers an explanation reads are all finite. The page has always skipped a record
/// with a non-finite one (it read the records back from their JSON, where such a number is
/// `null`); the pickers keep that, so the timeline is the same.
pub(crate) fn finite(xs: &[f64]) -> bool {
    xs.iter().all(|x| x.is_finite())
}

/// A document count as a step count, clamped to 1..=[`STEPS_MAX`].
pub(crate) fn steps_of(x: f64) -> u32 {
    if x.is_finite() && x >= 1.0 {
        (x as u64).min(STEPS_MAX as u64) as u32
    } else {
        1
    }
}

/// A document slot (an arrival, a release) as a step.
pub(crate) fn slot_of(x: f64) -> u32 {
    steps_of(x + 1.0) - 1
}

/// Any serialisable part of a result document as JSON for the page.
pub(crate) fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
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
