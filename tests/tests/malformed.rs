//! Malformed scenario documents, at least ten per kind: each must fail with the exact error
//! (subject with the job/server id, and the field) — never a panic.
use mlsched_scenario::doc;
use mlsched_scenario::run::{run_json, RunOptions};
use serde_json::{json, Value};

fn bundled(name: &str) -> Value {
    let text = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .expect("bundled scenario");
    serde_json::from_str(text).unwrap()
}

/// Parses + validates `v` and returns the error message (panics if it was accepted).
fn error_of(v: &Value) -> String {
    let text = serde_json::to_string(v).unwrap();
    let d = match doc::parse(&text) {
        Err(e) => return e.to_string(),
        Ok(d) => d,
    };
    let r = match &d {
        doc::ScenarioDoc::Oasis(x) => x.validate().map(|_| ()),
        doc::ScenarioDoc::Online(x) => x.validate().map(|_| ()),
        doc::ScenarioDoc::Placement(x) => x.validate().map(|_| ()),
        doc::ScenarioDoc::Preempt(x) => x.validate().map(|_| ()),
        doc::ScenarioDoc::Route(x) => x.validate().map(|_| ()),
    };
    match r {
        Err(e) => {
            // run_json reports the very same message.
            let via_run = run_json(&text, &RunOptions::default())
                .unwrap_err()
                .to_string();
            assert_eq!(via_run, e.to_string());
            e.to_string()
        }
        Ok(()) => panic!("accepted a malformed document: {text}"),
    }
}

fn case(base: &Value, edit: impl FnOnce(&mut Value), expected: &str) {
    let mut v = base.clone();
    edit(&mut v);
    assert_eq!(error_of(&v), expected);
}

#[test]
fn the_bundled_scenarios_are_valid() {
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let d = doc::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ok = match &d {
            doc::ScenarioDoc::Oasis(x) => x.validate().map(|_| ()),
            doc::ScenarioDoc::Online(x) => x.validate().map(|_| ()),
            doc::ScenarioDoc::Placement(x) => x.validate().map(|_| ()),
            doc::ScenarioDoc::Preempt(x) => x.validate().map(|_| ()),
            doc::ScenarioDoc::Route(x) => x.validate().map(|_| ()),
        };
        ok.unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn documents_of_no_kind() {
    assert_eq!(
        error_of(&json!([1, 2])),
        "document: must be a JSON object, got an array"
    );
    assert_eq!(
        error_of(&json!({"slots": 3})),
        "scenario, field `kind`: missing; expected one of oasis, online, placement, preempt, route"
    );
    assert_eq!(error_of(&json!({"kind": "batch"})), "scenario, field `kind`: unknown kind `batch`; expected one of oasis, online, placement, preempt, route");
    assert_eq!(
        error_of(&json!({"kind": 7})),
        "scenario, field `kind`: must be a string, got 7"
    );
    let e = doc::parse("{\"kind\": \"oasis\", ")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("document: not valid JSON: EOF while parsing"),
        "{e}"
    );
}

