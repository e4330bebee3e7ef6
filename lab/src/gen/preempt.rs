//! Generator of kind `"preempt"` scenarios with the paper-like settings of docs/preempt.md
//! (Wang et al.; from the blog and a third-party reproduction, not the paper itself):
//! slot = 1 hour; m_j in [0.001, 0.05] h; G_j in [10, 100] ms; q_j in [30, 575] MB; per-worker
//! bandwidth b in [100 Mbps, 5 Gbps]; E_j in [20, 60]; B_j = 58; upload delay 10-15 slots to the
//! cloud and 1-4 to an edge server; one cloud and `nodes - 1` edge servers (default 9) with 4
//! workers and 2 PSs each (the cloud: 64 PSs, the most a server may have).
//!
//! n_jsw (fig. 3) = 1 / (m_j + G_j + 2 q_j / b_sw) mini-batches per slot with zeta_j = 0 and
//! 1 / (m_j + G_j) on the cloud with zeta_j = 1. D_j (not given by the sources) = min(4 x
//! num_gpus, 32) with a trace, uniform in [2, 8] without.
//!
//! Arrivals: with `--trace` (the Philly per-job table of `data/philly-via-pollux`, a
//! file or its folder), the jobs sorted by submit time (ties: file order), `jobs` of them taken
//! evenly spaced in that order, arrival slot = whole hours since the first one. Without a trace:
//! Poisson with 2 jobs per slot.
use super::GenOptions;
use mlsched_kernel::rng::SplitMix64;
use mlsched_scenario::error::{InputError, RunError};
use mlsched_scenario::kinds::preempt::doc::{PreemptDoc, PreemptJobDoc, PreemptServerDoc};
use std::path::{Path, PathBuf};

/// Workers per edge server.
const WORKERS: u32 = 4;
/// PSs per edge server / on the cloud.
const EDGE_PS: u32 = 2;
const CLOUD_PS: u32 = 64;
/// Poisson arrival rate (jobs per slot) without a trace.
const POISSON_RATE: f64 = 2.0;
/// Mini-batches per chunk B_j.
const MINIBATCHES: f64 = 58.0;

/// One arrival: slot and GPUs asked for (1 without a trace).
#[derive(Clone, Copy, Debug)]
struct Arrival {
    slot: u32,
    gpus: u32,
}

/// Generates a `"preempt"` scenario.
pub fn generate(opts: &GenOptions) -> Result<PreemptDoc, RunError> {
    let n_jobs = opts.jobs.unwrap_or(100).max(1) as usize;
    let nodes = opts.nodes.unwrap_or(10) as usize;
    let mut rng = SplitMix64::new(opts.seed);
    let arrivals = match &opts.trace {
        Some(p) => philly_arrivals(p, n_jobs)?,
        None => poisson_arrivals(&mut rng, n_jobs),
    };
    let edges = nodes - 1;
    let mut servers: Vec<PreemptServerDoc> = (0..edges)
        .map(|s| PreemptServerDoc {
            id: format!("edge-{s}"),
            workers: Some(WORKERS as f64),
            ps: EDGE_PS as f64,
            cloud: false,
        })
        .collect();
    servers.push(PreemptServerDoc {
        id: "cloud".into(),
        workers: None,
        ps: CLOUD_PS as f64,
        cloud: true,
    });
    // b_sw: one bandwidth per edge worker (Mbps), fixed for the scenario.
    let bw: Vec<Vec<f64>> = (0..edges)
        .map(|_| (0..WORKERS).map(|_| rng.range_f64(100.0, 5120.0)).collect())
        .collect();
    let jobs = arrivals
        .iter()
        .enumerate()
        .map(|(i, a)| job(&mut rng, i, *a, &bw))
        .collect();
    let last = arrivals.iter().map(|a| a.slot).max().unwrap_or(0);
    Ok(PreemptDoc {
        kind: "preempt".into(),
        slots: (last + 1).max(100) as f64,
        seed: Some(opts.seed as f64),
        servers,
        restart_slots: None,
        jobs,
    })
}

