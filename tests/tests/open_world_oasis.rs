//! The open world on kind `oasis` (`docs/open-world.md`, "Kind oasis" and "Kind baseline"),
//! every policy: submitting every job at its arrival is the closed-world run; random event
//! sequences keep the result honest (capacity in force, down servers, cancels, statuses) and
//! reproducible (the same events, a snapshot restored, a replayed log); a refused event
//! changes nothing.
use mlsched_scenario::engine::{Engine, Kind, Oasis};
use mlsched_scenario::event::{parse_lines, Feeder, HostEvent};
use mlsched_scenario::replay::{record_events, replay};
use mlsched_scenario::run::RunOptions;
use mlsched_scenario::RunError;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn opts(policy: &str) -> RunOptions {
    RunOptions {
        policy: (policy != "oasis").then(|| policy.to_string()),
        all_categories: false,
    }
}

fn value(r: &mlsched_scenario::run::ResultDoc) -> Value {
    serde_json::to_value(r).unwrap()
}

/// The parts of a result two equivalent runs share (the log differs: submissions are logged).
fn outcome(v: &Value) -> Value {
    json!({ "jobs": v["jobs"], "summary": v["summary"], "occupancy": v["occupancy"] })
}

#[test]
fn submitting_every_job_at_its_arrival_is_the_closed_world_run() {
    let mut checked = 0;
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let mut doc: Value = serde_json::from_str(text).unwrap();
        if doc["kind"] != "oasis" {
            continue;
        }
        // (arrival, index) order: the closed-world run decides equal arrivals in input order.
        let mut jobs = doc["jobs"].as_array().unwrap().clone();
        jobs.sort_by_key(|j| j["arrival"].as_u64().unwrap());
        doc["jobs"] = Value::Array(jobs.clone());
        let closed = doc.to_string();
        doc["jobs"] = json!([]);
        let open = doc.to_string();
        let events: Vec<HostEvent> = jobs
            .iter()
            .map(|j| HostEvent::Submit {
                at: j["arrival"].as_u64().unwrap() as u32,
                job: j.as_object().unwrap().clone(),
            })
            .collect();
        for policy in Oasis::policies() {
            let o = opts(policy);
            let want = Engine::new(&closed, &o).unwrap().run().unwrap();
            let got = Engine::new(&open, &o)
                .unwrap()
                .run_events(&events, &mut |_| {})
                .unwrap();
            assert_eq!(
                outcome(&value(&want)),
                outcome(&value(&got)),
                "{name} {policy}"
            );
            checked += 1;
        }
    }
    assert!(checked >= Oasis::policies().len());
}

/// A small deterministic generator (the proptest input is its seed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const WORKERS: [[f64; 2]; 2] = [[4.0, 16.0], [2.0, 8.0]];
const PS: [[f64; 2]; 1] = [[0.0, 16.0]];

fn job(rng: &mut Rng, id: &str, arrival: Option<u32>) -> Map<String, Value> {
    let mut j = json!({
        "id": id,
        "epochs": 2 + rng.below(12),
        "chunks": 2 + rng.below(4),
        "minibatches_per_chunk": 30,
        "minibatch_time": 0.002 + 0.002 * rng.below(3) as f64,
        "comm_time": 0.0005,
        "worker_bw": 1.0,
        "ps_bw": 5.0,
        "worker_demand": [1 + rng.below(2), 2 + 2 * rng.below(3)],
        "ps_demand": [0, 2 + 2 * rng.below(2)],
        "utility": { "sigmoid": { "priority": 20 + rng.below(40), "decay": 0.5, "target": 1 + rng.below(4) } },
    });
    if let Some(a) = arrival {
        j["arrival"] = json!(a);
    }
    j.as_object().unwrap().clone()
}

