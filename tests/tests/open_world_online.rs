//! The open world on kind "online" (`docs/open-world.md`, "Kind online" and "Kind baseline"),
//! every policy (A_online and its baselines) through the façade: submitting every job at its
//! arrival is the closed-world run; random event sequences keep the result honest (occupancy
//! within the capacity in force, nothing on a down server, nothing of a cancelled job after its
//! cancel, one status per job), deterministic, snapshot-exact and replayable; refused events
//! change nothing.
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::engine::Engine;
use mlsched_scenario::event::{parse, parse_lines, Feeder, HostEvent};
use mlsched_scenario::replay::{record_events, replay};
use mlsched_scenario::run::{policies, RunOptions};
use mlsched_scenario::RunError;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn opts(policy: &str) -> RunOptions {
    RunOptions {
        policy: (policy != "online").then(|| policy.to_string()),
        all_categories: false,
    }
}

fn run(text: &str, policy: &str, events: &[HostEvent]) -> Value {
    let mut e = Engine::new(text, &opts(policy)).unwrap();
    let r = e.run_events(events, &mut |_| {}).unwrap();
    serde_json::to_value(r).unwrap()
}

/// The jobs of `v` in (arrival, index) order.
fn ordered_jobs(v: &Value) -> Vec<Value> {
    let mut jobs = v["jobs"].as_array().unwrap().clone();
    jobs.sort_by(|a, b| {
        a["arrival"]
            .as_f64()
            .unwrap()
            .total_cmp(&b["arrival"].as_f64().unwrap())
    });
    jobs
}

