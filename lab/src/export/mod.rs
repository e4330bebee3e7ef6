//! `mlsched export`: a decision log (`mlsched run --log`) as Chrome trace events, the JSON
//! timeline format Perfetto (ui.perfetto.dev) and chrome://tracing open.
//!
//! The log carries everything needed: its inputs frame holds the scenario text exactly as it
//! was run (server names, capacities, job ids, durations) and the policy, and its records hold
//! every decision with the numbers behind it. The export reads the log with the same checks as
//! `mlsched replay` (every checksum, the end frame), decodes every record with
//! [`mlsched_scenario::records`] (a record this build does not know is an error naming it) and
//! draws:
//! - one process per server (named as the scenario names it), whose threads are its workers,
//!   parameter servers or slots, with one slice per job placement spanning its slots (dealt to
//!   as many lanes as jobs overlap there, see [`trace`]);
//! - a `scheduler` process with instants for arrivals and finishes, for every admission and
//!   rejection with its explanation in `args` (utility against price, the reason), and for the
//!   search behind it.
//!
//! Time: one slot is `slot_seconds` seconds (default 1, so the viewer's seconds read as slots);
//! placement scenarios have no slots and are drawn in their own seconds. What each kind draws
//! is in `docs/formats.md` ("Chrome trace export").
//!
//! Why the per-server tracks are drawn from the log's records and not from a result's
//! `occupancy` (`mlsched_scenario::occupancy`), which the compare and import consumers read: the
//! export's input is a log alone, and a log holds no result document; getting one means
//! re-running the scenario, which costs as much as the run (placement's searches, OASiS's
//! pricing) and makes every export depend on the re-run reproducing the log. The records already
//! say which server each decision took, at the time it took it. And occupancy sums units per
//! `(job, server, role)`, so it lacks what several tracks show: preempt's worker, chunk and PS
//! index (its re-run's typed chunks are used instead), placement's per-GPU share time (occupancy
//! holds the job's JCT), route's runs `deadline-preemptive` cut (not in the result), each
//! placement record's own `args`.
use mlsched_kernel::logfile::LogReader;
use mlsched_scenario::engine::Kind;
use mlsched_scenario::records::{decode, Decoded};
use mlsched_scenario::{doc, InputError, RunError};
use serde_json::{Map, Value};

mod oasis;
mod online;
mod placement;
mod preempt;
mod route;
pub mod trace;

use trace::TraceBuilder;

/// Export options.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Options {
    /// Seconds one slot stands for on the timeline (`None`: 1). Placement has no slots and
    /// refuses it.
    pub slot_seconds: Option<f64>,
}

/// One decoded record and where it is in the log.
pub(crate) struct Rec {
    /// 0-based index among the log's records (events included).
    pub index: u64,
    /// The record's tag.
    pub tag: u8,
    /// The record decoded.
    pub d: Decoded,
}

impl Rec {
    fn field(&self, k: &str) -> Result<&Value, InputError> {
        self.d.fields.get(k).ok_or_else(|| self.bad(k, "missing"))
    }

    /// The error of field `k` of this record.
    pub fn bad(&self, k: &str, problem: impl Into<String>) -> InputError {
        InputError::new(
            format!("log record {} ({})", self.index, self.d.name),
            k,
            problem,
        )
    }

    /// Field `k` as an unsigned integer.
    pub fn u(&self, k: &str) -> Result<u64, InputError> {
        self.field(k)?
            .as_u64()
            .ok_or_else(|| self.bad(k, "not an unsigned integer"))
    }

    /// Field `k` as a number.
    pub fn f(&self, k: &str) -> Result<f64, InputError> {
        self.field(k)?
            .as_f64()
            .ok_or_else(|| self.bad(k, "not a number"))
    }

    /// Field `k` as a boolean.
    pub fn b(&self, k: &str) -> Result<bool, InputError> {
        self.field(k)?
            .as_bool()
            .ok_or_else(|| self.bad(k, "not a boolean"))
    }

    /// Field `job` as an index below `jobs`.
    pub fn job(&self, jobs: usize) -> Result<usize, InputError> {
        self.index_below("job", jobs, "jobs")
    }

    /// Field `k` as an index below `n` (the scenario has `n` `what`).
    pub fn index_below(&self, k: &str, n: usize, what: &str) -> Result<usize, InputError> {
        let v = self.u(k)?;
        usize::try_from(v).ok().filter(|&i| i < n).ok_or_else(|| {
            self.bad(
                k,
                format!("{v} is out of range: the scenario has {n} {what}"),
            )
        })
    }

