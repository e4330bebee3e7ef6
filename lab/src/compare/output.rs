//! compare's files in `--out DIR`: `compare.json`, `compare.csv`, the kind's SVG plots and
//! `index.html` (one self-contained page: [`super::html`]); with `--seeds` (and from
//! `mlsched merge`) `sweep.json`, `sweep.csv`, one SVG per metric with 95% error bars and the
//! same `index.html`.
//!
//! Plots per kind (only those that mean something for it, and never an empty file: a plot
//! with no data to show is not written):
//! - oasis: `utility.svg` (total utility per policy), `jct_cdf.svg`, `utilisation.svg`;
//! - online: `weighted_completion_time.svg`, `jct_cdf.svg`, `utilisation.svg`;
//! - placement: `jct_per_job.svg` (seconds), `categories.svg` (average JCT of every category
//!   examined, the chosen one marked);
//! - preempt: `worker_queues.svg` (chunks queued per worker), `jct_cdf.svg`;
//! - route: `network_cost.svg`, `violation_rate.svg`.
use super::html::{self, Info};
use super::number::csv_opt as f;
use super::plot::{self, BarSeries, Labels, Line};
use super::sweep::{Stat, Sweep};
use super::table::jct_unit;
use super::PolicyReport;
use mlsched_scenario::error::RunError;
use mlsched_scenario::metrics::View;
use std::path::Path;

fn io(path: &Path, e: impl std::fmt::Display) -> RunError {
    RunError::runtime(format!("cannot write {}: {e}", path.display()))
}

fn write_json(path: &Path, v: &impl serde::Serialize) -> Result<(), RunError> {
    let mut text = serde_json::to_string_pretty(v).map_err(|e| io(path, e))?;
    text.push('\n');
    std::fs::write(path, text).map_err(|e| io(path, e))
}

/// One plot written: its file name and what it shows (the HTML report's caption).
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// File name inside the output directory.
    pub file: String,
    /// One line saying what it shows.
    pub caption: String,
}

/// Writes compare.json, compare.csv, the kind's plots and index.html into `dir` (created if
/// needed); returns the names of the files written, in order.
pub fn write_all(
    dir: &Path,
    info: &Info,
    reports: &[PolicyReport],
) -> Result<Vec<String>, RunError> {
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let v = serde_json::json!({ "scenario": info.source, "policies": reports });
    write_json(&dir.join("compare.json"), &v)?;
    write_csv(&dir.join("compare.csv"), reports)?;
    let plots = plots(dir, &info.kind, reports)?;
    html::write_compare(&dir.join("index.html"), dir, info, reports, &plots)?;
    let mut files: Vec<String> = vec!["compare.json".into(), "compare.csv".into()];
    files.extend(plots.into_iter().map(|p| p.file));
    files.push("index.html".into());
    Ok(files)
}

/// The kind-specific numbers ([`super::Metrics::extra`]) as CSV columns after `log_hash`
/// (empty where a kind has none).
pub const EXTRA: &[&str] = &[
    "preemptions",
    "cloud_chunks",
    "cost",
    "avg_network_cost",
    "deadline_violation_rate",
    "servers_used",
    "restarts",
];

/// The metric columns between `makespan` and the latency (JCT statistics, unfinished jobs,
/// seconds).
const STATS: &[&str] = &[
    "unfinished",
    "jct_p50",
    "jct_p90",
    "jct_p99",
    "slot_seconds",
    "avg_jct_s",
    "jct_p50_s",
    "jct_p90_s",
    "jct_p99_s",
    "makespan_s",
];

fn stats(m: &super::Metrics) -> Vec<String> {
    let s = |x: Option<f64>| f(x.zip(m.slot_seconds).map(|(x, s)| x * s));
    vec![
        m.unfinished.map_or(String::new(), |x| x.to_string()),
        f(m.jct_p50),
        f(m.jct_p90),
        f(m.jct_p99),
        f(m.slot_seconds),
        s(m.avg_jct),
        s(m.jct_p50),
        s(m.jct_p90),
        s(m.jct_p99),
        s(m.makespan.map(f64::from)),
    ]
}

