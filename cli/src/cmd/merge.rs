//! `mlsched merge`: the shard files of a sharded sweep into sweep.json and sweep.csv.
use super::compare::write_sweep_files;
use clap::Args;
use mlsched_lab::compare::html::Info;
use mlsched_lab::compare::shard::{self, ShardFile};
use mlsched_lab::compare::sweep;
use mlsched_scenario::{InputError, RunError};
use std::path::PathBuf;

/// `mlsched merge DIR... --out DIR`.
#[derive(Args, Clone, Debug)]
pub struct MergeArgs {
    /// Shard files, or directories holding shard-I-of-N.json files (written by
    /// `compare --seeds A..B --shard I/N --out DIR`).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Directory for sweep.json and sweep.csv (byte-identical to the unsharded run's).
    #[arg(long)]
    out: PathBuf,
}

/// `mlsched merge`: shard files (or directories of them) into sweep.json and sweep.csv.
pub fn run(a: &MergeArgs) -> Result<(), RunError> {
    let mut files: Vec<PathBuf> = Vec::new();
    for p in &a.inputs {
        if p.is_dir() {
            let rd = std::fs::read_dir(p)
                .map_err(|e| RunError::runtime(format!("cannot read {}: {e}", p.display())))?;
            let mut found: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("shard-") && n.ends_with(".json"))
                })
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(InputError::new(
                    p.display().to_string(),
                    "",
                    "no shard-I-of-N.json file in this directory",
                )
                .into());
            }
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    let mut shards = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let text = std::fs::read_to_string(f)
            .map_err(|e| RunError::runtime(format!("cannot read {name}: {e}")))?;
        shards.push((name.clone(), ShardFile::parse(&name, &text)?));
    }
    let sw = shard::merge(&shards)?;
    let f = &shards[0].1;
    outln!(
        "sweep {} over seeds {}..{} (kind {}): mean ± 95% CI (merged from {} shards)",
        f.scenario,
        f.seeds.first().copied().unwrap_or(0),
        f.seeds.last().copied().unwrap_or(0),
        f.kind,
        f.shard.count
    );
    out!("{}", sweep::table(&f.kind, &sw));
    let info = f.report.clone().unwrap_or_else(|| Info {
        kind: f.kind.clone(),
        source: f.scenario.clone(),
        ..Info::default()
    });
    write_sweep_files(&a.out, &info, &sw)
}