/// A small scenario (listed jobs) and a host event list in the run loop's order per slot:
/// open-world events, listed arrivals, submissions, the slot advanced.
fn generate(seed: u64) -> (String, Vec<HostEvent>) {
    let mut rng = Rng(seed);
    let slots = 6 + rng.below(4) as u32;
    let listed: Vec<Map<String, Value>> = (0..rng.below(4))
        .map(|i| {
            let a = rng.below(slots as u64 - 2) as u32;
            job(&mut rng, &format!("j{i}"), Some(a))
        })
        .collect();
    let scenario = json!({
        "kind": "oasis", "slots": slots, "resources": ["gpu", "cpu"],
        "worker_servers": WORKERS, "ps_servers": PS,
        "prices": { "u_worker": [40, 10], "u_ps": [40, 10], "l_worker": 0.004, "l_ps": 0.004 },
        "jobs": listed,
    });
    let servers = ["w0", "w1", "ps0"];
    let build = [WORKERS[0], WORKERS[1], PS[0]];
    let mut ids: Vec<String> = listed
        .iter()
        .map(|j| j["id"].as_str().unwrap().into())
        .collect();
    let mut events = Vec::new();
    let mut submitted = 0;
    for at in 0..slots {
        for _ in 0..rng.below(3) {
            let h = rng.below(3) as usize;
            let ev = match rng.below(4) {
                0 if !ids.is_empty() => HostEvent::Cancel {
                    at,
                    job: ids[rng.below(ids.len() as u64) as usize].clone(),
                },
                1 => HostEvent::ServerDown {
                    at,
                    server: servers[h].into(),
                },
                2 => HostEvent::ServerUp {
                    at,
                    server: servers[h].into(),
                },
                _ => HostEvent::Capacity {
                    at,
                    server: servers[h].into(),
                    capacity: build[h]
                        .iter()
                        .map(|c| c * rng.below(3) as f64 / 2.0)
                        .collect(),
                },
            };
            events.push(ev);
        }
        for (j, l) in listed.iter().enumerate() {
            if l["arrival"] == json!(at) {
                events.push(HostEvent::Arrive {
                    at,
                    job: ids[j].clone(),
                });
            }
        }
        for _ in 0..rng.below(2) {
            let id = format!("s{submitted}");
            submitted += 1;
            let arrival = rng.chance(50).then_some(at);
            events.push(HostEvent::Submit {
                at,
                job: job(&mut rng, &id, arrival),
            });
            ids.push(id);
        }
        events.push(HostEvent::Advance { at });
    }
    (scenario.to_string(), events)
}

fn is_host_only(e: &HostEvent) -> bool {
    matches!(e, HostEvent::Arrive { .. } | HostEvent::Advance { .. })
}

/// Feeds `events` one by one; a refused one must leave the engine as it was and is dropped.
/// Returns the events accepted (in order) and the result.
fn feed_all(scenario: &str, o: &RunOptions, events: &[HostEvent]) -> (Vec<HostEvent>, Value) {
    let mut e = Engine::new(scenario, o).unwrap();
    let feeder = Feeder::new(&e);
    let mut accepted = Vec::new();
    for ev in events {
        let before = e.events_fed();
        match feeder.apply(&mut e, ev, None) {
            Ok(()) => accepted.push(ev.clone()),
            Err(RunError::Input(_)) => assert_eq!(e.events_fed(), before, "{ev:?}"),
            Err(err) => panic!("{ev:?}: {err}"),
        }
    }
    let r = e.finish(&mut |_| {}).unwrap();
    (accepted, value(&r))
}

