//! Load generator of `docs/serve.md`, "Measured": the service in this process on a loopback
//! port, fsync on (the state directory is on the disk of `--state`), driven by keep-alive
//! clients: one OS thread per client, blocking, by default; with `--async` every client a task
//! of one single-threaded tokio runtime (256 clients then are one OS thread, not 256; measured
//! in `docs/serve.md`, it does not lower the tail on this machine).
//!
//! ```text
//! cargo run --release -p mlsched-serve --example load -- [--state DIR] [--seconds S]
//!     [--wal-events N] [--async] [--skip-throughput] [--skip-recovery]
//! ```
//! Prints, for 16 and 256 concurrent clients: events/s and p50/p99 acknowledgement latency at
//! saturation (every client sends as fast as it is answered) and at 1,000 events/s (the
//! clients share that rate, open loop), measured by the clients; beside them the service's own
//! view from `/metrics` (the bucket holding the p99 of its request time, of the fsyncs, and the
//! events per fsync), which tells the service's share from the clients'; then the recovery time of a cluster whose durable
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

fn flag(name: &str) -> bool {
    std::env::args().any(|x| x == name)
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

/// What one phase's clients saw.
struct Outcome {
    /// Acknowledgement latencies, ms.
    lat: Vec<f64>,
    errors: u64,
    secs: f64,
}

/// The event client `i` sends as its `n`-th (from 0): an arrival at slot 0 of job
/// `i + n * clients` (every job arrives at 0, so concurrent clients never race on time and
/// every event is applied).
fn event_body(i: usize, n: usize, clients: usize) -> String {
    format!(
        r#"{{"at": 0, "event": "arrive", "job": "j{}"}}"#,
        i + n * clients
    )
}

/// Events client `i` may send before the scenario's jobs run out.
fn budget(i: usize, clients: usize, jobs: usize) -> usize {
    jobs.saturating_sub(i).div_ceil(clients)
}

/// `clients` OS threads, blocking, send events to cluster `tag` for `secs` seconds, each at
/// `rate / clients` events/s if a rate is given (open loop), else as fast as answered.
fn phase_threads(
    addr: std::net::SocketAddr,
    tag: &str,
    clients: usize,
    jobs: usize,
    secs: f64,
    rate: Option<f64>,
) -> Outcome {
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
                for n in 0..budget(i, clients, jobs) {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if let Some(iv) = interval {
                        let due = start + offset + iv * n as u32;
                        let now = Instant::now();
                        if due > now {
                            std::thread::sleep(due - now);
                        }
                    }
                    let ev = event_body(i, n, clients);
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
    let lat = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap_or_default())
        .collect();
    Outcome {
        lat,
        errors: errors.load(Ordering::Relaxed),
        secs: start.elapsed().as_secs_f64(),
    }
}

/// One request on a kept-alive connection; the answer's status (its body is read and dropped).
async fn exchange(
    s: &mut tokio::io::BufReader<tokio::net::TcpStream>,
    req: &[u8],
) -> std::io::Result<u16> {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
    s.get_mut().write_all(req).await?;
    let mut line = String::new();
    if s.read_line(&mut line).await? == 0 {
        return Err(bad("connection closed"));
    }
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|x| x.parse().ok())
        .ok_or_else(|| bad("bad status line"))?;
    let mut len = 0usize;
    loop {
        line.clear();
        if s.read_line(&mut line).await? == 0 {
            return Err(bad("connection closed"));
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().map_err(|_| bad("bad content-length"))?;
            }
        }
    }
    let mut body = vec![0; len];
    s.read_exact(&mut body).await?;
    Ok(status)
}

/// One async client of [`phase_async`]: its events until `end`, on one connection.
async fn async_client(
    addr: std::net::SocketAddr,
    path: String,
    (i, clients, jobs): (usize, usize, usize),
    rate: Option<f64>,
    (start, end): (tokio::time::Instant, tokio::time::Instant),
) -> (Vec<f64>, u64) {
    let (mut lat, mut errors) = (Vec::new(), 0);
    let Ok(sock) = tokio::net::TcpStream::connect(addr).await else {
        return (lat, 1);
    };
    let _ = sock.set_nodelay(true);
    let mut s = tokio::io::BufReader::new(sock);
    let interval = rate.map(|r| Duration::from_secs_f64(clients as f64 / r));
    let offset = interval.map_or(Duration::ZERO, |iv| iv.mul_f64(i as f64 / clients as f64));
    for n in 0..budget(i, clients, jobs) {
        if let Some(iv) = interval {
            let due = start + offset + iv * n as u32;
            if due >= end {
                break;
            }
            tokio::time::sleep_until(due).await;
        } else if tokio::time::Instant::now() >= end {
            break;
        }
        let body = event_body(i, n, clients);
        let req = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let t = Instant::now();
        match exchange(&mut s, req.as_bytes()).await {
            Ok(200) => lat.push(t.elapsed().as_secs_f64() * 1e3),
            Ok(_) => errors += 1,
            Err(_) => {
                errors += 1;
                break;
            }
        }
    }
    (lat, errors)
}

