//! Decision-log files for every kind: [`record`] runs a scenario and writes its log
//! (`mlsched run --log FILE`); [`replay`] re-executes the inputs stored in a log and compares
//! every record (`mlsched replay FILE`): the decisions and the event records that frame them.
//!
//! The file format is the kernel's ([`mlsched_kernel::logfile`]). A replay first verifies the
//! whole file (every checksum and the end frame), so a truncated or corrupted log is an error
//! before anything runs and a partial log is never reported as a successful replay.
use crate::doc;
use crate::engine::Engine;
use crate::error::{InputError, RunError};
use crate::records::{decode, field_differences, Decoded};
use crate::run::{run_doc, ResultDoc, RunOptions};
use mlsched_kernel::api::Event;
use mlsched_kernel::log::{
    LogSink, VecSink, TAG_EVENT_ARRIVAL, TAG_EVENT_CANCEL, TAG_EVENT_CAPACITY, TAG_EVENT_FINISH,
    TAG_EVENT_HOST, TAG_EVENT_JSON, TAG_EVENT_SERVER_DOWN, TAG_EVENT_SERVER_UP, TAG_EVENT_SLOT,
};
use mlsched_kernel::logfile::{Inputs, LogFileError, LogFileWriter, LogReader};
use serde_json::Value;
use std::fmt;

/// The scenario's `seed` (placement, preempt, route), or 0: stored in the log header.
pub fn seed_of(scenario: &str) -> u64 {
    serde_json::from_str::<serde_json::Value>(scenario)
        .ok()
        .and_then(|v| v.get("seed").and_then(|s| s.as_u64()))
        .unwrap_or(0)
}

/// Runs `scenario` with `opts`, returning the result and the log file's bytes.
pub fn record(scenario: &str, opts: &RunOptions) -> Result<(ResultDoc, Vec<u8>), RunError> {
    record_observed(scenario, opts, &mut |_| {})
}

/// [`record`], telling `observe` after every slot how far the run has come.
pub fn record_observed(
    scenario: &str,
    opts: &RunOptions,
    observe: &mut dyn FnMut(crate::engine::RunProgress),
) -> Result<(ResultDoc, Vec<u8>), RunError> {
    let d = doc::parse(scenario)?;
    let inputs = Inputs {
        scenario,
        policy: opts.policy.as_deref(),
        all_categories: opts.all_categories,
    };
    let mut w = LogFileWriter::new(&inputs, seed_of(scenario))
        .map_err(|e| RunError::kernel(e, format!("cannot write the log: {e}")))?;
    let result = crate::run::run_doc_observed(&d, opts, &mut w, observe)?;
    Ok((result, w.finish()))
}

/// Runs `scenario` with `opts` and the host `events` ([`crate::engine::Engine::run_events`];
/// `mlsched run --events`), returning the result and the bytes of a host-driven log (its
/// [`TAG_EVENT_HOST`] marker first, so [`replay`] re-feeds the logged events).
pub fn record_events(
    scenario: &str,
    opts: &RunOptions,
    events: &[crate::event::HostEvent],
    observe: &mut dyn FnMut(crate::engine::RunProgress),
) -> Result<(ResultDoc, Vec<u8>), RunError> {
    let w = host_log_writer(scenario, opts)?;
    let mut e = Engine::with_sink(scenario, opts, w)?;
    let result = e.run_events_observed(events, observe)?;
    Ok((result, e.into_sink().finish()))
}

/// One record as compared by a replay: tag and postcard body.
pub type RecordBytes = (u8, Vec<u8>);

/// The first record where the re-run differs from the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// 0-based index of the record (event records included).
    pub index: u64,
    /// The record in the log (`None`: the log ended here).
    pub expected: Option<RecordBytes>,
    /// The record of the re-run (`None`: the re-run ended here).
    pub got: Option<RecordBytes>,
    /// The scenario's kind (to decode the records).
    pub kind: String,
    /// The scenario's job ids, input order (to name the job).
    pub job_ids: Vec<String>,
}

fn hex(tag: u8, body: &[u8]) -> String {
    let hex: String = body.iter().take(48).map(|b| format!("{b:02x}")).collect();
    let more = if body.len() > 48 { "..." } else { "" };
    format!("tag {tag:#04x}, {} bytes [{hex}{more}]", body.len())
}

impl Difference {
    fn decoded(&self, r: &Option<RecordBytes>) -> Option<Decoded> {
        r.as_ref().and_then(|(t, b)| decode(&self.kind, *t, b))
    }

    /// "oasis decision of job `j3`"
    fn what(&self, d: &Decoded) -> String {
        match d.job {
            Some(j) => {
                let id = self.job_ids.get(j as usize).map_or("?", String::as_str);
                format!("{} of job `{}`", d.name, crate::text::terminal_safe(id))
            }
            None => d.name.to_string(),
        }
    }

