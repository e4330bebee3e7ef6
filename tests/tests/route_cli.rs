//! Kind "route" through the document layer: the bundled scenario with every policy, the
//! generator (synthetic pods and, when present, the real Alibaba trace), and bad input.
use mlsched_lab::gen::route::{build, parse_pods, Pod};
use mlsched_scenario::kinds::route::doc::{RouteDoc, BETA_DEFAULT};
use mlsched_scenario::run::{run_json, RunOptions};
use serde_json::Value;

const SMALL: &str = include_str!("../../scenarios/route-small.json");

fn run(text: &str, policy: Option<&str>) -> Value {
    let opts = RunOptions {
        policy: policy.map(str::to_string),
        ..RunOptions::default()
    };
    serde_json::from_str(&run_json(text, &opts).unwrap()).unwrap()
}

#[test]
fn bundled_scenario_runs_with_every_policy() {
    for p in mlsched_scenario::kinds::route::exec::policies() {
        let r = run(SMALL, Some(p));
        assert_eq!(r["kind"], "route");
        let jobs = r["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 4);
        for j in jobs {
            let paths = j["paths"].as_array().unwrap();
            let nodes = j["compute_nodes"].as_array().unwrap();
            assert_eq!(paths.len(), nodes.len());
            for (p, c) in paths.iter().zip(nodes) {
                let p = p.as_array().unwrap();
                assert_eq!(p.last().unwrap(), c);
                assert!(p[0].as_str().unwrap().starts_with('p'));
            }
        }
        let s = &r["summary"];
        for k in [
            "deadline_violation_rate",
            "servers_used",
            "avg_network_cost",
            "cost",
        ] {
            assert!(s[k].is_number(), "{k}");
        }
        assert_eq!(r["log_hash"].as_str().unwrap().len(), 16);
    }
    // Same scenario, same bytes.
    let opts = RunOptions::default();
    assert_eq!(
        run_json(SMALL, &opts).unwrap(),
        run_json(SMALL, &opts).unwrap()
    );
}

#[test]
fn aggregation_is_reported_and_never_increases_bandwidth() {
    let r = run(SMALL, None);
    let s = &r["summary"];
    assert!(s["aggregated_jobs"].as_u64().is_some());
    assert!(s["bandwidth_units"].as_u64().unwrap() <= s["bandwidth_units_plain"].as_u64().unwrap());
    let plain = SMALL.replace("\"aggregate\": true", "\"aggregate\": false");
    let r = run(&plain, None);
    assert!(r["summary"].get("aggregated_jobs").is_none());
    assert!(r["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|j| j["aggregation_node"].is_null()));
}

#[test]
fn unknown_policy_is_refused() {
    let e = run_json(
        SMALL,
        &RunOptions {
            policy: Some("drf".into()),
            ..RunOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("accepted: route, fifo, fair, capacity, deadline"),
        "{e}"
    );
}

#[test]
fn beta_defaults_to_the_papers_four() {
    assert_eq!(BETA_DEFAULT, 4.0);
}

#[test]
fn too_many_workers_name_the_job() {
    let text = SMALL.replace("\"workers\": 8,", "\"workers\": 30,");
    let e = run_json(&text, &RunOptions::default()).unwrap_err();
    assert!(e.to_string().contains("job `j3`"), "{e}");
}

fn pods() -> Vec<Pod> {
    let text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n\
                a,12000,16384,1,1000,,LS,Running,0,600,0\n\
                b,6000,32768,2,1000,,LS,Running,60,100,60\n\
                c,32000,8192,0,0,,BE,Failed,3600,7200,3600\n";
    parse_pods(text).unwrap()
}

#[test]
fn generator_builds_a_valid_scenario() {
    let doc = build(3, 200, 40, &pods());
    let scn = doc.validate().unwrap();
    assert_eq!(scn.jobs.len(), 40);
    let computes = doc
        .topology
        .nodes
        .iter()
        .filter(|n| n.id.starts_with('c'))
        .count();
    assert_eq!(computes, 200);
    for j in &scn.jobs {
        assert!(j.deadline >= j.release + j.duration);
        assert!((1..=16).contains(&j.workers));
    }
    // Pod a: 600 s = 10 slots, workers max(1, ceil(12000 / 8000)) = 2, bandwidth 1.0.
    let j0 = &doc.jobs[0];
    assert_eq!((j0.duration, j0.workers, j0.bandwidth), (10.0, 2.0, 1.0));
    let text = serde_json::to_string(&doc).unwrap();
    let back: RouteDoc = serde_json::from_str(&text).unwrap();
    assert_eq!(back.jobs.len(), 40);
    let r = run(
        &text.replace("\"iterations\":100.0", "\"iterations\":5.0"),
        Some("fifo"),
    );
    assert_eq!(r["jobs"].as_array().unwrap().len(), 40);
}

#[test]
fn generator_reads_the_alibaba_trace() {
    let data = mlsched_tests::data_dir();
    let f = data.join("alibaba-openb-gpu-2023/openb_pod_list_default.csv");
    let pods = mlsched_lab::gen::route::read_pods(&f).unwrap();
    assert_eq!(pods.len(), 8152);
    let doc = build(1, 1500, 300, &pods);
    let scn = doc.validate().unwrap();
    assert_eq!(scn.jobs.len(), 300);
    assert_eq!(
        scn.topology
            .nodes
            .iter()
            .filter(|n| n.kind == mlsched_kernel::model::route::NodeKind::Compute)
            .count(),
        1500
    );
}
