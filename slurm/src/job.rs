//! Jobs as `squeue --json` reports them, and as `scontrol show job -o` prints one (Slurm 22.05's
//! scontrol has no `--json`).
use crate::error::SlurmError;
use crate::hostlist;
use crate::json::{self, Words};
use serde::Deserialize;

/// A job's state (Slurm's base state; flags such as `REQUEUED` are dropped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobState {
    /// Waiting (held or not: see [`Job::held`]).
    Pending,
    /// Running.
    Running,
    /// Suspended.
    Suspended,
    /// Finishing: some processes still ending.
    Completing,
    /// Ended with exit code 0.
    Completed,
    /// Ended with a non-zero exit code or another failure.
    Failed,
    /// Cancelled by a user or an administrator.
    Cancelled,
    /// Reached its time limit.
    Timeout,
    /// Ended because a node it held failed.
    NodeFail,
    /// Preempted.
    Preempted,
    /// Its nodes failed to boot.
    BootFail,
    /// Missed its deadline.
    Deadline,
    /// Ran out of memory.
    OutOfMemory,
    /// Anything else, as Slurm wrote it (upper case).
    Other(String),
}

impl JobState {
    /// From Slurm's word (`PENDING`, `NODE_FAIL`, ...; case ignored).
    pub fn from_word(word: &str) -> Self {
        match word.to_ascii_uppercase().as_str() {
            "PENDING" => Self::Pending,
            "RUNNING" => Self::Running,
            "SUSPENDED" => Self::Suspended,
            "COMPLETING" => Self::Completing,
            "COMPLETED" => Self::Completed,
            "FAILED" => Self::Failed,
            "CANCELLED" => Self::Cancelled,
            "TIMEOUT" => Self::Timeout,
            "NODE_FAIL" => Self::NodeFail,
            "PREEMPTED" => Self::Preempted,
            "BOOT_FAIL" => Self::BootFail,
            "DEADLINE" => Self::Deadline,
            "OUT_OF_MEMORY" => Self::OutOfMemory,
            other => Self::Other(other.to_string()),
        }
    }

    /// An end state: the job will not run (again) by itself.
    pub fn is_end(&self) -> bool {
        matches!(
            self,
            Self::Completed
                | Self::Failed
                | Self::Cancelled
                | Self::Timeout
                | Self::NodeFail
                | Self::Preempted
                | Self::BootFail
                | Self::Deadline
                | Self::OutOfMemory
        )
    }
}

/// One job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Slurm's job id.
    pub id: u64,
    /// Its name (`-J`).
    pub name: String,
    /// Its state.
    pub state: JobState,
    /// Pending because held (`sbatch -H`, `scontrol hold`): a job the bridge has to release.
    pub held: bool,
    /// Slurm's reason for its state (`JobHeldUser`, `Resources`, `None`, ...).
    pub reason: String,
    /// `--comment`, as written.
    pub comment: String,
    /// The nodes it holds or held (expanded); empty while pending.
    pub nodes: Vec<String>,
    /// The node count asked for (pending) or held.
    pub node_count: u32,
    /// Its partition.
    pub partition: String,
    /// GPUs per node asked for (`--gres gpu:N`, `TresPerNode`), 0 if none.
    pub gpus_per_node: u32,
    /// The exit code Slurm reports (a wait status: code << 8 | signal).
    pub exit_code: i64,
}

#[derive(Deserialize)]
struct SqueueDoc {
    #[serde(default)]
    errors: Vec<serde_json::Value>,
    jobs: Vec<RawJob>,
}

#[derive(Deserialize)]
struct RawJob {
    job_id: u64,
    #[serde(default)]
    name: Option<String>,
    job_state: Words,
    #[serde(default)]
    state_reason: Option<String>,
    #[serde(default)]
    comment: Option<String>,
    #[serde(default)]
    nodes: Option<String>,
    #[serde(default)]
    node_count: Option<u32>,
    #[serde(default)]
    partition: Option<String>,
    #[serde(default)]
    tres_per_node: Option<String>,
    #[serde(default)]
    exit_code: Option<serde_json::Value>,
}

/// Parses `squeue --json` output; `command` names it in errors.
pub fn parse_squeue(command: &str, text: &str) -> Result<Vec<Job>, SlurmError> {
    let doc: SqueueDoc = json::parse(command, text)?;
    json::no_errors(command, &doc.errors)?;
    doc.jobs.into_iter().map(job).collect()
}

fn job(raw: RawJob) -> Result<Job, SlurmError> {
    let (base, _flags) = raw.job_state.split();
    let state = JobState::from_word(&base);
    let reason = raw.state_reason.unwrap_or_default();
    let gres = raw.tres_per_node.unwrap_or_default();
    Ok(Job {
        id: raw.job_id,
        name: raw.name.unwrap_or_default(),
        held: held(&state, &reason),
        state,
        reason,
        comment: raw.comment.unwrap_or_default(),
        nodes: hostlist::expand(raw.nodes.as_deref().unwrap_or(""))?,
        node_count: raw.node_count.unwrap_or(0),
        partition: raw.partition.unwrap_or_default(),
        gpus_per_node: hostlist::gpus(&gres).ok_or(SlurmError::Gres {
            subject: format!("job {}", raw.job_id),
            value: gres,
        })?,
        // 22.05 writes a number; later releases an object with the code inside.
        exit_code: match raw.exit_code {
            Some(serde_json::Value::Number(n)) => n.as_i64().unwrap_or(0),
            _ => 0,
        },
    })
}