/// Feeds `events` with a snapshot restored after the first `cut`.
fn feed_cut(scenario: &str, o: &RunOptions, events: &[HostEvent], cut: usize) -> Value {
    let mut e = Engine::new(scenario, o).unwrap();
    let feeder = Feeder::new(&e);
    for ev in &events[..cut] {
        feeder.apply(&mut e, ev, None).unwrap();
    }
    let bytes = e.snapshot();
    let mut e = Engine::restore(scenario, o, mlsched_kernel::log::HashSink::new(), &bytes).unwrap();
    let feeder = Feeder::new(&e);
    for ev in &events[cut..] {
        feeder.apply(&mut e, ev, None).unwrap();
    }
    value(&e.finish(&mut |_| {}).unwrap())
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// The scenario's servers (`w<h>`, then `ps<k>`) and their build capacities.
fn servers(scenario: &Value) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut ids = Vec::new();
    let mut caps = Vec::new();
    for (list, prefix) in [("worker_servers", "w"), ("ps_servers", "ps")] {
        for (h, c) in scenario[list].as_array().unwrap().iter().enumerate() {
            ids.push(format!("{prefix}{h}"));
            caps.push(nums(c));
        }
    }
    (ids, caps)
}

/// Per server and slot: the capacity in force, and whether the server is down.
fn in_force(scenario: &Value, events: &[HostEvent]) -> Vec<Vec<(Vec<f64>, bool)>> {
    let slots = scenario["slots"].as_u64().unwrap() as usize;
    let (ids, build) = servers(scenario);
    let idx = |s: &str| ids.iter().position(|x| x == s).unwrap();
    let mut set = build.clone();
    let mut down = vec![false; ids.len()];
    let mut out = vec![Vec::new(); ids.len()];
    let mut k = 0;
    for t in 0..slots as u32 {
        while let Some(ev) = events.get(k).filter(|e| e.at() <= t) {
            match ev {
                HostEvent::ServerDown { server, .. } => down[idx(server)] = true,
                HostEvent::ServerUp { server, .. } => down[idx(server)] = false,
                HostEvent::Capacity {
                    server, capacity, ..
                } => set[idx(server)] = capacity.clone(),
                _ => {}
            }
            k += 1;
        }
        for (h, o) in out.iter_mut().enumerate() {
            o.push((set[h].clone(), down[h]));
        }
    }
    out
}

fn check_result(scenario: &str, events: &[HostEvent], r: &Value) {
    let scn: Value = serde_json::from_str(scenario).unwrap();
    let mut demands: std::collections::HashMap<String, (Vec<f64>, Vec<f64>)> = Default::default();
    let jobs = scn["jobs"].as_array().unwrap().iter().cloned();
    let submitted = events.iter().filter_map(|e| match e {
        HostEvent::Submit { job, .. } => Some(Value::Object(job.clone())),
        _ => None,
    });
    for j in jobs.chain(submitted) {
        demands.insert(
            j["id"].as_str().unwrap().into(),
            (nums(&j["worker_demand"]), nums(&j["ps_demand"])),
        );
    }
    let force = in_force(&scn, events);
    let (ids, _) = servers(&scn);
    let workers = scn["worker_servers"].as_array().unwrap().len();
    let res = scn["resources"].as_array().unwrap().len();
    let cancelled: std::collections::HashMap<&str, u32> = events
        .iter()
        .filter_map(|e| match e {
            HostEvent::Cancel { at, job } => Some((job.as_str(), *at)),
            _ => None,
        })
        .collect();
    let slots = force[0].len();
    let mut used = vec![vec![vec![0.0f64; res]; slots]; ids.len()];
    for s in r["occupancy"].as_array().unwrap() {
        let job = s["job"].as_str().unwrap();
        let server = s["server"].as_str().unwrap();
        let h = ids.iter().position(|x| x == server).unwrap();
        let (from, to) = (s["from"].as_u64().unwrap(), s["to"].as_u64().unwrap());
        let n = s["count"].as_f64().unwrap();
        if let Some(&t) = cancelled.get(job) {
            assert!(
                to <= t as u64,
                "{job} holds {server} after its cancel at {t}: {s}"
            );
        }
        let d = &demands[job];
        let d = if h < workers { &d.0 } else { &d.1 };
        for t in from..to {
            let (_, down) = &force[h][t as usize];
            assert!(!down, "{job} holds {server} at {t} while it is down");
            for (u, x) in used[h][t as usize].iter_mut().zip(d) {
                *u += n * x;
            }
        }
    }
    for (h, per_slot) in force.iter().enumerate() {
        for (t, (cap, _)) in per_slot.iter().enumerate() {
            for (r, (u, c)) in used[h][t].iter().zip(cap).enumerate() {
                assert!(
                    *u <= c + 1e-9,
                    "server {h} slot {t} resource {r}: {u} > {c}"
                );
            }
        }
    }
    let rows = r["jobs"].as_array().unwrap();
    assert_eq!(rows.len(), demands.len());
    assert!(rows.iter().all(|j| j["status"].is_string()));
    let counts = r["summary"]["statuses"].as_object().unwrap();
    let total: u64 = counts.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(total, rows.len() as u64);
}

