//! The service's state: the clusters by name, recovered from `--state` at start, created and
//! deleted by the API.
use crate::cluster::{Cmd, Handle};
use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::writer::{self, Env, Meta, Writer};
use axum::http::StatusCode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

/// Longest cluster name.
pub const NAME_MAX: usize = 64;

/// Everything the handlers share.
pub struct App {
    /// Store, metrics and snapshot interval handed to every cluster.
    pub env: Env,
    /// `--state`/clusters.
    pub clusters_dir: PathBuf,
    /// Running clusters.
    pub clusters: RwLock<BTreeMap<String, Handle>>,
    /// Clusters on disk that could not be recovered, with why (503 until fixed by hand).
    pub broken: RwLock<BTreeMap<String, String>>,
    /// The bearer token, if `--token-file` was given.
    pub token: Option<Vec<u8>>,
    /// Largest event body accepted.
    pub max_event_bytes: usize,
    /// Largest scenario body accepted.
    pub max_scenario_bytes: usize,
    /// Serialises creations and deletions (one directory operation at a time).
    admin: Mutex<()>,
}

/// Checks a cluster name: 1 to 64 of `A-Z a-z 0-9 . _ -`, not starting with `.` or `-` (so
/// no path, no hidden file, no `..`).
pub fn check_name(name: &str) -> Result<(), ApiError> {
    let ok = !name.is_empty()
        && name.len() <= NAME_MAX
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && name.as_bytes()[0].is_ascii_alphanumeric();
    if ok {
        return Ok(());
    }
    let shown: String = name
        .chars()
        .take(80)
        .flat_map(char::escape_default)
        .collect();
    Err(ApiError::new(
        StatusCode::BAD_REQUEST,
        "name",
        format!(
            "cluster name `{shown}` refused: 1 to {NAME_MAX} letters, digits, `.`, `_` or `-`, \
             starting with a letter or digit"
        ),
    ))
}

/// A writer thread starting: its command channel and the answer of its start.
type Starting<E> = (
    std::sync::mpsc::Sender<Cmd>,
    std::sync::mpsc::Receiver<Result<Arc<crate::cluster::Shared>, E>>,
);

/// Starts a writer thread running the writer `make` builds there (an engine is not `Send`:
/// it is built and lives on its thread); [`ready`] waits for it.
fn start_writer<E: Send + 'static>(
    name: &str,
    make: impl FnOnce() -> Result<Writer, E> + Send + 'static,
) -> Result<Starting<E>, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name(format!("wal-{name}"))
        .spawn(move || match make() {
            Ok(w) => {
                let _ = ready_tx.send(Ok(w.shared()));
                w.run(rx)
            }
            Err(e) => {
                let _ = ready_tx.send(Err(e));
            }
        })
        .map_err(|e| e.to_string())?;
    Ok((tx, ready_rx))
}

/// The running cluster once its writer has started, or why it did not.
fn ready<E>(s: Starting<E>) -> Result<Handle, Result<E, String>> {
    match s.1.recv() {
        Ok(Ok(shared)) => Ok(Handle { shared, tx: s.0 }),
        Ok(Err(e)) => Err(Ok(e)),
        Err(_) => Err(Err("the writer thread failed to start".into())),
    }
}

impl App {
    /// Opens `state`, recovering every cluster in it.
    pub fn open(
        env: Env,
        state: &Path,
        token: Option<Vec<u8>>,
        max_event_bytes: usize,
        max_scenario_bytes: usize,
    ) -> Result<App, String> {
        let clusters_dir = state.join("clusters");
        env.store
            .create_dir_all(&clusters_dir)
            .map_err(|e| format!("{}: {e}", clusters_dir.display()))?;
        let app = App {
            env,
            clusters_dir,
            clusters: RwLock::new(BTreeMap::new()),
            broken: RwLock::new(BTreeMap::new()),
            token,
            max_event_bytes,
            max_scenario_bytes,
            admin: Mutex::new(()),
        };
        app.recover()?;
        Ok(app)
    }

    fn recover(&self) -> Result<(), String> {
        let t = Instant::now();
        let s = self.env.store.clone();
        let names = s.list(&self.clusters_dir).map_err(|e| e.to_string())?;
        // Every cluster recovers on its own thread at once; then each is waited for.
        let mut starting = Vec::new();
        for name in names {
            let dir = self.clusters_dir.join(&name);
            if name.starts_with('.') {
                // A creation or deletion a crash interrupted: never acknowledged.
                let _ = s.remove_dir_all(&dir);
                continue;
            }
            let env = self.env.clone();
            let started = start_writer(&name, move || writer::open(env, &dir));
            starting.push((name, started));
        }
        for (name, started) in starting {
            match started.map_err(Err).and_then(ready) {
                Ok(h) => {
                    self.env.metrics.recoveries.fetch_add(1, Ordering::Relaxed);
                    self.write_clusters().insert(name, h);
                }
                Err(e) => {
                    let e = e.unwrap_or_else(|s| s);
                    eprintln!("mlsched serve: cluster `{name}` not recovered: {e}");
                    self.write_broken().insert(name, e);
                }
            }
        }
        let m = &self.env.metrics;
        m.recovery_micros
            .store(t.elapsed().as_micros() as u64, Ordering::Relaxed);
        Ok(())
    }

