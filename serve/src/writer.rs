//! The writer thread of one cluster: applies events to the engine in the order they come,
//! appends them to the write-ahead log, fsyncs once per batch (group commit: every event that
//! queued while the previous fsync ran shares the next), and only then acknowledges them.
//!
//! The engine only ever holds durable events, plus the applied events of the batch being
//! committed: when a write or fsync fails, the WAL is cut back to its last durable length and
//! the engine rebuilt from the durable events, so what the service answers after a failure
//! is exactly what it would answer after a restart.
use crate::cluster::{Ack, Cmd, Reply, Shared};
use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::store::{AppendFile, Store};
use crate::wal::{self, Entry, Snapshot, Stored};
use axum::http::StatusCode;
use mlsched_kernel::logfile::LogFileWriter;
use mlsched_scenario::engine::{Decision, Engine};
use mlsched_scenario::event::{Feeder, HostEvent};
use mlsched_scenario::replay::host_log_writer;
use mlsched_scenario::run::RunOptions;
use mlsched_scenario::RunError;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::Instant;

/// Most commands taken into one batch.
const BATCH_MAX: usize = 4096;

/// `meta.json` of a cluster directory.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Meta {
    /// The cluster's name.
    pub name: String,
    /// `?policy=` (None: the kind's own algorithm).
    pub policy: Option<String>,
    /// `?all_categories=true` (placement).
    pub all_categories: bool,
}

impl Meta {
    fn opts(&self) -> RunOptions {
        RunOptions {
            policy: self.policy.clone(),
            all_categories: self.all_categories,
        }
    }
}

/// Settings shared by every cluster.
#[derive(Clone)]
pub struct Env {
    /// The store under everything.
    pub store: Arc<dyn Store>,
    /// Series of `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Events between two snapshots.
    pub snapshot_every: u64,
}

/// An applied event waiting for the batch's fsync.
struct Pending {
    seq: u64,
    stored: Stored,
    item: String,
    decisions: String,
    count: u64,
    reply: Reply<Ack>,
}

/// The writer's state (see the module docs).
pub struct Writer {
    env: Env,
    dir: PathBuf,
    scenario: String,
    meta: Meta,
    engine: Engine<LogFileWriter>,
    feeder: Feeder,
    index: HashMap<String, u32>,
    durable: Vec<Stored>,
    finished: Option<String>,
    wal: Box<dyn AppendFile>,
    wal_path: PathBuf,
    /// Durable bytes of the current segment.
    wal_len: u64,
    /// Durable bytes of the older segments.
    wal_older: u64,
    /// The current segment may hold bytes past `wal_len` (a failed write not yet cut).
    wal_dirty: bool,
    since_snapshot: u64,
    buf: Vec<u8>,
    pending: Vec<Pending>,
    shared: Arc<Shared>,
}

fn io_503(what: &str, e: std::io::Error) -> ApiError {
    ApiError::unavailable(format!(
        "{what}: {e}; nothing was acknowledged, try again when the disk has room"
    ))
}

/// A fresh engine of the cluster's scenario, logging to a host-driven log file.
fn new_engine(scenario: &str, opts: &RunOptions) -> Result<Engine<LogFileWriter>, RunError> {
    Engine::with_sink(scenario, opts, host_log_writer(scenario, opts)?)
}

impl Writer {
    /// Validates the scenario and options and creates the cluster's directory durably
    /// (written aside, then renamed into place: a crash leaves no half cluster).
    pub fn create(
        env: Env,
        clusters: &Path,
        meta: Meta,
        scenario: String,
    ) -> Result<Writer, ApiError> {
        let engine = new_engine(&scenario, &meta.opts()).map_err(|e| ApiError::run(&e))?;
        let s = env.store.as_ref();
        let dir = clusters.join(&meta.name);
        let tmp = clusters.join(format!(".new-{}", meta.name));
        let fail = |e| io_503("cannot create the cluster", e);
        if s.list(&tmp).is_ok() {
            s.remove_dir_all(&tmp).map_err(fail)?;
        }
        s.create_dir_all(&tmp).map_err(fail)?;
        let meta_json = serde_json::to_vec(&meta).unwrap_or_default();
        s.write_atomic(&tmp.join("meta.json"), &meta_json)
            .map_err(fail)?;
        s.write_atomic(&tmp.join("scenario.json"), scenario.as_bytes())
            .map_err(fail)?;
        s.rename(&tmp, &dir).map_err(fail)?;
        let wal_path = dir.join(wal::segment_name(1));
        let wal = s.open_append(&wal_path).map_err(fail)?;
        Ok(Self::assemble(
            env, dir, scenario, meta, engine, wal, wal_path,
        ))
    }

