//! Runs on wasm32 under `wasm-bindgen-test-runner` (node): the exported API itself, with real JS
//! values and errors. (Natively these compile to nothing: the same logic is tested in the lib.)
#![cfg(target_arch = "wasm32")]
use mlsched_wasm::{bundled_json, run, run_scenario, run_with, Simulation};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn run_matches_the_cli_layer_on_every_bundled_scenario() {
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let want = run_scenario(text, None, false);
        match (run(text), want) {
            (Ok(got), Ok(want)) => assert_eq!(got, want, "{name}"),
            (Err(got), Err(want)) => {
                let v: JsValue = got.into();
                let e: js_sys::Error = v.unchecked_into();
                assert_eq!(String::from(e.message()), want, "{name}");
            }
            (got, want) => panic!("{name}: wasm {:?} vs cli {:?}", got.is_ok(), want.is_ok()),
        }
    }
}

#[wasm_bindgen_test]
fn bad_input_is_a_js_error_with_the_cli_message() {
    let err = run(r#"{"kind": "nope"}"#).err().map(JsValue::from).unwrap();
    assert!(err.is_instance_of::<js_sys::Error>());
    let msg = String::from(err.unchecked_into::<js_sys::Error>().message());
    assert_eq!(
        msg,
        run_scenario(r#"{"kind": "nope"}"#, None, false).unwrap_err()
    );
    assert!(msg.contains("unknown kind `nope`"), "{msg}");
    assert!(run_with("{}", Some("fifo".into()), None).is_err());
}

#[wasm_bindgen_test]
fn bundled_list_has_every_kind() {
    let list = bundled_json();
    for kind in ["oasis", "online", "placement", "preempt", "route"] {
        assert!(list.contains(&format!("\"kind\":\"{kind}\"")), "{kind}");
    }
}

#[wasm_bindgen_test]
fn simulation_steps_a_saved_result() {
    let scn = include_str!("../../scenarios/oasis-small.json");
    let res = r#"{"kind":"oasis","policy":"oasis","summary":{"admitted":1,"rejected":4,"total_utility":1},
      "jobs":[{"id":"resnet-1","admitted":true,"placements":[{"slot":1,"workers":[[0,1]],"ps":[]}]},
        {"id":"vgg-2","admitted":false},{"id":"bert-3","admitted":false},{"id":"lstm-4","admitted":false},
        {"id":"gan-5","admitted":false},{"id":"resnet-6","admitted":false},{"id":"vgg-7","admitted":false},
        {"id":"late-8","admitted":false}],"log_hash":"x"}"#;
    let mut sim = Simulation::from_result(scn, res)
        .map_err(JsValue::from)
        .unwrap();
    assert_eq!(sim.steps(), 20);
    assert!(sim.step());
    assert_eq!(sim.current_step(), 1);
    let state = sim.state().map_err(JsValue::from).unwrap();
    let text = String::from(js_sys::JSON::stringify(&state).unwrap());
    assert!(text.contains("\"running\":[0]"), "{text}");
    sim.seek(99);
    assert!(sim.done());
    assert!(!sim.step());
}
