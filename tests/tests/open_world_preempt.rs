//! Open world, kind `preempt` (`docs/open-world.md`, "Kind preempt"), through the façade:
//! submissions equal the closed world on every bundled scenario and policy; random event
//! sequences keep occupancy within the capacity in force, nothing on a down server, nothing of
//! a cancelled job after its cancel, one status per job, and are deterministic, snapshot-safe
//! and replayable; refused events leave the engine unchanged.
use mlsched_kernel::api::Event;
use mlsched_kernel::resources::ResourceVec;
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::engine::{Engine, Kind, Preempt};
use mlsched_scenario::event::{parse_lines, Feeder, HostEvent};
use mlsched_scenario::run::RunOptions;
use mlsched_scenario::RunError;
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

fn opts(policy: &str) -> RunOptions {
    RunOptions {
        policy: (policy != "preempt").then(|| policy.to_string()),
        all_categories: false,
    }
}

fn value(r: &mlsched_scenario::run::ResultDoc) -> Value {
    serde_json::from_str(&r.to_json()).unwrap()
}

fn run(scenario: &str, policy: &str, events: &[HostEvent]) -> Result<Value, RunError> {
    let mut e = Engine::new(scenario, &opts(policy))?;
    e.run_events(events, &mut |_| {}).map(|r| value(&r))
}

/// Every bundled preempt scenario and policy: `jobs: []` plus one `submit` per job at its
/// arrival, in (arrival, index) order, gives the closed-world run of the jobs in that order.
#[test]
fn submissions_equal_the_closed_world() {
    let mut checked = 0;
    for (name, text) in SCENARIOS {
        let mut doc: Value = serde_json::from_str(text).unwrap();
        if doc["kind"] != "preempt" {
            continue;
        }
        let mut jobs = doc["jobs"].as_array().unwrap().clone();
        jobs.sort_by_key(|j| j["arrival"].as_f64().unwrap() as u64); // stable: index order
        doc["jobs"] = Value::Array(jobs.clone());
        let closed = doc.to_string();
        doc["jobs"] = json!([]);
        let open = doc.to_string();
        let events: Vec<HostEvent> = jobs
            .iter()
            .map(|j| {
                let mut m = j.as_object().unwrap().clone();
                let at = m.remove("arrival").unwrap().as_f64().unwrap() as u32;
                HostEvent::Submit { at, job: m }
            })
            .collect();
        for p in Preempt::policies() {
            let a = run(&closed, p, &[]).unwrap();
            let b = run(&open, p, &events).unwrap();
            for k in ["jobs", "summary", "occupancy"] {
                assert_eq!(a[k], b[k], "{name} {p}: `{k}` differs");
            }
            checked += 1;
        }
    }
    assert!(checked >= 4, "only {checked} runs");
}

/// A small generated scenario: edge servers, maybe a cloud (anywhere in the list), no jobs.
#[derive(Clone, Debug)]
struct Gen {
    servers: Vec<(u32, u32, bool)>, // (workers, ps, cloud)
    slots: u32,
    jobs: Vec<Value>,
    events: Vec<(u32, u8, u32, Vec<f64>)>, // (at, kind, which, capacity)
    cut: usize,
}