    fn assemble(
        env: Env,
        dir: PathBuf,
        scenario: String,
        meta: Meta,
        engine: Engine<LogFileWriter>,
        wal: Box<dyn AppendFile>,
        wal_path: PathBuf,
    ) -> Writer {
        let feeder = Feeder::new(&engine);
        let index = (0..engine.jobs())
            .filter_map(|j| engine.job_id(j).map(|id| (id.to_string(), j)))
            .collect();
        let shared = Arc::new(Shared::new(
            &meta.name,
            engine.kind(),
            engine.policy(),
            engine.jobs(),
        ));
        Writer {
            env,
            dir,
            scenario,
            meta,
            engine,
            feeder,
            index,
            durable: Vec::new(),
            finished: None,
            wal,
            wal_path,
            wal_len: 0,
            wal_older: 0,
            wal_dirty: false,
            since_snapshot: 0,
            buf: Vec::new(),
            pending: Vec::new(),
            shared,
        }
    }

    /// The read side of this cluster.
    pub fn shared(&self) -> Arc<Shared> {
        self.shared.clone()
    }

    /// Runs the thread's loop until [`Cmd::Stop`] or until every sender is gone.
    pub fn run(mut self, rx: Receiver<Cmd>) {
        while let Ok(first) = rx.recv() {
            let mut batch = vec![first];
            while batch.len() < BATCH_MAX {
                match rx.try_recv() {
                    Ok(c) => batch.push(c),
                    Err(_) => break,
                }
            }
            for cmd in batch {
                if let Some(stop) = self.handle(cmd) {
                    self.commit();
                    let _ = stop.send(Ok(()));
                    return;
                }
            }
            self.commit();
        }
        self.commit();
    }

    /// Handles one command; events wait for the batch's commit, anything else commits first.
    fn handle(&mut self, cmd: Cmd) -> Option<Reply<()>> {
        match cmd {
            Cmd::Event(ev, reply) => self.event(ev, reply),
            Cmd::Finish(reply) => {
                self.commit();
                let _ = reply.send(self.finish());
            }
            Cmd::Log(reply) => {
                self.commit();
                let _ = reply.send(Ok(self.engine.sink().clone().finish()));
            }
            Cmd::Snapshot(reply) => {
                self.commit();
                let _ = reply.send(Ok(self.engine.snapshot()));
            }
            Cmd::Stop(reply) => return Some(reply),
        }
        None
    }

    fn event(&mut self, ev: HostEvent, reply: Reply<Ack>) {
        if self.finished.is_some() {
            let e = ApiError::new(
                StatusCode::CONFLICT,
                "event",
                format!(
                    "cluster `{}` is finished: it takes no more events",
                    self.meta.name
                ),
            );
            let _ = reply.send(Err(e));
            return;
        }
        let before = self.engine.events_fed();
        let mut decisions: Vec<Decision> = Vec::new();
        let (feeder, engine) = (&self.feeder, &mut self.engine);
        let applied = catch_unwind(AssertUnwindSafe(|| {
            feeder.apply(engine, &ev, Some(&mut |d| decisions.push(d)))
        }));
        let err = match applied {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(ApiError::run(&e)),
            Err(_) => Some(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "event",
                "the engine failed on this event; it was not applied",
            )),
        };
        if let Some(e) = err {
            if self.engine.events_fed() != before || self.engine.failure().is_some() {
                // Wake-ups were fed or the scheduler failed: back to the events it holds.
                self.rebuild(true);
            }
            let _ = reply.send(Err(e));
            return;
        }
        let seq = (self.durable.len() + self.pending.len()) as u64 + 1;
        let json = ev.to_json();
        let decisions_json = serde_json::to_string(&decisions).unwrap_or_else(|_| "[]".into());
        let item = format!(r#"{{"seq":{seq},"event":{json},"decisions":{decisions_json}}}"#);
        self.buf.extend(wal::encode(&Entry::Event { seq, json }));
        let index = &self.index;
        self.pending.push(Pending {
            seq,
            stored: Stored::of(&ev, |id| index.get(id).copied()),
            item,
            decisions: decisions_json,
            count: decisions.len() as u64,
            reply,
        });
    }

