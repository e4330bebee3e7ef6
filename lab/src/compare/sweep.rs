//! `--seeds A..B`: one scenario per seed, every policy on each, in parallel (rayon), then the
//! mean and 95% confidence interval per policy and metric. Results are collected in seed order,
//! so they are identical whatever the thread count; wall-clock latency is left out.
use super::{run_policy, Metrics};
use mlsched_scenario::doc::ScenarioDoc;
use mlsched_scenario::error::{InputError, RunError};
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
    /// Half-width: t_{0.975, n-1} s / sqrt(n) with the exact Student-t quantile (0 for n = 1).
    pub ci95: f64,
    /// Samples.
    pub n: u32,
}

/// The Student-t quantile t_{p, df} (statrs: the inverse regularised incomplete beta function,
/// deterministic for given inputs); `None` for df = 0 or p outside (0, 1).
pub fn t_quantile(p: f64, df: u64) -> Option<f64> {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    if df == 0 || !(p > 0.0 && p < 1.0) {
        return None;
    }
    StudentsT::new(0.0, 1.0, df as f64)
        .ok()
        .map(|t| t.inverse_cdf(p))
}

/// t_{0.975, df}: the two-sided 95% quantile.
fn t975(df: usize) -> f64 {
    t_quantile(0.975, df as u64).unwrap_or(f64::NAN)
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
    /// Unfinished jobs.
    #[serde(default)]
    pub unfinished: Option<Stat>,
    /// Restarts (only when the scenarios set a restart time; `docs/restart.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarts: Option<Stat>,
    /// Kind-specific numbers ([`Metrics::extra`], e.g. route's eq. (11) cost), in
    /// [`super::output::EXTRA`] order, where the policy has them (empty for oasis and online;
    /// restarts have their own field).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<(String, Stat)>,
}

impl PolicySummary {
    /// The statistic of the kind-specific number `key` ([`Self::extra`]).
    pub fn extra(&self, key: &str) -> Option<Stat> {
        self.extra.iter().find(|(k, _)| k == key).map(|(_, s)| *s)
    }
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
                unfinished: col(&|m| m.unfinished.map(f64::from)),
                restarts: col(&|m| m.extra.get("restarts").copied()),
                extra: super::output::EXTRA
                    .iter()
                    .filter(|k| **k != "restarts")
                    .filter_map(|k| Some((k.to_string(), col(&|m| m.extra.get(*k).copied())?)))
                    .collect(),
            }
        })
        .collect();
    Sweep {
        policies: policies.to_vec(),
        per_seed,
        summary,
    }
}

/// The sweep table of a sweep over scenarios of `kind`: mean ± 95% CI per policy.
pub fn table(kind: &str, sw: &Sweep) -> String {
    super::table::sweep_table(kind, sw)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known two-sided 95% quantiles (any statistics table), to the table's 3 decimals.
    #[test]
    fn t_quantiles_match_tables() {
        for (df, want) in [
            (1, 12.706),
            (2, 4.303),
            (10, 2.228),
            (30, 2.042),
            (31, 2.040),
            (60, 2.000),
            (120, 1.980),
            (1000, 1.962),
        ] {
            let t = t_quantile(0.975, df).unwrap();
            assert!((t - want).abs() < 5e-4, "df {df}: {t} vs {want}");
        }
        // Beyond 30 degrees of freedom the quantile keeps falling towards 1.95996.
        assert!(t_quantile(0.975, 31).unwrap() > t_quantile(0.975, 1000).unwrap());
        assert!(t_quantile(0.975, 1000).unwrap() > 1.95996);
        assert_eq!(t_quantile(0.975, 0), None);
        // Deterministic: the same bits every call.
        assert_eq!(
            t_quantile(0.975, 17).unwrap().to_bits(),
            t_quantile(0.975, 17).unwrap().to_bits()
        );
    }

    #[test]
    fn seeds_and_stats() {
        assert_eq!(parse_seeds("1..3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("7").unwrap(), vec![7]);
        assert!(parse_seeds("3..1").is_err());
        let s = stat(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(s.mean, 2.0);
        let t2 = t_quantile(0.975, 2).unwrap();
        assert!((s.ci95 - t2 * (1.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(stat(&[5.0]).unwrap().ci95, 0.0);
    }
}
