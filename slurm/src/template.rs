//! Scenario templates from a running cluster, and the check of a template against it.
//!
//! A template is a scenario with no jobs whose servers are the cluster's nodes. Kind `online`
//! only (issue 48; `oasis` needs a faithful execution of its elastic plans first). Each server
//! is written `{"id": <node name>, "capacity": [...]}`, in the partition's order (`sinfo
//! --json`, which is `slurm.conf`'s), so the engine's server ids are the node names
//! ([`Template::server_ids`]). `docs/control-planes.md` documents the defaults.
use crate::error::SlurmError;
use crate::node::Node;
use serde_json::{json, Value};

/// The resources of a template, in order: GPUs (from GRES), CPUs, `RealMemory` in MB.
pub const RESOURCES: [&str; 3] = ["gpu", "cpu", "mem_mb"];
/// Default horizon T of a template, in slots.
pub const SLOTS_DEFAULT: u32 = 1024;
/// Default F (the bound on weight per unit of resource), as in `scenarios/online-*.json`.
pub const F_DEFAULT: f64 = 4.0;
/// Default bandwidth b_m of the template's one worker type.
pub const WORKER_BW_DEFAULT: f64 = 1.0;

/// A scenario kind a template can be written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `"online"` (Zhou et al.), Ring-AllReduce by default.
    Online,
}

impl Kind {
    /// From its name; any other kind is refused, saying why (`docs/control-planes.md`: the
    /// bridge starts each job once on fixed nodes, and OASiS's elastic plans change a running
    /// job's workers from slot to slot, which Slurm cannot do to a running job).
    pub fn parse(name: &str) -> Result<Self, SlurmError> {
        use mlsched_scenario::engine::{Kind as _, Oasis, Online};
        if name == Online::NAME {
            return Ok(Self::Online);
        }
        let why = if name == Oasis::NAME {
            " yet (its elastic plans change a running job's workers, which Slurm cannot do to a \
             running job)"
        } else {
            ""
        };
        Err(SlurmError::Request {
            message: format!(
                "kind {name}: no Slurm template{why} (kind {} only)",
                Online::NAME
            ),
        })
    }
}

/// A written template.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    /// Its kind.
    pub kind: Kind,
    /// The Slurm node name of each server, in the document's server order.
    pub server_ids: Vec<String>,
    /// The scenario document (valid: checked by the scenario parser `mlsched run` uses).
    pub json: String,
}

/// Writes the template of `kind` for `nodes` (the partition's, in Slurm's order).
pub fn write(kind: Kind, nodes: &[Node]) -> Result<Template, SlurmError> {
    let Kind::Online = kind;
    let gpu_nodes: Vec<&Node> = nodes.iter().filter(|n| n.gpus > 0).collect();
    if gpu_nodes.is_empty() {
        return Err(SlurmError::Request {
            message: "no node has GPUs (GRES gpu): nothing for a worker to use".into(),
        });
    }
    // One worker = one GPU with the CPU and memory share of the leanest GPU node, so every GPU
    // of every node can hold a worker.
    let cpu_share = gpu_nodes.iter().map(|n| n.cpus / n.gpus).min().unwrap_or(0);
    let mem_share = gpu_nodes
        .iter()
        .map(|n| n.memory_mb / u64::from(n.gpus))
        .min()
        .unwrap_or(0);
    let servers: Vec<Value> = nodes
        .iter()
        .map(|n| json!({ "id": n.name, "capacity": [n.gpus, n.cpus, n.memory_mb] }))
        .collect();
    let doc = json!({
        "kind": "online",
        "slots": SLOTS_DEFAULT,
        "architecture": "ring",
        "resources": RESOURCES,
        "servers": servers,
        "worker_types": [{ "demand": [1, cpu_share, mem_share], "bw": WORKER_BW_DEFAULT }],
        "F": F_DEFAULT,
        "jobs": [],
    });
    let json = serde_json::to_string_pretty(&doc).map_err(|e| SlurmError::Template {
        message: e.to_string(),
    })? + "\n";
    validate(&json)?;
    Ok(Template {
        kind,
        server_ids: nodes.iter().map(|n| n.name.clone()).collect(),
        json,
    })
}

