//! The stepping API's model (`mlsched_wasm::sim`): timelines built from one engine run, with
//! every decision explained from the engine's records, the kernel's prices and market rounds
//! from the engine's trace, and saved results the engine does not reproduce refused. Runs
//! natively and, under wasm-bindgen-test-runner, on wasm32.
use mlsched_kernel::placement::{category, Market, Placer, MARKET_CAP};
use mlsched_kernel::price::{oasis_price, zhou_price};
use mlsched_scenario::run::{run_json, RunOptions};
use mlsched_wasm::sim::Run;
use mlsched_wasm::{run_scenario, Stepper};
use serde_json::Value;

fn scenario(name: &str) -> &'static str {
    mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .unwrap_or_else(|| panic!("no bundled scenario {name}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Every (scenario, policy, all categories) the CLI runs for the bundled scenarios.
fn cases() -> Vec<(&'static str, &'static str, Option<&'static str>, bool)> {
    let mut v = Vec::new();
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let kind = mlsched_scenario::doc::parse(text).map_or("", |d| d.kind());
        v.push((*name, *text, None, false));
        for p in mlsched_scenario::run::policies(kind).iter().skip(1) {
            v.push((*name, *text, Some(*p), false));
        }
        if kind == "placement" {
            v.push((*name, *text, None, true));
        }
    }
    v
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn oasis_prices_and_records_come_from_the_kernel() {
    let st = Stepper::new(scenario("oasis-small"), None).unwrap();
    let t = st.timeline();
    let res: Value = serde_json::from_str(st.result()).unwrap();
    assert!(t.price_note.contains("kernel"), "{}", t.price_note);
    // The kernel's market prices equal eq. (22) of the usage the result's placements imply.
    let d: Value = serde_json::from_str(scenario("oasis-small")).unwrap();
    let p = &d["prices"];
    let nh = d["worker_servers"].as_array().unwrap().len();
    for (r, per_s) in t.price.iter().enumerate() {
        for (s, per_t) in per_s.iter().enumerate() {
            let (l, u) = if s < nh {
                (
                    p["l_worker"].as_f64().unwrap(),
                    p["u_worker"][r].as_f64().unwrap(),
                )
            } else {
                (p["l_ps"].as_f64().unwrap(), p["u_ps"][r].as_f64().unwrap())
            };
            let cap = t.servers[s].capacity[r];
            for (slot, &price) in per_t.iter().enumerate() {
                let want = oasis_price(l, u, t.usage[r][s][slot], cap);
                assert!(close(price, want), "r{r} s{s} t{slot}: {price} vs {want}");
            }
        }
    }
    // One kernel record per job, agreeing with the result document.
    let decided: Vec<_> = t
        .decisions
        .iter()
        .filter(|d| d.action == "admit" || d.action == "reject")
        .collect();
    assert_eq!(decided.len(), res["jobs"].as_array().unwrap().len());
    for d in decided {
        assert_eq!(d.source, "oasis.decision");
        let k = &d.record.to_value();
        let j = &res["jobs"][k["job"].as_u64().unwrap() as usize];
        assert_eq!(j["id"], d.job.as_str());
        assert_eq!(k["admitted"], j["admitted"]);
        if d.action == "admit" {
            assert_eq!(k["payoff"], j["payoff"]);
            assert!(d.text.contains("payoff mu_i"), "{}", d.text);
        } else {
            assert!(d.text.starts_with("rejected at slot"), "{}", d.text);
        }
    }
    assert_eq!(t.frame(0).price.len(), t.servers.len());
    // A job's bar covers the slots its placements name.
    let f = t.frame(0);
    assert!(!f.running.is_empty());
    assert_eq!(f.status.len(), 8);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn online_prices_and_records_come_from_the_kernel() {
    for name in ["online-ps-small", "online-ring-small"] {
        let st = Stepper::new(scenario(name), None).unwrap();
        let t = st.timeline();
        let res: Value = serde_json::from_str(st.result()).unwrap();
        assert!(t.price_note.contains("kernel"), "{name}: {}", t.price_note);
        let lambda: f64 = t.price_note.split("lambda = ").nth(1).unwrap()[..]
            .split(':')
            .next()
            .unwrap()
            .parse()
            .unwrap_or(f64::NAN);
        // The kernel's usage priced by eq. (11) equals the result's usage priced alike (to the
        // 4 decimals the note prints lambda with).
        for (r, per_s) in t.price.iter().enumerate() {
            for (s, per_t) in per_s.iter().enumerate() {
                for (slot, &price) in per_t.iter().enumerate() {
                    let want = zhou_price(lambda, t.usage[r][s][slot], t.servers[s].capacity[r]);
                    assert!((price - want).abs() <= 1e-3 * want.abs().max(1.0), "{name}");
                }
            }
        }
        let scheduled: Vec<_> = t
            .decisions
            .iter()
            .filter(|d| d.action == "schedule")
            .collect();
        assert_eq!(
            scheduled.len() as u64,
            res["summary"]["scheduled"].as_u64().unwrap(),
            "{name}"
        );
        for d in scheduled {
            assert_eq!(d.source, "online.decision");
            let k = d.record.to_value();
            let j = &res["jobs"][k["job"].as_u64().unwrap() as usize];
            assert_eq!(k["start"], j["start_slot"], "{name}");
            assert!(d.text.contains("u_j = w_j - cost"), "{}", d.text);
        }
        assert!(t.decisions.iter().any(|d| d.action == "start"), "{name}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn placement_market_rounds_come_from_the_kernel() {
    for name in ["placement-table2", "placement-jps"] {
        for all in [false, true] {
            let opts = RunOptions {
                policy: None,
                all_categories: all,
            };
            let t = Run::new(scenario(name), &opts).unwrap().timeline().unwrap();
            let m = &t.extra["market"];
            let cats = m["categories"].as_array().expect(name);
            assert_eq!(cats.len() as u32, t.steps, "{name}: one market per step");
            let best = cats.last().unwrap();
            assert_eq!(best["cleared"], true, "{name}");
            let rounds = best["rounds"].as_array().unwrap();
            let last = rounds.last().unwrap();
            assert!(last["over"].is_null(), "{name}: the last round clears");
            // The cleared counts buy exactly K_i workers per job.
            let classes = m["classes"].as_array().unwrap().len();
            let counts: Vec<u64> = last["counts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            for (i, k) in best["category"].as_array().unwrap().iter().enumerate() {
                let bought: u64 = counts[i * classes..(i + 1) * classes].iter().sum();
                assert_eq!(bought, k.as_u64().unwrap(), "{name}: job {i}");
            }
            let f = t.frame(t.steps - 1);
            assert_eq!(serde_json::to_value(&f.market).unwrap(), *best);
            // Every step is explained by the engine's record of its category.
            for d in &t.decisions {
                assert_eq!(d.source, "placement.category", "{name}: {}", d.text);
            }
            assert_eq!(t.decisions.last().unwrap().action, "best");
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_traced_market_decides_like_the_plain_one() {
    let d = mlsched_scenario::doc::parse(scenario("placement-table2")).unwrap();
    let mlsched_scenario::doc::ScenarioDoc::Placement(d) = d else {
        panic!("not placement")
    };
    let scn = d.validate().unwrap();
    let placer = Placer::new(&scn).unwrap();
    let inst = placer.instance();
    let (mut a, mut b) = (Market::new(inst), Market::new(inst));
    let mut cat = vec![0u32; inst.s];
    category::first(inst.k as u32, &mut cat);
    let mut n = 0;
    loop {
        let mut seen = 0u32;
        let oa = a.run(inst, &cat, MARKET_CAP);
        let ob = b.run_traced(inst, &cat, MARKET_CAP, |_| seen += 1);
        assert_eq!(oa, ob);
        assert_eq!(a.counts, b.counts);
        assert_eq!(seen, ob.rounds + u32::from(ob.cleared));
        n += 1;
        if !category::next(inst.k as u32, &mut cat) {
            break;
        }
    }
    assert!(n > 1);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn preempt_dispatches_and_queues() {
    let st = Stepper::new(scenario("preempt-small"), None).unwrap();
    let t = st.timeline();
    let res: Value = serde_json::from_str(st.result()).unwrap();
    let dispatch: Vec<_> = t
        .decisions
        .iter()
        .filter(|d| d.action == "dispatch")
        .collect();
    assert_eq!(dispatch.len(), res["jobs"].as_array().unwrap().len());
    for d in dispatch {
        assert_eq!(d.source, "preempt.dispatch");
        assert!(d.text.contains("least Q (eq. 5)"), "{}", d.text);
    }
    // Busy workers never exceed an edge server's workers.
    for (s, srv) in t.servers.iter().enumerate() {
        for step in 0..t.steps {
            let used = t.frame(step).usage[s][0];
            assert!(
                srv.capacity[0] == 0.0 || used <= srv.capacity[0],
                "{}",
                srv.id
            );
        }
    }
    let waited = (0..t.steps).any(|s| t.frame(s).queues.iter().any(|q| !q.is_empty()));
    assert!(waited, "some chunk waits or uploads");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn route_decisions_come_from_the_placed_records() {
    let st = Stepper::new(scenario("route-small"), None).unwrap();
    let t = st.timeline();
    let routed: Vec<_> = t.decisions.iter().filter(|d| d.action == "route").collect();
    assert_eq!(routed.len(), t.jobs.len());
    for d in &routed {
        assert_eq!(d.source, "route.placed");
    }
    assert!(
        routed.iter().any(|d| d.text.contains("aggregated at")),
        "CSRP aggregates some job"
    );
    let load = t.extra["link_load"].as_array().unwrap();
    assert_eq!(
        load.len(),
        t.extra["topology"]["links"].as_array().unwrap().len()
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_policy_shows_its_own_result_with_decisions_explained_by_records() {
    let consequences = ["start", "complete", "preempt", "resume"];
    for (name, text, policy, all) in cases() {
        let opts = RunOptions {
            policy: policy.map(String::from),
            all_categories: all,
        };
        let want = run_json(text, &opts);
        let Ok(want) = want else {
            assert!(Run::new(text, &opts).is_err(), "{name} {policy:?}");
            continue;
        };
        // The trace read after the run changes no result byte.
        let run = Run::new(text, &opts).unwrap();
        assert_eq!(run.result.to_json(), want, "{name} {policy:?}");
        // A saved result of any policy is shown (its scenario run again).
        let st = Stepper::from_result(text, &want).unwrap();
        assert_eq!(st.result(), want);
        let t = st.timeline();
        assert!(!t.decisions.is_empty(), "{name} {policy:?}");
        for d in &t.decisions {
            if consequences.contains(&d.action.as_str()) {
                assert!(d.record.is_null(), "{name}: {}", d.text);
            } else if !(d.action == "best" && d.source.is_empty()) {
                assert!(
                    !d.source.is_empty(),
                    "{name} {policy:?}: {} {}",
                    d.action,
                    d.text
                );
                assert!(!d.record.is_null(), "{name} {policy:?}: {}", d.text);
            }
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn results_the_engine_does_not_reproduce_are_refused() {
    let text = scenario("online-ps-small");
    let res = run_scenario(text, None, false).unwrap();
    let mut v: Value = serde_json::from_str(&res).unwrap();
    v["log_hash"] = Value::String("0".into());
    let e = Stepper::from_result(text, &v.to_string()).unwrap_err();
    assert!(
        e.contains("log_hash `0`") && e.contains("hand-edited"),
        "{e}"
    );
    // The same hash over edited numbers is refused too.
    let mut v: Value = serde_json::from_str(&res).unwrap();
    v["summary"]["scheduled"] = Value::from(99);
    let e = Stepper::from_result(text, &v.to_string()).unwrap_err();
    assert!(e.contains("document differs"), "{e}");
    // Another kind, not JSON, another policy's hash.
    let e = Stepper::from_result(scenario("route-small"), &res).unwrap_err();
    assert!(e.contains("does not match"), "{e}");
    assert!(Stepper::from_result(text, "nope").is_err());
    let fifo = run_scenario(text, Some("fifo"), false).unwrap();
    let mut v: Value = serde_json::from_str(&fifo).unwrap();
    v["policy"] = Value::String("online".into());
    assert!(Stepper::from_result(text, &v.to_string()).is_err());
}

/// The change-point series (`usage_series`, `price_series`) are the dense matrices exactly, and
/// a frame's usage and prices read from them, for every bundled scenario and policy.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn usage_series_are_the_dense_matrices() {
    use mlsched_wasm::sim::series;
    for_each_timeline(|name, policy, _, t| {
        for (dense, sparse) in [(&t.usage, &t.usage_series), (&t.price, &t.price_series)] {
            assert_eq!(dense.len(), sparse.len(), "{name} {policy:?}");
            for (d, s) in dense.iter().zip(sparse) {
                for (row, ser) in d.iter().zip(s) {
                    assert_eq!(*row, series::expand(ser, t.steps), "{name} {policy:?}");
                }
            }
        }
        for step in 0..t.steps {
            let f = t.frame(step);
            for (s, per_r) in f.usage.iter().enumerate() {
                for (r, &u) in per_r.iter().enumerate() {
                    assert_eq!(u, t.usage[r][s][step as usize], "{name} {policy:?}");
                }
            }
        }
    });
}

/// The timeline's `summary` (and placement's rounds and market statistics) are the very values
/// the result holds (every float equal), for every bundled scenario and policy: a guard against
/// reading them back from the result's JSON text, where serde_json's default float parsing can
/// be one ulp off.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn summaries_are_the_results_own_values() {
    use mlsched_scenario::run::ResultDoc;
    for_each_timeline(|name, policy, run, t| {
        let want = match &run.result {
            ResultDoc::Oasis(r) => value(&r.summary),
            ResultDoc::Online(r) => value(&r.summary),
            ResultDoc::Preempt(r) => value(&r.summary),
            ResultDoc::Route(r) => value(&r.summary),
            ResultDoc::Placement(r) => {
                assert_eq!(t.extra["market_stats"], value(&r.market), "{name}");
                let rounds = t.extra["rounds"].as_array().unwrap();
                let per = r.per_category.as_deref().unwrap_or(&[]);
                assert_eq!(rounds.len(), per.len() + 1, "{name}");
                for (got, c) in rounds.iter().zip(per) {
                    assert_eq!(*got, value(c), "{name} {policy:?}");
                }
                value(&r.best)
            }
        };
        assert_eq!(t.summary, want, "{name} {policy:?}");
    });
}

/// Calls `f(name, policy, run, timeline)` for every bundled case a policy takes (some refuse
/// some scenarios, e.g. an exhaustive search too large).
fn for_each_timeline(mut f: impl FnMut(&str, Option<&str>, &Run, &mlsched_wasm::sim::Timeline)) {
    for (name, text, policy, all) in cases() {
        let opts = RunOptions {
            policy: policy.map(String::from),
            all_categories: all,
        };
        let Ok(run) = Run::new(text, &opts) else {
            continue;
        };
        f(name, policy, &run, &run.timeline().unwrap());
    }
}

fn value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}
