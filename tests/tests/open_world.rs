//! The open world at the façade (`docs/open-world.md`), for every bundled scenario and every
//! policy: a run with no events is `mlsched run`; a cancel before arrival makes the job
//! `cancelled` and never feeds it; bad events are input errors naming the field and leave the
//! engine as it was; a run with events replays from its log and restores from its snapshot;
//! explicit server ids name the servers in events and occupancy.
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::engine::Engine;
use mlsched_scenario::event::{parse, parse_lines, Feeder};
use mlsched_scenario::replay;
use mlsched_scenario::run::{policies, run_json, RunOptions};
use mlsched_scenario::RunError;
use serde_json::Value;

fn opts(k: usize, policy: &str) -> RunOptions {
    RunOptions {
        policy: (k > 0).then(|| policy.to_string()),
        all_categories: false,
    }
}

/// Every (scenario name, text, options) of the bundled scenarios that runs.
fn runs() -> Vec<(&'static str, &'static str, RunOptions)> {
    let mut out = Vec::new();
    for &(name, text) in SCENARIOS {
        let kind = serde_json::from_str::<Value>(text).unwrap()["kind"]
            .as_str()
            .unwrap()
            .to_string();
        for (k, p) in policies(&kind).iter().enumerate() {
            let o = opts(k, p);
            if run_json(text, &o).is_ok() {
                out.push((name, text, o));
            }
        }
    }
    out
}

#[test]
fn a_run_with_no_events_is_mlsched_run() {
    for (name, text, o) in runs() {
        let mut e = Engine::new(text, &o).unwrap();
        let r = e.run_events(&[], &mut |_| {}).unwrap();
        assert_eq!(
            r.to_json(),
            run_json(text, &o).unwrap(),
            "{name} {:?}",
            o.policy
        );
    }
}

/// The job of `text` arriving last (ties: the highest index), and its id.
fn last_arrival(text: &str) -> (usize, String, u32) {
    let v: Value = serde_json::from_str(text).unwrap();
    let jobs = v["jobs"].as_array().unwrap();
    let at = |j: &Value| j.get("arrival").and_then(Value::as_f64).unwrap_or(0.0) as u32;
    let (i, j) = jobs
        .iter()
        .enumerate()
        .max_by_key(|(i, j)| (at(j), *i))
        .unwrap();
    (i, j["id"].as_str().unwrap().to_string(), at(j))
}