#[test]
fn oasis_malformed() {
    let b = bundled("oasis-small");
    case(
        &b,
        |v| v["jobs"][1]["epochs"] = json!(-3),
        "job `vgg-2`, field `epochs`: must be an integer in 1..=4294967295, got -3",
    );
    case(
        &b,
        |v| v["jobs"][0]["chunks"] = json!(2.5),
        "job `resnet-1`, field `chunks`: must be an integer, got 2.5",
    );
    case(
        &b,
        |v| v["jobs"][2]["arrival"] = json!(20),
        "job `bert-3`, field `arrival`: 20 is outside the horizon 0..20",
    );
    case(
        &b,
        |v| v["jobs"][0]["worker_demand"] = json!([1, 4, 16]),
        "job `resnet-1`, field `worker_demand`: has 3 entries, expected 4 (one per resource)",
    );
    case(&b, |v| v["jobs"][3]["ps_demand"] = json!([1, 2, 8, 4]), "job `lstm-4`, field `ps_demand[0]`: demands `gpu`, which every ps server has at capacity 0");
    case(
        &b,
        |v| v["jobs"][1]["id"] = json!("resnet-1"),
        "job `resnet-1`, field `id`: duplicate job id `resnet-1`",
    );
    case(&b, |v| v["jobs"][0]["colour"] = json!("red"), "job `resnet-1`, field `colour`: unknown field `colour`, expected one of `id`, `arrival`, `epochs`, `chunks`, `minibatches_per_chunk`, `minibatch_time`, `comm_time`, `worker_bw`, `ps_bw`, `worker_demand`, `ps_demand`, `utility`, `model`, `workers`");
    case(
        &b,
        |v| v["worker_servers"][1] = json!([8, -64, 488, 25]),
        "worker server 1, field `capacity[1]`: must be >= 0, got -64",
    );
    case(
        &b,
        |v| v["slots"] = json!(300000),
        "scenario, field `slots`: 300000 exceeds this build's limit SLOTS_MAX = 262144",
    );
    case(
        &b,
        |v| v["jobs"][4]["utility"] = json!({"table": [3, 5]}),
        "job `gan-5`, field `utility.table[1]`: must be non-increasing: 5 > 3",
    );
    case(
        &b,
        |v| v["jobs"][4]["utility"] = json!({"sigmoid": {"priority": 1, "decay": 1}}),
        "job `gan-5`, field `utility.sigmoid.target`: missing (required)",
    );
    case(
        &b,
        |v| v["prices"]["l_worker"] = json!(0),
        "prices, field `l_worker`: must be > 0, got 0",
    );
    case(
        &b,
        |v| v["jobs"][0]["minibatch_time"] = json!("fast"),
        "job `resnet-1`, field `minibatch_time`: invalid type: string \"fast\", expected f64",
    );
    case(
        &b,
        |v| v["resources"] = json!(["gpu", "cpu", "gpu", "bw"]),
        "scenario, field `resources[2]`: duplicate resource `gpu`",
    );
}

#[test]
fn online_malformed() {
    let b = bundled("online-ps-small");
    case(
        &b,
        |v| v["jobs"][0]["minibatch_time"] = json!([0.01]),
        "job `j1`, field `minibatch_time`: has 1 entries, expected 2 (one per worker type)",
    );
    case(
        &b,
        |v| v["jobs"][1]["update_time"] = json!([0.001, 0.002]),
        "job `j2`, field `update_time`: has 2 entries, expected 1 (one per PS type)",
    );
    case(
        &b,
        |v| v["jobs"][2]["weight"] = json!(0),
        "job `j3`, field `weight`: must be > 0, got 0",
    );
    case(
        &b,
        |v| v["jobs"][3]["arrival"] = json!(64),
        "job `j4`, field `arrival`: 64 is outside the horizon 0..64",
    );
    case(
        &b,
        |v| v["architecture"] = json!("mesh"),
        "scenario, field `architecture`: unknown variant `mesh`, expected `ps` or `ring`",
    );
    case(
        &b,
        |v| {
            v.as_object_mut().unwrap().remove("ps_types");
        },
        "scenario, field `ps_types`: missing; architecture \"ps\" needs at least one PS type",
    );
    case(
        &b,
        |v| v["F"] = json!(-1),
        "scenario, field `F`: must be > 0, got -1",
    );
    case(
        &b,
        |v| v["alpha"] = json!(0),
        "scenario, field `alpha`: must be an integer in 1..=64, got 0",
    );
    case(
        &b,
        |v| v["servers"][2] = json!([4, 32]),
        "server 2, field `capacity`: has 2 entries, expected 3 (one per resource)",
    );
    case(
        &b,
        |v| v["worker_types"][1]["demand"] = json!([0, 0, 0]),
        "worker type 1, field `demand`: must demand at least one resource (all entries are 0)",
    );
    case(
        &b,
        |v| v["ps_types"][0]["bw"] = json!(0),
        "ps type 0, field `bw`: must be > 0, got 0",
    );
    case(
        &b,
        |v| v["jobs"][0]["chunks"] = json!(0),
        "job `j1`, field `chunks`: must be an integer in 1..=4294967295, got 0",
    );
    case(
        &b,
        |v| v["rounds_past_horizon"] = json!(1),
        "scenario, field `rounds_past_horizon`: invalid type: integer `1`, expected a boolean",
    );
    case(
        &b,
        |v| {
            v["rounds_past_horizon"] = json!(true);
            v["slots"] = json!(262144);
            v["alpha"] = json!(4);
        },
        "scenario, field `rounds_past_horizon`: extends the horizon to 16777216 slots (2 alpha 8 tau_c), more than SLOTS_MAX = 262144; use a smaller slots or alpha",
    );
    let r = bundled("online-ring-small");
    case(
        &r,
        |v| v["ps_types"] = json!([{"demand": [0, 1, 1], "bw": 1}]),
        "scenario, field `ps_types`: must be absent when architecture is \"ring\"",
    );
    case(
        &r,
        |v| v["jobs"][0]["update_time"] = json!([]),
        "job `r1`, field `update_time`: has 0 entries, expected 1 (one value U_j for ring)",
    );
}

