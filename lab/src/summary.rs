//! The summary `mlsched run` prints: the kind's one-line totals (from the document layer) and,
//! for kinds with one (oasis, online), one table row per job ([`crate::kinds::LabKind::run_text`]),
//! laid out by comfy-table like compare's tables; then the jobs' statuses and one line of
//! compare's metrics.
use crate::compare::Metrics;
use comfy_table::{presets, CellAlignment, Table};
use mlsched_scenario::doc::ScenarioDoc;
use mlsched_scenario::run::ResultDoc;

/// The text `mlsched run` prints for `r` of `doc`: [`text`], the jobs' statuses, then (every
/// kind whose jobs have a completion time: not route, whose jobs have deadlines) one line of
/// compare's metrics ([`metrics_line`]).
pub fn text_for(doc: &ScenarioDoc, r: &ResultDoc) -> String {
    let mut out = text(r);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    // Every job's one status (`docs/formats.md`, "Status"): what the open world adds.
    out.push_str(&format!("status: {}", r.statuses()));
    let metrics = mlsched_scenario::metrics::of(doc.kind());
    if metrics.jct {
        let m = crate::compare::report(doc, r).metrics;
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&metrics_line(&m, metrics.jct_unit));
    }
    out
}

/// `finished F of N (U unfinished); JCT of finished jobs (unit): avg, p50 / p90 / p99;
/// makespan; utilisation per resource`, the numbers compare's table shows.
pub fn metrics_line(m: &Metrics, unit: &str) -> String {
    let mut s = format!(
        "finished {} of {} jobs ({} unfinished)",
        m.finished,
        m.jobs,
        m.unfinished.unwrap_or(0)
    );
    if let (Some(a), Some(p50), Some(p90), Some(p99)) = (m.avg_jct, m.jct_p50, m.jct_p90, m.jct_p99)
    {
        s.push_str(&format!(
            "; JCT of finished jobs ({unit}): avg {a:.2}, p50 {p50:.2}, p90 {p90:.2}, p99 {p99:.2}"
        ));
    }
    if let Some(x) = m.makespan {
        s.push_str(&format!("; makespan {x} slots"));
    }
    if !m.utilisation.is_empty() {
        let u: Vec<String> = m
            .utilisation
            .iter()
            .map(|(n, u)| format!("{n} {:.1}%", u * 100.0))
            .collect();
        s.push_str(&format!("; mean utilisation {}", u.join(", ")));
    }
    s
}

/// The text `mlsched run` prints for `r` (without the metrics line of [`text_for`]).
pub fn text(r: &ResultDoc) -> String {
    crate::kinds::run_text(r)
}

/// A table with `header`, the columns `right` right-aligned (the per-job tables of the kinds).
pub(crate) fn table(header: &[&str], right: &[usize]) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::ASCII_MARKDOWN)
        .set_header(header.to_vec());
    for &i in right {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}

/// A number with 3 decimals, `-` when absent.
pub(crate) fn num(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{v:.3}"))
}
