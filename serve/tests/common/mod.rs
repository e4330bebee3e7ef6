//! Helpers of the service's tests: the binary started and killed, scenarios, clients.
#![allow(dead_code)]
use mlsched_serve::client::Client;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh directory under the target's tmp dir.
pub fn tmp_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The service binary, started on a free loopback port.
pub struct Proc {
    pub child: Child,
    pub addr: SocketAddr,
    pub stderr: PathBuf,
}

impl Proc {
    pub fn start(state: &Path, extra: &[&str]) -> Proc {
        Self::try_start(state, "127.0.0.1:0", extra).expect("service starts")
    }

    pub fn try_start(state: &Path, listen: &str, extra: &[&str]) -> Result<Proc, String> {
        let stderr = state.with_extension("stderr");
        let err = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&stderr)
            .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_mlsched-serve"))
            .args(["--listen", listen, "--state"])
            .arg(state)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(err)
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let mut line = String::new();
        let _ = BufReader::new(out).read_line(&mut line);
        let Some(addr) = line
            .strip_prefix("listening on ")
            .and_then(|l| l.split(' ').next())
        else {
            let _ = child.wait();
            return Err(std::fs::read_to_string(&stderr).unwrap_or_default());
        };
        Ok(Proc {
            addr: addr.parse().unwrap(),
            child,
            stderr,
        })
    }

    pub fn client(&self) -> Client {
        Client::new(self.addr, None)
    }

    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn stderr_text(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An online (A_online, PS) scenario of `jobs` small jobs, arrival `j / 4`.
pub fn online_scenario(jobs: usize, slots: u32) -> String {
    let mut js = Vec::new();
    for j in 0..jobs {
        js.push(format!(
            r#"{{"id": "j{j}", "arrival": {}, "weight": {}, "epochs": 2, "chunks": 2, "minibatches_per_chunk": 4, "minibatch_time": [0.01, 0.006], "update_time": [0.001], "gradient_size": 0.002}}"#,
            j / 4,
            500 + (j * 37) % 900
        ));
    }
    format!(
        r#"{{"kind": "online", "slots": {slots}, "architecture": "ps", "resources": ["gpu", "cpu", "bw_gbps"],
 "servers": [[8, 64, 25], [4, 32, 10], [4, 32, 10], [8, 64, 25]],
 "worker_types": [{{"demand": [1, 4, 1], "bw": 1.0}}, {{"demand": [2, 8, 2], "bw": 2.0}}],
 "ps_types": [{{"demand": [0, 4, 5], "bw": 5.0}}], "F": 4.0, "alpha": 2,
 "jobs": [{}]}}"#,
        js.join(",\n  ")
    )
}

/// Waits until `f` is true or `limit` passes.
pub fn wait_for(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Every history entry of a cluster (`GET .../decisions?after=`, page by page).
pub fn history(c: &mut Client, name: &str) -> Vec<serde_json::Value> {
    let mut all = Vec::new();
    loop {
        let r = c
            .get(&format!(
                "/v1/clusters/{name}/decisions?after={}",
                all.len()
            ))
            .unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        let items = v["decisions"].as_array().unwrap().clone();
        let more = v["more"].as_bool().unwrap();
        all.extend(items);
        if !more {
            return all;
        }
    }
}