/// n = 1 / (m + G + 2q/b) in mini-batches per one-hour slot (m in h, G in ms, q in MB, b in Mbps).
fn rate(m: f64, g_ms: f64, q_mb: f64, b_mbps: Option<f64>) -> f64 {
    let comm_h = b_mbps.map_or(0.0, |b| 2.0 * q_mb * 8.0 / b / 3600.0);
    round6(1.0 / (m + g_ms / 3.6e6 + comm_h))
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn job(rng: &mut SplitMix64, i: usize, a: Arrival, bw: &[Vec<f64>]) -> PreemptJobDoc {
    let m = rng.range_f64(0.001, 0.05);
    let g = rng.range_f64(10.0, 100.0);
    let q = rng.range_f64(30.0, 575.0);
    let epochs = 20 + rng.below(41) as u32;
    let chunks = if a.gpus == 0 {
        2 + rng.below(7) as u32
    } else {
        (4 * a.gpus).min(32)
    };
    let b_cloud = rng.range_f64(100.0, 5120.0);
    let mut rate_sep: Vec<Vec<f64>> = bw
        .iter()
        .map(|row| row.iter().map(|&b| rate(m, g, q, Some(b))).collect())
        .collect();
    let mut rate_col = rate_sep.clone();
    rate_sep.push(vec![rate(m, g, q, Some(b_cloud))]);
    rate_col.push(vec![rate(m, g, q, None)]);
    let mut delay: Vec<f64> = (0..bw.len()).map(|_| (1 + rng.below(4)) as f64).collect();
    delay.push((10 + rng.below(6)) as f64);
    let mut ps: Vec<Vec<bool>> = bw.iter().map(|_| vec![true; EDGE_PS as usize]).collect();
    ps.push(vec![true; CLOUD_PS as usize]);
    PreemptJobDoc {
        id: format!("job-{i}"),
        arrival: a.slot as f64,
        epochs: epochs as f64,
        chunks: chunks as f64,
        minibatches_per_chunk: MINIBATCHES,
        rate: rate_sep,
        rate_colocated: Some(rate_col),
        upload_delay: delay,
        ps_eligible: ps,
    }
}

fn poisson_arrivals(rng: &mut SplitMix64, n: usize) -> Vec<Arrival> {
    let mut t = 0.0f64;
    (0..n)
        .map(|_| {
            let u = rng.next_f64();
            let a = Arrival {
                slot: t.floor() as u32,
                gpus: 0,
            };
            t += -(1.0 - u).ln() / POISSON_RATE;
            a
        })
        .collect()
}

/// The Philly CSV inside `p` (a file, or a folder holding `philly_jobs_*.csv`).
fn philly_file(p: &Path) -> Result<PathBuf, RunError> {
    if p.is_file() {
        return Ok(p.to_path_buf());
    }
    let dir = if p.join("philly-via-pollux").is_dir() {
        p.join("philly-via-pollux")
    } else {
        p.to_path_buf()
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| trace_err(p, &e.to_string()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| {
            f.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("philly") && n.ends_with(".csv"))
        })
        .collect();
    found.sort();
    found
        .into_iter()
        .next()
        .ok_or_else(|| trace_err(p, "no philly_*.csv file there"))
}

fn trace_err(p: &Path, why: &str) -> RunError {
    RunError::Input(InputError::new(
        "option",
        "trace",
        format!("{}: {why}", p.display()),
    ))
}

/// Seconds since 2000-01-01 of "YYYY-MM-DD HH:MM:SS" (the trace's local time; only
/// differences matter).
fn seconds(ts: &str) -> Option<i64> {
    let (date, time) = ts.trim().split_once(' ')?;
    let mut d = date.split('-').map(|x| x.parse::<i64>());
    let (y, mo, da) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let mut t = time.split(':').map(|x| x.parse::<i64>());
    let (h, mi, s) = (t.next()?.ok()?, t.next()?.ok()?, t.next()?.ok()?);
    // days from civil (Howard Hinnant's algorithm)
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * (mo + if mo > 2 { -3 } else { 9 }) + 2) / 5 + da - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 730_425;
    Some(days * 86_400 + h * 3600 + mi * 60 + s)
}

fn philly_arrivals(p: &Path, n: usize) -> Result<Vec<Arrival>, RunError> {
    let file = philly_file(p)?;
    let text = crate::read_trace(&file).map_err(|e| trace_err(&file, &e))?;
    let mut rows: Vec<(i64, usize, u32)> = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let (Some(ts), Some(g)) = (cols.first(), cols.get(2)) else {
            continue;
        };
        let (Some(secs), Ok(gpus)) = (seconds(ts), g.trim().parse::<u32>()) else {
            return Err(trace_err(
                &file,
                &format!("line {}: cannot read `{line}`", i + 1),
            ));
        };
        rows.push((secs, i, gpus.max(1)));
    }
    if rows.is_empty() {
        return Err(trace_err(&file, "no job rows"));
    }
    rows.sort();
    let t0 = rows[0].0;
    let take = n.min(rows.len());
    Ok((0..take)
        .map(|k| {
            let r = rows[k * rows.len() / take];
            Arrival {
                slot: ((r.0 - t0) / 3600) as u32,
                gpus: r.2,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn civil_seconds() {
        assert_eq!(seconds("2000-01-01 00:00:00"), Some(0));
        assert_eq!(
            seconds("2017-10-10 01:00:00").unwrap() - seconds("2017-10-09 23:00:00").unwrap(),
            7200
        );
        assert_eq!(seconds("bad"), None);
    }
    #[test]
    fn poisson_scenario_validates() {
        let d = generate(&GenOptions {
            seed: 3,
            jobs: Some(20),
            nodes: Some(4),
            trace: None,
            slots: None,
        })
        .unwrap();
        let s = d.validate().unwrap();
        assert_eq!(s.jobs.len(), 20);
        assert_eq!(s.servers.len(), 4);
    }
}
