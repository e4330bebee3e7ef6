//! The client on output recorded from a real Slurm 22.05 cluster (`scripts/slurm-cluster.sh
//! start 4 4 DIR`, fixtures under `tests/fixtures/`): held, running, failed and cancelled jobs,
//! a drained and a down node, an idle cluster. Plus the actions' command lines and odd output.
use mlsched_slurm::{
    Client, HeldJob, JobState, Kind, MlschedComment, NodeState, Recorded, SlurmError,
};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn client_with(sinfo: &str, squeue: &str) -> Client<Recorded> {
    Client::new(
        Recorded::new()
            .answer("sinfo --json", &fixture(sinfo))
            .answer("squeue --json --states=all", &fixture(squeue)),
    )
}

#[test]
fn nodes_of_a_mixed_cluster() {
    let nodes = client_with("sinfo-mixed.json", "squeue-ended.json")
        .nodes()
        .unwrap();
    let seen: Vec<(&str, NodeState, u32, u32)> = nodes
        .iter()
        .map(|n| (n.name.as_str(), n.state.clone(), n.gpus, n.gpus_used))
        .collect();
    assert_eq!(
        seen,
        [
            ("n1", NodeState::Mixed, 4, 4),
            ("n2", NodeState::Mixed, 4, 2),
            ("n3", NodeState::Drained, 4, 0),
            ("n4", NodeState::Down, 4, 0),
        ]
    );
    assert_eq!((nodes[0].cpus, nodes[0].memory_mb), (8, 1000));
    assert_eq!(nodes[0].partitions, ["main"]);
    assert_eq!(nodes[2].reason, "maintenance");
    assert_eq!(nodes[3].reason, "mlsched test");
    assert!(nodes[2].state.is_out() && nodes[3].state.is_out() && nodes[0].state.is_up());
}

#[test]
fn jobs_of_every_state_with_their_comments() {
    let jobs = client_with("sinfo-mixed.json", "squeue-mixed.json")
        .jobs()
        .unwrap();
    let mut by_id = jobs.clone();
    by_id.sort_by_key(|j| j.id);
    let seen: Vec<(u64, JobState, bool, Vec<&str>, u32)> = by_id
        .iter()
        .map(|j| {
            let nodes = j.nodes.iter().map(String::as_str).collect();
            (j.id, j.state.clone(), j.held, nodes, j.gpus_per_node)
        })
        .collect();
    assert_eq!(
        seen,
        [
            (1, JobState::Running, false, vec!["n1", "n2"], 2),
            (2, JobState::Pending, true, vec![], 0),
            (3, JobState::Running, false, vec!["n1"], 2),
            (4, JobState::Failed, false, vec!["n2"], 1),
            (5, JobState::Pending, true, vec![], 0),
            (6, JobState::Cancelled, false, vec!["n2"], 0),
        ]
    );
    assert!(by_id.iter().all(|j| j.partition == "main"));
    assert_eq!(by_id[3].exit_code, 3 << 8);
    // Job 2's comment is not mlsched's; job 1's id defaults to its Slurm id; job 6 was
    // cancelled with a reason; job 5's JSON is cut short.
    assert_eq!(MlschedComment::parse(2, &by_id[1].comment).unwrap(), None);
    let c1 = MlschedComment::parse(1, &by_id[0].comment)
        .unwrap()
        .unwrap();
    assert_eq!((c1.id(), c1.job["weight"].as_f64()), ("1", Some(5.0)));
    let c6 = MlschedComment::parse(6, &by_id[5].comment)
        .unwrap()
        .unwrap();
    assert_eq!(c6.id(), "c1");
    assert_eq!(c6.cancel_reason.as_deref(), Some("rejected by A_online"));
    let e = MlschedComment::parse(5, &by_id[4].comment).unwrap_err();
    assert!(
        matches!(&e, SlurmError::Comment { job_id: 5, field, .. } if field == "comment"),
        "{e}"
    );
}

#[test]
fn scontrol_show_job_lines() {
    let text = fixture("scontrol-show-job.txt");
    let lines: Vec<&str> = text.lines().collect();
    let client = Client::new((1..=6).fold(Recorded::new(), |r, id| {
        r.answer(&format!("scontrol show job -o {id}"), lines[id - 1])
    }));
    let j1 = client.show_job(1).unwrap();
    assert_eq!(j1.state, JobState::Running);
    assert_eq!(j1.nodes, ["n1", "n2"]);
    assert_eq!(j1.required_nodes, ["n1", "n2"]);
    assert_eq!((j1.node_count, j1.gpus_per_node), (2, 2));
    assert_eq!(j1.partition, "main");
    let j2 = client.show_job(2).unwrap();
    assert_eq!(
        (j2.state, j2.reason.as_str()),
        (JobState::Pending, "JobHeldUser")
    );
    assert!(j2.nodes.is_empty());
    let j4 = client.show_job(4).unwrap();
    assert_eq!(
        (j4.state, j4.nodes),
        (JobState::Failed, vec!["n2".to_string()])
    );
    assert_eq!(client.show_job(6).unwrap().state, JobState::Cancelled);
}

