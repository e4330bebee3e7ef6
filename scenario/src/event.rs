//! Host events as JSON — `{"at": T, "event": "<name>", ...}` — read in one place for every
//! surface that takes them (the service `mlsched serve`, the CLI's events file `mlsched run
//! --events`, the bindings), and fed to an [`Engine`].
//!
//! Every event is parsed and its *shape* checked here ([`parse`]); [`Feeder::apply`] maps job and
//! server ids to the engine's indices and feeds it. The open-world events (`submit`, `cancel`,
//! `server_down`, `server_up`, `capacity`; `docs/open-world.md`) reach the kind's scheduler; a
//! kind or policy without an open-world rule refuses them with an input error naming the field
//! `event`: never a silent ignore.
//!
//! What an applied event means (`docs/serve.md`, "Events"):
//! - `arrive` at T: `JobArrived(j)` at T for the job the scenario lists with that `id`;
//! - `finished` at T: `JobFinished(j)` at T;
//! - `advance` at T: `SlotAdvanced` at T — the scheduler decides slot T;
//! - `submit` at T: the job is appended (next index, its JSON logged) and arrives at T;
//! - `cancel`, `server_down`, `server_up`, `capacity` at T: `JobCancelled`, `ServerDown`,
//!   `ServerUp`, `Capacity` at T, the server named by its id ([`Engine::server_ids`]).
//!
//! Time moves with every event: before an event at T the engine is brought to T as a whole run
//! would bring it — a `SlotAdvanced` for the current slot if it has not had one, then one for
//! every wake-up the scheduler asked for before T ([`Engine::next_wakeup`]). So a host that
//! sends each job's `arrive` at its `arrival` and finishes gets exactly `mlsched run`'s log.
//! At most [`CATCH_UP_MAX`] wake-ups are fed for one event.
use crate::engine::{Decision, Engine};
use crate::error::{InputError, RunError};
use mlsched_kernel::api::Event;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::Slot;
use serde_json::{Map, Value};

/// Most scheduler wake-ups one event may move time over (an `advance` far into the future of
/// a scheduler that wakes every slot would otherwise run for hours): past it the event is
/// refused, naming `at`, and the host advances in smaller steps.
pub const CATCH_UP_MAX: u32 = 100_000;

/// Every event name, in the order of [`HostEvent`].
pub const NAMES: [&str; 8] = [
    "arrive",
    "finished",
    "advance",
    "submit",
    "cancel",
    "server_down",
    "server_up",
    "capacity",
];

/// One host event, its shape checked ([`parse`]).
#[derive(Clone, Debug, PartialEq)]
pub enum HostEvent {
    /// A job the scenario lists arrives at `at`.
    Arrive {
        /// The slot.
        at: Slot,
        /// The job's `id`.
        job: String,
    },
    /// The host reports a job finished at `at`.
    Finished {
        /// The slot.
        at: Slot,
        /// The job's `id`.
        job: String,
    },
    /// Time moves to `at` and the scheduler decides that slot.
    Advance {
        /// The slot.
        at: Slot,
    },
    /// A job the scenario does not list (open world; not applied yet).
    Submit {
        /// The slot.
        at: Slot,
        /// The job object, as in the kind's scenario `jobs` array.
        job: Map<String, Value>,
    },
    /// A job is cancelled (open world; not applied yet).
    Cancel {
        /// The slot.
        at: Slot,
        /// The job's `id`.
        job: String,
    },
    /// A server fails or is drained (open world; not applied yet).
    ServerDown {
        /// The slot.
        at: Slot,
        /// The server's id.
        server: String,
    },
    /// A server comes back (open world; not applied yet).
    ServerUp {
        /// The slot.
        at: Slot,
        /// The server's id.
        server: String,
    },
    /// A server's capacity changes (open world; not applied yet).
    Capacity {
        /// The slot.
        at: Slot,
        /// The server's id.
        server: String,
        /// The new capacity, in the order of the scenario's resources.
        capacity: Vec<f64>,
    },
}

