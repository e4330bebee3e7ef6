//! Placement-aware throughput from the bundled Pollux step times (`data/pollux-throughput/`),
//! and the model family of each imported job. The model and its interpolation are documented in
//! `docs/throughput.md`; the kernel side is `mlsched_kernel::model::throughput`.
//!
//! Per model family, at one fixed local batch size (the smallest measured, present in every
//! placement), throughput(g, n) = g / step_time samples per batch unit, averaged over the
//! measured placements with g GPUs on n machines; s(g, n) = throughput(g, n) / throughput(1, 1).
//! `placements.csv` gives n = 1..4 machines (1 to 4 GPUs each), `scalability.csv` n = 6, 8, 12
//! and 16. Each measured row n is interpolated linearly in g between its points and extended
//! outside them at the per-GPU efficiency of its nearest point; a row n that was not measured is
//! interpolated linearly in n between the two measured rows around it.
use super::read::{num, read_text, rows};
use super::TraceJob;
use mlsched_kernel::rng::SplitMix64;
use mlsched_scenario::doc::throughput::{ModelSpeedupDoc, ThroughputDoc};
use mlsched_scenario::error::{InputError, RunError};
use std::collections::BTreeMap;
use std::path::Path;

/// The six model families of the Pollux data, in the order of their tables.
pub const MODELS: [&str; 6] = [
    "bert",
    "cifar10",
    "deepspeech2",
    "imagenet",
    "ncf",
    "yolov3",
];

/// G: GPU columns of the derived tables (the largest measured job, 16 machines x 4 GPUs).
pub const TABLE_GPUS: usize = 64;
/// N: node rows of the derived tables (the most machines measured).
pub const TABLE_NODES: usize = 16;

/// GPUs of the synthetic servers of source `pollux`: the measurement machines' four.
pub const SERVER_GPUS: f64 = 4.0;

/// How a job's speed depends on its workers (`--throughput`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ThroughputModel {
    /// The linear chunk model: x workers do x workers' work, wherever they are.
    #[default]
    Linear,
    /// The Pollux-derived speed-up table per model family (placement-aware).
    Pollux,
}

impl ThroughputModel {
    /// Parses a CLI name.
    pub fn parse(s: &str) -> Result<Self, InputError> {
        match s {
            "linear" => Ok(ThroughputModel::Linear),
            "pollux" => Ok(ThroughputModel::Pollux),
            other => Err(InputError::new(
                "option",
                "throughput",
                format!("unknown model `{other}`; expected linear or pollux"),
            )),
        }
    }
}

/// One family's derived table: `speedup[n - 1][g - 1]`, and the local batch size it is at.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelTable {
    /// Family name (one of [`MODELS`]).
    pub name: String,
    /// The fixed local batch size of the table.
    pub local_bsz: f64,
    /// s(g, n), [`TABLE_NODES`] rows of [`TABLE_GPUS`] values (0 where g < n).
    pub speedup: Vec<Vec<f64>>,
}

impl ModelTable {
    /// s(g, n) read from the table (g, n >= 1; n is capped at g and N, g at G).
    pub fn at(&self, g: usize, n: usize) -> f64 {
        let g = g.clamp(1, TABLE_GPUS);
        let n = n.clamp(1, TABLE_NODES).min(g);
        self.speedup[n - 1][g - 1]
    }
}

/// Reads the six families' files under `dir` (`data/pollux-throughput`) and derives each table.
pub fn read_tables(dir: &Path) -> Result<Vec<ModelTable>, RunError> {
    MODELS.iter().map(|m| read_model(&dir.join(m), m)).collect()
}

/// Measured throughput points of one row (n machines): g -> mean of g / step_time.
type Row = BTreeMap<usize, (f64, usize)>;

