//! End to end against a real Slurm cluster: 4 nodes x 4 GPUs started by
//! `scripts/slurm-cluster.sh` in a temporary directory (and stopped by a guard, whatever
//! happens). Held jobs with `mlsched:` comments are read back, started on the nodes set
//! (checked with `scontrol show job`), one is cancelled with a reason, a node goes down and
//! comes back. Skipped, saying so, where Slurm is not installed or the test is not root.
use mlsched_slurm::{
    Client, HeldJob, JobState, Kind, MlschedComment, NodeState, SlurmError, SystemRunner,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Every wait of the test is bounded by this (the whole test takes about 15 s).
const WAIT: Duration = Duration::from_secs(40);

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/slurm-cluster.sh")
}

/// Why the test cannot run here, if it cannot.
fn skip_reason() -> Option<String> {
    let installed = ["/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch"]
        .iter()
        .all(|p| Path::new(p).exists());
    if !installed {
        return Some(
            "slurmctld/slurmd/sbatch not installed (scripts/setup.sh installs slurm-wlm and munge)"
                .into(),
        );
    }
    let uid = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some("not root (slurmd runs the jobs as their users)".into());
    }
    None
}

/// Stops the cluster of its directory when dropped (test passed, failed or panicked), then
/// removes the directory.
struct Cluster {
    dir: PathBuf,
}

impl Cluster {
    fn start(nodes: u32, gpus: u32) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "mlsched-slurm-test-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&dir).unwrap();
        // The guard exists before the daemons: a start that fails half-way is stopped too.
        let cluster = Cluster { dir };
        let out = Command::new("bash")
            .arg(script())
            .args(["start", &nodes.to_string(), &gpus.to_string()])
            .arg(&cluster.dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "slurm-cluster.sh start failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        cluster
    }

    fn client(&self) -> Client<SystemRunner> {
        Client::new(SystemRunner::with_conf(self.dir.join("slurm.conf")))
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let out = Command::new("bash")
            .arg(script())
            .arg("stop")
            .arg(&self.dir)
            .output();
        match out {
            Ok(o) if o.status.success() => {
                let _ = std::fs::remove_dir_all(&self.dir);
            }
            Ok(o) => eprintln!(
                "slurm-cluster.sh stop failed (logs kept in {}): {}",
                self.dir.display(),
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => eprintln!("cannot run slurm-cluster.sh stop: {e}"),
        }
    }
}

/// Polls `f` until it returns `Some`, at most [`WAIT`].
fn wait_for<T>(what: &str, mut f: impl FnMut() -> Result<Option<T>, SlurmError>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f().unwrap_or_else(|e| panic!("{what}: {e}")) {
            return v;
        }
        assert!(start.elapsed() < WAIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The pids in the cluster's pid files (slurmctld and every slurmd).
fn daemon_pids(dir: &Path) -> Vec<u32> {
    let mut pids: Vec<u32> = std::fs::read_dir(dir.join("run"))
        .unwrap()
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?.to_string();
            let daemon = name.starts_with("slurmctld") || name.starts_with("slurmd-");
            daemon.then(|| std::fs::read_to_string(&path).ok()?.trim().parse().ok())?
        })
        .collect();
    pids.sort_unstable();
    pids
}

/// Process `pid` exists and is not a zombie.
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit(") ").next().map(|r| !r.starts_with('Z')))
        .unwrap_or(false)
}

fn held(client: &Client<SystemRunner>, comment: &str) -> u64 {
    client
        .submit_held(&HeldJob {
            partition: Some("main".into()),
            comment: comment.into(),
            wrap: "sleep 2".into(),
            ..HeldJob::default()
        })
        .unwrap()
}

