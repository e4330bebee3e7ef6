//! The bridge's durable state under `--state DIR`: `journal.jsonl`, one JSON object a line,
//! appended and fsync'd before the bridge acts on it.
//!
//! ```text
//! {"event": <host event>, "slurm": <Slurm job id of a submit>}   an event fed to the engine
//! {"start": <Slurm job id>, "plan": g}                           about to start plan g of a job
//! ```
//! and `bridge.json`: the epoch (slot 0's wall time), the slot length, the policy and the
//! scenario, so a restart keeps the clock and refuses another scenario. A torn last line (a
//! kill mid-write) is dropped: nothing was acted on after it.
use crate::error::SlurmError;
use serde_json::{json, Value};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One line of the journal.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// An event fed to the engine (with the Slurm job id of a submission).
    Event(Value, Option<u64>),
    /// The bridge is about to start plan `plan` of Slurm job `job`.
    Start(u64, u32),
}

impl Line {
    fn to_json(&self) -> String {
        match self {
            Line::Event(ev, None) => json!({ "event": ev }).to_string(),
            Line::Event(ev, Some(id)) => json!({ "event": ev, "slurm": id }).to_string(),
            Line::Start(id, plan) => json!({ "start": id, "plan": plan }).to_string(),
        }
    }

    fn parse(text: &str) -> Option<Line> {
        let v: Value = serde_json::from_str(text).ok()?;
        if let Some(ev) = v.get("event") {
            return Some(Line::Event(
                ev.clone(),
                v.get("slurm").and_then(Value::as_u64),
            ));
        }
        let id = v.get("start")?.as_u64()?;
        let plan = u32::try_from(v.get("plan")?.as_u64()?).ok()?;
        Some(Line::Start(id, plan))
    }
}

/// What `bridge.json` holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    /// Slot 0's wall time, milliseconds since the Unix epoch.
    pub epoch_ms: u64,
    /// The slot length in seconds.
    pub slot_seconds: f64,
    /// The policy (`None`: the kind's own algorithm).
    pub policy: Option<String>,
    /// The scenario template's text.
    pub scenario: String,
}

/// The open journal.
pub struct Journal {
    file: File,
    path: PathBuf,
}

fn io(path: &Path, what: &str, e: std::io::Error) -> SlurmError {
    SlurmError::Request {
        message: format!("state {}: cannot {what}: {e}", path.display()),
    }
}

impl Journal {
    /// Opens (creating) `dir`'s journal; returns it with its intact lines.
    pub fn open(dir: &Path) -> Result<(Journal, Vec<Line>), SlurmError> {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, "create", e))?;
        let path = dir.join("journal.jsonl");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(&path, "read", e)),
        };
        let mut lines = Vec::new();
        let mut good = 0usize;
        for raw in text.split_inclusive('\n') {
            match Line::parse(raw.trim_end()).filter(|_| raw.ends_with('\n')) {
                Some(l) => lines.push(l),
                None => break,
            }
            good += raw.len();
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| io(&path, "open", e))?;
        // Drop a torn tail so the next append starts on a line of its own.
        file.set_len(good as u64)
            .map_err(|e| io(&path, "truncate", e))?;
        Ok((Journal { file, path }, lines))
    }

    /// Appends `lines` and fsyncs them: durable when this returns.
    pub fn append(&mut self, lines: &[Line]) -> Result<(), SlurmError> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for l in lines {
            text.push_str(&l.to_json());
            text.push('\n');
        }
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(|e| io(&self.path, "append", e))
    }
}

/// Reads `dir/bridge.json`, or writes `fresh` there when there is none; a different slot
/// length, policy or scenario is refused.
pub fn meta(dir: &Path, fresh: Meta) -> Result<Meta, SlurmError> {
    let path = dir.join("bridge.json");
    std::fs::create_dir_all(dir).map_err(|e| io(dir, "create", e))?;
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let v = json!({
                "epoch_ms": fresh.epoch_ms, "slot_seconds": fresh.slot_seconds,
                "policy": fresh.policy, "scenario": fresh.scenario,
            });
            let tmp = dir.join("bridge.json.tmp");
            std::fs::write(&tmp, v.to_string()).map_err(|e| io(&tmp, "write", e))?;
            File::open(&tmp)
                .and_then(|f| f.sync_all())
                .map_err(|e| io(&tmp, "sync", e))?;
            std::fs::rename(&tmp, &path).map_err(|e| io(&path, "write", e))?;
            return Ok(fresh);
        }
        Err(e) => return Err(io(&path, "read", e)),
    };
    let v: Value = serde_json::from_str(&text).map_err(|e| io(&path, "parse", e.into()))?;
    let old = Meta {
        epoch_ms: v["epoch_ms"].as_u64().unwrap_or(0),
        slot_seconds: v["slot_seconds"].as_f64().unwrap_or(0.0),
        policy: v["policy"].as_str().map(str::to_string),
        scenario: v["scenario"].as_str().unwrap_or("").to_string(),
    };
    let differs = if old.slot_seconds != fresh.slot_seconds {
        Some("--slot-seconds")
    } else if old.policy != fresh.policy {
        Some("--policy")
    } else if old.scenario != fresh.scenario {
        Some("--scenario")
    } else {
        None
    };
    match differs {
        Some(what) => Err(SlurmError::Request {
            message: format!(
                "state {}: {what} differs from the run this state belongs to (use a new --state)",
                dir.display()
            ),
        }),
        None => Ok(old),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_a_torn_tail_is_dropped() {
        let dir = std::env::temp_dir().join(format!("mlsched-journal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (mut j, lines) = Journal::open(&dir).unwrap();
        assert!(lines.is_empty());
        let want = vec![
            Line::Event(json!({"at": 1, "event": "advance"}), None),
            Line::Event(
                json!({"at": 2, "event": "submit", "job": {"id": "7"}}),
                Some(7),
            ),
            Line::Start(7, 1),
        ];
        j.append(&want).unwrap();
        drop(j);
        let path = dir.join("journal.jsonl");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"start\": 8, \"pl").unwrap();
        drop(f);
        let (mut j, lines) = Journal::open(&dir).unwrap();
        assert_eq!(lines, want);
        j.append(&[Line::Start(8, 1)]).unwrap();
        let (_, lines) = Journal::open(&dir).unwrap();
        assert_eq!(lines.len(), 4);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