    /// The record's fields as trace `args`.
    pub fn args(&self) -> Map<String, Value> {
        self.d.fields.clone()
    }
}

/// Slot-to-microsecond conversion.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    us_per_slot: f64,
}

impl Clock {
    /// Microseconds at the start of slot `t`.
    pub fn at(self, t: u64) -> f64 {
        t as f64 * self.us_per_slot
    }

    /// Microseconds of `n` slots.
    pub fn span(self, n: u64) -> f64 {
        n as f64 * self.us_per_slot
    }
}

/// What every kind's exporter gets.
pub(crate) struct Input<'a> {
    /// The logged scenario, for the kinds that re-run it.
    pub doc: &'a doc::ScenarioDoc,
    /// The records in log order.
    pub recs: &'a [Rec],
    /// The log's raw records (tag, body), for the kinds that re-run the scenario.
    pub raw: &'a [(u8, &'a [u8])],
    /// The logged run options.
    pub opts: &'a mlsched_scenario::run::RunOptions,
    /// Slot length.
    pub clock: Clock,
    /// The slot each record was written in: the slot of the latest event record up to it.
    pub now: &'a [u64],
}

impl Input<'_> {
    /// Microseconds at the slot record `r` was written in.
    pub fn when(&self, r: &Rec) -> f64 {
        self.clock
            .at(self.now.get(r.index as usize).copied().unwrap_or(0))
    }
}

/// The error of a log that does not make sense.
fn log_error(problem: impl Into<String>) -> RunError {
    RunError::Input(InputError::new("log", "", problem))
}

/// Turns a whole decision log into a Chrome trace JSON document (same log, same bytes).
pub fn chrome_trace(log: &[u8], opts: &Options) -> Result<String, RunError> {
    let mut reader = LogReader::open(log).map_err(|e| log_error(format!("bad log: {e}")))?;
    let mut raw: Vec<(u8, &[u8])> = Vec::new();
    while let Some(r) = reader
        .next_record()
        .map_err(|e| log_error(format!("bad log: {e}")))?
    {
        raw.push((r.tag, r.body));
    }
    let inputs = reader.inputs();
    let d = doc::parse(inputs.scenario).map_err(|e| {
        log_error(format!(
            "the scenario stored in the log does not parse: {e}"
        ))
    })?;
    let kind = d.kind();
    let recs = raw
        .iter()
        .enumerate()
        .map(|(i, &(tag, body))| {
            decode(kind, tag, body)
                .map(|d| Rec {
                    index: i as u64,
                    tag,
                    d,
                })
                .ok_or_else(|| {
                    log_error(format!(
                        "record {i}: tag {tag:#04x} ({} bytes) is not a {kind} record this build knows",
                        body.len()
                    ))
                })
        })
        .collect::<Result<Vec<Rec>, RunError>>()?;
    let seconds = slot_seconds(&d, opts)?;
    let run_opts = mlsched_scenario::run::RunOptions {
        policy: inputs.policy.map(str::to_string),
        all_categories: inputs.all_categories,
    };
    let mut t = 0;
    let now: Vec<u64> = recs
        .iter()
        .map(|r| {
            if mlsched_kernel::log::is_event_tag(r.tag) {
                t = r.u("slot").unwrap_or(t);
            }
            t
        })
        .collect();
    let input = Input {
        doc: &d,
        now: &now,
        recs: &recs,
        raw: &raw,
        opts: &run_opts,
        clock: Clock {
            us_per_slot: seconds.unwrap_or(1.0) * 1e6,
        },
    };
    let mut b = TraceBuilder::new(kind);
    b.other("kind", kind);
    let own = mlsched_scenario::run::policies(kind).first().copied();
    b.other("policy", inputs.policy.or(own).unwrap_or(kind));
    b.other("log_hash", reader.hash().hex().to_string());
    b.other("records", recs.len() as u64);
    match seconds {
        Some(s) => b.other("slot_seconds", s),
        None => b.other(
            "time_unit",
            "seconds (placement has no slots: job completion times in seconds)",
        ),
    }
    mlsched_scenario::dispatch!(&d, x, K => <K as Export>::export(x, &input, &mut b))?;
    Ok(b.finish())
}

/// A kind's exporter (in the kind's file here): what it draws from its log's records.
pub(crate) trait Export: Kind {
    /// Its times are slots, so `--slot-seconds` applies (placement's are seconds already).
    const SLOTS: bool = true;
    /// Draws the run of `doc` its log's records `inp` hold.
    fn export(doc: &Self::Doc, inp: &Input, b: &mut TraceBuilder) -> Result<(), RunError>;
}

