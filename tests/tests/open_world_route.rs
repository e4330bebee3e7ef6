//! Open world, kind route (`docs/open-world.md`, "Kind route"): through the engine façade,
//! submitting every job at its release gives the closed-world result; random event sequences
//! (submissions, cancels, compute and PS nodes down and up, capacity changes) give results
//! whose occupancy respects the capacity in force, down nodes and cancels, one status per job,
//! deterministic logs, snapshots that restore to the same run and logs that replay; refused
//! events leave the engine as it was.
use mlsched_kernel::log::HashSink;
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::engine::{Engine, Kind, Route};
use mlsched_scenario::event::{parse_lines, Feeder, HostEvent};
use mlsched_scenario::replay::{record_events, replay};
use mlsched_scenario::run::RunOptions;
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

fn opts(policy: &str) -> RunOptions {
    RunOptions {
        policy: Some(policy.to_string()),
        all_categories: false,
    }
}

/// The result of `scenario` run with `events` through the façade, as JSON.
fn run(scenario: &str, policy: &str, events: &[HostEvent]) -> Value {
    let mut e = Engine::new(scenario, &opts(policy)).unwrap();
    let r = e.run_events(events, &mut |_| {}).unwrap();
    serde_json::to_value(r).unwrap()
}

/// `doc` with its jobs stable-sorted by release, and the same scenario with no jobs plus one
/// `submit` event per job at its release, in that order.
fn open_world_of(doc: &Value) -> (String, String, Vec<HostEvent>) {
    let mut sorted = doc.clone();
    let jobs = sorted["jobs"].as_array_mut().unwrap();
    jobs.sort_by_key(|j| j["release"].as_f64().unwrap() as u64);
    let lines: Vec<String> = jobs
        .iter()
        .map(|j| json!({"at": j["release"], "event": "submit", "job": j}).to_string())
        .collect();
    let mut empty = sorted.clone();
    empty["jobs"] = json!([]);
    let events = parse_lines(&lines.join("\n")).unwrap();
    (sorted.to_string(), empty.to_string(), events)
}

#[test]
fn submitting_every_job_at_its_release_is_the_closed_world_run() {
    let mut checked = 0;
    for (name, text) in SCENARIOS {
        let doc: Value = serde_json::from_str(text).unwrap();
        if doc["kind"] != "route" {
            continue;
        }
        let (closed, empty, events) = open_world_of(&doc);
        for policy in Route::policies() {
            let a = run(&closed, policy, &[]);
            let b = run(&empty, policy, &events);
            for key in ["jobs", "summary", "occupancy", "log_hash"] {
                if key == "log_hash" {
                    continue; // the open run's log holds the submissions
                }
                assert_eq!(a[key], b[key], "{name} / {policy}: `{key}` differs");
            }
            checked += 1;
        }
    }
    assert!(checked >= Route::policies().len());
}

/// route-small's topology: c0, c1 (8 slots), c2, c3 (4 slots), PS nodes p0, p1; a small PSO.
fn topology() -> Value {
    let doc: Value = serde_json::from_str(
        SCENARIOS
            .iter()
            .find(|(n, _)| *n == "route-small")
            .unwrap()
            .1,
    )
    .unwrap();
    doc["topology"].clone()
}

const COMPUTE: [&str; 4] = ["c0", "c1", "c2", "c3"];
const PS: [&str; 2] = ["p0", "p1"];

/// A generated job: ps, workers, duration, deadline slack, bandwidth step.
type JobGen = (usize, u32, u32, u32, u32);
/// A generated host event: slot, what (0..6), a target, a value.
type EvGen = (u32, u8, usize, u32);

fn scenario(aggregate: bool, listed: &[(JobGen, u32)]) -> String {
    let jobs: Vec<Value> = listed
        .iter()
        .enumerate()
        .map(|(i, (g, r))| job(&format!("l{i}"), g, *r))
        .collect();
    json!({
        "kind": "route", "seed": 7, "aggregate": aggregate, "topology": topology(),
        "jobs": jobs,
        "pso": {"particles": 3, "iterations": 4, "w_max": 0.9, "w_min": 0.4, "c1": 2.0, "c2": 2.0}
    })
    .to_string()
}