impl HostEvent {
    /// The event's slot.
    pub fn at(&self) -> Slot {
        match self {
            HostEvent::Arrive { at, .. }
            | HostEvent::Finished { at, .. }
            | HostEvent::Advance { at }
            | HostEvent::Submit { at, .. }
            | HostEvent::Cancel { at, .. }
            | HostEvent::ServerDown { at, .. }
            | HostEvent::ServerUp { at, .. }
            | HostEvent::Capacity { at, .. } => *at,
        }
    }

    /// The event's name (its `event` field).
    pub fn name(&self) -> &'static str {
        let i = match self {
            HostEvent::Arrive { .. } => 0,
            HostEvent::Finished { .. } => 1,
            HostEvent::Advance { .. } => 2,
            HostEvent::Submit { .. } => 3,
            HostEvent::Cancel { .. } => 4,
            HostEvent::ServerDown { .. } => 5,
            HostEvent::ServerUp { .. } => 6,
            HostEvent::Capacity { .. } => 7,
        };
        NAMES[i]
    }

    /// The event as a JSON object (the shape [`parse`] reads; keys sorted).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("at".into(), Value::from(self.at()));
        m.insert("event".into(), Value::from(self.name()));
        match self {
            HostEvent::Arrive { job, .. }
            | HostEvent::Finished { job, .. }
            | HostEvent::Cancel { job, .. } => {
                m.insert("job".into(), Value::from(job.as_str()));
            }
            HostEvent::Advance { .. } => {}
            HostEvent::Submit { job, .. } => {
                m.insert("job".into(), Value::Object(job.clone()));
            }
            HostEvent::ServerDown { server, .. } | HostEvent::ServerUp { server, .. } => {
                m.insert("server".into(), Value::from(server.as_str()));
            }
            HostEvent::Capacity {
                server, capacity, ..
            } => {
                m.insert("server".into(), Value::from(server.as_str()));
                m.insert("capacity".into(), Value::from(capacity.clone()));
            }
        }
        Value::Object(m)
    }

    /// [`HostEvent::to_value`] as compact JSON text (one line).
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }
}

fn bad(field: &str, problem: impl Into<String>) -> InputError {
    InputError::new("event", field, problem)
}

/// Reads one event from JSON text: its shape (fields, types, ranges), not whether the engine
/// can apply it ([`Feeder::apply`]).
pub fn parse(text: &str) -> Result<HostEvent, InputError> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| bad("", format!("not valid JSON: {e}")))?;
    from_value(&v)
}

/// Reads a JSON Lines text of events (blank lines skipped), `at` never going back; an error
/// names the line (`event on line 3`).
pub fn parse_lines(text: &str) -> Result<Vec<HostEvent>, InputError> {
    let mut out: Vec<HostEvent> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let on_line = |mut e: InputError| {
            e.subject = format!("event on line {}", i + 1);
            e
        };
        let ev = parse(line).map_err(on_line)?;
        if let Some(last) = out.last().filter(|l| ev.at() < l.at()) {
            let why = format!(
                "slot {} is before the previous event's slot {}",
                ev.at(),
                last.at()
            );
            return Err(on_line(bad("at", why)));
        }
        out.push(ev);
    }
    Ok(out)
}