/// The slot length: the option (positive and finite), else 1 s; `None` for a kind without
/// slots (placement).
fn slot_seconds(d: &doc::ScenarioDoc, opts: &Options) -> Result<Option<f64>, RunError> {
    let no_slots = !mlsched_scenario::dispatch!(d, _x, K => <K as Export>::SLOTS);
    match opts.slot_seconds {
        Some(_) if no_slots => Err(InputError::new(
            "option",
            "slot-seconds",
            "a placement run has no slots (its times are seconds already): leave it out",
        )
        .into()),
        Some(s) if !(s.is_finite() && s > 0.0 && s <= 1e15) => Err(InputError::new(
            "option",
            "slot-seconds",
            format!("{s} is not a positive, finite number of seconds (at most 1e15)"),
        )
        .into()),
        Some(s) => Ok(Some(s)),
        None if no_slots => Ok(None),
        None => Ok(Some(1.0)),
    }
}

/// `args` from name/value pairs.
pub(crate) fn args<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// A server's down interval: an instant when it went down (with the slot it came back) and one
/// when it came back, on the events thread.
fn server_down(b: &mut TraceBuilder, clock: Clock, h: u64, from: u64, to: u64) {
    let a = || {
        args([
            ("server", h.into()),
            ("from", from.into()),
            ("to", to.into()),
        ])
    };
    b.instant(
        trace::SchedThread::Events,
        format!("server #{h} down (slots {from}..{to})"),
        clock.at(from),
        a(),
    );
    b.instant(
        trace::SchedThread::Events,
        format!("server #{h} up"),
        clock.at(to),
        a(),
    );
}

/// Runs of consecutive slots with the same value: `(first, past the last, value)`.
pub(crate) fn runs<T: PartialEq + Clone>(mut slots: Vec<(u64, T)>) -> Vec<(u64, u64, T)> {
    slots.sort_by_key(|s| s.0);
    let mut out: Vec<(u64, u64, T)> = Vec::new();
    for (t, v) in slots {
        match out.last_mut() {
            Some(last) if last.1 == t && last.2 == v => last.1 = t + 1,
            _ => out.push((t, t + 1, v)),
        }
    }
    out
}

/// Instants for the driver's arrival, finish and cancel event records (every kind with slots),
/// and the open world's server events (`docs/open-world.md`): a `down` span on the events
/// thread from each `server_down` to its `server_up` (or the end of the trace), and an
/// instant for each capacity change.
pub(crate) fn events(
    recs: &[Rec],
    ids: &[&str],
    clock: Clock,
    b: &mut TraceBuilder,
) -> Result<(), InputError> {
    use mlsched_kernel::log::{
        TAG_EVENT_ARRIVAL, TAG_EVENT_CANCEL, TAG_EVENT_CAPACITY, TAG_EVENT_FINISH,
        TAG_EVENT_SERVER_DOWN, TAG_EVENT_SERVER_UP,
    };
    let mut down: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    let end = recs
        .iter()
        .filter_map(|r| r.u("slot").ok())
        .max()
        .unwrap_or(0)
        + 1;
    for r in recs {
        match r.tag {
            TAG_EVENT_SERVER_DOWN => {
                down.insert(r.u("server")?, r.u("slot")?);
                continue;
            }
            TAG_EVENT_SERVER_UP => {
                let h = r.u("server")?;
                if let Some(from) = down.remove(&h) {
                    server_down(b, clock, h, from, r.u("slot")?);
                }
                continue;
            }
            TAG_EVENT_CAPACITY => {
                let h = r.u("server")?;
                b.instant(
                    trace::SchedThread::Events,
                    format!("capacity of server #{h}"),
                    clock.at(r.u("slot")?),
                    r.args(),
                );
                continue;
            }
            _ => {}
        }
        let what = match r.tag {
            TAG_EVENT_ARRIVAL => "arrive",
            TAG_EVENT_FINISH => "finish",
            TAG_EVENT_CANCEL => "cancel",
            _ => continue,
        };
        let j = r.job(ids.len())?;
        b.instant(
            trace::SchedThread::Events,
            format!("{what} {}", ids[j]),
            clock.at(r.u("slot")?),
            args([("job", ids[j].into()), ("slot", r.u("slot")?.into())]),
        );
    }
    // Servers still down at the end of the log: down until its last slot.
    for (h, from) in down {
        server_down(b, clock, h, from, end);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_consecutive_equal_slots() {
        let r = runs(vec![(3, 'a'), (1, 'a'), (2, 'a'), (5, 'a'), (6, 'b')]);
        assert_eq!(r, vec![(1, 4, 'a'), (5, 6, 'a'), (6, 7, 'b')]);
    }
}