/// Held: pending with a `JobHeld*` reason (`JobHeldUser` from `sbatch -H`, `JobHeldAdmin`).
fn held(state: &JobState, reason: &str) -> bool {
    *state == JobState::Pending && reason.starts_with("JobHeld")
}

/// A job as `scontrol show job -o ID` prints it: the fields the checks need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownJob {
    /// `JobId`.
    pub id: u64,
    /// `JobState`.
    pub state: JobState,
    /// `Reason`.
    pub reason: String,
    /// `NodeList`, expanded.
    pub nodes: Vec<String>,
    /// `ReqNodeList`, expanded: the nodes asked for.
    pub required_nodes: Vec<String>,
    /// `NumNodes` (its first number: `2` or `2-4`).
    pub node_count: u32,
    /// `Partition`.
    pub partition: String,
    /// GPUs per node from `TresPerNode`, 0 if none.
    pub gpus_per_node: u32,
}

/// Parses one line of `scontrol show job -o`: `Key=Value` words; a word without `=` continues the
/// previous value (a comment or command with spaces).
pub fn parse_show_job(command: &str, text: &str) -> Result<ShownJob, SlurmError> {
    let fields = key_values(text);
    let get = |k: &str| {
        fields
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let need = |k: &str| {
        get(k).ok_or_else(|| SlurmError::Output {
            command: command.to_string(),
            message: format!("no {k}="),
        })
    };
    let number = |k: &str, v: &str| {
        let digits = v.split('-').next().unwrap_or("");
        digits.parse::<u64>().map_err(|_| SlurmError::Output {
            command: command.to_string(),
            message: format!("{k}={v} is not a number"),
        })
    };
    let id = number("JobId", need("JobId")?)?;
    let gres = get("TresPerNode").unwrap_or("").to_string();
    Ok(ShownJob {
        id,
        state: JobState::from_word(need("JobState")?),
        reason: get("Reason").unwrap_or("").to_string(),
        nodes: hostlist::expand(get("NodeList").unwrap_or(""))?,
        required_nodes: hostlist::expand(get("ReqNodeList").unwrap_or(""))?,
        node_count: u32::try_from(number("NumNodes", need("NumNodes")?)?).map_err(|_| {
            SlurmError::Output {
                command: command.to_string(),
                message: "NumNodes out of range".into(),
            }
        })?,
        partition: get("Partition").unwrap_or("").to_string(),
        gpus_per_node: hostlist::gpus(&gres).ok_or(SlurmError::Gres {
            subject: format!("job {id}"),
            value: gres,
        })?,
    })
}

/// `A=1 B=x y C=` -> `[(A, 1), (B, x y), (C, )]`.
fn key_values(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for word in text.split_whitespace() {
        match word.split_once('=') {
            Some((k, v)) if is_key(k) => out.push((k.to_string(), v.to_string())),
            _ => {
                if let Some((_, v)) = out.last_mut() {
                    v.push(' ');
                    v.push_str(word);
                }
            }
        }
    }
    out
}

/// scontrol's keys: letters, digits and `/:_` (`CPUs/Task`, `AllocNode:Sid`).
fn is_key(k: &str) -> bool {
    k.starts_with(|c: char| c.is_ascii_alphabetic())
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | ':' | '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_states() {
        for w in ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL"] {
            assert!(JobState::from_word(w).is_end(), "{w}");
        }
        for w in ["PENDING", "RUNNING", "COMPLETING", "SUSPENDED"] {
            assert!(!JobState::from_word(w).is_end(), "{w}");
        }
        assert_eq!(JobState::from_word("node_fail"), JobState::NodeFail);
        assert_eq!(
            JobState::from_word("WEIRD"),
            JobState::Other("WEIRD".into())
        );
    }

    #[test]
    fn key_values_keep_spaces_in_values() {
        let kv = key_values("JobId=3 Comment=mlsched:{\"a\": 1} x StdErr=/dev/null Power=");
        assert_eq!(kv[1], ("Comment".into(), "mlsched:{\"a\": 1} x".into()));
        assert_eq!(kv[3], ("Power".into(), String::new()));
    }

    #[test]
    fn show_job_without_required_fields_is_an_error() {
        let e = parse_show_job("scontrol show job -o 9", "JobId=9 NumNodes=1").unwrap_err();
        assert!(e.to_string().contains("no JobState="), "{e}");
        let e = parse_show_job("c", "JobId=x JobState=RUNNING NumNodes=1").unwrap_err();
        assert!(e.to_string().contains("JobId=x"), "{e}");
    }
}
