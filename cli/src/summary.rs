//! The summary `mlsched run` prints: the kind's one-line totals (from the document layer) and,
//! for kinds oasis and online, one table row per job, laid out by comfy-table like compare's
//! tables. The other kinds' summaries are one line already and print as the document layer
//! writes them.
use comfy_table::{presets, CellAlignment, Table};
use mlsched_lab::compare::Metrics;
use mlsched_scenario::doc::ScenarioDoc;
use mlsched_scenario::kinds::oasis::doc::OasisResult;
use mlsched_scenario::kinds::online::doc::OnlineResult;
use mlsched_scenario::run::ResultDoc;
use mlsched_scenario::text::terminal_safe;

/// The text `mlsched run` prints for `r` of `doc`: [`text`], the jobs' statuses, then (every
/// kind but route, whose jobs have deadlines, not completions) one line of compare's metrics
/// ([`metrics_line`]).
pub fn text_for(doc: &ScenarioDoc, r: &ResultDoc) -> String {
    let mut out = text(r);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    // Every job's one status (`docs/formats.md`, "Status"): what the open world adds.
    out.push_str(&format!("status: {}", r.statuses()));
    if !matches!(r, ResultDoc::Route(_)) {
        let m = mlsched_lab::compare::report(doc, r).metrics;
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&metrics_line(
            &m,
            mlsched_lab::compare::table::jct_unit(doc.kind()),
        ));
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
    let full = r.summary_text();
    let first = full.lines().next().unwrap_or_default();
    match r {
        ResultDoc::Oasis(o) => match &o.summary.dorm {
            Some(d) => format!(
                "{first}\n{}\n{}",
                mlsched_scenario::kinds::oasis::exec::dorm_line(d),
                oasis(o)
            ),
            None => format!("{first}\n{}", oasis(o)),
        },
        ResultDoc::Online(o) => format!("{first}\n{}log_hash {}", online(o), o.log_hash),
        _ => full,
    }
}

fn table(header: &[&str], right: &[usize]) -> Table {
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

fn num(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{v:.3}"))
}

/// One row per job: admitted or rejected (with the reason), the completion slot t_hat, utility,
/// cost and payoff of the chosen schedule, and the slots, worker-slots and PS-slots it uses.
fn oasis(r: &OasisResult) -> String {
    let mut t = table(
        &[
            "job",
            "decision",
            "t_hat",
            "utility",
            "cost",
            "payoff",
            "slots",
            "worker-slots",
            "ps-slots",
        ],
        &[2, 3, 4, 5, 6, 7, 8],
    );
    for j in &r.jobs {
        let id = terminal_safe(&j.id).into_owned();
        if !j.admitted {
            let why = format!("rejected ({})", j.reason.as_deref().unwrap_or("-"));
            let mut row = vec![id, why];
            row.resize(9, "-".into());
            t.add_row(row);
            continue;
        }
        let sum = |f: fn(&mlsched_scenario::kinds::oasis::doc::OasisPlacement) -> u32| -> u32 {
            j.placements.iter().map(f).sum()
        };
        t.add_row(vec![
            id,
            "admitted".into(),
            j.completion_slot.map_or("-".into(), |x| x.to_string()),
            num(j.utility),
            num(j.cost),
            num(j.payoff),
            j.placements.len().to_string(),
            sum(|p| p.workers.iter().map(|x| x[1]).sum()).to_string(),
            sum(|p| p.ps.iter().map(|x| x[1]).sum()).to_string(),
        ]);
    }
    format!("{t}\n")
}

/// One row per job: start, duration and completion slot, worker/PS type, co-location (q), the
/// round that scheduled it and its placement (`workers+ps` at each server).
fn online(r: &OnlineResult) -> String {
    let mut t = table(
        &[
            "job",
            "start",
            "dur",
            "done",
            "type",
            "q",
            "round",
            "workers@server",
        ],
        &[1, 2, 3, 5, 6],
    );
    for j in &r.jobs {
        let id = terminal_safe(&j.id).into_owned();
        if !j.scheduled {
            let mut row = vec![id, "not scheduled".to_string()];
            row.resize(8, "-".into());
            t.add_row(row);
            continue;
        }
        t.add_row(vec![
            id,
            j.start_slot.unwrap_or(0).to_string(),
            j.duration.unwrap_or(0).to_string(),
            j.completion_slot.unwrap_or(0).to_string(),
            j.type_label(),
            u8::from(j.colocated).to_string(),
            j.round.unwrap_or(0).to_string(),
            j.placement_label(),
        ]);
    }
    format!("{t}\n")
}
