//! The HTTP API end to end on the service binary: the life of a cluster, the decision log
//! replayed, the live stream, metrics; and every refusal (401, 413, 400 naming the field, 404,
//! 409, traversal, a non-loopback address without a token).
mod common;
use common::*;
use mlsched_scenario::replay;
use mlsched_serve::client::{read_stream, Client};
use std::time::Duration;

const ONLINE: &str = include_str!("../../scenarios/online-ps-small.json");

fn post(c: &mut Client, name: &str, ev: &str) -> mlsched_serve::client::Response {
    c.post(&format!("/v1/clusters/{name}/events"), ev).unwrap()
}

#[test]
fn a_cluster_lives_replays_streams_and_finishes() {
    let state = tmp_dir("life");
    let p = Proc::start(&state, &[]);
    let mut c = p.client();
    assert_eq!(c.get("/v1/health").unwrap().status, 200);
    let r = c.put("/v1/clusters/prod?policy=fifo", ONLINE).unwrap();
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["policy"], "fifo");
    let r = c.put("/v1/clusters/prod", ONLINE).unwrap();
    assert_eq!(r.status, 409, "{}", r.text());
    let r = c.put("/v1/clusters/own", ONLINE).unwrap();
    assert_eq!(r.status, 201, "{}", r.text());

    // A stream opened before any event sees them as they come.
    let addr = p.addr;
    let streamed = std::thread::spawn(move || {
        read_stream(
            addr,
            None,
            "/v1/clusters/own/decisions?after=0",
            Duration::from_secs(10),
            |d| d.len() >= 3,
        )
        .unwrap()
    });
    std::thread::sleep(Duration::from_millis(100));
    let evs = [
        r#"{"at": 0, "event": "arrive", "job": "j1"}"#,
        r#"{"at": 1, "event": "arrive", "job": "j2"}"#,
        r#"{"at": 3, "event": "advance"}"#,
    ];
    for (i, ev) in evs.iter().enumerate() {
        let r = post(&mut c, "own", ev);
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["seq"], i as u64 + 1);
        assert!(r.json()["decisions"].is_array());
    }
    let arrive = post(&mut c, "prod", evs[0]).json();
    assert_eq!(arrive["seq"], 1);
    let streamed = streamed.join().unwrap();
    assert_eq!(streamed.len(), 3, "{streamed:?}");
    let h = history(&mut c, "own");
    assert_eq!(h.len(), 3);
    for (i, item) in h.iter().enumerate() {
        assert_eq!(item["seq"], i as u64 + 1);
        let s: serde_json::Value = serde_json::from_str(&streamed[i]).unwrap();
        assert_eq!(&s, item);
    }
    let page = c.get("/v1/clusters/own/decisions?after=2").unwrap().json();
    assert_eq!(page["decisions"].as_array().unwrap().len(), 1);
    assert_eq!(page["last_seq"], 3);

    // The log replays, before and after finish.
    let log = c.get("/v1/clusters/own/log").unwrap();
    assert_eq!(log.status, 200);
    replay::replay(&log.body).unwrap();
    let snap = c.get("/v1/clusters/own/snapshot").unwrap();
    assert_eq!(snap.status, 200);
    let opts = mlsched_scenario::run::RunOptions::default();
    let restored =
        mlsched_scenario::engine::Engine::restore_hashed(ONLINE, &opts, &snap.body).unwrap();
    assert_eq!(restored.now(), Some(3));

    let fin = c.post("/v1/clusters/own/finish", "").unwrap();
    assert_eq!(fin.status, 200, "{}", fin.text());
    let hash = fin.json()["log_hash"].as_str().unwrap().to_string();
    let again = c.post("/v1/clusters/own/finish", "").unwrap();
    assert_eq!(again.json()["log_hash"], hash.as_str());
    let r = post(&mut c, "own", r#"{"at": 4, "event": "advance"}"#);
    assert_eq!(r.status, 409, "{}", r.text());
    let log = c.get("/v1/clusters/own/log").unwrap();
    let ok = replay::replay(&log.body).unwrap();
    assert_eq!(ok.log_hash, hash);

    let m = c.get("/metrics").unwrap().text();
    assert!(
        m.contains("mlsched_serve_events_total{cluster=\"own\"} 3"),
        "{m}"
    );
    assert!(
        m.contains("mlsched_serve_fsync_duration_seconds_count"),
        "{m}"
    );
    assert!(
        m.contains(
            "mlsched_serve_request_duration_seconds_bucket{route=\"/v1/clusters/{name}/events\""
        ),
        "{m}"
    );

    // A restart recovers both clusters exactly.
    p.kill();
    let p = Proc::start(&state, &[]);
    let mut c = p.client();
    assert_eq!(history(&mut c, "own"), h);
    assert_eq!(
        c.post("/v1/clusters/own/finish", "").unwrap().json()["log_hash"],
        hash.as_str()
    );
    assert_eq!(
        post(&mut c, "prod", r#"{"at": 1, "event": "advance"}"#).json()["seq"],
        2
    );
    let m = c.get("/metrics").unwrap().text();
    assert!(m.contains("mlsched_serve_recoveries_total 2"), "{m}");

    assert_eq!(
        c.request("DELETE", "/v1/clusters/own", &[], b"")
            .unwrap()
            .status,
        204
    );
    assert_eq!(c.get("/v1/clusters/own/log").unwrap().status, 404);
    assert_eq!(c.put("/v1/clusters/own", ONLINE).unwrap().status, 201);
    assert_eq!(history(&mut c, "own").len(), 0);
}

/// `(event, field)`: one of each class of bad event the engine has today.
const BAD_EVENTS: [(&str, &str); 16] = [
    ("{not json", ""),
    ("[1, 2]", ""),
    (r#"{"at": 1}"#, "event"),
    (r#"{"at": 1, "event": "explode"}"#, "event"),
    (r#"{"event": "advance"}"#, "at"),
    (r#"{"at": -3, "event": "advance"}"#, "at"),
    (r#"{"at": 1, "event": "advance", "extra": 1}"#, "extra"),
    (r#"{"at": 1, "event": "arrive", "job": "nobody"}"#, "job"),
    (r#"{"at": 1, "event": "arrive", "job": 7}"#, "job"),
    (r#"{"at": 2, "event": "finished", "job": "j3"}"#, "job"),
    (r#"{"at": 2, "event": "arrive", "job": "j6"}"#, "at"),
    (r#"{"at": 2, "event": "arrive", "job": "j1"}"#, "job"),
    (r#"{"at": 2, "event": "advance"}"#, "at"),
    (
        r#"{"at": 2, "event": "submit", "job": {"id": "j1"}}"#,
        "job.id",
    ),
    (
        r#"{"at": 2, "event": "server_down", "server": "h99"}"#,
        "server",
    ),
    (
        r#"{"at": 1, "event": "capacity", "server": "h0", "capacity": [1, -1]}"#,
        "capacity[1]",
    ),
];

#[test]
fn refusals_name_the_field_and_need_the_token() {
    let state = tmp_dir("refusals");
    let token_file = state.with_extension("token");
    std::fs::write(&token_file, "s3cret-token\n").unwrap();
    let tf = token_file.to_str().unwrap();
    let p = Proc::start(&state, &["--token-file", tf]);
    let mut anon = p.client();
    let mut wrong = Client::new(p.addr, Some("s3cret-tokem"));
    let mut short = Client::new(p.addr, Some("s3"));
    let mut c = Client::new(p.addr, Some("s3cret-token"));
    assert_eq!(anon.get("/v1/health").unwrap().status, 200);
    for cl in [&mut anon, &mut wrong, &mut short] {
        for (m, path) in [
            ("GET", "/metrics"),
            ("PUT", "/v1/clusters/a"),
            ("GET", "/v1/clusters/a/log"),
            ("POST", "/v1/clusters/a/events"),
        ] {
            let r = cl.request(m, path, &[], b"{}").unwrap();
            assert_eq!(r.status, 401, "{m} {path}");
            assert_eq!(r.json()["error"]["field"], "authorization");
        }
    }
    assert_eq!(c.put("/v1/clusters/a", ONLINE).unwrap().status, 201);
    assert_eq!(
        post(&mut c, "a", r#"{"at": 0, "event": "arrive", "job": "j1"}"#).status,
        200
    );
    assert_eq!(
        post(&mut c, "a", r#"{"at": 2, "event": "advance"}"#).status,
        200
    );
    for (ev, field) in BAD_EVENTS {
        let r = post(&mut c, "a", ev);
        assert_eq!(r.status, 400, "{ev}: {}", r.text());
        let e = &r.json()["error"];
        assert_eq!(e["field"], field, "{ev}: {e}");
        assert!(!e["message"].as_str().unwrap().is_empty());
    }
    let r = post(&mut c, "a", r#"{"at": 1, "event": "advance"}"#);
    assert_eq!(
        r.json()["error"]["message"],
        "event, field `at`: slot 1 is before the last event's slot 2"
    );
    let r = post(
        &mut c,
        "a",
        r#"{"at": 2, "event": "submit", "job": {"id": "j1"}}"#,
    );
    assert_eq!(
        r.json()["error"]["message"],
        "event, field `job.id`: a job `j1` already exists"
    );
    // Nothing refused was applied.
    assert_eq!(
        post(&mut c, "a", r#"{"at": 2, "event": "arrive", "job": "j2"}"#).json()["seq"],
        3
    );

    // 413 past the limits; 400 for a bad scenario, naming its field.
    let big = format!(
        r#"{{"at": 1, "event": "advance", "pad": "{}"}}"#,
        "x".repeat(70_000)
    );
    let r = post(&mut c, "a", &big);
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(r.json()["error"]["field"], "body");
    let r = c
        .put("/v1/clusters/b", r#"{"kind": "online", "slots": "many"}"#)
        .unwrap();
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(c.put("/v1/clusters/b", "{").unwrap().status, 400);
    let r = c.put("/v1/clusters/b?policy=nope", ONLINE).unwrap();
    assert_eq!(
        (r.status, r.json()["error"]["field"].as_str()),
        (400, Some("policy")),
        "{}",
        r.text()
    );
    let r = c.put("/v1/clusters/b?colour=red", ONLINE).unwrap();
    assert_eq!(r.status, 400);

    // 404s, and names that could reach outside the state directory.
    assert_eq!(c.get("/v1/clusters/zzz/log").unwrap().status, 404);
    assert_eq!(c.get("/v2/nothing").unwrap().status, 404);
    for name in [
        "..",
        "..%2F..%2Fetc",
        "%2E%2E",
        ".hidden",
        "a%2Fb",
        "-x",
        "a%00b",
    ] {
        for (m, path) in [
            ("PUT", format!("/v1/clusters/{name}")),
            ("POST", format!("/v1/clusters/{name}/events")),
        ] {
            let r = c.request(m, &path, &[], ONLINE.as_bytes()).unwrap();
            assert!(
                r.status == 400 || r.status == 404,
                "{m} {path}: {}",
                r.status
            );
            if r.status == 400 {
                assert_eq!(r.json()["error"]["field"], "name");
            }
        }
    }
    let entries: Vec<_> = std::fs::read_dir(state.join("clusters"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(c.get("/v1/health").unwrap().status, 200);
}

#[test]
fn a_public_address_needs_a_token() {
    let state = tmp_dir("public");
    let e = Proc::try_start(&state, "0.0.0.0:0", &[]).err().unwrap();
    assert!(
        e.contains("not a loopback address, and no --token-file"),
        "{e}"
    );
    let args = |listen: &str, token: Option<std::path::PathBuf>| mlsched_serve::Args {
        listen: listen.parse().unwrap(),
        state: state.clone(),
        token_file: token,
        snapshot_every: 10,
        max_event_bytes: 1000,
        max_scenario_bytes: 1000,
    };
    assert_eq!(
        mlsched_serve::check(&args("10.1.2.3:80", None))
            .unwrap_err()
            .exit_code,
        2
    );
    assert!(mlsched_serve::check(&args("[::1]:80", None))
        .unwrap()
        .is_none());
    let tf = state.with_extension("tok");
    std::fs::write(&tf, "abc").unwrap();
    assert_eq!(
        mlsched_serve::check(&args("10.1.2.3:80", Some(tf.clone()))).unwrap(),
        Some(b"abc".to_vec())
    );
    std::fs::write(&tf, " \n").unwrap();
    assert!(mlsched_serve::check(&args("127.0.0.1:80", Some(tf))).is_err());
}
