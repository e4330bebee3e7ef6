//! The visualiser's kernel path (`replay::kernel`): for the kinds' own algorithms the stepping
//! API shows the kernel's prices, decision records and matching-market rounds, and they agree
//! with the result document the run returned. Runs natively and, under
//! wasm-bindgen-test-runner, on wasm32.
use mlsched_kernel::placement::{category, Market, Placer, MARKET_CAP};
use mlsched_kernel::price::{oasis_price, zhou_price};
use mlsched_wasm::Stepper;
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
        let k = &d.record;
        let j = &res["jobs"][k["job"].as_u64().unwrap() as usize];
        assert_eq!(j["id"], d.job.as_str());
        assert_eq!(k["admitted"], j["admitted"]);
        if d.action == "admit" {
            assert_eq!(k["payoff"], j["payoff"]);
            assert!(d.text.contains("payoff mu_i"), "{}", d.text);
        }
    }
    assert!(t.frame(0).price.len() == t.servers.len());
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
        // The kernel's usage priced by eq. (11) equals the replayed usage priced alike (to the
        // 4 decimals the note prints lambda with).
        for (r, per_s) in t.price.iter().enumerate() {
            for (s, per_t) in per_s.iter().enumerate() {
                for (slot, &price) in per_t.iter().enumerate() {
                    let want = zhou_price(lambda, t.usage[r][s][slot], t.servers[s].capacity[r]);
                    assert!((price - want).abs() <= 1e-3 * want.abs().max(1.0), "{name}");
                }
            }
        }
        let scheduled = t
            .decisions
            .iter()
            .filter(|d| d.action == "schedule")
            .count();
        assert_eq!(
            scheduled as u64,
            res["summary"]["scheduled"].as_u64().unwrap(),
            "{name}"
        );
        for d in t.decisions.iter().filter(|d| d.action == "schedule") {
            let j = &res["jobs"][d.record["job"].as_u64().unwrap() as usize];
            assert_eq!(d.record["start"], j["start_slot"], "{name}");
            assert!(d.text.contains("u_j = w_j - cost"), "{}", d.text);
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn placement_market_rounds_come_from_the_kernel() {
    for name in ["placement-table2", "placement-jps"] {
        let st = Stepper::new(scenario(name), None).unwrap();
        let t = st.timeline();
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
        assert_eq!(t.frame(t.steps - 1).market, *best);
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
fn baselines_and_saved_results_fall_back_to_the_result() {
    let st = Stepper::new(scenario("oasis-small"), Some("fifo")).unwrap();
    assert!(st.timeline().decisions.iter().all(|d| d.record.is_null()));
    // A result whose log_hash is not the kernel's is replayed from the document alone.
    let res = mlsched_wasm::run_scenario(scenario("online-ps-small"), None, false).unwrap();
    let mut v: Value = serde_json::from_str(&res).unwrap();
    v["log_hash"] = Value::String("0".into());
    let st = Stepper::from_result(scenario("online-ps-small"), &v.to_string()).unwrap();
    assert!(st.timeline().decisions.iter().all(|d| d.record.is_null()));
    assert!(!st.timeline().price_note.contains("kernel"));
}