fn job(id: &str, g: &JobGen, release: u32) -> Value {
    let (ps, workers, duration, slack, bw) = *g;
    json!({
        "id": id, "ps": PS[ps % 2], "workers": workers, "release": release,
        "duration": duration, "deadline": release + duration + slack,
        "bandwidth": 0.5 * (1 + bw % 3) as f64
    })
}

/// Host events from the generated ones, in slot order (within a slot: server events and
/// cancels, then submissions, as `Engine::run_events` applies them), plus a few refused ones.
fn events(subs: &[(JobGen, u32)], evs: &[EvGen]) -> Vec<HostEvent> {
    let mut lines: Vec<(u32, u8, String)> = Vec::new();
    for (i, (g, at)) in subs.iter().enumerate() {
        let v = json!({"at": at, "event": "submit", "job": job(&format!("s{i}"), g, *at)});
        lines.push((*at, 1, v.to_string()));
    }
    for &(at, what, target, value) in evs {
        let server = if target % 3 == 2 {
            PS[target % 2]
        } else {
            COMPUTE[target % 4]
        };
        let v = match what {
            0 | 1 => json!({"at": at, "event": "server_down", "server": server}),
            2 | 3 => json!({"at": at, "event": "server_up", "server": server}),
            4 => json!({"at": at, "event": "capacity", "server": server, "capacity": [value % 10]}),
            5 => {
                json!({"at": at, "event": "cancel", "job": format!("s{}", target % subs.len().max(1))})
            }
            // Refused: a switch is not a server; two capacity entries; a bad job.
            _ => match value % 3 {
                0 => json!({"at": at, "event": "server_down", "server": "agg0"}),
                1 => json!({"at": at, "event": "capacity", "server": server, "capacity": [1, 2]}),
                _ => {
                    json!({"at": at, "event": "submit", "job": {"id": format!("bad{at}"), "ps": "c0",
                    "workers": 1, "duration": 1, "deadline": 99, "bandwidth": 1}})
                }
            },
        };
        lines.push((at, 0, v.to_string()));
    }
    lines.sort_by_key(|l| (l.0, l.1));
    let text: Vec<String> = lines.into_iter().map(|l| l.2).collect();
    parse_lines(&text.join("\n")).unwrap()
}

/// Feeds `evs` one by one as a service does; a refused one must leave the engine as it was
/// (`events_fed` unchanged) and is dropped. Returns the accepted events and the final result.
fn feed_all(scn: &str, policy: &str, evs: &[HostEvent]) -> (Vec<HostEvent>, Value) {
    let mut e = Engine::new(scn, &opts(policy)).unwrap();
    let f = Feeder::new(&e);
    let mut kept = Vec::new();
    for ev in evs {
        let before = e.events_fed();
        match f.apply(&mut e, ev, None) {
            Ok(()) => kept.push(ev.clone()),
            Err(err) => {
                assert!(
                    matches!(err, mlsched_scenario::RunError::Input(_)),
                    "{policy}: {err}"
                );
                // Refused after the wake-ups before its slot were fed (they would be fed
                // anyway; a cancel of a job that ends meanwhile is refused by the kernel
                // then): the final result below must still equal the run of the accepted
                // events alone. Direct refusals leave `events_fed` unchanged
                // (`refused_events_change_nothing`).
                let _ = before;
                assert!(e.failure().is_none());
            }
        }
    }
    let r = e.run_events(&[], &mut |_| {}).unwrap();
    (kept, serde_json::to_value(r).unwrap())
}

