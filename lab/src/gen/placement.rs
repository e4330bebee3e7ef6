//! Generator of kind `"placement"` scenarios from the Gavel throughput matrix
//! (`data/gavel/throughputs_isolated.csv`, MIT, Narayanan et al. OSDI 2020).
//!
//! **Units.** Gavel's values are training *steps* (iterations) per second. A step processes one
//! mini-batch, so rho_{i,k} (samples/s, what eq. 2 needs) = steps/s x batch size, the batch size
//! being the one in the job-type name (`ResNet-18 (batch size 64)` -> 64). A3C and CycleGAN carry
//! no batch size; for them one step counts as one sample. Only rows of
//! `simulation_throughputs.json`, consolidated worker types and scale factor 1 (one GPU) are used:
//! 26 job types x {K80, P100, V100}.
//!
//! **Cluster.** `--nodes N` nodes (default 3) of 5 GPUs each (the paper's simulator, Section
//! VI-A), node n all of type [V100, P100, K80][n mod 3] (ratio 1:1:1 for N a multiple of 3);
//! links 300 Gbps inside a node, 10 Gbps between nodes (37.5e9 and 1.25e9 bytes/s).
//!
//! **Jobs.** `--jobs S` (default 4) distinct job types drawn with the seeded SplitMix64 (partial
//! Fisher-Yates over the 26 types in file order). Gavel has no data-set sizes, so an epoch is
//! defined as 1,000 steps: abs(Pi_i) = 1,000 x batch size. T_i is drawn uniformly from 10..=100.
//! D_i (model bytes) comes from a small table of approximate fp32 parameter sizes per model
//! ([`model_bytes`]; estimates, not Gavel data). The method is `has` while abs(Psi) <= 10,000,
//! else `jps`.
use super::GenOptions;
use mlsched_kernel::rng::SplitMix64;
use mlsched_scenario::error::{InputError, RunError};
use mlsched_scenario::kinds::placement::doc::{
    JpsDoc, LinkRateDoc, MethodDoc, PlacementDoc, PlacementJobDoc, WorkerDoc,
};
use std::path::{Path, PathBuf};

/// GPU types of the Gavel matrix, in the column order used here.
pub const GPUS: [&str; 3] = ["k80", "p100", "v100"];

/// One Gavel job type at scale factor 1 with its isolated throughput on each GPU type.
#[derive(Clone, Debug, PartialEq)]
pub struct GavelJobType {
    /// Gavel's job-type name, e.g. `ResNet-18 (batch size 64)`.
    pub name: String,
    /// Model name without the batch size.
    pub model: String,
    /// Batch size from the name (None for A3C, CycleGAN).
    pub batch_size: Option<u32>,
    /// Steps/s on K80, P100, V100.
    pub steps_per_s: [f64; 3],
}

impl GavelJobType {
    /// Samples/s on GPU type `g` (index into [`GPUS`]): steps/s x batch size (1 if none).
    pub fn samples_per_s(&self, g: usize) -> f64 {
        self.steps_per_s[g] * f64::from(self.batch_size.unwrap_or(1))
    }
}

/// Parses `throughputs_isolated.csv`: rows of `simulation_throughputs.json`, consolidated,
/// scale factor 1, in file order of first appearance. Errors name the line.
pub fn parse_gavel_isolated(text: &str) -> Result<Vec<GavelJobType>, RunError> {
    let bad = |line: usize, what: &str| {
        RunError::Input(InputError::new(
            format!("gavel csv line {line}"),
            "",
            what.to_string(),
        ))
    };
    let mut out: Vec<GavelJobType> = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 9 {
            return Err(bad(n + 1, "expected 9 comma-separated fields"));
        }
        if f[0] != "simulation_throughputs.json" || f[3] != "true" || f[7] != "1" {
            continue;
        }
        let Some(g) = GPUS.iter().position(|&x| x == f[2]) else {
            continue;
        };
        let v: f64 = f[8]
            .parse()
            .map_err(|_| bad(n + 1, "throughput is not a number"))?;
        let batch = if f[6].is_empty() {
            None
        } else {
            Some(
                f[6].parse()
                    .map_err(|_| bad(n + 1, "batch size is not an integer"))?,
            )
        };
        match out.iter_mut().find(|t| t.name == f[4]) {
            Some(t) => t.steps_per_s[g] = v,
            None => {
                let mut t = GavelJobType {
                    name: f[4].to_string(),
                    model: f[5].to_string(),
                    batch_size: batch,
                    steps_per_s: [0.0; 3],
                };
                t.steps_per_s[g] = v;
                out.push(t);
            }
        }
    }
    if out.is_empty() {
        return Err(bad(
            1,
            "no scale-factor-1 rows of simulation_throughputs.json",
        ));
    }
    Ok(out)
}