/// One row per policy; numbers rounded as [`super::number`] says. After the kind-specific
/// columns, `util_<resource>` per resource type of the scenario (kinds oasis and online).
pub fn write_csv(path: &Path, reports: &[PolicyReport]) -> Result<(), RunError> {
    let mut w = csv::Writer::from_path(path).map_err(|e| io(path, e))?;
    let util: Vec<String> = reports
        .iter()
        .find(|r| !r.metrics.utilisation.is_empty())
        .map(|r| {
            r.metrics
                .utilisation
                .iter()
                .map(|(n, _)| n.clone())
                .collect()
        })
        .unwrap_or_default();
    let head = [
        "policy",
        "status",
        "jobs",
        "admitted",
        "finished",
        "total_utility",
        "total_weighted_completion_time",
        "weighted_jct",
        "avg_jct",
        "makespan",
    ];
    let tail = ["latency_p50_us", "latency_p99_us", "log_hash"];
    let header: Vec<String> = head
        .iter()
        .chain(STATS)
        .chain(&tail)
        .chain(EXTRA)
        .map(|s| s.to_string())
        .chain(util.iter().map(|n| format!("util_{n}")))
        .collect();
    w.write_record(&header).map_err(|e| io(path, e))?;
    for r in reports {
        let m = &r.metrics;
        let t = r.timing.as_ref();
        let mut row = vec![
            m.policy.clone(),
            m.status.clone(),
            m.jobs.to_string(),
            m.admitted.map_or(String::new(), |a| a.to_string()),
            m.finished.to_string(),
            f(m.total_utility),
            f(m.total_weighted_completion_time),
            f(m.weighted_jct),
            f(m.avg_jct),
            m.makespan.map_or(String::new(), |a| a.to_string()),
        ];
        row.extend(stats(m));
        row.extend([
            f(t.map(|t| t.latency_p50_us)),
            f(t.map(|t| t.latency_p99_us)),
            m.log_hash.clone(),
        ]);
        row.extend(EXTRA.iter().map(|k| f(m.extra.get(*k).copied())));
        row.extend(
            util.iter()
                .map(|n| f(m.utilisation.iter().find(|(k, _)| k == n).map(|(_, u)| *u))),
        );
        w.write_record(&row).map_err(|e| io(path, e))?;
    }
    w.flush().map_err(|e| io(path, e))
}

/// Draws the plots of `kind` that have data into `dir`.
pub fn plots(dir: &Path, kind: &str, reports: &[PolicyReport]) -> Result<Vec<Plot>, RunError> {
    // A policy keeps its place in the report as its colour, in every plot.
    let (cols, ok): (Vec<usize>, Vec<&PolicyReport>) = reports
        .iter()
        .enumerate()
        .filter(|(_, r)| r.metrics.status == "ok")
        .unzip();
    let mut out = Vec::new();
    if ok.is_empty() {
        return Ok(out);
    }
    let names: Vec<String> = ok.iter().map(|r| r.metrics.policy.clone()).collect();
    let mut per_policy =
        |file: &str, title: &str, y: &str, get: &dyn Fn(&PolicyReport) -> Option<f64>| {
            let vals: Vec<Option<f64>> = ok.iter().map(|r| get(r)).collect();
            if vals.iter().all(Option::is_none) {
                return Ok::<(), RunError>(());
            }
            let series = [BarSeries {
                name: String::new(),
                colour: 0,
                per_bar: cols.clone(),
                values: vals.iter().map(|v| (v.unwrap_or(0.0), None)).collect(),
            }];
            let l = Labels {
                title,
                x: "policy",
                y,
            };
            plot::grouped_bars(&dir.join(file), &l, &names, &series)?;
            out.push(Plot {
                file: file.into(),
                caption: title.into(),
            });
            Ok(())
        };
    let m = mlsched_scenario::metrics::of(kind);
    if let Some(o) = m.objective {
        let (file, title, y) = o.plot();
        per_policy(file, title, y, &|r| super::table::objective(&r.metrics, o))?;
    }
    for p in m.counter_plots {
        per_policy(p.file, p.title, p.y, &|r| {
            r.metrics.extra.get(p.key).map(|v| v * p.scale)
        })?;
    }
    for v in m.views {
        out.extend(match v {
            View::Placement => placement_plots(dir, &ok, &cols)?,
            View::WorkerQueues => worker_queues(dir, &ok, &cols)?,
        });
    }
    if m.completions {
        out.extend(cdf(dir, kind, &ok, &cols)?);
    }
    if m.utilisation {
        out.extend(utilisation(dir, &ok, &cols)?);
    }
    Ok(out)
}

