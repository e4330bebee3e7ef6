//! mlsched's Slurm client, the part of issue 48's bridge that needs no open-world engine.
//!
//! It reads a real Slurm cluster (`sinfo --json`, `squeue --json`, `scontrol show job -o`) into
//! typed [`Node`]s and [`Job`]s, parses the `mlsched:<job JSON>` comment users submit held jobs
//! with ([`MlschedComment`]), carries out the bridge's actions through `scontrol`/`scancel`
//! ([`Client::start`], [`Client::cancel`], [`Client::node_down`], [`Client::node_resume`]), and
//! writes and checks scenario templates from the cluster ([`Client::template`],
//! [`Client::check_template`]). Every command goes through a [`Runner`], so tests feed recorded
//! output ([`Recorded`]); every failure is a typed [`SlurmError`]. The mapping to engine events
//! and the test cluster (`scripts/slurm-cluster.sh`) are in `docs/control-planes.md`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bridge;
pub mod client;
pub mod comment;
pub mod error;
pub mod hostlist;
pub mod job;
mod json;
pub mod node;
pub mod runner;
pub mod template;

pub use bridge::{Bridge, Options as BridgeOptions, Outcome};
pub use client::{Client, HeldJob};
pub use comment::MlschedComment;
pub use error::SlurmError;
pub use job::{Job, JobState, ShownJob};
pub use node::{Node, NodeState};
pub use runner::{Recorded, Runner, SystemRunner};
pub use template::{Kind, Template};

impl<R: Runner> Client<R> {
    /// The template of `kind` written from `partition`'s nodes (every node when `None`).
    pub fn template(&self, kind: Kind, partition: Option<&str>) -> Result<Template, SlurmError> {
        template::write(kind, &self.partition_nodes(partition)?)
    }

    /// Checks template `text` against `partition`'s nodes (every node when `None`); a mismatch
    /// is refused naming the node.
    pub fn check_template(&self, text: &str, partition: Option<&str>) -> Result<(), SlurmError> {
        template::check(text, &self.partition_nodes(partition)?)
    }
}
