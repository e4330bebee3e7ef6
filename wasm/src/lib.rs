//! `mlsched-wasm`: the npm package `mlsched`, a thin wasm-bindgen layer over the kernel.
//!
//! - [`run`] is the engine run to the end, as `mlsched_scenario::run::run_json`, so the browser,
//!   node and the CLI return the same bytes (including `log_hash`) for the same scenario; errors become JS `Error`s whose
//!   message is the CLI's message.
//! - [`Engine`] is the event-driven engine itself ([`mlsched_scenario::engine::Engine`]): a
//!   control plane feeds arrivals, slot advances and finishes one at a time and gets the
//!   kernel's decisions back; run to the end it returns `run`'s bytes.
//! - [`Simulation`] is the stepping API of the visualiser: one run of the engine (see [`sim`])
//!   shown slot by slot, with usage, prices, queues and decisions explained from the kernel's
//!   records at each step.
//!
//! The logic lives in plain Rust functions ([`run_scenario`], [`bundled_json`], [`Stepper`],
//! [`EventEngine`]) that native tests exercise; the `#[wasm_bindgen]` items only convert values
//! and errors.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// A module with some kinds left out (cargo features, issue 14) keeps the visualiser's shared
// helpers those kinds use compiled but unused.
#![cfg_attr(
    not(all(
        feature = "oasis",
        feature = "online",
        feature = "placement",
        feature = "preempt",
        feature = "route"
    )),
    allow(dead_code)
)]

pub mod bench;
pub mod events;
pub mod sim;

pub use events::EventEngine;
use mlsched_scenario::run::RunOptions;
use serde::Serialize;
use sim::{Frame, Run, Timeline};
use wasm_bindgen::prelude::*;

/// Runs a scenario with options through the engine (its own arrivals to the end); the result
/// document's JSON (the bytes of `mlsched run --json`) or the CLI's error message.
pub fn run_scenario(
    scenario_json: &str,
    policy: Option<&str>,
    all_categories: bool,
) -> Result<String, String> {
    let opts = RunOptions {
        policy: policy.map(String::from),
        all_categories,
    };
    let mut e =
        mlsched_scenario::engine::Engine::new(scenario_json, &opts).map_err(|e| e.to_string())?;
    Ok(e.run_to_end_kept(&mut |_| {})
        .map_err(|e| e.to_string())?
        .to_json())
}

#[derive(Serialize)]
struct Bundled<'a> {
    name: &'a str,
    kind: String,
    scenario: &'a str,
}

/// `[{name, kind, scenario}]` for every bundled example scenario of the kinds this module
/// runs (`mlsched_scenario::bundled`: all five, or one in a per-kind web module).
pub fn bundled_json() -> String {
    let list: Vec<Bundled> = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .map(|(name, text)| Bundled {
            name,
            // Only `kind` is read (not the whole document).
            kind: mlsched_scenario::doc::kind_of(text).unwrap_or_default(),
            scenario: text,
        })
        .collect();
    serde_json::to_string(&list).unwrap_or_else(|_| "[]".into())
}

/// The stepping state machine behind [`Simulation`]: a [`Timeline`] of one engine run and a
/// cursor.
#[derive(Clone, Debug)]
pub struct Stepper {
    timeline: Timeline,
    result: String,
    step: u32,
}

impl Stepper {
    /// Runs `scenario_json` (with `policy`, default the kind's algorithm) through the engine.
    pub fn new(scenario_json: &str, policy: Option<&str>) -> Result<Self, String> {
        let opts = RunOptions {
            policy: policy.map(String::from),
            all_categories: false,
        };
        Self::of(&Run::new(scenario_json, &opts)?)
    }

    /// Shows a result document produced earlier (e.g. by `mlsched run --json`): its scenario is
    /// run again with its policy, and a result the engine does not reproduce (another
    /// `log_hash`) is refused ([`Run::from_result`]).
    pub fn from_result(scenario_json: &str, result_json: &str) -> Result<Self, String> {
        Self::of(&Run::from_result(scenario_json, result_json)?)
    }