#[test]
fn submitting_every_job_at_its_arrival_is_the_closed_world_run() {
    let mut checked = 0;
    for (name, text) in SCENARIOS {
        let v: Value = serde_json::from_str(text).unwrap();
        if v["kind"] != "online" {
            continue;
        }
        let jobs = ordered_jobs(&v);
        let mut closed = v.clone();
        closed["jobs"] = Value::Array(jobs.clone());
        let mut open = v.clone();
        open["jobs"] = json!([]);
        let events: Vec<HostEvent> = jobs
            .iter()
            .map(|j| HostEvent::Submit {
                at: j["arrival"].as_f64().unwrap() as u32,
                job: j.as_object().unwrap().clone(),
            })
            .collect();
        for policy in policies("online") {
            let want = run(&closed.to_string(), policy, &[]);
            let got = run(&open.to_string(), policy, &events);
            for field in ["jobs", "summary", "occupancy", "policy"] {
                assert_eq!(want[field], got[field], "{name} {policy}: {field}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked}");
}

/// A tiny deterministic generator (the proptest seed picks the case).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn range(&mut self, a: u64, b: u64) -> u64 {
        a + self.below(b - a + 1)
    }
}

/// One job object (`arrival` given or not).
fn job(rng: &mut Rng, id: &str, arrival: Option<u32>, m: usize, updates: usize) -> Value {
    let mut j = json!({
        "id": id,
        "weight": rng.range(1, 100),
        "epochs": rng.range(2, 8),
        "chunks": rng.range(1, 4),
        "minibatches_per_chunk": rng.range(5, 20),
        // k / 1000 prints as its short decimal (the log keeps a submission as JSON text).
        "minibatch_time": (0..m).map(|_| (5 + rng.below(20)) as f64 / 1000.0).collect::<Vec<_>>(),
        "update_time": vec![0.001; updates],
        "gradient_size": 0.002,
    });
    if let Some(a) = arrival {
        j["arrival"] = json!(a);
    }
    j
}

/// A small scenario and an event sequence in the order the run loop applies a slot's events
/// (everything else before the submissions).
fn case(seed: u64) -> (Value, Vec<HostEvent>) {
    let mut rng = Rng(seed);
    let ring = rng.below(2) == 0;
    let slots = rng.range(8, 24) as u32;
    let r = rng.range(1, 2) as usize;
    let h = rng.range(1, 3) as usize;
    let m = rng.range(1, 2) as usize;
    let updates = 1;
    let cap = |rng: &mut Rng| (0..r).map(|_| rng.range(2, 8)).collect::<Vec<_>>();
    let servers: Vec<Vec<u64>> = (0..h).map(|_| cap(&mut rng)).collect();
    let task = |rng: &mut Rng| json!({ "demand": (0..r).map(|_| rng.range(1, 2)).collect::<Vec<_>>(), "bw": 1.0 });
    let mut s = json!({
        "kind": "online", "slots": slots, "architecture": if ring { "ring" } else { "ps" },
        "resources": (0..r).map(|i| format!("r{i}")).collect::<Vec<_>>(),
        "servers": servers,
        "worker_types": (0..m).map(|_| task(&mut rng)).collect::<Vec<_>>(),
        "F": 2.0, "alpha": 2,
        "jobs": [],
    });
    if !ring {
        s["ps_types"] = json!([task(&mut rng)]);
    }
    let listed = rng.below(3) as usize;
    let jobs: Vec<Value> = (0..listed)
        .map(|i| {
            let a = rng.below(slots as u64) as u32;
            job(&mut rng, &format!("l{i}"), Some(a), m, updates)
        })
        .collect();
    s["jobs"] = Value::Array(jobs.clone());
    let mut ev: Vec<(u32, u8, HostEvent)> = Vec::new();
    let mut known: Vec<(String, u32)> = jobs
        .iter()
        .map(|j| (j["id"].as_str().unwrap().to_string(), 0))
        .collect();
    // The listed jobs' arrivals, which a host feeding events one by one sends itself (the run
    // loop feeds them after a slot's other events, before its submissions).
    for j in &jobs {
        let at = j["arrival"].as_u64().unwrap() as u32;
        let job = j["id"].as_str().unwrap().to_string();
        ev.push((at, 1, HostEvent::Arrive { at, job }));
    }
    for i in 0..rng.range(1, 5) {
        let at = rng.below(slots as u64 - 1) as u32;
        let arrival = (rng.below(2) == 0).then_some(at);
        let j = job(&mut rng, &format!("s{i}"), arrival, m, updates);
        known.push((format!("s{i}"), at + 1));
        ev.push((
            at,
            2,
            HostEvent::Submit {
                at,
                job: j.as_object().unwrap().clone(),
            },
        ));
    }
    for k in 0..h {
        let server = format!("h{k}");
        if rng.below(2) == 0 {
            let down = rng.below(slots as u64) as u32;
            ev.push((
                down,
                0,
                HostEvent::ServerDown {
                    at: down,
                    server: server.clone(),
                },
            ));
            if rng.below(3) > 0 {
                let up = down + rng.range(1, 6) as u32;
                ev.push((
                    up,
                    0,
                    HostEvent::ServerUp {
                        at: up,
                        server: server.clone(),
                    },
                ));
            }
        }
        if rng.below(2) == 0 {
            let at = rng.below(slots as u64) as u32;
            let capacity = (0..r).map(|_| rng.range(0, 8) as f64).collect();
            ev.push((
                at,
                0,
                HostEvent::Capacity {
                    at,
                    server,
                    capacity,
                },
            ));
        }
    }
    for _ in 0..rng.below(3) {
        let (id, from) = known[rng.below(known.len() as u64) as usize].clone();
        let at = from + rng.below(slots as u64) as u32;
        ev.push((at, 0, HostEvent::Cancel { at, job: id }));
    }
    ev.sort_by_key(|e| (e.0, e.1));
    (s, ev.into_iter().map(|e| e.2).collect())
}

/// Feeds `events` one by one (a refused one must leave the engine as it was), snapshotting and
/// restoring before event `cut`; then runs to the end. The result and the events accepted
/// (without the listed arrivals, which a whole run feeds itself).
fn feed(
    text: &str,
    policy: &str,
    events: &[HostEvent],
    cut: Option<usize>,
) -> Option<(Value, Vec<HostEvent>)> {
    let o = opts(policy);
    let mut e = Engine::new(text, &o).unwrap();
    let feeder = Feeder::new(&e);
    let mut accepted = Vec::new();
    for (i, ev) in events.iter().enumerate() {
        if cut == Some(i) {
            let snap = e.snapshot();
            match Engine::restore(text, &o, mlsched_kernel::log::HashSink::new(), &snap) {
                Ok(back) => e = back,
                Err(x) => panic!("{policy}: restore: {x}"),
            }
        }
        let before = e.events_fed();
        match feeder.apply(&mut e, ev, None) {
            Ok(()) if matches!(ev, HostEvent::Arrive { .. }) => {}
            Ok(()) => accepted.push(ev.clone()),
            // A refusal that needs the clock (a cancel of a job that ended) comes after the
            // wake-ups before its slot were fed: those are the run's anyway.
            Err(RunError::Input(_)) => assert!(e.events_fed() >= before, "{}", ev.to_json()),
            Err(other) => panic!("{policy} {}: {other}", ev.to_json()),
        }
    }
    let r = e.run_events(&[], &mut |_| {}).unwrap();
    Some((serde_json::to_value(r).unwrap(), accepted))
}

/// Per server and slot, the capacity in force (0 while down) over `0..len`.
fn capacity_in_force(s: &Value, events: &[HostEvent], len: usize) -> Vec<Vec<Vec<f64>>> {
    let servers = s["servers"].as_array().unwrap();
    let mut out = Vec::new();
    for (k, c) in servers.iter().enumerate() {
        let id = format!("h{k}");
        let mut cap: Vec<f64> = c
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let mut down = false;
        let mut per = Vec::with_capacity(len);
        let mut next = events.iter().peekable();
        for t in 0..len as u32 {
            while let Some(ev) = next.peek().filter(|e| e.at() <= t) {
                match ev {
                    HostEvent::ServerDown { server, .. } if *server == id => down = true,
                    HostEvent::ServerUp { server, .. } if *server == id => down = false,
                    HostEvent::Capacity {
                        server, capacity, ..
                    } if *server == id => cap = capacity.clone(),
                    _ => {}
                }
                next.next();
            }
            per.push(if down {
                vec![0.0; cap.len()]
            } else {
                cap.clone()
            });
        }
        out.push(per);
    }
    out
}

fn demand(s: &Value, list: &str, i: &Value) -> Vec<f64> {
    match i.as_u64() {
        Some(i) => s[list][i as usize]["demand"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect(),
        None => Vec::new(),
    }
}

/// A run of a result: (job, start, end, worker type, ps type, placement).
type Run = (String, u64, u64, Value, Value, Vec<[u64; 3]>);

/// The result's runs.
fn runs(r: &Value) -> Vec<Run> {
    let place = |p: &Value| -> Vec<[u64; 3]> {
        p.as_array()
            .unwrap()
            .iter()
            .map(|x| [0, 1, 2].map(|i| x[i].as_u64().unwrap()))
            .collect()
    };
    let mut out = Vec::new();
    for j in r["jobs"].as_array().unwrap() {
        let id = j["id"].as_str().unwrap().to_string();
        if let (Some(a), Some(c)) = (j["start_slot"].as_u64(), j["completion_slot"].as_u64()) {
            out.push((
                id.clone(),
                a,
                c,
                j["worker_type"].clone(),
                j["ps_type"].clone(),
                place(&j["placement"]),
            ));
        }
        for c in j["cut_runs"].as_array().into_iter().flatten() {
            out.push((
                id.clone(),
                c["start_slot"].as_u64().unwrap(),
                c["end_slot"].as_u64().unwrap(),
                c["worker_type"].clone(),
                c["ps_type"].clone(),
                place(&c["placement"]),
            ));
        }
    }
    out
}

/// The checks on one result document.
fn check_result(s: &Value, events: &[HostEvent], r: &Value, what: &str) {
    let runs = runs(r);
    let len = runs.iter().map(|x| x.2 as usize).max().unwrap_or(0);
    let cap = capacity_in_force(s, events, len);
    let nr = s["resources"].as_array().unwrap().len();
    let mut used = vec![vec![vec![0.0f64; nr]; len]; cap.len()];
    for (id, a, c, m, p, pl) in &runs {
        let (w, z) = (demand(s, "worker_types", m), demand(s, "ps_types", p));
        for &[h, y, ps] in pl {
            for t in *a..*c {
                for k in 0..nr {
                    used[h as usize][t as usize][k] +=
                        y as f64 * w[k] + ps as f64 * z.get(k).copied().unwrap_or(0.0);
                }
            }
        }
        assert!(a < c, "{what}: empty run of {id}");
    }
    for (h, per) in used.iter().enumerate() {
        for (t, u) in per.iter().enumerate() {
            for k in 0..nr {
                assert!(
                    u[k] <= cap[h][t][k] + 1e-9,
                    "{what}: h{h} slot {t} resource {k}: {} > {}",
                    u[k],
                    cap[h][t][k]
                );
            }
        }
    }
    // Nothing on a down server, nothing of a cancelled job after its cancel.
    for span in r["occupancy"].as_array().unwrap() {
        let (from, to) = (
            span["from"].as_u64().unwrap() as u32,
            span["to"].as_u64().unwrap() as u32,
        );
        let mut down: Option<u32> = None;
        for ev in events {
            match ev {
                HostEvent::ServerDown { at, server } if *server == span["server"] => {
                    down = Some(*at)
                }
                HostEvent::ServerUp { at, server } if *server == span["server"] => {
                    if let Some(d) = down.take() {
                        assert!(
                            to <= d || from >= *at,
                            "{what}: {span} in down interval {d}..{at}"
                        );
                    }
                }
                HostEvent::Cancel { at, job } if *job == span["job"] => {
                    assert!(to <= *at, "{what}: {span} after the cancel at {at}")
                }
                _ => {}
            }
        }
        if let Some(d) = down {
            assert!(to <= d, "{what}: {span} on a server down from {d}");
        }
    }
    let jobs = r["jobs"].as_array().unwrap();
    let counts = r["summary"]["statuses"].as_object().unwrap();
    let total: u64 = counts.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(total as usize, jobs.len(), "{what}: {counts:?}");
    for j in jobs {
        assert!(j["status"].is_string(), "{what}: {j}");
    }
}

fn check_case(seed: u64, cut: usize) {
    let (s, events) = case(seed);
    let text = s.to_string();
    for policy in policies("online") {
        let what = format!("seed {seed} {policy}");
        let (r, accepted) = feed(&text, policy, &events, None).unwrap();
        check_result(&s, &accepted, &r, &what);
        let (again, _) = feed(&text, policy, &events, None).unwrap();
        assert_eq!(r["log_hash"], again["log_hash"], "{what}");
        if let Some((restored, _)) = feed(&text, policy, &events, Some(cut % (events.len() + 1))) {
            assert_eq!(r, restored, "{what}: snapshot at {cut}");
        }
        let (rec, bytes) = record_events(&text, &opts(policy), &accepted, &mut |_| {}).unwrap();
        let rec = serde_json::to_value(rec).unwrap();
        assert_eq!(r, rec, "{what}: recorded run");
        let back = replay(&bytes).unwrap();
        assert_eq!(Value::from(back.log_hash), r["log_hash"], "{what}: replay");
    }
}

proptest! {
    // 6 policies a case: 6,000 runs of every check in all (1,000 per policy).
    #![proptest_config(ProptestConfig { cases: mlsched_tests::world_cases(1000), ..ProptestConfig::default() })]
    #[test]
    fn random_open_world_runs_stay_honest(seed in any::<u64>(), cut in 0usize..16) {
        check_case(seed, cut);
    }
}

/// An `Input` error's field.
fn field(e: RunError) -> String {
    match e {
        RunError::Input(i) => i.field,
        other => panic!("not an input error: {other}"),
    }
}

#[test]
fn refused_events_change_nothing() {
    let text = SCENARIOS
        .iter()
        .find(|(n, _)| *n == "online-ps-small")
        .unwrap()
        .1;
    let good = parse_lines(
        r#"{"at": 2, "event": "server_down", "server": "h0"}
{"at": 4, "event": "server_up", "server": "h0"}"#,
    )
    .unwrap();
    let v: Value = serde_json::from_str(text).unwrap();
    let mut sub = v["jobs"][0].as_object().unwrap().clone();
    sub.remove("arrival");
    sub.insert("id".into(), json!("new"));
    for policy in policies("online") {
        let want = run(text, policy, &good);
        let mut e = Engine::new(text, &opts(policy)).unwrap();
        let f = Feeder::new(&e);
        let bad_sub = |k: &str, val: Value| {
            let mut m: Map<String, Value> = sub.clone();
            m.insert(k.into(), val);
            HostEvent::Submit { at: 0, job: m }
        };
        let bad = [
            (bad_sub("epochs", json!(0)), "job.epochs"),
            (
                bad_sub("minibatch_time", json!([0.1, 0.1, 0.1, 0.1, 0.1])),
                "job.minibatch_time",
            ),
            (bad_sub("model", json!("x")), "job.model"),
            (bad_sub("weight", json!(-1)), "job.weight"),
            (bad_sub("id", json!(v["jobs"][0]["id"])), "job.id"),
            (
                parse(r#"{"at": 0, "event": "cancel", "job": "nope"}"#).unwrap(),
                "job",
            ),
            (
                parse(r#"{"at": 0, "event": "server_up", "server": "h0"}"#).unwrap(),
                "server",
            ),
            (
                parse(r#"{"at": 0, "event": "capacity", "server": "h0", "capacity": [1]}"#)
                    .unwrap(),
                "capacity",
            ),
        ];
        for (ev, want_field) in bad {
            let before = e.events_fed();
            let err = f.apply(&mut e, &ev, None).unwrap_err();
            assert_eq!(field(err), want_field, "{policy} {}", ev.to_json());
            assert_eq!(e.events_fed(), before, "{policy}");
        }
        let got = e.run_events(&good, &mut |_| {}).unwrap();
        assert_eq!(serde_json::to_value(got).unwrap(), want, "{policy}");
    }
}

#[test]
fn a_server_failure_shows_the_cut_run_and_the_recovery() {
    let text = SCENARIOS
        .iter()
        .find(|(n, _)| *n == "online-ring-small")
        .unwrap()
        .1;
    for policy in policies("online") {
        let closed = run(text, policy, &[]);
        // Fail the server of the first scheduled job in the middle of its run.
        let Some(j) = closed["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["duration"].as_u64().unwrap_or(0) >= 2)
        else {
            continue;
        };
        let at = j["start_slot"].as_u64().unwrap() + 1;
        let h = j["placement"][0][0].as_u64().unwrap();
        let ev = parse_lines(&format!(
            "{{\"at\": {at}, \"event\": \"server_down\", \"server\": \"h{h}\"}}"
        ))
        .unwrap();
        let r = run(text, policy, &ev);
        let row = r["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == j["id"])
            .unwrap();
        let cut = &row["cut_runs"][0];
        assert_eq!(cut["start_slot"], j["start_slot"], "{policy}: {row}");
        assert_eq!(cut["end_slot"].as_u64(), Some(at), "{policy}: {row}");
        let v: Value = serde_json::from_str(text).unwrap();
        check_result(&v, &ev, &r, policy);
    }
}
