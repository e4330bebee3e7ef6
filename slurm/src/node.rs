//! Nodes as `sinfo --json` reports them (Slurm 22.05's openapi v0.0.38 layout; the later
//! layout where `state` is an array of words is read too).
use crate::error::SlurmError;
use crate::hostlist;
use crate::json::{self, Words};
use serde::Deserialize;

/// A node's state as the scheduler needs it: its base state, with the DRAIN flag folded in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Nothing allocated.
    Idle,
    /// Every CPU allocated.
    Allocated,
    /// Some CPUs allocated.
    Mixed,
    /// Down (by an administrator, a failure, or not responding past `SlurmdTimeout`).
    Down,
    /// Drained: DRAIN flag and nothing running.
    Drained,
    /// Draining: DRAIN flag with jobs still running.
    Draining,
    /// Configured for the future, not yet in service.
    Future,
    /// Anything else, as Slurm wrote it (upper case).
    Other(String),
}

impl NodeState {
    /// Slurm's base state word plus its flags.
    pub fn from_words(base: &str, flags: &[String]) -> Self {
        let drain = flags.iter().any(|f| f.eq_ignore_ascii_case("DRAIN"));
        let base = base.to_ascii_uppercase();
        match (base.as_str(), drain) {
            ("DOWN", _) => Self::Down,
            ("IDLE", true) => Self::Drained,
            ("ALLOCATED" | "MIXED", true) => Self::Draining,
            ("IDLE", false) => Self::Idle,
            ("ALLOCATED", false) => Self::Allocated,
            ("MIXED", false) => Self::Mixed,
            ("FUTURE", _) => Self::Future,
            _ => Self::Other(base),
        }
    }

    /// Can take work: idle, allocated or mixed (the engine's "up").
    pub fn is_up(&self) -> bool {
        matches!(self, Self::Idle | Self::Allocated | Self::Mixed)
    }

    /// Out of service for the engine: down, drained or draining (its `server_down`).
    pub fn is_out(&self) -> bool {
        matches!(self, Self::Down | Self::Drained | Self::Draining)
    }
}

/// One node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Slurm's node name (`NodeName`).
    pub name: String,
    /// Its state.
    pub state: NodeState,
    /// Slurm's state flags as written (`DRAIN`, `NOT_RESPONDING`, ...).
    pub flags: Vec<String>,
    /// GPUs configured (from `gres`).
    pub gpus: u32,
    /// GPUs allocated (from `gres_used`).
    pub gpus_used: u32,
    /// CPUs configured.
    pub cpus: u32,
    /// `RealMemory` in MB.
    pub memory_mb: u64,
    /// The partitions it belongs to.
    pub partitions: Vec<String>,
    /// The reason an administrator (or Slurm) gave for down/drain, empty if none.
    pub reason: String,
}

impl Node {
    /// In `partition` (any node when `None`).
    pub fn in_partition(&self, partition: Option<&str>) -> bool {
        partition.is_none_or(|p| self.partitions.iter().any(|q| q == p))
    }
}

#[derive(Deserialize)]
struct SinfoDoc {
    #[serde(default)]
    errors: Vec<serde_json::Value>,
    nodes: Vec<RawNode>,
}

#[derive(Deserialize)]
struct RawNode {
    name: String,
    state: Words,
    #[serde(default)]
    state_flags: Vec<String>,
    #[serde(default)]
    gres: Option<String>,
    #[serde(default)]
    gres_used: Option<String>,
    #[serde(default)]
    cpus: Option<u32>,
    #[serde(default)]
    real_memory: Option<u64>,
    #[serde(default)]
    partitions: Vec<String>,
    #[serde(default)]
    reason: Option<String>,
}

/// Parses `sinfo --json` output; `command` names it in errors.
pub fn parse_sinfo(command: &str, text: &str) -> Result<Vec<Node>, SlurmError> {
    let doc: SinfoDoc = json::parse(command, text)?;
    json::no_errors(command, &doc.errors)?;
    doc.nodes.into_iter().map(node).collect()
}

fn node(raw: RawNode) -> Result<Node, SlurmError> {
    let (base, mut flags) = raw.state.split();
    flags.extend(raw.state_flags);
    let count = |value: Option<String>| {
        let value = value.unwrap_or_default();
        hostlist::gpus(&value).ok_or(SlurmError::Gres {
            subject: format!("node {}", raw.name),
            value,
        })
    };
    Ok(Node {
        state: NodeState::from_words(&base, &flags),
        gpus: count(raw.gres)?,
        gpus_used: count(raw.gres_used)?,
        cpus: raw.cpus.unwrap_or(0),
        memory_mb: raw.real_memory.unwrap_or(0),
        partitions: raw.partitions,
        reason: raw.reason.unwrap_or_default(),
        flags,
        name: raw.name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_fold_the_drain_flag() {
        let drain = ["DRAIN".to_string()];
        assert_eq!(NodeState::from_words("idle", &[]), NodeState::Idle);
        assert_eq!(NodeState::from_words("idle", &drain), NodeState::Drained);
        assert_eq!(NodeState::from_words("mixed", &drain), NodeState::Draining);
        assert_eq!(NodeState::from_words("down", &drain), NodeState::Down);
        assert_eq!(
            NodeState::from_words("reboot", &[]),
            NodeState::Other("REBOOT".into())
        );
        assert!(NodeState::Mixed.is_up() && !NodeState::Mixed.is_out());
        assert!(NodeState::Drained.is_out() && !NodeState::Drained.is_up());
    }
}