    fn of(run: &Run) -> Result<Self, String> {
        Ok(Stepper {
            timeline: run.timeline()?,
            result: run.result.to_json(),
            step: 0,
        })
    }

    /// Advances one step (slot, or category for placement); false when already at the end.
    pub fn step(&mut self) -> bool {
        if self.step + 1 < self.timeline.steps {
            self.step += 1;
            true
        } else {
            false
        }
    }

    /// Moves to step `t` (clamped).
    pub fn seek(&mut self, t: u32) {
        self.step = t.min(self.timeline.steps.saturating_sub(1));
    }

    /// Current step.
    pub fn current(&self) -> u32 {
        self.step
    }

    /// The state at the current step.
    pub fn frame(&self) -> Frame {
        self.timeline.frame(self.step)
    }

    /// The whole timeline.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// The result document (JSON text, exactly as `run` returns it).
    pub fn result(&self) -> &str {
        &self.result
    }
}

fn js_err(msg: String) -> JsError {
    JsError::new(&msg)
}

fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsError> {
    let text = serde_json::to_string(v).map_err(|e| JsError::new(&e.to_string()))?;
    js_sys::JSON::parse(&text).map_err(|_| JsError::new("internal: JSON.parse failed"))
}

/// `run(scenarioJson)`: the result document JSON, byte for byte what `mlsched run --json` writes.
/// Throws an `Error` with the CLI's message on bad input or a failed run.
#[wasm_bindgen]
pub fn run(scenario_json: &str) -> Result<String, JsError> {
    run_scenario(scenario_json, None, false).map_err(js_err)
}

/// `runWith(scenarioJson, policy?, allCategories?)`: `run` with the CLI's `--policy` and `--all`.
#[wasm_bindgen(js_name = runWith)]
pub fn run_with(
    scenario_json: &str,
    policy: Option<String>,
    all_categories: Option<bool>,
) -> Result<String, JsError> {
    run_scenario(
        scenario_json,
        policy.as_deref(),
        all_categories.unwrap_or(false),
    )
    .map_err(js_err)
}

/// `runEvents(scenarioJson, eventsJsonl, policy?)`: the scenario run with the host events (JSON
/// Lines text, `docs/open-world.md`), byte for byte what `mlsched run --events --json` writes.
#[wasm_bindgen(js_name = runEvents)]
pub fn run_events(
    scenario_json: &str,
    events_jsonl: &str,
    policy: Option<String>,
) -> Result<String, JsError> {
    events::run_events(scenario_json, policy.as_deref(), events_jsonl).map_err(js_err)
}

/// `bundledScenarios()`: `[{name, kind, scenario}]`, the CLI's bundled examples.
#[wasm_bindgen(js_name = bundledScenarios)]
pub fn bundled_scenarios() -> Result<JsValue, JsError> {
    js_sys::JSON::parse(&bundled_json()).map_err(|_| JsError::new("internal: JSON.parse failed"))
}

/// `policies(kind)`: policies `runWith` accepts for `kind` (first = the kind's own algorithm).
#[wasm_bindgen]
pub fn policies(kind: &str) -> Result<JsValue, JsError> {
    to_js(&mlsched_scenario::run::policies(kind))
}

/// `kinds()`: the scenario kinds this module runs (all five in the all-kinds module, one in
/// each per-kind web module; a document of another kind throws, naming the module to load).
#[wasm_bindgen]
pub fn kinds() -> Result<JsValue, JsError> {
    to_js(&mlsched_scenario::doc::built_kinds().collect::<Vec<_>>())
}