/// Reads one event from a JSON value ([`parse`]).
pub fn from_value(v: &Value) -> Result<HostEvent, InputError> {
    let Value::Object(m) = v else {
        return Err(bad("", format!("must be a JSON object, got {}", what(v))));
    };
    let name = match m.get("event") {
        None => {
            return Err(bad(
                "event",
                format!("missing; expected one of {}", names()),
            ))
        }
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(bad(
                "event",
                format!("must be a string, got {}", what(other)),
            ))
        }
    };
    let Some(kind) = NAMES.iter().position(|n| *n == name) else {
        let shown = crate::text::terminal_safe(name);
        return Err(bad(
            "event",
            format!("unknown event `{shown}`; expected one of {}", names()),
        ));
    };
    let allowed: &[&str] = match kind {
        0 | 1 | 3 | 4 => &["at", "event", "job"],
        2 => &["at", "event"],
        5 | 6 => &["at", "event", "server"],
        _ => &["at", "event", "server", "capacity"],
    };
    if let Some(k) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
        let fields = allowed.join(", ");
        return Err(bad(
            &crate::text::terminal_safe(k),
            format!("unknown field; an event `{name}` has {fields}"),
        ));
    }
    let at = slot(m.get("at"))?;
    Ok(match kind {
        0 => HostEvent::Arrive {
            at,
            job: id(m, "job")?,
        },
        1 => HostEvent::Finished {
            at,
            job: id(m, "job")?,
        },
        2 => HostEvent::Advance { at },
        3 => HostEvent::Submit {
            at,
            job: job_object(m.get("job"), at)?,
        },
        4 => HostEvent::Cancel {
            at,
            job: id(m, "job")?,
        },
        5 => HostEvent::ServerDown {
            at,
            server: id(m, "server")?,
        },
        6 => HostEvent::ServerUp {
            at,
            server: id(m, "server")?,
        },
        _ => HostEvent::Capacity {
            at,
            server: id(m, "server")?,
            capacity: capacity(m.get("capacity"))?,
        },
    })
}

fn names() -> String {
    NAMES.join(", ")
}

/// "a string", "an array", ... (how a wrongly typed value is named).
fn what(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn slot(v: Option<&Value>) -> Result<Slot, InputError> {
    let range = format!("a whole slot number from 0 to {}", Slot::MAX);
    match v {
        None => Err(bad("at", format!("missing; expected {range}"))),
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|x| Slot::try_from(x).ok())
            .ok_or_else(|| bad("at", format!("must be {range}, got {n}"))),
        Some(other) => Err(bad("at", format!("must be {range}, got {}", what(other)))),
    }
}

fn id(m: &Map<String, Value>, field: &str) -> Result<String, InputError> {
    match m.get(field) {
        None => Err(bad(field, "missing; expected an id (a string)")),
        Some(Value::String(s)) if s.is_empty() => Err(bad(field, "must not be empty")),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(bad(
            field,
            format!("must be an id (a string), got {}", what(other)),
        )),
    }
}

/// A `submit`'s job: an object with a string `id`; its `arrival`, if present, equals `at`.
/// The rest is the kind's job document, validated when the engine applies it.
fn job_object(v: Option<&Value>, at: Slot) -> Result<Map<String, Value>, InputError> {
    let m = match v {
        None => return Err(bad("job", "missing; expected a job object")),
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(bad(
                "job",
                format!("must be a job object, got {}", what(other)),
            ))
        }
    };
    id(m, "id").map_err(|mut e| {
        e.field = "job.id".into();
        e
    })?;
    if let Some(a) = m.get("arrival") {
        if a.as_u64() != Some(u64::from(at)) {
            return Err(bad(
                "job.arrival",
                format!("must equal the event's `at` ({at}) when present, got {a}"),
            ));
        }
    }
    Ok(m.clone())
}

fn capacity(v: Option<&Value>) -> Result<Vec<f64>, InputError> {
    let items = match v {
        None => return Err(bad("capacity", "missing; expected an array of numbers")),
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(bad(
                "capacity",
                format!("must be an array of numbers, got {}", what(other)),
            ))
        }
    };
    if items.is_empty() {
        return Err(bad("capacity", "must not be empty"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, x)| match x.as_f64() {
            Some(c) if c.is_finite() && c >= 0.0 => Ok(c),
            _ => Err(bad(
                &format!("capacity[{i}]"),
                format!("must be a finite number >= 0, got {x}"),
            )),
        })
        .collect()
}

/// The error of an event this engine cannot apply yet (the open-world events).
pub fn unsupported(name: &str) -> RunError {
    RunError::Input(bad(
        "event",
        format!("event '{name}' is not supported by this engine yet"),
    ))
}

