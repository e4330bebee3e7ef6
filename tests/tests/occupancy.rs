//! The result documents' `occupancy` (`docs/formats.md`, "Occupancy"): for every bundled
//! scenario and every policy of its kind, the list is re-derived here from the result
//! document's own per-job JSON fields (and the scenario's ids and durations), by a different
//! method than `mlsched_scenario::occupancy` (elementary intervals between every piece end,
//! counts summed per interval, not a sweep), and must be equal; and it is sorted by
//! `(job, from, server, role)`, merged, without zero counts or empty spans, never holds more
//! of a server than it has (where the scenario says how much), and sits just before `log_hash`.
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::doc;
use mlsched_scenario::run::{policies, run_json, RunOptions};
use serde_json::Value;
use std::collections::BTreeMap;

/// `(job, server, role)`.
type Key = (String, String, String);

/// A span as the document writes it: `(job, server, role, count, from, to)`.
type Span = (String, String, String, u64, u64, u64);

/// Pieces `(from, to, count)` per key.
#[derive(Default)]
struct Held(BTreeMap<Key, Vec<(u64, u64, u64)>>);

impl Held {
    fn add(&mut self, job: &str, server: &str, role: &str, count: u64, from: u64, to: u64) {
        let key = (job.to_string(), server.to_string(), role.to_string());
        self.0.entry(key).or_default().push((from, to, count));
    }

    /// Per key: the count between every two consecutive piece ends, zero intervals dropped,
    /// equal neighbours merged; sorted by `(job, from, server, role)`.
    fn spans(&self) -> Vec<Span> {
        let mut out: Vec<Span> = Vec::new();
        for ((job, server, role), pieces) in &self.0 {
            let mut ends: Vec<u64> = pieces.iter().flat_map(|p| [p.0, p.1]).collect();
            ends.sort();
            ends.dedup();
            let mut mine: Vec<Span> = Vec::new();
            for w in ends.windows(2) {
                let (a, b) = (w[0], w[1]);
                let n: u64 = pieces
                    .iter()
                    .filter(|p| p.0 <= a && b <= p.1)
                    .map(|p| p.2)
                    .sum();
                if n == 0 {
                    continue;
                }
                match mine.last_mut() {
                    Some(s) if s.5 == a && s.3 == n => s.5 = b,
                    _ => mine.push((job.clone(), server.clone(), role.clone(), n, a, b)),
                }
            }
            out.extend(mine);
        }
        out.sort_by(|x, y| (&x.0, x.4, &x.1, &x.2).cmp(&(&y.0, y.4, &y.1, &y.2)));
        out
    }
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not a whole number: {v}"))
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

fn arr(v: &Value) -> &Vec<Value> {
    v.as_array().unwrap_or_else(|| panic!("not an array: {v}"))
}

/// The occupancy of `res` (a result of `scn`), from the per-job fields only.
fn derive(scn: &Value, res: &Value) -> Vec<Span> {
    let mut h = Held::default();
    match s(&res["kind"]) {
        "oasis" => {
            for j in arr(&res["jobs"]) {
                let id = s(&j["id"]);
                for p in j["placements"].as_array().into_iter().flatten() {
                    let t = u(&p["slot"]);
                    for (field, prefix, role) in [("workers", "w", "worker"), ("ps", "ps", "ps")] {
                        for pair in arr(&p[field]) {
                            let server = format!("{prefix}{}", u(&pair[0]));
                            h.add(id, &server, role, u(&pair[1]), t, t + 1);
                        }
                    }
                }
            }
        }
        "online" => {
            for j in arr(&res["jobs"]) {
                let (Some(a), Some(c)) = (j["start_slot"].as_u64(), j["completion_slot"].as_u64())
                else {
                    continue;
                };
                for p in arr(&j["placement"]) {
                    let server = format!("h{}", u(&p[0]));
                    h.add(s(&j["id"]), &server, "worker", u(&p[1]), a, c);
                    h.add(s(&j["id"]), &server, "ps", u(&p[2]), a, c);
                }
            }
        }
        "placement" => {
            let best = &res["best"];
            for (id, ks) in best["assignment"].as_object().expect("assignment") {
                // null: an infinite JCT.
                let Some(jct) = best["jct"][id].as_f64() else {
                    continue;
                };
                for k in arr(ks) {
                    h.add(id, &format!("k{}", u(k)), "worker", 1, 0, jct.ceil() as u64);
                }
            }
        }
        "preempt" => {
            let ids: Vec<&str> = arr(&scn["servers"]).iter().map(|x| s(&x["id"])).collect();
            for j in arr(&res["jobs"]) {
                let id = s(&j["id"]);
                for c in arr(&j["chunks"]) {
                    let server = ids[u(&c["server"]) as usize];
                    let mut slots: Vec<u64> = arr(&c["slots"]).iter().map(u).collect();
                    slots.sort();
                    slots.dedup();
                    for t in slots {
                        h.add(id, server, "worker", 1, t, t + 1);
                    }
                }
                for p in arr(&j["ps"]) {
                    let t = u(&p["slot"]);
                    h.add(id, ids[u(&p["server"]) as usize], "ps", 1, t, t + 1);
                }
            }
        }
        "route" => {
            for (jd, j) in arr(&scn["jobs"]).iter().zip(arr(&res["jobs"])) {
                let nodes = arr(&j["compute_nodes"]);
                if nodes.is_empty() {
                    continue;
                }
                let a = u(&j["start"]);
                let b = a + jd["duration"].as_f64().expect("duration") as u64;
                for n in nodes {
                    h.add(s(&j["id"]), s(n), "worker", 1, a, b);
                }
                h.add(s(&j["id"]), s(&jd["ps"]), "ps", 1, a, b);
            }
        }
        k => panic!("unknown kind {k}"),
    }
    h.spans()
}

fn read(res: &Value) -> Vec<Span> {
    arr(&res["occupancy"])
        .iter()
        .map(|x| {
            let o = x.as_object().expect("span object");
            assert_eq!(o.len(), 6, "a span has six fields: {x}");
            (
                s(&x["job"]).to_string(),
                s(&x["server"]).to_string(),
                s(&x["role"]).to_string(),
                u(&x["count"]),
                u(&x["from"]),
                u(&x["to"]),
            )
        })
        .collect()
}

/// Sorted, merged, no zero counts, no empty spans, roles and servers as documented.
fn check_shape(what: &str, scn: &Value, spans: &[Span]) {
    for w in spans.windows(2) {
        let (x, y) = (&w[0], &w[1]);
        assert!(
            (&x.0, x.4, &x.1, &x.2) < (&y.0, y.4, &y.1, &y.2),
            "{what}: not sorted: {x:?} then {y:?}"
        );
    }
    for x in spans {
        assert!(x.3 >= 1 && x.4 < x.5, "{what}: empty span {x:?}");
        assert!(x.2 == "worker" || x.2 == "ps", "{what}: role {x:?}");
        assert!(
            !spans
                .iter()
                .any(|y| (&y.0, &y.1, &y.2, y.3) == (&x.0, &x.1, &x.2, x.3) && y.5 == x.4),
            "{what}: {x:?} not merged with its predecessor"
        );
        let ok = match s(&scn["kind"]) {
            "oasis" if x.2 == "worker" => index(&x.1, "w") < arr(&scn["worker_servers"]).len(),
            "oasis" => index(&x.1, "ps") < arr(&scn["ps_servers"]).len(),
            "online" => index(&x.1, "h") < arr(&scn["servers"]).len(),
            "placement" => x.2 == "worker" && index(&x.1, "k") < arr(&scn["workers"]).len(),
            "preempt" => arr(&scn["servers"]).iter().any(|v| v["id"] == x.1.as_str()),
            "route" => node(scn, &x.1).is_some(),
            _ => false,
        };
        assert!(ok, "{what}: server {x:?} is not one of the scenario's");
    }
}

fn index(server: &str, prefix: &str) -> usize {
    server
        .strip_prefix(prefix)
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX)
}

