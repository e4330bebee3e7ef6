//! The tables `mlsched compare`, `mlsched merge` and `mlsched demo` print, built with
//! comfy-table, and the legend of their columns (`mlsched compare --help`, README, HTML report).
//!
//! Each kind shows only the columns that mean something for it, and every time column says its
//! unit in its header: JCT is in slots for kinds oasis, online and preempt, and in seconds for
//! kind placement (one static assignment whose JCT the placer computes in seconds).
use super::number::cell;
use super::sweep::{Stat, Sweep};
use super::{Metrics, PolicyReport};
use comfy_table::{presets, CellAlignment, Table};

/// The legend of every column of compare's tables and CSV files (shown by `--help`).
pub const LEGEND: &str = "\
Columns of the tables (CSV column names in brackets):
  policy          the kind's algorithm or a baseline [policy]
  runs            seeds on which the policy ran (sweeps, --seeds)
  admitted        jobs admitted (oasis) or scheduled (online) or placed (other kinds) / jobs in
                  the scenario [admitted, jobs]
  finished        jobs that finished within the horizon (oasis, online, preempt) [finished]
  unfinished      jobs that did not finish: rejected, never scheduled or not done by the
                  horizon; left out of every JCT statistic, counted here (every kind but
                  route) [unfinished]
  utility         total utility: sum of f_i(completion) over admitted jobs (oasis; the
                  utilities' own units) [total_utility]
  w.compl.time    total weighted completion time: sum of w_j (t_j + d_j) over the scheduled
                  jobs (online; weight x slots) [total_weighted_completion_time]
  w.JCT           weighted mean job completion time of finished jobs, sum w JCT / sum w, with
                  w = f_i(0) (oasis), w_j (online), 1 (other kinds) [weighted_jct]
  avg JCT         mean job completion time of finished jobs, end - arrival [avg_jct]; with
                  the slot length known (imported scenarios) also in seconds, slots x slot
                  length [avg_jct_s]
  JCT p50/90/99   nearest-rank percentiles of the finished jobs' JCT (seconds too when the slot
                  length is known) [jct_p50, jct_p90, jct_p99, jct_p50_s, ...]
  makespan        end of the last finished job, slots (and seconds when the slot length is
                  known) [makespan, makespan_s]
  util %          mean utilisation of each resource type over the busy horizon (slots 0 to the
                  last slot anything runs): use / capacity of all servers, percent, in the
                  order of the header (oasis, online) [util_<resource>, a fraction]
  restarts        allocation changes after a job's start, resumes included, each costing the
                  scenario's restart time (kinds oasis and preempt, when it sets
                  restart_slots; see docs/restart.md) [restarts]
  dorm solves     Dorm's events solved to proven optimality / stopped at the per-event node
                  budget, and the largest optimality gap of a stopped event, percent (kind
                  oasis, policy dorm; see docs/oasis.md) [dorm_optimal, dorm_stopped,
                  dorm_gap_max, a fraction; compare.json only]
  preemptions     chunks preempted on edge workers (preempt) [preemptions]
  cloud chunks    chunks sent to the cloud (preempt) [cloud_chunks]
  cost            the route paper's objective, eq. (11): (J_v / J) x (F-score part + network
                  cost); 0 when no job misses its deadline (route) [cost]
  avg net cost    mean network cost per job N-bar, eqs. (4)-(5): the link costs of its paths
                  (route; cost units of the topology's links) [avg_network_cost]
  violations %    jobs that missed their deadline, percent (route)
                  [deadline_violation_rate, a fraction]
  servers used    servers that ran at least one job (route) [servers_used]
  status          ok, or unavailable (why is printed under the table) [status]
  p50 us, p99 us  median and 99th percentile of the wall time between consecutive decision
                  records, microseconds (not reproducible; left out by --no-timing)
                  [latency_p50_us, latency_p99_us]
Units: JCT, makespan and times are in slots for kinds oasis, online and preempt and in seconds
for kind placement; headers carry the unit. JCT statistics are of finished jobs only. Sweeps (--seeds) print mean ± the half-width of the
95% confidence interval, t_{0.975, n-1} s / sqrt(n) with the exact Student-t quantile.
CSV numbers are rounded to 12 significant digits (no float noise); JSON files keep exact bits.";

/// Dorm's solver counts, `optimal / stopped, gap G%` ("-" for the other policies).
fn dorm_solves(m: &Metrics) -> String {
    let get = |k: &str| m.extra.get(k).copied();
    match (
        get("dorm_optimal"),
        get("dorm_stopped"),
        get("dorm_gap_max"),
    ) {
        (Some(o), Some(s), Some(g)) => format!("{o:.0} opt / {s:.0} budget, gap {:.1}%", g * 100.0),
        _ => "-".into(),
    }
}

/// The unit of a JCT of `kind` (its [`mlsched_scenario::metrics::Metrics::jct_unit`]).
pub fn jct_unit(kind: &str) -> &'static str {
    mlsched_scenario::metrics::of(kind).jct_unit
}

