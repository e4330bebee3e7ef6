//! The bridge's durable state under `--state DIR`: `journal.jsonl`, one JSON object a line,
//! appended and fsync'd before the bridge acts on it.
//!
//! ```text
//! {"event": <host event>, "slurm": <Slurm job id of a submit>}   an event fed to the engine
//! {"start": <Slurm job id>, "plan": g}                           about to start plan g of a job
//! {"advance": [a, b]}                    an `advance` at every slot a, a + 1, ..., b (compacted)
//! ```
//! and `bridge.json`: the epoch (slot 0's wall time), the slot length, the policy and the
//! scenario, so a restart keeps the clock and refuses another scenario. A torn last line (a
//! kill mid-write) is dropped: nothing was acted on after it.
//!
//! Every slot adds an `advance` line, so the journal is compacted when it has doubled since the
//! last compaction (and is past [`COMPACT_MIN`] bytes): runs of `advance` events at consecutive
//! slots become one `{"advance": [a, b]}` line, every other line is kept in order. A restart
//! re-feeds a run as the same advances one by one, so it rebuilds the same engine. The rewrite
//! is atomic: a temporary file, fsync'd, renamed over the journal, the directory fsync'd; a
//! kill before the rename leaves the old journal (and a stale temporary, removed on open).
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
    /// An `advance` event at every slot from `.0` to `.1`, both included (a compacted run).
    Advances(u32, u32),
}

/// The journal is compacted once it passes this size (and then when it doubles).
pub const COMPACT_MIN: u64 = 64 * 1024;

impl Line {
    fn to_json(&self) -> String {
        match self {
            Line::Event(ev, None) => json!({ "event": ev }).to_string(),
            Line::Event(ev, Some(id)) => json!({ "event": ev, "slurm": id }).to_string(),
            Line::Start(id, plan) => json!({ "start": id, "plan": plan }).to_string(),
            Line::Advances(a, b) => json!({ "advance": [a, b] }).to_string(),
        }
    }

    /// The slots of an `advance` event or run, as `(first, last)`.
    fn advances(&self) -> Option<(u32, u32)> {
        match self {
            Line::Advances(a, b) => Some((*a, *b)),
            Line::Event(v, None)
                if v["event"] == "advance" && v.as_object().is_some_and(|o| o.len() == 2) =>
            {
                let at = u32::try_from(v["at"].as_u64()?).ok()?;
                Some((at, at))
            }
            _ => None,
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
        if let Some(run) = v.get("advance") {
            let slot = |i: usize| u32::try_from(run.get(i)?.as_u64()?).ok();
            return Some(Line::Advances(slot(0)?, slot(1)?)).filter(|_| slot(0) <= slot(1));
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

/// `lines` with every run of advances at consecutive slots as one [`Line::Advances`].
pub fn compact(lines: &[Line]) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    for line in lines {
        let Some((a, b)) = line.advances() else {
            out.push(line.clone());
            continue;
        };
        match out.last_mut() {
            Some(Line::Advances(_, last)) if last.checked_add(1) == Some(a) => *last = b,
            _ => out.push(Line::Advances(a, b)),
        }
    }
    out
}

/// The open journal.
pub struct Journal {
    file: File,
    path: PathBuf,
    dir: PathBuf,
    /// Its size in bytes.
    size: u64,
    /// The size at which it is compacted next.
    compact_at: u64,
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
        // A compaction killed before its rename: the journal itself is whole.
        let _ = std::fs::remove_file(dir.join("journal.jsonl.tmp"));
        let (lines, good) = read(&path)?;
        let file = open_append(&path)?;
        // Drop a torn tail so the next append starts on a line of its own.
        file.set_len(good as u64)
            .map_err(|e| io(&path, "truncate", e))?;
        let mut journal = Journal {
            file,
            path,
            dir: dir.to_path_buf(),
            size: good as u64,
            compact_at: COMPACT_MIN,
        };
        journal.compact_if_due()?;
        Ok((journal, lines))
    }

    /// Compacts when the journal has reached [`Self::compact_at`].
    fn compact_if_due(&mut self) -> Result<(), SlurmError> {
        if self.size >= self.compact_at {
            self.compact()?;
        }
        Ok(())
    }

    /// Rewrites the journal with its runs of advances compacted ([`compact`]), atomically; the
    /// next compaction is due when it has doubled.
    pub fn compact(&mut self) -> Result<(), SlurmError> {
        let (lines, _) = read(&self.path)?;
        let text = to_text(&compact(&lines));
        let tmp = self.dir.join("journal.jsonl.tmp");
        let mut f = File::create(&tmp).map_err(|e| io(&tmp, "create", e))?;
        f.write_all(text.as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(|e| io(&tmp, "write", e))?;
        drop(f);
        std::fs::rename(&tmp, &self.path).map_err(|e| io(&self.path, "replace", e))?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io(&self.dir, "sync", e))?;
        self.file = open_append(&self.path)?;
        self.size = text.len() as u64;
        self.compact_at = COMPACT_MIN.max(self.size.saturating_mul(2));
        Ok(())
    }

    /// Appends `lines` and fsyncs them: durable when this returns.
    pub fn append(&mut self, lines: &[Line]) -> Result<(), SlurmError> {
        if lines.is_empty() {
            return Ok(());
        }
        let text = to_text(lines);
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(|e| io(&self.path, "append", e))?;
        self.size += text.len() as u64;
        self.compact_if_due()
    }
}

fn to_text(lines: &[Line]) -> String {
    let mut text = String::new();
    for l in lines {
        text.push_str(&l.to_json());
        text.push('\n');
    }
    text
}

fn open_append(path: &Path) -> Result<File, SlurmError> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| io(path, "open", e))
}