/// Later releases write states as arrays and exit codes as objects; TIMEOUT and NODE_FAIL are
/// not in the recorded run (hand-written from its layout).
#[test]
fn later_layouts_and_other_end_states() {
    let squeue = r#"{"errors": [], "jobs": [
        {"job_id": 7, "job_state": ["TIMEOUT"], "nodes": "n[3-4]", "node_count": 2,
         "tres_per_node": "gres/gpu=4", "exit_code": {"status": "SIGNALED"}},
        {"job_id": 8, "job_state": "NODE_FAIL", "nodes": "n4", "comment": "mlsched:{}"},
        {"job_id": 9, "job_state": ["PENDING", "REQUEUED"], "state_reason": "JobHeldAdmin"}]}"#;
    let sinfo = r#"{"nodes": [{"name": "a01", "state": ["MIXED", "DRAIN"], "gres": "gpu:h100:8(S:0-1)",
        "gres_used": "gpu:h100:3(IDX:0-2)", "cpus": 64, "real_memory": 512000, "partitions": ["gpu"]}]}"#;
    let client = Client::new(
        Recorded::new()
            .answer("squeue --json --states=all", squeue)
            .answer("sinfo --json", sinfo),
    );
    let jobs = client.jobs().unwrap();
    assert_eq!(jobs[0].state, JobState::Timeout);
    assert_eq!((jobs[0].nodes.len(), jobs[0].gpus_per_node), (2, 4));
    assert_eq!(jobs[1].state, JobState::NodeFail);
    assert!(jobs[0].state.is_end() && jobs[1].state.is_end());
    assert!(jobs[2].held);
    let node = &client.nodes().unwrap()[0];
    assert_eq!(
        (node.state.clone(), node.gpus, node.gpus_used),
        (NodeState::Draining, 8, 3)
    );
}

#[test]
fn odd_output_is_a_typed_error() {
    let cases = [
        ("{\"jobs\": [", "unexpected output of `squeue --json --states=all`"),
        ("{\"errors\": [{\"error\": \"boom\"}], \"jobs\": []}", "reported errors"),
        ("{\"jobs\": [{\"job_id\": -1, \"job_state\": \"RUNNING\"}]}", "unexpected output"),
        ("{\"jobs\": [{\"job_id\": 1, \"job_state\": \"RUNNING\", \"nodes\": \"n[1-\"}]}", "host list `n[1-`"),
        ("{\"jobs\": [{\"job_id\": 1, \"job_state\": \"RUNNING\", \"tres_per_node\": \"gpu:x\"}]}", "job 1: unreadable GRES"),
    ];
    for (out, expected) in cases {
        let client = Client::new(Recorded::new().answer("squeue --json --states=all", out));
        let e = client.jobs().unwrap_err();
        assert!(e.to_string().contains(expected), "{out}: {e}");
    }
    let client = Client::new(Recorded::new().fail("sinfo --json", 1, "slurm_load_node error"));
    let e = client.nodes().unwrap_err();
    assert!(
        matches!(&e, SlurmError::Exit { code: Some(1), stderr, .. } if stderr.contains("slurm_load_node")),
        "{e}"
    );
    let client = Client::new(Recorded::new());
    assert!(matches!(client.nodes(), Err(SlurmError::Spawn { .. })));
}

