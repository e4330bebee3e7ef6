//! Replays of hand-written result documents for the bundled scenarios: they pin the replay
//! logic itself (usage, prices, bars, queues, explanations from the result alone), whatever the
//! algorithms decide. Their `log_hash` is not the kernel's, so the replay does not use the
//! kernel's trace here (`tests/trace.rs` covers that path). Runs natively and, under
//! wasm-bindgen-test-runner, on wasm32.
use mlsched_wasm::replay::timeline;

/// The bundled scenario `name` (`scenarios/<name>.json`).
fn scenario(name: &str) -> &'static str {
    mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .unwrap_or_else(|| panic!("no bundled scenario {name}"))
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn oasis_usage_prices_and_decisions() {
    let res = r#"{"kind":"oasis","policy":"oasis","summary":{"admitted":1,"rejected":3,"total_utility":48.1},
      "jobs":[{"id":"resnet-1","admitted":true,"completion_slot":2,"utility":48.1,"cost":12.3,"payoff":35.8,
        "placements":[{"slot":0,"workers":[[0,2]],"ps":[[0,1]]},{"slot":1,"workers":[[0,2]],"ps":[[0,1]]}]},
        {"id":"vgg-2","admitted":false,"placements":[]},{"id":"bert-3","admitted":false,"placements":[]},
        {"id":"lstm-4","admitted":false,"placements":[]},{"id":"gan-5","admitted":false,"placements":[]},
        {"id":"resnet-6","admitted":false,"placements":[]},{"id":"vgg-7","admitted":false,"placements":[]},
        {"id":"late-8","admitted":false,"placements":[]}],"log_hash":"x"}"#;
    let t = timeline(scenario("oasis-small"), res).unwrap();
    assert_eq!(t.steps, 20);
    assert_eq!(t.servers.len(), 5);
    // 2 workers x [1, 4, 16, 1] on w0 in slots 0 and 1.
    assert_eq!(t.usage[1][0][0], 8.0);
    assert_eq!(t.usage[1][0][1], 8.0);
    assert_eq!(t.usage[1][0][2], 0.0);
    assert_eq!(t.usage[2][3][0], 16.0); // PS on ps0 (row 3)
                                        // Price at zero use is L, at 8/32 cpu it is L (U/L)^(1/4).
    assert_eq!(t.price[1][0][2], 0.004);
    let want = 0.004 * libm_pow(10.0 / 0.004, 0.25);
    assert!((t.price[1][0][0] - want).abs() < 1e-9);
    assert_eq!(t.bars.len(), 2);
    assert_eq!((t.bars[0].start, t.bars[0].end), (0, 2));
    let f = t.frame(0);
    assert_eq!(f.decisions[0].action, "admit");
    assert!(f.decisions[0].text.contains("payoff 35.8"));
    assert_eq!(
        f.status,
        ["running", "waiting", "waiting", "waiting", "waiting", "waiting", "waiting", "waiting"]
    );
    assert_eq!(
        t.frame(19).status[..4],
        ["done", "rejected", "rejected", "rejected"]
    );
}

