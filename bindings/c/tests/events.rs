//! `mlsched_engine_event` from safe Rust through the C ABI: the bindings' sample host events
//! (`bindings/events/`) fed one at a time, with bad events refused (code 2, the field named,
//! the engine unchanged) in between, finish with the bytes of `Engine::run_events` (those of
//! `mlsched run --events`).
use mlsched::{
    mlsched_engine_event, mlsched_engine_free, mlsched_engine_new, mlsched_engine_run_to_end,
    mlsched_free, MlschedEngine,
};
use mlsched_scenario::engine::Engine;
use mlsched_scenario::event::{parse_lines, HostEvent};
use mlsched_scenario::run::RunOptions;
use std::ptr;

const SCENARIO: &str = include_str!("../../../scenarios/online-ps-small.json");
const EVENTS: &str = include_str!("../../events/online-ps-small.jsonl");

/// Takes the `(out, out_len)` buffer a call handed out: its bytes, freed.
fn take(out: *mut u8, len: usize) -> String {
    let s = if out.is_null() {
        String::new()
    } else {
        // SAFETY: the library handed out `len` initialised bytes at `out`.
        String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(out, len) }).into_owned()
    };
    // SAFETY: `out` is that call's buffer with its own length, freed once.
    unsafe { mlsched_free(out, len) };
    s
}

fn event(e: *mut MlschedEngine, json: &str) -> (i32, String) {
    let (mut out, mut len) = (ptr::null_mut(), 0usize);
    // SAFETY: `e` is a live handle of this thread; `json` is valid for its length; `out` and
    // `len` are locals valid for writes.
    let code = unsafe { mlsched_engine_event(e, json.as_ptr(), json.len(), &mut out, &mut len) };
    (code, take(out, len))
}

#[test]
fn host_events_through_the_abi_give_the_run_events_bytes() {
    let evs = parse_lines(EVENTS).expect("sample events");
    let opts = RunOptions::default();
    let mut whole = Engine::new(SCENARIO, &opts).expect("engine");
    let want = whole.run_events(&evs, &mut |_| {}).expect("run").to_json();

    let (mut e, mut out, mut len) = (ptr::null_mut(), ptr::null_mut(), 0usize);
    // SAFETY: the scenario is valid for its length, the policy pair is (NULL, 0), the outputs
    // are locals valid for writes.
    let code = unsafe {
        mlsched_engine_new(
            SCENARIO.as_ptr(),
            SCENARIO.len(),
            ptr::null(),
            0,
            &mut e,
            &mut out,
            &mut len,
        )
    };
    assert_eq!(code, 0, "{}", take(out, len));
    let plain = Engine::new(SCENARIO, &opts).expect("engine");
    let mut arrivals = plain.arrival_order().iter().peekable();
    let mut fed: Vec<HostEvent> = Vec::new();
    for ev in &evs {
        while let Some(&(at, j)) = arrivals.next_if(|a| a.0 < ev.at()) {
            let job = plain.job_id(j).expect("id").to_string();
            fed.push(HostEvent::Arrive { at, job });
        }
        fed.push(ev.clone());
    }
    for &(at, j) in arrivals {
        let job = plain.job_id(j).expect("id").to_string();
        fed.push(HostEvent::Arrive { at, job });
    }
    let bad = [
        ("{", "not valid JSON"),
        (
            r#"{"event": "server_down", "at": 40, "server": "nope"}"#,
            "`server`",
        ),
        (r#"{"event": "cancel", "at": 40, "job": "nope"}"#, "`job`"),
        (
            r#"{"event": "capacity", "at": 40, "server": "h0", "capacity": [1]}"#,
            "`capacity`",
        ),
        (r#"{"event": "advance"}"#, "`at`"),
    ];
    for ev in &fed {
        let (code, decisions) = event(e, &ev.to_json());
        assert_eq!(code, 0, "{}: {decisions}", ev.to_json());
        assert!(decisions.starts_with('[') && decisions.ends_with(']'));
        for (text, field) in bad {
            let (code, msg) = event(e, text);
            assert_eq!(code, 2, "{text}");
            assert!(msg.contains(field), "{text}: {msg}");
        }
    }
    let (mut out, mut len) = (ptr::null_mut(), 0usize);
    // SAFETY: `e` is live; the outputs are locals valid for writes.
    let code = unsafe { mlsched_engine_run_to_end(e, &mut out, &mut len) };
    assert_eq!(code, 0);
    assert_eq!(take(out, len), want);
    assert_eq!(
        event(e, r#"{"event": "advance", "at": 99}"#).0,
        2,
        "after the end"
    );
    // SAFETY: `e` came from `mlsched_engine_new` and is freed once.
    unsafe { mlsched_engine_free(e) };
    assert_eq!(event(ptr::null_mut(), "{}").0, 2, "null handle");
}