fn open_world_case(policy: &str, seed: u64, cut: u64) {
    let (scenario, events) = generate(seed);
    let o = opts(policy);
    let (accepted, fed) = feed_all(&scenario, &o, &events);
    check_result(&scenario, &accepted, &fed);
    // A snapshot anywhere, submissions included, restores to the same run.
    let cut = cut as usize % (accepted.len() + 1);
    assert_eq!(feed_cut(&scenario, &o, &accepted, cut), fed, "cut at {cut}");
    // The run loop with the host's own events (arrivals and slots are its job).
    let host: Vec<HostEvent> = accepted
        .iter()
        .filter(|e| !is_host_only(e))
        .cloned()
        .collect();
    let a = Engine::new(&scenario, &o)
        .unwrap()
        .run_events(&host, &mut |_| {})
        .unwrap();
    check_result(&scenario, &host, &value(&a));
    let b = Engine::new(&scenario, &o)
        .unwrap()
        .run_events(&host, &mut |_| {})
        .unwrap();
    assert_eq!(value(&a), value(&b));
    let (r, bytes) = record_events(&scenario, &o, &host, &mut |_| {}).unwrap();
    assert_eq!(value(&r), value(&a));
    let replayed = replay(&bytes).unwrap();
    assert_eq!(Value::String(replayed.log_hash), value(&a)["log_hash"]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: mlsched_tests::world_cases(1000), ..ProptestConfig::default() })]

    #[test]
    fn open_world_oasis(seed in any::<u64>(), cut in any::<u64>()) {
        open_world_case("oasis", seed, cut);
    }

    #[test]
    fn open_world_fifo(seed in any::<u64>(), cut in any::<u64>()) {
        open_world_case("fifo", seed, cut);
    }

    #[test]
    fn open_world_drf(seed in any::<u64>(), cut in any::<u64>()) {
        open_world_case("drf", seed, cut);
    }

    #[test]
    fn open_world_las(seed in any::<u64>(), cut in any::<u64>()) {
        open_world_case("las", seed, cut);
    }

    #[test]
    fn open_world_optimus(seed in any::<u64>(), cut in any::<u64>()) {
        open_world_case("optimus", seed, cut);
    }

    #[test]
    fn open_world_rrh(seed in any::<u64>(), cut in any::<u64>()) {
        open_world_case("rrh", seed, cut);
    }

    #[test]
    fn open_world_dorm(seed in any::<u64>(), cut in any::<u64>()) {
        open_world_case("dorm", seed, cut);
    }

    #[test]
    fn open_world_tiresias(seed in any::<u64>(), cut in any::<u64>()) {
        open_world_case("tiresias", seed, cut);
    }
}

#[test]
fn every_policy_has_a_property_test() {
    assert_eq!(Oasis::policies().len(), 8);
}

