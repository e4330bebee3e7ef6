//! `index.html`: compare's report as one self-contained page. No network: the CSS is inline,
//! the plots are the SVG files' own text inlined, there is no script and no font to fetch, so
//! the page opens the same offline, attached to a mail or archived with a paper.
//!
//! It holds the scenario summary ([`Info`]), the table (the very cells the terminal shows), the
//! column legend, every plot with what it shows, and the commands that reproduce the run.
use super::output::Plot;
use super::sweep::Sweep;
use super::table;
use super::PolicyReport;
use mlsched_scenario::doc::ScenarioDoc;
use mlsched_scenario::error::RunError;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// What the report says about the scenario and how to reproduce it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Info {
    /// Kind.
    pub kind: String,
    /// The scenario argument: a file, or `import:SOURCE`.
    pub source: String,
    /// Jobs.
    pub jobs: u64,
    /// Servers, said per kind (e.g. "8 worker + 2 PS servers").
    pub servers: String,
    /// Horizon T in slots (kinds with slots).
    pub slots: Option<u64>,
    /// Seconds per slot, when known (imports); scenario files do not record it.
    pub slot_seconds: Option<f64>,
    /// The compare command (as run; for a sweep without `--out`, `--shard`, `--threads`).
    pub command: String,
    /// The commands that run each policy alone.
    pub run_commands: Vec<String>,
}

impl Info {
    /// The summary of `doc` given as `source`; commands are filled in by the caller.
    pub fn of(doc: &ScenarioDoc, source: &str) -> Info {
        let (servers, slots) = crate::kinds::cluster(doc);
        Info {
            kind: doc.kind().into(),
            source: source.into(),
            jobs: doc.jobs() as u64,
            servers,
            slots: slots.map(|s| s.max(0.0) as u64),
            ..Info::default()
        }
    }
}

/// `s` with `&`, `<`, `>` and `"` escaped for HTML text and attributes.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            _ => o.push(c),
        }
    }
    o
}