fn libm_pow(a: f64, b: f64) -> f64 {
    mlsched_kernel::price::oasis_price(1.0, a, b, 1.0)
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn online_usage_and_zhou_price() {
    let res = r#"{"kind":"online","policy":"online","summary":{"scheduled":1,"total_weighted_completion_time":1,"alpha":4},
      "jobs":[{"id":"j1","scheduled":true,"start_slot":1,"duration":3,"completion_slot":4,"worker_type":0,"ps_type":0,
        "colocated":true,"placement":[[0,2,1]],"round":2},
        {"id":"j2","scheduled":false,"colocated":false,"placement":[]},
        {"id":"j3","scheduled":false,"colocated":false,"placement":[]},
        {"id":"j4","scheduled":false,"colocated":false,"placement":[]},
        {"id":"j5","scheduled":false,"colocated":false,"placement":[]},
        {"id":"j6","scheduled":false,"colocated":false,"placement":[]}],"log_hash":"x"}"#;
    let t = timeline(scenario("online-ps-small"), res).unwrap();
    // 2 x [1,4,1] + 1 x [0,4,5] on h0 during slots 1..4.
    assert_eq!(t.usage[0][0][1], 2.0);
    assert_eq!(t.usage[1][0][3], 12.0);
    assert_eq!(t.usage[2][0][2], 7.0);
    assert_eq!(t.usage[2][0][4], 0.0);
    assert_eq!(t.price[0][0][0], 0.0);
    assert!(t.price[0][0][1] > 0.0);
    let f = t.frame(1);
    assert_eq!(f.running, [0]);
    assert_eq!(f.decisions[0].action, "start");
    // Dominant share on h0: bandwidth 7 / 25.
    assert!((f.utilisation[0] - 0.28).abs() < 1e-12);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn preempt_queues_and_preemptions() {
    let res = r#"{"kind":"preempt","policy":"preempt","summary":{"avg_jct":1,"total_jct":1,"preemptions":1,"cloud_chunks":0},
      "jobs":[{"id":"j1","completion_slot":9,"jct":9,"chunks":[
          {"server":0,"worker":0,"start":2,"end":9,"slots":[2,3,4,7,8]}],"ps":[{"slot":2,"server":0,"ps":1}]},
        {"id":"j2","completion_slot":7,"jct":4,"chunks":[{"server":0,"worker":0,"start":5,"end":7,"slots":[5,6]}],"ps":[]},
        {"id":"j3","completion_slot":6,"jct":1,"chunks":[],"ps":[]}],"log_hash":"x"}"#;
    let t = timeline(scenario("preempt-small"), res).unwrap();
    assert_eq!(t.steps, 10);
    assert_eq!(t.bars.len(), 3);
    let pre: Vec<_> = t
        .decisions
        .iter()
        .filter(|d| d.action == "preempt")
        .collect();
    assert_eq!(pre.len(), 1);
    assert_eq!(pre[0].step, 5);
    let f = t.frame(5);
    assert_eq!(f.queues[0], ["j1#0@w0"]);
    assert_eq!(f.usage[0], [1.0, 0.0]);
    // j1 uploads to edge-0 for 2 slots.
    assert_eq!(t.frame(1).queues[0], ["j1#0 uploading to w0"]);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn placement_rounds() {
    let res = r#"{"kind":"placement","policy":"has","best":{"category":[2,2],"assignment":{"resnet18":[0,1],"vgg19":[2,3]},
      "workload":{},"throughput":{},"jct":{},"avg_jct":10.0,"fairness":0.9},"categories_examined":3,
      "per_category":[{"category":[1,3],"assignment":{"resnet18":[2],"vgg19":[0,1,3]},"avg_jct":12.0,"total_throughput":1.0,"fairness":0.5}],
      "log_hash":"x"}"#;
    let t = timeline(scenario("placement-table2"), res).unwrap();
    assert_eq!(t.steps, 2);
    assert_eq!(t.usage[0][2], [1.0, 1.0]);
    assert_eq!(t.bars.len(), 8);
    assert_eq!((t.bars[0].server, t.bars[0].start), (2, 0));
    assert_eq!(t.decisions[1].action, "best");
    assert!(t.decisions[1].text.contains("resnet18 -> [0, 1]"));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn route_paths_load_links() {
    let res = r#"{"kind":"route","policy":"csrp","summary":{"deadline_violation_rate":0,"servers_used":1,"avg_network_cost":1,"cost":1},
      "jobs":[{"id":"j1","start":0,"compute_nodes":["c0","c0","c1"],"paths":[["p0","agg0","c0"],["p0","agg0","c1"]],
        "aggregation_node":"agg0","deadline_met":true,"network_cost":2.0},
        {"id":"j2","start":1,"compute_nodes":[],"paths":[],"aggregation_node":null,"deadline_met":false,"network_cost":0},
        {"id":"j3","start":2,"compute_nodes":[],"paths":[],"aggregation_node":null,"deadline_met":false,"network_cost":0},
        {"id":"j4","start":2,"compute_nodes":[],"paths":[],"aggregation_node":null,"deadline_met":false,"network_cost":0}],"log_hash":"x"}"#;
    let t = timeline(scenario("route-small"), res).unwrap();
    assert_eq!(t.usage[0][0][0], 2.0);
    assert_eq!(t.usage[0][1][3], 1.0);
    assert_eq!(t.usage[0][1][4], 0.0);
    // link agg0-p0 (index 6) carries both paths: 0 + 2 x 1.0.
    assert_eq!(t.extra["link_load"][6][0], 2.0);
    assert_eq!(t.extra["link_load"][2][0], 3.5);
    assert!(t.decisions[0].text.contains("aggregated at agg0"));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn mismatched_results_are_errors() {
    let e = timeline(scenario("route-small"), r#"{"kind":"oasis"}"#).unwrap_err();
    assert!(e.contains("does not match"), "{e}");
    let e = timeline(scenario("oasis-small"), r#"{"kind":"oasis","jobs":[]}"#).unwrap_err();
    assert!(e.contains("resnet-1"), "{e}");
    assert!(timeline(scenario("oasis-small"), "nope").is_err());
}