/// The value of a run's objective `o` (`Metrics::objective`).
pub fn objective(m: &super::Metrics, o: mlsched_scenario::metrics::Objective) -> Option<f64> {
    use mlsched_scenario::metrics::Objective;
    match o {
        Objective::TotalUtility => m.total_utility,
        Objective::TotalWeightedCompletionTime => m.total_weighted_completion_time,
    }
}

/// One column of the compare table: its header and how to read it from a report.
struct Col {
    header: String,
    get: Box<dyn Fn(&PolicyReport) -> String>,
}

fn opt(x: Option<f64>, d: usize) -> String {
    x.map_or("-".into(), |v| cell(v, d))
}

fn extra(m: &Metrics, key: &str, scale: f64, d: usize) -> String {
    opt(m.extra.get(key).map(|v| v * scale), d)
}

fn col(header: impl Into<String>, get: impl Fn(&PolicyReport) -> String + 'static) -> Col {
    Col {
        header: header.into(),
        get: Box::new(get),
    }
}

/// `x` (slots) in seconds, when the slot length is known.
fn scaled(m: &Metrics, x: Option<f64>) -> Option<f64> {
    Some(x? * m.slot_seconds?)
}

/// `p50 / p90 / p99` of the finished jobs' JCT, times `scale`.
fn percentiles(m: &Metrics, scale: f64) -> String {
    match (m.jct_p50, m.jct_p90, m.jct_p99) {
        (Some(a), Some(b), Some(c)) => {
            let d = if scale == 1.0 { 2 } else { 1 };
            format!(
                "{} / {} / {}",
                cell(a * scale, d),
                cell(b * scale, d),
                cell(c * scale, d)
            )
        }
        _ => "-".into(),
    }
}

/// Mean utilisation per resource, percent, `/`-separated in the header's order.
fn utilisation(m: &Metrics) -> String {
    if m.utilisation.is_empty() {
        return "-".into();
    }
    let v: Vec<String> = m
        .utilisation
        .iter()
        .map(|(_, u)| cell(u * 100.0, 1))
        .collect();
    v.join("/")
}

/// What the reports say beyond the kind: whether the slot length is known, and the resource
/// names of the utilisation column (from the first report that has them).
struct Known {
    seconds: bool,
    util: Option<Vec<String>>,
    /// Some report counts restarts (the scenario sets a restart time).
    restarts: bool,
    /// Some report is Dorm's, with its solver counts.
    dorm: bool,
}

fn known(reports: &[PolicyReport]) -> Known {
    Known {
        seconds: reports.iter().any(|r| r.metrics.slot_seconds.is_some()),
        restarts: reports
            .iter()
            .any(|r| r.metrics.extra.contains_key("restarts")),
        dorm: reports
            .iter()
            .any(|r| r.metrics.extra.contains_key("dorm_optimal")),
        util: reports
            .iter()
            .find(|r| !r.metrics.utilisation.is_empty())
            .map(|r| {
                r.metrics
                    .utilisation
                    .iter()
                    .map(|(n, _)| n.clone())
                    .collect()
            }),
    }
}