/// `version()`: the package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// `new DecisionBench(scenarioJson, policy?)`: the decision benchmark of `scripts/bench.mjs`
/// (see [`mod@bench`]); the scenario is parsed once, `run(n)` schedules it `n` times.
#[wasm_bindgen]
pub struct DecisionBench {
    inner: bench::DecisionBench,
}

#[wasm_bindgen]
impl DecisionBench {
    /// Parses the scenario and schedules it once (throws like `run`).
    #[wasm_bindgen(constructor)]
    pub fn new(scenario_json: &str, policy: Option<String>) -> Result<DecisionBench, JsError> {
        Ok(DecisionBench {
            inner: bench::DecisionBench::new(scenario_json, policy.as_deref()).map_err(js_err)?,
        })
    }

    /// Schedules the scenario `iterations` times; the last run's `log_hash`.
    pub fn run(&self, iterations: u32) -> Result<String, JsError> {
        self.inner.run(iterations).map_err(js_err)
    }
}

/// A simulation to step through: the decisions of one engine run, slot by slot.
#[wasm_bindgen]
pub struct Simulation {
    inner: Stepper,
}

#[wasm_bindgen]
impl Simulation {
    /// `new Simulation(scenarioJson, policy?)`: runs the scenario (throws like `run`).
    #[wasm_bindgen(constructor)]
    pub fn new(scenario_json: &str, policy: Option<String>) -> Result<Simulation, JsError> {
        Ok(Simulation {
            inner: Stepper::new(scenario_json, policy.as_deref()).map_err(js_err)?,
        })
    }

    /// `Simulation.fromResult(scenarioJson, resultJson)`: shows a saved result document (its
    /// scenario run again; throws if the run does not reproduce the result's `log_hash`).
    #[wasm_bindgen(js_name = fromResult)]
    pub fn from_result(scenario_json: &str, result_json: &str) -> Result<Simulation, JsError> {
        Ok(Simulation {
            inner: Stepper::from_result(scenario_json, result_json).map_err(js_err)?,
        })
    }

    /// Advances one step; false at the end.
    pub fn step(&mut self) -> bool {
        self.inner.step()
    }

    /// Moves to step `t` (clamped to the last step).
    pub fn seek(&mut self, t: u32) {
        self.inner.seek(t)
    }

    /// Back to step 0.
    pub fn reset(&mut self) {
        self.inner.seek(0)
    }

    /// Current step.
    #[wasm_bindgen(getter, js_name = currentStep)]
    pub fn current_step(&self) -> u32 {
        self.inner.current()
    }

    /// Number of steps.
    #[wasm_bindgen(getter)]
    pub fn steps(&self) -> u32 {
        self.inner.timeline().steps
    }

    /// True at the last step.
    #[wasm_bindgen(getter)]
    pub fn done(&self) -> bool {
        self.inner.current() + 1 >= self.inner.timeline().steps
    }

    /// Scenario kind.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.inner.timeline().kind.clone()
    }

    /// The state at the current step (`SimState` in the TypeScript types).
    pub fn state(&self) -> Result<JsValue, JsError> {
        to_js(&self.inner.frame())
    }

    /// The whole timeline (`Timeline` in the TypeScript types).
    pub fn timeline(&self) -> Result<JsValue, JsError> {
        to_js(self.inner.timeline())
    }

    /// The result document JSON, exactly as `run` returns it.
    #[wasm_bindgen(js_name = resultJson)]
    pub fn result_json(&self) -> String {
        self.inner.result().to_string()
    }
}

/// `new Engine(scenarioJson, policy?)`: the event-driven engine of one scenario run
/// ([`EventEngine`]). Every event returns the decisions it caused as `{record, job, data}`
/// objects; errors throw an `Error` with the engine's message (naming the field).
#[wasm_bindgen]
pub struct Engine {
    inner: EventEngine,
}

