//! Generator of kind `"oasis"` scenarios following Bao et al. section V-A.
//!
//! - T in 100..=300 slots (`--slots` fixes it; one slot = 1 hour), H = K = 50 (`--nodes` changes both), R = 5
//!   resources: gpu, vcpu, mem_gb, storage_gb, bw_gbps.
//! - Servers: the paper names EC2 C4 for workers and P2 / G3 for parameter servers, but its
//!   worker demands include 0-4 GPUs, which a C4 (no GPU) cannot host; we read the two as
//!   swapped: worker servers are P2 / G3 shapes (GPU), PS servers C4 shapes. Server bandwidth
//!   in [20, 50] Gbps; storage 200-1,000 GB.
//! - Worker: 0-4 GPU, 1-10 vCPU, 2-32 GB memory, 5-10 GB storage, b_i in [0.1, 5] Gbps; PS:
//!   0 GPU, 1-10 vCPU, 2-32 GB, 5-10 GB, B_i in [5, 20] Gbps.
//! - Job: E in [50, 200], N in [5, 100], M in [10, 100], tau in [0.001, 0.1] slots, gradients
//!   e_i in [30, 575] MB so e_i / b_i = e_i * 8 / (b_i * 1000) seconds / 3600 slots.
//! - Sigmoid utility gamma1 / (1 + exp(gamma2 (t - gamma3))): gamma1 in [1, 100], gamma3 in
//!   [1, 15]; 10% time-insensitive (gamma2 = 0), 55% time-sensitive ([0.01, 1]), 35%
//!   time-critical ([4, 6]).
//! - Arrivals: Poisson (exponential gaps, all jobs in the first 3/4 of T), or the submit times
//!   of a trace CSV (Philly `timestamp` or Alibaba openb `creation_time`), sorted, the first
//!   `--jobs` rows, rescaled linearly onto slots 0 .. 3T/4.
//! - Prices are left out, so runs derive U / L from the job list by eqs. (23)-(26).
//! - `--throughput pollux` ([`generate_with`] with `one_gpu_workers`): every worker demands one
//!   GPU (one data-parallel replica, as the measured table has); its GPU count is still drawn
//!   and discarded, so every other value is the one the seed gives without the option.
use super::GenOptions;
use mlsched_kernel::rng::SplitMix64;
use mlsched_scenario::error::RunError;
use mlsched_scenario::kinds::oasis::doc::{OasisDoc, OasisJobDoc, SigmoidDoc, UtilityDoc};

/// One generated slot, in seconds (the paper's hour).
pub const SLOT_SECONDS: f64 = 3600.0;

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// (gpu, vcpu, mem_gb): EC2 P2 and G3 instance shapes.
const GPU_SHAPES: &[[f64; 3]] = &[
    [1.0, 4.0, 61.0],
    [8.0, 32.0, 488.0],
    [16.0, 64.0, 732.0],
    [1.0, 16.0, 122.0],
    [2.0, 32.0, 244.0],
    [4.0, 64.0, 488.0],
];
/// (vcpu, mem_gb): EC2 C4 instance shapes.
const C4_SHAPES: &[[f64; 2]] = &[[4.0, 7.5], [8.0, 15.0], [16.0, 30.0], [36.0, 60.0]];

fn pick<T: Copy>(g: &mut SplitMix64, v: &[T]) -> T {
    v[g.below(v.len() as u64) as usize]
}

/// Generates a `"oasis"` scenario.
pub fn generate(opts: &GenOptions) -> Result<OasisDoc, RunError> {
    generate_with(opts, false)
}

/// [`generate`], with every worker demanding exactly one GPU when `one_gpu_workers` (the
/// placement-aware throughput model's worker, `docs/throughput.md`); the same draws either way.
pub fn generate_with(opts: &GenOptions, one_gpu_workers: bool) -> Result<OasisDoc, RunError> {
    let mut g = SplitMix64::new(opts.seed);
    let n_jobs = opts.jobs.unwrap_or(100) as usize;
    let servers = opts.nodes.unwrap_or(50) as usize;
    // Drawn even when `--slots` overrides it, so the rest of the stream stays the same.
    let drawn = 100 + g.below(201);
    let slots = opts.slots.map_or(drawn, u64::from);
    let worker_servers = (0..servers)
        .map(|_| {
            let [gpu, cpu, mem] = pick(&mut g, GPU_SHAPES);
            let storage = (200 + 100 * g.below(9)) as f64;
            vec![gpu, cpu, mem, storage, (20 + g.below(31)) as f64]
        })
        .collect();
    let ps_servers = (0..servers)
        .map(|_| {
            let [cpu, mem] = pick(&mut g, C4_SHAPES);
            let storage = (200 + 100 * g.below(9)) as f64;
            vec![0.0, cpu, mem, storage, (20 + g.below(31)) as f64]
        })
        .collect();
    let arrivals = match &opts.trace {
        Some(p) => trace_arrivals(p, n_jobs, slots)?,
        None => poisson_arrivals(&mut g, n_jobs, slots),
    };
    let jobs = arrivals
        .iter()
        .enumerate()
        .map(|(i, &a)| job(&mut g, i, a, one_gpu_workers))
        .collect();
    Ok(OasisDoc {
        kind: "oasis".into(),
        slots: slots as f64,
        resources: ["gpu", "vcpu", "mem_gb", "storage_gb", "bw_gbps"]
            .map(String::from)
            .to_vec(),
        worker_servers,
        ps_servers,
        prices: None,
        restart_slots: None,
        restart_first: None,
        slot_seconds: None,
        dorm_event_nodes: None,
        jobs,
        throughput: None,
    })
}