fn read_model(dir: &Path, name: &str) -> Result<ModelTable, RunError> {
    let p = dir.join("placements.csv");
    let text = read_text(&p)?;
    let mut points: Vec<(usize, usize, f64, f64)> = Vec::new(); // (g, n, bsz, step)
    for (row, f) in rows(&p, &text, Some("placement,local_bsz,step_time,sync_time"))? {
        let digits = f.first().copied().unwrap_or("").trim();
        let per_node: Option<Vec<usize>> = digits
            .chars()
            .map(|c| c.to_digit(10).map(|d| d as usize).filter(|&d| d > 0))
            .collect();
        let per_node = per_node.filter(|v| !v.is_empty()).ok_or_else(|| {
            super::bad(
                &p,
                row,
                "placement",
                format!("expected digits 1-9, got `{digits}`"),
            )
        })?;
        let step = positive(&p, row, &f, 2, "step_time")?;
        let bsz = num(&p, row, &f, 1, "local_bsz")?;
        points.push((per_node.iter().sum(), per_node.len(), bsz, step));
    }
    let s = dir.join("scalability.csv");
    let text = read_text(&s)?;
    let header = "num_nodes,num_replicas,local_bsz,step_time,sync_time";
    for (row, f) in rows(&s, &text, Some(header))? {
        let n = num(&s, row, &f, 0, "num_nodes")? as usize;
        let g = num(&s, row, &f, 1, "num_replicas")? as usize;
        if n == 0 || g < n {
            return Err(super::bad(
                &s,
                row,
                "num_replicas",
                "needs 1 <= num_nodes <= num_replicas",
            )
            .into());
        }
        let step = positive(&s, row, &f, 3, "step_time")?;
        points.push((g, n, num(&s, row, &f, 2, "local_bsz")?, step));
    }
    derive(name, &points)
        .map_err(|e| InputError::new(p.display().to_string(), "placement", e).into())
}

fn positive(p: &Path, row: usize, f: &[&str], col: usize, name: &str) -> Result<f64, InputError> {
    let v = num(p, row, f, col, name)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(super::bad(p, row, name, "must be > 0"))
    }
}

/// The table of one family from its (g, n, local_bsz, step_time) points.
pub fn derive(name: &str, points: &[(usize, usize, f64, f64)]) -> Result<ModelTable, String> {
    // The smallest batch size measured on one GPU: every placement has it in the data.
    let bsz = points
        .iter()
        .filter(|p| p.0 == 1 && p.1 == 1)
        .map(|p| p.2)
        .fold(f64::INFINITY, f64::min);
    if !bsz.is_finite() {
        return Err(format!("{name}: no measurement on 1 GPU"));
    }
    let mut rows: BTreeMap<usize, Row> = BTreeMap::new();
    for &(g, n, _, step) in points.iter().filter(|p| p.2 == bsz) {
        let e = rows.entry(n).or_default().entry(g).or_insert((0.0, 0));
        e.0 += g as f64 / step;
        e.1 += 1;
    }
    let base = rows
        .get(&1)
        .and_then(|r| r.get(&1))
        .map(|&(t, k)| t / k as f64)
        .ok_or_else(|| format!("{name}: no 1-GPU point at local_bsz {bsz}"))?;
    // Measured rows as sorted (g, s) points.
    let measured: BTreeMap<usize, Vec<(f64, f64)>> = rows
        .into_iter()
        .map(|(n, r)| {
            let pts = r
                .into_iter()
                .map(|(g, (t, k))| (g as f64, t / k as f64 / base))
                .collect();
            (n, pts)
        })
        .collect();
    let mut speedup = vec![vec![0.0; TABLE_GPUS]; TABLE_NODES];
    for (n, row) in speedup.iter_mut().enumerate() {
        let n = n + 1;
        for (g, cell) in row.iter_mut().enumerate().skip(n - 1) {
            *cell = round4(in_nodes(&measured, n, (g + 1) as f64));
        }
    }
    Ok(ModelTable {
        name: name.into(),
        local_bsz: bsz,
        speedup,
    })
}

/// s(g, n): the measured row n, or linear in n between the measured rows around n (the
/// nearest one beyond the measured range).
fn in_nodes(measured: &BTreeMap<usize, Vec<(f64, f64)>>, n: usize, g: f64) -> f64 {
    let below = measured.range(..=n).next_back();
    let above = measured.range(n..).next();
    match (below, above) {
        (Some((&a, ra)), Some((&b, rb))) if a != b => {
            let w = (n - a) as f64 / (b - a) as f64;
            in_gpus(ra, g) * (1.0 - w) + in_gpus(rb, g) * w
        }
        (Some((_, r)), _) | (None, Some((_, r))) => in_gpus(r, g),
        (None, None) => 0.0,
    }
}

