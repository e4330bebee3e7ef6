//! What the engine decided for each job, read from its decision stream: the current plan (start
//! slot and placement), how many plans it has had, and rejections.
//!
//! Records read (kind `online`, `docs/engine.md`): `online.decision` (a scheduled one opens a
//! plan at its `start`, one that is not is a rejection), `online.placed` (one server of the
//! plan), `online.interrupted`; and the online baselines' `baseline.start`, `baseline.placed`,
//! `baseline.interrupted`, `baseline.preempted`, `baseline.cancelled`. An interruption or a
//! cancel ends the current plan; the job's next plan (its recovery) gets the next number.
use mlsched_scenario::engine::Decision;
use serde_json::Value;
use std::collections::HashMap;

/// One decided run of a job.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// 1 for the job's first plan, 2 after an interruption, ...
    pub number: u32,
    /// The slot it starts in.
    pub start: u32,
    /// (server index, workers, parameter servers) per server it uses.
    pub servers: Vec<(u32, u32, u32)>,
}

/// Plans and rejections per job index.
#[derive(Debug, Default)]
pub struct Plans {
    current: HashMap<u32, Plan>,
    count: HashMap<u32, u32>,
    rejected: HashMap<u32, String>,
}

fn num(v: &Value, key: &str) -> Option<u32> {
    v.get(key)?.as_u64().and_then(|x| u32::try_from(x).ok())
}

impl Plans {
    /// Reads one decision.
    pub fn on_decision(&mut self, d: &Decision) {
        let v = d.data.to_value();
        let Some(job) = d.job.or_else(|| num(&v, "job")) else {
            return;
        };
        match d.record {
            "online.decision" if v["scheduled"] == Value::Bool(true) => {
                self.open(job, num(&v, "start").unwrap_or(0))
            }
            "online.decision" => {
                let why = if v["feasible"] == Value::Bool(true) {
                    format!("rejected by A_online: utility {} <= 0", v["utility"])
                } else {
                    "rejected by A_online: no feasible schedule in its window".to_string()
                };
                self.current.remove(&job);
                self.rejected.insert(job, why);
            }
            "baseline.start" => {
                let slot = num(&v, "slot").unwrap_or(0);
                if self.current.get(&job).map(|p| p.start) != Some(slot) {
                    self.open(job, slot)
                }
            }
            "online.placed" | "baseline.placed" => self.place(job, &v),
            "online.interrupted"
            | "baseline.interrupted"
            | "baseline.preempted"
            | "baseline.cancelled" => {
                self.current.remove(&job);
            }
            _ => {}
        }
    }

    fn open(&mut self, job: u32, start: u32) {
        let n = self.count.entry(job).or_insert(0);
        *n += 1;
        self.current.insert(
            job,
            Plan {
                number: *n,
                start,
                servers: Vec::new(),
            },
        );
    }

    fn place(&mut self, job: u32, v: &Value) {
        // A baseline writes its placements before its start record: the first one opens.
        let slot = num(v, "slot");
        let fresh = match (self.current.get(&job), slot) {
            (None, _) => true,
            (Some(p), Some(s)) => p.start != s,
            (Some(_), None) => false,
        };
        if fresh {
            self.open(job, slot.unwrap_or(0));
        }
        let entry = (
            num(v, "server").unwrap_or(0),
            num(v, "workers").unwrap_or(0),
            num(v, "ps").unwrap_or(0),
        );
        if let Some(p) = self.current.get_mut(&job) {
            p.servers.push(entry);
        }
    }

    /// The job's current plan.
    pub fn current(&self, job: u32) -> Option<&Plan> {
        self.current.get(&job)
    }

    /// How many plans the job has had (0: never decided to run).
    pub fn count(&self, job: u32) -> u32 {
        self.count.get(&job).copied().unwrap_or(0)
    }

    /// Why the job was rejected, if it was.
    pub fn rejected(&self, job: u32) -> Option<&str> {
        self.rejected.get(&job).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlsched_scenario::engine::Data;
    use serde_json::json;

    fn d(record: &'static str, job: u32, v: Value) -> Decision {
        Decision::typed(record, Some(job), Data::Json(v))
    }

    #[test]
    fn plans_open_fill_end_and_count() {
        let mut p = Plans::default();
        p.on_decision(&d(
            "baseline.placed",
            3,
            json!({"slot": 4, "server": 1, "workers": 2, "ps": 0}),
        ));
        p.on_decision(&d(
            "baseline.placed",
            3,
            json!({"slot": 4, "server": 2, "workers": 2, "ps": 0}),
        ));
        p.on_decision(&d("baseline.start", 3, json!({"slot": 4, "workers": 4})));
        let plan = p.current(3).unwrap();
        assert_eq!((plan.number, plan.start), (1, 4));
        assert_eq!(plan.servers, [(1, 2, 0), (2, 2, 0)]);
        p.on_decision(&d("baseline.interrupted", 3, json!({"slot": 6})));
        assert!(p.current(3).is_none());
        p.on_decision(&d(
            "online.decision",
            3,
            json!({"scheduled": true, "start": 8}),
        ));
        p.on_decision(&d(
            "online.placed",
            3,
            json!({"server": 0, "workers": 1, "ps": 0}),
        ));
        assert_eq!(p.current(3).unwrap().number, 2);
        assert_eq!(p.current(3).unwrap().servers, [(0, 1, 0)]);
        p.on_decision(&d(
            "online.decision",
            5,
            json!({"scheduled": false, "feasible": false}),
        ));
        assert!(p.rejected(5).unwrap().contains("no feasible"));
        assert_eq!(p.count(5), 0);
    }
}