/// The journal's intact lines and their length in bytes (a torn last line is left out).
fn read(path: &Path) -> Result<(Vec<Line>, usize), SlurmError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(path, "read", e)),
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
    Ok((lines, good))
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

    fn advance(at: u32) -> Line {
        Line::Event(json!({"at": at, "event": "advance"}), None)
    }

    /// Every line with its runs of advances one event a slot (what a rebuild feeds).
    fn expand(lines: &[Line]) -> Vec<Line> {
        let mut out = Vec::new();
        for l in lines {
            match l {
                Line::Advances(a, b) => out.extend((*a..=*b).map(advance)),
                other => out.push(other.clone()),
            }
        }
        out
    }

    #[test]
    fn compaction_merges_runs_of_advances_atomically_and_re_feeds_the_same() {
        let dir = std::env::temp_dir().join(format!("mlsched-compact-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (mut j, _) = Journal::open(&dir).unwrap();
        let submit = Line::Event(
            json!({"at": 5, "event": "submit", "job": {"id": "7"}}),
            Some(7),
        );
        // Slots 0..=9 with a submission and a start at 5, slot 10 skipped (the bridge was down).
        let mut written: Vec<Line> = Vec::new();
        for t in (0..40).filter(|t| *t != 10) {
            let mut slot = vec![advance(t)];
            if t == 5 {
                slot = vec![submit.clone(), advance(5), Line::Start(7, 1)];
            }
            j.append(&slot).unwrap();
            written.extend(slot);
        }
        let before = std::fs::metadata(dir.join("journal.jsonl")).unwrap().len();
        j.compact_at = 1;
        j.append(&[advance(40)]).unwrap();
        written.push(advance(40));
        assert!(j.size < before);
        assert_eq!(j.compact_at, COMPACT_MIN);
        drop(j);
        // A stale temporary of a compaction killed before its rename is ignored.
        std::fs::write(dir.join("journal.jsonl.tmp"), "{\"advance\": [0, 99]}\n").unwrap();
        let want = vec![
            Line::Advances(0, 4),
            submit.clone(),
            Line::Advances(5, 5),
            Line::Start(7, 1),
            Line::Advances(6, 9),
            Line::Advances(11, 40),
        ];
        let (mut j, lines) = Journal::open(&dir).unwrap();
        assert_eq!(lines, want);
        assert_eq!(expand(&lines), written);
        assert!(!dir.join("journal.jsonl.tmp").exists());
        // Appends go on after the compacted lines; a torn one is dropped; compacting again
        // extends the last run.
        j.append(&[advance(41)]).unwrap();
        drop(j);
        let path = dir.join("journal.jsonl");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"advance\": [42,").unwrap();
        drop(f);
        let (mut j, lines) = Journal::open(&dir).unwrap();
        assert_eq!(lines.last(), Some(&advance(41)));
        j.compact().unwrap();
        let (_, lines) = Journal::open(&dir).unwrap();
        assert_eq!(lines.last(), Some(&Line::Advances(11, 41)));
        assert_eq!(lines.len(), want.len());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn advance_runs_parse_only_when_whole() {
        assert_eq!(
            Line::parse(r#"{"advance": [3, 9]}"#),
            Some(Line::Advances(3, 9))
        );
        assert_eq!(Line::parse(r#"{"advance": [9, 3]}"#), None);
        assert_eq!(Line::parse(r#"{"advance": [3]}"#), None);
        assert_eq!(compact(&[advance(3)]), [Line::Advances(3, 3)]);
        // A submission at an advance's slot is not an advance.
        let other = Line::Event(json!({"at": 3, "event": "advance", "x": 1}), None);
        assert_eq!(compact(std::slice::from_ref(&other)), [other]);
    }
}
