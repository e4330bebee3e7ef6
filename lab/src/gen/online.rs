//! Generator of kind `"online"` scenarios following Zhou et al. section 7.
//!
//! - T = 150 slots (`--slots`; Fig. 2 uses 300; one slot = 1 hour), H = 150 servers (`--nodes`), R = 3 resources: gpu,
//!   vcpu, bw_gbps. Servers are EC2 P3 / P2 / G3 shapes (2xlarge..16xlarge: 1-16 GPUs, 4-64
//!   vCPUs, 1.25-25 Gbps), drawn uniformly, then all scaled by one factor (GPU and vCPU counts
//!   rounded, at least 1) so that the cluster's GPU-slots T sum_h C_h^gpu are a fraction
//!   drawn from [0.2, 0.5] of the jobs' ideal demand sum_j D_j e_m*^gpu ceil(E_j K_j / rho_j),
//!   where m* is the job's fastest worker type and rho_j its distributed rate (eq. 1) with
//!   PS type 0 ("the overall resource capacities are about 0.2-0.5 of the overall ideal demand";
//!   we read demand as resource x time, the unit of a time-slotted cluster).
//! - 8 worker types: 1-4 GPUs, 1-16 vCPUs, b_m in [0.1, 5] Gbps; 10 PS types: 0 GPU,
//!   1-16 vCPUs, B_p in [5, 20] Gbps.
//! - Jobs: w in [200, 5000], E in [50, 100], D in [5, 50], K in [10, 50], U_j^p in [10, 100] ms,
//!   v_jm in [0.001, 0.05] slots (a job's base time, scaled by (1 + 1/gpus_m) / 2 per type, so
//!   more GPUs train faster), pi_j in [30, 575] MB (pi_j / b_m in slots =
//!   pi MB x 8e-3 / b Gbps / 3600).
//! - F = 1, alpha = 4 (both scenario fields; edit to explore Fig. 4).
//! - Arrivals uniform in [0, T / (2 alpha)): A_online places the batch of round i in
//!   [alpha tau_i, 2 alpha tau_i), so a job arriving after T / (2 alpha) could only be scheduled
//!   past the horizon.
//! - `--trace FILE` (the Philly per-job table `philly-via-pollux/philly_jobs_*.csv` or the
//!   openb pod list `alibaba-openb-gpu-2023/openb_pod_list_default.csv` of `data/`):
//!   the arrivals are instead `--jobs` consecutive submit times of the trace (GPU pods only for
//!   openb; sorted by time, the first row drawn from a stream seeded with `--seed` apart from
//!   the main one) rescaled linearly onto the same range [0, T / (2 alpha)): only the trace's
//!   arrival *pattern* (bursts and gaps) is kept. Every other value is drawn exactly as without
//!   a trace (the uniform arrival is still drawn and discarded), so the two scenarios of one
//!   seed differ in the arrivals only.
//! - `--throughput pollux` ([`generate_with`] with `one_gpu_workers`): every worker type
//!   demands one GPU (one data-parallel replica, as the measured table has; its GPU count is
//!   drawn and discarded), so a job's mini-batch time is its base time v on every type (the
//!   types differ in vCPUs and bandwidth), and the cluster is scaled to the same 0.2-0.5 of
//!   the jobs' (now one-GPU-per-worker) ideal demand.
use super::GenOptions;
use crate::import::{read_openb_jobs, read_philly};
use mlsched_kernel::rng::SplitMix64;
use mlsched_scenario::error::{InputError, RunError};
use mlsched_scenario::kinds::online::doc::{ArchitectureDoc, OnlineDoc, OnlineJobDoc, TaskTypeDoc};
use std::path::Path;

const SLOT_SECONDS: f64 = 3600.0;
/// T of section 7 (`--slots` changes it).
const SLOTS: u32 = 150;
const ALPHA: u32 = 4;

/// (gpu, vcpu, bw_gbps) of EC2 P3, P2 and G3 instances.
const SHAPES: &[[f64; 3]] = &[
    [1.0, 8.0, 10.0],
    [4.0, 32.0, 10.0],
    [8.0, 64.0, 25.0],
    [1.0, 4.0, 1.25],
    [8.0, 32.0, 10.0],
    [16.0, 64.0, 25.0],
    [1.0, 16.0, 10.0],
    [2.0, 32.0, 10.0],
    [4.0, 64.0, 25.0],
];

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

