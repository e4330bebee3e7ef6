//! [`EventEngine`]: the event-driven engine behind the JS class `Engine`, with the policy
//! named canonically so that snapshots taken with `policy` omitted restore with the engine's
//! own `policy` name and vice versa.
use mlsched_kernel::api::Event;
use mlsched_kernel::log::HashSink;
use mlsched_scenario::engine::{Decision, Engine};
use mlsched_scenario::event::{self, Feeder, HostEvent};
use mlsched_scenario::run::RunOptions;
use serde::Serialize;

/// A job named by its input index or by its id.
#[derive(Clone, Copy, Debug)]
pub enum JobRef<'a> {
    /// Index in the scenario's `jobs`.
    Index(u32),
    /// The job's `id`.
    Id(&'a str),
}

/// One scenario arrival, as a run feeds them.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Arrival {
    /// The arrival slot.
    pub slot: u32,
    /// The job index.
    pub job: u32,
}

/// The engine of one scenario and policy, fed one event at a time.
pub struct EventEngine {
    inner: Engine<HashSink>,
}

/// The options naming the engine's policy as the engine itself names it.
fn canonical(scenario_json: &str, policy: Option<&str>) -> Result<RunOptions, String> {
    let opts = RunOptions {
        policy: policy.map(String::from),
        all_categories: false,
    };
    let e = Engine::new(scenario_json, &opts).map_err(|e| e.to_string())?;
    Ok(RunOptions {
        policy: Some(e.policy().to_string()),
        all_categories: false,
    })
}

impl EventEngine {
    /// Parses and validates `scenario_json` and builds the engine of `policy` (default: the
    /// kind's own algorithm).
    pub fn new(scenario_json: &str, policy: Option<&str>) -> Result<Self, String> {
        let opts = canonical(scenario_json, policy)?;
        Ok(EventEngine {
            inner: Engine::new(scenario_json, &opts).map_err(|e| e.to_string())?,
        })
    }

    /// The engine of `scenario_json` and `policy` with the events of `snapshot` replayed.
    pub fn restore(
        scenario_json: &str,
        policy: Option<&str>,
        snapshot: &[u8],
    ) -> Result<Self, String> {
        let opts = canonical(scenario_json, policy)?;
        Ok(EventEngine {
            inner: Engine::restore_hashed(scenario_json, &opts, snapshot)
                .map_err(|e| e.to_string())?,
        })
    }

    /// The index of `job`, or the error naming the field.
    pub fn job(&self, job: JobRef<'_>) -> Result<u32, String> {
        match job {
            JobRef::Index(j) => Ok(j),
            JobRef::Id(id) => (0..self.inner.jobs())
                .find(|&j| self.inner.job_id(j) == Some(id))
                .ok_or_else(|| format!("event: job: no job with id `{id}` in the scenario")),
        }
    }

    fn feed(&mut self, now: u32, ev: Event<u32>) -> Result<Vec<Decision>, String> {
        self.inner.feed(now, ev).map_err(|e| e.to_string())
    }

    /// Job `job` arrives at `slot`: the decisions it causes.
    pub fn arrive(&mut self, job: JobRef<'_>, slot: u32) -> Result<Vec<Decision>, String> {
        let j = self.job(job)?;
        self.feed(slot, Event::JobArrived(j))
    }

    /// Slot `slot` runs (after its finishes and arrivals): the decisions it causes.
    pub fn advance(&mut self, slot: u32) -> Result<Vec<Decision>, String> {
        self.feed(slot, Event::SlotAdvanced)
    }

    /// Job `job` finished at `slot`: the decisions it causes.
    pub fn finished(&mut self, job: JobRef<'_>, slot: u32) -> Result<Vec<Decision>, String> {
        let j = self.job(job)?;
        self.feed(slot, Event::JobFinished(j))
    }

    /// Applies one host event (`docs/open-world.md`; JSON text of one `mlsched run --events`
    /// line) as the service does: the scheduler's wake-ups before its slot first. The decisions;
    /// a bad event is refused with the message naming the field, the engine unchanged.
    pub fn event(&mut self, json: &str) -> Result<Vec<Decision>, String> {
        let ev = event::parse(json).map_err(|e| e.to_string())?;
        self.apply(&ev)
    }

    /// Applies one parsed host event ([`EventEngine::event`]).
    pub fn apply(&mut self, ev: &HostEvent) -> Result<Vec<Decision>, String> {
        let mut d = Vec::new();
        Feeder::new(&self.inner)
            .apply(&mut self.inner, ev, Some(&mut |x| d.push(x)))
            .map_err(|e| e.to_string())?;
        Ok(d)
    }

    /// The scenario's server ids, as the server events name them.
    pub fn server_ids(&self) -> &[String] {
        self.inner.server_ids()
    }

    /// The status of job `id` as of the last event (`finished`, `cancelled`, ...), `None` if
    /// the kind does not tell yet; an unknown job is an error naming the field.
    pub fn status(&self, id: &str) -> Result<Option<&'static str>, String> {
        let j = self
            .inner
            .job_index(id)
            .ok_or_else(|| format!("argument, field `job`: no job `{id}`"))?;
        Ok(self.inner.status(j).map(|s| s.name()))
    }

    /// The scheduler's next wake-up slot (a `SlotAdvanced` wanted although no job arrives).
    pub fn next_wakeup(&self) -> Option<u32> {
        self.inner.next_wakeup()
    }

    /// The slot of the last event fed.
    pub fn now(&self) -> Option<u32> {
        self.inner.now()
    }

    /// The scenario's arrivals in the order a run feeds them.
    pub fn arrival_order(&self) -> Vec<Arrival> {
        self.inner
            .arrival_order()
            .iter()
            .map(|&(slot, job)| Arrival { slot, job })
            .collect()
    }

    /// Feeds every remaining arrival and wake-up, then finishes: the result document's JSON.
    pub fn run_to_end(&mut self) -> Result<String, String> {
        let r = self.inner.run_to_end_kept(&mut |_| {});
        Ok(r.map_err(|e| e.to_string())?.to_json())
    }

    /// Ends the run: the result document's JSON (later events are refused).
    pub fn finish(&mut self) -> Result<String, String> {
        let r = self.inner.finish_kept(&mut |_| {});
        Ok(r.map_err(|e| e.to_string())?.to_json())
    }

    /// The engine's snapshot bytes.
    pub fn snapshot(&self) -> Vec<u8> {
        self.inner.snapshot()
    }

    /// The scenario's kind.
    pub fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    /// The policy running.
    pub fn policy(&self) -> &str {
        self.inner.policy()
    }

    /// Number of jobs.
    pub fn jobs(&self) -> u32 {
        self.inner.jobs()
    }

    /// The id of job `j`.
    pub fn job_id(&self, j: u32) -> Option<&str> {
        self.inner.job_id(j)
    }
}

/// The result JSON of `scenario_json` run with the host `events` (JSON Lines text): the bytes of
/// `mlsched run --events` (`Engine::run_events`).
pub fn run_events(
    scenario_json: &str,
    policy: Option<&str>,
    events: &str,
) -> Result<String, String> {
    let evs = event::parse_lines(events).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        policy: policy.map(String::from),
        all_categories: false,
    };
    let mut e = Engine::new(scenario_json, &opts).map_err(|e| e.to_string())?;
    let r = e.run_events(&evs, &mut |_| {}).map_err(|e| e.to_string())?;
    Ok(r.to_json())
}
