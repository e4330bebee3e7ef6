//! Durability without a crash test's randomness: a torn or corrupted WAL tail is cut and
//! nothing acknowledged is lost; snapshots compact the WAL and recover exactly; a full disk
//! gives 503, acknowledges nothing, and the service goes on once space returns.
mod common;
use common::*;
use mlsched_scenario::replay;
use mlsched_serve::client::Client;
use mlsched_serve::store::{FaultyStore, FsStore};
use mlsched_serve::wal::{self, Entry};
use std::path::Path;
use std::sync::Arc;

fn advance(c: &mut Client, at: u32) -> mlsched_serve::client::Response {
    c.post(
        "/v1/clusters/t/events",
        &format!(r#"{{"at": {at}, "event": "advance"}}"#),
    )
    .unwrap()
}

fn wal_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("wal-"))
        .collect();
    v.sort();
    v
}

fn append(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

#[test]
fn a_torn_or_flipped_tail_is_cut_and_nothing_acknowledged_is_lost() {
    let state = tmp_dir("torn");
    let p = Proc::start(&state, &[]);
    let mut c = p.client();
    assert_eq!(
        c.put("/v1/clusters/t", &online_scenario(8, 100))
            .unwrap()
            .status,
        201
    );
    for at in 1..=20 {
        assert_eq!(advance(&mut c, at).json()["seq"], at as u64);
    }
    let before = history(&mut c, "t");
    p.kill();
    let dir = state.join("clusters/t");
    let seg = wal_files(&dir).pop().unwrap();
    let record = wal::encode(&Entry::Event {
        seq: 21,
        json: r#"{"at":21,"event":"advance"}"#.into(),
    });

    // Torn: half of an unacknowledged record.
    append(&seg, &record[..record.len() / 2]);
    let p = Proc::start(&state, &[]);
    let mut c = p.client();
    assert_eq!(history(&mut c, "t"), before);
    assert!(p.stderr_text().contains("cutting"), "{}", p.stderr_text());
    assert!(c
        .get("/metrics")
        .unwrap()
        .text()
        .contains("mlsched_serve_wal_tails_cut_total 1"));
    assert_eq!(advance(&mut c, 30).json()["seq"], 21);
    let before = history(&mut c, "t");
    p.kill();

    // Flipped: a whole record with one byte changed.
    let mut flipped = wal::encode(&Entry::Event {
        seq: 22,
        json: r#"{"at":31,"event":"advance"}"#.into(),
    });
    let mid = flipped.len() - 5;
    flipped[mid] ^= 0x20;
    append(&seg, &flipped);
    // And a header cut short after it.
    append(&seg, &[7, 0]);
    let p = Proc::start(&state, &[]);
    let mut c = p.client();
    assert_eq!(history(&mut c, "t"), before);
    assert_eq!(advance(&mut c, 32).json()["seq"], 22);
    replay::replay(&c.get("/v1/clusters/t/log").unwrap().body).unwrap();
    let len = std::fs::metadata(&seg).unwrap().len();
    let scan = wal::scan(&std::fs::read(&seg).unwrap());
    assert!(scan.problem.is_none());
    assert_eq!(scan.valid_len, len);
    assert_eq!(scan.entries.len(), 22);
}

#[test]
fn snapshots_compact_the_wal_and_recover_exactly() {
    let state = tmp_dir("snap");
    let p = Proc::start(&state, &["--snapshot-every", "10"]);
    let mut c = p.client();
    assert_eq!(
        c.put("/v1/clusters/t", &online_scenario(40, 1000))
            .unwrap()
            .status,
        201
    );
    for j in 0..35u32 {
        let ev = if j % 2 == 0 {
            format!(
                r#"{{"at": {}, "event": "arrive", "job": "j{}"}}"#,
                j / 2,
                j / 2 * 2
            )
        } else {
            format!(r#"{{"at": {}, "event": "advance"}}"#, j / 2)
        };
        let r = c.post("/v1/clusters/t/events", &ev).unwrap();
        assert_eq!(r.status, 200, "{ev}: {}", r.text());
    }
    let before = history(&mut c, "t");
    let log = c.get("/v1/clusters/t/log").unwrap().body;
    p.kill();
    let dir = state.join("clusters/t");
    assert!(dir.join("snapshot.bin").exists());
    let segs = wal_files(&dir);
    assert_eq!(segs.len(), 1, "{segs:?}");
    assert!(segs[0].ends_with(wal::segment_name(31)));
    let p = Proc::start(&state, &["--snapshot-every", "10"]);
    let mut c = p.client();
    assert_eq!(history(&mut c, "t"), before);
    assert_eq!(c.get("/v1/clusters/t/log").unwrap().body, log);
    assert_eq!(advance(&mut c, 40).json()["seq"], 36);
}

#[test]
fn a_full_disk_gives_503_acknowledges_nothing_and_passes() {
    let state = tmp_dir("full");
    let args = mlsched_serve::Args {
        listen: "127.0.0.1:0".parse().unwrap(),
        state: state.clone(),
        token_file: None,
        snapshot_every: 1000,
        max_event_bytes: 65536,
        max_scenario_bytes: 1 << 20,
    };
    let store = FaultyStore::new();
    let s = mlsched_serve::start(&args, Arc::new(store.clone())).unwrap();
    let mut c = Client::new(s.addr, None);
    assert_eq!(
        c.put("/v1/clusters/t", &online_scenario(8, 100))
            .unwrap()
            .status,
        201
    );
    for at in 1..=10 {
        assert_eq!(advance(&mut c, at).status, 200);
    }
    let before = history(&mut c, "t");
    let log = c.get("/v1/clusters/t/log").unwrap().body;

    store.set_full(true);
    // Concurrent clients in one failing batch, then one alone.
    let addr = s.addr;
    let many: Vec<_> = (0..4)
        .map(|i| std::thread::spawn(move || advance(&mut Client::new(addr, None), 11 + i)))
        .collect();
    for t in many {
        let r = t.join().unwrap();
        assert!(r.status == 503 || r.status == 400, "{}", r.text());
        if r.status == 503 {
            assert!(r.json()["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nothing was acknowledged"));
        }
    }
    assert_eq!(advance(&mut c, 20).status, 503);
    assert_eq!(c.post("/v1/clusters/t/finish", "").unwrap().status, 503);
    assert_eq!(
        c.put("/v1/clusters/u", &online_scenario(8, 100))
            .unwrap()
            .status,
        503
    );
    assert!(store.failures() >= 3);
    // Nothing of it shows: history, log, the next seq.
    assert_eq!(history(&mut c, "t"), before);
    assert_eq!(c.get("/v1/clusters/t/log").unwrap().body, log);
    assert!(c
        .get("/metrics")
        .unwrap()
        .text()
        .contains("mlsched_serve_write_errors_total"));

    store.set_full(false);
    let r = advance(&mut c, 11);
    assert_eq!(
        (r.status, r.json()["seq"].as_u64()),
        (200, Some(11)),
        "{}",
        r.text()
    );
    assert_eq!(
        c.put("/v1/clusters/u", &online_scenario(8, 100))
            .unwrap()
            .status,
        201
    );
    let after = history(&mut c, "t");
    s.stop();

    // A restart over the real file system sees exactly what was acknowledged.
    let s = mlsched_serve::start(&args, Arc::new(FsStore)).unwrap();
    let mut c = Client::new(s.addr, None);
    assert_eq!(history(&mut c, "t"), after);
    replay::replay(&c.get("/v1/clusters/t/log").unwrap().body).unwrap();
    assert_eq!(c.post("/v1/clusters/t/finish", "").unwrap().status, 200);
    s.stop();
}