/// One bar series per policy over the shared `keys`, each bar the policy's value for that key
/// in `values(report)` (0 where the policy has none).
fn keyed_series(
    ok: &[&PolicyReport],
    cols: &[usize],
    keys: &[String],
    values: impl Fn(&PolicyReport) -> &Vec<(String, f64)>,
) -> Vec<BarSeries> {
    ok.iter()
        .zip(cols)
        .map(|(r, &c)| BarSeries {
            name: r.metrics.policy.clone(),
            colour: c,
            per_bar: Vec::new(),
            values: keys
                .iter()
                .map(|k| {
                    let v = values(r).iter().find(|x| &x.0 == k);
                    (v.map_or(0.0, |x| x.1), None)
                })
                .collect(),
        })
        .collect()
}

fn placement_plots(
    dir: &Path,
    ok: &[&PolicyReport],
    cols: &[usize],
) -> Result<Vec<Plot>, RunError> {
    let mut out = Vec::new();
    let jobs: Vec<String> = ok[0].plot.job_jct.iter().map(|j| j.0.clone()).collect();
    if !jobs.is_empty() {
        let series = keyed_series(ok, cols, &jobs, |r| &r.plot.job_jct);
        let title = "JCT of each job under each policy's placement";
        let l = Labels {
            title,
            x: "job",
            y: "job completion time (s)",
        };
        plot::grouped_bars(&dir.join("jct_per_job.svg"), &l, &jobs, &series)?;
        out.push(Plot {
            file: "jct_per_job.svg".into(),
            caption: title.into(),
        });
    }
    let lines: Vec<Line> = ok
        .iter()
        .zip(cols)
        .filter(|(r, _)| !r.plot.categories.is_empty())
        .map(|(r, &c)| Line {
            name: r.metrics.policy.clone(),
            colour: c,
            points: r.plot.categories.clone(),
            mark: r.plot.chosen,
        })
        .collect();
    if !lines.is_empty() {
        let ys = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
        let top = ys.fold(0.0, f64::max);
        let title = "Average JCT of every category examined (dot: the chosen one)";
        let l = Labels {
            title,
            x: "category, in the order examined",
            y: "average JCT (s)",
        };
        plot::lines(
            &dir.join("categories.svg"),
            &l,
            &lines,
            (0.0, top * 1.08 + 1e-9),
        )?;
        out.push(Plot {
            file: "categories.svg".into(),
            caption: title.into(),
        });
    }
    Ok(out)
}

fn worker_queues(dir: &Path, ok: &[&PolicyReport], cols: &[usize]) -> Result<Vec<Plot>, RunError> {
    // Every worker any policy used, in the first policy's order, then the others'.
    let mut workers: Vec<String> = Vec::new();
    for r in ok {
        for (w, _) in &r.plot.workers {
            if !workers.contains(w) {
                workers.push(w.clone());
            }
        }
    }
    if workers.is_empty() {
        return Ok(Vec::new());
    }
    let series = keyed_series(ok, cols, &workers, |r| &r.plot.workers);
    let title = "Chunks queued on each worker per policy";
    let l = Labels {
        title,
        x: "worker (server/worker)",
        y: "chunks queued (count)",
    };
    plot::grouped_bars(&dir.join("worker_queues.svg"), &l, &workers, &series)?;
    Ok(vec![Plot {
        file: "worker_queues.svg".into(),
        caption: title.into(),
    }])
}

