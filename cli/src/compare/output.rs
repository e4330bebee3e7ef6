//! compare's files: `compare.json`, `compare.csv`, and SVG plots (plotters, SVG backend only):
//! `bars.svg` (per-policy bars of the kind's objective), `jct_cdf.svg` (CDF of JCT),
//! `utilisation.svg` (GPU utilisation over time).
use super::PolicyReport;
use crate::error::RunError;
use plotters::prelude::*;
use std::path::Path;

fn io(path: &Path, e: impl std::fmt::Display) -> RunError {
    RunError::runtime(format!("cannot write {}: {e}", path.display()))
}

/// Writes compare.json, compare.csv and the three plots into `dir` (created if needed).
pub fn write_all(dir: &Path, scenario: &str, reports: &[PolicyReport]) -> Result<(), RunError> {
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let json = dir.join("compare.json");
    let v = serde_json::json!({ "scenario": scenario, "policies": reports });
    let mut text = serde_json::to_string_pretty(&v).map_err(|e| io(&json, e))?;
    text.push('\n');
    std::fs::write(&json, text).map_err(|e| io(&json, e))?;
    write_csv(&dir.join("compare.csv"), reports)?;
    bars(&dir.join("bars.svg"), reports)?;
    cdf(&dir.join("jct_cdf.svg"), reports)?;
    utilisation(&dir.join("utilisation.svg"), reports)?;
    Ok(())
}

use super::number::csv_opt as f;

/// The kind-specific numbers ([`super::Metrics::extra`]) as CSV columns after `log_hash`
/// (empty where a kind has none).
pub const EXTRA: &[&str] = &[
    "preemptions",
    "cloud_chunks",
    "cost",
    "avg_network_cost",
    "deadline_violation_rate",
    "servers_used",
];

/// One row per policy; numbers rounded as [`super::number`] says.
pub fn write_csv(path: &Path, reports: &[PolicyReport]) -> Result<(), RunError> {
    let mut w = csv::Writer::from_path(path).map_err(|e| io(path, e))?;
    w.write_record(
        [
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
            "latency_p50_us",
            "latency_p99_us",
            "log_hash",
        ]
        .iter()
        .chain(EXTRA),
    )
    .map_err(|e| io(path, e))?;
    for r in reports {
        let m = &r.metrics;
        let t = r.timing.as_ref();
        w.write_record(
            [
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
                f(t.map(|t| t.latency_p50_us)),
                f(t.map(|t| t.latency_p99_us)),
                m.log_hash.clone(),
            ]
            .into_iter()
            .chain(EXTRA.iter().map(|k| f(m.extra.get(*k).copied()))),
        )
        .map_err(|e| io(path, e))?;
    }
    w.flush().map_err(|e| io(path, e))
}

fn plot_err(path: &Path, e: impl std::fmt::Debug) -> RunError {
    RunError::runtime(format!("cannot draw {}: {e:?}", path.display()))
}

/// Bars of total utility (oasis) or total weighted completion time (online), else avg JCT.
pub fn bars(path: &Path, reports: &[PolicyReport]) -> Result<(), RunError> {
    let pick = |r: &PolicyReport| {
        r.metrics
            .total_utility
            .or(r.metrics.total_weighted_completion_time)
            .or(r.metrics.avg_jct)
            .unwrap_or(0.0)
    };
    let label = if reports.iter().any(|r| r.metrics.total_utility.is_some()) {
        "total utility"
    } else if reports
        .iter()
        .any(|r| r.metrics.total_weighted_completion_time.is_some())
    {
        "total weighted completion time"
    } else {
        "average JCT (slots)"
    };
    let vals: Vec<f64> = reports.iter().map(pick).collect();
    let top = vals.iter().copied().fold(0.0, f64::max).max(1e-9) * 1.1;
    let root = SVGBackend::new(path, (640, 400)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let n = reports.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(label, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d((0..n).into_segmented(), 0.0..top)
        .map_err(|e| plot_err(path, e))?;
    let names: Vec<String> = reports.iter().map(|r| r.metrics.policy.clone()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(i) => names.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .draw()
        .map_err(|e| plot_err(path, e))?;
    chart
        .draw_series(vals.iter().enumerate().map(|(i, v)| {
            let c = Palette99::pick(i).filled();
            Rectangle::new(
                [
                    (SegmentValue::Exact(i), 0.0),
                    (SegmentValue::Exact(i + 1), *v),
                ],
                c,
            )
        }))
        .map_err(|e| plot_err(path, e))?;
    root.present().map_err(|e| plot_err(path, e))
}

fn lines(
    path: &Path,
    title: &str,
    series: &[(String, Vec<(f64, f64)>)],
    ymax: f64,
) -> Result<(), RunError> {
    let xmax = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    let root = SVGBackend::new(path, (640, 400)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..xmax, 0.0..ymax)
        .map_err(|e| plot_err(path, e))?;
    chart
        .configure_mesh()
        .draw()
        .map_err(|e| plot_err(path, e))?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color))
            .map_err(|e| plot_err(path, e))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| plot_err(path, e))?;
    root.present().map_err(|e| plot_err(path, e))
}

/// CDF of JCT per policy (a step per finished job).
pub fn cdf(path: &Path, reports: &[PolicyReport]) -> Result<(), RunError> {
    let series: Vec<(String, Vec<(f64, f64)>)> = reports
        .iter()
        .map(|r| {
            let mut v = r.jct.clone();
            v.sort_by(f64::total_cmp);
            let n = r.metrics.jobs.max(1) as f64;
            let mut pts = vec![(0.0, 0.0)];
            for (k, x) in v.iter().enumerate() {
                pts.push((*x, k as f64 / n));
                pts.push((*x, (k + 1) as f64 / n));
            }
            (r.metrics.policy.clone(), pts)
        })
        .collect();
    lines(
        path,
        "CDF of JCT (slots; unfinished jobs never reach 1)",
        &series,
        1.0,
    )
}

/// GPU utilisation per slot per policy.
pub fn utilisation(path: &Path, reports: &[PolicyReport]) -> Result<(), RunError> {
    let series: Vec<(String, Vec<(f64, f64)>)> = reports
        .iter()
        .map(|r| {
            (
                r.metrics.policy.clone(),
                r.utilisation
                    .iter()
                    .enumerate()
                    .map(|(t, u)| (t as f64, *u))
                    .collect(),
            )
        })
        .collect();
    let ymax = reports
        .iter()
        .flat_map(|r| r.utilisation.iter().copied())
        .fold(1.0, f64::max);
    lines(path, "GPU utilisation over time", &series, ymax)
}