/// Approximate fp32 model size D_i in bytes per Gavel model (estimates from parameter counts).
pub fn model_bytes(model: &str) -> f64 {
    match model {
        "ResNet-18" => 44.7e6,
        "ResNet-50" => 102.2e6,
        "Transformer" => 260.0e6,
        "LM" => 112.0e6,
        "Recommendation" => 100.0e6,
        "A3C" => 3.3e6,
        "CycleGAN" => 113.0e6,
        _ => 100.0e6,
    }
}

/// Builds the scenario from parsed Gavel job types (see the module docs for every choice).
pub fn from_gavel(types: &[GavelJobType], opts: &GenOptions) -> Result<PlacementDoc, RunError> {
    let s = opts.jobs.unwrap_or(4) as usize;
    let nodes = opts.nodes.unwrap_or(3);
    let per_node = 5u32;
    let k = (nodes * per_node) as usize;
    if s == 0 || s > types.len() || s > k {
        return Err(RunError::Input(InputError::new(
            "option",
            "jobs",
            format!(
                "must be 1..={} (job types) and at most {k} (workers), got {s}",
                types.len()
            ),
        )));
    }
    let gpu_of_node = |n: u32| [2usize, 1, 0][(n % 3) as usize];
    let workers: Vec<WorkerDoc> = (0..nodes)
        .flat_map(|n| {
            (0..per_node).map(move |_| WorkerDoc {
                id: None,
                gpu: GPUS[gpu_of_node(n)].to_uppercase(),
                node: f64::from(n),
            })
        })
        .collect();
    let mut rng = SplitMix64::new(opts.seed);
    let mut pool: Vec<usize> = (0..types.len()).collect();
    let mut jobs = Vec::with_capacity(s);
    for x in 0..s {
        let r = x + rng.below((pool.len() - x) as u64) as usize;
        pool.swap(x, r);
        let t = &types[pool[x]];
        let epochs = 10 + rng.below(91);
        jobs.push(PlacementJobDoc {
            id: format!("{}-{}", slug(&t.name), x),
            samples: 1000.0 * f64::from(t.batch_size.unwrap_or(1)),
            epochs: epochs as f64,
            model_bytes: model_bytes(&t.model),
            throughput: (0..nodes)
                .flat_map(|n| (0..per_node).map(move |_| n))
                .map(|n| t.samples_per_s(gpu_of_node(n)))
                .collect(),
        });
    }
    let cats = mlsched_kernel::placement::category::binomial(k as u64 - 1, s as u64 - 1)
        .unwrap_or(u64::MAX);
    Ok(PlacementDoc {
        kind: "placement".into(),
        method: if cats <= 10_000 {
            MethodDoc::Has
        } else {
            MethodDoc::Jps
        },
        workers,
        link_rate: LinkRateDoc {
            intra_node: 37.5e9,
            inter_node: 1.25e9,
        },
        jobs,
        include_comm: true,
        jps: Some(JpsDoc {
            samples: Some(20.0),
            alpha: Some(0.7),
            beta: Some(1.0),
        }),
        seed: Some(opts.seed as f64),
        solver: None,
    })
}

fn slug(name: &str) -> String {
    let mut out = String::new();
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').replace("batch-size-", "bs")
}

/// Where the Gavel CSV is looked for: `--trace` (a file or the `gavel/` folder), else `gavel/`
/// of the data folder found by [`crate::data`] (`$MLSCHED_DATA`, a `data/` folder from the
/// current directory upward, the source tree's `data/`).
pub fn gavel_csv_path(trace: Option<&Path>) -> Result<PathBuf, InputError> {
    let file = |p: PathBuf| {
        if p.is_dir() {
            p.join("throughputs_isolated.csv")
        } else {
            p
        }
    };
    if let Some(t) = trace {
        return Ok(file(t.to_path_buf()));
    }
    let data = crate::data::locate(None, "trace", "--trace PATH/TO/gavel")?;
    Ok(file(data.join("gavel")))
}

/// Generates a `"placement"` scenario from the Gavel matrix.
pub fn generate(opts: &GenOptions) -> Result<PlacementDoc, RunError> {
    let path = gavel_csv_path(opts.trace.as_deref())?;
    let text = crate::read_trace(&path).map_err(|e| {
        RunError::Input(InputError::new(
            format!("file {}", path.display()),
            "",
            format!("cannot read: {e}"),
        ))
    })?;
    from_gavel(&parse_gavel_isolated(&text)?, opts)
}
