//! The open world at the façade (`docs/open-world.md`): submissions, cancels, servers that fail,
//! return and change capacity.
//!
//! The kernel names servers and jobs by index (`mlsched_kernel::world`); this module keeps what
//! the façade needs to check an open-world event *before* anything is fed, so a refused event
//! leaves the engine exactly as it was (log included): the servers' ids and which are down, the
//! number of resources a capacity vector has, and which jobs were cancelled. Submissions are
//! appended by the kind's engine ([`super::KindEngine::submit`]) and logged as their JSON text
//! ([`TAG_EVENT_JSON`]) so a replay can submit them again.
use super::{Engine, Out};
use crate::error::{InputError, RunError};
use mlsched_kernel::api::Event;
use mlsched_kernel::log::{LogSink, TAG_EVENT_CANCEL, TAG_EVENT_JSON};
use mlsched_kernel::world::{OpenWorldError, Status};
use mlsched_kernel::Slot;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The servers of a scenario as the open-world events name them.
#[derive(Clone, Debug, Default)]
pub(crate) struct World {
    /// Server ids in kernel index order (`mlsched_kernel::world`, "Server indices").
    pub(crate) servers: Vec<String>,
    /// Server id -> kernel index.
    pub(crate) index: HashMap<String, u32>,
    /// Entries of a capacity vector (R).
    pub(crate) resources: usize,
    /// Which servers are down now.
    pub(crate) down: Vec<bool>,
    /// Default id -> explicit id, for the servers given one (occupancy is derived with the
    /// defaults).
    renamed: HashMap<String, String>,
}

impl World {
    /// The world of `servers` (ids, kernel index order) with `resources` entries per capacity.
    pub(crate) fn new(servers: Vec<String>, defaults: Vec<String>, resources: usize) -> Self {
        let renamed = defaults
            .into_iter()
            .zip(&servers)
            .filter(|(d, s)| d != *s)
            .map(|(d, s)| (d, s.clone()))
            .collect();
        let index = servers
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i as u32))
            .collect();
        World {
            renamed,
            down: vec![false; servers.len()],
            servers,
            index,
            resources,
        }
    }

    /// Renames the servers of `spans` that have explicit ids, then restores the occupancy order
    /// (`crate::occupancy`: by job, from, server, role).
    pub(crate) fn rename(&self, spans: &mut [crate::occupancy::Span]) {
        if self.renamed.is_empty() {
            return;
        }
        for s in spans.iter_mut() {
            if let Some(id) = self.renamed.get(&s.server) {
                s.server = id.clone();
            }
        }
        crate::order::sort_by(spans, &|a, b| {
            (&a.job, a.from, &a.server, a.role).cmp(&(&b.job, b.from, &b.server, b.role))
        });
    }

    fn server(&self, h: u32) -> Result<&str, RunError> {
        self.servers
            .get(h as usize)
            .map(String::as_str)
            .ok_or_else(|| {
                bad(
                    "server",
                    format!("no server {h}: the scenario has {}", self.servers.len()),
                )
            })
    }
}

fn bad(field: &str, why: String) -> RunError {
    RunError::Input(InputError::new("event", field, why))
}

impl<L: LogSink> Engine<L> {
    /// The scenario's server ids, in the kernel's index order: the `occupancy` ids, or each
    /// server's explicit `id` (`docs/open-world.md`).
    pub fn server_ids(&self) -> &[String] {
        &self.world.servers
    }

    /// The kernel index of the server with this id.
    pub fn server_index(&self, id: &str) -> Option<u32> {
        self.world.index.get(id).copied()
    }

    /// The index of the job with this id (listed or submitted).
    pub fn job_index(&self, id: &str) -> Option<u32> {
        self.job_index.get(id).copied()
    }

    /// Entries of a capacity vector (the scenario's resources, or the kind's documented
    /// capacity fields).
    pub fn capacity_len(&self) -> usize {
        self.world.resources
    }

    /// Whether server `h` is down now.
    pub fn is_down(&self, h: u32) -> bool {
        self.world.down.get(h as usize).copied().unwrap_or(false)
    }

