//! Prints, as one JSON array, what `run`/`runWith` return natively for every bundled scenario and
//! each policy its kind accepts: `[{name, policy, all_categories, ok | error}]`. The node test
//! `test/native_vs_wasm.test.mjs` computes the same list under wasm and compares byte for byte.
use mlsched_wasm::run_scenario;
use serde_json::{json, Value};

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
        if kind == "placement" {
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