/// With listed jobs (which the Feeder does not make arrive): the events a whole run accepts,
/// one by one, and that run's result.
fn keep_accepted(scn: &str, policy: &str, evs: &[HostEvent]) -> (Vec<HostEvent>, Value) {
    let mut kept: Vec<HostEvent> = Vec::new();
    for ev in evs {
        kept.push(ev.clone());
        let mut e = Engine::new(scn, &opts(policy)).unwrap();
        if let Err(err) = e.run_events(&kept, &mut |_| {}) {
            assert!(
                matches!(err, mlsched_scenario::RunError::Input(_)),
                "{policy}: {err}"
            );
            kept.pop();
        }
    }
    let r = run(scn, policy, &kept);
    (kept, r)
}

/// How a server event changes (capacity, down).
type Change = Box<dyn Fn(&mut (u32, bool))>;

/// The compute slots in force on each compute node at each slot, from the accepted events
/// (down: 0), and each PS node's down slots.
struct World {
    cap: BTreeMap<String, Vec<(u32, u32)>>,
    down: BTreeMap<String, Vec<(u32, bool)>>,
    cancel: BTreeMap<String, u32>,
}

impl World {
    fn of(kept: &[HostEvent]) -> World {
        let mut w = World {
            cap: BTreeMap::new(),
            down: BTreeMap::new(),
            cancel: BTreeMap::new(),
        };
        let slots = [8, 8, 4, 4];
        let mut cur: BTreeMap<String, (u32, bool)> = BTreeMap::new();
        for (i, c) in COMPUTE.iter().enumerate() {
            cur.insert(c.to_string(), (slots[i], false));
        }
        for p in PS {
            cur.insert(p.to_string(), (0, false));
        }
        for ev in kept {
            let (at, server, change): (u32, &str, Change) = match ev {
                HostEvent::ServerDown { at, server } => (*at, server, Box::new(|s| s.1 = true)),
                HostEvent::ServerUp { at, server } => (*at, server, Box::new(|s| s.1 = false)),
                HostEvent::Capacity {
                    at,
                    server,
                    capacity,
                } => {
                    let c = capacity[0].floor() as u32;
                    (*at, server, Box::new(move |s| s.0 = c))
                }
                HostEvent::Cancel { at, job } => {
                    w.cancel.insert(job.clone(), *at);
                    continue;
                }
                _ => continue,
            };
            let s = cur.get_mut(server).unwrap();
            change(s);
            let usable = if s.1 { 0 } else { s.0 };
            w.cap
                .entry(server.to_string())
                .or_default()
                .push((at, usable));
            w.down
                .entry(server.to_string())
                .or_default()
                .push((at, s.1));
        }
        w
    }

    fn usable(&self, server: &str, t: u32, base: u32) -> u32 {
        let ch = self.cap.get(server).map(Vec::as_slice).unwrap_or(&[]);
        ch.iter().rfind(|c| c.0 <= t).map_or(base, |c| c.1)
    }

    fn is_down(&self, server: &str, t: u32) -> bool {
        let ch = self.down.get(server).map(Vec::as_slice).unwrap_or(&[]);
        ch.iter().rfind(|c| c.0 <= t).is_some_and(|c| c.1)
    }
}

/// Cases run, and those whose result shows a cut run (the generator reaches interruptions).
static CASES: AtomicUsize = AtomicUsize::new(0);
static CUT: AtomicUsize = AtomicUsize::new(0);