/// Parses and validates `text` as `mlsched run` does.
fn validate(text: &str) -> Result<(), SlurmError> {
    let doc = mlsched_scenario::doc::parse(text).map_err(|e| SlurmError::Template {
        message: e.to_string(),
    })?;
    doc.validate().map_err(|e| SlurmError::Template {
        message: e.to_string(),
    })?;
    use mlsched_scenario::engine::{Kind as _, Online};
    if Online::doc_of(&doc).is_none() {
        return Err(SlurmError::Template {
            message: format!(
                "kind {} (the Slurm bridge takes kind {})",
                doc.kind(),
                Online::NAME
            ),
        });
    }
    Ok(())
}

/// A server's capacity vector: the array itself, or the `capacity` of `{"id", "capacity"}`.
fn capacity_of(server: &Value) -> Option<&Vec<Value>> {
    server
        .as_array()
        .or_else(|| server.get("capacity").and_then(Value::as_array))
}

/// Checks template `text` against `nodes` (the partition's, in Slurm's order): a valid `online`
/// scenario with one server per node, each with the node's GPUs exactly and no more CPUs
/// (`cpu`) or memory (`mem_mb`) than the node has, when the template has those resources. A
/// mismatch is refused naming the node.
pub fn check(text: &str, nodes: &[Node]) -> Result<(), SlurmError> {
    check_with(text, nodes, true)
}

/// [`check`] without the capacities: a valid `online` scenario with one server per node, in
/// Slurm's order. For a resumed bridge, whose nodes may have changed GPUs, CPUs or memory since
/// the template was written (the bridge feeds those as `capacity` events).
pub fn check_servers(text: &str, nodes: &[Node]) -> Result<(), SlurmError> {
    check_with(text, nodes, false)
}

fn check_with(text: &str, nodes: &[Node], capacities: bool) -> Result<(), SlurmError> {
    validate(text)?;
    let doc: Value = serde_json::from_str(text).map_err(|e| SlurmError::Template {
        message: e.to_string(),
    })?;
    let resources: Vec<&str> = doc["resources"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let column = |name: &str| resources.iter().position(|r| *r == name);
    let gpu = column("gpu").ok_or_else(|| SlurmError::Template {
        message: "no resource named `gpu` (Slurm's GRES gpu count is checked against it)".into(),
    })?;
    let servers = doc["servers"].as_array().cloned().unwrap_or_default();
    if let Some(extra) = servers.get(nodes.len()) {
        return Err(SlurmError::Mismatch {
            node: format!("h{} (template server)", nodes.len()),
            message: format!(
                "the template has {} servers, the partition {} nodes ({extra} has no node)",
                servers.len(),
                nodes.len()
            ),
        });
    }
    for (i, node) in nodes.iter().enumerate() {
        let server = servers.get(i);
        let Some(cap) = server.and_then(capacity_of) else {
            return Err(SlurmError::Mismatch {
                node: node.name.clone(),
                message: format!("no server for it (the template has {})", servers.len()),
            });
        };
        let mismatch = |message: String| SlurmError::Mismatch {
            node: node.name.clone(),
            message: format!("server {i}: {message}"),
        };
        match server.and_then(|s| s.get("id")).and_then(Value::as_str) {
            Some(id) if id != node.name => {
                return Err(mismatch(format!(
                    "its id is `{id}`, the node at its place is `{}` (ids are node names, in \
                     Slurm's order)",
                    node.name
                )))
            }
            _ => {}
        }
        if !capacities {
            continue;
        }
        let at = |c: usize| cap.get(c).and_then(Value::as_f64).unwrap_or(0.0);
        if at(gpu) != f64::from(node.gpus) {
            return Err(mismatch(format!(
                "{} GPUs in the template, {} in Slurm (GRES)",
                at(gpu),
                node.gpus
            )));
        }
        let limits = [("cpu", node.cpus as f64), ("mem_mb", node.memory_mb as f64)];
        for (name, slurm) in limits {
            if let Some(c) = column(name) {
                if at(c) > slurm {
                    return Err(mismatch(format!(
                        "{name} {} in the template, {slurm} in Slurm",
                        at(c)
                    )));
                }
            }
        }
    }
    Ok(())
}