fn node<'a>(scn: &'a Value, id: &str) -> Option<&'a Value> {
    arr(&scn["topology"]["nodes"])
        .iter()
        .find(|n| n["id"] == id)
}

fn vector(v: &Value) -> Vec<f64> {
    arr(v).iter().map(|x| x.as_f64().expect("number")).collect()
}

/// What one unit of `role` of `job` uses on `server`, and the server's capacity, per resource
/// (`None`: the scenario does not bound it).
fn unit_and_capacity(
    scn: &Value,
    res: &Value,
    job: &str,
    server: &str,
    role: &str,
) -> Option<(Vec<f64>, Vec<f64>)> {
    let job_of = |list: &Value| -> Value {
        arr(list)
            .iter()
            .find(|j| j["id"] == job)
            .cloned()
            .expect("job")
    };
    match s(&scn["kind"]) {
        "oasis" => {
            let j = job_of(&scn["jobs"]);
            let (cap, dem) = if role == "worker" {
                (
                    &scn["worker_servers"][index(server, "w")],
                    &j["worker_demand"],
                )
            } else {
                (&scn["ps_servers"][index(server, "ps")], &j["ps_demand"])
            };
            Some((vector(dem), vector(cap)))
        }
        "online" => {
            let j = job_of(&res["jobs"]);
            let dem = if role == "worker" {
                &scn["worker_types"][u(&j["worker_type"]) as usize]["demand"]
            } else {
                &scn["ps_types"][u(&j["ps_type"]) as usize]["demand"]
            };
            Some((vector(dem), vector(&scn["servers"][index(server, "h")])))
        }
        "placement" => Some((vec![1.0], vec![1.0])),
        "preempt" => {
            let sv = arr(&scn["servers"]).iter().find(|v| v["id"] == server)?;
            let cap = if role == "ps" {
                sv["ps"].as_f64()
            } else if sv["cloud"] == true {
                None
            } else {
                sv["workers"].as_f64()
            };
            Some((vec![1.0], vec![cap?]))
        }
        "route" => {
            let slots = node(scn, server)?["slots"].as_f64();
            (role == "worker").then_some((vec![1.0], vec![slots?]))
        }
        _ => None,
    }
}

