//! Prints, as one JSON array, what the CLI's `mlsched run --json` returns natively
//! (`mlsched_scenario::run::run_json`) for every bundled scenario and each policy its kind
//! accepts: `[{name, policy, all_categories, ok | error}]`. The node test
//! `test/native_vs_wasm.test.mjs` computes the same list under wasm and compares byte for byte.
use mlsched_scenario::run::{run_json, RunOptions};
use serde_json::{json, Value};

fn run_scenario(text: &str, policy: Option<&str>, all: bool) -> Result<String, String> {
    let opts = RunOptions {
        policy: policy.map(String::from),
        all_categories: all,
    };
    run_json(text, &opts).map_err(|e| e.to_string())
}

fn main() {
    let mut out: Vec<Value> = Vec::new();
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let kind = mlsched_scenario::doc::parse(text)
            .map(|d| d.kind())
            .unwrap_or("");
        let mut cases: Vec<(Option<&str>, bool)> = vec![(None, false)];
        cases.extend(
            mlsched_scenario::run::policies(kind)
                .iter()
                .skip(1)
                .map(|p| (Some(*p), false)),
        );
        if mlsched_scenario::by_kind_name!(kind, K => K::CATEGORIES).unwrap_or(false) {
            cases.push((None, true));
        }
        for (policy, all) in cases {
            let mut case = json!({"name": name, "policy": policy, "all_categories": all});
            match run_scenario(text, policy, all) {
                Ok(r) => case["ok"] = Value::String(r),
                Err(e) => case["error"] = Value::String(e),
            }
            out.push(case);
        }
    }
    println!("{}", serde_json::to_string(&out).unwrap_or_default());
}
