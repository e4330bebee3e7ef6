//! The optional `throughput` table of an `"oasis"` scenario (placement-aware speed-ups, see
//! `docs/throughput.md`) and its validation into [`mlsched_kernel::model::throughput`].
use super::check;
use crate::error::InputError;
use mlsched_kernel::limits::{SPEEDUP_GPUS_MAX, SPEEDUP_MODELS_MAX, SPEEDUP_NODES_MAX};
use mlsched_kernel::model::throughput::Throughput;
use serde::{Deserialize, Serialize};

/// `throughput`: one speed-up table per model family.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ThroughputDoc {
    /// Where the numbers come from (free text, e.g. the data files and batch sizes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The model families, each named once.
    pub models: Vec<ModelSpeedupDoc>,
}

/// One model family's table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpeedupDoc {
    /// The family's name, referred to by a job's `model`.
    pub name: String,
    /// `speedup[n - 1][g - 1]` = s(g, n): worker-equivalents of g GPUs over n servers. Every
    /// model has the same N rows of G values; entries with g < n are never read.
    pub speedup: Vec<Vec<f64>>,
}

impl ThroughputDoc {
    /// Checks every value and resolves each job's `model` name (`None`: linear) into the
    /// kernel's table. `jobs` gives (job id, model name) in input order.
    pub fn validate<'a>(
        &self,
        jobs: impl Iterator<Item = (&'a str, Option<&'a str>)>,
    ) -> Result<Throughput, InputError> {
        let s = "throughput";
        check::count_limit(
            s,
            "models",
            self.models.len(),
            1,
            SPEEDUP_MODELS_MAX,
            "SPEEDUP_MODELS_MAX",
        )?;
        check::ids(
            "throughput model",
            "throughput.models",
            self.models.iter().map(|m| m.name.as_str()),
        )?;
        let nodes = self.models[0].speedup.len();
        let gpus = self.models[0].speedup.first().map_or(0, Vec::len);
        let mut tables = Vec::with_capacity(self.models.len());
        for (k, m) in self.models.iter().enumerate() {
            tables.push(m.table(k, nodes, gpus)?);
        }
        let mut job_model = Vec::new();
        for (id, name) in jobs {
            job_model.push(match name {
                None => None,
                Some(n) => Some(self.index_of(id, n)?),
            });
        }
        let count = job_model.len();
        Throughput::new(gpus as u32, nodes as u32, tables, job_model, count)
            .map_err(|e| InputError::new(s, "models", e.to_string()))
    }

    fn index_of(&self, id: &str, name: &str) -> Result<u32, InputError> {
        self.models
            .iter()
            .position(|m| m.name == name)
            .map(|k| k as u32)
            .ok_or_else(|| {
                let known: Vec<&str> = self.models.iter().map(|m| m.name.as_str()).collect();
                InputError::new(
                    check::job(id),
                    "model",
                    format!(
                        "`{name}` is not a model of throughput.models ({})",
                        known.join(", ")
                    ),
                )
            })
    }
}

/// The validated table of a scenario, if any: `table` checked against the jobs' (id, model)
/// pairs; without a table, a job naming a model is an error naming it.
pub fn resolve<'a>(
    table: Option<&ThroughputDoc>,
    jobs: impl Iterator<Item = (&'a str, Option<&'a str>)>,
) -> Result<Option<Throughput>, InputError> {
    match table {
        Some(t) => t.validate(jobs).map(Some),
        None => {
            for (id, model) in jobs {
                if model.is_some() {
                    return Err(InputError::new(
                        check::job(id),
                        "model",
                        "names a model family but the scenario has no `throughput` table",
                    ));
                }
            }
            Ok(None)
        }
    }
}

impl ModelSpeedupDoc {
    /// The N x G values, row by row, after checking the shape and every value.
    fn table(&self, k: usize, nodes: usize, gpus: usize) -> Result<Vec<f64>, InputError> {
        let s = "throughput";
        let field = format!("models[{k}].speedup");
        check::count_limit(
            s,
            &field,
            self.speedup.len(),
            1,
            SPEEDUP_NODES_MAX,
            "SPEEDUP_NODES_MAX",
        )?;
        if self.speedup.len() != nodes {
            return Err(InputError::new(
                s,
                field,
                format!(
                    "has {} node rows, the first model {nodes}: every model needs the same rows",
                    self.speedup.len()
                ),
            ));
        }
        let mut out = Vec::with_capacity(nodes * gpus);
        for (n, row) in self.speedup.iter().enumerate() {
            let f = format!("{field}[{n}]");
            check::count_limit(s, &f, row.len(), 1, SPEEDUP_GPUS_MAX, "SPEEDUP_GPUS_MAX")?;
            if row.len() != gpus {
                return Err(InputError::new(
                    s,
                    f,
                    format!(
                        "has {} GPU columns, the first row {gpus}: rows need the same length",
                        row.len()
                    ),
                ));
            }
            for (g, &x) in row.iter().enumerate() {
                out.push(check::non_negative(s, &format!("{f}[{g}]"), x)?);
            }
        }
        Ok(out)
    }
}