/// Feeds [`HostEvent`]s to an [`Engine`]: the job ids of its scenario and the mapping of each
/// event to the kernel's events.
pub struct Feeder;

impl Feeder {
    /// The feeder of `engine`'s scenario (jobs and servers are looked up in the engine, so
    /// submitted jobs are known as soon as they are submitted).
    pub fn new<L: LogSink>(_engine: &Engine<L>) -> Self {
        Feeder
    }
}

fn job_of<L: LogSink>(engine: &Engine<L>, id: &str) -> Result<u32, RunError> {
    engine.job_index(id).ok_or_else(|| {
        let shown = crate::text::terminal_safe(id);
        RunError::Input(bad(
            "job",
            format!("no job `{shown}` in the scenario or submitted so far"),
        ))
    })
}

fn server_of<L: LogSink>(engine: &Engine<L>, id: &str) -> Result<u32, RunError> {
    engine.server_index(id).ok_or_else(|| {
        let shown = crate::text::terminal_safe(id);
        let ids = engine.server_ids();
        let first = ids
            .iter()
            .take(3)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        RunError::Input(bad(
            "server",
            format!(
                "no server `{shown}` in the scenario (its {} servers are {first}{})",
                ids.len(),
                if ids.len() > 3 { ", ..." } else { "" }
            ),
        ))
    })
}

/// The kernel event a host event maps to, ids looked up in `engine` (a submission maps to
/// `SlotAdvanced`, a placeholder: its index is known once the kind accepts it, after its id was
/// checked to be new here).
pub(crate) fn kernel_event<L: LogSink>(
    engine: &Engine<L>,
    ev: &HostEvent,
) -> Result<Event<u32>, RunError> {
    Ok(match ev {
        HostEvent::Arrive { job, .. } => Event::JobArrived(job_of(engine, job)?),
        HostEvent::Finished { job, .. } => Event::JobFinished(job_of(engine, job)?),
        HostEvent::Advance { .. } => Event::SlotAdvanced,
        HostEvent::Cancel { job, .. } => Event::JobCancelled(job_of(engine, job)?),
        HostEvent::ServerDown { server, .. } => Event::ServerDown(server_of(engine, server)?),
        HostEvent::ServerUp { server, .. } => Event::ServerUp(server_of(engine, server)?),
        HostEvent::Capacity {
            server, capacity, ..
        } => Event::Capacity(
            server_of(engine, server)?,
            mlsched_kernel::resources::ResourceVec::from_slice(capacity).map_err(|e| {
                RunError::Input(bad("capacity", format!("{} entries: {e}", capacity.len())))
            })?,
        ),
        // A submission's index is known once the kind accepts it: checked as an arrival
        // (the slot), the job itself by the kind after the catch-up below.
        HostEvent::Submit { job, .. } => {
            if let Some(Value::String(id)) = job.get("id") {
                if engine.job_index(id).is_some() {
                    let shown = crate::text::terminal_safe(id);
                    return Err(RunError::Input(bad(
                        "job.id",
                        format!("a job `{shown}` already exists"),
                    )));
                }
            }
            Event::SlotAdvanced
        }
    })
}