fn check_result(r: &Value, kept: &[HostEvent], jobs: usize, policy: &str) {
    CASES.fetch_add(1, Ordering::Relaxed);
    if r["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|j| j.get("cut_runs").is_some())
    {
        CUT.fetch_add(1, Ordering::Relaxed);
    }
    let w = World::of(kept);
    let base: BTreeMap<&str, u32> = [("c0", 8), ("c1", 8), ("c2", 4), ("c3", 4)].into();
    let mut used: BTreeMap<(String, u32), u32> = BTreeMap::new();
    for s in r["occupancy"].as_array().unwrap() {
        let (job, server) = (s["job"].as_str().unwrap(), s["server"].as_str().unwrap());
        let (from, to) = (
            s["from"].as_u64().unwrap() as u32,
            s["to"].as_u64().unwrap() as u32,
        );
        if let Some(&c) = w.cancel.get(job) {
            assert!(
                to <= c,
                "{policy}: {job} holds {server} after its cancel at {c}"
            );
        }
        for t in from..to {
            assert!(
                !w.is_down(server, t),
                "{policy}: {job} on down {server} at {t}"
            );
            if s["role"] == "worker" {
                *used.entry((server.to_string(), t)).or_default() +=
                    s["count"].as_u64().unwrap() as u32;
            }
        }
    }
    for ((server, t), n) in used {
        let cap = w.usable(&server, t, base[server.as_str()]);
        assert!(
            n <= cap,
            "{policy}: {server} at {t}: {n} workers > capacity {cap}"
        );
    }
    let rows = r["jobs"].as_array().unwrap();
    assert_eq!(rows.len(), jobs);
    assert!(rows.iter().all(|j| j["status"].is_string()));
    let counts = r["summary"]["statuses"].as_object().unwrap();
    let total: u64 = counts.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(total as usize, jobs, "{policy}: statuses {counts:?}");
}

fn check_case(
    policy: &str,
    aggregate: bool,
    listed: &[(JobGen, u32)],
    subs: &[(JobGen, u32)],
    evs: &[EvGen],
    cut: usize,
) {
    let scn = scenario(aggregate, listed);
    let all = events(subs, evs);
    let (kept, fed) = if listed.is_empty() {
        feed_all(&scn, policy, &all)
    } else {
        keep_accepted(&scn, policy, &all)
    };
    let a = run(&scn, policy, &kept);
    // The Feeder feeds no listed arrival (a service's host sends them): with listed jobs the
    // two runs differ by design.
    if listed.is_empty() {
        assert_eq!(a, fed, "{policy}: fed one by one differs from run_events");
    }
    let submitted = kept
        .iter()
        .filter(|e| matches!(e, HostEvent::Submit { .. }))
        .count();
    check_result(&a, &kept, listed.len() + submitted, policy);
    // A snapshot after `cut` accepted events restores to the same run.
    // A snapshot anywhere, submissions included, restores to the same run.
    let cut = cut % (kept.len() + 1);
    let o = opts(policy);
    let mut e = Engine::new(&scn, &o).unwrap();
    let f = Feeder::new(&e);
    // With listed jobs the Feeder feeds no listed arrival (above), so an event `run_events`
    // accepted may be refused here (a cancel of a job that, without the listed jobs' load,
    // already ended): such an event is left out, and the rest of both runs is compared as
    // result or refusal (the two engines must agree either way).
    for ev in &kept[..cut] {
        match f.apply(&mut e, ev, None) {
            Ok(()) => {}
            Err(mlsched_scenario::RunError::Input(_)) if !listed.is_empty() => {}
            Err(err) => panic!("{policy}: {err}"),
        }
    }
    let snap = e.snapshot();
    let mut r = Engine::restore(&scn, &o, HashSink::new(), &snap).unwrap();
    let rest = |e: &mut Engine<HashSink>| {
        e.run_events(&kept[cut..], &mut |_| {})
            .map(|x| serde_json::to_value(x).unwrap())
            .map_err(|err| err.to_string())
    };
    let (x, y) = (rest(&mut e), rest(&mut r));
    assert!(x.is_ok() || !listed.is_empty(), "{policy}: {x:?}");
    assert_eq!(x, y, "{policy}: restored at {cut} differs");
    // The host-driven log replays.
    let (res, bytes) = record_events(&scn, &o, &kept, &mut |_| {}).unwrap();
    let res = serde_json::to_value(res).unwrap();
    assert_eq!(res, a, "{policy}: the same events again differ");
    let rep = replay(&bytes).unwrap();
    assert_eq!(rep.log_hash, a["log_hash"].as_str().unwrap());
}

fn job_gen() -> impl Strategy<Value = JobGen> {
    (0usize..2, 1u32..6, 1u32..6, 0u32..6, 0u32..3)
}

#[test]
fn random_open_world_runs_cover_every_policy() {
    // 6 policies x 1,000 cases (a fixed seed, a runner each);
    // `MLSCHED_WORLD_CASES` per policy in the campaign (`mlsched_tests::world_cases`).
    let per_policy = mlsched_tests::world_cases(1000);
    for p in Route::policies() {
        let mut runner = proptest::test_runner::TestRunner::new_with_rng(
            ProptestConfig {
                cases: per_policy,
                ..ProptestConfig::default()
            },
            proptest::test_runner::TestRng::deterministic_rng(
                proptest::test_runner::RngAlgorithm::ChaCha,
            ),
        );
        let strat = (
            any::<bool>(),
            prop::collection::vec((job_gen(), 0u32..6), 0..3),
            prop::collection::vec((job_gen(), 0u32..12), 0..6),
            prop::collection::vec((0u32..14, 0u8..7, 0usize..12, 0u32..12), 0..10),
            0usize..40,
        );
        runner
            .run(&strat, |(aggregate, listed, subs, evs, cut)| {
                check_case(p, aggregate, &listed, &subs, &evs, cut);
                Ok(())
            })
            .unwrap();
    }
    let (n, cut) = (CASES.load(Ordering::Relaxed), CUT.load(Ordering::Relaxed));
    let want = u64::from(per_policy) * Route::policies().len() as u64;
    assert!(
        n as u64 >= want && cut >= 50,
        "{n} cases, {cut} with a cut run"
    );
}

/// Cases the 1,000-per-policy campaign (`MLSCHED_WORLD_CASES=1000`) found, kept as tests:
/// a cancel of a job `deadline-preemptive` had killed and queued again reported the killed
/// run as held until the cancel (5 workers on c2's 4 slots); and, with listed jobs, a cut
/// replayed through the Feeder (which feeds no listed arrival) refused a cancel `run_events`
/// had accepted.
#[test]
fn campaign_cases() {
    let subs = [
        ((0, 4, 2, 5, 0), 8),
        ((0, 2, 1, 0, 0), 9),
        ((0, 1, 1, 0, 0), 0),
        ((0, 3, 3, 0, 0), 7),
    ];
    let evs = [(0, 0, 9, 0), (0, 0, 0, 0), (10, 5, 4, 0)];
    check_case("deadline-preemptive", false, &[], &subs, &evs, 0);
    let listed = [((0, 1, 1, 0, 0), 0), ((0, 2, 1, 0, 0), 0)];
    let subs = [
        ((0, 1, 1, 0, 0), 6),
        ((0, 1, 1, 0, 0), 6),
        ((0, 1, 1, 0, 0), 5),
        ((0, 1, 1, 0, 0), 5),
    ];
    let evs = [(1, 0, 3, 0), (6, 5, 6, 0), (0, 4, 0, 1)];
    for p in Route::policies() {
        check_case(p, false, &listed, &subs, &evs, 18);
    }
}

#[test]
fn a_submission_is_checked_as_a_listed_job() {
    let scn = scenario(false, &[]);
    let mut e = Engine::new(&scn, &opts("route")).unwrap();
    let bad = |e: &mut Engine<HashSink>, job: Value, field: &str, says: &str| {
        let before = e.events_fed();
        let Value::Object(m) = job else { panic!() };
        let err = e.submit_step(0, &m).unwrap_err().to_string();
        assert!(err.contains(field) && err.contains(says), "{err}");
        assert_eq!(e.events_fed(), before);
    };
    let ok =
        json!({"id": "a", "ps": "p0", "workers": 2, "duration": 3, "deadline": 9, "bandwidth": 1});
    let with = |k: &str, v: Value| {
        let mut j = ok.clone();
        j[k] = v;
        j
    };
    bad(&mut e, with("ps", json!("c0")), "job.ps", "not a ps node");
    bad(&mut e, with("ps", json!("zz")), "job.ps", "unknown node");
    bad(&mut e, with("workers", json!(0)), "job.workers", "");
    bad(
        &mut e,
        with("workers", json!(40)),
        "job.workers",
        "compute slots",
    );
    bad(&mut e, with("duration", json!(1.5)), "job.duration", "");
    bad(
        &mut e,
        with("release", json!(3)),
        "job.release",
        "submission slot",
    );
    bad(&mut e, with("bandwidth", json!(-1)), "job.bandwidth", "");
    bad(&mut e, with("extra", json!(1)), "job", "unknown field");
    let Value::Object(m) = ok else { panic!() };
    assert_eq!(e.submit_step(0, &m).unwrap(), 0);
    refused_events_change_nothing(&mut e);
    assert_eq!(e.job_index("a"), Some(0));
    let _: Map<String, Value> = m;
}

#[test]
fn an_interrupted_job_shows_its_cut_run_and_its_recovered_run() {
    // One job of 4 workers on c2 (4 slots) ... whichever node it lands on goes down at 2.
    let scn = scenario(false, &[((0, 2, 6, 20, 0), 0)]);
    for policy in Route::policies() {
        let closed = run(&scn, policy, &[]);
        let node = closed["jobs"][0]["compute_nodes"][0]
            .as_str()
            .unwrap()
            .to_string();
        let start = closed["jobs"][0]["start"].as_u64().unwrap();
        let evs = parse_lines(&format!(
            "{{\"at\": {}, \"event\": \"server_down\", \"server\": \"{node}\"}}",
            start + 2
        ))
        .unwrap();
        let r = run(&scn, policy, &evs);
        let row = &r["jobs"][0];
        let cut = &row["cut_runs"][0];
        assert_eq!(cut["start"].as_u64(), Some(start), "{policy}: {row}");
        assert_eq!(cut["end"].as_u64(), Some(start + 2), "{policy}");
        assert!(!row["compute_nodes"]
            .as_array()
            .unwrap()
            .contains(&json!(node)));
        let expect = if *policy == "route" {
            json!(4)
        } else {
            Value::Null
        };
        assert_eq!(row["run_length"], expect, "{policy}: {row}");
        assert_eq!(row["status"], "finished", "{policy}");
        check_result(&r, &evs, 1, policy);
    }
}

/// The engine's snapshot holds a submission's JSON and then the arrival the submission fed;
/// `Engine::restore` re-submits (which feeds that arrival) and skips the kept one.
#[test]
fn snapshot_after_a_submission_restores() {
    let scn = scenario(false, &[]);
    let o = opts("route");
    let mut e = Engine::new(&scn, &o).unwrap();
    let job =
        json!({"id": "a", "ps": "p0", "workers": 2, "duration": 3, "deadline": 9, "bandwidth": 1});
    let Value::Object(m) = job else { panic!() };
    e.submit_step(0, &m).unwrap();
    let snap = e.snapshot();
    let mut r = Engine::restore(&scn, &o, HashSink::new(), &snap).unwrap();
    let x = serde_json::to_value(e.run_events(&[], &mut |_| {}).unwrap()).unwrap();
    let y = serde_json::to_value(r.run_events(&[], &mut |_| {}).unwrap()).unwrap();
    assert_eq!(x, y);
}

/// Bad events straight to the engine: refused, nothing fed, and the run goes on as without them.
fn refused_events_change_nothing(e: &mut Engine<HashSink>) {
    use mlsched_kernel::api::Event;
    use mlsched_kernel::resources::ResourceVec;
    let before = e.events_fed();
    let switch = e.server_index("agg0").unwrap();
    let c0 = e.server_index("c0").unwrap();
    let bad = [
        Event::ServerDown(switch),
        Event::ServerUp(c0),
        Event::Capacity(c0, ResourceVec::from_slice(&[1.0, 2.0]).unwrap()),
        Event::JobCancelled(99),
    ];
    for ev in bad {
        assert!(e.on_event(0, ev, &mut |_| {}).is_err(), "{ev:?}");
        assert_eq!(e.events_fed(), before, "{ev:?}");
        assert!(e.failure().is_none());
    }
}