#[test]
fn placement_malformed() {
    let b = bundled("placement-table2");
    case(&b, |v| v["method"] = json!("greedy"), "scenario, field `method`: unknown variant `greedy`, expected one of `has`, `jps`, `exact`, `exhaustive`, `optimus`, `optimus-lb`, `las`");
    case(
        &b,
        |v| v["jobs"][1]["throughput"] = json!([884, 884, 1754]),
        "job `vgg19`, field `throughput`: has 3 entries, expected 4 (one per worker)",
    );
    case(
        &b,
        |v| v["jobs"][0]["throughput"][2] = json!(-644),
        "job `resnet18`, field `throughput[2]`: must be >= 0, got -644",
    );
    case(
        &b,
        |v| v["jobs"][1]["throughput"][2] = json!(1.78e26),
        "job `vgg19` (index 1), field `jobs[1].throughput[2]`: 1.78e26 exceeds this build's limit THROUGHPUT_MAX = 1e15 (the market's unit price steps are exact in f64 only below 2^53)",
    );
    case(
        &b,
        |v| v["jobs"][0]["samples"] = json!(0),
        "job `resnet18`, field `samples`: must be > 0, got 0",
    );
    case(
        &b,
        |v| v["jobs"][1]["id"] = json!("resnet18"),
        "job `resnet18`, field `id`: duplicate job id `resnet18`",
    );
    case(
        &b,
        |v| v["workers"][3]["node"] = json!(-1),
        "worker 3, field `node`: must be an integer in 0..=4294967295, got -1",
    );
    case(
        &b,
        |v| v["workers"][0]["gpu"] = json!(""),
        "worker 0, field `gpu`: must be a non-empty GPU type name",
    );
    case(
        &b,
        |v| v["link_rate"]["inter_node"] = json!(0),
        "link_rate, field `inter_node`: must be > 0, got 0",
    );
    case(
        &b,
        |v| v["jps"]["alpha"] = json!(1.0),
        "jps, field `alpha`: must be in [0, 1), got 1",
    );
    case(
        &b,
        |v| v["jps"]["beta"] = json!(2),
        "jps, field `beta`: must be in [0, 1], got 2",
    );
    case(
        &b,
        |v| {
            v["workers"].as_array_mut().unwrap().pop();
        },
        "job `resnet18`, field `throughput`: has 4 entries, expected 3 (one per worker)",
    );
    case(
        &b,
        |v| {
            v["workers"] = json!([{"gpu": "T4", "node": 0}]);
            v["jobs"][0]["throughput"] = json!([1]);
            v["jobs"][1]["throughput"] = json!([1]);
        },
        "scenario, field `jobs`: 2 jobs need at least as many workers, got 1 (K < S)",
    );
    case(
        &b,
        |v| {
            v.as_object_mut().unwrap().remove("include_comm");
        },
        "scenario, field `include_comm`: missing (required)",
    );
    case(
        &b,
        |v| v["seed"] = json!(-5),
        "scenario, field `seed`: must be an integer in 0..=2^53, got -5",
    );
}