fn int(g: &mut SplitMix64, lo: u64, hi: u64) -> f64 {
    (lo + g.below(hi - lo + 1)) as f64
}

/// Generates an `"online"` scenario (PS architecture; edit `architecture` for ring, see
/// [`to_ring`]).
pub fn generate(opts: &GenOptions) -> Result<OnlineDoc, RunError> {
    generate_with(opts, false)
}

/// [`generate`], with every worker type demanding exactly one GPU when `one_gpu_workers` (the
/// placement-aware throughput model's worker, `docs/throughput.md`); the same draws either way.
pub fn generate_with(opts: &GenOptions, one_gpu_workers: bool) -> Result<OnlineDoc, RunError> {
    let mut g = SplitMix64::new(opts.seed);
    let n_jobs = opts.jobs.unwrap_or(100) as usize;
    let slots = opts.slots.unwrap_or(SLOTS);
    let window = (slots / (2 * ALPHA)).max(1) as u64;
    let traced = match &opts.trace {
        Some(p) => Some(trace_arrivals(p, n_jobs, window, opts.seed)?),
        None => None,
    };
    let n_servers = opts.nodes.unwrap_or(150).max(1) as usize;
    let worker_types: Vec<TaskTypeDoc> = (0..8)
        .map(|_| {
            let gpu = match int(&mut g, 1, 4) {
                _ if one_gpu_workers => 1.0,
                gpus => gpus,
            };
            let cpu = int(&mut g, 1, 16);
            let bw = round4(g.range_f64(0.1, 5.0));
            TaskTypeDoc {
                demand: vec![gpu, cpu, bw],
                bw,
            }
        })
        .collect();
    let ps_types: Vec<TaskTypeDoc> = (0..10)
        .map(|_| {
            let cpu = int(&mut g, 1, 16);
            let bw = round4(g.range_f64(5.0, 20.0));
            TaskTypeDoc {
                demand: vec![0.0, cpu, bw],
                bw,
            }
        })
        .collect();
    let mut ideal_gpu_slots = 0.0;
    let jobs: Vec<OnlineJobDoc> = (0..n_jobs)
        .map(|k| {
            let v = g.range_f64(0.001, 0.05);
            let minibatch_time: Vec<f64> = worker_types
                .iter()
                .map(|t| round4((v * (1.0 + 1.0 / t.demand[0]) / 2.0).max(0.001)))
                .collect();
            let update_time: Vec<f64> = (0..ps_types.len())
                .map(|_| g.range_f64(10.0, 100.0) / 1000.0 / SLOT_SECONDS)
                .collect();
            let pi_mb = g.range_f64(30.0, 575.0);
            let job = OnlineJobDoc {
                id: format!("j{k}"),
                arrival: {
                    let uniform = g.below(window) as f64;
                    traced
                        .as_ref()
                        .and_then(|t| t.get(k))
                        .map_or(uniform, |&a| a)
                },
                weight: int(&mut g, 200, 5000),
                epochs: int(&mut g, 50, 100),
                chunks: int(&mut g, 5, 50),
                minibatches_per_chunk: int(&mut g, 10, 50),
                minibatch_time,
                update_time,
                gradient_size: pi_mb * 8e-3 / SLOT_SECONDS,
                model: None,
            };
            ideal_gpu_slots += ideal_demand(&job, &worker_types);
            job
        })
        .collect();
    let shapes: Vec<[f64; 3]> = (0..n_servers)
        .map(|_| SHAPES[g.below(SHAPES.len() as u64) as usize])
        .collect();
    let gpu_slots: f64 = shapes.iter().map(|s| s[0]).sum::<f64>() * slots as f64;
    let fraction = g.range_f64(0.2, 0.5);
    let scale = if gpu_slots > 0.0 && ideal_gpu_slots > 0.0 {
        fraction * ideal_gpu_slots / gpu_slots
    } else {
        1.0
    };
    let servers = shapes
        .iter()
        .map(|s| {
            vec![
                (s[0] * scale).round().max(1.0),
                (s[1] * scale).round().max(1.0),
                round4(s[2] * scale.max(1.0)),
            ]
        })
        .collect();
    Ok(OnlineDoc {
        kind: "online".into(),
        slots: slots as f64,
        architecture: ArchitectureDoc::Ps,
        resources: vec!["gpu".into(), "vcpu".into(), "bw_gbps".into()],
        servers,
        worker_types,
        ps_types: Some(ps_types),
        f: 1.0,
        alpha: Some(ALPHA as f64),
        rounds_past_horizon: None,
        jobs,
        throughput: None,
    })
}

