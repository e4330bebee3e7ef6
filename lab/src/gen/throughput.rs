//! `--throughput` of `mlsched gen oasis|online`: the bundled placement-aware speed-up tables
//! (the same `throughput` document `mlsched import --throughput pollux` writes, derived by
//! [`crate::import::pollux`]) and one model family per generated job. `docs/throughput.md`
//! describes the option and how the generators set their workers in that mode.
use crate::import::pollux;
use mlsched_kernel::rng::SplitMix64;
use mlsched_scenario::doc::throughput::ThroughputDoc;
use mlsched_scenario::error::RunError;
use std::path::Path;

/// Seed offset of the stream that draws the families: a stream of its own, so every other value
/// of the scenario is the one the seed gives without the option.
const MODEL_STREAM: u64 = 0x0067_656e_6d6f_6465;

/// The derived tables of the bundled Pollux measurements, ready to be put in a scenario.
#[derive(Clone, Debug)]
pub struct GenTable {
    /// The scenario's `throughput` document (every family's s(g, n)).
    pub doc: ThroughputDoc,
}

impl GenTable {
    /// Reads and derives the tables from the data folder (`--data DIR`, else the lookup order of
    /// [`crate::data`]).
    pub fn load(data: Option<&Path>) -> Result<Self, RunError> {
        let dir = crate::data::data_dir(data)?;
        let tables = pollux::read_tables(&dir.join("pollux-throughput"))?;
        Ok(GenTable {
            doc: pollux::throughput_doc(&tables),
        })
    }

    /// One family name per job, for `jobs` jobs: uniform over the table's families, drawn in
    /// job order from a SplitMix64 seeded with `seed` (mixed with a constant of its own). Uniform
    /// because a generated job's size has no relation to the trace sizes by which the importers
    /// pick a family; every measured family is then equally represented.
    pub fn models(&self, seed: u64, jobs: usize) -> Vec<String> {
        let mut rng = SplitMix64::new(seed ^ MODEL_STREAM);
        let families = &self.doc.models;
        if families.is_empty() {
            // No family to draw from (never for the bundled six): the jobs stay linear.
            return Vec::new();
        }
        (0..jobs)
            .map(|_| {
                families[rng.below(families.len() as u64) as usize]
                    .name
                    .clone()
            })
            .collect()
    }

    /// Fills every job's `model` (in job order, as [`GenTable::models`] draws them) and returns
    /// the scenario's `throughput` document.
    pub fn apply<'a>(
        &self,
        seed: u64,
        jobs: impl ExactSizeIterator<Item = &'a mut Option<String>>,
    ) -> ThroughputDoc {
        let models = self.models(seed, jobs.len());
        jobs.zip(models).for_each(|(job, m)| *job = Some(m));
        self.doc.clone()
    }
}
