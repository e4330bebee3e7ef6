//! Kind placement in the open world (`docs/open-world.md`, "Kind placement") through the
//! engine façade: submissions at slot 0 are the closed-world batch (every bundled scenario,
//! every policy); random event sequences keep the result's occupancy within the capacity in
//! force, no span on a down worker or of a cancelled job after its cancel, one status per job,
//! and runs that repeat, snapshot, restore and replay identically; bad events change nothing.
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::engine::Engine;
use mlsched_scenario::event::{parse_lines, Feeder, HostEvent};
use mlsched_scenario::replay::{record_events, replay};
use mlsched_scenario::run::{policies, RunOptions};
use mlsched_scenario::RunError;
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

fn opts(policy: &str) -> RunOptions {
    RunOptions {
        policy: (policy != "placement").then(|| policy.to_string()),
        all_categories: false,
    }
}

fn run(text: &str, o: &RunOptions, events: &[HostEvent]) -> Result<Value, RunError> {
    let mut e = Engine::new(text, o)?;
    let r = e.run_events(events, &mut |_| {})?;
    Ok(serde_json::to_value(&r).unwrap())
}

fn obj(v: &Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// (a) The scenario holding its first job, the others submitted at slot 0 in index order: the
/// same jobs, summary, occupancy and `best` as the closed-world run. (A placement scenario
/// needs one job: the paper's instance has S >= 1, so `jobs: []` is refused by the document and
/// the kernel alike; every job arrives at 0, so index order is (arrival, index) order.)
#[test]
fn submissions_at_zero_are_the_closed_world_batch() {
    let mut checked = 0;
    for (name, text) in SCENARIOS {
        let doc: Value = serde_json::from_str(text).unwrap();
        if doc["kind"] != "placement" {
            continue;
        }
        let jobs = doc["jobs"].as_array().unwrap().clone();
        let mut open = doc.clone();
        open["jobs"] = json!([jobs[0].clone()]);
        let open = open.to_string();
        let events: Vec<HostEvent> = jobs[1..]
            .iter()
            .map(|j| HostEvent::Submit { at: 0, job: obj(j) })
            .collect();
        for policy in policies("placement") {
            let o = opts(policy);
            let want = run(text, &o, &[]);
            let got = run(&open, &o, &events);
            let (want, got) = match (want, got) {
                (Ok(w), Ok(g)) => (w, g),
                (Err(w), Err(g)) => {
                    assert_eq!(w.to_string(), g.to_string(), "{name} {policy}");
                    continue;
                }
                (w, g) => panic!("{name} {policy}: {w:?} against {g:?}"),
            };
            for field in [
                "jobs",
                "summary",
                "occupancy",
                "best",
                "categories_examined",
            ] {
                assert_eq!(want[field], got[field], "{name} {policy}: {field}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 8, "{checked}");
}

/// A small scenario: `k` workers on two nodes, the listed jobs.
fn scenario(method: &str, k: usize, jobs: &[Value], comm: bool) -> String {
    let workers: Vec<Value> = (0..k)
        .map(|w| json!({"gpu": if w % 2 == 0 { "a" } else { "b" }, "node": w / 2}))
        .collect();
    json!({
        "kind": "placement", "method": method, "workers": workers,
        "link_rate": {"intra_node": 1e9, "inter_node": 1e8},
        "jobs": jobs, "include_comm": comm, "seed": 3,
    })
    .to_string()
}

fn job(id: &str, samples: u32, epochs: u32, rho: &[u32]) -> Value {
    json!({"id": id, "samples": samples, "epochs": epochs, "model_bytes": 1e6, "throughput": rho})
}

/// A candidate event, its ids resolved when the sequence is built.
#[derive(Clone, Debug)]
enum Cand {
    Submit(u32, u32, Vec<u32>),
    Cancel(usize),
    Down(usize),
    Up(usize),
    Cap(usize, f64),
}

fn cand(k: usize) -> impl Strategy<Value = (u32, Cand)> {
    let c = prop_oneof![
        3 => (100u32..400, 1u32..4, prop::collection::vec(10u32..60, k))
            .prop_map(|(s, e, r)| Cand::Submit(s, e, r)),
        2 => (0usize..8).prop_map(Cand::Cancel),
        2 => (0..k).prop_map(Cand::Down),
        2 => (0..k).prop_map(Cand::Up),
        1 => (0..k, prop::sample::select(vec![0.0, 0.5, 1.0, 2.0]))
            .prop_map(|(h, c)| Cand::Cap(h, c)),
    ];
    (0u32..120, c)
}

#[derive(Clone, Debug)]
struct Case {
    text: String,
    events: Vec<HostEvent>,
    cut: usize,
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..5, any::<bool>()).prop_flat_map(|(k, comm)| {
        let jobs = prop::collection::vec(
            (100u32..400, 1u32..4, prop::collection::vec(10u32..60, k)),
            1..=k,
        );
        let cands = prop::collection::vec(cand(k), 0..7);
        (jobs, cands, 0usize..8).prop_map(move |(jobs, mut cands, cut)| {
            let listed: Vec<Value> = jobs
                .iter()
                .enumerate()
                .map(|(i, (s, e, r))| job(&format!("j{i}"), *s, *e, r))
                .collect();
            let text = scenario("has", k, &listed, comm);
            cands.sort_by_key(|c| c.0);
            let mut ids: Vec<String> = (0..jobs.len()).map(|i| format!("j{i}")).collect();
            let mut events = Vec::new();
            for (n, (at, c)) in cands.into_iter().enumerate() {
                let server = |h: usize| format!("k{h}");
                events.push(match c {
                    Cand::Submit(s, e, r) => {
                        let id = format!("n{n}");
                        ids.push(id.clone());
                        HostEvent::Submit {
                            at,
                            job: obj(&job(&id, s, e, &r)),
                        }
                    }
                    Cand::Cancel(j) => HostEvent::Cancel {
                        at,
                        job: ids[j % ids.len()].clone(),
                    },
                    Cand::Down(h) => HostEvent::ServerDown {
                        at,
                        server: server(h),
                    },
                    Cand::Up(h) => HostEvent::ServerUp {
                        at,
                        server: server(h),
                    },
                    Cand::Cap(h, c) => HostEvent::Capacity {
                        at,
                        server: server(h),
                        capacity: vec![c],
                    },
                });
            }
            Case { text, events, cut }
        })
    })
}

/// The events of `all` the engine accepts, each tried after the ones kept before it.
fn accepted(text: &str, o: &RunOptions, all: &[HostEvent]) -> Vec<HostEvent> {
    let mut kept: Vec<HostEvent> = Vec::new();
    for ev in all {
        kept.push(ev.clone());
        if run(text, o, &kept).is_err() {
            kept.pop();
        }
    }
    kept
}

/// Per server, the capacity in force at `t` (0 while down) from the events.
fn capacity_at(events: &[HostEvent], server: &str, t: u64) -> f64 {
    let (mut down, mut cap) = (false, 1.0);
    for e in events.iter().filter(|e| u64::from(e.at()) <= t) {
        match e {
            HostEvent::ServerDown { server: s, .. } if s == server => down = true,
            HostEvent::ServerUp { server: s, .. } if s == server => down = false,
            HostEvent::Capacity {
                server: s,
                capacity,
                ..
            } if s == server => cap = capacity[0],
            _ => {}
        }
    }
    if down {
        0.0
    } else {
        cap
    }
}

fn check_result(r: &Value, events: &[HostEvent]) {
    let spans = r["occupancy"].as_array().unwrap();
    // Occupancy within the capacity in force (0 on a down worker), at every second held.
    let mut load: BTreeMap<(String, u64), f64> = BTreeMap::new();
    for s in spans {
        let server = s["server"].as_str().unwrap().to_string();
        let (from, to) = (s["from"].as_u64().unwrap(), s["to"].as_u64().unwrap());
        assert!(from < to, "{s}");
        for t in from..to {
            *load.entry((server.clone(), t)).or_default() += s["count"].as_f64().unwrap();
        }
    }
    for ((server, t), used) in &load {
        let cap = capacity_at(events, server, *t);
        assert!(*used <= cap, "{server} at {t}: {used} > {cap}");
    }
    // No span of a cancelled job after its cancel.
    for e in events {
        if let HostEvent::Cancel { at, job } = e {
            for s in spans.iter().filter(|s| s["job"] == job.as_str()) {
                assert!(s["to"].as_u64().unwrap() <= u64::from(*at), "{job}: {s}");
            }
        }
    }
    // One status per job, counted once.
    let jobs = r["jobs"].as_array().unwrap();
    assert!(jobs.iter().all(|j| j["status"].is_string()), "{jobs:?}");
    let total: u64 = r["summary"]["statuses"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, jobs.len() as u64);
}

/// Feeds `events` one by one (the service path), `None` if one is refused.
fn feed(e: &mut Engine<mlsched_kernel::log::HashSink>, events: &[HostEvent]) -> Option<()> {
    let f = Feeder::new(e);
    for ev in events {
        f.apply(e, ev, None).ok()?;
    }
    Some(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: mlsched_tests::world_cases(1000), ..ProptestConfig::default() })]

    /// (b) Random open-world event sequences over small scenarios, each under every policy
    /// (1,000 cases: 1,000 per policy).
    #[test]
    fn random_events_keep_the_result_honest(c in case()) {
        for policy in policies("placement") {
            honest_under(&c, policy)?;
        }
    }
}

/// (b) for one policy: the checks on the result, the same events twice, a snapshot at the
/// case's cut, the host-driven log's replay.
fn honest_under(c: &Case, policy: &str) -> Result<(), TestCaseError> {
    let o = opts(policy);
    let events = accepted(&c.text, &o, &c.events);
    let r = run(&c.text, &o, &events).unwrap();
    check_result(&r, &events);
    // The same events twice: the same log.
    let again = run(&c.text, &o, &events).unwrap();
    prop_assert_eq!(&r["log_hash"], &again["log_hash"]);
    prop_assert_eq!(&r, &again);
    // A snapshot at a cut, restored, continued: the same result as continuing.
    let cut = c.cut.min(events.len());
    let mut a = Engine::new(&c.text, &o).unwrap();
    if feed(&mut a, &events[..cut]).is_some() {
        let snap = a.snapshot();
        let restored = Engine::restore(&c.text, &o, mlsched_kernel::log::HashSink::new(), &snap);
        match restored {
            Ok(mut b) => {
                prop_assert_eq!(a.events_fed(), b.events_fed());
                // The rest of the events as one run: the same result, or the same refusal
                // (an event the one-by-one feed accepted can end up after its job ended
                // in the run loop's order).
                let ra = a.run_events(&events[cut..], &mut |_| {});
                let rb = b.run_events(&events[cut..], &mut |_| {});
                let show = |r: Result<mlsched_scenario::run::ResultDoc, RunError>| {
                    r.map(|x| x.to_json()).map_err(|e| e.to_string())
                };
                prop_assert_eq!(show(ra), show(rb));
            }
            Err(e) => prop_assert!(false, "restore: {}", e),
        }
    }
    // The host-driven log replays identically.
    let (rec, bytes) = record_events(&c.text, &o, &events, &mut |_| {}).unwrap();
    prop_assert_eq!(serde_json::to_value(&rec).unwrap(), r);
    let re = replay(&bytes).unwrap();
    prop_assert_eq!(
        Value::from(re.log_hash),
        serde_json::to_value(&rec).unwrap()["log_hash"].clone()
    );
    Ok(())
}

/// (c) Bad events leave the engine as it was: the same count fed, and the rest of the run as
/// without them. A bad submission is refused with the document's message on `job.<field>`.
#[test]
fn bad_events_change_nothing() {
    let jobs = [
        job("a", 200, 2, &[20, 30, 40]),
        job("b", 300, 1, &[30, 20, 10]),
    ];
    let text = scenario("has", 3, &jobs, false);
    let good = parse_lines(
        r#"{"event": "server_down", "at": 3, "server": "k0"}
{"event": "submit", "at": 4, "job": {"id": "c", "samples": 100, "epochs": 1, "model_bytes": 0, "throughput": [10, 10, 10]}}"#,
    )
    .unwrap();
    for policy in policies("placement") {
        let o = opts(policy);
        // The service path (each event applied by itself, then the rest of the run).
        let mut clean = Engine::new(&text, &o).unwrap();
        feed(&mut clean, &good[..1]).unwrap();
        let want = clean.run_events(&good[1..], &mut |_| {}).unwrap();
        let want = serde_json::to_value(&want).unwrap();
        let mut e = Engine::new(&text, &o).unwrap();
        feed(&mut e, &good[..1]).unwrap();
        let fed = e.events_fed();
        let bad = [
            (
                r#"{"event": "submit", "at": 3, "job": {"id": "d", "samples": 1, "epochs": 1, "model_bytes": 0, "throughput": [1, 1]}}"#,
                "job.throughput",
            ),
            (
                r#"{"event": "submit", "at": 3, "job": {"id": "d", "samples": -1, "epochs": 1, "model_bytes": 0, "throughput": [1, 1, 1]}}"#,
                "job.samples",
            ),
            (
                r#"{"event": "submit", "at": 3, "job": {"id": "d", "samples": 1, "epochs": 1, "model_bytes": 0, "throughput": [0, 0, 0]}}"#,
                "job.throughput",
            ),
            (
                r#"{"event": "submit", "at": 3, "job": {"id": "d", "samples": 1, "epochs": 1, "model_bytes": 0, "throughput": [1, 1, 1], "x": 1}}"#,
                "job",
            ),
            (
                r#"{"event": "submit", "at": 3, "job": {"id": "a", "samples": 1, "epochs": 1, "model_bytes": 0, "throughput": [1, 1, 1]}}"#,
                "job.id",
            ),
            (r#"{"event": "cancel", "at": 3, "job": "zz"}"#, ""),
            (r#"{"event": "server_down", "at": 3, "server": "k0"}"#, ""),
            (r#"{"event": "server_up", "at": 3, "server": "k1"}"#, ""),
            (r#"{"event": "server_down", "at": 3, "server": "k9"}"#, ""),
            (
                r#"{"event": "capacity", "at": 3, "server": "k1", "capacity": [1, 1]}"#,
                "",
            ),
            (r#"{"event": "cancel", "at": 1, "job": "a"}"#, ""),
        ];
        for (line, field) in bad {
            let ev = &parse_lines(line).unwrap()[0];
            let err = Feeder::new(&e).apply(&mut e, ev, None).unwrap_err();
            if let (false, RunError::Input(i)) = (field.is_empty(), &err) {
                assert_eq!(i.field, field, "{policy} {line}: {err}");
            }
            assert_eq!(e.events_fed(), fed, "{policy} {line}");
        }
        let got = e.run_events(&good[1..], &mut |_| {}).unwrap();
        let got = serde_json::to_value(&got).unwrap();
        assert_eq!(want, got, "{policy}");
    }
}

/// A submission before the batch that would make S > K is refused on `jobs` (as the
/// document's K >= S rule); after the batch the job waits for a free worker.
#[test]
fn submissions_beyond_the_workers() {
    let jobs = [job("a", 200, 2, &[20, 30]), job("b", 300, 1, &[30, 20])];
    let text = scenario("has", 2, &jobs, false);
    let o = opts("placement");
    let early = parse_lines(
        r#"{"event": "submit", "at": 0, "job": {"id": "c", "samples": 100, "epochs": 1, "model_bytes": 0, "throughput": [10, 10]}}"#,
    )
    .unwrap();
    match run(&text, &o, &early) {
        Err(RunError::Input(i)) => assert_eq!(i.field, "jobs", "{i}"),
        other => panic!("{other:?}"),
    }
    let late = parse_lines(
        r#"{"event": "submit", "at": 1, "job": {"id": "c", "samples": 100, "epochs": 1, "model_bytes": 0, "throughput": [10, 10]}}"#,
    )
    .unwrap();
    let r = run(&text, &o, &late).unwrap();
    check_result(&r, &late);
    let c = r["occupancy"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["job"] == "c")
        .expect("c runs once a worker is free");
    let first_end = r["occupancy"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["job"] != "c")
        .map(|s| s["to"].as_u64().unwrap())
        .min()
        .unwrap();
    assert_eq!(c["from"].as_u64().unwrap(), first_end);
    assert_eq!(r["jobs"][2]["status"], "finished");
    assert!(r["best"]["jct"]["c"].as_f64().unwrap() > 0.0);
}

/// A worker failing under a running job: the job's spans end at the failure, it is re-placed
/// (a `placement.interruption` and a `placement.batch` decision) on the free workers.
#[test]
fn an_interruption_shows_in_the_result() {
    let jobs = [
        job("a", 200, 3, &[20, 20, 20]),
        job("b", 300, 3, &[30, 30, 30]),
    ];
    let text = scenario("las", 3, &jobs, false);
    let o = opts("placement");
    let closed = run(&text, &o, &[]).unwrap();
    let span = &closed["occupancy"][0];
    let (job, server) = (
        span["job"].as_str().unwrap(),
        span["server"].as_str().unwrap(),
    );
    let events = vec![HostEvent::ServerDown {
        at: 2,
        server: server.to_string(),
    }];
    let mut e = Engine::new(&text, &o).unwrap();
    let mut names = Vec::new();
    let mut world = Vec::new();
    let r = e
        .run_events(&events, &mut |d| {
            names.push(d.record);
            if d.record != "placement.record" && d.record != "placement.category" {
                world.push(serde_json::to_value(&d.data).unwrap());
            }
        })
        .unwrap();
    let r = serde_json::to_value(&r).unwrap();
    check_result(&r, &events);
    assert!(names.contains(&"placement.interruption"), "{names:?}");
    assert!(names.contains(&"placement.batch"), "{names:?}");
    // The open-world records are decoded (`mlsched_scenario::records` mirrors them).
    assert!(world.iter().all(|d| d["at"] == 2), "{world:?}");
    assert_eq!(world[0]["cause"], 0, "{world:?}");
    assert_eq!(r["best"]["workload"], json!({}));
    let spans: Vec<&Value> = r["occupancy"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["job"] == job)
        .collect();
    assert!(
        spans.iter().any(|s| s["server"] == server && s["to"] == 2),
        "{spans:?}"
    );
    assert!(
        spans.iter().all(|s| s["server"] != server || s["to"] == 2),
        "{spans:?}"
    );
}
