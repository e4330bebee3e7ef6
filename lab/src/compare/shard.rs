//! Sharded sweeps: `mlsched compare import:SOURCE --seeds A..B --shard I/N --out DIR` runs the
//! I-th of N disjoint parts of a sweep and writes `DIR/shard-I-of-N.json`; `mlsched merge DIR...
//! --out DIR` turns the N shard files into the `sweep.json` / `sweep.csv` of the unsharded run,
//! byte for byte.
//!
//! - `I` is 0-based: `0 <= I < N`, `N >= 1`.
//! - A shard takes whole seeds (every policy of a seed runs in the same shard): the seeds at
//!   positions `k` of the sweep (`A..B` in order) with `k % N == I` (round robin, so that shards
//!   are balanced whatever the seed range).
//! - Without `--shard`, the shard comes from the environment: a Slurm job array
//!   (`SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN` of `SLURM_ARRAY_TASK_COUNT`), else a
//!   Kubernetes Indexed Job (`JOB_COMPLETION_INDEX` of `MLSCHED_SHARD_COUNT`, which the Job sets
//!   to its `completions`).
//! - A shard file holds the sweep's fingerprint (the scenario argument, the seeds, the policies
//!   and the scenario document of the first seed, so the trace files and every mapping flag are
//!   in it), the shard's place, and one flat record per (seed, policy) run. Floating-point
//!   numbers are stored as their shortest round-trip decimal text in strings, so that merging
//!   reads back the exact bits the shard computed.
use super::sweep::{summarize, SeedRow, Sweep};
use super::Metrics;
use mlsched_scenario::error::{InputError, RunError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `format` of a shard file.
pub const FORMAT: &str = "mlsched-sweep-shard/1";

/// Most shards of a sweep (a sweep has at most 10,000 seeds).
pub const SHARDS_MAX: u64 = 10_000;

/// The I-th (0-based) of N parts of a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// I, 0-based.
    pub index: u32,
    /// N.
    pub count: u32,
}

fn shard_err(problem: String) -> InputError {
    InputError::new("option", "shard", problem)
}

impl Shard {
    /// Checks `0 <= index < count`, `1 <= count <= SHARDS_MAX`; `from` names where the values
    /// came from (`--shard 3/2`, `SLURM_ARRAY_TASK_ID=...`).
    pub fn new(index: u64, count: u64, from: &str) -> Result<Shard, InputError> {
        if count == 0 || count > SHARDS_MAX {
            return Err(shard_err(format!(
                "{from}: the shard count N must be 1..={SHARDS_MAX}, got {count}"
            )));
        }
        if index >= count {
            return Err(shard_err(format!(
                "{from}: the shard index I is 0-based and must be below N = {count}, got {index}"
            )));
        }
        Ok(Shard {
            index: index as u32,
            count: count as u32,
        })
    }

    /// Parses `--shard I/N`.
    pub fn parse(s: &str) -> Result<Shard, InputError> {
        let from = format!("--shard `{s}`");
        let bad = || shard_err(format!("{from}: expected I/N with 0 <= I < N (e.g. 0/4)"));
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i = i.trim().parse::<u64>().map_err(|_| bad())?;
        let n = n.trim().parse::<u64>().map_err(|_| bad())?;
        Shard::new(i, n, &from)
    }

    /// The shard given by the environment (read through `get`): a Slurm job array, else a
    /// Kubernetes Indexed Job with `MLSCHED_SHARD_COUNT`; `None` when neither is there.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Option<Shard>, InputError> {
        let num = |name: &str| -> Result<Option<u64>, InputError> {
            match get(name) {
                None => Ok(None),
                Some(v) => v.trim().parse::<u64>().map(Some).map_err(|_| {
                    shard_err(format!(
                        "{name}={v} (no --shard given): expected a whole number >= 0"
                    ))
                }),
            }
        };
        if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
            let count = num("SLURM_ARRAY_TASK_COUNT")?.ok_or_else(|| {
                shard_err(
                    "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (no --shard \
                     given)"
                        .into(),
                )
            })?;
            let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let from = format!(
                "SLURM_ARRAY_TASK_ID={id} (SLURM_ARRAY_TASK_MIN={min}, \
                 SLURM_ARRAY_TASK_COUNT={count}; no --shard given)"
            );
            let index = id.checked_sub(min).ok_or_else(|| {
                shard_err(format!("{from}: the task id is below SLURM_ARRAY_TASK_MIN"))
            })?;
            return Shard::new(index, count, &from).map(Some);
        }
        if let Some(index) = num("JOB_COMPLETION_INDEX")? {
            let count = num("MLSCHED_SHARD_COUNT")?.ok_or_else(|| {
                shard_err(
                    "JOB_COMPLETION_INDEX is set but MLSCHED_SHARD_COUNT is not: set it to the \
                     Indexed Job's completions (or give --shard I/N)"
                        .into(),
                )
            })?;
            let from = format!(
                "JOB_COMPLETION_INDEX={index} (MLSCHED_SHARD_COUNT={count}; no --shard given)"
            );
            return Shard::new(index, count, &from).map(Some);
        }
        Ok(None)
    }

    /// This shard's seeds: positions `k` of `seeds` with `k % count == index`.
    pub fn seeds(&self, seeds: &[u64]) -> Vec<u64> {
        seeds
            .iter()
            .enumerate()
            .filter(|(k, _)| *k % self.count as usize == self.index as usize)
            .map(|(_, &s)| s)
            .collect()
    }

    /// `shard-I-of-N.json`.
    pub fn file_name(&self) -> String {
        format!("shard-{}-of-{}.json", self.index, self.count)
    }
}