/// A job argument: an index (number) or an id (string).
fn job_ref(job: &JsValue) -> Result<events::JobRef<'static>, JsError> {
    match job.as_f64() {
        Some(x) if x >= 0.0 && x.fract() == 0.0 && x <= u32::MAX as f64 => {
            Ok(events::JobRef::Index(x as u32))
        }
        _ => Err(JsError::new(
            "event: job: expected a job index (a non-negative integer) or a job id (a string)",
        )),
    }
}

fn decisions(
    r: Result<Vec<mlsched_scenario::engine::Decision>, String>,
) -> Result<JsValue, JsError> {
    to_js(&r.map_err(js_err)?)
}

#[wasm_bindgen]
impl Engine {
    /// Parses and validates the scenario and builds the engine (throws like `run`).
    #[wasm_bindgen(constructor)]
    pub fn new(scenario_json: &str, policy: Option<String>) -> Result<Engine, JsError> {
        Ok(Engine {
            inner: EventEngine::new(scenario_json, policy.as_deref()).map_err(js_err)?,
        })
    }

    /// `Engine.restore(scenarioJson, policy, bytes)`: the engine of a snapshot taken with the
    /// same scenario and policy.
    pub fn restore(
        scenario_json: &str,
        policy: Option<String>,
        bytes: &[u8],
    ) -> Result<Engine, JsError> {
        Ok(Engine {
            inner: EventEngine::restore(scenario_json, policy.as_deref(), bytes).map_err(js_err)?,
        })
    }

    /// `arrive(job, slot)`: job (index or id) arrives at `slot`; the decisions.
    pub fn arrive(&mut self, job: JsValue, slot: u32) -> Result<JsValue, JsError> {
        match job.as_string() {
            Some(id) => decisions(self.inner.arrive(events::JobRef::Id(&id), slot)),
            None => decisions(self.inner.arrive(job_ref(&job)?, slot)),
        }
    }

    /// `advance(slot)`: slot `slot` runs; the decisions.
    pub fn advance(&mut self, slot: u32) -> Result<JsValue, JsError> {
        decisions(self.inner.advance(slot))
    }

    /// `finished(job, slot)`: job (index or id) finished at `slot`; the decisions.
    pub fn finished(&mut self, job: JsValue, slot: u32) -> Result<JsValue, JsError> {
        match job.as_string() {
            Some(id) => decisions(self.inner.finished(events::JobRef::Id(&id), slot)),
            None => decisions(self.inner.finished(job_ref(&job)?, slot)),
        }
    }

    /// `event(obj)`: one host event (an object or its JSON text, `docs/open-world.md`) applied
    /// as the service does (the scheduler's wake-ups before its slot `at` first); the decisions.
    /// A bad event throws an `Error` naming the field and leaves the engine unchanged.
    pub fn event(&mut self, obj: JsValue) -> Result<JsValue, JsError> {
        let text = match obj.as_string() {
            Some(t) => t,
            None if obj.is_object() => js_sys::JSON::stringify(&obj)
                .map_err(|_| JsError::new("event: not a JSON object"))?
                .into(),
            None => return Err(JsError::new("event: must be an object or its JSON text")),
        };
        decisions(self.inner.event(&text))
    }

