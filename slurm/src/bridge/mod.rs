//! `mlsched slurm bridge`: mlsched in front of a Slurm partition (`docs/control-planes.md`).
//!
//! Once per slot the bridge polls Slurm (`sinfo --json`, `squeue --json`), turns what changed
//! into open-world events ([`observe`]), feeds them and an `advance` to the engine, makes them
//! durable ([`journal`]), then carries out the plans of the slot ([`act`]). A restart rebuilds
//! the engine by re-feeding the journal; what Slurm shows then decides what is still to do, so
//! no job is started twice and none is forgotten.
mod act;
pub mod journal;
pub mod observe;
pub mod plans;

use crate::client::Client;
use crate::error::SlurmError;
use crate::job::Job;
use crate::runner::Runner;
use journal::{Journal, Line, Meta};
use mlsched_kernel::logfile::LogFileWriter;
use mlsched_scenario::engine::{Decision, Engine};
use mlsched_scenario::event::{self, Feeder, HostEvent};
use mlsched_scenario::run::RunOptions;
use mlsched_scenario::RunError;
use plans::Plans;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How the bridge runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The scenario template (kind `online`, no jobs, server ids = node names).
    pub scenario: String,
    /// The policy (`None`: the kind's own algorithm).
    pub policy: Option<String>,
    /// Wall seconds per slot.
    pub slot_seconds: f64,
    /// The state directory (journal and clock).
    pub state: PathBuf,
    /// The partition (every node when `None`).
    pub partition: Option<String>,
    /// Stop after this many slots in a row with no job of the bridge's pending or running.
    pub until_idle: Option<u32>,
    /// No progress lines on stderr.
    pub quiet: bool,
}

/// What a stopped bridge hands back.
pub struct Outcome {
    /// The result document (with `occupancy`), JSON.
    pub result: String,
    /// The decision log (`mlsched replay` reproduces it).
    pub log: Vec<u8>,
    /// Per Slurm action (start or cancel): the time the bridge spent before its `scontrol` call
    /// (from the poll that saw the slot's events, or from the slot's previous action).
    pub added: Vec<Duration>,
}

/// The bridge: its engine, what it knows of Slurm's jobs, its journal.
pub struct Bridge<R: Runner> {
    client: Client<R>,
    opts: Options,
    meta: Meta,
    engine: Engine<LogFileWriter>,
    plans: Plans,
    caps: observe::Capacities,
    journal: Journal,
    /// Slurm job id -> engine job id, for every job submitted to the engine.
    jobs: BTreeMap<u64, String>,
    /// Slurm job id -> the last plan number the bridge started (or was about to).
    started: HashMap<u64, u32>,
    /// Slurm jobs whose end was dealt with.
    ended: HashSet<u64>,
    /// Journal lines of the slot, appended before acting.
    pending: Vec<Line>,
    added: Vec<Duration>,
    /// When the last Slurm action returned (the time added by the next one counts from it).
    last_action: Option<Instant>,
}