#[test]
fn a_cancel_before_arrival_never_feeds_the_job_and_replays() {
    for (name, text, o) in runs() {
        let (i, id, _) = last_arrival(text);
        let events = parse_lines(&format!(r#"{{"at":0,"event":"cancel","job":"{id}"}}"#)).unwrap();
        let (result, bytes) = replay::record_events(text, &o, &events, &mut |_| {})
            .unwrap_or_else(|e| panic!("{name} {:?}: {e}", o.policy));
        let v: Value = serde_json::from_str(&result.to_json()).unwrap();
        let rows = v["jobs"].as_array().unwrap();
        assert_eq!(
            rows.len(),
            serde_json::from_str::<Value>(text).unwrap()["jobs"]
                .as_array()
                .unwrap()
                .len()
        );
        assert_eq!(rows[i]["status"], "cancelled", "{name} {:?}", o.policy);
        assert_eq!(v["summary"]["statuses"]["cancelled"], 1, "{name}");
        let held = v["occupancy"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["job"] == id.as_str());
        assert!(
            !held,
            "{name} {:?}: a job cancelled before it arrived holds nothing",
            o.policy
        );
        let rep = replay::replay(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(rep.log_hash, v["log_hash"].as_str().unwrap(), "{name}");
    }
}

#[test]
fn snapshots_carry_open_world_events() {
    for (name, text, o) in runs() {
        let (_, id, _) = last_arrival(text);
        let mut e = Engine::new(text, &o).unwrap();
        let ev = parse(&format!(r#"{{"at":0,"event":"cancel","job":"{id}"}}"#)).unwrap();
        Feeder::new(&e).apply(&mut e, &ev, None).unwrap();
        let snap = e.snapshot();
        let mut back = Engine::restore_hashed(text, &o, &snap).unwrap();
        assert_eq!(back.events_fed(), e.events_fed(), "{name}");
        let a = e.run().unwrap().to_json();
        let b = back.run().unwrap().to_json();
        assert_eq!(a, b, "{name} {:?}", o.policy);
    }
}

/// Applies `text` to a fresh engine of `scenario`: the input error's field, and whether the
/// engine fed nothing.
fn refused(scenario: &str, o: &RunOptions, text: &str) -> (String, bool) {
    let mut e = Engine::new(scenario, o).unwrap();
    let ev = match parse(text) {
        Ok(ev) => ev,
        // Refused when read (a negative capacity entry): the engine never sees it.
        Err(i) => return (i.field.split('[').next().unwrap_or("").to_string(), true),
    };
    match Feeder::new(&e).apply(&mut e, &ev, None) {
        Err(RunError::Input(i)) => (i.field, e.events_fed() == 0),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn bad_events_name_the_field_and_change_nothing() {
    for (name, text, o) in runs() {
        let v: Value = serde_json::from_str(text).unwrap();
        let e = Engine::new(text, &o).unwrap();
        let server = e.server_ids()[0].clone();
        let r = e.capacity_len();
        let first = v["jobs"][0]["id"].as_str().unwrap().to_string();
        let wrong = vec![1.0; r + 1];
        let negative = {
            let mut c = vec![1.0; r];
            c[r - 1] = -1.0;
            c
        };
        for (ev, field) in [
            (
                r#"{"at":0,"event":"cancel","job":"no-such-job"}"#.to_string(),
                "job",
            ),
            (
                r#"{"at":0,"event":"server_down","server":"no-such-server"}"#.into(),
                "server",
            ),
            (
                format!(r#"{{"at":0,"event":"server_up","server":"{server}"}}"#),
                "server",
            ),
            (
                format!(
                    r#"{{"at":0,"event":"capacity","server":"{server}","capacity":{wrong:?}}}"#
                ),
                "capacity",
            ),
            (
                format!(
                    r#"{{"at":0,"event":"capacity","server":"{server}","capacity":{negative:?}}}"#
                ),
                "capacity",
            ),
            (
                format!(r#"{{"at":0,"event":"submit","job":{{"id":"{first}"}}}}"#),
                "job.id",
            ),
        ] {
            let (f, untouched) = refused(text, &o, &ev);
            assert_eq!(f, field, "{name} {:?}: {ev}", o.policy);
            assert!(untouched, "{name} {:?}: {ev} fed something", o.policy);
        }
    }
}

#[test]
fn events_going_back_in_time_are_refused_naming_the_line() {
    let err = parse_lines("{\"at\":3,\"event\":\"advance\"}\n\n{\"at\":2,\"event\":\"advance\"}\n")
        .unwrap_err();
    assert_eq!(err.subject, "event on line 3");
    assert_eq!(err.field, "at");
}

#[test]
fn explicit_server_ids_name_servers_in_events_and_occupancy() {
    let text = SCENARIOS.iter().find(|s| s.0 == "oasis-small").unwrap().1;
    let mut v: Value = serde_json::from_str(text).unwrap();
    let cap = v["worker_servers"][0].clone();
    v["worker_servers"][0] = serde_json::json!({"id": "gpu-a", "capacity": cap});
    let named = v.to_string();
    let o = RunOptions::default();
    let e = Engine::new(&named, &o).unwrap();
    assert_eq!(e.server_ids()[0], "gpu-a");
    assert_eq!(e.server_index("gpu-a"), Some(0));
    assert_eq!(
        e.server_index("w0"),
        None,
        "an explicit id replaces the default"
    );
    let plain: Value = serde_json::from_str(&run_json(text, &o).unwrap()).unwrap();
    let with: Value = serde_json::from_str(&run_json(&named, &o).unwrap()).unwrap();
    assert_eq!(
        plain["log_hash"], with["log_hash"],
        "ids change no decision"
    );
    let servers = |r: &Value| -> Vec<String> {
        r["occupancy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["server"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(servers(&with).contains(&"gpu-a".to_string()));
    assert!(!servers(&with).contains(&"w0".to_string()));
    assert_eq!(
        servers(&plain).iter().filter(|s| *s == "w0").count(),
        servers(&with).iter().filter(|s| *s == "gpu-a").count()
    );
    // A duplicate id is refused naming the server and the field.
    v["worker_servers"][1] = serde_json::json!({"id": "gpu-a", "capacity": cap});
    match Engine::new(&v.to_string(), &o) {
        Err(RunError::Input(i)) => {
            assert_eq!((i.subject.as_str(), i.field.as_str()), ("server 1", "id"));
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    // Written back, a list with ids keeps them; one without is unchanged.
    let d = mlsched_scenario::doc::parse(&named).unwrap();
    let mlsched_scenario::doc::ScenarioDoc::Oasis(doc) = d else {
        panic!()
    };
    let back: Value = serde_json::to_value(&doc).unwrap();
    assert_eq!(back["worker_servers"][0]["id"], "gpu-a");
    assert!(back["worker_servers"][1].is_array());
}
