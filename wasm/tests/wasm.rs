//! Runs on wasm32 under `wasm-bindgen-test-runner` (node): the exported API itself, with real JS
//! values and errors. (Natively these compile to nothing: the same logic is tested in the lib.)
#![cfg(target_arch = "wasm32")]
use mlsched_wasm::{bundled_json, run, run_scenario, run_with, Engine, Simulation};
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
    let res = run(scn).map_err(JsValue::from).unwrap();
    let mut sim = Simulation::from_result(scn, &res)
        .map_err(JsValue::from)
        .unwrap();
    assert_eq!(sim.steps(), 20);
    assert_eq!(sim.result_json(), res);
    assert!(sim.step());
    assert_eq!(sim.current_step(), 1);
    let state = sim.state().map_err(JsValue::from).unwrap();
    let text = String::from(js_sys::JSON::stringify(&state).unwrap());
    assert!(text.contains("\"running\":[0"), "{text}");
    sim.seek(99);
    assert!(sim.done());
    assert!(!sim.step());
    // A result the engine does not reproduce is a JS Error naming log_hash.
    let edited = res.replace("\"log_hash\": \"", "\"log_hash\": \"0");
    let err = Simulation::from_result(scn, &edited)
        .err()
        .map(JsValue::from)
        .unwrap();
    let msg = String::from(err.unchecked_into::<js_sys::Error>().message());
    assert!(msg.contains("log_hash"), "{msg}");
}

/// The JS class `Engine`, driven event by event (arrivals by id, advances at arrivals and
/// wake-ups) on every bundled scenario: the same result bytes as `run`; decisions are plain
/// objects `{record, job, data}`.
#[wasm_bindgen_test]
fn engine_class_event_by_event_gives_run_bytes() {
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let Ok(want) = run(text) else {
            assert!(Engine::new(text, None).is_err(), "{name}");
            continue;
        };
        let mut e = Engine::new(text, None).map_err(JsValue::from).unwrap();
        assert!(e.now().is_none());
        let order: Vec<(u32, u32)> =
            js_sys::Array::from(&e.arrival_order().map_err(JsValue::from).unwrap())
                .iter()
                .map(|a| {
                    let get = |k: &str| {
                        js_sys::Reflect::get(&a, &k.into())
                            .unwrap()
                            .as_f64()
                            .unwrap() as u32
                    };
                    (get("slot"), get("job"))
                })
                .collect();
        let mut next = 0;
        let mut t = match (order.first(), e.next_wakeup()) {
            (Some(a), Some(w)) => Some(a.0.min(w)),
            (a, w) => a.map(|a| a.0).or(w),
        };
        let mut records = 0u32;
        while let Some(now) = t {
            while let Some(&(_, j)) = order.get(next).filter(|a| a.0 <= now) {
                let id = e.job_id(j).unwrap();
                let d = e
                    .arrive(JsValue::from_str(&id), now)
                    .map_err(JsValue::from)
                    .unwrap();
                records += js_sys::Array::from(&d).length();
                next += 1;
            }
            let d = e.advance(now).map_err(JsValue::from).unwrap();
            for x in js_sys::Array::from(&d).iter() {
                assert!(js_sys::Reflect::get(&x, &"record".into())
                    .unwrap()
                    .is_string());
                assert!(js_sys::Reflect::has(&x, &"data".into()).unwrap());
                records += 1;
            }
            let wake = e.next_wakeup().map(|w| w.max(now + 1));
            let arr = order.get(next).map(|a| a.0.max(now + 1));
            t = match (arr, wake) {
                (Some(a), Some(w)) => Some(a.min(w)),
                (a, w) => a.or(w),
            };
        }
        assert!(records > 0, "{name}");
        let snap = e.snapshot();
        assert_eq!(e.finish().map_err(JsValue::from).unwrap(), want, "{name}");
        let mut r = Engine::restore(text, Some(e.policy()), &snap)
            .map_err(JsValue::from)
            .unwrap();
        assert_eq!(
            r.run_to_end().map_err(JsValue::from).unwrap(),
            want,
            "{name}: restored"
        );
        let err = e.advance(u32::MAX).err().map(JsValue::from).unwrap();
        assert!(err.is_instance_of::<js_sys::Error>());
        let bad = Engine::new(text, None)
            .map_err(JsValue::from)
            .unwrap()
            .arrive(JsValue::from_str("no-such-job"), 0)
            .err()
            .map(JsValue::from)
            .unwrap();
        let msg = String::from(bad.unchecked_into::<js_sys::Error>().message());
        assert!(msg.contains("job") && msg.contains("no-such-job"), "{msg}");
    }
}
