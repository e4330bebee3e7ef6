//! The Chrome trace event document (the "Trace Event Format" that Perfetto and chrome://tracing
//! open): complete events (`ph: "X"`) on named tracks, thread-scoped instants (`ph: "i"`) and
//! the metadata events (`ph: "M"`) that name processes and threads.
//!
//! A track is a (process, thread) pair. Slices on one thread must not overlap (the viewers
//! expect nesting), but a server hosts several jobs at once, so every slice is added to a
//! *group* (a server's workers, one GPU, one parameter server) and [`TraceBuilder::finish`]
//! deals the slices of each group out to as few lanes (threads) as keep them apart.
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Process id of the scheduler's own tracks (arrivals, decisions, search).
pub const SCHEDULER_PID: u32 = 0;

/// The scheduler's fixed threads (process [`SCHEDULER_PID`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SchedThread {
    /// Job arrivals and finishes (the driver's event records).
    Events = 1,
    /// Admissions, rejections, placements: one instant per decision with its explanation.
    Decisions = 2,
    /// The search behind a decision (candidates, categories, PSO results, ...).
    Search = 3,
}

impl SchedThread {
    fn name(self) -> &'static str {
        match self {
            SchedThread::Events => "arrivals and finishes",
            SchedThread::Decisions => "decisions",
            SchedThread::Search => "search",
        }
    }
}

/// One event of the `traceEvents` array (field order as written).
#[derive(Clone, Debug, Serialize)]
struct Event {
    name: String,
    cat: &'static str,
    ph: &'static str,
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: u32,
    tid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    args: Map<String, Value>,
}

/// A slice waiting for its lane.
struct Slice {
    name: String,
    ts: f64,
    dur: f64,
    args: Map<String, Value>,
}

/// Where slices go: a process (a server) and a group of lanes in it, sorted by `order`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Group {
    /// The process (one per server or node).
    pub pid: u32,
    /// Position of the group among the process's groups.
    pub order: u32,
    /// The group's name (the thread name; a lane number is added when it needs several).
    pub name: String,
}

impl Group {
    /// A group `name` at position `order` in process `pid`.
    pub fn new(pid: u32, order: u32, name: impl Into<String>) -> Self {
        Group {
            pid,
            order,
            name: name.into(),
        }
    }
}

/// Collects a trace's events and writes the document.
pub struct TraceBuilder {
    cat: &'static str,
    processes: BTreeMap<u32, String>,
    instants: Vec<Event>,
    slices: BTreeMap<Group, Vec<Slice>>,
    other: Map<String, Value>,
}

impl TraceBuilder {
    /// An empty trace whose events carry category `cat` (the scenario kind).
    pub fn new(cat: &'static str) -> Self {
        let mut processes = BTreeMap::new();
        processes.insert(SCHEDULER_PID, "scheduler".to_string());
        TraceBuilder {
            cat,
            processes,
            instants: Vec::new(),
            slices: BTreeMap::new(),
            other: Map::new(),
        }
    }

    /// Names process `pid` (a server); ids other than [`SCHEDULER_PID`].
    pub fn process(&mut self, pid: u32, name: impl Into<String>) {
        self.processes.insert(pid, name.into());
    }

    /// A document-level fact for `otherData` (kind, policy, time unit, ...).
    pub fn other(&mut self, key: &str, v: impl Into<Value>) {
        self.other.insert(key.to_string(), v.into());
    }

    /// An instant at `ts` microseconds on one of the scheduler's threads.
    pub fn instant(&mut self, t: SchedThread, name: String, ts: f64, args: Map<String, Value>) {
        self.instants.push(Event {
            name,
            cat: self.cat,
            ph: "i",
            ts,
            dur: None,
            pid: SCHEDULER_PID,
            tid: t as u32,
            s: Some("t"),
            args,
        });
    }

    /// A slice of `dur` microseconds from `ts` in group `g` (its process must be named).
    pub fn slice(&mut self, g: Group, name: String, ts: f64, dur: f64, args: Map<String, Value>) {
        self.slices.entry(g).or_default().push(Slice {
            name,
            ts,
            dur,
            args,
        });
    }