/// The columns of `kind` (see [`LEGEND`]).
fn columns(kind: &str, timing: bool, k: Known) -> Vec<Col> {
    let m = mlsched_scenario::metrics::of(kind);
    let u = m.jct_unit;
    let Known {
        seconds,
        util,
        restarts,
        dorm,
    } = k;
    let mut c = vec![col("admitted", |r: &PolicyReport| {
        let m = &r.metrics;
        m.admitted.map_or("-".into(), |a| format!("{a}/{}", m.jobs))
    })];
    // Placement is one static assignment (every job runs) and route reports routes, not
    // completions: a finished count says nothing there (`Metrics::completions`).
    if m.completions {
        c.push(col("finished", |r: &PolicyReport| {
            r.metrics.finished.to_string()
        }));
    }
    if m.jct {
        c.push(col("unfinished", |r: &PolicyReport| {
            r.metrics.unfinished.map_or("-".into(), |x| x.to_string())
        }));
    }
    if let Some(o) = m.objective {
        c.push(col(o.column(), move |r: &PolicyReport| {
            opt(objective(&r.metrics, o), 2)
        }));
    }
    if m.weighted_jct {
        c.push(col(format!("w.JCT ({u})"), |r: &PolicyReport| {
            opt(r.metrics.weighted_jct, 2)
        }));
    }
    if m.jct {
        c.push(col(format!("avg JCT ({u})"), |r: &PolicyReport| {
            opt(r.metrics.avg_jct, 2)
        }));
        c.push(col(format!("JCT p50/90/99 ({u})"), |r: &PolicyReport| {
            percentiles(&r.metrics, 1.0)
        }));
    }
    if seconds && m.completions {
        c.push(col("avg JCT (s)", |r: &PolicyReport| {
            opt(scaled(&r.metrics, r.metrics.avg_jct), 1)
        }));
        c.push(col("JCT p50/90/99 (s)", |r: &PolicyReport| {
            percentiles(&r.metrics, r.metrics.slot_seconds.unwrap_or(1.0))
        }));
    }
    if m.completions {
        c.push(col("makespan (slots)", |r: &PolicyReport| {
            r.metrics.makespan.map_or("-".into(), |x| x.to_string())
        }));
        if seconds {
            c.push(col("makespan (s)", |r: &PolicyReport| {
                let m = &r.metrics;
                opt(scaled(m, m.makespan.map(f64::from)), 1)
            }));
        }
    }
    if let Some(names) = util {
        c.push(col(
            format!("util % ({})", names.join("/")),
            |r: &PolicyReport| utilisation(&r.metrics),
        ));
    }
    if restarts {
        c.push(col("restarts", |r: &PolicyReport| {
            extra(&r.metrics, "restarts", 1.0, 0)
        }));
    }
    if dorm {
        c.push(col("dorm solves", |r: &PolicyReport| {
            dorm_solves(&r.metrics)
        }));
    }
    for k in m.counters {
        c.push(col(k.header, |r: &PolicyReport| {
            extra(&r.metrics, k.key, k.scale, k.decimals)
        }));
    }
    if timing {
        c.push(col("p50 us", |r: &PolicyReport| {
            r.timing
                .as_ref()
                .map_or("-".into(), |t| format!("{:.1}", t.latency_p50_us))
        }));
        c.push(col("p99 us", |r: &PolicyReport| {
            r.timing
                .as_ref()
                .map_or("-".into(), |t| format!("{:.1}", t.latency_p99_us))
        }));
    }
    c
}

/// A table with compare's look: Markdown-style ASCII (pastes into issues and docs), numbers
/// right-aligned.
fn new_table(header: Vec<String>) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::ASCII_MARKDOWN).set_header(header);
    t
}