/// FNV-1a, 128 bits, as 32 hex digits.
pub fn fingerprint(scenario: &str, seeds: &[u64], policies: &[String], first_doc: &str) -> String {
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    let text = format!(
        "{FORMAT}\n{scenario}\n{}..{} ({})\n{}\n{first_doc}",
        seeds.first().copied().unwrap_or(0),
        seeds.last().copied().unwrap_or(0),
        seeds.len(),
        policies.join(",")
    );
    for b in text.bytes() {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000000001000000000000000000013B);
    }
    format!("{h:032x}")
}

mod exact {
    //! `f64` as its shortest round-trip text (Rust's `Display`), parsed back exactly.
    use serde::{de::Error, Deserialize, Deserializer, Serializer};
    use std::collections::BTreeMap;

    pub fn to_text(x: f64) -> String {
        x.to_string()
    }

    pub fn from_text<E: Error>(s: &str) -> Result<f64, E> {
        s.parse::<f64>()
            .map_err(|_| E::custom(format!("`{s}` is not a number")))
    }

    pub mod opt {
        use super::*;
        pub fn serialize<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
            match x {
                Some(v) => s.serialize_some(&to_text(*v)),
                None => s.serialize_none(),
            }
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
            Option::<String>::deserialize(d)?
                .map(|s| from_text(&s))
                .transpose()
        }
    }

    pub mod map {
        use super::*;
        pub fn serialize<S: Serializer>(
            m: &BTreeMap<String, f64>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            s.collect_map(m.iter().map(|(k, v)| (k, to_text(*v))))
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<BTreeMap<String, f64>, D::Error> {
            BTreeMap::<String, String>::deserialize(d)?
                .into_iter()
                .map(|(k, v)| Ok((k, from_text(&v)?)))
                .collect()
        }
    }

    /// Ordered (name, number) pairs (per-resource utilisation keeps the scenario's order).
    pub mod pairs {
        use super::*;
        pub fn serialize<S: Serializer>(v: &[(String, f64)], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(v.iter().map(|(k, x)| (k, to_text(*x))))
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Vec<(String, f64)>, D::Error> {
            Vec::<(String, String)>::deserialize(d)?
                .into_iter()
                .map(|(k, v)| Ok((k, from_text(&v)?)))
                .collect()
        }
    }
}

/// One (seed, policy) run: the seed and the policy's [`Metrics`] (floats as exact text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Seed.
    pub seed: u64,
    /// Policy.
    pub policy: String,
    /// "ok" or why the policy could not run.
    pub status: String,
    /// Jobs.
    pub jobs: u32,
    /// Admitted / scheduled jobs.
    pub admitted: Option<u32>,
    /// Finished jobs.
    pub finished: u32,
    /// Total utility (oasis).
    #[serde(with = "exact::opt")]
    pub total_utility: Option<f64>,
    /// Total weighted completion time (online).
    #[serde(with = "exact::opt")]
    pub total_weighted_completion_time: Option<f64>,
    /// Weighted JCT.
    #[serde(with = "exact::opt")]
    pub weighted_jct: Option<f64>,
    /// Average JCT.
    #[serde(with = "exact::opt")]
    pub avg_jct: Option<f64>,
    /// Makespan.
    pub makespan: Option<u32>,
    /// Unfinished jobs.
    #[serde(default)]
    pub unfinished: Option<u32>,
    /// JCT percentiles p50, p90, p99.
    #[serde(with = "exact::opt", default)]
    pub jct_p50: Option<f64>,
    /// See `jct_p50`.
    #[serde(with = "exact::opt", default)]
    pub jct_p90: Option<f64>,
    /// See `jct_p50`.
    #[serde(with = "exact::opt", default)]
    pub jct_p99: Option<f64>,
    /// Mean utilisation per resource.
    #[serde(with = "exact::pairs", default)]
    pub utilisation: Vec<(String, f64)>,
    /// Kind-specific numbers.
    #[serde(with = "exact::map", default)]
    pub extra: BTreeMap<String, f64>,
    /// Decision log hash.
    pub log_hash: String,
}