/// One span's load on its server: `(from, to, use per resource, capacity per resource)`.
type Load = (u64, u64, Vec<f64>, Vec<f64>);

/// At every time, the units held on each server use at most its capacity.
fn check_capacity(what: &str, scn: &Value, res: &Value, spans: &[Span]) -> usize {
    // (server, pool) -> pieces (from, to, use per resource, capacity). A preempt server has
    // a capacity per role (workers, parameter servers); an online server one for both roles.
    let split = s(&scn["kind"]) == "preempt";
    let mut per: BTreeMap<(&str, &str), Vec<Load>> = BTreeMap::new();
    for x in spans {
        if let Some((unit, cap)) = unit_and_capacity(scn, res, &x.0, &x.1, &x.2) {
            let used = unit.iter().map(|d| d * x.3 as f64).collect();
            let pool = if split { x.2.as_str() } else { "" };
            per.entry((&x.1, pool))
                .or_default()
                .push((x.4, x.5, used, cap));
        }
    }
    let mut checked = 0;
    for (server, pieces) in &per {
        let mut ends: Vec<u64> = pieces.iter().flat_map(|p| [p.0, p.1]).collect();
        ends.sort();
        ends.dedup();
        for &t in &ends {
            let live: Vec<_> = pieces.iter().filter(|p| p.0 <= t && t < p.1).collect();
            let Some(first) = live.first() else {
                continue;
            };
            for (r, &cap) in first.3.iter().enumerate() {
                let used: f64 = live.iter().map(|p| p.2[r]).sum();
                assert!(
                    used <= cap * (1.0 + 1e-9) + 1e-9,
                    "{what}: server {server:?} at {t}: resource {r} used {used} > capacity {cap}"
                );
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn every_bundled_run_reports_the_occupancy_its_jobs_hold() {
    let (mut runs, mut spans, mut capacity_checks) = (0, 0, 0);
    let mut kinds = BTreeMap::new();
    for (name, text) in SCENARIOS {
        let kind = doc::parse(text).expect("bundled").kind();
        let scn: Value = serde_json::from_str(text).expect("bundled JSON");
        for (k, policy) in policies(kind).iter().enumerate() {
            let opts = RunOptions {
                policy: (k > 0).then(|| policy.to_string()),
                all_categories: false,
            };
            // Some policies refuse some scenarios (e.g. exhaustive placement on a large one).
            let Ok(json) = run_json(text, &opts) else {
                continue;
            };
            let what = format!("{name} {policy}");
            let res: Value = serde_json::from_str(&json).expect("result JSON");
            // Top-level fields are indented by two spaces in the pretty JSON.
            let at = |field: &str| json.find(&format!("\n  \"{field}\": "));
            let (o, l) = (
                at("occupancy").expect("occupancy"),
                at("log_hash").expect("log_hash"),
            );
            let between = &json[o + 1..l];
            assert!(
                o < l && !between.contains("\n  \""),
                "{what}: occupancy sits just before log_hash"
            );
            let got = read(&res);
            assert_eq!(got, derive(&scn, &res), "{what}: occupancy");
            check_shape(&what, &scn, &got);
            capacity_checks += check_capacity(&what, &scn, &res, &got);
            *kinds.entry(kind).or_insert(0) += usize::from(!got.is_empty());
            spans += got.len();
            runs += 1;
        }
    }
    assert!(runs >= 25, "only {runs} runs checked");
    assert_eq!(kinds.len(), 5, "every kind holds something: {kinds:?}");
    assert!(
        spans > 100 && capacity_checks > 100,
        "{spans} spans, {capacity_checks} checks"
    );
}

#[test]
fn the_typed_occupancy_is_the_documents() {
    for (name, text) in SCENARIOS {
        let d = doc::parse(text).expect("bundled");
        let r = mlsched_scenario::run::run_doc(
            &d,
            &RunOptions::default(),
            &mut mlsched_kernel::log::HashSink::new(),
        )
        .expect("runs");
        let res: Value = serde_json::from_str(&r.to_json()).expect("result JSON");
        let typed: Vec<Span> = r
            .occupancy()
            .iter()
            .map(|x| {
                (
                    x.job.clone(),
                    x.server.clone(),
                    x.role.as_str().to_string(),
                    x.count as u64,
                    x.from,
                    x.to,
                )
            })
            .collect();
        assert_eq!(typed, read(&res), "{name}");
    }
}
