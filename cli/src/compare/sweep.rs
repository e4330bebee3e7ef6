//! `--seeds A..B`: one scenario per seed, every policy on each, in parallel (rayon), then the
//! mean and 95% confidence interval per policy and metric. Results are collected in seed order,
//! so they are identical whatever the thread count; wall-clock latency is left out.
use super::{run_policy, Metrics};
use crate::doc::ScenarioDoc;
use crate::error::{InputError, RunError};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Parses `A..B` (inclusive of both ends, as in `1..20`) or a single seed.
pub fn parse_seeds(s: &str) -> Result<Vec<u64>, InputError> {
    let err = || {
        InputError::new(
            "option",
            "seeds",
            format!("expected `A..B` with A <= B (e.g. 1..20) or one seed, got `{s}`"),
        )
    };
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (
            a.trim().parse::<u64>().map_err(|_| err())?,
            b.trim()
                .trim_start_matches('=')
                .parse::<u64>()
                .map_err(|_| err())?,
        ),
        None => {
            let x = s.trim().parse::<u64>().map_err(|_| err())?;
            (x, x)
        }
    };
    if a > b || b - a >= 10_000 {
        return Err(err());
    }
    Ok((a..=b).collect())
}

/// Mean and half-width of the 95% confidence interval (Student t).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// Sample mean.
    pub mean: f64,
    /// Half-width: t_{0.975, n-1} s / sqrt(n) (0 for n = 1).
    pub ci95: f64,
    /// Samples.
    pub n: u32,
}

/// t_{0.975, df} for df = 1..30; 1.96 beyond.
fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    T.get(df.wrapping_sub(1)).copied().unwrap_or(1.96)
}

/// Mean and 95% CI of `xs` (summed in order, so the same inputs give the same bits).
pub fn stat(xs: &[f64]) -> Option<Stat> {
    if xs.is_empty() {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let ci95 = if xs.len() > 1 {
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
        t975(xs.len() - 1) * (var / n).sqrt()
    } else {
        0.0
    };
    Some(Stat {
        mean,
        ci95,
        n: xs.len() as u32,
    })
}

/// One seed's metrics per policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeedRow {
    /// The seed.
    pub seed: u64,
    /// Per policy, in `--policies` order.
    pub metrics: Vec<Metrics>,
}

/// Aggregates of one policy over the seeds where it ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicySummary {
    /// Policy.
    pub policy: String,
    /// Seeds where it ran.
    pub runs: u32,
    /// Total utility.
    pub total_utility: Option<Stat>,
    /// Total weighted completion time.
    pub total_weighted_completion_time: Option<Stat>,
    /// Weighted JCT.
    pub weighted_jct: Option<Stat>,
    /// Average JCT.
    pub avg_jct: Option<Stat>,
    /// Admitted jobs.
    pub admitted: Option<Stat>,
    /// Finished jobs.
    pub finished: Option<Stat>,
    /// Makespan.
    pub makespan: Option<Stat>,
}

/// A whole sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// Policies in order.
    pub policies: Vec<String>,
    /// Per seed.
    pub per_seed: Vec<SeedRow>,
    /// Per policy.
    pub summary: Vec<PolicySummary>,
}

/// Runs the sweep. `make(seed)` builds the scenario of a seed; `tick` is called after each seed
/// (progress bar).
pub fn sweep<F, G>(seeds: &[u64], policies: &[String], make: F, tick: G) -> Result<Sweep, RunError>
where
    F: Fn(u64) -> Result<ScenarioDoc, RunError> + Sync,
    G: Fn() + Sync,
{
    Ok(summarize(policies, rows(seeds, policies, make, tick)?))
}

/// Every policy on every seed of `seeds` (in parallel), in seed order.
pub fn rows<F, G>(
    seeds: &[u64],
    policies: &[String],
    make: F,
    tick: G,
) -> Result<Vec<SeedRow>, RunError>
where
    F: Fn(u64) -> Result<ScenarioDoc, RunError> + Sync,
    G: Fn() + Sync,
{
    let rows: Vec<Result<SeedRow, RunError>> = seeds
        .par_iter()
        .map(|&seed| {
            let doc = make(seed)?;
            let metrics = policies
                .iter()
                .map(|p| run_policy(&doc, p).metrics)
                .collect();
            tick();
            Ok(SeedRow { seed, metrics })
        })
        .collect();
    rows.into_iter().collect()
}

/// The sweep of `per_seed` (rows in seed order): the mean and 95% CI per policy and metric.
pub fn summarize(policies: &[String], per_seed: Vec<SeedRow>) -> Sweep {
    let summary = policies
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let ok: Vec<&Metrics> = per_seed
                .iter()
                .filter_map(|r| r.metrics.get(k))
                .filter(|m| m.status == "ok")
                .collect();
            let col = |f: &dyn Fn(&Metrics) -> Option<f64>| {
                stat(&ok.iter().filter_map(|m| f(m)).collect::<Vec<_>>())
            };
            PolicySummary {
                policy: p.clone(),
                runs: ok.len() as u32,
                total_utility: col(&|m| m.total_utility),
                total_weighted_completion_time: col(&|m| m.total_weighted_completion_time),
                weighted_jct: col(&|m| m.weighted_jct),
                avg_jct: col(&|m| m.avg_jct),
                admitted: col(&|m| m.admitted.map(f64::from)),
                finished: col(&|m| Some(m.finished as f64)),
                makespan: col(&|m| m.makespan.map(f64::from)),
            }
        })
        .collect();
    Sweep {
        policies: policies.to_vec(),
        per_seed,
        summary,
    }
}

fn cell(s: &Option<Stat>) -> String {
    s.map_or("-".into(), |s| format!("{:.2} ± {:.2}", s.mean, s.ci95))
}

/// The sweep table: mean ± 95% CI per policy.
pub fn table(sw: &Sweep) -> String {
    let mut out = format!(
        "{:<10} {:>5} {:>20} {:>22} {:>18} {:>18} {:>16}\n",
        "policy", "runs", "utility", "w.compl.time", "w.JCT", "avg JCT", "finished"
    );
    for p in &sw.summary {
        out.push_str(&format!(
            "{:<10} {:>5} {:>20} {:>22} {:>18} {:>18} {:>16}\n",
            p.policy,
            p.runs,
            cell(&p.total_utility),
            cell(&p.total_weighted_completion_time),
            cell(&p.weighted_jct),
            cell(&p.avg_jct),
            cell(&p.finished)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_and_stats() {
        assert_eq!(parse_seeds("1..3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("7").unwrap(), vec![7]);
        assert!(parse_seeds("3..1").is_err());
        let s = stat(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(s.mean, 2.0);
        assert!((s.ci95 - 4.303 * (1.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(stat(&[5.0]).unwrap().ci95, 0.0);
    }
}