fn engine_err(e: RunError) -> SlurmError {
    SlurmError::Request {
        message: format!("engine: {e}"),
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl<R: Runner> Bridge<R> {
    /// Checks the template against the cluster, opens the state and rebuilds the engine from
    /// its journal.
    pub fn open(client: Client<R>, opts: Options) -> Result<Self, SlurmError> {
        if !(opts.slot_seconds > 0.0 && opts.slot_seconds.is_finite()) {
            return Err(SlurmError::Request {
                message: format!("--slot-seconds must be > 0, got {}", opts.slot_seconds),
            });
        }
        // The journal first: a resumed run's nodes may have changed capacity since the
        // template was written (fed as `capacity` events), so only its servers are checked.
        let (journal, lines) = Journal::open(&opts.state)?;
        if lines.is_empty() {
            client.check_template(&opts.scenario, opts.partition.as_deref())?;
        } else {
            let nodes = client.partition_nodes(opts.partition.as_deref())?;
            crate::template::check_servers(&opts.scenario, &nodes)?;
        }
        let fresh = Meta {
            epoch_ms: now_ms(),
            slot_seconds: opts.slot_seconds,
            policy: opts.policy.clone(),
            scenario: opts.scenario.clone(),
        };
        let meta = journal::meta(&opts.state, fresh)?;
        let caps = observe::Capacities::from_template(&opts.scenario);
        let run = RunOptions {
            policy: opts.policy.clone(),
            all_categories: false,
        };
        let sink =
            mlsched_scenario::replay::host_log_writer(&opts.scenario, &run).map_err(engine_err)?;
        let engine = Engine::with_sink(&opts.scenario, &run, sink).map_err(engine_err)?;
        let mut b = Bridge {
            client,
            opts,
            meta,
            engine,
            plans: Plans::default(),
            caps,
            journal,
            jobs: BTreeMap::new(),
            started: HashMap::new(),
            ended: HashSet::new(),
            pending: Vec::new(),
            added: Vec::new(),
            last_action: None,
        };
        b.rebuild(lines)?;
        Ok(b)
    }

    /// Re-feeds the journal's events and re-reads its starts.
    fn rebuild(&mut self, lines: Vec<Line>) -> Result<(), SlurmError> {
        let n = lines.len();
        for (i, line) in lines.into_iter().enumerate() {
            match line {
                Line::Start(id, plan) => {
                    self.started.insert(id, plan);
                }
                Line::Advances(from, to) => {
                    for at in from..=to {
                        self.apply(&HostEvent::Advance { at }).map_err(|e| {
                            SlurmError::Request {
                                message: format!("journal line {} does not re-feed: {e}", i + 1),
                            }
                        })?;
                    }
                }
                Line::Event(v, slurm) => {
                    let ev = event::from_value(&v).map_err(|e| SlurmError::Request {
                        message: format!("journal line {}: {e}", i + 1),
                    })?;
                    self.apply(&ev).map_err(|e| SlurmError::Request {
                        message: format!("journal line {} does not re-feed: {e}", i + 1),
                    })?;
                    self.remember(&ev, slurm);
                }
            }
        }
        if n > 0 {
            self.say(format!(
                "bridge: rebuilt from {n} journal lines ({} jobs)",
                self.jobs.len()
            ));
        }
        Ok(())
    }

    /// Feeds `ev`, reading its decisions into the plans.
    fn apply(&mut self, ev: &HostEvent) -> Result<(), RunError> {
        let mut out: Vec<Decision> = Vec::new();
        let r = Feeder::new(&self.engine).apply(&mut self.engine, ev, Some(&mut |d| out.push(d)));
        for d in &out {
            self.plans.on_decision(d);
        }
        r
    }

    /// What the bridge keeps of an applied event: a submission's Slurm id, an end dealt with.
    fn remember(&mut self, ev: &HostEvent, slurm: Option<u64>) {
        match (ev, slurm) {
            (HostEvent::Submit { job, .. }, Some(id)) => {
                let name = job.get("id").and_then(|v| v.as_str()).unwrap_or("");
                self.jobs.insert(id, name.to_string());
            }
            (
                HostEvent::Capacity {
                    server, capacity, ..
                },
                _,
            ) => self.caps.fed(server, capacity),
            (HostEvent::Finished { job, .. } | HostEvent::Cancel { job, .. }, _) => {
                if let Some((&id, _)) = self.jobs.iter().find(|(_, j)| *j == job) {
                    self.ended.insert(id);
                }
            }
            _ => {}
        }
    }

    /// Feeds `ev` and queues it for the journal; an event the engine refuses is reported and
    /// dropped (`Ok(Some(the engine's error))`): a refused event leaves the engine as it was.
    fn feed(&mut self, ev: HostEvent, slurm: Option<u64>) -> Result<Option<String>, SlurmError> {
        match self.apply(&ev) {
            Ok(()) => {
                self.remember(&ev, slurm);
                self.pending.push(Line::Event(ev.to_value(), slurm));
                Ok(None)
            }
            Err(RunError::Input(e)) => {
                self.say(format!("bridge: event {} refused: {e}", ev.to_json()));
                Ok(Some(e.to_string()))
            }
            Err(e) => Err(engine_err(e)),
        }
    }

    fn say(&self, line: String) {
        if !self.opts.quiet {
            eprintln!("{line}");
        }
    }

    /// The slot the wall clock is in.
    fn slot_now(&self) -> u32 {
        let ms = now_ms().saturating_sub(self.meta.epoch_ms);
        let slot = (ms as f64 / 1000.0 / self.meta.slot_seconds).floor();
        slot.min(f64::from(u32::MAX - 1)) as u32
    }

    /// Sleeps until the next slot begins (or `stop` is set).
    fn wait_next_slot(&self, stop: &AtomicBool) {
        let slot_ms = self.meta.slot_seconds * 1000.0;
        let next = self.meta.epoch_ms as f64 + (f64::from(self.slot_now()) + 1.0) * slot_ms;
        while !stop.load(Ordering::SeqCst) && (now_ms() as f64) < next {
            let left = (next - now_ms() as f64).clamp(1.0, 50.0);
            std::thread::sleep(Duration::from_millis(left as u64));
        }
    }

    /// Runs until `stop` is set or `--until-idle` slots pass idle; finishes the engine.
    pub fn run(mut self, stop: &AtomicBool) -> Result<Outcome, SlurmError> {
        let mut idle = 0u32;
        while !stop.load(Ordering::SeqCst) {
            let t = self.slot_now().max(self.engine.now().unwrap_or(0));
            if self.engine.now() == Some(t) && self.engine.advanced() {
                self.wait_next_slot(stop);
                continue;
            }
            match self.tick(t)? {
                Some(0) => idle += 1,
                Some(_) => idle = 0,
                None => {}
            }
            if self.opts.until_idle.is_some_and(|n| idle >= n) {
                self.say(format!(
                    "bridge: idle for {idle} slots, stopping at slot {t}"
                ));
                break;
            }
        }
        let result = self.engine.finish(&mut |_| {}).map_err(engine_err)?;
        Ok(Outcome {
            result: result.to_json(),
            log: self.engine.into_sink().finish(),
            added: self.added,
        })
    }

    /// One slot: poll, events, advance, journal, act. Returns the number of the bridge's jobs
    /// still pending or running in Slurm, `None` when the poll failed (nothing was fed: the
    /// slot is tried again).
    fn tick(&mut self, t: u32) -> Result<Option<usize>, SlurmError> {
        let partition = self.opts.partition.clone();
        let polled = self
            .client
            .partition_nodes(partition.as_deref())
            .and_then(|n| Ok((n, self.client.jobs()?)));
        let (nodes, jobs) = match polled {
            Ok(p) => p,
            Err(e) => {
                self.say(format!(
                    "bridge: slot {t}: Slurm poll failed, retrying: {e}"
                ));
                return Ok(None);
            }
        };
        let seen = Instant::now();
        for node in &nodes {
            let down = self
                .engine
                .server_index(&node.name)
                .map(|h| self.engine.is_down(h));
            if let Some(ev) = observe::node_event(t, node, down) {
                self.feed(ev, None)?;
            }
            if let Some(ev) = self.caps.event(t, node) {
                self.feed(ev, None)?;
            }
        }
        self.end_events(t, &jobs)?;
        self.submissions(t, &jobs, partition.as_deref())?;
        if !(self.engine.now() == Some(t) && self.engine.advanced()) {
            self.feed(HostEvent::Advance { at: t }, None)?;
        }
        let lines = std::mem::take(&mut self.pending);
        self.journal.append(&lines)?;
        self.act(t, &jobs, seen)?;
        let active = self
            .jobs
            .keys()
            .filter(|id| jobs.iter().any(|j| j.id == **id && !j.state.is_end()))
            .count();
        Ok(Some(active))
    }

    fn end_events(&mut self, t: u32, jobs: &[Job]) -> Result<(), SlurmError> {
        for job in jobs.iter().filter(|j| j.state.is_end()) {
            if self.ended.contains(&job.id) {
                continue;
            }
            let Some(id) = self.jobs.get(&job.id).cloned() else {
                continue;
            };
            let Some(index) = self.engine.job_index(&id) else {
                continue;
            };
            let status = self.engine.status(index);
            self.ended.insert(job.id);
            if let Some(ev) = observe::end_event(t, job, index, &id, status, &self.plans) {
                self.feed(ev, None)?;
            }
        }
        Ok(())
    }

    fn submissions(
        &mut self,
        t: u32,
        jobs: &[Job],
        partition: Option<&str>,
    ) -> Result<(), SlurmError> {
        for job in jobs {
            if self.jobs.contains_key(&job.id) {
                continue;
            }
            match observe::new_job(job, partition) {
                None => {}
                Some(observe::NewJob::Refuse(why)) => self.refuse(job, &why),
                Some(observe::NewJob::Submit(obj)) => {
                    let ev = HostEvent::Submit { at: t, job: obj };
                    // The engine's error (its subject, field and problem) goes into the
                    // job's comment, where the user reads why.
                    match self.feed(ev, Some(job.id))? {
                        Some(e) => self.refuse(job, &format!("refused by the engine: {e}")),
                        None => {
                            self.say(format!("bridge: slot {t}: Slurm job {} submitted", job.id))
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn refuse(&mut self, job: &Job, why: &str) {
        self.say(format!("bridge: Slurm job {} refused: {why}", job.id));
        if let Err(e) = self.client.cancel(job, why) {
            self.say(format!("bridge: cannot cancel Slurm job {}: {e}", job.id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::Recorded;
    use crate::template::{self, Kind};
    use std::path::Path;

    const SINFO_IDLE: &str = include_str!("../../tests/fixtures/sinfo-idle.json");
    const SQUEUE_ENDED: &str = include_str!("../../tests/fixtures/squeue-ended.json");
    const SQUEUE_MIXED: &str = include_str!("../../tests/fixtures/squeue-mixed.json");

    fn state(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("mlsched-bridge-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// A bridge on recorded `sinfo` and `squeue` output, its template the idle cluster's.
    fn bridge(sinfo: &str, squeue: &str, state: &Path) -> Bridge<Recorded> {
        let nodes = crate::node::parse_sinfo("sinfo --json", SINFO_IDLE).unwrap();
        let runner = Recorded::new()
            .answer("sinfo --json", sinfo)
            .answer("squeue --json --states=all", squeue);
        let opts = Options {
            scenario: template::write(Kind::Online, &nodes).unwrap().json,
            policy: None,
            slot_seconds: 60.0,
            state: state.to_path_buf(),
            partition: None,
            until_idle: None,
            quiet: true,
        };
        Bridge::open(Client::new(runner), opts).unwrap()
    }

    fn capacity_lines(state: &Path) -> Vec<Value> {
        let (_, lines) = Journal::open(state).unwrap();
        lines
            .into_iter()
            .filter_map(|l| match l {
                Line::Event(v, _) if v["event"] == "capacity" => Some(v),
                _ => None,
            })
            .collect()
    }

    use serde_json::Value;

    #[test]
    fn a_gres_change_is_fed_once_and_not_again_after_a_restart() {
        let dir = state("capacity");
        let mut b = bridge(SINFO_IDLE, SQUEUE_ENDED, &dir);
        b.tick(0).unwrap();
        drop(b);
        assert!(capacity_lines(&dir).is_empty());
        // n2's GRES goes from gpu:4 to gpu:2 (the recorded output, that one field changed).
        let at = SINFO_IDLE.find("\"name\": \"n2\"").unwrap();
        let gres = SINFO_IDLE[..at].rfind("\"gres\": \"gpu:4\"").unwrap();
        let changed = format!(
            "{}\"gres\": \"gpu:2\"{}",
            &SINFO_IDLE[..gres],
            &SINFO_IDLE[gres + "\"gres\": \"gpu:4\"".len()..]
        );
        // The resumed bridge accepts the template (servers only) and feeds the change.
        let mut b = bridge(&changed, SQUEUE_ENDED, &dir);
        b.tick(1).unwrap();
        drop(b);
        let fed = capacity_lines(&dir);
        assert_eq!(
            fed,
            [
                serde_json::json!({"at": 1, "event": "capacity", "server": "n2", "capacity": [2.0, 8.0, 1000.0]})
            ]
        );
        // Restarted again: the journal's capacity is the one in force, nothing is re-fed.
        let mut b = bridge(&changed, SQUEUE_ENDED, &dir);
        b.tick(2).unwrap();
        drop(b);
        assert_eq!(capacity_lines(&dir).len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_submission_the_engine_refuses_is_cancelled_with_its_error() {
        let dir = state("refused");
        // Job 5 is held with an `mlsched:` comment; make its JSON whole but without the
        // fields a job of kind online needs.
        let squeue = SQUEUE_MIXED.replace(
            "\"comment\": \"mlsched:{\\\"weight\\\":\"",
            "\"comment\": \"mlsched:{\\\"weight\\\": 2}\"",
        );
        assert_ne!(squeue, SQUEUE_MIXED);
        let mut b = bridge(SINFO_IDLE, &squeue, &dir);
        b.tick(0).unwrap();
        let calls = b.client.runner().calls();
        let update = calls
            .iter()
            .find(|c| c.starts_with("scontrol update jobid=5 Comment="))
            .expect("job 5 cancelled");
        let reason = update
            .split_once(" mlsched-cancel:")
            .map(|(_, r)| r)
            .unwrap();
        assert_eq!(
            reason,
            "refused by the engine: event, field `job`: missing field `epochs`"
        );
        assert!(update.contains("Comment=mlsched:{") && update.contains("\"weight\":2"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The engine a bridge on `state` rebuilds, finished: its result and its decision log.
    fn rebuilt(state: &Path) -> (String, Vec<u8>) {
        let mut b = bridge(SINFO_IDLE, SQUEUE_ENDED, state);
        let result = b.engine.finish(&mut |_| {}).unwrap().to_json();
        (result, b.engine.into_sink().finish())
    }

    #[test]
    fn a_compacted_journal_rebuilds_the_same_engine() {
        let dir = state("compacted");
        // Job 5 held with a whole job JSON: a submission, a plan, starts (which fail: the
        // recorded runner has no `scontrol` answers) among the advances.
        let job = r#"mlsched:{"weight": 100, "epochs": 1, "chunks": 2, "minibatches_per_chunk": 1, "minibatch_time": [8], "update_time": [0], "gradient_size": 0}"#;
        let squeue = SQUEUE_MIXED.replace(
            r#""mlsched:{\"weight\":""#,
            &serde_json::to_string(job).unwrap(),
        );
        assert_ne!(squeue, SQUEUE_MIXED);
        let mut b = bridge(SINFO_IDLE, &squeue, &dir);
        for t in (0..12).filter(|t| *t != 7) {
            b.tick(t).unwrap();
        }
        drop(b);
        let copy = state("compacted-copy");
        std::fs::create_dir_all(&copy).unwrap();
        for f in ["bridge.json", "journal.jsonl"] {
            std::fs::copy(dir.join(f), copy.join(f)).unwrap();
        }
        let (mut j, lines) = Journal::open(&copy).unwrap();
        assert!(lines
            .iter()
            .any(|l| matches!(l, Line::Event(v, Some(5)) if v["event"] == "submit")));
        j.compact().unwrap();
        drop(j);
        let (_, compacted) = Journal::open(&copy).unwrap();
        assert!(compacted.len() < lines.len(), "{compacted:?}");
        assert!(compacted.contains(&Line::Advances(8, 11)), "{compacted:?}");
        assert_eq!(rebuilt(&copy), rebuilt(&dir));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&copy);
    }
}