    /// The whole document: metadata events, the slices lane by lane, then the instants.
    pub fn finish(self) -> String {
        let mut meta: Vec<Event> = Vec::new();
        let mut body: Vec<Event> = Vec::new();
        for (&pid, name) in &self.processes {
            meta.push(metadata("process_name", pid, 0, name));
            meta.push(sort_index("process_sort_index", pid, 0, pid));
        }
        for t in [
            SchedThread::Events,
            SchedThread::Decisions,
            SchedThread::Search,
        ] {
            meta.push(metadata("thread_name", SCHEDULER_PID, t as u32, t.name()));
            meta.push(sort_index(
                "thread_sort_index",
                SCHEDULER_PID,
                t as u32,
                t as u32,
            ));
        }
        let mut next_tid: BTreeMap<u32, u32> = BTreeMap::new();
        for (g, mut slices) in self.slices {
            slices.sort_by(|a, b| {
                (a.ts, a.dur)
                    .partial_cmp(&(b.ts, b.dur))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| a.name.cmp(&b.name))
            });
            let lanes = deal(&slices);
            let count = lanes.iter().max().map_or(0, |m| m + 1);
            let first = *next_tid.entry(g.pid).or_insert(1);
            next_tid.insert(g.pid, first + count);
            for lane in 0..count {
                let tid = first + lane;
                let name = if count == 1 {
                    g.name.clone()
                } else {
                    format!("{} · lane {}", g.name, lane + 1)
                };
                meta.push(metadata("thread_name", g.pid, tid, &name));
                meta.push(sort_index("thread_sort_index", g.pid, tid, tid));
            }
            for (s, lane) in slices.into_iter().zip(lanes) {
                body.push(Event {
                    name: s.name,
                    cat: self.cat,
                    ph: "X",
                    ts: s.ts,
                    dur: Some(s.dur),
                    pid: g.pid,
                    tid: first + lane,
                    s: None,
                    args: s.args,
                });
            }
        }
        let events: Vec<String> = meta
            .iter()
            .chain(&body)
            .chain(&self.instants)
            .map(|e| serde_json::to_string(e).unwrap_or_default())
            .collect();
        let other = serde_json::to_string(&self.other).unwrap_or_default();
        format!(
            "{{\"displayTimeUnit\":\"ms\",\"otherData\":{other},\"traceEvents\":[\n{}\n]}}\n",
            events.join(",\n")
        )
    }
}

/// First-fit lanes for slices sorted by start: each goes to the lowest lane free at its start.
fn deal(slices: &[Slice]) -> Vec<u32> {
    let mut ends: Vec<f64> = Vec::new();
    slices
        .iter()
        .map(|s| {
            let lane = match ends.iter().position(|&e| e <= s.ts) {
                Some(l) => l,
                None => {
                    ends.push(f64::NEG_INFINITY);
                    ends.len() - 1
                }
            };
            ends[lane] = s.ts + s.dur;
            lane as u32
        })
        .collect()
}

fn metadata(what: &str, pid: u32, tid: u32, name: &str) -> Event {
    let mut args = Map::new();
    args.insert("name".into(), name.into());
    Event {
        name: what.to_string(),
        cat: "__metadata",
        ph: "M",
        ts: 0.0,
        dur: None,
        pid,
        tid,
        s: None,
        args,
    }
}

fn sort_index(what: &str, pid: u32, tid: u32, index: u32) -> Event {
    let mut args = Map::new();
    args.insert("sort_index".into(), index.into());
    Event {
        name: what.to_string(),
        cat: "__metadata",
        ph: "M",
        ts: 0.0,
        dur: None,
        pid,
        tid,
        s: None,
        args,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_slices_get_separate_lanes_and_touching_ones_share() {
        let s = |ts: f64, dur: f64| Slice {
            name: String::new(),
            ts,
            dur,
            args: Map::new(),
        };
        assert_eq!(
            deal(&[s(0.0, 2.0), s(1.0, 2.0), s(2.0, 1.0), s(3.0, 1.0)]),
            vec![0, 1, 0, 0]
        );
    }
}