/// Bad events through the engine: typed input errors, nothing fed, the run unchanged.
#[test]
fn refused_events_change_nothing() {
    let text = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|s| s.0 == "oasis-small")
        .unwrap()
        .1;
    let bad = parse_lines(concat!(
        r#"{"at":1,"event":"server_up","server":"w0"}"#,
        "\n",
        r#"{"at":1,"event":"server_down","server":"w9"}"#,
        "\n",
        r#"{"at":1,"event":"capacity","server":"w1","capacity":[1,2]}"#,
        "\n",
        r#"{"at":1,"event":"cancel","job":"nobody"}"#,
        "\n",
        r#"{"at":1,"event":"submit","job":{"id":"resnet-1"}}"#,
        "\n",
    ))
    .unwrap();
    let late = HostEvent::Submit {
        at: 1,
        job: job(&mut Rng(7), "x", Some(3)),
    };
    let mut good = job(&mut Rng(7), "y", None);
    good.insert("epochs".into(), json!(0));
    let zero_epochs = HostEvent::Submit { at: 1, job: good };
    let mut missing = job(&mut Rng(7), "z", None);
    missing.remove("ps_bw");
    let no_ps_bw = HostEvent::Submit {
        at: 1,
        job: missing,
    };
    for policy in Oasis::policies() {
        let o = opts(policy);
        let mut e = Engine::new(text, &o).unwrap();
        let feeder = Feeder::new(&e);
        for ev in bad.iter().chain([&late, &zero_epochs, &no_ps_bw]) {
            let before = e.events_fed();
            let err = feeder.apply(&mut e, ev, None).unwrap_err();
            assert!(matches!(err, RunError::Input(_)), "{policy} {ev:?}: {err}");
            assert_eq!(e.events_fed(), before, "{policy} {ev:?}");
        }
        let RunError::Input(i) = feeder.apply(&mut e, &zero_epochs, None).unwrap_err() else {
            panic!()
        };
        assert_eq!(i.field, "job.epochs", "{policy}");
        let RunError::Input(i) = feeder.apply(&mut e, &no_ps_bw, None).unwrap_err() else {
            panic!()
        };
        assert_eq!(i.field, "job.ps_bw", "{policy}");
        let got = e.run().unwrap();
        let want = Engine::new(text, &o).unwrap().run().unwrap();
        assert_eq!(value(&got), value(&want), "{policy}");
    }
}

/// A cancel, a failure and a recovery show in the rows and the occupancy as they happened.
#[test]
fn cancels_and_interruptions_show_in_the_result() {
    let text = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|s| s.0 == "oasis-small")
        .unwrap()
        .1;
    let events = parse_lines(concat!(
        r#"{"at":2,"event":"cancel","job":"resnet-1"}"#,
        "\n",
        r#"{"at":3,"event":"server_down","server":"w1"}"#,
        "\n",
        r#"{"at":6,"event":"server_up","server":"w1"}"#,
        "\n",
    ))
    .unwrap();
    for policy in Oasis::policies() {
        let o = opts(policy);
        let mut decisions = Vec::new();
        let r = Engine::new(text, &o)
            .unwrap()
            .run_events(&events, &mut |d| decisions.push(d))
            .unwrap();
        let v = value(&r);
        check_result(text, &events, &v);
        assert_eq!(v["jobs"][0]["status"], "cancelled", "{policy}");
        let names: Vec<&str> = decisions.iter().map(|d| d.record).collect();
        if *policy == "oasis" {
            assert!(names.contains(&"oasis.world"), "{names:?}");
        } else {
            assert!(names.contains(&"baseline.cancelled"), "{policy} {names:?}");
        }
    }
}

/// The generated runs do exercise the open world: cancels, and on OASiS recoveries and losses.
#[test]
fn generated_runs_reach_every_outcome() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..300u64 {
        let (scenario, events) = generate(seed);
        for policy in ["oasis", "fifo"] {
            let (_, r) = feed_all(&scenario, &opts(policy), &events);
            for j in r["jobs"].as_array().unwrap() {
                let reason = j["reason"].as_str().unwrap_or("");
                seen.insert(format!("{policy} {}", j["status"].as_str().unwrap()));
                if reason.starts_with("interrupted and recovered") {
                    seen.insert("oasis recovered".to_string());
                }
            }
        }
    }
    for want in [
        "oasis cancelled",
        "oasis lost",
        "oasis recovered",
        "fifo cancelled",
    ] {
        assert!(seen.contains(want), "{want} never seen: {seen:?}");
    }
}