/// CDF of JCT per policy (a step per finished job); not drawn when no job finished.
fn cdf(
    dir: &Path,
    kind: &str,
    ok: &[&PolicyReport],
    cols: &[usize],
) -> Result<Vec<Plot>, RunError> {
    if ok.iter().all(|r| r.jct.is_empty()) {
        return Ok(Vec::new());
    }
    let series: Vec<Line> = ok
        .iter()
        .zip(cols)
        .map(|(r, &c)| {
            let mut v = r.jct.clone();
            v.sort_by(f64::total_cmp);
            let n = r.metrics.jobs.max(1) as f64;
            let mut pts = vec![(0.0, 0.0)];
            for (k, x) in v.iter().enumerate() {
                pts.push((*x, k as f64 / n));
                pts.push((*x, (k + 1) as f64 / n));
            }
            // Unfinished jobs are counted in the legend (their line stops below 1).
            let name = match r.metrics.unfinished {
                Some(u) if u > 0 => format!("{} ({u} unfinished)", r.metrics.policy),
                _ => r.metrics.policy.clone(),
            };
            Line {
                name,
                colour: c,
                points: pts,
                mark: None,
            }
        })
        .collect();
    let x = format!("job completion time ({})", jct_unit(kind));
    let title = "CDF of job completion time per policy (unfinished jobs never reach 1)";
    let l = Labels {
        title,
        x: &x,
        y: "fraction of all jobs finished",
    };
    plot::lines(&dir.join("jct_cdf.svg"), &l, &series, (0.0, 1.0))?;
    Ok(vec![Plot {
        file: "jct_cdf.svg".into(),
        caption: title.into(),
    }])
}

/// Most steps of a utilisation line (longer horizons are averaged over buckets of slots).
pub const UTILISATION_POINTS: usize = 2_000;

/// GPU utilisation per slot per policy; not drawn when no GPU was ever used.
fn utilisation(dir: &Path, ok: &[&PolicyReport], cols: &[usize]) -> Result<Vec<Plot>, RunError> {
    if ok.iter().all(|r| r.utilisation.iter().all(|u| *u == 0.0)) {
        return Ok(Vec::new());
    }
    // Long horizons: the mean over buckets of k slots, at most UTILISATION_POINTS steps.
    let slots = ok.iter().map(|r| r.utilisation.len()).max().unwrap_or(0);
    let k = slots.div_ceil(UTILISATION_POINTS).max(1);
    let series: Vec<Line> = ok
        .iter()
        .zip(cols)
        .map(|(r, &c)| Line {
            name: r.metrics.policy.clone(),
            colour: c,
            // A step per bucket: the value holds for the whole of [t, t + k).
            points: r
                .utilisation
                .chunks(k)
                .enumerate()
                .flat_map(|(i, u)| {
                    let m = u.iter().sum::<f64>() / u.len() as f64;
                    let t = (i * k) as f64;
                    [(t, m), (t + u.len() as f64, m)]
                })
                .collect(),
            mark: None,
        })
        .collect();
    let ymax = series
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(1.0, f64::max);
    let title = if k == 1 {
        "GPU utilisation over time per policy".to_string()
    } else {
        format!("GPU utilisation over time per policy (mean per {k} slots)")
    };
    let l = Labels {
        title: &title,
        x: "time (slot)",
        y: "GPUs in use / GPUs of the cluster",
    };
    plot::lines(
        &dir.join("utilisation.svg"),
        &l,
        &series,
        (0.0, ymax * 1.05),
    )?;
    Ok(vec![Plot {
        file: "utilisation.svg".into(),
        caption: title,
    }])
}

/// The metrics of a sweep, with their file stem, title and axis (for its plots and CSV).
pub fn sweep_metrics(kind: &str) -> Vec<(&'static str, String, String, SweepGet)> {
    let u = jct_unit(kind);
    vec![
        (
            "utility",
            "Total utility".into(),
            "total utility (utility units)".into(),
            (|p| p.total_utility) as SweepGet,
        ),
        (
            "weighted_completion_time",
            "Total weighted completion time".into(),
            "sum of w_j (t_j + d_j) (weight x slots)".into(),
            |p| p.total_weighted_completion_time,
        ),
        (
            "weighted_jct",
            "Weighted mean JCT".into(),
            format!("weighted mean JCT ({u})"),
            |p| p.weighted_jct,
        ),
        (
            "avg_jct",
            "Mean JCT".into(),
            format!("mean JCT ({u})"),
            |p| p.avg_jct,
        ),
        (
            "finished",
            "Jobs finished".into(),
            "jobs finished (count)".into(),
            |p| p.finished,
        ),
        (
            "unfinished",
            "Jobs unfinished".into(),
            "jobs not finished by the horizon (count)".into(),
            |p| p.unfinished,
        ),
        // Kind route (sweeps over `{seed}` scenario files).
        (
            "cost",
            "Eq. (11) cost".into(),
            "eq. (11): F-score part x J_v / J".into(),
            |p| p.extra("cost"),
        ),
        (
            "avg_network_cost",
            "Mean network cost N-bar".into(),
            "N-bar, eqs. (4)-(5) (cost units of the links)".into(),
            |p| p.extra("avg_network_cost"),
        ),
        (
            "deadline_violation_rate",
            "Deadline violation rate".into(),
            "jobs that missed their deadline (fraction)".into(),
            |p| p.extra("deadline_violation_rate"),
        ),
    ]
}