impl Record {
    /// The record of `m` on `seed`.
    pub fn new(seed: u64, m: &Metrics) -> Record {
        Record {
            seed,
            policy: m.policy.clone(),
            status: m.status.clone(),
            jobs: m.jobs,
            admitted: m.admitted,
            finished: m.finished,
            total_utility: m.total_utility,
            total_weighted_completion_time: m.total_weighted_completion_time,
            weighted_jct: m.weighted_jct,
            avg_jct: m.avg_jct,
            makespan: m.makespan,
            unfinished: m.unfinished,
            jct_p50: m.jct_p50,
            jct_p90: m.jct_p90,
            jct_p99: m.jct_p99,
            utilisation: m.utilisation.clone(),
            extra: m.extra.clone(),
            log_hash: m.log_hash.clone(),
        }
    }

    /// Back to [`Metrics`].
    pub fn metrics(&self) -> Metrics {
        Metrics {
            policy: self.policy.clone(),
            status: self.status.clone(),
            jobs: self.jobs,
            admitted: self.admitted,
            finished: self.finished,
            total_utility: self.total_utility,
            total_weighted_completion_time: self.total_weighted_completion_time,
            weighted_jct: self.weighted_jct,
            avg_jct: self.avg_jct,
            makespan: self.makespan,
            unfinished: self.unfinished,
            jct_p50: self.jct_p50,
            jct_p90: self.jct_p90,
            jct_p99: self.jct_p99,
            utilisation: self.utilisation.clone(),
            extra: self.extra.clone(),
            log_hash: self.log_hash.clone(),
            // Sweeps set no slot length on their rows (the report's summary says it).
            slot_seconds: None,
        }
    }
}

/// A shard file (`shard-I-of-N.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardFile {
    /// [`FORMAT`].
    pub format: String,
    /// [`fingerprint`] of the sweep's inputs.
    pub fingerprint: String,
    /// The scenario argument (`import:SOURCE`).
    pub scenario: String,
    /// The scenario kind.
    pub kind: String,
    /// Every seed of the sweep, in order (not only this shard's).
    pub seeds: Vec<u64>,
    /// Policies in order.
    pub policies: Vec<String>,
    /// Which part this is.
    pub shard: Shard,
    /// Per seed of the shard (in order), per policy (in order).
    pub records: Vec<Record>,
    /// The scenario summary and reproduce commands of the sweep's `index.html` (the same in
    /// every shard; absent in files of older versions, whose merged page then says less).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<super::html::Info>,
}

impl ShardFile {
    /// The file of `shard` from its computed rows.
    pub fn new(
        fingerprint: String,
        scenario: &str,
        kind: &str,
        seeds: &[u64],
        policies: &[String],
        shard: Shard,
        rows: &[SeedRow],
    ) -> ShardFile {
        ShardFile {
            format: FORMAT.into(),
            fingerprint,
            scenario: scenario.into(),
            kind: kind.into(),
            seeds: seeds.to_vec(),
            policies: policies.to_vec(),
            shard,
            records: rows
                .iter()
                .flat_map(|r| r.metrics.iter().map(|m| Record::new(r.seed, m)))
                .collect(),
            report: None,
        }
    }

    /// Parses a shard file's text; `name` names it in errors.
    pub fn parse(name: &str, text: &str) -> Result<ShardFile, InputError> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| InputError::new(name, "", format!("not a shard file: {e}")))?;
        if v.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(InputError::new(
                name,
                "format",
                format!(
                    "not a shard file of `mlsched compare --shard` (expected format `{FORMAT}`)"
                ),
            ));
        }
        serde_json::from_value(v).map_err(|e| InputError::new(name, "", e.to_string()))
    }
}

fn merge_err(name: &str, problem: String) -> RunError {
    InputError::new(name, "shard", problem).into()
}

