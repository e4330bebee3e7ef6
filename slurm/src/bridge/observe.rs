//! What changed in Slurm, as engine events: nodes out of or back in service, nodes whose GPUs,
//! CPUs or memory changed, jobs of the bridge's that ended, held jobs with an `mlsched:`
//! comment not seen before.
//!
//! Pure functions of one poll and of what the bridge knows, so a restarted bridge, whose engine
//! was rebuilt from the journal, sees exactly what is still new.
use super::plans::Plans;
use crate::comment::MlschedComment;
use crate::error::SlurmError;
use crate::job::{Job, JobState};
use crate::node::Node;
use mlsched_kernel::world::Status;
use mlsched_scenario::event::HostEvent;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// A node's change of service: `server_down` when Slurm has it DOWN, DRAINED or DRAINING and
/// the engine up; `server_up` when Slurm has it IDLE, MIXED or ALLOCATED and the engine down.
/// `down` says whether the engine has the node down (`None`: not a server of the template).
pub fn node_event(at: u32, node: &Node, down: Option<bool>) -> Option<HostEvent> {
    let server = node.name.clone();
    match down? {
        false if node.state.is_out() => Some(HostEvent::ServerDown { at, server }),
        true if node.state.is_up() => Some(HostEvent::ServerUp { at, server }),
        _ => None,
    }
}

/// The template's resources and server capacities, and the capacity last fed per node: what a
/// node's `capacity` event is compared with. Rebuilt from the template and the journal's
/// `capacity` events ([`Capacities::fed`]), so a restarted bridge does not feed one again.
#[derive(Clone, Debug, Default)]
pub struct Capacities {
    resources: Vec<String>,
    /// Node name -> the template's capacity (the ceiling for `cpu` and `mem_mb`).
    template: HashMap<String, Vec<f64>>,
    /// Node name -> the capacity in force in the engine (the template's until a `capacity`).
    fed: HashMap<String, Vec<f64>>,
}

impl Capacities {
    /// Reads the template's `resources` and each `{"id", "capacity"}` server (a server without
    /// an id names no node and is left out).
    pub fn from_template(text: &str) -> Self {
        let doc: Value = serde_json::from_str(text).unwrap_or_default();
        let resources = doc["resources"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string))
            .map(Iterator::collect)
            .unwrap_or_default();
        let mut template = HashMap::new();
        for server in doc["servers"].as_array().into_iter().flatten() {
            let (Some(id), Some(cap)) = (server["id"].as_str(), server["capacity"].as_array())
            else {
                continue;
            };
            let cap: Vec<f64> = cap.iter().map(|c| c.as_f64().unwrap_or(0.0)).collect();
            template.insert(id.to_string(), cap);
        }
        Capacities {
            resources,
            fed: template.clone(),
            template,
        }
    }

    /// Records the capacity fed for `server` (a live `capacity` event or a re-fed one).
    pub fn fed(&mut self, server: &str, capacity: &[f64]) {
        self.fed.insert(server.to_string(), capacity.to_vec());
    }

    /// Slurm's node in the template's resource order: `gpu` its GRES GPU count; `cpu` and
    /// `mem_mb` its CPUs and `RealMemory`, no more than the template's (a template may keep
    /// some back, and `template::check` lets it); any other resource the template's.
    pub fn of(&self, node: &Node) -> Option<Vec<f64>> {
        let template = self.template.get(&node.name)?;
        let cap = self
            .resources
            .iter()
            .zip(template)
            .map(|(r, &t)| match r.as_str() {
                "gpu" => f64::from(node.gpus),
                "cpu" => f64::from(node.cpus).min(t),
                "mem_mb" => (node.memory_mb as f64).min(t),
                _ => t,
            });
        Some(cap.collect())
    }

    /// `capacity` when a node in service (IDLE, MIXED, ALLOCATED) has a capacity ([`Self::of`])
    /// other than the one last fed. A node out of service is not read (Slurm may report a
    /// down node's resources as zero); its change is fed when it is back.
    pub fn event(&self, at: u32, node: &Node) -> Option<HostEvent> {
        if !node.state.is_up() {
            return None;
        }
        let now = self.of(node)?;
        if self.fed.get(&node.name) == Some(&now) {
            return None;
        }
        Some(HostEvent::Capacity {
            at,
            server: node.name.clone(),
            capacity: now,
        })
    }
}