    fn show(&self, r: &Option<RecordBytes>, end: &str) -> String {
        match (r, self.decoded(r)) {
            (None, _) => end.to_string(),
            (Some(_), Some(d)) => format!("{} {}", self.what(&d), Value::Object(d.fields.clone())),
            (Some((t, b)), None) => hex(*t, b),
        }
    }
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record {} differs: ", self.index)?;
        if let (Some(e), Some(g)) = (self.decoded(&self.expected), self.decoded(&self.got)) {
            let fields = field_differences(&e, &g);
            if e.name == g.name && e.job == g.job && !fields.is_empty() {
                return write!(f, "{}: {}", self.what(&e), fields.join("; "));
            }
        }
        write!(
            f,
            "expected {}, found {}",
            self.show(&self.expected, "the end of the log"),
            self.show(&self.got, "the end of the run")
        )
    }
}

/// Why a replay failed.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplayError {
    /// The log file is truncated, corrupted or of another version (nothing was run).
    Log(LogFileError),
    /// The stored inputs no longer parse or run.
    Run(RunError),
    /// A decision differs.
    Differs(Difference),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Log(e) => write!(f, "bad log: {e}"),
            ReplayError::Run(e) => write!(f, "the logged inputs do not run: {e}"),
            ReplayError::Differs(d) => d.fmt(f),
        }
    }
}

impl std::error::Error for ReplayError {}

impl From<ReplayError> for RunError {
    /// A bad log is bad input (exit 2); a differing decision is a runtime failure (exit 1).
    fn from(e: ReplayError) -> Self {
        match e {
            ReplayError::Log(l) => RunError::Input(InputError::new("log", "", l.to_string())),
            ReplayError::Run(r) => r,
            d @ ReplayError::Differs(_) => RunError::runtime(d.to_string()),
        }
    }
}

/// A replay in which every record matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// Decision records compared.
    pub records: u64,
    /// Event records compared (arrivals, slots, finishes the driver fed).
    pub events: u64,
    /// The log's final checksum (the result's `log_hash`).
    pub log_hash: String,
}

impl fmt::Display for Replayed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} records identical (log_hash {})",
            self.records, self.log_hash
        )
    }
}

fn job_ids(d: &doc::ScenarioDoc) -> Vec<String> {
    crate::limit::job_ids(d)
}

/// Re-feeds the event records of a host-driven log (first record [`TAG_EVENT_HOST`], written
/// by `mlsched serve`): the events a host chose, not the scenario's arrivals. The run was
/// finished if the log holds records after its last event (the scheduler's final decisions).
fn refeed(
    d: &doc::ScenarioDoc,
    opts: &RunOptions,
    logged: &[(u8, &[u8])],
) -> Result<VecSink, ReplayError> {
    let run = ReplayError::Run;
    let bad = |what: &str| {
        run(RunError::Input(InputError::new(
            "log",
            "events",
            what.to_string(),
        )))
    };
    let mut sink = VecSink::new();
    sink.event(TAG_EVENT_HOST, &HOST_MARKER_VERSION)
        .map_err(|e| run(RunError::kernel(e, e.to_string())))?;
    let mut e = Engine::from_doc(d, opts, sink, 0).map_err(run)?;
    // A submission is logged as its JSON, then the arrival it causes: re-submitting it feeds
    // that arrival again, so the logged one is skipped.
    let mut submitted = false;
    for &(tag, body) in &logged[1..] {
        let decode = || bad("an event record does not decode");
        let ev = match tag {
            TAG_EVENT_ARRIVAL if std::mem::take(&mut submitted) => continue,
            TAG_EVENT_ARRIVAL | TAG_EVENT_FINISH | TAG_EVENT_CANCEL => {
                let (now, j): (u32, u32) = postcard::from_bytes(body).map_err(|_| decode())?;
                let ev = match tag {
                    TAG_EVENT_ARRIVAL => Event::JobArrived(j),
                    TAG_EVENT_FINISH => Event::JobFinished(j),
                    _ => Event::JobCancelled(j),
                };
                (now, ev)
            }
            TAG_EVENT_SLOT => {
                let now: u32 = postcard::from_bytes(body).map_err(|_| decode())?;
                (now, Event::SlotAdvanced)
            }
            TAG_EVENT_SERVER_DOWN | TAG_EVENT_SERVER_UP => {
                let (now, h): (u32, u32) = postcard::from_bytes(body).map_err(|_| decode())?;
                let ev = if tag == TAG_EVENT_SERVER_DOWN {
                    Event::ServerDown(h)
                } else {
                    Event::ServerUp(h)
                };
                (now, ev)
            }
            TAG_EVENT_CAPACITY => {
                let (now, h, c): (u32, u32, Vec<f64>) =
                    postcard::from_bytes(body).map_err(|_| decode())?;
                let c =
                    mlsched_kernel::resources::ResourceVec::from_slice(&c).map_err(|_| decode())?;
                (now, Event::Capacity(h, c))
            }
            TAG_EVENT_JSON => {
                let text: &str = postcard::from_bytes(body).map_err(|_| decode())?;
                e.submit_logged(text).map_err(run)?;
                submitted = true;
                continue;
            }
            t if mlsched_kernel::log::is_event_tag(t) => {
                return Err(bad(&format!(
                    "event record tag {t:#04x} is unknown to this build"
                )))
            }
            _ => continue,
        };
        e.step(ev.0, ev.1).map_err(run)?;
    }
    if e.sink().records.len() < logged.len() {
        e.finish_kept(&mut |_| {}).map_err(run)?;
    }
    Ok(e.into_sink())
}