    /// Writes the batch, fsyncs once, then acknowledges every event of it — or, when the disk
    /// refuses, cuts the partial bytes, rebuilds the engine and answers 503 to all of them.
    fn commit(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let t = Instant::now();
        let written = self.append_durably();
        let m = &self.env.metrics;
        m.fsync.observe(t.elapsed().as_secs_f64());
        let pending = std::mem::take(&mut self.pending);
        let bytes = std::mem::take(&mut self.buf);
        if let Err(e) = written {
            m.write_errors.fetch_add(1, Ordering::Relaxed);
            self.rebuild(false);
            for p in pending {
                let _ = p.reply.send(Err(e.clone()));
            }
            return;
        }
        m.batch.observe(pending.len() as f64);
        self.wal_len += bytes.len() as u64;
        let c = &self.shared.counters;
        c.wal_bytes
            .store(self.wal_older + self.wal_len, Ordering::Relaxed);
        let mut last = 0;
        {
            let mut h = self
                .shared
                .history
                .write()
                .unwrap_or_else(|p| p.into_inner());
            for p in pending {
                h.push(p.item.into());
                self.durable.push(p.stored);
                c.events.fetch_add(1, Ordering::Relaxed);
                c.decisions.fetch_add(p.count, Ordering::Relaxed);
                last = p.seq;
                let _ = p.reply.send(Ok(Ack {
                    seq: p.seq,
                    decisions: p.decisions,
                }));
                self.since_snapshot += 1;
            }
        }
        self.shared.seq.send_replace(last);
        if self.since_snapshot >= self.env.snapshot_every {
            self.snapshot();
        }
    }

    /// Appends the batch and fsyncs; on failure the WAL is cut back to its durable length.
    fn append_durably(&mut self) -> Result<(), ApiError> {
        if self.wal_dirty {
            self.wal
                .truncate(self.wal_len)
                .map_err(|e| io_503("cannot cut the log back after a failed write", e))?;
            self.wal_dirty = false;
        }
        let r = self.wal.append(&self.buf).and_then(|_| self.wal.sync());
        r.map_err(|e| {
            self.wal_dirty = true;
            if self.wal.truncate(self.wal_len).is_ok() {
                self.wal_dirty = false;
            }
            io_503("the event could not be made durable", e)
        })
    }

    /// A new engine holding the durable events (and, with `pending`, the batch's applied
    /// events) and nothing else.
    fn rebuild(&mut self, pending: bool) {
        let opts = self.meta.opts();
        let mut events: Vec<Stored> = self.durable.clone();
        if pending {
            events.extend(self.pending.iter().map(|p| p.stored.clone()));
        } else {
            self.pending.clear();
            self.buf.clear();
        }
        match replay_into(
            &self.scenario,
            &opts,
            &events,
            self.finished.is_some(),
            None,
        ) {
            Ok(e) => self.engine = e,
            Err(e) => eprintln!(
                "mlsched serve: cluster `{}`: cannot rebuild the engine: {e}",
                self.meta.name
            ),
        }
    }