#[test]
fn preempt_malformed() {
    let b = bundled("preempt-small");
    case(
        &b,
        |v| v["jobs"][0]["rate"][0] = json!([40, 40, 35]),
        "job `j1`, field `rate[0]`: has 3 entries, expected 4 (workers of server `edge-0`)",
    );
    case(
        &b,
        |v| v["jobs"][1]["rate"] = json!([[0, 0, 0, 0], [0, 0], [0]]),
        "job `j2`, field `rate`: no worker is eligible (every rate is 0)",
    );
    case(
        &b,
        |v| v["jobs"][2]["upload_delay"] = json!([3, 1]),
        "job `j3`, field `upload_delay`: has 2 entries, expected 3 (one per server)",
    );
    case(
        &b,
        |v| v["jobs"][0]["upload_delay"][1] = json!(-2),
        "job `j1`, field `upload_delay[1]`: must be an integer in 0..=262144, got -2",
    );
    case(
        &b,
        |v| v["jobs"][1]["ps_eligible"][0] = json!([true]),
        "job `j2`, field `ps_eligible[0]`: has 1 entries, expected 2 (PSs of server `edge-0`)",
    );
    case(
        &b,
        |v| v["jobs"][2]["chunks"] = json!(5000),
        "job `j3` (index 2), field `jobs[2].chunks`: 5000 exceeds this build's limit CHUNKS_MAX = 4096",
    );
    case(
        &b,
        |v| v["servers"][1]["workers"] = json!(0),
        "server `edge-1`, field `workers`: must be an integer in 1..=64, got 0",
    );
    case(
        &b,
        |v| v["servers"][2]["workers"] = json!(4),
        "server `cloud`, field `workers`: must be absent on the cloud (unlimited workers)",
    );
    case(
        &b,
        |v| v["servers"][1]["id"] = json!("edge-0"),
        "server `edge-0`, field `id`: duplicate server id `edge-0`",
    );
    case(
        &b,
        |v| {
            v["servers"][0].as_object_mut().unwrap().remove("workers");
        },
        "server `edge-0`, field `workers`: missing; an edge server needs >= 1 worker",
    );
    case(
        &b,
        |v| v["jobs"][0]["arrival"] = json!(400),
        "job `j1`, field `arrival`: 400 is outside the horizon 0..400",
    );
    case(
        &b,
        |v| v["jobs"][0]["rate"][2][0] = json!(-30),
        "job `j1`, field `rate[2][0]`: must be >= 0, got -30",
    );
    case(&b, |v| v["servers"][0]["speed"] = json!(3), "server `edge-0`, field `speed`: unknown field `speed`, expected one of `id`, `workers`, `ps`, `cloud`");
}

#[test]
fn route_malformed() {
    let b = bundled("route-small");
    case(
        &b,
        |v| v["jobs"][0]["ps"] = json!("c0"),
        "job `j1`, field `ps`: node `c0` is not a ps node",
    );
    case(
        &b,
        |v| v["jobs"][1]["ps"] = json!("nowhere"),
        "job `j2`, field `ps`: unknown node `nowhere`",
    );
    case(
        &b,
        |v| v["jobs"][2]["deadline"] = json!(1),
        "job `j3`, field `deadline`: 1 is before the release 2",
    );
    case(
        &b,
        |v| v["jobs"][3]["workers"] = json!(0),
        "job `j4`, field `workers`: must be an integer in 1..=64, got 0",
    );
    case(
        &b,
        |v| v["jobs"][0]["bandwidth"] = json!(-1),
        "job `j1`, field `bandwidth`: must be > 0, got -1",
    );
    case(
        &b,
        |v| v["topology"]["links"][0]["b"] = json!("zz"),
        "link 0 (core-zz), field `b`: unknown node `zz`",
    );
    case(
        &b,
        |v| v["topology"]["links"][1]["used"] = json!(50),
        "link 1 (core-agg1), field `used`: 50 exceeds the capacity 40",
    );
    case(
        &b,
        |v| v["topology"]["links"][2]["b"] = json!("agg0"),
        "link 2 (agg0-agg0), field `b`: a link must join two different nodes",
    );
    case(
        &b,
        |v| v["topology"]["links"][3] = json!({"a": "c0", "b": "agg0", "capacity": 10.0}),
        "link 3 (c0-agg0), field `b`: duplicate link between `c0` and `agg0`",
    );
    case(
        &b,
        |v| v["topology"]["nodes"][0]["slots"] = json!(4),
        "node `core`, field `slots`: only compute nodes have slots",
    );
    case(
        &b,
        |v| v["topology"]["nodes"][1]["id"] = json!("core"),
        "node `core`, field `id`: duplicate node id `core`",
    );
    case(
        &b,
        |v| v["pso"]["w_max"] = json!(0.1),
        "pso, field `w_max`: must be >= w_min 0.4, got 0.1",
    );
    case(
        &b,
        |v| v["pso"]["particles"] = json!(0),
        "pso, field `particles`: must be an integer in 1..=10000, got 0",
    );
    case(&b, |v| v["topology"]["nodes"][3]["kind"] = json!("gpu"), "scenario, field `topology.nodes[3].kind`: unknown variant `gpu`, expected one of `switch`, `compute`, `ps`");
}

#[test]
fn route_compute_slots_beyond_the_build_limit() {
    let b = bundled("route-small");
    case(
        &b,
        |v| v["topology"]["nodes"][3]["slots"] = json!(70000),
        "node `c0` (index 3), field `topology.nodes[3].slots`: 70000 exceeds this build's limit COMPUTE_SLOTS_MAX = 65536",
    );
}