#[test]
fn real_cluster_held_jobs_start_where_set_and_nodes_go_down_and_back() {
    if let Some(why) = skip_reason() {
        println!("SKIPPED real_cluster test: {why}");
        return;
    }
    let started = Instant::now();
    let cluster = Cluster::start(4, 4);
    let client = cluster.client();

    // The cluster as Slurm reports it, and the template written from it.
    let nodes = client.nodes().unwrap();
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["n1", "n2", "n3", "n4"]);
    assert!(nodes
        .iter()
        .all(|n| n.state == NodeState::Idle && n.gpus == 4));
    let template = client.template(Kind::Online, Some("main")).unwrap();
    assert_eq!(template.server_ids, names);
    client.check_template(&template.json, Some("main")).unwrap();

    // Held jobs: three of mlsched's, one not.
    let a = held(&client, r#"mlsched:{"id": "a", "weight": 5}"#);
    let b = held(&client, r#"mlsched:{"weight": 2}"#);
    let c = held(&client, r#"mlsched:{"id": "c"}"#);
    let plain = held(&client, "not for mlsched");
    let jobs = client.jobs().unwrap();
    let job = |id: u64| jobs.iter().find(|j| j.id == id).unwrap().clone();
    for id in [a, b, c, plain] {
        assert!(job(id).held, "job {id} not held: {:?}", job(id));
    }
    let comment = |id: u64| MlschedComment::parse(id, &job(id).comment).unwrap();
    assert_eq!(comment(a).unwrap().id(), "a");
    assert_eq!(comment(b).unwrap().id(), b.to_string());
    assert_eq!(comment(plain), None);

    // Start a on n1+n2 (2 GPUs each) and b on n3 (4 GPUs); cancel c with a reason.
    let on = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let t = Instant::now();
    client.start(a, &on(&["n1", "n2"]), 2).unwrap();
    let start_took = t.elapsed();
    client.start(b, &on(&["n3"]), 4).unwrap();
    let t = Instant::now();
    client.jobs().unwrap();
    println!(
        "slurm: start (scontrol update + release) {start_took:?}, squeue --json {:?}",
        t.elapsed()
    );
    client.cancel(&job(c), "rejected by the test").unwrap();
    for (id, want, gpus) in [(a, on(&["n1", "n2"]), 2), (b, on(&["n3"]), 4)] {
        let shown = wait_for(&format!("job {id} to run"), || {
            let j = client.show_job(id)?;
            Ok((j.state != JobState::Pending).then_some(j))
        });
        assert_eq!(shown.nodes, want, "job {id}: {shown:?}");
        assert_eq!(shown.required_nodes, want, "job {id}");
        assert_eq!(shown.gpus_per_node, gpus, "job {id}");
    }
    for id in [a, b] {
        wait_for(&format!("job {id} to complete"), || {
            Ok((client.show_job(id)?.state == JobState::Completed).then_some(()))
        });
    }
    let jobs = client.jobs().unwrap();
    let cj = jobs.iter().find(|j| j.id == c).unwrap();
    assert_eq!(cj.state, JobState::Cancelled);
    let cc = MlschedComment::parse(c, &cj.comment).unwrap().unwrap();
    assert_eq!(
        (cc.id(), cc.cancel_reason.as_deref()),
        ("c", Some("rejected by the test"))
    );
    let pj = jobs.iter().find(|j| j.id == plain).unwrap();
    assert!(pj.held, "the job without mlsched: is left alone");

    // A node down and back.
    client.node_down("n4", "mlsched test").unwrap();
    let n4 = wait_for("n4 down", || {
        let n = client.nodes()?.into_iter().find(|n| n.name == "n4");
        Ok(n.filter(|n| n.state == NodeState::Down))
    });
    assert!(n4.state.is_out());
    assert_eq!(n4.reason, "mlsched test");
    client.node_resume("n4").unwrap();
    wait_for("n4 idle again", || {
        let n = client.nodes()?.into_iter().find(|n| n.name == "n4");
        Ok(n.filter(|n| n.state == NodeState::Idle))
    });
    // Every daemon the script started ends with the guard (a zombie waiting for its reaper
    // is not running).
    let pids = daemon_pids(&cluster.dir);
    assert_eq!(pids.len(), 5, "slurmctld and 4 slurmd: {pids:?}");
    drop(cluster);
    for pid in pids {
        assert!(!running(pid), "daemon {pid} still running after stop");
    }
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "took {:?}",
        started.elapsed()
    );
}
