//! The open-world host events on every surface (`bindings/events/README.md`): `mlsched run
//! --events` on the bindings' sample gives the bytes of `Engine::run_events` (what the C test's
//! expected bytes are, `bindings/c/examples/expected.rs`) and of the same run applied one host
//! event at a time with `Feeder::apply` (what `Engine.event` does in Python, JS and C). The
//! Python (`bindings/python/tests/test_events.py`) and node (`wasm/test/events.test.mjs`) tests
//! compare their bytes with this binary's.
use mlsched_scenario::engine::Engine;
use mlsched_scenario::event::{parse_lines, Feeder, HostEvent};
use mlsched_scenario::run::RunOptions;
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
fn cli_events_are_the_engine_bytes_on_the_bindings_sample() {
    let scenario_path = root().join("scenarios/online-ps-small.json");
    let events_path = root().join("bindings/events/online-ps-small.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_mlsched"))
        .arg("run")
        .arg(&scenario_path)
        .arg("--events")
        .arg(&events_path)
        .args(["--json", "-", "--quiet"])
        .output()
        .expect("run mlsched");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli = String::from_utf8(out.stdout).expect("UTF-8");

    let scenario = std::fs::read_to_string(&scenario_path).expect("scenario");
    let evs = parse_lines(&std::fs::read_to_string(&events_path).expect("events")).expect("parse");
    assert!(!evs.is_empty());
    let opts = RunOptions::default();
    let mut e = Engine::new(&scenario, &opts).expect("engine");
    let whole = e
        .run_events(&evs, &mut |_| {})
        .expect("run_events")
        .to_json();
    assert_eq!(cli.trim_end(), whole.trim_end());

    // One host event at a time, the scenario's arrivals as `arrive` events after the other
    // events of their slot.
    let mut e = Engine::new(&scenario, &opts).expect("engine");
    let order: Vec<(u32, String)> = e
        .arrival_order()
        .iter()
        .map(|&(s, j)| (s, e.job_id(j).expect("id").to_string()))
        .collect();
    let mut arrivals = order.into_iter().peekable();
    let mut fed = Vec::new();
    for ev in &evs {
        while let Some((at, job)) = arrivals.next_if(|a| a.0 < ev.at()) {
            fed.push(HostEvent::Arrive { at, job });
        }
        fed.push(ev.clone());
    }
    fed.extend(arrivals.map(|(at, job)| HostEvent::Arrive { at, job }));
    for ev in &fed {
        Feeder::new(&e).apply(&mut e, ev, None).expect("apply");
    }
    let stepped = e.run_to_end(&mut |_| {}).expect("run_to_end").to_json();
    assert_eq!(stepped, whole);

    // The same `arrive`s in an events file: a host-driven run (the listed jobs arrive when the
    // file says, each event applied as the service applies it), the same bytes.
    let lines: String = fed
        .iter()
        .map(|ev| format!("{}\n", ev.to_value()))
        .collect();
    let file = std::env::temp_dir().join(format!("mlsched-fed-{}.jsonl", std::process::id()));
    std::fs::write(&file, lines).expect("write events");
    let out = Command::new(env!("CARGO_BIN_EXE_mlsched"))
        .arg("run")
        .arg(&scenario_path)
        .arg("--events")
        .arg(&file)
        .args(["--json", "-", "--quiet"])
        .output()
        .expect("run mlsched");
    let _ = std::fs::remove_file(&file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).expect("UTF-8").trim_end(),
        stepped.trim_end()
    );
}

/// In a host-driven run a listed job arrives when its `arrive` says, later than its `arrival`
/// too (the service's model), where a run without `arrive`s arrives it itself.
#[test]
fn arrive_events_drive_the_listed_jobs() {
    let scenario =
        std::fs::read_to_string(root().join("scenarios/online-ps-small.json")).expect("scenario");
    let opts = RunOptions::default();
    let e = Engine::new(&scenario, &opts).expect("engine");
    let late: Vec<HostEvent> = e
        .arrival_order()
        .iter()
        .map(|&(s, j)| HostEvent::Arrive {
            at: s + 3,
            job: e.job_id(j).expect("id").to_string(),
        })
        .collect();
    let mut fed = Engine::new(&scenario, &opts).expect("engine");
    for ev in &late {
        Feeder::new(&fed).apply(&mut fed, ev, None).expect("apply");
    }
    let f = Feeder::new(&fed);
    f.advance_to_end(&mut fed, None).expect("to the end");
    let stepped = fed.finish(&mut |_| {}).expect("finish").to_json();
    let mut e = Engine::new(&scenario, &opts).expect("engine");
    let run = e
        .run_events(&late, &mut |_| {})
        .expect("host-driven run")
        .to_json();
    assert_eq!(run, stepped);
    let closed = Engine::new(&scenario, &opts)
        .expect("engine")
        .run_events(&[], &mut |_| {})
        .expect("closed run")
        .to_json();
    assert_ne!(run, closed, "three slots later is another run");
}