fn gen() -> impl Strategy<Value = Gen> {
    let servers = (
        prop::collection::vec((1u32..=3, 0u32..=2), 1..=3),
        0usize..4,
        0u32..=2,
    )
        .prop_map(|(edge, cloud_at, cloud_ps)| {
            let mut v: Vec<(u32, u32, bool)> =
                edge.into_iter().map(|(w, p)| (w, p, false)).collect();
            // A cloud (all-cloud needs one; see `for_policy` for its rates).
            v.insert(cloud_at.min(v.len()), (0, cloud_ps, true));
            v
        });
    (servers, 12u32..=30).prop_flat_map(|(servers, slots)| {
        let n = servers.len();
        let early = slots / 2 + 1; // arrivals and events early: they meet running chunks
        let job = (
            0u32..early,
            1u32..=4,
            1u32..=4,
            2u32..=6,
            prop::collection::vec(prop::collection::vec(0u32..=3, 3), n),
            prop::collection::vec(0u32..=3, n),
            prop::collection::vec(prop::collection::vec(any::<bool>(), 2), n),
        );
        let events = prop::collection::vec(
            (
                0u32..early,
                0u8..4,
                0u32..8,
                prop::collection::vec(0.0f64..4.0, 2),
            ),
            0..12,
        );
        (
            Just(servers),
            Just(slots),
            prop::collection::vec(job, 1..=5),
            events,
            0usize..40,
        )
            .prop_map(|(servers, slots, jobs, events, cut)| {
                let jobs = jobs
                    .into_iter()
                    .enumerate()
                    .map(|(i, (at, e, d, b, rate, up, pse))| {
                        let rate: Vec<Vec<f64>> = rate
                            .iter()
                            .zip(&servers)
                            .map(|(r, s)| {
                                if s.2 {
                                    vec![r[0] as f64]
                                } else {
                                    r[..s.0 as usize].iter().map(|&x| x as f64).collect()
                                }
                            })
                            .collect();
                        let pse: Vec<Vec<bool>> = pse
                            .iter()
                            .zip(&servers)
                            .map(|(r, s)| r[..s.1 as usize].to_vec())
                            .collect();
                        json!({ "id": format!("j{i}"), "arrival": at, "epochs": e,
                            "chunks": d, "minibatches_per_chunk": b, "rate": rate,
                            "upload_delay": up, "ps_eligible": pse })
                    })
                    .collect();
                Gen {
                    servers,
                    slots,
                    jobs,
                    events,
                    cut,
                }
            })
    })
}

/// The case for `policy`: all-cloud trains every chunk in the cloud, so there every job gets a
/// cloud rate >= 1 (a job the policy can never place fails the run, as in the closed world);
/// the other policies keep the drawn rates (cloud 0 included: rejections and losses happen).
fn for_policy(g: &Gen, policy: &str) -> Gen {
    let mut g = g.clone();
    if policy == "all-cloud" {
        let c = g.servers.iter().position(|s| s.2).unwrap();
        for j in &mut g.jobs {
            let r = &mut j["rate"][c][0];
            *r = json!(r.as_f64().unwrap().max(1.0));
        }
    }
    g
}

fn scenario(g: &Gen) -> String {
    let servers: Vec<Value> = g
        .servers
        .iter()
        .enumerate()
        .map(|(i, &(w, p, cloud))| {
            if cloud {
                json!({ "id": format!("s{i}"), "ps": p, "cloud": true })
            } else {
                json!({ "id": format!("s{i}"), "workers": w, "ps": p })
            }
        })
        .collect();
    json!({ "kind": "preempt", "slots": g.slots, "seed": 7, "servers": servers, "jobs": [] })
        .to_string()
}

/// The host events: one submit per job at its arrival, the random events, sorted by slot
/// (within a slot: every other event before the submissions, the run loop's order).
fn host_events(g: &Gen) -> Vec<HostEvent> {
    let mut v: Vec<(u32, u8, usize, HostEvent)> = Vec::new();
    for (i, j) in g.jobs.iter().enumerate() {
        let mut m: Map<String, Value> = j.as_object().unwrap().clone();
        let at = m.remove("arrival").unwrap().as_u64().unwrap() as u32;
        v.push((at, 1, i, HostEvent::Submit { at, job: m }));
    }
    let ns = g.servers.len() as u32;
    for (k, (at, kind, which, cap)) in g.events.iter().enumerate() {
        let (at, which) = (*at, *which);
        let server = format!("s{}", which % ns);
        let ev = match kind {
            0 => HostEvent::Cancel {
                at,
                job: format!("j{}", which as usize % g.jobs.len()),
            },
            1 => HostEvent::ServerDown { at, server },
            2 => HostEvent::ServerUp { at, server },
            _ => HostEvent::Capacity {
                at,
                server,
                capacity: cap.clone(),
            },
        };
        v.push((at, 0, g.jobs.len() + k, ev));
    }
    v.sort_by_key(|x| (x.0, x.1, x.2));
    v.into_iter().map(|x| x.3).collect()
}