    fn finish(&mut self) -> Result<String, ApiError> {
        if let Some(r) = &self.finished {
            return Ok(r.clone());
        }
        let engine = &mut self.engine;
        let done = catch_unwind(AssertUnwindSafe(|| {
            engine.finish_kept(&mut |_| {}).map(|r| r.to_json())
        }));
        let result = match done {
            Ok(Ok(r)) => r,
            other => {
                self.rebuild(false);
                return Err(match other {
                    Ok(Err(e)) => ApiError::run(&e),
                    _ => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "", "the engine failed"),
                });
            }
        };
        self.buf = wal::encode(&Entry::Finish);
        let written = self.append_durably();
        let n = std::mem::take(&mut self.buf).len() as u64;
        if let Err(e) = written {
            self.env
                .metrics
                .write_errors
                .fetch_add(1, Ordering::Relaxed);
            self.rebuild(false);
            return Err(e);
        }
        self.wal_len += n;
        self.finished = Some(result.clone());
        self.shared.finished.store(true, Ordering::SeqCst);
        self.shared.seq.send_modify(|_| {});
        Ok(result)
    }

    /// Writes `snapshot.bin` (every durable event) and starts a new segment; the older
    /// segments go. A failure only delays it: the WAL still holds everything.
    fn snapshot(&mut self) {
        let s = self.env.store.clone();
        let seq = self.durable.len() as u64;
        let snap = Snapshot {
            seq,
            finished: false,
            events: self.durable.clone(),
        };
        let bytes = wal::encode_snapshot(&snap);
        let next = self.dir.join(wal::segment_name(seq + 1));
        let done = s
            .write_atomic(&self.dir.join("snapshot.bin"), &bytes)
            .and_then(|_| s.open_append(&next));
        let wal = match done {
            Ok(w) => w,
            Err(e) => {
                eprintln!(
                    "mlsched serve: cluster `{}`: snapshot delayed: {e}",
                    self.meta.name
                );
                // Try again after another tenth of the interval.
                self.since_snapshot = self.env.snapshot_every - self.env.snapshot_every / 10;
                return;
            }
        };
        self.wal = wal;
        let old = std::mem::replace(&mut self.wal_path, next);
        self.wal_len = 0;
        self.wal_older = 0;
        self.since_snapshot = 0;
        for name in s.list(&self.dir).unwrap_or_default() {
            let p = self.dir.join(&name);
            if wal::segment_seq(&name).is_some_and(|f| f <= seq) || p == old {
                let _ = s.remove_file(&p);
            }
        }
        self.env.metrics.snapshots.fetch_add(1, Ordering::Relaxed);
        self.shared
            .counters
            .wal_bytes
            .store(bytes.len() as u64, Ordering::Relaxed);
    }
}

/// A new engine of `scenario` fed `events` (and finished if `finished`); each event's history
/// entry goes to `history` when given.
fn replay_into(
    scenario: &str,
    opts: &RunOptions,
    events: &[Stored],
    finished: bool,
    mut history: Option<&mut Vec<Arc<str>>>,
) -> Result<Engine<LogFileWriter>, RunError> {
    let mut engine = new_engine(scenario, opts)?;
    let feeder = Feeder::new(&engine);
    for (i, s) in events.iter().enumerate() {
        let ev = s
            .event(|j| engine.job_id(j).map(str::to_string))
            .ok_or_else(|| RunError::runtime(format!("stored event {} does not read", i + 1)))?;
        match history.as_deref_mut() {
            Some(h) => {
                let mut d: Vec<Decision> = Vec::new();
                feeder.apply(&mut engine, &ev, Some(&mut |x| d.push(x)))?;
                let dj = serde_json::to_string(&d).unwrap_or_else(|_| "[]".into());
                let item = format!(
                    r#"{{"seq":{},"event":{},"decisions":{dj}}}"#,
                    i + 1,
                    ev.to_json()
                );
                h.push(item.into());
            }
            None => feeder.apply(&mut engine, &ev, None)?,
        }
    }
    if finished {
        engine.finish_kept(&mut |_| {})?;
    }
    Ok(engine)
}

