//! The crash test: four clients send events to one cluster while the service is killed with
//! SIGKILL at random (seeded) moments, 22 times. After every restart each acknowledged event
//! is in the history at its seq, and the decision log replays identically; at the end the
//! finished run's `log_hash` equals an offline run of the durable events through the engine.
mod common;
use common::*;
use mlsched_scenario::engine::Engine;
use mlsched_scenario::event::{self, Feeder};
use mlsched_scenario::replay;
use mlsched_scenario::run::RunOptions;
use mlsched_serve::client::Client;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const KILLS: usize = 22;
const CLIENTS: usize = 4;
const JOBS: usize = 1000;

/// xorshift64*: a seeded stream for the kill moments and the clients' choices.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Shared {
    /// (generation, address) of the running service.
    addr: Mutex<(u64, Option<SocketAddr>)>,
    stop: AtomicBool,
    clock: AtomicU32,
    acked: Mutex<Vec<(u64, String)>>,
    unknown: AtomicU64,
    refused: AtomicU64,
}

/// One client: arrives its jobs in order, now and then reports one finished or advances time.
fn client(id: usize, sh: Arc<Shared>, seed: u64) {
    let mut rng = Rng(seed);
    let mut conn: Option<(u64, Client)> = None;
    let mut next_job = id;
    let mut arrived: Vec<usize> = Vec::new();
    while !sh.stop.load(Ordering::SeqCst) {
        let (generation, addr) = *sh.addr.lock().unwrap();
        let Some(addr) = addr else {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        };
        if conn.as_ref().map(|c| c.0) != Some(generation) {
            conn = Some((
                generation,
                Client::new(addr, None).timeout(Duration::from_secs(5)),
            ));
        }
        let c = &mut conn.as_mut().unwrap().1;
        let now = sh.clock.load(Ordering::SeqCst);
        let roll = rng.below(10);
        let ev = if roll < 2 && !arrived.is_empty() {
            let j = arrived.swap_remove(rng.below(arrived.len() as u64) as usize);
            format!(r#"{{"at": {now}, "event": "finished", "job": "j{j}"}}"#)
        } else if roll < 4 || next_job >= JOBS {
            let t = now + 1 + rng.below(2) as u32;
            sh.clock.fetch_max(t, Ordering::SeqCst);
            format!(r#"{{"at": {t}, "event": "advance"}}"#)
        } else {
            let at = now.max((next_job / 4) as u32);
            sh.clock.fetch_max(at, Ordering::SeqCst);
            format!(r#"{{"at": {at}, "event": "arrive", "job": "j{next_job}"}}"#)
        };
        match c.post("/v1/clusters/c/events", &ev) {
            Ok(r) if r.status == 200 => {
                let seq = r.json()["seq"].as_u64().unwrap();
                let parsed = event::parse(&ev).unwrap().to_json();
                sh.acked.lock().unwrap().push((seq, parsed));
                if ev.contains("arrive") {
                    arrived.push(next_job);
                    next_job += CLIENTS;
                }
            }
            Ok(r) => {
                assert_eq!(r.status, 400, "{ev}: {}", r.text());
                sh.refused.fetch_add(1, Ordering::SeqCst);
                // Time went on under us, or the job arrived in a request whose answer was lost.
                let msg = r.text();
                if msg.contains("already arrived") {
                    next_job += CLIENTS;
                }
            }
            Err(_) => {
                sh.unknown.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

fn check_durable(c: &mut Client, sh: &Shared) -> Vec<serde_json::Value> {
    // Acknowledged before the history is read: every one of them must be in it.
    let acked = sh.acked.lock().unwrap().clone();
    let h = history(c, "c");
    for (i, item) in h.iter().enumerate() {
        assert_eq!(item["seq"], i as u64 + 1, "history out of order");
    }
    for (seq, ev) in &acked {
        let item = &h[*seq as usize - 1];
        assert_eq!(
            item["event"].to_string(),
            *ev,
            "acknowledged seq {seq} differs"
        );
    }
    let log = c.get("/v1/clusters/c/log").unwrap();
    assert_eq!(log.status, 200);
    replay::replay(&log.body).unwrap_or_else(|e| panic!("replay: {e}"));
    h
}

#[test]
fn acknowledged_events_survive_sigkill() {
    let state = tmp_dir("crash");
    let scenario = online_scenario(JOBS, 20_000);
    let first = Proc::start(&state, &["--snapshot-every", "500"]);
    assert_eq!(
        first
            .client()
            .put("/v1/clusters/c?policy=fifo", &scenario)
            .unwrap()
            .status,
        201
    );
    let sh = Arc::new(Shared {
        addr: Mutex::new((0, Some(first.addr))),
        stop: AtomicBool::new(false),
        clock: AtomicU32::new(0),
        acked: Mutex::new(Vec::new()),
        unknown: AtomicU64::new(0),
        refused: AtomicU64::new(0),
    });
    let clients: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let s = sh.clone();
            std::thread::spawn(move || client(i, s, 0x5eed + i as u64 * 7919))
        })
        .collect();
    let mut rng = Rng(0xc0ffee);
    let mut p = first;
    for k in 0..KILLS {
        std::thread::sleep(Duration::from_millis(60 + rng.below(240)));
        p.kill();
        sh.addr.lock().unwrap().1 = None;
        p = Proc::start(&state, &["--snapshot-every", "500"]);
        *sh.addr.lock().unwrap() = (k as u64 + 1, Some(p.addr));
        check_durable(&mut p.client(), &sh);
    }
    std::thread::sleep(Duration::from_millis(200));
    sh.stop.store(true, Ordering::SeqCst);
    for c in clients {
        c.join().unwrap();
    }
    let mut c = p.client();
    let h = check_durable(&mut c, &sh);
    let acked = sh.acked.lock().unwrap().len();
    let fin = c.post("/v1/clusters/c/finish", "").unwrap();
    assert_eq!(fin.status, 200, "{}", fin.text());
    let served = fin.json()["log_hash"].as_str().unwrap().to_string();

    // Offline: the durable events through the engine, then finish.
    let fifo = RunOptions {
        policy: Some("fifo".into()),
        ..RunOptions::default()
    };
    let mut e = Engine::new(&scenario, &fifo).unwrap();
    let f = Feeder::new(&e);
    for item in &h {
        let ev = event::from_value(&item["event"]).unwrap();
        f.apply(&mut e, &ev, None).unwrap();
    }
    let offline = e.finish(&mut |_| {}).unwrap();
    assert_eq!(offline.log_hash(), served);
    let m = c.get("/metrics").unwrap().text();
    eprintln!(
        "{KILLS} kills: {} events durable, {acked} acknowledged, {} unknown outcomes, {} refused; snapshots: {}",
        h.len(),
        sh.unknown.load(Ordering::SeqCst),
        sh.refused.load(Ordering::SeqCst),
        m.lines().find(|l| l.starts_with("mlsched_serve_snapshots_total")).unwrap_or("")
    );
    assert!(
        acked >= KILLS * 10,
        "too few events to mean anything: {acked}"
    );
    assert!(
        h.len() - acked <= KILLS * CLIENTS,
        "more unacknowledged durable events than requests in flight"
    );
}