/// Seed offset of the stream that picks the trace window (kept apart from the main stream).
const TRACE_STREAM: u64 = 0x0054_5241_4345;

/// `n` consecutive submit times of the trace at `path` (sorted; first row drawn from `seed`),
/// rescaled linearly onto slots 0 .. `window` - 1.
fn trace_arrivals(path: &Path, n: usize, window: u64, seed: u64) -> Result<Vec<f64>, RunError> {
    let header = crate::read_trace(path)
        .map(|t| {
            t.lines()
                .next()
                .unwrap_or("")
                .trim_end_matches('\r')
                .to_string()
        })
        .map_err(|e| {
            InputError::new(
                "option",
                "trace",
                format!(
                    "cannot read {}: {e}; `gen online --trace` takes a CSV file: {TRACE_FILES}",
                    path.display()
                ),
            )
        })?;
    let jobs = if header.starts_with("timestamp,duration,num_gpus") {
        read_philly(path)?
    } else if header.starts_with("name,cpu_milli,memory_mib,num_gpu") {
        read_openb_jobs(path)?
    } else {
        return Err(InputError::new(
            "option",
            "trace",
            format!(
                "{} is neither trace kind online can take arrivals from: {TRACE_FILES}",
                path.display()
            ),
        )
        .into());
    };
    let mut times: Vec<f64> = jobs.iter().map(|j| j.submit).collect();
    times.sort_by(f64::total_cmp);
    if times.len() < n || n == 0 {
        return Err(InputError::new(
            "option",
            "jobs",
            format!("{} has {} jobs, {n} asked", path.display(), times.len()),
        )
        .into());
    }
    let first = SplitMix64::new(seed ^ TRACE_STREAM).below((times.len() - n) as u64 + 1) as usize;
    let times = &times[first..first + n];
    let (t0, t1) = (times[0], times[n - 1]);
    Ok(times
        .iter()
        .map(|&t| {
            let x = if t1 > t0 {
                (t - t0) / (t1 - t0) * window as f64
            } else {
                0.0
            };
            x.floor().clamp(0.0, window as f64 - 1.0)
        })
        .collect())
}

/// The trace files `--trace` accepts (for error messages).
const TRACE_FILES: &str = "the Philly per-job table (philly-via-pollux/philly_jobs_*.csv) or the openb pod list (alibaba-openb-gpu-2023/openb_pod_list_default.csv) of the bundled data/ folder";

/// GPU-slots of a job's ideal configuration: D_j workers of its fastest type for
/// ceil(E K (v + U + 2 pi / b)) slots (eq. 1 with PS type 0).
fn ideal_demand(job: &OnlineJobDoc, types: &[TaskTypeDoc]) -> f64 {
    let mut best = 0;
    for (m, v) in job.minibatch_time.iter().enumerate() {
        if *v < job.minibatch_time[best] {
            best = m;
        }
    }
    let t = &types[best];
    let it = job.minibatch_time[best] + job.update_time[0] + 2.0 * job.gradient_size / t.bw;
    let dur = (job.epochs * job.minibatches_per_chunk * it).ceil();
    job.chunks * t.demand[0] * dur
}

/// The same scenario for Ring-AllReduce: no PS types, one U_j per job (its first U_j^p).
pub fn to_ring(mut doc: OnlineDoc) -> OnlineDoc {
    doc.architecture = ArchitectureDoc::Ring;
    doc.ps_types = None;
    for j in &mut doc.jobs {
        j.update_time.truncate(1);
    }
    doc
}