fn align_numbers(t: &mut Table) {
    let n = t.column_count();
    for i in 1..n {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// The rows of the compare table: header, then one row per policy (as text cells), so that the
/// terminal table and the HTML report show the very same cells.
pub fn rows(kind: &str, reports: &[PolicyReport]) -> (Vec<String>, Vec<Vec<String>>) {
    let timing = reports.iter().any(|r| r.timing.is_some());
    let cols = columns(kind, timing, known(reports));
    let failed = reports.iter().any(|r| r.metrics.status != "ok");
    let mut header = vec!["policy".to_string()];
    header.extend(cols.iter().map(|c| c.header.clone()));
    if failed {
        header.push("status".into());
    }
    let body = reports
        .iter()
        .map(|r| {
            let ok = r.metrics.status == "ok";
            let mut row = vec![r.metrics.policy.clone()];
            row.extend(
                cols.iter()
                    .map(|c| if ok { (c.get)(r) } else { "-".into() }),
            );
            if failed {
                // The reason is printed under the table ([`failures`]): it is a sentence.
                let short = r.metrics.status.split(':').next().unwrap_or_default();
                row.push(short.to_string());
            }
            row
        })
        .collect();
    (header, body)
}

/// `policy: why` for every policy that could not run.
pub fn failures(reports: &[PolicyReport]) -> Vec<String> {
    reports
        .iter()
        .filter(|r| r.metrics.status != "ok")
        .map(|r| format!("{}: {}", r.metrics.policy, r.metrics.status))
        .collect()
}

/// The table `mlsched compare` and `mlsched demo` print for a scenario of `kind`, then why
/// each policy that could not run could not.
pub fn table(kind: &str, reports: &[PolicyReport]) -> String {
    let (header, body) = rows(kind, reports);
    let status = header.iter().position(|h| h == "status");
    let mut t = new_table(header);
    for r in body {
        t.add_row(r);
    }
    align_numbers(&mut t);
    if let Some(c) = status.and_then(|i| t.column_mut(i)) {
        c.set_cell_alignment(CellAlignment::Left);
    }
    let mut out = format!("{t}\n");
    for f in failures(reports) {
        out.push_str(&format!("  {f}\n"));
    }
    out
}

fn stat_cell(s: &Option<Stat>) -> String {
    s.map_or("-".into(), |s| {
        format!("{} ± {}", cell(s.mean, 2), cell(s.ci95, 2))
    })
}

/// The rows of the sweep table (mean ± 95% CI per policy), columns with data only.
pub fn sweep_rows(kind: &str, sw: &Sweep) -> (Vec<String>, Vec<Vec<String>>) {
    let u = jct_unit(kind);
    type Get = fn(&super::sweep::PolicySummary) -> &Option<Stat>;
    let all: [(String, Get); 8] = [
        ("utility".into(), |p| &p.total_utility),
        ("w.compl.time".into(), |p| &p.total_weighted_completion_time),
        (format!("w.JCT ({u})"), |p| &p.weighted_jct),
        (format!("avg JCT ({u})"), |p| &p.avg_jct),
        ("admitted".into(), |p| &p.admitted),
        ("finished".into(), |p| &p.finished),
        ("unfinished".into(), |p| &p.unfinished),
        ("restarts".into(), |p| &p.restarts),
    ];
    let used: Vec<&(String, Get)> = all
        .iter()
        .filter(|(_, g)| sw.summary.iter().any(|p| g(p).is_some()))
        .collect();
    let mut header = vec!["policy".to_string(), "runs".to_string()];
    header.extend(used.iter().map(|(h, _)| h.clone()));
    let body = sw
        .summary
        .iter()
        .map(|p| {
            let mut row = vec![p.policy.clone(), p.runs.to_string()];
            row.extend(used.iter().map(|(_, g)| stat_cell(g(p))));
            row
        })
        .collect();
    (header, body)
}

/// The sweep table: mean ± 95% CI per policy.
pub fn sweep_table(kind: &str, sw: &Sweep) -> String {
    let (header, body) = sweep_rows(kind, sw);
    let mut t = new_table(header);
    for r in body {
        t.add_row(r);
    }
    align_numbers(&mut t);
    format!("{t}\n")
}

/// [`LEGEND`] as (column name, meaning) pairs, continuation lines joined.
pub fn legend_entries() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in LEGEND.lines().skip(1) {
        if !line.starts_with("  ") {
            break;
        }
        let body = line.trim_start();
        let indent = line.len() - body.len();
        match (indent, body.split_once("  ")) {
            (2, Some((name, meaning))) => {
                out.push((name.to_string(), meaning.trim().to_string()));
            }
            _ => {
                if let Some(last) = out.last_mut() {
                    last.1.push(' ');
                    last.1.push_str(body);
                }
            }
        }
    }
    out
}

/// The closing notes of [`LEGEND`] (units, sweeps, CSV rounding) as one paragraph.
pub fn legend_notes() -> String {
    LEGEND
        .lines()
        .skip_while(|l| !l.starts_with("Units:"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The legend entries of the columns in `header` (a header's name is its text before ` (`;
/// `p50 us` and `p99 us` share one entry).
pub fn legend_for(header: &[String]) -> Vec<(String, String)> {
    let names: Vec<&str> = header
        .iter()
        .map(|h| h.split(" (").next().unwrap_or(h))
        .collect();
    legend_entries()
        .into_iter()
        .filter(|(n, _)| n.split(", ").any(|part| names.contains(&part)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_header_has_a_legend_entry() {
        let entries = legend_entries();
        assert_eq!(entries.len(), 22, "{entries:?}");
        for kind in mlsched_scenario::doc::KINDS {
            let header: Vec<String> = std::iter::once("policy".to_string())
                .chain(
                    columns(
                        kind,
                        true,
                        Known {
                            seconds: true,
                            util: Some(vec!["gpu".into()]),
                            restarts: true,
                            // The Dorm column shows where the kind has the dorm policy.
                            dorm: mlsched_scenario::run::policies(kind).contains(&"dorm"),
                        },
                    )
                    .into_iter()
                    .map(|c| c.header),
                )
                .collect();
            let names: Vec<&str> = header
                .iter()
                .map(|h| h.split(" (").next().unwrap())
                .collect();
            let legend = legend_for(&header);
            for n in names {
                assert!(
                    legend.iter().any(|(e, _)| e.split(", ").any(|p| p == n)),
                    "{kind}: no legend entry for column `{n}`"
                );
            }
        }
        assert!(legend_notes().starts_with("Units:"));
    }
}
