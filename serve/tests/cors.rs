//! Cross-origin reads (`serve/src/cors.rs`): the read-only GETs the browser visualiser's live
//! mode makes answer `Access-Control-Allow-Origin: *`; nothing else does, and no credentials
//! are ever allowed.
mod common;
use common::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const ONLINE: &str = include_str!("../../scenarios/online-ps-small.json");
const ORIGIN: (&str, &str) = ("Origin", "http://127.0.0.1:9");

/// The head of the live stream's answer (status line and headers).
fn stream_head(addr: std::net::SocketAddr, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: {}\r\nAccept: text/event-stream\r\n\r\n",
        ORIGIN.1
    )
    .unwrap();
    let (mut raw, mut buf, start) = (Vec::new(), [0u8; 4096], Instant::now());
    while start.elapsed() < Duration::from_secs(10) {
        if let Ok(n) = s.read(&mut buf) {
            raw.extend_from_slice(&buf[..n]);
        }
        let text = String::from_utf8_lossy(&raw).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            return text[..end].to_ascii_lowercase();
        }
    }
    panic!("no answer head: {}", String::from_utf8_lossy(&raw));
}

#[test]
fn reads_are_open_to_other_origins_and_nothing_else() {
    let state = tmp_dir("cors");
    let p = Proc::start(&state, &[]);
    let mut c = p.client();
    let r = c.put("/v1/clusters/live", ONLINE).unwrap();
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.header("access-control-allow-origin"), None, "PUT");
    let r = c
        .request(
            "POST",
            "/v1/clusters/live/events",
            &[ORIGIN],
            br#"{"at": 0, "event": "arrive", "job": "j1"}"#,
        )
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("access-control-allow-origin"), None, "POST");
    for path in [
        "/v1/health",
        "/v1/clusters/live",
        "/v1/clusters/live/decisions?after=0",
        "/v1/clusters/nope",
    ] {
        let r = c.request("GET", path, &[ORIGIN], b"").unwrap();
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{path}");
        assert_eq!(r.header("access-control-allow-credentials"), None, "{path}");
    }
    for path in [
        "/v1/clusters/live/log",
        "/v1/clusters/live/snapshot",
        "/metrics",
    ] {
        let r = c.request("GET", path, &[ORIGIN], b"").unwrap();
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("access-control-allow-origin"), None, "{path}");
    }
    let head = stream_head(p.addr, "/v1/clusters/live/decisions?after=0");
    assert!(head.contains("text/event-stream"), "{head}");
    assert!(head.contains("access-control-allow-origin: *"), "{head}");
    assert!(!head.contains("access-control-allow-credentials"), "{head}");
    p.kill();
}
