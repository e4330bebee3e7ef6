//! compare's report files through the built binary: per kind only the plots that mean
//! something, no SVG without drawn data, an `index.html` that needs no network and holds the
//! tables and every plot, CSV without float noise, and the sweep's report.
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mlsched"))
}

fn scenario(name: &str) -> String {
    format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mlsched-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ok(args: &[&str]) -> String {
    let o = bin().args(args).output().expect("spawn mlsched");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{args:?}\nstdout {out}\nstderr {err}");
    out
}

fn files(dir: &Path, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(ext))
        .collect();
    v.sort();
    v
}

/// The series colours of the plots (plot.rs's palette), as SVG writes them.
const PALETTE: [&str; 10] = [
    "#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#7F7F7F",
    "#BCBD22", "#17BECF",
];

/// Data marks of an SVG: bars (rects filled with a series colour), lines (polylines stroked
/// with one) and dots, less the legend's swatches (one rect per legend entry).
fn data_marks(svg: &str) -> usize {
    let coloured = |tag: &str, attr: &str| {
        svg.split('<')
            .filter(|e| e.starts_with(tag))
            .filter(|e| {
                PALETTE.iter().any(|c| {
                    e.to_uppercase()
                        .contains(&format!("{attr}=\"{c}\"").to_uppercase())
                })
            })
            .count()
    };
    let rects = coloured("rect", "fill");
    let lines = coloured("polyline", "stroke") + coloured("path", "stroke");
    let dots = coloured("circle", "fill");
    // Legend entries are the text elements right of a swatch; bars-only charts have none.
    let legend = if lines + dots > 0 { rects } else { 0 };
    rects + lines + dots - legend
}

/// The number of significant digits of a CSV number (sign, point and leading and trailing
/// zeros not counted).
fn significant(cell: &str) -> usize {
    let digits: String = cell.chars().filter(char::is_ascii_digit).collect();
    let mantissa = digits.trim_start_matches('0');
    let mantissa = if cell.contains('.') {
        mantissa.trim_end_matches('0')
    } else {
        mantissa
    };
    mantissa.len()
}

fn assert_no_float_noise(csv: &str, what: &str) {
    let mut rows = csv.lines();
    let header: Vec<&str> = rows.next().unwrap().split(',').collect();
    for row in rows {
        for (h, c) in header.iter().zip(row.split(',')) {
            if *h == "log_hash" || c.parse::<f64>().is_err() {
                continue;
            }
            assert!(
                significant(c) <= 12 && !c.contains('e'),
                "{what}: column {h} has `{c}` (float noise or exponent)"
            );
        }
    }
}

/// Checks index.html: no network (no address, script, stylesheet link or external source),
/// the table with every policy, every SVG of the folder inlined, the reproduce commands.
fn assert_self_contained(dir: &Path, policies: &[&str]) -> String {
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let lower = html.to_lowercase();
    for bad in [
        "http", "<script", "<link", "src=", "@import", "url(", "<img",
    ] {
        assert!(!lower.contains(bad), "index.html holds `{bad}`");
    }
    assert!(html.contains("<table>") && html.contains("<style>"));
    for p in policies {
        assert!(html.contains(&format!("<td>{p}</td>")), "no row for {p}");
    }
    let svgs = files(dir, ".svg");
    assert!(!svgs.is_empty());
    assert_eq!(html.matches("<svg").count(), svgs.len(), "{svgs:?}");
    for f in &svgs {
        assert!(
            html.contains(&format!("<figure id=\"{f}\">")),
            "{f} not inlined"
        );
    }
    assert!(html.contains("mlsched compare"), "no compare command");
    assert!(html.contains("mlsched run "), "no run commands");
    html
}

