//! The crash test: four clients send events of every kind (arrive, finished, advance, submit,
//! cancel, server_down, server_up, capacity; a few bad ones, which must be refused) to one
//! cluster while the service is killed with SIGKILL at random (seeded) moments, 22 times. After every restart each acknowledged event
//! is in the history at its seq, and the decision log replays identically; at the end the
//! finished run's `log_hash` equals an offline run of the durable events through the engine.
mod common;
use common::*;
use mlsched_scenario::engine::Engine;
use mlsched_scenario::event::{self, Feeder};
use mlsched_scenario::replay;
use mlsched_scenario::run::RunOptions;
use mlsched_serve::client::Client;
use std::collections::BTreeMap;
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
    /// Acknowledged events by kind.
    kinds: Mutex<BTreeMap<String, u64>>,
}

/// What one client believes of the cluster (its own jobs and its own server); an answer lost
/// in a kill can make it wrong, and the service then refuses (400), which is fine.
struct Mine {
    id: usize,
    next_job: usize,
    /// Its jobs that arrived or were submitted and have not ended.
    live: Vec<String>,
    submitted: usize,
    server_down: bool,
    halved: bool,
}

impl Mine {
    /// The next event: mostly valid open-world events of every kind, a few bad ones.
    fn pick(&mut self, rng: &mut Rng, now: u32, sh: &Shared) -> String {
        let server = format!("h{}", self.id);
        let roll = rng.below(40);
        if roll < 6 && !self.live.is_empty() {
            let j = &self.live[rng.below(self.live.len() as u64) as usize];
            format!(r#"{{"at": {now}, "event": "finished", "job": "{j}"}}"#)
        } else if roll < 8 && !self.live.is_empty() {
            let j = &self.live[rng.below(self.live.len() as u64) as usize];
            format!(r#"{{"at": {now}, "event": "cancel", "job": "{j}"}}"#)
        } else if roll < 11 {
            let id = format!("s{}-{}", self.id, self.submitted);
            format!(
                r#"{{"at": {now}, "event": "submit", "job": {}}}"#,
                job_json(&id)
            )
        } else if roll < 13 {
            let kind = if self.server_down {
                "server_up"
            } else {
                "server_down"
            };
            format!(r#"{{"at": {now}, "event": "{kind}", "server": "{server}"}}"#)
        } else if roll < 15 {
            let (g, c, b) = if self.halved {
                (8, 64, 25.0)
            } else {
                (4, 32, 12.5)
            };
            format!(
                r#"{{"at": {now}, "event": "capacity", "server": "{server}", "capacity": [{g}, {c}, {b}]}}"#
            )
        } else if roll < 16 {
            // Refused, always: an unknown server, a capacity of the wrong length, an unknown job.
            [
                format!(r#"{{"at": {now}, "event": "server_down", "server": "h9"}}"#),
                format!(
                    r#"{{"at": {now}, "event": "capacity", "server": "{server}", "capacity": [1]}}"#
                ),
                format!(r#"{{"at": {now}, "event": "cancel", "job": "nobody"}}"#),
            ][rng.below(3) as usize]
                .clone()
        } else if roll < 24 || self.next_job >= JOBS {
            let t = now + 1 + rng.below(2) as u32;
            sh.clock.fetch_max(t, Ordering::SeqCst);
            format!(r#"{{"at": {t}, "event": "advance"}}"#)
        } else {
            let at = now.max((self.next_job / 4) as u32);
            sh.clock.fetch_max(at, Ordering::SeqCst);
            format!(
                r#"{{"at": {at}, "event": "arrive", "job": "j{}"}}"#,
                self.next_job
            )
        }
    }

    /// The event was acknowledged (`ok`) or refused: what that says about the cluster.
    fn answered(&mut self, ev: &serde_json::Value, ok: bool, msg: &str) {
        let job = ev["job"].as_str().map(str::to_string);
        match (ev["event"].as_str().unwrap_or(""), ok) {
            ("arrive", true) => {
                self.live.extend(job);
                self.next_job += CLIENTS;
            }
            // Arrived in a request whose answer was lost.
            ("arrive", false) if msg.contains("already arrived") => self.next_job += CLIENTS,
            ("submit", true) => {
                self.live
                    .push(ev["job"]["id"].as_str().unwrap_or("").to_string());
                self.submitted += 1;
            }
            ("submit", false) if msg.contains("already exists") => self.submitted += 1,
            ("finished" | "cancel", _) => self.live.retain(|j| Some(j) != job.as_ref()),
            ("server_down" | "server_up", true) => self.server_down = !self.server_down,
            ("server_down", false) if msg.contains("is already down") => self.server_down = true,
            ("server_up", false) if msg.contains("` is up") => self.server_down = false,
            ("capacity", true) => self.halved = !self.halved,
            _ => {}
        }
    }
}

/// A submitted job (the scenario's job shape, no `arrival`: the submission slot).
fn job_json(id: &str) -> String {
    format!(
        r#"{{"id": "{id}", "weight": 700, "epochs": 2, "chunks": 2, "minibatches_per_chunk": 4, "minibatch_time": [0.01, 0.006], "update_time": [0.001], "gradient_size": 0.002}}"#
    )
}

/// One client: arrives its jobs in order, submits, cancels and reports finished jobs, takes
/// its own server down and up and changes its capacity, advances time, and now and then sends
/// an event that must be refused.
fn client(id: usize, sh: Arc<Shared>, seed: u64) {
    let mut rng = Rng(seed);
    let mut conn: Option<(u64, Client)> = None;
    let mut me = Mine {
        id,
        next_job: id,
        live: Vec::new(),
        submitted: 0,
        server_down: false,
        halved: false,
    };
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
        let ev = me.pick(&mut rng, now, &sh);
        let value: serde_json::Value = serde_json::from_str(&ev).unwrap();
        let bad = ev.contains("\"h9\"") || ev.contains("[1]") || ev.contains("nobody");
        match c.post("/v1/clusters/c/events", &ev) {
            Ok(r) if r.status == 200 => {
                assert!(!bad, "a bad event was acknowledged: {ev}");
                let seq = r.json()["seq"].as_u64().unwrap();
                let parsed = event::parse(&ev).unwrap().to_json();
                sh.acked.lock().unwrap().push((seq, parsed));
                *sh.kinds
                    .lock()
                    .unwrap()
                    .entry(value["event"].to_string())
                    .or_default() += 1;
                me.answered(&value, true, "");
            }
            Ok(r) => {
                assert_eq!(r.status, 400, "{ev}: {}", r.text());
                sh.refused.fetch_add(1, Ordering::SeqCst);
                me.answered(&value, false, &r.text());
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
        kinds: Mutex::new(BTreeMap::new()),
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
    // Offline: the durable events through the engine, in the service's order.
    let fifo = RunOptions {
        policy: Some("fifo".into()),
        ..RunOptions::default()
    };
    let mut e = Engine::new(&scenario, &fifo).unwrap();
    let f = Feeder::new(&e);
    let mut events = Vec::new();
    for item in &h {
        let ev = event::from_value(&item["event"]).unwrap();
        f.apply(&mut e, &ev, None).unwrap();
        events.push(ev);
    }
    // Then both to the end of the run: an `advance` at every wake-up left, sent to the service
    // as a host would, so that the served run is the whole run `mlsched run --events` makes.
    while let Some(t) = e.next_wakeup() {
        let line = format!(r#"{{"at": {t}, "event": "advance"}}"#);
        let ev = event::from_value(&serde_json::from_str(&line).unwrap()).unwrap();
        let r = c.post("/v1/clusters/c/events", &line).unwrap();
        assert_eq!(r.status, 200, "{line}: {}", r.text());
        f.apply(&mut e, &ev, None).unwrap();
        events.push(ev);
    }
    let fin = c.post("/v1/clusters/c/finish", "").unwrap();
    assert_eq!(fin.status, 200, "{}", fin.text());
    let served = fin.json()["log_hash"].as_str().unwrap().to_string();
    let offline = e.finish(&mut |_| {}).unwrap();
    assert_eq!(offline.log_hash(), served);
    // And `mlsched run SCENARIO --events ACKED` (its library call; the events hold `arrive`s,
    // so the run is host-driven, applied as the service applied them): the same hash.
    let (run, _log) = replay::record_events(&scenario, &fifo, &events, &mut |_| {}).unwrap();
    assert_eq!(
        run.log_hash(),
        served,
        "mlsched run --events on the acknowledged events"
    );
    // Not `mlsched run SCENARIO --events ACKED`: that run arrives the scenario's listed jobs
    // itself at their `arrival`, while here the clients send those jobs' `arrive` events
    // (at or after it); the host-driven log the service keeps is replayed by `mlsched replay`
    // above (`check_durable`), which is the CLI's proof of it.
    let m = c.get("/metrics").unwrap().text();
    let unknown = sh.unknown.load(Ordering::SeqCst);
    let kinds = sh.kinds.lock().unwrap().clone();
    eprintln!(
        "{KILLS} kills: {} events durable, {acked} acknowledged ({kinds:?}), {unknown} unknown outcomes, {} refused; snapshots: {}",
        h.len(),
        sh.refused.load(Ordering::SeqCst),
        m.lines().find(|l| l.starts_with("mlsched_serve_snapshots_total")).unwrap_or("")
    );
    assert!(
        acked >= KILLS * 10,
        "too few events to mean anything: {acked}"
    );
    for kind in [
        "arrive",
        "advance",
        "finished",
        "submit",
        "cancel",
        "server_down",
        "server_up",
        "capacity",
    ] {
        assert!(
            kinds.get(&format!("\"{kind}\"")).is_some_and(|&n| n > 0),
            "no `{kind}` was acknowledged: {kinds:?}"
        );
    }
    // Durable = acknowledged + some of the unknown outcomes: nothing refused was kept.
    assert!(
        h.len() - acked <= unknown as usize,
        "{} durable events were never acknowledged, but only {unknown} outcomes are unknown",
        h.len() - acked
    );
}