impl Feeder {
    /// Applies `ev` to `engine`: the wake-ups before its slot, then its own kernel event
    /// (module docs); every decision goes to `out` if given (none are built otherwise).
    ///
    /// An input error found before anything is fed (an unknown job, an event the engine cannot
    /// apply yet, a slot going back, ...) leaves the engine as it was. A scheduler failure, or
    /// more than [`CATCH_UP_MAX`] wake-ups, can come after some wake-ups were fed:
    /// [`Engine::events_fed`] tells, and a host that must stay exactly as it was (the service)
    /// rebuilds its engine from its own log then.
    pub fn apply<L: LogSink>(
        &self,
        engine: &mut Engine<L>,
        ev: &HostEvent,
        mut out: Option<&mut dyn FnMut(Decision)>,
    ) -> Result<(), RunError> {
        let at = ev.at();
        let kernel = kernel_event(engine, ev)?;
        // The engine names the slot `now` (its argument); an event names it `at`.
        engine.check_event(at, kernel).map_err(|e| match e {
            RunError::Input(mut i) if i.field == "now" => {
                i.field = "at".into();
                RunError::Input(i)
            }
            other => other,
        })?;
        if matches!(ev, HostEvent::Advance { .. }) && engine.now() == Some(at) && engine.advanced()
        {
            return Err(RunError::Input(bad(
                "at",
                format!("slot {at} was already advanced"),
            )));
        }
        let mut fed = 0u32;
        while let Some(t) = pending_slot(engine).filter(|&t| t < at) {
            if fed == CATCH_UP_MAX {
                return Err(RunError::Input(bad(
                    "at",
                    format!(
                        "moves time over more than {CATCH_UP_MAX} scheduler wake-ups (now at \
                         slot {t}); advance in smaller steps"
                    ),
                )));
            }
            fed += 1;
            feed(engine, t, Event::SlotAdvanced, &mut out)?;
        }
        match ev {
            HostEvent::Submit { job, .. } => match out {
                Some(f) => engine.submit(at, job, f).map(drop),
                None => engine.submit_step(at, job).map(drop),
            },
            _ => feed(engine, at, kernel, &mut out),
        }
    }
}

impl Feeder {
    /// Advances `engine` through every wake-up it has left (the slot it is at first, if not
    /// advanced yet): what a host sends as `advance` events to take a run to its end.
    pub fn advance_to_end<L: LogSink>(
        &self,
        engine: &mut Engine<L>,
        mut out: Option<&mut dyn FnMut(Decision)>,
    ) -> Result<(), RunError> {
        while let Some(t) = pending_slot(engine) {
            feed(engine, t, Event::SlotAdvanced, &mut out)?;
        }
        Ok(())
    }
}

/// The next slot a whole run would advance before any new arrival: the current one if it has
/// not been advanced, else the scheduler's next wake-up (after the current slot).
fn pending_slot<L: LogSink>(e: &Engine<L>) -> Option<Slot> {
    let clock = mlsched_kernel::driver::Clock {
        now: e.now(),
        advanced: e.advanced(),
    };
    clock.first_slot(None, e.next_wakeup(), None)
}