/// Recovers a cluster from its directory: the snapshot, then every WAL record after it; a
/// torn or damaged tail is cut (with a warning) and the engine rebuilt with every decision.
pub fn open(env: Env, dir: &Path) -> Result<Writer, String> {
    let s = env.store.clone();
    let read = |name: &str| s.read(&dir.join(name)).map_err(|e| format!("{name}: {e}"));
    let meta: Meta =
        serde_json::from_slice(&read("meta.json")?).map_err(|e| format!("meta.json: {e}"))?;
    let scenario =
        String::from_utf8(read("scenario.json")?).map_err(|e| format!("scenario.json: {e}"))?;
    let snap = match s.read(&dir.join("snapshot.bin")) {
        Ok(b) => wal::decode_snapshot(&b).map_err(|e| format!("snapshot.bin: {e}"))?,
        Err(_) => Snapshot::default(),
    };
    let engine = new_engine(&scenario, &meta.opts()).map_err(|e| e.to_string())?;
    let index: HashMap<String, u32> = (0..engine.jobs())
        .filter_map(|j| engine.job_id(j).map(|id| (id.to_string(), j)))
        .collect();
    let mut events = snap.events;
    let mut finished = snap.finished;
    let (segments, last) = read_segments(&env, dir, &mut events, &mut finished, &index)?;
    let mut history = Vec::with_capacity(events.len());
    let engine = replay_into(
        &scenario,
        &meta.opts(),
        &events,
        finished,
        Some(&mut history),
    )
    .map_err(|e| format!("the durable events no longer apply: {e}"))?;
    let result = finished
        .then(|| engine.result().map(|r| r.to_json()))
        .flatten();
    let (wal_path, wal_len) = match last {
        Some(x) => x,
        None => (dir.join(wal::segment_name(events.len() as u64 + 1)), 0),
    };
    let wal = s
        .open_append(&wal_path)
        .map_err(|e| format!("{}: {e}", wal_path.display()))?;
    let mut w = Writer::assemble(
        env,
        dir.to_path_buf(),
        scenario,
        meta,
        engine,
        wal,
        wal_path,
    );
    w.wal_len = wal_len;
    w.wal_older = segments.saturating_sub(wal_len);
    w.since_snapshot = events.len() as u64 - snap.seq;
    let last_seq = events.len() as u64;
    let c = &w.shared.counters;
    c.events.store(last_seq, Ordering::Relaxed);
    c.wal_bytes.store(segments, Ordering::Relaxed);
    *w.shared.history.write().unwrap_or_else(|p| p.into_inner()) = history;
    w.shared.seq.send_replace(last_seq);
    w.durable = events;
    if let Some(r) = result {
        w.finished = Some(r);
        w.shared.finished.store(true, Ordering::SeqCst);
    }
    Ok(w)
}

/// Reads every segment in order into `events` (skipping what the snapshot holds); cuts the
/// first torn or damaged record and everything after it. Returns the bytes of WAL kept and
/// the last segment with its length.
fn read_segments(
    env: &Env,
    dir: &Path,
    events: &mut Vec<Stored>,
    finished: &mut bool,
    index: &HashMap<String, u32>,
) -> Result<(u64, Option<(PathBuf, u64)>), String> {
    let s = env.store.as_ref();
    let names: Vec<String> = s
        .list(dir)
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|n| wal::segment_seq(n).is_some())
        .collect();
    let mut total = 0;
    let mut last = None;
    let mut cut = false;
    for name in names {
        let path = dir.join(&name);
        if cut {
            // After a damaged record nothing can be trusted to follow on from it.
            eprintln!(
                "mlsched serve: {}: removed (after a cut tail)",
                path.display()
            );
            s.remove_file(&path).map_err(|e| e.to_string())?;
            continue;
        }
        let bytes = s.read(&path).map_err(|e| format!("{name}: {e}"))?;
        let mut scan = wal::scan(&bytes);
        let mut keep = 0usize;
        for e in &scan.entries {
            match e {
                Entry::Event { seq, json } if *seq == events.len() as u64 + 1 => {
                    let ev = mlsched_scenario::event::parse(json)
                        .map_err(|e| format!("{name}: record {seq}: {e}"))?;
                    events.push(Stored::of(&ev, |id| index.get(id).copied()));
                }
                Entry::Event { seq, .. } if *seq <= events.len() as u64 => {}
                Entry::Event { seq, .. } => {
                    scan.problem = Some(format!("seq {seq} after {}", events.len()));
                    break;
                }
                Entry::Finish => *finished = true,
            }
            keep += 1;
        }
        let valid = if keep == scan.entries.len() {
            scan.valid_len
        } else {
            scan.entries[..keep]
                .iter()
                .map(|e| wal::encode(e).len() as u64)
                .sum()
        };
        if let Some(why) = &scan.problem {
            eprintln!(
                "mlsched serve: warning: {}: {why}; cutting {} unacknowledged bytes after byte {valid}",
                path.display(),
                bytes.len() as u64 - valid
            );
            env.metrics.tails_cut.fetch_add(1, Ordering::Relaxed);
            s.open_append(&path)
                .and_then(|mut f| f.truncate(valid))
                .map_err(|e| format!("{name}: cannot cut the tail: {e}"))?;
            cut = true;
        }
        total += valid;
        last = Some((path, valid));
    }
    Ok((total, last))
}
