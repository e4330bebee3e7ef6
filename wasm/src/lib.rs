//! `mlsched-wasm`: the npm package `mlsched`, a thin wasm-bindgen layer over the kernel.
//!
//! - [`run`] is `mlsched_scenario::run::run_json` itself, so the browser, node and the CLI return the
//!   same bytes (including `log_hash`) for the same scenario; errors become JS `Error`s whose
//!   message is the CLI's message.
//! - [`Simulation`] is the stepping API of the visualiser: it replays the decisions of a result
//!   document slot by slot (see [`replay`]) and reports usage, prices, queues and decisions with
//!   their explanations at each step.
//!
//! The logic lives in plain Rust functions ([`run_scenario`], [`bundled_json`], [`Stepper`]) that
//! native tests exercise; the `#[wasm_bindgen]` items only convert strings and errors.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bench;
pub mod replay;

use mlsched_scenario::run::{run_json, RunOptions};
use replay::{Frame, Timeline};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Runs a scenario with options; the result document's JSON or the CLI's error message.
pub fn run_scenario(
    scenario_json: &str,
    policy: Option<&str>,
    all_categories: bool,
) -> Result<String, String> {
    let opts = RunOptions {
        policy: policy.map(String::from),
        all_categories,
    };
    run_json(scenario_json, &opts).map_err(|e| e.to_string())
}

#[derive(Serialize)]
struct Bundled<'a> {
    name: &'a str,
    kind: &'a str,
    scenario: &'a str,
}

/// `[{name, kind, scenario}]` for every bundled example scenario (`mlsched_scenario::bundled`).
pub fn bundled_json() -> String {
    let list: Vec<Bundled> = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .map(|(name, text)| Bundled {
            name,
            kind: mlsched_scenario::doc::parse(text)
                .map(|d| d.kind())
                .unwrap_or(""),
            scenario: text,
        })
        .collect();
    serde_json::to_string(&list).unwrap_or_else(|_| "[]".into())
}

/// The stepping state machine behind [`Simulation`]: a precomputed [`Timeline`] and a cursor.
#[derive(Clone, Debug)]
pub struct Stepper {
    timeline: Timeline,
    result: String,
    step: u32,
}

impl Stepper {
    /// Runs `scenario_json` (with `policy`, default the kind's algorithm) and prepares the replay.
    pub fn new(scenario_json: &str, policy: Option<&str>) -> Result<Self, String> {
        let result = run_scenario(scenario_json, policy, false)?;
        Self::from_result(scenario_json, &result)
    }

    /// Prepares the replay of a result document produced earlier (e.g. by `mlsched run --json`).
    pub fn from_result(scenario_json: &str, result_json: &str) -> Result<Self, String> {
        Ok(Stepper {
            timeline: replay::timeline(scenario_json, result_json)?,
            result: result_json.to_string(),
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

/// `version()`: the package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// `new DecisionBench(scenarioJson, policy?)`: the decision benchmark of `scripts/bench.mjs`
/// (see [`bench`]); the scenario is parsed once, `run(n)` schedules it `n` times.
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

/// A simulation to step through: the decisions of one run replayed slot by slot.
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

    /// `Simulation.fromResult(scenarioJson, resultJson)`: replays a saved result document.
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

    /// The whole replayed timeline (`Timeline` in the TypeScript types).
    pub fn timeline(&self) -> Result<JsValue, JsError> {
        to_js(self.inner.timeline())
    }

    /// The result document JSON, exactly as `run` returns it.
    #[wasm_bindgen(js_name = resultJson)]
    pub fn result_json(&self) -> String {
        self.inner.result().to_string()
    }
}