/// Reads one statistic of a policy's sweep summary.
pub type SweepGet = fn(&super::sweep::PolicySummary) -> Option<Stat>;

/// One bar chart per metric of the sweep with data: mean per policy with the 95% confidence
/// interval as error bars.
pub fn sweep_plots(dir: &Path, kind: &str, sw: &Sweep) -> Result<Vec<Plot>, RunError> {
    let names: Vec<String> = sw.summary.iter().map(|p| p.policy.clone()).collect();
    let seeds = match (sw.per_seed.first(), sw.per_seed.last()) {
        (Some(a), Some(b)) => format!("seeds {}..{}", a.seed, b.seed),
        _ => "no seed".into(),
    };
    let mut out = Vec::new();
    for (stem, what, y, get) in sweep_metrics(kind) {
        let vals: Vec<Option<Stat>> = sw.summary.iter().map(get).collect();
        if vals.iter().all(Option::is_none) {
            continue;
        }
        let title = format!("{what} per policy: mean and 95% CI over {seeds}");
        let series = [BarSeries {
            name: String::new(),
            colour: 0,
            per_bar: (0..vals.len()).collect(),
            values: vals
                .iter()
                .map(|s| s.map_or((0.0, None), |s| (s.mean, Some(s.ci95))))
                .collect(),
        }];
        let file = format!("sweep_{stem}.svg");
        let l = Labels {
            title: &title,
            x: "policy",
            y: &y,
        };
        plot::grouped_bars(&dir.join(&file), &l, &names, &series)?;
        out.push(Plot {
            file,
            caption: title,
        });
    }
    Ok(out)
}

/// Writes sweep.json, sweep.csv, the sweep's plots and index.html into `dir`; the unsharded
/// sweep and `mlsched merge` both call this, so their files are byte-identical.
pub fn write_sweep(dir: &Path, info: &Info, sw: &Sweep) -> Result<Vec<String>, RunError> {
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    write_json(&dir.join("sweep.json"), sw)?;
    write_sweep_csv(&dir.join("sweep.csv"), sw)?;
    let plots = sweep_plots(dir, &info.kind, sw)?;
    html::write_sweep(&dir.join("index.html"), dir, info, sw, &plots)?;
    let mut files: Vec<String> = vec!["sweep.json".into(), "sweep.csv".into()];
    files.extend(plots.into_iter().map(|p| p.file));
    files.push("index.html".into());
    Ok(files)
}

/// One row per (seed, policy); numbers rounded as [`super::number`] says.
fn write_sweep_csv(path: &Path, sw: &Sweep) -> Result<(), RunError> {
    let mut w = csv::Writer::from_path(path).map_err(|e| io(path, e))?;
    w.write_record([
        "seed",
        "policy",
        "status",
        "total_utility",
        "total_weighted_completion_time",
        "weighted_jct",
        "avg_jct",
        "admitted",
        "finished",
        "makespan",
        "unfinished",
        "jct_p50",
        "jct_p90",
        "jct_p99",
        "restarts",
    ])
    .map_err(|e| io(path, e))?;
    for row in &sw.per_seed {
        for m in &row.metrics {
            w.write_record([
                row.seed.to_string(),
                m.policy.clone(),
                m.status.clone(),
                f(m.total_utility),
                f(m.total_weighted_completion_time),
                f(m.weighted_jct),
                f(m.avg_jct),
                m.admitted.map_or(String::new(), |x| x.to_string()),
                m.finished.to_string(),
                m.makespan.map_or(String::new(), |x| x.to_string()),
                m.unfinished.map_or(String::new(), |x| x.to_string()),
                f(m.jct_p50),
                f(m.jct_p90),
                f(m.jct_p99),
                f(m.extra.get("restarts").copied()),
            ])
            .map_err(|e| io(path, e))?;
        }
    }
    w.flush().map_err(|e| io(path, e))
}