/// With derived prices: both runs get the closed-world run's derived bounds as `prices`, and
/// submitting every job at its arrival is again the closed-world run. Without `prices`, a
/// submission that would move the bounds is refused naming the job.
#[test]
fn derived_prices() {
    use mlsched_scenario::kinds::oasis::doc::OasisDoc;
    let text = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|s| s.0 == "oasis-small")
        .unwrap()
        .1;
    let mut doc: Value = serde_json::from_str(text).unwrap();
    doc.as_object_mut().unwrap().remove("prices");
    let d: OasisDoc = serde_json::from_value(doc.clone()).unwrap();
    let b = mlsched_kernel::price::oasis_bounds(&d.validate().unwrap()).unwrap();
    let derived = doc.to_string();
    doc["prices"] = json!({
        "u_worker": b.u_worker.as_slice(), "u_ps": b.u_ps.as_slice(),
        "l_worker": b.l_worker, "l_ps": b.l_ps,
    });
    let jobs = doc["jobs"].as_array().unwrap().clone();
    let closed = doc.to_string();
    doc["jobs"] = json!([]);
    let open = doc.to_string();
    let events: Vec<HostEvent> = jobs
        .iter()
        .map(|j| HostEvent::Submit {
            at: j["arrival"].as_u64().unwrap() as u32,
            job: j.as_object().unwrap().clone(),
        })
        .collect();
    let o = opts("oasis");
    let want = Engine::new(&closed, &o).unwrap().run().unwrap();
    let also = Engine::new(&derived, &o).unwrap().run().unwrap();
    assert_eq!(value(&want)["jobs"], value(&also)["jobs"]);
    let got = Engine::new(&open, &o)
        .unwrap()
        .run_events(&events, &mut |_| {})
        .unwrap();
    assert_eq!(outcome(&value(&want)), outcome(&value(&got)));
    // Derived bounds in force: a job like the first is accepted, a far more valuable one is not.
    let mut e = Engine::new(&derived, &o).unwrap();
    let mut same = jobs[0].as_object().unwrap().clone();
    same.insert("id".into(), json!("again"));
    same.remove("arrival");
    e.submit_step(0, &same).unwrap();
    let mut rich = same.clone();
    rich.insert("id".into(), json!("rich"));
    rich.insert(
        "utility".into(),
        json!({ "sigmoid": { "priority": 1e6, "decay": 0.5, "target": 5 } }),
    );
    let before = e.events_fed();
    let Err(RunError::Input(i)) = e.submit_step(0, &rich) else {
        panic!("a submission moving the bounds must be refused");
    };
    assert_eq!(i.field, "job", "{i}");
    assert_eq!(e.events_fed(), before);
}

/// Every record of an open-world log decodes by name (`mlsched replay` and `mlsched log`).
#[test]
fn open_world_records_decode() {
    let text = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|s| s.0 == "oasis-small")
        .unwrap()
        .1;
    let events = parse_lines(concat!(
        r#"{"at":2,"event":"cancel","job":"resnet-1"}"#,
        "\n",
        r#"{"at":3,"event":"server_down","server":"w1"}"#,
        "\n",
    ))
    .unwrap();
    for policy in ["oasis", "fifo"] {
        let (_, bytes) = record_events(text, &opts(policy), &events, &mut |_| {}).unwrap();
        let mut reader = mlsched_kernel::logfile::LogReader::open(&bytes).unwrap();
        let mut names = Vec::new();
        while let Some(r) = reader.next_record().unwrap() {
            let d = mlsched_scenario::records::decode("oasis", r.tag, r.body);
            if r.tag >= 0x10 {
                names.push(
                    d.unwrap_or_else(|| panic!("{policy}: tag {:#x}", r.tag))
                        .name,
                );
            }
        }
        let want = if policy == "oasis" {
            "oasis world"
        } else {
            "baseline cancel"
        };
        assert!(names.contains(&want), "{policy}: {names:?}");
    }
}