/// One measured row at g: linear between its points, outside them the per-GPU efficiency of
/// the nearest point.
fn in_gpus(pts: &[(f64, f64)], g: f64) -> f64 {
    let (first, last) = (pts[0], pts[pts.len() - 1]);
    if g <= first.0 {
        return first.1 * g / first.0;
    }
    if g >= last.0 {
        return last.1 * g / last.0;
    }
    let k = pts.partition_point(|p| p.0 <= g);
    let (a, b) = (pts[k - 1], pts[k]);
    a.1 + (b.1 - a.1) * (g - a.0) / (b.0 - a.0)
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// The scenario's `throughput` document of `tables`.
pub fn throughput_doc(tables: &[ModelTable]) -> ThroughputDoc {
    let bsz: Vec<String> = tables
        .iter()
        .map(|t| format!("{} {}", t.name, t.local_bsz))
        .collect();
    ThroughputDoc {
        source: Some(format!(
            "data/pollux-throughput (Pollux step times on 4-GPU T4 machines); local batch \
             sizes: {}; docs/throughput.md",
            bsz.join(", ")
        )),
        models: tables
            .iter()
            .map(|t| ModelSpeedupDoc {
                name: t.name.clone(),
                speedup: t.speedup.clone(),
            })
            .collect(),
    }
}

/// GPU-hour bounds of the size classes: small < 1, medium < 10, large < 100, else extra large.
const CLASS_GPU_HOURS: [f64; 3] = [1.0, 10.0, 100.0];

/// Families per size class (indices into [`MODELS`]): small cifar10 / ncf, medium bert /
/// deepspeech2, large yolov3, extra large imagenet.
const CLASS_MODELS: [&[usize]; 4] = [&[1, 4], &[0, 2], &[5], &[3]];

/// Each job's family (index into [`MODELS`]): its size class by the GPU-hours it used in the
/// trace, then one family of the class drawn with `rng` (job order).
pub fn assign_models(jobs: &[TraceJob], rng: &mut SplitMix64) -> Vec<usize> {
    jobs.iter()
        .map(|j| {
            let gpu_hours = j.duration * j.workers.max(1) as f64 * j.gpu.max(0.0) / 3600.0;
            let class = CLASS_GPU_HOURS
                .iter()
                .position(|&b| gpu_hours < b)
                .unwrap_or(CLASS_GPU_HOURS.len());
            let fams = CLASS_MODELS[class];
            fams[rng.below(fams.len() as u64) as usize]
        })
        .collect()
}

/// What a Pollux-throughput import adds to a scenario: the table and, per job, its family
/// and its speed-up at the most consolidated placement on the import's servers.
#[derive(Clone, Debug)]
pub struct Profiles {
    /// The derived tables.
    pub tables: Vec<ModelTable>,
    /// Per job, index into `tables`.
    pub models: Vec<usize>,
}

impl Profiles {
    /// Reads the tables from `data_dir` and assigns the jobs' families.
    pub fn new(data_dir: &Path, jobs: &[TraceJob], seed: u64) -> Result<Self, RunError> {
        let tables = read_tables(&data_dir.join("pollux-throughput"))?;
        // A PRNG of its own (seed mixed with a constant), so the families do not shift the
        // utilities and weights the linear import draws.
        let mut rng = SplitMix64::new(seed ^ 0x706f_6c6c_7578);
        let models = assign_models(jobs, &mut rng);
        Ok(Profiles { tables, models })
    }

    /// Worker-equivalents of job `i` on its g traced GPUs, consolidated on servers of
    /// `server_gpus` GPUs: s(g, ceil(g / server_gpus)). The trace's run time was measured at
    /// this speed, so the job's work is this x its duration.
    pub fn consolidated(&self, i: usize, g: u32, server_gpus: f64) -> f64 {
        let per = server_gpus.floor().max(1.0) as usize;
        let g = g.max(1) as usize;
        let t = &self.tables[self.models[i]];
        let s = t.at(g, g.div_ceil(per));
        if g > TABLE_GPUS {
            s * g as f64 / TABLE_GPUS as f64
        } else {
            s
        }
    }

    /// The family name of job `i`.
    pub fn name(&self, i: usize) -> &str {
        &self.tables[self.models[i]].name
    }
}
