//! The one error type of the crate: every way a Slurm command or its output can go wrong, each
//! naming what it is about (the command, the Slurm job id, the node, the field).
use std::fmt;

/// An error of the Slurm client. Odd output is an error, never a panic.
#[derive(Debug)]
pub enum SlurmError {
    /// The program could not be started (not installed, not executable).
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        message: String,
    },
    /// The program ran and failed.
    Exit {
        /// The command line.
        command: String,
        /// Its exit code (None: killed by a signal).
        code: Option<i32>,
        /// What it wrote to stderr, trimmed.
        stderr: String,
    },
    /// The output is not what the command documents (bad JSON, a missing field, a number out of
    /// range).
    Output {
        /// The command line.
        command: String,
        /// What is wrong, with serde's position when it has one.
        message: String,
    },
    /// Slurm answered with its own `errors` array.
    Reported {
        /// The command line.
        command: String,
        /// The errors, as Slurm wrote them.
        errors: String,
    },
    /// A job's `mlsched:` comment is not a valid job.
    Comment {
        /// The Slurm job id.
        job_id: u64,
        /// The field at fault (`comment` for the comment as a whole).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A host list (`n[1-3,7]`) that does not parse.
    Hostlist {
        /// The list as Slurm wrote it.
        list: String,
        /// What is wrong.
        message: String,
    },
    /// A node's or job's GRES string that does not parse.
    Gres {
        /// The node name or `job <id>`.
        subject: String,
        /// The GRES string.
        value: String,
    },
    /// A request that cannot be carried out (no such partition, a kind with no template, an
    /// empty node list, ...).
    Request {
        /// What is wrong.
        message: String,
    },
    /// A scenario template that does not match the cluster.
    Mismatch {
        /// The Slurm node (or template server) at fault.
        node: String,
        /// What differs.
        message: String,
    },
    /// A scenario template that is not a valid scenario.
    Template {
        /// The scenario parser's message.
        message: String,
    },
}

impl fmt::Display for SlurmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Spawn { command, message } => write!(f, "cannot run `{command}`: {message}"),
            Self::Exit {
                command,
                code,
                stderr,
            } => {
                let code = code.map_or_else(|| "a signal".to_string(), |c| format!("code {c}"));
                write!(f, "`{command}` failed ({code}): {stderr}")
            }
            Self::Output { command, message } => {
                write!(f, "unexpected output of `{command}`: {message}")
            }
            Self::Reported { command, errors } => {
                write!(f, "`{command}` reported errors: {errors}")
            }
            Self::Comment {
                job_id,
                field,
                message,
            } => write!(f, "Slurm job {job_id}: mlsched comment: {field}: {message}"),
            Self::Hostlist { list, message } => write!(f, "host list `{list}`: {message}"),
            Self::Gres { subject, value } => write!(f, "{subject}: unreadable GRES `{value}`"),
            Self::Request { message } => f.write_str(message),
            Self::Mismatch { node, message } => {
                write!(
                    f,
                    "template does not match the cluster: node {node}: {message}"
                )
            }
            Self::Template { message } => write!(f, "invalid template: {message}"),
        }
    }
}

impl std::error::Error for SlurmError {}
