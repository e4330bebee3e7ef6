//! The decision benchmark shared by both sides of `scripts/bench.mjs`: the scenario is parsed
//! once, outside the timed region; [`DecisionBench::run`] then repeats what the scheduler does
//! for it (validate the document into the kernel model, build the scheduler, take every
//! decision into a [`HashSink`](mlsched_kernel::log::HashSink), build the result document) with no JSON on either side of the
//! loop. Native (`examples/bench_native.rs`) and wasm (`DecisionBench` in JS) time this very
//! function, so the ratio compares the compiled kernel, not two serialisers.
use mlsched_kernel::log::LogSink;
use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_scenario::engine::Engine;
use mlsched_scenario::run::RunOptions;

/// A parsed scenario ready to be scheduled again and again.
#[derive(Clone, Debug)]
pub struct DecisionBench {
    doc: ScenarioDoc,
    opts: RunOptions,
}

impl DecisionBench {
    /// Parses `scenario_json` (with `policy`, default the kind's own algorithm) and runs it once,
    /// so that a scenario the CLI rejects fails here, before any timing.
    pub fn new(scenario_json: &str, policy: Option<&str>) -> Result<Self, String> {
        let doc = doc::parse(scenario_json).map_err(|e| e.to_string())?;
        let b = DecisionBench {
            doc,
            opts: RunOptions {
                policy: policy.map(String::from),
                all_categories: false,
            },
        };
        b.run(1)?;
        Ok(b)
    }

    /// Schedules the scenario `iterations` times (at least once); the `log_hash` of the last run
    /// (equal to the `log_hash` of `run` for the same scenario).
    pub fn run(&self, iterations: u32) -> Result<String, String> {
        let mut hash = String::new();
        for _ in 0..iterations.max(1) {
            let mut e =
                Engine::from_doc_hashed(&self.doc, &self.opts).map_err(|e| e.to_string())?;
            e.run_to_end_kept(&mut |_| {}).map_err(|e| e.to_string())?;
            hash = e.sink().hash().hex().to_string();
        }
        Ok(hash)
    }
}