/// Applies `events` one by one through the service path, keeping those the engine accepts;
/// a refused one leaves the engine's fed events unchanged. Snapshot after `cut` accepted ones.
fn accept(
    e: &mut Engine<mlsched_kernel::log::HashSink>,
    events: &[HostEvent],
    cut: usize,
) -> (Vec<HostEvent>, Option<(Vec<u8>, usize)>) {
    let f = Feeder::new(e);
    let mut ok = Vec::new();
    let mut snap = None;
    for ev in events {
        if ok.len() == cut && snap.is_none() {
            snap = Some((e.snapshot(), ok.len()));
        }
        match f.apply(e, ev, None) {
            Ok(()) => ok.push(ev.clone()),
            Err(RunError::Input(_)) => {}
            Err(x) => panic!("{x}"),
        }
    }
    (ok, snap)
}

/// Per server: the capacity [workers, ps] in force at each slot (None: down), from the
/// accepted events.
fn in_force(g: &Gen, events: &[HostEvent], horizon: usize) -> Vec<Vec<Option<(u32, u32)>>> {
    let mut cap: Vec<(u32, u32)> = g.servers.iter().map(|s| (s.0, s.1)).collect();
    let mut down = vec![false; g.servers.len()];
    let mut out = vec![vec![None; horizon]; g.servers.len()];
    let idx = |s: &str| s[1..].parse::<usize>().unwrap();
    let mut k = 0;
    for t in 0..horizon {
        while let Some(ev) = events.get(k).filter(|e| e.at() as usize <= t) {
            match ev {
                HostEvent::ServerDown { server, .. } => down[idx(server)] = true,
                HostEvent::ServerUp { server, .. } => down[idx(server)] = false,
                HostEvent::Capacity {
                    server, capacity, ..
                } => {
                    let s = idx(server);
                    let c = |x: f64, m: u32| (x.floor() as u32).min(m);
                    cap[s] = (
                        c(capacity[0], g.servers[s].0),
                        c(capacity[1], g.servers[s].1),
                    );
                }
                _ => {}
            }
            k += 1;
        }
        for (s, row) in out.iter_mut().enumerate() {
            row[t] = (!down[s]).then_some(cap[s]);
        }
    }
    out
}