/// Merges named shard files into the unsharded run's [`Sweep`]: every shard 0..N exactly once,
/// all of the same sweep (fingerprint), each holding exactly its seeds x the policies.
pub fn merge(shards: &[(String, ShardFile)]) -> Result<Sweep, RunError> {
    let Some((first_name, first)) = shards.first() else {
        return Err(merge_err(
            "merge",
            "no shard file given (shard-I-of-N.json, written by `compare --shard`)".into(),
        ));
    };
    let n = first.shard.count;
    let mut by_index: BTreeMap<u32, &str> = BTreeMap::new();
    for (name, f) in shards {
        if f.fingerprint != first.fingerprint
            || f.seeds != first.seeds
            || f.policies != first.policies
            || f.scenario != first.scenario
        {
            return Err(merge_err(
                name,
                format!(
                    "from a different sweep than {first_name} (fingerprint {} vs {}: the \
                     scenario, seeds, policies or mapping flags differ)",
                    f.fingerprint, first.fingerprint
                ),
            ));
        }
        if f.shard.count != n {
            return Err(merge_err(
                name,
                format!(
                    "shard {} of {} but {first_name} is a shard of {n}",
                    f.shard.index, f.shard.count
                ),
            ));
        }
        if f.shard.index >= n {
            return Err(merge_err(
                name,
                format!("shard index {} is not below {n}", f.shard.index),
            ));
        }
        if let Some(other) = by_index.insert(f.shard.index, name) {
            return Err(merge_err(
                name,
                format!(
                    "shard {} of {n} is duplicated: given twice ({other} and {name})",
                    f.shard.index
                ),
            ));
        }
        let want: Vec<(u64, &str)> = f
            .shard
            .seeds(&f.seeds)
            .into_iter()
            .flat_map(|s| f.policies.iter().map(move |p| (s, p.as_str())))
            .collect();
        let got: Vec<(u64, &str)> = f
            .records
            .iter()
            .map(|r| (r.seed, r.policy.as_str()))
            .collect();
        if want != got {
            return Err(merge_err(
                name,
                format!(
                    "holds {} records that are not its seeds x policies ({} runs expected)",
                    got.len(),
                    want.len()
                ),
            ));
        }
    }
    let missing: Vec<String> = (0..n)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| format!("shard-{i}-of-{n}.json"))
        .collect();
    if !missing.is_empty() {
        return Err(merge_err(
            "merge",
            format!(
                "{} of {n} shards missing: {}",
                missing.len(),
                missing.join(", ")
            ),
        ));
    }
    let mut rows: BTreeMap<u64, Vec<Metrics>> = BTreeMap::new();
    for (_, f) in shards {
        for r in &f.records {
            rows.entry(r.seed).or_default().push(r.metrics());
        }
    }
    let per_seed = first
        .seeds
        .iter()
        .map(|&seed| SeedRow {
            seed,
            metrics: rows.remove(&seed).unwrap_or_default(),
        })
        .collect();
    Ok(summarize(&first.policies, per_seed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_env() {
        assert_eq!(Shard::parse("0/3").unwrap(), Shard { index: 0, count: 3 });
        for bad in ["3/3", "0/0", "1", "a/2", "-1/2"] {
            let e = Shard::parse(bad).unwrap_err().to_string();
            assert!(e.contains("--shard"), "{e}");
        }
        let env = |kv: &'static [(&'static str, &'static str)]| {
            move |k: &str| kv.iter().find(|(a, _)| *a == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(Shard::from_env(env(&[])).unwrap(), None);
        assert_eq!(
            Shard::from_env(env(&[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "4")
            ]))
            .unwrap(),
            Some(Shard { index: 2, count: 4 })
        );
        assert_eq!(
            Shard::from_env(env(&[
                ("JOB_COMPLETION_INDEX", "1"),
                ("MLSCHED_SHARD_COUNT", "2")
            ]))
            .unwrap(),
            Some(Shard { index: 1, count: 2 })
        );
        assert!(Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "1")]))
            .unwrap_err()
            .to_string()
            .contains("MLSCHED_SHARD_COUNT"));
        let s = Shard { index: 1, count: 3 };
        assert_eq!(s.seeds(&[1, 2, 3, 4, 5, 6, 7]), vec![2, 5]);
    }

    #[test]
    fn exact_floats() {
        let m = Metrics {
            total_utility: Some(0.1 + 0.2),
            avg_jct: Some(f64::NAN),
            weighted_jct: Some(1e-310),
            ..Metrics::default()
        };
        let r = Record::new(7, &m);
        let back: Record = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(
            back.total_utility.unwrap().to_bits(),
            (0.1f64 + 0.2).to_bits()
        );
        assert!(back.avg_jct.unwrap().is_nan());
        assert_eq!(back.weighted_jct.unwrap().to_bits(), 1e-310f64.to_bits());
    }
}