    /// The status of job `j` as of the last event (`None`: no such job, or a kind without
    /// open-world statuses yet).
    pub fn status(&self, j: u32) -> Option<Status> {
        if self.cancelled.get(j as usize).copied().unwrap_or(false) {
            return Some(Status::Cancelled);
        }
        self.inner.status(j)
    }

    /// Submits a job at `now`: `job` is a job object exactly as in the kind's scenario `jobs`
    /// array (validated with the same messages; `arrival`, if present, must equal `now`). The
    /// job gets the next index, its JSON is logged, and it arrives at `now`
    /// (`JobArrived(index)`). Returns the index. A refused submission changes nothing.
    pub fn submit(
        &mut self,
        now: Slot,
        job: &Map<String, Value>,
        out: &mut dyn FnMut(Decision),
    ) -> Result<u32, RunError> {
        self.submit_to(now, job, &mut Out(Some(out)))
    }

    /// [`Engine::submit`] without building decisions (as [`Engine::step`]).
    pub fn submit_step(&mut self, now: Slot, job: &Map<String, Value>) -> Result<u32, RunError> {
        self.submit_to(now, job, &mut Out(None))
    }

    pub(super) fn submit_to(
        &mut self,
        now: Slot,
        job: &Map<String, Value>,
        out: &mut Out<'_>,
    ) -> Result<u32, RunError> {
        let text = crate::event::HostEvent::Submit {
            at: now,
            job: job.clone(),
        }
        .to_json();
        self.submit_text(&text, out)
    }

    /// Submits again the submission a log or a snapshot holds as `text` (its `TAG_EVENT_JSON`
    /// record): the very job of the original run (see [`Engine::submit`]).
    pub fn submit_logged(&mut self, text: &str) -> Result<u32, RunError> {
        self.submit_text(text, &mut Out(None))
    }

