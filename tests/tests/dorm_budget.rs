//! The scenario option `dorm_event_nodes` (`docs/oasis.md`, "The work bound is a budget"):
//! validated with the field named, absent = the kernel's `DORM_EVENT_NODES` (the same run,
//! byte for byte, as writing that number), and `"unlimited"` proving every event optimal on
//! a CI-sized cut of the OASiS experiment (`scripts/exp-oasis.py --smoke`).
use mlsched_kernel::limits::DORM_EVENT_NODES;
use mlsched_lab::gen::{generate_json, GenOptions};
use mlsched_scenario::run::{run_json, RunOptions};
use serde_json::{json, Value};

use mlsched_tests::bundled;

fn dorm() -> RunOptions {
    RunOptions {
        policy: Some("dorm".into()),
        all_categories: false,
    }
}

/// The run's result document, with `dorm_event_nodes` set to `nodes` (absent if `Null`).
fn run(doc: &Value, nodes: Value) -> Result<Value, String> {
    let mut d = doc.clone();
    if !nodes.is_null() {
        d["dorm_event_nodes"] = nodes;
    }
    run_json(&d.to_string(), &dorm())
        .map(|t| serde_json::from_str(&t).unwrap())
        .map_err(|e| e.to_string())
}

#[test]
fn bad_budgets_name_the_field() {
    let doc: Value = serde_json::from_str(bundled("oasis-small")).unwrap();
    for bad in [
        json!(-1),
        json!(2.5),
        json!("lots"),
        json!(9007199254740994.0),
        json!(true),
    ] {
        let e = run(&doc, bad.clone()).unwrap_err();
        assert!(e.contains("dorm_event_nodes"), "{bad}: {e}");
    }
    for good in [json!(0), json!(1), json!(4096), json!("unlimited")] {
        run(&doc, good).unwrap();
    }
}

#[test]
fn absent_is_the_kernel_budget_and_unlimited_changes_nothing_already_proven() {
    // Every event of the bundled scenario is proven within the default budget: absent, the
    // default written out, and unlimited give the same run.
    let doc: Value = serde_json::from_str(bundled("oasis-small")).unwrap();
    let base = run(&doc, Value::Null).unwrap();
    assert_eq!(
        base["summary"]["dorm"]["optimal"],
        base["summary"]["dorm"]["events"]
    );
    assert_eq!(run(&doc, json!(DORM_EVENT_NODES)).unwrap(), base);
    assert_eq!(run(&doc, json!("unlimited")).unwrap(), base);
    // A budget that stops events is applied (and is not the default run).
    let tiny = run(&doc, json!(3)).unwrap();
    assert!(
        tiny["summary"]["dorm"]["stopped_at_budget"]
            .as_u64()
            .unwrap()
            > 0
    );
    // Other policies ignore it.
    let mut with = doc.clone();
    with["dorm_event_nodes"] = json!(3);
    let fifo = RunOptions {
        policy: Some("fifo".into()),
        all_categories: false,
    };
    assert_eq!(
        run_json(&with.to_string(), &fifo).unwrap(),
        run_json(&doc.to_string(), &fifo).unwrap()
    );
}

/// `scripts/exp-oasis.py --smoke` (10 jobs, 5 + 5 servers, both settings) at the seeds whose
/// exact solve takes under 0.1 s in a release build (`docs/experiments-oasis.md` gives every
/// seed's nodes and time): with `"unlimited"` every event is proven optimal, where the
/// default budget stops some.
#[test]
fn unlimited_proves_every_event_of_the_smoke_experiment() {
    let (mut events, mut stopped_default) = (0, 0);
    for (seed, feasible) in [(4, false), (9, false), (2, true), (4, true)] {
        let opts = GenOptions {
            seed,
            jobs: Some(10),
            nodes: Some(5),
            ..GenOptions::default()
        };
        let mut doc: Value = serde_json::from_str(&generate_json("oasis", &opts).unwrap()).unwrap();
        if feasible {
            // The experiment's feasible setting: E_i / 10, rounded up.
            for j in doc["jobs"].as_array_mut().unwrap() {
                let e = j["epochs"].as_f64().unwrap();
                j["epochs"] = json!((e / 10.0).ceil().max(1.0));
            }
        }
        let st = &run(&doc, json!("unlimited")).unwrap()["summary"]["dorm"];
        assert_eq!(st["optimal"], st["events"], "seed {seed}: {st}");
        assert_eq!(
            (st["stopped_at_budget"].as_u64(), st["gap_max"].as_f64()),
            (Some(0), Some(0.0))
        );
        events += st["events"].as_u64().unwrap();
        let d = &run(&doc, Value::Null).unwrap()["summary"]["dorm"];
        stopped_default += d["stopped_at_budget"].as_u64().unwrap();
    }
    assert!(events >= 40, "{events}");
    assert!(
        stopped_default > 0,
        "the default budget must stop some of these events"
    );
}