#[test]
fn every_kind_writes_its_plots_a_self_contained_page_and_clean_csv() {
    let cases: [(&str, &[&str], &[&str]); 5] = [
        (
            "oasis-small",
            &["jct_cdf.svg", "utilisation.svg", "utility.svg"],
            &["oasis", "fifo"],
        ),
        (
            "online-ps-small",
            &[
                "jct_cdf.svg",
                "utilisation.svg",
                "weighted_completion_time.svg",
            ],
            &["online", "fifo"],
        ),
        (
            "placement-table2",
            &["categories.svg", "jct_per_job.svg"],
            &["placement", "optimus"],
        ),
        (
            "preempt-small",
            &["jct_cdf.svg", "worker_queues.svg"],
            &["preempt", "all-cloud"],
        ),
        (
            "route-small",
            &["network_cost.svg", "violation_rate.svg"],
            &["route", "fifo"],
        ),
    ];
    for (name, plots, policies) in cases {
        let dir = tmp(name);
        let out = ok(&[
            "compare",
            &scenario(name),
            "--no-timing",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(files(&dir, ".svg"), *plots, "{name}: {out}");
        for f in plots {
            let svg = std::fs::read_to_string(dir.join(f)).unwrap();
            assert!(data_marks(&svg) > 0, "{name}: {f} draws no data");
            assert!(svg.contains("<text"), "{name}: {f} has no labels");
        }
        let html = assert_self_contained(&dir, policies);
        let unit = if name.starts_with("placement") {
            "avg JCT (s)"
        } else if name.starts_with("route") {
            "violations %"
        } else {
            "avg JCT (slots)"
        };
        assert!(html.contains(unit), "{name}: no `{unit}` column");
        assert!(html.contains(&format!("run {} --policy", scenario(name))));
        let csv = std::fs::read_to_string(dir.join("compare.csv")).unwrap();
        assert_no_float_noise(&csv, name);
    }
}

#[test]
fn sweep_report_has_error_bars_and_a_self_contained_page() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let dir = tmp("sweep");
    ok(&[
        "compare",
        "import:philly",
        "--data",
        data.to_str().unwrap(),
        "--jobs",
        "20",
        "--servers",
        "4",
        "--seeds",
        "1..5",
        "--policies",
        "oasis,fifo,las",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let svgs = files(&dir, ".svg");
    assert!(svgs.contains(&"sweep_utility.svg".to_string()), "{svgs:?}");
    for f in &svgs {
        let svg = std::fs::read_to_string(dir.join(f)).unwrap();
        assert!(data_marks(&svg) > 0, "{f} draws no data");
        assert!(
            svg.contains("95% CI"),
            "{f}: title does not say what the bars are"
        );
    }
    let html = assert_self_contained(&dir, &["oasis", "fifo", "las"]);
    assert!(html.contains("1..5 (5 seeds)"));
    assert!(html.contains("mlsched import philly"), "no import command");
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    assert_no_float_noise(&csv, "sweep.csv");
}

#[test]
fn help_explains_every_column() {
    let out = ok(&["compare", "--help"]);
    for col in [
        "w.JCT",
        "avg JCT",
        "p50 us",
        "w.compl.time",
        "makespan",
        "violations %",
        "seconds",
        "slots",
    ] {
        assert!(out.contains(col), "`{col}` not explained in compare --help");
    }
}

#[test]
fn run_summaries_are_tables() {
    let out = ok(&["run", &scenario("oasis-small")]);
    assert!(out.lines().nth(1).unwrap().starts_with("| job "), "{out}");
    assert!(
        out.contains("| resnet-1 ") && out.contains("rejected ("),
        "{out}"
    );
    let out = ok(&["run", &scenario("online-ps-small")]);
    assert!(out.contains("| workers@server"), "{out}");
    assert!(
        out.contains("not scheduled") || out.contains("| j1 "),
        "{out}"
    );
    assert!(out.trim_end().ends_with(&format!(
        "log_hash {}",
        out.split("log_hash ").last().unwrap().trim()
    )));
}

/// `compare 'DIR/s-{seed}.json' --seeds A..B`: one scenario file per seed (here a bundled route
/// scenario with its seed changed), a sweep over them with route's own metrics plotted
/// (eq. (11) cost, N-bar, violation rate); a path without `{seed}` is still refused.
#[test]
fn sweep_over_seeded_scenario_files() {
    let dir = tmp("seeded");
    let text = std::fs::read_to_string(scenario("route-small")).unwrap();
    for seed in 1..=2 {
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["seed"] = serde_json::json!(seed);
        std::fs::write(dir.join(format!("s-{seed}.json")), v.to_string()).unwrap();
    }
    let out = dir.join("sweep");
    let template = dir.join("s-{seed}.json");
    ok(&[
        "compare",
        template.to_str().unwrap(),
        "--seeds",
        "1..2",
        "--no-timing",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("2,")), "{csv}");
    let svgs = files(&out, ".svg");
    for stem in ["cost", "avg_network_cost", "deadline_violation_rate"] {
        assert!(svgs.contains(&format!("sweep_{stem}.svg")), "{svgs:?}");
    }
    let o = bin()
        .args(["compare", &scenario("route-small"), "--seeds", "1..2"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("{seed}"));
}
