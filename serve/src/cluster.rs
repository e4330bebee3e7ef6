//! One cluster: its engine, owned by one writer thread that applies events in arrival order
//! and commits them to the write-ahead log in batches ([`crate::writer`]), and the state the
//! HTTP handlers read without waiting for it (decisions so far, counters, the last durable seq).
use crate::error::ApiError;
use crate::metrics::ClusterCounters;
use mlsched_scenario::event::HostEvent;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use tokio::sync::{oneshot, watch};

/// A reply channel of a command.
pub type Reply<T> = oneshot::Sender<Result<T, ApiError>>;

/// What the writer thread is asked to do.
pub enum Cmd {
    /// Apply an event, make it durable, answer with its seq and decisions.
    Event(HostEvent, Reply<Ack>),
    /// Finish the run durably; answer with the result document (JSON).
    Finish(Reply<String>),
    /// The decision log file's bytes (durable events only).
    Log(Reply<Vec<u8>>),
    /// The engine snapshot's bytes.
    Snapshot(Reply<Vec<u8>>),
    /// Stop the thread (cluster deleted, or the service stopping).
    Stop(Reply<()>),
}

/// An acknowledged event.
#[derive(Clone, Debug)]
pub struct Ack {
    /// Its place in the cluster's order.
    pub seq: u64,
    /// The decisions it caused, as a JSON array.
    pub decisions: String,
}

/// What the HTTP side reads of a cluster without asking its writer.
#[derive(Debug)]
pub struct Shared {
    /// The cluster's name.
    pub name: String,
    /// The scenario's kind.
    pub kind: &'static str,
    /// The policy running.
    pub policy: String,
    /// Jobs the scenario lists.
    pub jobs: u32,
    /// `{"seq", "event", "decisions"}` of every durable event, seq 1 first.
    pub history: RwLock<Vec<Arc<str>>>,
    /// The last durable seq (0: none), watched by live streams.
    pub seq: watch::Sender<u64>,
    /// The cluster was finished (events are refused with 409).
    pub finished: AtomicBool,
    /// The cluster was deleted (streams end).
    pub deleted: AtomicBool,
    /// Counters for `/metrics`.
    pub counters: ClusterCounters,
}

impl Shared {
    /// A new, empty shared state.
    pub fn new(name: &str, kind: &'static str, policy: &str, jobs: u32) -> Self {
        Shared {
            name: name.to_string(),
            kind,
            policy: policy.to_string(),
            jobs,
            history: RwLock::new(Vec::new()),
            seq: watch::channel(0).0,
            finished: AtomicBool::new(false),
            deleted: AtomicBool::new(false),
            counters: ClusterCounters::default(),
        }
    }

    /// History entries after `after`, at most `limit`.
    pub fn after(&self, after: u64, limit: usize) -> (Vec<Arc<str>>, u64) {
        let h = self.history.read().unwrap_or_else(|p| p.into_inner());
        let from = (after as usize).min(h.len());
        let end = from.saturating_add(limit).min(h.len());
        (h[from..end].to_vec(), h.len() as u64)
    }

    /// The info document of `GET /v1/clusters/{name}`.
    pub fn info(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "kind": self.kind,
            "policy": self.policy,
            "jobs": self.jobs,
            "seq": *self.seq.borrow(),
            "finished": self.finished.load(Ordering::SeqCst),
        })
    }
}

/// A running cluster: its shared state and the way to its writer thread.
#[derive(Clone)]
pub struct Handle {
    /// Read side.
    pub shared: Arc<Shared>,
    /// Commands to the writer thread.
    pub tx: std::sync::mpsc::Sender<Cmd>,
}

impl Handle {
    /// Sends `make(reply)` to the writer and waits for its answer; 503 if the writer is gone.
    pub async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Cmd) -> Result<T, ApiError> {
        let (tx, rx) = oneshot::channel();
        let gone = || ApiError::unavailable(format!("cluster `{}` is stopping", self.shared.name));
        self.tx.send(make(tx)).map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }
}