fn job(g: &mut SplitMix64, i: usize, arrival: u64, one_gpu_workers: bool) -> OasisJobDoc {
    let b = round4(g.range_f64(0.1, 5.0));
    let big_b = round4(g.range_f64(5.0, 20.0));
    let grad_mb = g.range_f64(30.0, 575.0);
    let comm = grad_mb * 8.0 / (b * 1000.0) / SLOT_SECONDS;
    let kind = g.below(100);
    let decay = if kind < 10 {
        0.0
    } else if kind < 65 {
        round4(g.range_f64(0.01, 1.0))
    } else {
        round4(g.range_f64(4.0, 6.0))
    };
    OasisJobDoc {
        id: format!("job-{i:04}"),
        arrival: arrival as f64,
        epochs: (50 + g.below(151)) as f64,
        chunks: (5 + g.below(96)) as f64,
        minibatches_per_chunk: (10 + g.below(91)) as f64,
        minibatch_time: round4(g.range_f64(0.001, 0.1)).max(0.001),
        comm_time: (comm * 1e8).round() / 1e8,
        worker_bw: b,
        ps_bw: big_b,
        worker_demand: vec![
            // Drawn in both modes so the stream (and every later value) stays the same.
            match g.below(5) {
                _ if one_gpu_workers => 1.0,
                gpus => gpus as f64,
            },
            (1 + g.below(10)) as f64,
            (2 + g.below(31)) as f64,
            (5 + g.below(6)) as f64,
            b,
        ],
        ps_demand: vec![
            0.0,
            (1 + g.below(10)) as f64,
            (2 + g.below(31)) as f64,
            (5 + g.below(6)) as f64,
            big_b,
        ],
        utility: UtilityDoc::Sigmoid(SigmoidDoc {
            priority: round4(g.range_f64(1.0, 100.0)),
            decay,
            target: (1 + g.below(15)) as f64,
        }),
        model: None,
        workers: None,
    }
}

fn poisson_arrivals(g: &mut SplitMix64, n: usize, slots: u64) -> Vec<u64> {
    let span = (slots * 3 / 4).max(1) as f64;
    let rate = n as f64 / span;
    let mut t = 0.0f64;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        // exponential gap by inversion; 1 - u in (0, 1]
        t += -(1.0 - g.next_f64()).ln() / rate;
        v.push((t.floor() as u64).min(slots - 1));
    }
    v
}

/// Submit times of a trace CSV, sorted, first `n`, rescaled onto 0 .. 3T/4.
fn trace_arrivals(path: &std::path::Path, n: usize, slots: u64) -> Result<Vec<u64>, RunError> {
    let bad = |m: String| RunError::runtime(format!("trace {}: {m}", path.display()));
    let text = crate::read_trace(path).map_err(|e| bad(e.to_string()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let (idx, philly) = match (col("timestamp"), col("creation_time")) {
        (Some(i), _) => (i, true),
        (None, Some(i)) => (i, false),
        _ => {
            return Err(bad(
                "expected a `timestamp` (Philly) or `creation_time` (Alibaba openb) column".into(),
            ))
        }
    };
    let mut times = Vec::new();
    for (k, line) in lines.enumerate() {
        let Some(field) = line.split(',').nth(idx) else {
            continue;
        };
        let t = if philly {
            parse_datetime(field.trim())
        } else {
            field.trim().parse::<f64>().ok()
        };
        times.push(t.ok_or_else(|| bad(format!("row {}: cannot read time `{field}`", k + 2)))?);
    }
    times.sort_by(f64::total_cmp);
    times.truncate(n);
    if times.len() < n {
        return Err(bad(format!("has {} rows, {n} jobs asked", times.len())));
    }
    let (t0, t1) = (times[0], times[times.len() - 1]);
    let span = (slots * 3 / 4).max(1) as f64;
    Ok(times
        .iter()
        .map(|&t| {
            let x = if t1 > t0 {
                (t - t0) / (t1 - t0) * span
            } else {
                0.0
            };
            (x.floor() as u64).min(slots - 1)
        })
        .collect())
}

/// "YYYY-MM-DD HH:MM:SS" as seconds since 1970-01-01 (proleptic Gregorian, no zone).
fn parse_datetime(s: &str) -> Option<f64> {
    let (date, time) = s.split_once(' ')?;
    let mut d = date.split('-').map(|x| x.parse::<i64>());
    let (y, m, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let mut t = time.split(':').map(|x| x.parse::<i64>());
    let (hh, mm, ss) = (t.next()?.ok()?, t.next()?.ok()?, t.next()?.ok()?);
    // days from civil (H. Hinnant's algorithm)
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + hh * 3600 + mm * 60 + ss) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn datetime() {
        assert_eq!(parse_datetime("1970-01-02 00:00:01"), Some(86_401.0));
        assert_eq!(parse_datetime("2017-10-09 00:00:00"), Some(1_507_507_200.0));
    }
}