fn feed<L: LogSink>(
    e: &mut Engine<L>,
    now: Slot,
    ev: Event<u32>,
    out: &mut Option<&mut dyn FnMut(Decision)>,
) -> Result<(), RunError> {
    match out {
        Some(f) => e.on_event(now, ev, &mut **f),
        None => e.step(now, ev),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::RunOptions;

    fn err(text: &str) -> InputError {
        parse(text).unwrap_err()
    }

    #[test]
    fn every_event_round_trips() {
        for text in [
            r#"{"at":3,"event":"arrive","job":"j1"}"#,
            r#"{"at":3,"event":"finished","job":"j1"}"#,
            r#"{"at":4,"event":"advance"}"#,
            r#"{"at":4,"event":"submit","job":{"arrival":4,"id":"x"}}"#,
            r#"{"at":5,"event":"cancel","job":"x"}"#,
            r#"{"at":5,"event":"server_down","server":"w0"}"#,
            r#"{"at":6,"event":"server_up","server":"w0"}"#,
            r#"{"at":6,"capacity":[1.0,2.5],"event":"capacity","server":"w0"}"#,
        ] {
            let ev = parse(text).unwrap();
            assert_eq!(ev.to_json(), text);
            assert_eq!(parse(&ev.to_json()).unwrap(), ev);
        }
    }

    #[test]
    fn bad_shapes_name_the_field() {
        let cases = [
            ("[1]", "", "must be a JSON object, got an array"),
            ("{", "", "not valid JSON"),
            (r#"{"at":1}"#, "event", "missing"),
            (
                r#"{"at":1,"event":"launch"}"#,
                "event",
                "unknown event `launch`",
            ),
            (r#"{"at":1,"event":7}"#, "event", "must be a string"),
            (r#"{"event":"advance"}"#, "at", "missing"),
            (r#"{"at":-1,"event":"advance"}"#, "at", "whole slot number"),
            (r#"{"at":1.5,"event":"advance"}"#, "at", "whole slot number"),
            (r#"{"at":4294967296,"event":"advance"}"#, "at", "whole slot"),
            (
                r#"{"at":1,"event":"advance","job":"a"}"#,
                "job",
                "unknown field",
            ),
            (r#"{"at":1,"event":"arrive"}"#, "job", "missing"),
            (r#"{"at":1,"event":"arrive","job":""}"#, "job", "empty"),
            (
                r#"{"at":1,"event":"finished","job":3}"#,
                "job",
                "got a number",
            ),
            (r#"{"at":1,"event":"cancel","job":null}"#, "job", "got null"),
            (
                r#"{"at":1,"event":"submit","job":"a"}"#,
                "job",
                "job object",
            ),
            (r#"{"at":1,"event":"submit","job":{}}"#, "job.id", "missing"),
            (
                r#"{"at":1,"event":"submit","job":{"id":"a","arrival":2}}"#,
                "job.arrival",
                "must equal",
            ),
            (r#"{"at":1,"event":"server_down"}"#, "server", "missing"),
            (
                r#"{"at":1,"event":"server_up","server":[]}"#,
                "server",
                "an array",
            ),
            (
                r#"{"at":1,"event":"capacity","server":"w0"}"#,
                "capacity",
                "missing",
            ),
            (
                r#"{"at":1,"event":"capacity","server":"w0","capacity":[]}"#,
                "capacity",
                "empty",
            ),
            (
                r#"{"at":1,"event":"capacity","server":"w0","capacity":[1,-2]}"#,
                "capacity[1]",
                ">= 0",
            ),
        ];
        for (text, field, problem) in cases {
            let e = err(text);
            assert_eq!(e.field, field, "{text}: {e}");
            assert!(e.problem.contains(problem), "{text}: {e}");
            assert_eq!(e.subject, "event");
        }
    }

    #[test]
    fn lines_name_the_line_and_refuse_time_going_back() {
        let ok =
            parse_lines("{\"at\":1,\"event\":\"advance\"}\n\n{\"at\":2,\"event\":\"advance\"}\n");
        assert_eq!(ok.unwrap().len(), 2);
        let e = parse_lines("{\"at\":2,\"event\":\"advance\"}\n{\"at\":1,\"event\":\"advance\"}")
            .unwrap_err();
        assert_eq!(
            (e.subject.as_str(), e.field.as_str()),
            ("event on line 2", "at")
        );
    }

    fn arrival<L: LogSink>(e: &Engine<L>, j: u32) -> Slot {
        e.arrival_order()
            .iter()
            .find(|a| a.1 == j)
            .map_or(0, |a| a.0)
    }

    fn engine() -> Engine {
        let text = crate::bundled::SCENARIOS
            .iter()
            .find(|(n, _)| n.contains("online"))
            .map(|(_, t)| *t)
            .unwrap();
        Engine::new(text, &RunOptions::default()).unwrap()
    }

    #[test]
    fn bad_open_world_events_are_refused_naming_the_field() {
        let mut e = engine();
        let f = Feeder::new(&e);
        let first = e.job_id(0).unwrap().to_string();
        for (text, field) in [
            (
                r#"{"at":0,"event":"cancel","job":"nope"}"#.to_string(),
                "job",
            ),
            (
                r#"{"at":0,"event":"server_down","server":"nope"}"#.into(),
                "server",
            ),
            (
                r#"{"at":0,"event":"server_up","server":"h0"}"#.into(),
                "server",
            ),
            (
                r#"{"at":0,"event":"capacity","server":"h0","capacity":[1]}"#.into(),
                "capacity",
            ),
            (
                format!(r#"{{"at":0,"event":"submit","job":{{"id":"{first}"}}}}"#),
                "job.id",
            ),
        ] {
            let ev = parse(&text).unwrap();
            match f.apply(&mut e, &ev, None) {
                Err(RunError::Input(i)) => assert_eq!(i.field, field, "{text}: {i}"),
                other => panic!("{text}: {other:?}"),
            }
            assert_eq!(e.events_fed(), 0, "{text}: the engine is as it was");
        }
    }

    #[test]
    fn arrivals_at_their_slots_then_finish_is_the_whole_run() {
        for (name, text) in crate::bundled::SCENARIOS {
            let opts = RunOptions::default();
            let Ok(whole) = crate::run::run_json(text, &opts) else {
                continue;
            };
            let mut e = Engine::new(text, &opts).unwrap();
            let f = Feeder::new(&e);
            for &(t, j) in e.arrival_order().to_vec().iter() {
                let ev = HostEvent::Arrive {
                    at: t,
                    job: e.job_id(j).unwrap().to_string(),
                };
                f.apply(&mut e, &ev, None).unwrap();
            }
            // The rest of the run: wake-ups after the last arrival, then the result.
            let r = e.run_to_end(&mut |_| {}).unwrap();
            assert_eq!(r.to_json(), whole, "{name}");
        }
    }

    #[test]
    fn a_host_driven_log_replays_and_a_changed_record_is_found() {
        use mlsched_kernel::logfile::{LogFileWriter, LogReader};
        let text = crate::bundled::SCENARIOS[1].1;
        let opts = RunOptions::default();
        let w = crate::replay::host_log_writer(text, &opts).unwrap();
        let mut e = Engine::with_sink(text, &opts, w).unwrap();
        let f = Feeder::new(&e);
        let (a, b) = (
            e.job_id(0).unwrap().to_string(),
            e.job_id(1).unwrap().to_string(),
        );
        for ev in [
            HostEvent::Arrive {
                at: arrival(&e, 0),
                job: a.clone(),
            },
            HostEvent::Advance { at: 40 },
            HostEvent::Arrive {
                at: 41.max(arrival(&e, 1)),
                job: b,
            },
            HostEvent::Finished { at: 60, job: a },
        ] {
            f.apply(&mut e, &ev, None).unwrap();
        }
        // Before and after finish: both replay, with the engine's hash.
        let open = e.sink().clone().finish();
        assert!(crate::replay::replay(&open).is_ok());
        let hash = e.finish(&mut |_| {}).unwrap().log_hash().to_string();
        let log = e.into_sink().finish();
        assert_eq!(crate::replay::replay(&log).unwrap().log_hash, hash);
        // A decision changed (checksums recomputed): found, not replayed as good.
        let mut r = LogReader::open(&log).unwrap();
        let mut w = LogFileWriter::new(&r.inputs(), r.header().seed).unwrap();
        let mut changed = false;
        while let Some(rec) = r.next_record().unwrap() {
            let mut body = rec.body.to_vec();
            if !rec.is_event() && !changed && !body.is_empty() {
                body[0] ^= 1;
                changed = true;
            }
            w.push(rec.tag, &body).unwrap();
        }
        assert!(changed);
        assert!(matches!(
            crate::replay::replay(&w.finish()),
            Err(crate::replay::ReplayError::Differs(_))
        ));
    }

    #[test]
    fn refusals_leave_the_engine_as_it_was() {
        let mut e = engine();
        let f = Feeder::new(&e);
        f.apply(&mut e, &HostEvent::Advance { at: 2 }, None)
            .unwrap();
        let n = e.events_fed();
        for ev in [
            HostEvent::Advance { at: 2 },
            HostEvent::Advance { at: 1 },
            HostEvent::Arrive {
                at: 3,
                job: "nope".into(),
            },
            HostEvent::Finished {
                at: 3,
                job: e.job_id(0).unwrap().into(),
            },
        ] {
            let r = f.apply(&mut e, &ev, None);
            assert!(matches!(r, Err(RunError::Input(_))), "{ev:?}: {r:?}");
            assert_eq!(e.events_fed(), n, "{ev:?}");
        }
    }
}