fn check_result(g: &Gen, events: &[HostEvent], r: &Value) -> Result<(), TestCaseError> {
    let horizon = 4096;
    let force = in_force(g, events, horizon);
    let mut used: HashMap<(usize, &str, u64), u32> = HashMap::new();
    for sp in r["occupancy"].as_array().unwrap() {
        let s = sp["server"].as_str().unwrap()[1..]
            .parse::<usize>()
            .unwrap();
        let role = sp["role"].as_str().unwrap();
        for t in sp["from"].as_u64().unwrap()..sp["to"].as_u64().unwrap() {
            *used.entry((s, role, t)).or_default() += sp["count"].as_u64().unwrap() as u32;
        }
    }
    for (&(s, role, t), &n) in &used {
        let cloud = g.servers[s].2;
        let f = force[s].get(t as usize).copied().flatten();
        prop_assert!(cloud || f.is_some(), "a span on down server s{s} at {t}");
        let (w, p) = if cloud {
            (u32::MAX, g.servers[s].1)
        } else {
            f.unwrap()
        };
        let cap = if role == "worker" { w } else { p };
        prop_assert!(n <= cap, "s{s} {role} at {t}: {n} > {cap}");
    }
    let cancels: HashMap<String, u64> = events
        .iter()
        .filter_map(|e| match e {
            HostEvent::Cancel { at, job } => Some((job.clone(), *at as u64)),
            _ => None,
        })
        .collect();
    for sp in r["occupancy"].as_array().unwrap() {
        if let Some(&c) = cancels.get(sp["job"].as_str().unwrap()) {
            prop_assert!(sp["to"].as_u64().unwrap() <= c, "span after the cancel");
        }
    }
    let rows = r["jobs"].as_array().unwrap();
    let submitted = events
        .iter()
        .filter(|e| matches!(e, HostEvent::Submit { .. }))
        .count();
    prop_assert_eq!(rows.len(), submitted);
    for row in rows {
        prop_assert!(row["status"].is_string());
        if cancels.contains_key(row["id"].as_str().unwrap()) {
            prop_assert_eq!(&row["status"], "cancelled");
        }
    }
    let total: u64 = r["summary"]["statuses"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    prop_assert_eq!(total, submitted as u64);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: mlsched_tests::world_cases(1000), ..ProptestConfig::default() })]

    /// Random open-world sequences under every policy (4 x 1,000 cases).
    #[test]
    fn random_events_keep_the_invariants(g in gen()) {
        for p in Preempt::policies() {
            let g = for_policy(&g, p);
            let text = scenario(&g);
            let all = host_events(&g);
            let o = opts(p);
            let mut e = Engine::new(&text, &o).unwrap();
            let (ok, snap) = accept(&mut e, &all, g.cut);
            let a = value(&e.run_events(&[], &mut |_| {}).unwrap());
            check_result(&g, &ok, &a)?;
            // The whole run with the accepted events: the same result, twice.
            let b = run(&text, p, &ok).unwrap();
            prop_assert_eq!(&a, &b, "{}: the service path and run_events differ", p);
            prop_assert_eq!(&run(&text, p, &ok).unwrap()["log_hash"], &b["log_hash"]);
            // A snapshot at the cut, restored, continued: the same result.
            let restored = snap.map(|(bytes, k)| match Engine::restore_hashed(&text, &o, &bytes) {
                Ok(r) => (r, k),
                Err(e) => panic!("{e}"),
            });
            if let Some((mut r, k)) = restored {
                let f = Feeder::new(&r);
                for ev in &ok[k..] {
                    f.apply(&mut r, ev, None).unwrap();
                }
                let c = value(&r.run_events(&[], &mut |_| {}).unwrap());
                prop_assert_eq!(&a, &c, "{}: restored at {} differs", p, k);
            }
            // The recorded log replays identically.
            let (res, bytes) =
                mlsched_scenario::replay::record_events(&text, &o, &ok, &mut |_| {}).unwrap();
            let rep = mlsched_scenario::replay::replay(&bytes).unwrap();
            let res = value(&res);
            prop_assert_eq!(rep.log_hash.as_str(), res["log_hash"].as_str().unwrap());
            prop_assert_eq!(&res["jobs"], &a["jobs"]);
        }
    }
}

const SMALL: &str = r#"{ "kind": "preempt", "slots": 30, "seed": 3,
  "servers": [ { "id": "edge", "workers": 2, "ps": 1 }, { "id": "cloud", "ps": 1, "cloud": true } ],
  "jobs": [
    { "id": "a", "arrival": 0, "epochs": 2, "chunks": 2, "minibatches_per_chunk": 3,
      "rate": [[1, 1], [1]], "upload_delay": [0, 2], "ps_eligible": [[true], [true]] },
    { "id": "b", "arrival": 1, "epochs": 2, "chunks": 2, "minibatches_per_chunk": 3,
      "rate": [[1, 1], [1]], "upload_delay": [0, 2], "ps_eligible": [[true], [true]] } ] }"#;