/// One argument quoted for a POSIX shell when it needs it.
pub fn shell_quote(a: &str) -> String {
    let plain = !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=,@+%".contains(c));
    if plain {
        a.into()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

/// `args` (without the program) as one shell line starting with `mlsched`.
pub fn command_line(args: &[String]) -> String {
    let mut s = String::from("mlsched");
    for a in args {
        s.push(' ');
        s.push_str(&shell_quote(a));
    }
    s
}

/// `args` less the options in `drop` (each with its value, as `--x V` or `--x=V`) and the
/// flags in `flags`.
pub fn without(args: &[String], drop: &[&str], flags: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if flags.contains(&a.as_str()) {
            continue;
        }
        if drop.contains(&a.as_str()) {
            it.next();
            continue;
        }
        if drop.iter().any(|d| a.starts_with(&format!("{d}="))) {
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// The options of `compare` that are not mapping flags of `import` (with a value, and bare).
const COMPARE_ONLY: (&[&str], &[&str]) = (
    &["--policies", "--out", "--seeds", "--threads", "--shard"],
    &["--no-timing", "--quiet"],
);

/// The commands that reproduce compare's run of `policies`: `args` are compare's arguments
/// as given (without the program; `args[0]` is `compare`), `source` the scenario argument and
/// `seed` the sweep's first seed (sweeps). Sets [`Info::command`] and [`Info::run_commands`].
pub fn set_commands(
    info: &mut Info,
    args: &[String],
    source: &str,
    policies: &[String],
    seed: Option<u64>,
) {
    info.command = match seed {
        // A sweep: every shard and the merge give the same report, so leave out where and how
        // it ran.
        Some(_) => command_line(&without(
            args,
            &["--out", "--shard", "--threads"],
            &["--quiet"],
        )),
        None => command_line(args),
    };
    let mut runs = Vec::new();
    let file = match source.strip_prefix("import:") {
        Some(src) => {
            let rest: Vec<String> = args
                .iter()
                .skip(1)
                .filter(|a| a.as_str() != source)
                .cloned()
                .collect();
            let mut map = without(&rest, COMPARE_ONLY.0, COMPARE_ONLY.1);
            let name = match seed {
                Some(s) => {
                    map = without(&map, &["--seed", "--start"], &[]);
                    map.extend(["--seed".to_string(), s.to_string()]);
                    format!("scenario-seed-{s}.json")
                }
                None => "scenario.json".to_string(),
            };
            let mut imp = vec!["import".to_string(), src.to_string()];
            imp.extend(map);
            imp.extend(["-o".to_string(), name.clone()]);
            runs.push(command_line(&imp));
            name
        }
        None => source.to_string(),
    };
    for p in policies {
        runs.push(command_line(&[
            "run".into(),
            file.clone(),
            "--policy".into(),
            p.clone(),
            "--json".into(),
            format!("{p}.json"),
        ]));
    }
    info.run_commands = runs;
}

const CSS: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:2rem auto;\
max-width:1100px;padding:0 1rem;color:#1d1d1f;line-height:1.45}\
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;\
border-bottom:1px solid #ddd;padding-bottom:.2rem}\
table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:.5rem 0}\
th,td{border:1px solid #ccc;padding:.25rem .6rem}th{background:#f3f4f6;text-align:left}\
td.n{text-align:right}dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}\
dt{font-weight:600}dd{margin:0}pre{background:#f6f8fa;padding:.7rem;overflow-x:auto;\
font-size:.85rem}figure{margin:1rem 0}figure svg{max-width:100%;height:auto;\
border:1px solid #eee}figcaption{font-size:.9rem;color:#555}.note{color:#555;font-size:.9rem}\
h3{font-size:1rem;margin-bottom:.3rem}dl.legend{font-size:.9rem}";

/// An HTML table of `header` and `rows`; cells after the first are numbers (right-aligned).
fn html_table(out: &mut String, header: &[String], rows: &[Vec<String>]) {
    out.push_str("<table>\n<thead><tr>");
    for h in header {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in rows {
        out.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let class = if i == 0 { "" } else { " class=\"n\"" };
            let _ = write!(out, "<td{class}>{}</td>", escape(c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The SVG text of `file` in `dir`, ready to inline: the XML namespace dropped (HTML knows
/// inline SVG; the namespace URL is the only address the file holds) and labelled for screen
/// readers.
fn inline_svg(dir: &Path, p: &Plot) -> Result<String, RunError> {
    let path = dir.join(&p.file);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| RunError::runtime(format!("cannot read {}: {e}", path.display())))?;
    let text = text.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "");
    let label = format!("<svg role=\"img\" aria-label=\"{}\"", escape(&p.caption));
    Ok(text.replacen("<svg", &label, 1))
}

fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(title),
        escape(title)
    );
}

fn scenario(out: &mut String, info: &Info, extra: &[(&str, String)]) {
    out.push_str("<h2>Scenario</h2>\n<dl>\n");
    let slot = info.slot_seconds.map_or_else(
        || "not recorded in the scenario document".to_string(),
        |s| format!("{} s", super::number::csv(s)),
    );
    let mut items: Vec<(&str, String)> = vec![
        ("source", info.source.clone()),
        ("kind", info.kind.clone()),
        ("jobs", info.jobs.to_string()),
        ("servers", info.servers.clone()),
    ];
    if let Some(t) = info.slots {
        items.push(("horizon", format!("{t} slots")));
        items.push(("slot length", slot));
    }
    let unit = mlsched_scenario::metrics::of(&info.kind).jct_unit_long;
    items.push(("JCT unit", unit.into()));
    items.extend(extra.iter().cloned());
    for (k, v) in items {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v));
    }
    out.push_str("</dl>\n");
}

fn plots(out: &mut String, dir: &Path, plots: &[Plot]) -> Result<(), RunError> {
    out.push_str("<h2>Plots</h2>\n");
    if plots.is_empty() {
        out.push_str("<p class=\"note\">No plot: no policy produced data to draw.</p>\n");
    }
    for p in plots {
        let _ = write!(
            out,
            "<figure id=\"{}\">\n{}<figcaption>{} ({})</figcaption>\n</figure>\n",
            escape(&p.file),
            inline_svg(dir, p)?,
            escape(&p.caption),
            escape(&p.file)
        );
    }
    Ok(())
}

fn reproduce(out: &mut String, info: &Info, note: &str) {
    out.push_str("<h2>Reproduce</h2>\n<p>The comparison");
    out.push_str(note);
    out.push_str(":</p>\n<pre>");
    out.push_str(&escape(&info.command));
    out.push_str(
        "</pre>\n<p>Each policy alone (same decisions, same <code>log_hash</code>):</p>\n<pre>",
    );
    out.push_str(&escape(&info.run_commands.join("\n")));
    out.push_str("</pre>\n");
}

/// The legend of the columns in `header` (from [`table::LEGEND`], the text of `--help`).
fn legend(out: &mut String, header: &[String]) {
    out.push_str("<h3>Columns</h3>\n<dl class=\"legend\">\n");
    for (name, meaning) in table::legend_for(header) {
        let _ = writeln!(
            out,
            "<dt>{}</dt><dd>{}</dd>",
            escape(&name),
            escape(&meaning)
        );
    }
    let _ = writeln!(
        out,
        "</dl>\n<p class=\"note\">{}</p>",
        escape(&table::legend_notes())
    );
}

fn write(path: &Path, text: &str) -> Result<(), RunError> {
    std::fs::write(path, text)
        .map_err(|e| RunError::runtime(format!("cannot write {}: {e}", path.display())))
}

/// The report of one comparison (`compare --out DIR`).
pub fn write_compare(
    path: &Path,
    dir: &Path,
    info: &Info,
    reports: &[PolicyReport],
    plotted: &[Plot],
) -> Result<(), RunError> {
    let mut o = String::new();
    head(&mut o, &format!("mlsched compare: {}", info.source));
    scenario(&mut o, info, &[]);
    o.push_str("<h2>Results</h2>\n");
    let (header, rows) = table::rows(&info.kind, reports);
    html_table(&mut o, &header, &rows);
    let columns = header;
    for f in table::failures(reports) {
        let _ = writeln!(o, "<p class=\"note\">{}</p>", escape(&f));
    }
    if reports.iter().any(|r| r.timing.is_some()) {
        o.push_str(
            "<p class=\"note\">p50 us and p99 us are wall-clock measurements of this run and \
             differ from run to run; everything else is reproducible bit for bit.</p>\n",
        );
    }
    let views = mlsched_scenario::metrics::of(&info.kind).views;
    if views.contains(&mlsched_scenario::metrics::View::Placement) {
        placement_choice(&mut o, reports);
    }
    legend(&mut o, &columns);
    plots(&mut o, dir, plotted)?;
    reproduce(&mut o, info, "");
    o.push_str("</body>\n</html>\n");
    write(path, &o)
}

/// Placement: the category each policy chose (K_i per job).
fn placement_choice(o: &mut String, reports: &[PolicyReport]) {
    let rows: Vec<Vec<String>> = reports
        .iter()
        .filter(|r| !r.plot.chosen_category.is_empty())
        .map(|r| {
            let k: Vec<String> = r.plot.chosen_category.iter().map(u32::to_string).collect();
            vec![r.metrics.policy.clone(), format!("[{}]", k.join(", "))]
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    o.push_str("<p>Chosen category (K_i, workers of each GPU type per job, in job order):</p>\n");
    html_table(o, &["policy".into(), "category".into()], &rows);
}

/// The report of a sweep (`compare --seeds A..B --out DIR`, and `mlsched merge`, whose page is
/// byte-identical to the unsharded run's).
pub fn write_sweep(
    path: &Path,
    dir: &Path,
    info: &Info,
    sw: &Sweep,
    plotted: &[Plot],
) -> Result<(), RunError> {
    let mut o = String::new();
    head(&mut o, &format!("mlsched compare sweep: {}", info.source));
    let seeds = match (sw.per_seed.first(), sw.per_seed.last()) {
        (Some(a), Some(b)) => format!("{}..{} ({} seeds)", a.seed, b.seed, sw.per_seed.len()),
        _ => "none".into(),
    };
    scenario(
        &mut o,
        info,
        &[
            ("seeds", seeds),
            (
                "summary of",
                "the first seed's scenario (each seed imports its own trace window)".into(),
            ),
        ],
    );
    o.push_str("<h2>Results: mean ± 95% confidence interval over the seeds</h2>\n");
    let (header, rows) = table::sweep_rows(&info.kind, sw);
    html_table(&mut o, &header, &rows);
    legend(&mut o, &header);
    plots(&mut o, dir, plotted)?;
    o.push_str("<h2>Per seed</h2>\n<details>\n<summary>Every run</summary>\n");
    let per: Vec<Vec<String>> = sw
        .per_seed
        .iter()
        .flat_map(|r| {
            r.metrics.iter().map(move |m| {
                let c = super::number::csv_opt;
                vec![
                    r.seed.to_string(),
                    m.policy.clone(),
                    m.status.clone(),
                    c(m.total_utility),
                    c(m.total_weighted_completion_time),
                    c(m.weighted_jct),
                    c(m.avg_jct),
                    m.finished.to_string(),
                    m.log_hash.clone(),
                ]
            })
        })
        .collect();
    let header: Vec<String> = [
        "seed",
        "policy",
        "status",
        "utility",
        "w.compl.time",
        "w.JCT",
        "avg JCT",
        "finished",
        "log_hash",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    html_table(&mut o, &header, &per);
    o.push_str("</details>\n");
    reproduce(
        &mut o,
        info,
        " (add <code>--out DIR</code> for these files; <code>--shard I/N</code> on N machines \
         and <code>mlsched merge</code> give the same files)",
    );
    o.push_str("</body>\n</html>\n");
    write(path, &o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn quoting_and_commands() {
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("import:philly"), "import:philly");
        let args = s(&[
            "compare",
            "import:philly",
            "--jobs",
            "12",
            "--seeds",
            "1..3",
            "--shard=0/2",
            "--out",
            "d",
            "--policies",
            "online,fifo",
            "--seed",
            "9",
            "--quiet",
        ]);
        let mut i = Info::default();
        set_commands(&mut i, &args, "import:philly", &s(&["online"]), Some(1));
        assert_eq!(
            i.command,
            "mlsched compare import:philly --jobs 12 --seeds 1..3 --policies online,fifo --seed 9"
        );
        assert_eq!(
            i.run_commands,
            s(&[
                "mlsched import philly --jobs 12 --seed 1 -o scenario-seed-1.json",
                "mlsched run scenario-seed-1.json --policy online --json online.json"
            ])
        );
        assert_eq!(
            escape("<a href=\"x\">&"),
            "&lt;a href=&quot;x&quot;&gt;&amp;"
        );
    }
}