    /// `submit(job, slot)`: job (an object as in the scenario's `jobs`) is submitted at `slot`.
    pub fn submit(&mut self, job: JsValue, slot: u32) -> Result<JsValue, JsError> {
        let text: String = js_sys::JSON::stringify(&job)
            .map_err(|_| JsError::new("event, field `job`: not a JSON object"))?
            .into();
        let job: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| JsError::new(&e.to_string()))?;
        let ev = serde_json::json!({"event": "submit", "at": slot, "job": job});
        decisions(self.inner.event(&ev.to_string()))
    }

    /// `cancel(jobId, slot)`: job `jobId` is cancelled at `slot`.
    pub fn cancel(&mut self, job_id: &str, slot: u32) -> Result<JsValue, JsError> {
        let ev = serde_json::json!({"event": "cancel", "at": slot, "job": job_id});
        decisions(self.inner.event(&ev.to_string()))
    }

    /// `serverDown(serverId, slot)`: server `serverId` fails or is drained at `slot`.
    #[wasm_bindgen(js_name = serverDown)]
    pub fn server_down(&mut self, server_id: &str, slot: u32) -> Result<JsValue, JsError> {
        let ev = serde_json::json!({"event": "server_down", "at": slot, "server": server_id});
        decisions(self.inner.event(&ev.to_string()))
    }

    /// `serverUp(serverId, slot)`: server `serverId` comes back at `slot`.
    #[wasm_bindgen(js_name = serverUp)]
    pub fn server_up(&mut self, server_id: &str, slot: u32) -> Result<JsValue, JsError> {
        let ev = serde_json::json!({"event": "server_up", "at": slot, "server": server_id});
        decisions(self.inner.event(&ev.to_string()))
    }

    /// `setCapacity(serverId, capacity, slot)`: server `serverId`'s capacity (in the order of
    /// the scenario's resources) from `slot` on.
    #[wasm_bindgen(js_name = setCapacity)]
    pub fn set_capacity(
        &mut self,
        server_id: &str,
        capacity: Vec<f64>,
        slot: u32,
    ) -> Result<JsValue, JsError> {
        let ev = serde_json::json!({
            "event": "capacity", "at": slot, "server": server_id, "capacity": capacity,
        });
        decisions(self.inner.event(&ev.to_string()))
    }

    /// The scenario's server ids, as the server events name them.
    #[wasm_bindgen(getter, js_name = serverIds)]
    pub fn server_ids(&self) -> Vec<String> {
        self.inner.server_ids().to_vec()
    }

    /// `status(jobId)`: the job's status as of the last event, or `undefined`.
    pub fn status(&self, job_id: &str) -> Result<Option<String>, JsError> {
        Ok(self.inner.status(job_id).map_err(js_err)?.map(String::from))
    }

    /// The scheduler's next wake-up slot, or `undefined`.
    #[wasm_bindgen(getter, js_name = nextWakeup)]
    pub fn next_wakeup(&self) -> Option<u32> {
        self.inner.next_wakeup()
    }

    /// The slot of the last event fed, or `undefined` before the first.
    #[wasm_bindgen(getter)]
    pub fn now(&self) -> Option<u32> {
        self.inner.now()
    }

    /// `[{slot, job}]`: the scenario's arrivals in the order a run feeds them.
    #[wasm_bindgen(js_name = arrivalOrder)]
    pub fn arrival_order(&self) -> Result<JsValue, JsError> {
        to_js(&self.inner.arrival_order())
    }

    /// Feeds every remaining arrival and wake-up and finishes: the result JSON (`run`'s bytes).
    #[wasm_bindgen(js_name = runToEnd)]
    pub fn run_to_end(&mut self) -> Result<String, JsError> {
        self.inner.run_to_end().map_err(js_err)
    }

    /// Ends the run: the result JSON; later events throw.
    pub fn finish(&mut self) -> Result<String, JsError> {
        self.inner.finish().map_err(js_err)
    }

    /// The engine's state as bytes (`Engine.restore` rebuilds it).
    pub fn snapshot(&self) -> Vec<u8> {
        self.inner.snapshot()
    }

    /// Scenario kind.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.inner.kind().to_string()
    }

    /// The policy running (its document name).
    #[wasm_bindgen(getter)]
    pub fn policy(&self) -> String {
        self.inner.policy().to_string()
    }

    /// Number of jobs.
    #[wasm_bindgen(getter)]
    pub fn jobs(&self) -> u32 {
        self.inner.jobs()
    }

    /// The id of job `j`, or `undefined`.
    #[wasm_bindgen(js_name = jobId)]
    pub fn job_id(&self, j: u32) -> Option<String> {
        self.inner.job_id(j).map(String::from)
    }
}