/// Server down at 2: the chunks running on the edge lose their work (a row marked
/// `interrupted` ending at 2) and run again after the re-dispatch; nothing on the edge while
/// it is down; a cancelled job holds nothing after its cancel.
#[test]
fn interruption_and_cancel_in_the_rows() {
    let events = parse_lines(
        r#"{"at": 2, "event": "server_down", "server": "edge"}
{"at": 3, "event": "cancel", "job": "b"}
{"at": 6, "event": "server_up", "server": "edge"}"#,
    )
    .unwrap();
    let r = run(SMALL, "preempt", &events).unwrap();
    let a = &r["jobs"][0];
    let lost: Vec<&Value> = a["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["interrupted"].is_u64())
        .collect();
    assert!(!lost.is_empty(), "{a}");
    for c in &lost {
        assert_eq!(c["interrupted"], 2);
        assert!(c["end"].as_u64().unwrap() <= 2);
    }
    assert_eq!(a["status"], "finished");
    assert_eq!(r["jobs"][1]["status"], "cancelled");
    for sp in r["occupancy"].as_array().unwrap() {
        if sp["server"] == "edge" {
            let (f, t) = (sp["from"].as_u64().unwrap(), sp["to"].as_u64().unwrap());
            assert!(t <= 2 || f >= 6, "{sp}");
        }
        if sp["job"] == "b" {
            assert!(sp["to"].as_u64().unwrap() <= 3, "{sp}");
        }
    }
    // The interruption records are decoded by name.
    let (_, bytes) =
        mlsched_scenario::replay::record_events(SMALL, &opts("preempt"), &events, &mut |_| {})
            .unwrap();
    mlsched_scenario::replay::replay(&bytes).unwrap();
}

/// Bad events leave the engine unchanged: the cloud named by a server event, an unknown
/// server, a capacity of the wrong length, a submission with a bad field, a cancel of an
/// unknown job.
#[test]
fn bad_events_change_nothing() {
    let o = opts("preempt");
    let mut e = Engine::new(SMALL, &o).unwrap();
    e.step(0, Event::JobArrived(0)).unwrap();
    let fed = e.events_fed();
    let cloud = e.server_index("cloud").unwrap();
    let err = e.step(0, Event::ServerDown(cloud)).unwrap_err().to_string();
    assert!(err.contains("server_down"), "{err}");
    let err = e
        .step(
            0,
            Event::Capacity(cloud, ResourceVec::from_slice(&[1.0, 1.0]).unwrap()),
        )
        .unwrap_err();
    assert!(matches!(err, RunError::Input(_)), "{err}");
    assert!(e.step(0, Event::ServerDown(9)).is_err());
    assert!(e
        .step(
            0,
            Event::Capacity(0, ResourceVec::from_slice(&[1.0]).unwrap())
        )
        .is_err());
    assert!(e.step(0, Event::JobCancelled(9)).is_err());
    let mut bad: Map<String, Value> = serde_json::from_value(json!({ "id": "c", "epochs": 0,
        "chunks": 1, "minibatches_per_chunk": 1, "rate": [[1, 1], [1]],
        "upload_delay": [0, 0], "ps_eligible": [[true], [true]] }))
    .unwrap();
    let err = e.submit_step(0, &bad).unwrap_err().to_string();
    assert!(err.contains("job.epochs"), "{err}");
    bad.insert("epochs".into(), json!(1));
    bad.insert("rate".into(), json!([[1], [1]]));
    let err = e.submit_step(0, &bad).unwrap_err().to_string();
    assert!(err.contains("job.rate[0]"), "{err}");
    bad.insert("rate".into(), json!([[0, 0], [0]]));
    assert!(e.submit_step(0, &bad).is_err());
    bad.insert("surprise".into(), json!(1));
    assert!(e.submit_step(0, &bad).is_err());
    assert_eq!(e.events_fed(), fed);
    assert_eq!(e.job_index("c"), None);
    // The run after the refusals equals the run without them.
    let r = value(&e.run_events(&[], &mut |_| {}).unwrap());
    let mut f = Engine::new(SMALL, &o).unwrap();
    f.step(0, Event::JobArrived(0)).unwrap();
    assert_eq!(r, value(&f.run_events(&[], &mut |_| {}).unwrap()));
    // A good submission works and gets the next index.
    bad.remove("surprise");
    bad.insert("rate".into(), json!([[1, 1], [1]]));
    let mut g = Engine::new(SMALL, &o).unwrap();
    assert_eq!(g.submit_step(0, &bad).unwrap(), 2);
    let r = value(&g.run_events(&[], &mut |_| {}).unwrap());
    assert_eq!(r["jobs"][2]["status"], "finished");
}