/// [`phase_threads`] with every client a task of one single-threaded tokio runtime on this
/// thread: the clients cost one OS thread, not `clients`.
fn phase_async(
    addr: std::net::SocketAddr,
    tag: &str,
    clients: usize,
    jobs: usize,
    secs: f64,
    rate: Option<f64>,
) -> Outcome {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let path = format!("/v1/clusters/{tag}/events");
    rt.block_on(async move {
        let start = tokio::time::Instant::now();
        let end = start + Duration::from_secs_f64(secs);
        let tasks: Vec<_> = (0..clients)
            .map(|i| {
                let who = (i, clients, jobs);
                tokio::spawn(async_client(addr, path.clone(), who, rate, (start, end)))
            })
            .collect();
        let (mut lat, mut errors) = (Vec::new(), 0);
        for t in tasks {
            let (l, e) = t.await.unwrap_or_default();
            lat.extend(l);
            errors += e;
        }
        Outcome {
            lat,
            errors,
            secs: start.elapsed().as_secs_f64(),
        }
    })
}

/// The cumulative counts of a histogram's buckets in a `/metrics` text: (bound, count) for
/// every line starting with `prefix` (which ends just before `le=`).
fn buckets(metrics: &str, prefix: &str) -> Vec<(f64, f64)> {
    metrics
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|l| {
            let (le, count) = l.strip_prefix("le=\"")?.split_once("\"} ")?;
            let bound = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().ok()?
            };
            Some((bound, count.trim().parse().ok()?))
        })
        .collect()
}

/// The bound (ms) of the bucket holding the p99 of what a histogram counted between two
/// `/metrics` texts: the service's own view of the phase.
fn p99_bucket(before: &str, after: &str, prefix: &str) -> String {
    let (b, a) = (buckets(before, prefix), buckets(after, prefix));
    let delta: Vec<(f64, f64)> = a
        .iter()
        .map(|&(le, n)| {
            let was = b.iter().find(|x| x.0 == le).map_or(0.0, |x| x.1);
            (le, n - was)
        })
        .collect();
    let total = delta.last().map_or(0.0, |x| x.1);
    match delta.iter().find(|x| x.1 >= 0.99 * total) {
        Some(&(le, _)) if total > 0.0 && le.is_finite() => {
            format!("<= {}", (le * 1e5).round() / 100.0)
        }
        Some(_) if total > 0.0 => "> 10000".into(),
        _ => "-".into(),
    }
}

const EVENTS_ROUTE: &str =
    "mlsched_serve_request_duration_seconds_bucket{route=\"/v1/clusters/{name}/events\",";
const FSYNC: &str = "mlsched_serve_fsync_duration_seconds_bucket{";

fn throughput(state: &std::path::Path, secs: f64, blocking: bool) {
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
    let how = if blocking {
        "one OS thread per client"
    } else {
        "async clients on one thread"
    };
    println!("clients: {how}; service: 2 tokio workers + 1 writer thread per cluster");
    println!(
        "| clients | load | events/s | p50 ms | p99 ms | errors | service p99 ms | fsync p99 ms | events per fsync |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for clients in [16usize, 256] {
        for (label, rate) in [("1,000 events/s", Some(1000.0)), ("saturation", None)] {
            let tag = format!("c{clients}-{}", if rate.is_some() { "r" } else { "s" });
            let r = c
                .put(&format!("/v1/clusters/{tag}?policy=fifo"), &text)
                .unwrap();
            assert_eq!(r.status, 201, "{}", r.text());
            let before = c.get("/metrics").unwrap().text();
            let mut o = if blocking {
                phase_threads(s.addr, &tag, clients, jobs, secs, rate)
            } else {
                phase_async(s.addr, &tag, clients, jobs, secs, rate)
            };
            let m = c.get("/metrics").unwrap().text();
            let read = |text: &str, name: &str| -> f64 {
                text.lines()
                    .find_map(|l| l.strip_prefix(name))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0.0)
            };
            let (sum, count) = (
                "mlsched_serve_commit_batch_events_sum ",
                "mlsched_serve_commit_batch_events_count ",
            );
            let per = (read(&m, sum) - read(&before, sum))
                / (read(&m, count) - read(&before, count)).max(1.0);
            o.lat.sort_by(|a, b| a.total_cmp(b));
            let eps = o.lat.len() as f64 / o.secs;
            let (p50, p99) = (percentile(&o.lat, 0.5), percentile(&o.lat, 0.99));
            let service = p99_bucket(&before, &m, EVENTS_ROUTE);
            let fsync = p99_bucket(&before, &m, FSYNC);
            println!(
                "| {clients} | {label} | {eps:.0} | {p50:.2} | {p99:.2} | {} | {service} | {fsync} | {per:.1} |",
                o.errors
            );
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
    if !flag("--skip-throughput") {
        throughput(&state, secs, !flag("--async"));
    }
    if !flag("--skip-recovery") {
        recovery(&state, n);
    }
    let _ = std::fs::remove_dir_all(&state);
}