    /// A submission from its canonical text. The job the kind sees is the one this text reads
    /// as, and the text is what is logged and kept: a number written by serde_json and read
    /// again is not always the same f64 (its reader is not correctly rounded), so the run, its
    /// replay and its restore all read the job from the same text.
    fn submit_text(&mut self, text: &str, out: &mut Out<'_>) -> Result<u32, RunError> {
        let Ok(crate::event::HostEvent::Submit { at: now, job }) = crate::event::parse(text) else {
            return Err(bad("job", "does not read as a submission".into()));
        };
        self.check_time(now)?;
        let id = match job.get("id") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => return Err(bad("job.id", "must be a non-empty string".into())),
        };
        if self.job_index.contains_key(&id) {
            let shown = crate::text::terminal_safe(&id);
            return Err(bad("job.id", format!("a job `{shown}` already exists")));
        }
        if let Some(a) = job.get("arrival") {
            if a.as_f64() != Some(now as f64) {
                return Err(bad(
                    "job.arrival",
                    format!("must equal the event's slot {now} when present"),
                ));
            }
        }
        let j = self.inner.submit(now, &job)?;
        debug_assert_eq!(
            j as usize,
            self.ids.len(),
            "a submission gets the next index"
        );
        self.sink
            .event(TAG_EVENT_JSON, &text)
            .map_err(|e| RunError::kernel(e, format!("cannot log the submission: {e}")))?;
        self.ids.push(id.clone());
        self.job_index.insert(id, j);
        self.arrivals.push(now);
        self.arrived.push(false);
        self.cancelled.push(false);
        self.events.push(super::Fed {
            now,
            ev: super::FedEvent::Submit(text.to_string()),
        });
        self.feed_to(now, Event::JobArrived(j), out)?;
        Ok(j)
    }

    /// Refuses `now` going back in time or any event after the run ended.
    pub(super) fn check_time(&self, now: Slot) -> Result<(), RunError> {
        if self.result.is_some() {
            return Err(bad("event", "the run is finished".into()));
        }
        if let Some(e) = &self.failed {
            return Err(super::stopped(e));
        }
        match self.now.filter(|&t| now < t) {
            Some(t) => Err(bad(
                "now",
                format!("slot {now} is before the last event's slot {t}"),
            )),
            None => Ok(()),
        }
    }

    /// Checks an open-world kernel event completely (`Ok(true)`: feed it to the kernel;
    /// `Ok(false)`: a cancel of a job that has not arrived, which the façade applies itself).
    pub(super) fn check_world(&self, ev: &Event<u32>) -> Result<bool, RunError> {
        match *ev {
            Event::JobCancelled(j) => self.check_cancel(j),
            Event::ServerDown(h) => {
                let id = self.world.server(h)?;
                if self.world.down[h as usize] {
                    return Err(bad("server", format!("server `{id}` is already down")));
                }
                Ok(true)
            }
            Event::ServerUp(h) => {
                let id = self.world.server(h)?;
                if !self.world.down[h as usize] {
                    return Err(bad("server", format!("server `{id}` is up")));
                }
                Ok(true)
            }
            Event::Capacity(h, c) => {
                let id = self.world.server(h)?;
                if c.len() != self.world.resources {
                    return Err(bad(
                        "capacity",
                        format!(
                            "server `{id}`: {} entries, the scenario has {} resources",
                            c.len(),
                            self.world.resources
                        ),
                    ));
                }
                if let Some(r) = c.as_slice().iter().position(|x| !x.is_finite() || *x < 0.0) {
                    return Err(bad(
                        "capacity",
                        format!("server `{id}`: entry {r} must be a finite number >= 0"),
                    ));
                }
                Ok(true)
            }
            _ => Ok(true),
        }
    }

    /// The kernel's open-world refusal as an input error naming the field, with ids for
    /// indices.
    pub(super) fn open_world_input(&self, w: OpenWorldError) -> RunError {
        let job = |j: u32| {
            self.ids.get(j as usize).map_or(format!("#{j}"), |id| {
                format!("`{}`", crate::text::terminal_safe(id))
            })
        };
        let server = |h: u32| {
            self.world
                .servers
                .get(h as usize)
                .map_or(format!("#{h}"), |id| format!("`{id}`"))
        };
        match w {
            OpenWorldError::Unsupported { event } => {
                let why = format!(
                    "event '{event}' is not supported by kind `{}` with policy `{}` yet",
                    self.kind, self.policy
                );
                bad("event", why)
            }
            OpenWorldError::UnknownServer { server: h }
            | OpenWorldError::ServerDown { server: h }
            | OpenWorldError::ServerUp { server: h } => {
                bad("server", format!("server {}: {w}", server(h)))
            }
            OpenWorldError::CapacityLength { server: h, .. }
            | OpenWorldError::CapacityValue { server: h, .. } => {
                bad("capacity", format!("server {}: {w}", server(h)))
            }
            OpenWorldError::UnknownJob { job: j } | OpenWorldError::JobEnded { job: j } => {
                bad("job", format!("job {}: {w}", job(j)))
            }
            _ => bad("event", w.to_string()),
        }
    }

    fn check_cancel(&self, j: u32) -> Result<bool, RunError> {
        let Some(id) = self.ids.get(j as usize) else {
            return Err(bad(
                "job",
                format!("no job {j}: the scenario has {} jobs", self.ids.len()),
            ));
        };
        let shown = crate::text::terminal_safe(id);
        if self.cancelled[j as usize] {
            return Err(bad("job", format!("job `{shown}` is already cancelled")));
        }
        if !self.arrived[j as usize] {
            return Ok(false);
        }
        match self.inner.status(j) {
            Some(Status::Unfinished) => Ok(true),
            Some(s) => Err(bad(
                "job",
                format!("job `{shown}` has already ended ({})", s.name()),
            )),
            None => Err(crate::event::unsupported("cancel")),
        }
    }

    /// Applies what the façade itself keeps of an open-world event that was fed (or, for a
    /// cancel before arrival, logs it: the job then never arrives).
    pub(super) fn applied_world(
        &mut self,
        now: Slot,
        ev: &Event<u32>,
        fed: bool,
    ) -> Result<(), RunError> {
        match *ev {
            Event::JobCancelled(j) => {
                self.cancelled[j as usize] = true;
                if !fed {
                    self.inner.cancelled_before_arrival(j);
                    self.sink
                        .event(TAG_EVENT_CANCEL, &(now, j))
                        .map_err(|e| RunError::kernel(e, format!("cannot log the cancel: {e}")))?;
                }
            }
            Event::ServerDown(h) => self.world.down[h as usize] = true,
            Event::ServerUp(h) => self.world.down[h as usize] = false,
            _ => {}
        }
        Ok(())
    }
}

use super::Decision;
