//! Load generator of `docs/serve.md`, "Measured": the service in this process on a loopback
//! port, fsync on (the state directory is on the disk of `--state`), driven by blocking
//! keep-alive clients.
//!
//! ```text
//! cargo run --release -p mlsched-serve --example load -- [--state DIR] [--seconds S] [--wal-events N]
//! ```
//! Prints, for 16 and 256 concurrent clients: events/s and p50/p99 acknowledgement latency at
//! saturation (every client sends as fast as it is answered) and at 1,000 events/s (the
//! clients share that rate, open loop); then the recovery time of a cluster whose durable
//! state is N events (default 1,000,000): a snapshot of all but the last 50,000 and a WAL
//! segment of those, written with the service's own encoders. Bounded: S seconds per phase
//! (default 5), loopback only.
use mlsched_serve::client::Client;
use mlsched_serve::store::FsStore;
use mlsched_serve::wal::{self, Entry, Snapshot, Stored};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn arg(name: &str) -> Option<String> {
    let a: Vec<String> = std::env::args().collect();
    a.iter()
        .position(|x| x == name)
        .and_then(|i| a.get(i + 1).cloned())
}

/// An online scenario of `jobs` small jobs (the crash test's shape).
fn scenario(jobs: usize, slots: u32) -> String {
    let js: Vec<String> = (0..jobs)
        .map(|j| {
            format!(
                r#"{{"id": "j{j}", "arrival": 0, "weight": {}, "epochs": 2, "chunks": 2, "minibatches_per_chunk": 4, "minibatch_time": [0.01, 0.006], "update_time": [0.001], "gradient_size": 0.002}}"#,
                500 + (j * 37) % 900
            )
        })
        .collect();
    format!(
        r#"{{"kind": "online", "slots": {slots}, "architecture": "ps", "resources": ["gpu", "cpu", "bw_gbps"],
 "servers": [[8, 64, 25], [4, 32, 10], [4, 32, 10], [8, 64, 25]],
 "worker_types": [{{"demand": [1, 4, 1], "bw": 1.0}}, {{"demand": [2, 8, 2], "bw": 2.0}}],
 "ps_types": [{{"demand": [0, 4, 5], "bw": 5.0}}], "F": 4.0, "alpha": 2, "jobs": [{}]}}"#,
        js.join(",")
    )
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// `clients` threads send events to one cluster `tag` for `secs` seconds, each at `rate /
/// clients` events/s if a rate is given: client `i` arrives jobs `i`, `i + clients`, ... at slot 0
/// (all jobs arrive at 0, so concurrent clients never race on time and every event is applied).
/// Returns (events/s, p50 ms, p99 ms, errors).
fn phase(
    addr: std::net::SocketAddr,
    tag: &str,
    clients: usize,
    jobs: usize,
    secs: f64,
    rate: Option<f64>,
) -> (f64, f64, f64, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let errors = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|i| {
            let (stop, errors) = (stop.clone(), errors.clone());
            let path = format!("/v1/clusters/{tag}/events");
            std::thread::spawn(move || {
                let mut c = Client::new(addr, None);
                let mut lat = Vec::new();
                let interval = rate.map(|r| Duration::from_secs_f64(clients as f64 / r));
                let offset =
                    interval.map_or(Duration::ZERO, |iv| iv.mul_f64(i as f64 / clients as f64));
                let mut n = 0u32;
                let mut job = i;
                while !stop.load(Ordering::Relaxed) && job < jobs {
                    if let Some(iv) = interval {
                        let due = start + offset + iv * n;
                        let now = Instant::now();
                        if due > now {
                            std::thread::sleep(due - now);
                        }
                    }
                    n += 1;
                    let ev = format!(r#"{{"at": 0, "event": "arrive", "job": "j{job}"}}"#);
                    job += clients;
                    let t = Instant::now();
                    match c.post(&path, &ev) {
                        Ok(r) if r.status == 200 => lat.push(t.elapsed().as_secs_f64() * 1e3),
                        _ => {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                lat
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(secs));
    stop.store(true, Ordering::Relaxed);
    let mut all: Vec<f64> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap_or_default())
        .collect();
    let took = start.elapsed().as_secs_f64();
    all.sort_by(|a, b| a.total_cmp(b));
    (
        all.len() as f64 / took,
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        errors.load(Ordering::Relaxed),
    )
}

fn throughput(state: &std::path::Path, secs: f64) {
    let args = mlsched_serve::Args {
        listen: "127.0.0.1:0".parse().unwrap(),
        state: state.join("load"),
        token_file: None,
        snapshot_every: 100_000,
        max_event_bytes: 65536,
        max_scenario_bytes: 1 << 26,
    };
    let s = mlsched_serve::start(&args, Arc::new(FsStore)).expect("service starts");
    let mut c = Client::new(s.addr, None);
    let jobs = 150_000;
    let text = scenario(jobs, 100);
    println!("| clients | load | events/s | p50 ms | p99 ms | errors | events per fsync |");
    println!("|---|---|---|---|---|---|---|");
    let mut batches = (0.0, 0.0);
    for clients in [16usize, 256] {
        for (label, rate) in [("1,000 events/s", Some(1000.0)), ("saturation", None)] {
            let tag = format!("c{clients}-{}", if rate.is_some() { "r" } else { "s" });
            let r = c
                .put(&format!("/v1/clusters/{tag}?policy=fifo"), &text)
                .unwrap();
            assert_eq!(r.status, 201, "{}", r.text());
            let (eps, p50, p99, err) = phase(s.addr, &tag, clients, jobs, secs, rate);
            let m = c.get("/metrics").unwrap().text();
            let read = |name: &str| -> f64 {
                m.lines()
                    .find_map(|l| l.strip_prefix(name))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0.0)
            };
            let (sum, count) = (
                read("mlsched_serve_commit_batch_events_sum "),
                read("mlsched_serve_commit_batch_events_count "),
            );
            let per = (sum - batches.0) / (count - batches.1).max(1.0);
            batches = (sum, count);
            println!("| {clients} | {label} | {eps:.0} | {p50:.2} | {p99:.2} | {err} | {per:.1} |");
        }
    }
    s.stop();
}

/// Writes one cluster `name` holding `n` durable events (a snapshot of all but the last
/// 50,000, a WAL segment of those); returns the bytes written.
fn write_cluster(root: &std::path::Path, name: &str, n: u64) -> u64 {
    let dir = root.join("clusters").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let jobs = 250usize;
    std::fs::write(dir.join("scenario.json"), scenario(jobs, n as u32 + 10)).unwrap();
    let meta = format!(r#"{{"name":"{name}","policy":"fifo","all_categories":false}}"#);
    std::fs::write(dir.join("meta.json"), meta).unwrap();
    // Every 1,000th event (while jobs last) an arrival, the others advance one slot each.
    let event = |i: u64| -> Stored {
        let at = i as u32 + 1;
        match i / 1000 {
            j if i % 1000 == 0 && (j as usize) < jobs => Stored::Arrive(at, j as u32),
            _ => Stored::Advance(at),
        }
    };
    let tail = 50_000.min(n);
    let snap = Snapshot {
        seq: n - tail,
        finished: false,
        events: (0..n - tail).map(event).collect(),
    };
    let snap_bytes = wal::encode_snapshot(&snap);
    std::fs::write(dir.join("snapshot.bin"), &snap_bytes).unwrap();
    let mut seg = Vec::new();
    for i in n - tail..n {
        let json = match event(i) {
            Stored::Arrive(at, j) => format!(r#"{{"at":{at},"event":"arrive","job":"j{j}"}}"#),
            Stored::Advance(at) => format!(r#"{{"at":{at},"event":"advance"}}"#),
            _ => unreachable!(),
        };
        seg.extend(wal::encode(&Entry::Event { seq: i + 1, json }));
    }
    std::fs::write(dir.join(wal::segment_name(n - tail + 1)), &seg).unwrap();
    (snap_bytes.len() + seg.len()) as u64
}

/// Writes clusters holding `n` durable events in all (at most 250,000 each: a cluster's slots
/// are bounded by the kernel's SLOTS_MAX = 262,144, and today's events are one `advance` per
/// slot plus per-job arrivals) and times the service's start, which recovers them all.
fn recovery(state: &std::path::Path, n: u64) {
    let root = state.join("recover");
    let _ = std::fs::remove_dir_all(&root);
    let per = 250_000u64;
    let count = n.div_ceil(per);
    let mut bytes = 0;
    for k in 0..count {
        bytes += write_cluster(&root, &format!("big{k}"), per.min(n - k * per));
    }
    let args = mlsched_serve::Args {
        listen: "127.0.0.1:0".parse().unwrap(),
        state: root.clone(),
        token_file: None,
        snapshot_every: 100_000,
        max_event_bytes: 65536,
        max_scenario_bytes: 1 << 26,
    };
    let t = Instant::now();
    let s = mlsched_serve::start(&args, Arc::new(FsStore)).expect("service starts");
    let took = t.elapsed().as_secs_f64();
    let mut c = Client::new(s.addr, None);
    let mut total = 0;
    for k in 0..count {
        let info = c.get(&format!("/v1/clusters/big{k}")).unwrap().json();
        total += info["seq"].as_u64().unwrap_or(0);
    }
    assert_eq!(total, n, "every event recovered");
    println!(
        "recovery of {n} events in {count} clusters (snapshots + WAL tails, {:.1} MB): {took:.2} s",
        bytes as f64 / 1e6
    );
    s.stop();
}

fn main() {
    let state =
        std::path::PathBuf::from(arg("--state").unwrap_or_else(|| "target/serve-load".into()));
    let secs: f64 = arg("--seconds").and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let n: u64 = arg("--wal-events")
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).unwrap();
    if arg("--skip-throughput").is_none() {
        throughput(&state, secs);
    }
    recovery(&state, n);
    let _ = std::fs::remove_dir_all(&state);
}