    fn write_clusters(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<String, Handle>> {
        self.clusters.write().unwrap_or_else(|p| p.into_inner())
    }

    fn write_broken(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<String, String>> {
        self.broken.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The running cluster `name`: 404 if there is none, 503 if it is on disk but broken.
    pub fn get(&self, name: &str) -> Result<Handle, ApiError> {
        check_name(name)?;
        let found = self
            .clusters
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
            .cloned();
        if let Some(h) = found {
            return Ok(h);
        }
        let broken = self.broken.read().unwrap_or_else(|p| p.into_inner());
        match broken.get(name) {
            Some(why) => Err(ApiError::unavailable(format!(
                "cluster `{name}` could not be recovered: {why}"
            ))),
            None => Err(ApiError::no_cluster(name)),
        }
    }

    /// Creates a cluster (blocking: directory writes and the engine's validation).
    pub fn create(&self, meta: Meta, scenario: String) -> Result<serde_json::Value, ApiError> {
        check_name(&meta.name)?;
        let _admin = self.admin.lock().unwrap_or_else(|p| p.into_inner());
        let name = meta.name.clone();
        let exists = self
            .clusters
            .read()
            .map(|c| c.contains_key(&name))
            .unwrap_or(true)
            || self
                .broken
                .read()
                .map(|c| c.contains_key(&name))
                .unwrap_or(true);
        if exists {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "name",
                format!("cluster `{name}` already exists"),
            ));
        }
        let (env, dir) = (self.env.clone(), self.clusters_dir.clone());
        let h = start_writer(&name, move || Writer::create(env, &dir, meta, scenario))
            .map_err(Err)
            .and_then(ready)
            .map_err(|e| e.unwrap_or_else(ApiError::unavailable))?;
        let info = h.shared.info();
        self.write_clusters().insert(name, h);
        Ok(info)
    }

    /// Deletes a cluster: stops its writer, then removes its directory (renamed aside first,
    /// so a crash never leaves half of it under its name).
    pub async fn delete(&self, name: &str) -> Result<(), ApiError> {
        let h = self.get(name)?;
        h.ask(Cmd::Stop).await?;
        let _admin = self.admin.lock().unwrap_or_else(|p| p.into_inner());
        self.write_clusters().remove(name);
        h.shared.deleted.store(true, Ordering::SeqCst);
        h.shared.seq.send_modify(|_| {});
        let s = &self.env.store;
        let dir = self.clusters_dir.join(name);
        let aside = self.clusters_dir.join(format!(".deleted-{name}"));
        let _ = s.remove_dir_all(&aside);
        s.rename(&dir, &aside)
            .map_err(|e| ApiError::unavailable(format!("cannot delete: {e}")))?;
        let _ = s.remove_dir_all(&aside);
        Ok(())
    }

    /// Stops every writer (each commits what it holds first).
    pub fn stop_all(&self) {
        let all: Vec<Handle> = self.write_clusters().values().cloned().collect();
        for h in all {
            let (tx, rx) = tokio::sync::oneshot::channel();
            if h.tx.send(Cmd::Stop(tx)).is_ok() {
                let _ = rx.blocking_recv();
            }
        }
    }

    /// `/metrics` text.
    pub fn metrics_text(&self) -> String {
        let all: Vec<Handle> = self
            .clusters
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect();
        let rows: Vec<(String, &crate::metrics::ClusterCounters)> = all
            .iter()
            .map(|h| (h.shared.name.clone(), &h.shared.counters))
            .collect();
        self.env.metrics.render(&rows)
    }

    /// The metrics of the service.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.env.metrics
    }
}

#[cfg(test)]
mod tests {
    use super::check_name;

    #[test]
    fn names_refuse_paths_and_hidden_files() {
        for ok in ["a", "prod-1", "A.b_c", &"x".repeat(64)] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "../x",
            "a/b",
            ".hidden",
            "-x",
            "a b",
            "é",
            &"x".repeat(65),
            "a\\b",
            "a\0",
        ] {
            let e = check_name(bad).unwrap_err();
            assert_eq!(
                (e.status.as_u16(), e.field.as_str()),
                (400, "name"),
                "{bad}"
            );
        }
    }
}