#[test]
fn actions_are_these_command_lines() {
    let jobs = client_with("sinfo-mixed.json", "squeue-mixed.json")
        .jobs()
        .unwrap();
    let job5_ok = {
        let mut j = jobs.iter().find(|j| j.id == 1).unwrap().clone();
        j.id = 11;
        j
    };
    let plain = jobs.iter().find(|j| j.id == 2).unwrap().clone();
    let bad_json = jobs.iter().find(|j| j.id == 5).unwrap().clone();
    let r = Recorded::new()
        .answer("scontrol update jobid=5 NodeList=n1,n3 NumNodes=2 TresPerNode=gres:gpu:4 StartTime=now", "")
        .answer("scontrol release 5", "")
        .answer("scontrol hold 6", "")
        .answer("scontrol requeuehold 7", "")
        .answer("scontrol update jobid=11 Comment=mlsched:{\"id\":\"11\",\"weight\":5} mlsched-cancel:no room", "")
        .answer("scancel 11", "")
        .answer("scontrol update jobid=2 Comment=mlsched-cancel:no room", "")
        .answer("scancel 2", "")
        .answer("scontrol update jobid=5 Comment=mlsched-cancel:bad comment", "")
        .answer("scancel 5", "")
        .answer("scontrol update nodename=n4 state=down reason=mlsched test", "")
        .answer("scontrol update nodename=n4 state=resume", "")
        .answer(
            "sbatch -H --parsable --partition=main --job-name=a --comment=mlsched:{} --output=/dev/null --wrap=sleep 1",
            "17\n",
        );
    let client = Client::new(r);
    client.start(5, &["n1".into(), "n3".into()], 4).unwrap();
    client.hold(6).unwrap();
    client.requeue_hold(7).unwrap();
    client.cancel(&job5_ok, "no room").unwrap();
    client.cancel(&plain, "no room").unwrap();
    client.cancel(&bad_json, "bad comment").unwrap();
    client.node_down("n4", "mlsched test").unwrap();
    client.node_resume("n4").unwrap();
    let held = HeldJob {
        partition: Some("main".into()),
        name: Some("a".into()),
        comment: "mlsched:{}".into(),
        wrap: "sleep 1".into(),
        output: None,
    };
    assert_eq!(client.submit_held(&held).unwrap(), 17);
    assert_eq!(client.runner().calls().len(), 13);
    assert!(matches!(
        client.start(5, &[], 1),
        Err(SlurmError::Request { .. })
    ));
}

#[test]
fn template_from_an_idle_cluster_and_its_check() {
    let client = client_with("sinfo-idle.json", "squeue-ended.json");
    let jobs = client.jobs().unwrap();
    assert_eq!(jobs.len(), 6);
    assert!(jobs.iter().all(|j| j.state.is_end() && !j.held), "{jobs:?}");
    let t = client.template(Kind::Online, Some("main")).unwrap();
    assert_eq!(t.server_ids, ["n1", "n2", "n3", "n4"]);
    let doc: serde_json::Value = serde_json::from_str(&t.json).unwrap();
    assert_eq!(doc["kind"], "online");
    assert_eq!(
        doc["resources"],
        serde_json::json!(["gpu", "cpu", "mem_mb"])
    );
    assert_eq!(
        doc["servers"],
        serde_json::json!(["n1", "n2", "n3", "n4"]
            .map(|n| serde_json::json!({"id": n, "capacity": [4, 8, 1000]})))
    );
    assert_eq!(
        doc["worker_types"][0]["demand"],
        serde_json::json!([1, 2, 250])
    );
    assert_eq!(doc["jobs"], serde_json::json!([]));
    client.check_template(&t.json, Some("main")).unwrap();

    // One GPU less on n3: refused naming n3.
    let mut bad = doc.clone();
    bad["servers"][2]["capacity"][0] = 3.into();
    let e = client
        .check_template(&bad.to_string(), Some("main"))
        .unwrap_err();
    assert!(
        matches!(&e, SlurmError::Mismatch { node, .. } if node == "n3"),
        "{e}"
    );
    // More CPUs than Slurm has on n2.
    let mut bad = doc.clone();
    bad["servers"][1]["capacity"][1] = 9.into();
    let e = client.check_template(&bad.to_string(), None).unwrap_err();
    assert!(
        e.to_string().contains("node n2") && e.to_string().contains("cpu"),
        "{e}"
    );
    // A server too few names the node without one; one too many names the server.
    let mut bad = doc.clone();
    bad["servers"].as_array_mut().unwrap().pop();
    let e = client.check_template(&bad.to_string(), None).unwrap_err();
    assert!(
        matches!(&e, SlurmError::Mismatch { node, .. } if node == "n4"),
        "{e}"
    );
    let mut bad = doc.clone();
    bad["servers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!([4, 8, 1000]));
    let e = client.check_template(&bad.to_string(), None).unwrap_err();
    assert!(e.to_string().contains("h4"), "{e}");
    // Servers in another order than the nodes: refused naming the node at the place.
    let mut bad = doc.clone();
    bad["servers"].as_array_mut().unwrap().swap(0, 1);
    let e = client.check_template(&bad.to_string(), None).unwrap_err();
    assert!(
        matches!(&e, SlurmError::Mismatch { node, .. } if node == "n1"),
        "{e}"
    );
    // Not a valid scenario; another kind; an unknown partition.
    let e = client
        .check_template("{\"kind\": \"online\"}", None)
        .unwrap_err();
    assert!(matches!(e, SlurmError::Template { .. }), "{e}");
    assert!(Kind::parse("oasis").is_err() && Kind::parse("route").is_err());
    let e = client.template(Kind::Online, Some("gpu")).unwrap_err();
    assert!(e.to_string().contains("partition gpu"), "{e}");
}