/// The event for a job of the bridge's that Slurm shows ended (`job.state.is_end()`), given the
/// engine's view (`status`, its plans) of engine job `index` named `id`:
/// - none when the bridge ended it itself (its comment has the `mlsched-cancel:` mark), when
///   the engine rejected it, or when the engine has it ended already (cancelled, lost);
/// - `finished` when it ended COMPLETED, FAILED, TIMEOUT or OUT_OF_MEMORY while running a plan
///   (Slurm's exit code is not judged), or when the engine's schedule of it is over;
/// - `cancel` otherwise: CANCELLED by its user, NODE_FAIL and every other end, or any end of a
///   job the engine has not (or no longer) running, so the engine stops counting on it.
pub fn end_event(
    at: u32,
    job: &Job,
    index: u32,
    id: &str,
    status: Option<Status>,
    plans: &Plans,
) -> Option<HostEvent> {
    let ours = matches!(MlschedComment::parse(job.id, &job.comment), Ok(Some(c)) if c.cancel_reason.is_some());
    if ours || plans.rejected(index).is_some() {
        return None;
    }
    let job_id = id.to_string();
    match status {
        Some(Status::Cancelled | Status::Lost | Status::Rejected) => None,
        Some(Status::Finished) => Some(HostEvent::Finished { at, job: job_id }),
        _ => {
            let ran = matches!(
                job.state,
                JobState::Completed | JobState::Failed | JobState::Timeout | JobState::OutOfMemory
            );
            if ran && plans.current(index).is_some() {
                Some(HostEvent::Finished { at, job: job_id })
            } else {
                Some(HostEvent::Cancel { at, job: job_id })
            }
        }
    }
}

/// What a job not known to the bridge is.
#[derive(Debug)]
pub enum NewJob {
    /// A held job with a valid `mlsched:` comment: submit this job object.
    Submit(Map<String, Value>),
    /// A held job whose comment does not parse: cancel it with this reason.
    Refuse(String),
}

/// A job the bridge has not seen: mlsched's if held, pending, in the partition (when one is
/// given) and with an `mlsched:` comment not marked cancelled; anything else is left alone.
pub fn new_job(job: &Job, partition: Option<&str>) -> Option<NewJob> {
    if !job.held || job.state != JobState::Pending {
        return None;
    }
    if partition.is_some_and(|p| job.partition != p) {
        return None;
    }
    match MlschedComment::parse(job.id, &job.comment) {
        Ok(None) => None,
        Ok(Some(c)) if c.cancel_reason.is_some() => None,
        Ok(Some(c)) => Some(NewJob::Submit(c.job)),
        Err(e @ SlurmError::Comment { .. }) => Some(NewJob::Refuse(e.to_string())),
        Err(e) => Some(NewJob::Refuse(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::{parse_sinfo, NodeState};

    /// Recorded `sinfo --json` of the idle 4 x 4-GPU test cluster (`tests/fixtures/`).
    const SINFO_IDLE: &str = include_str!("../../tests/fixtures/sinfo-idle.json");

    fn nodes() -> Vec<Node> {
        parse_sinfo("sinfo --json", SINFO_IDLE).unwrap()
    }

    #[test]
    fn a_node_whose_gpus_cpus_or_memory_change_is_a_capacity_event() {
        let mut nodes = nodes();
        let template = crate::template::write(crate::Kind::Online, &nodes).unwrap();
        let mut caps = Capacities::from_template(&template.json);
        assert!(nodes.iter().all(|n| caps.event(3, n).is_none()));
        // n2 loses two GPUs and half its memory.
        nodes[1].gpus = 2;
        nodes[1].memory_mb = 500;
        let ev = caps.event(3, &nodes[1]).unwrap();
        assert_eq!(
            ev.to_value(),
            serde_json::json!({"at": 3, "event": "capacity", "server": "n2", "capacity": [2.0, 8.0, 500.0]})
        );
        caps.fed("n2", &[2.0, 8.0, 500.0]);
        assert!(caps.event(4, &nodes[1]).is_none());
        // More CPUs than the template's are not fed (the template is the ceiling); a down node
        // is not read.
        nodes[2].cpus = 16;
        assert!(caps.event(4, &nodes[2]).is_none());
        nodes[3].gpus = 0;
        nodes[3].state = NodeState::Down;
        assert!(caps.event(4, &nodes[3]).is_none());
        nodes[3].state = NodeState::Idle;
        assert_eq!(caps.of(&nodes[3]).unwrap(), [0.0, 8.0, 1000.0]);
        assert!(caps.event(5, &nodes[3]).is_some());
    }

    #[test]
    fn a_template_keeping_cpus_back_caps_them_and_other_resources_stay() {
        let text = r#"{"resources": ["cpu", "gpu", "disk"],
            "servers": [{"id": "n1", "capacity": [4, 4, 9]}, [1, 1, 1]]}"#;
        let caps = Capacities::from_template(text);
        let n1 = nodes().remove(0);
        assert_eq!(caps.of(&n1).unwrap(), [4.0, 4.0, 9.0]);
        assert!(caps.event(0, &n1).is_none());
    }
}