/// The body of the [`TAG_EVENT_HOST`] marker: its format version.
pub const HOST_MARKER_VERSION: u32 = 1;

/// Starts the log file of a host-driven run: header, inputs and the [`TAG_EVENT_HOST`] marker
/// (so [`replay`] re-feeds the logged events rather than re-running the scenario).
pub fn host_log_writer(scenario: &str, opts: &RunOptions) -> Result<LogFileWriter, RunError> {
    let inputs = Inputs {
        scenario,
        policy: opts.policy.as_deref(),
        all_categories: opts.all_categories,
    };
    let mut w = LogFileWriter::new(&inputs, seed_of(scenario))
        .map_err(|e| RunError::kernel(e, format!("cannot write the log: {e}")))?;
    w.event(TAG_EVENT_HOST, &HOST_MARKER_VERSION)
        .map_err(|e| RunError::kernel(e, format!("cannot write the log: {e}")))?;
    Ok(w)
}

/// Verifies the log `bytes` completely, re-runs its inputs and compares every record, the
/// event records included (a log without events, as written before the driver, no longer
/// matches a re-run, which writes them). A host-driven log (first record
/// [`TAG_EVENT_HOST`], written by `mlsched serve`) is re-run from its own event records.
pub fn replay(bytes: &[u8]) -> Result<Replayed, ReplayError> {
    let mut reader = LogReader::open(bytes).map_err(ReplayError::Log)?;
    let mut logged = Vec::new();
    while let Some(r) = reader.next_record().map_err(ReplayError::Log)? {
        logged.push((r.tag, r.body));
    }
    let inputs = reader.inputs();
    let opts = RunOptions {
        policy: inputs.policy.map(str::to_string),
        all_categories: inputs.all_categories,
    };
    let d = doc::parse(inputs.scenario).map_err(|e| ReplayError::Run(e.into()))?;
    let sink = if logged.first().is_some_and(|r| r.0 == TAG_EVENT_HOST) {
        refeed(&d, &opts, &logged)?
    } else {
        let mut sink = VecSink::new();
        run_doc(&d, &opts, &mut sink).map_err(ReplayError::Run)?;
        sink
    };
    let n = logged.len().max(sink.records.len());
    for i in 0..n {
        let expected = logged.get(i).map(|(t, b)| (*t, b.to_vec()));
        let got = sink.records.get(i).cloned();
        if expected != got {
            return Err(ReplayError::Differs(Difference {
                index: i as u64,
                expected,
                got,
                kind: d.kind().to_string(),
                job_ids: job_ids(&d),
            }));
        }
    }
    let events = logged
        .iter()
        .filter(|(t, _)| mlsched_kernel::log::is_event_tag(*t))
        .count() as u64;
    Ok(Replayed {
        records: logged.len() as u64 - events,
        events,
        log_hash: sink.hash().hex().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::ResultDoc;

    #[test]
    fn seed_is_read_when_present() {
        assert_eq!(seed_of(r#"{"kind":"route","seed":3}"#), 3);
        assert_eq!(seed_of(r#"{"kind":"oasis"}"#), 0);
        assert_eq!(seed_of("not json"), 0);
    }

    #[test]
    fn difference_names_index_expected_and_got() {
        let d = Difference {
            index: 4,
            expected: Some((0x10, vec![1, 2])),
            got: None,
            kind: "oasis".into(),
            job_ids: vec!["a".into()],
        };
        assert_eq!(
            d.to_string(),
            "record 4 differs: expected tag 0x10, 2 bytes [0102], found the end of the run"
        );
        // A decodable pair is named and compared field by field.
        let rec = |admitted: bool| {
            let r = (1u32, 0u32, admitted, 0u8, 5u32, 2.0f64, 1.0f64, 1.0f64);
            (0x10, postcard::to_allocvec(&r).unwrap())
        };
        let d = Difference {
            index: 7,
            expected: Some(rec(true)),
            got: Some(rec(false)),
            kind: "oasis".into(),
            job_ids: vec!["a".into(), "b\u{1b}[31m".into()],
        };
        assert_eq!(
            d.to_string(),
            "record 7 differs: oasis decision of job `b\\u{1b}[31m`: `admitted` expected true, found false"
        );
        let e: RunError = ReplayError::Differs(d).into();
        assert_eq!(e.exit_code(), 1);
        let l: RunError = ReplayError::Log(LogFileError::BadMagic { offset: 0 }).into();
        assert_eq!(l.exit_code(), 2);
    }

    #[test]
    fn record_then_replay_every_bundled_scenario_that_runs() {
        for (name, text) in crate::bundled::SCENARIOS {
            let Ok((result, log)) = record(text, &RunOptions::default()) else {
                continue;
            };
            let ok = replay(&log).unwrap_or_else(|e| panic!("{name}: {e}"));
            let hash: &str = ResultDoc::log_hash(&result);
            assert_eq!(ok.log_hash, hash, "{name}");
        }
    }
}
