//! `scale`: how mlsched's time and memory grow with servers, jobs and slots.
//!
//! `scale run` runs one scenario (a file, or one generated in memory with `--gen`) through the
//! engine façade event by event, timing every event, and prints one JSON line: build and run
//! seconds, per-decision latency percentiles (an event that logged a decision record), the peak
//! heap (a counting global allocator) and the process's peak RSS. `scale plot` reads those lines
//! and draws log-log curves (time and memory against servers, jobs and slots) as SVG, with the
//! least-squares slope of each curve in a Markdown table. `scripts/scale-sweep.sh` drives both;
//! `docs/scale.md` shows the results. No timing here is asserted anywhere.
use clap::{Parser, Subcommand};
use mlsched_kernel::api::Event;
use mlsched_kernel::log::LogSink;
use mlsched_lab::gen::GenOptions;
use mlsched_scenario::doc::ScenarioDoc;
use mlsched_scenario::engine::Engine;
use mlsched_scenario::run::RunOptions;
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The `mlsched` CLI's allocator ([`mlsched_hugepages::HugePages`]: large arrays on
/// transparent huge pages), counting live and peak bytes.
struct PeakAlloc;

static HUGE: mlsched_hugepages::HugePages = mlsched_hugepages::HugePages;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { HUGE.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // fresh zeroed pages stay untouched until used (the default would write them all)
        let p = unsafe { HUGE.alloc_zeroed(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { HUGE.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { HUGE.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                let now = LIVE.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static GLOBAL: PeakAlloc = PeakAlloc;

#[derive(Parser)]
#[command(about = "Scale measurements of mlsched (time and memory against size)")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run one scenario event by event and print one JSON line of measurements.
    Run(RunArgs),
    /// Draw log-log SVG curves and a slope table from `scale run` lines.
    Plot(PlotArgs),
}

#[derive(clap::Args)]
struct RunArgs {
    /// A scenario file (instead of --gen).
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// Generate the scenario in memory: oasis or online.
    #[arg(long)]
    gen: Option<String>,
    /// --gen online: ps or ring.
    #[arg(long, default_value = "ps")]
    arch: String,
    /// --gen: servers.
    #[arg(long)]
    servers: Option<u32>,
    /// --gen: jobs.
    #[arg(long)]
    jobs: Option<u32>,
    /// --gen: horizon T.
    #[arg(long)]
    slots: Option<u32>,
    /// --gen: seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A baseline instead of the kind's algorithm (fifo, drf, las, optimus).
    #[arg(long)]
    policy: Option<String>,
    /// A label copied into the output line (which sweep axis this point belongs to).
    #[arg(long, default_value = "")]
    axis: String,
}

#[derive(clap::Args)]
struct PlotArgs {
    /// The JSON lines of `scale run`.
    #[arg(long)]
    input: PathBuf,
    /// Directory for the SVGs and slopes.md.
    #[arg(long)]
    out: PathBuf,
}

fn main() {
    if let Err(e) = mlsched_hugepages::from_env() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Run(a) => run(&a),
        Cmd::Plot(a) => plot(&a),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn scenario(a: &RunArgs) -> Result<ScenarioDoc, String> {
    if let Some(p) = &a.scenario {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        return mlsched_scenario::doc::parse(&text).map_err(|e| e.to_string());
    }
    let o = GenOptions {
        seed: a.seed,
        jobs: a.jobs,
        nodes: a.servers,
        trace: None,
        slots: a.slots,
    };
    let kind = a
        .gen
        .as_deref()
        .ok_or("give --scenario FILE or --gen KIND")?;
    // The generators' own table says which kinds there are (`mlsched gen`).
    let text = mlsched_lab::gen::generate_json(kind, &o).map_err(|e| format!("--gen: {e}"))?;
    let text = match a.arch.as_str() {
        "ps" => text,
        // Only kind online has an architecture: another kind's document is not an online one.
        "ring" => {
            let d: mlsched_scenario::kinds::online::doc::OnlineDoc = serde_json::from_str(&text)
                .map_err(|_| format!("--arch ring applies to --gen online, not `{kind}`"))?;
            serde_json::to_string(&mlsched_lab::gen::online::to_ring(d))
                .map_err(|e| e.to_string())?
        }
        x => return Err(format!("--arch: `{x}` is not ps or ring")),
    };
    mlsched_scenario::doc::parse(&text).map_err(|e| e.to_string())
}

/// Peak resident set of this process (VmHWM), bytes; 0 where /proc is missing.
fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// (label, worker servers, jobs, slots) of `d`; `other` for a kind the sweep does not measure.
fn shape(d: &ScenarioDoc) -> (String, usize, usize, u64) {
    match mlsched_lab::kinds::shape(d) {
        Some(s) => (s.label, s.servers, s.jobs, s.slots),
        None => ("other".into(), 0, 0, 0),
    }
}

fn run(a: &RunArgs) -> Result<(), String> {
    let d = scenario(a)?;
    let (kind, servers, jobs, slots) = shape(&d);
    let opts = RunOptions {
        policy: a.policy.clone(),
        ..RunOptions::default()
    };
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    let heap_before = LIVE.load(Ordering::Relaxed);
    let t0 = Instant::now();
    let mut e = Engine::from_doc_hashed(&d, &opts).map_err(|e| e.to_string())?;
    let build_s = t0.elapsed().as_secs_f64();
    let order: Vec<(u32, u32)> = e.arrival_order().to_vec();
    let mut lat: Vec<f64> = Vec::with_capacity(order.len());
    let mut step = |e: &mut Engine, now: u32, ev: Event<u32>| -> Result<(), String> {
        let before = e.sink().hash().records();
        let t = Instant::now();
        e.step(now, ev).map_err(|x| x.to_string())?;
        let dt = t.elapsed().as_secs_f64();
        // More than the event's own record: the event caused a decision.
        if e.sink().hash().records() > before + 1 {
            lat.push(dt);
        }
        Ok(())
    };
    // The documented event order (docs/engine.md), as Engine::run_to_end feeds it.
    let t1 = Instant::now();
    let mut next = 0usize;
    let mut now = earliest(order.first().map(|a| a.0), e.next_wakeup());
    while let Some(t) = now {
        while let Some(&(at, j)) = order.get(next).filter(|a| a.0 <= t) {
            let _ = at;
            step(&mut e, t, Event::JobArrived(j))?;
            next += 1;
        }
        step(&mut e, t, Event::SlotAdvanced)?;
        let wake = e.next_wakeup().map(|w| w.max(t + 1));
        let arr = order.get(next).map(|a| a.0.max(t + 1));
        now = earliest(arr, wake);
    }
    let result = e.finish(&mut |_| {}).map_err(|x| x.to_string())?;
    let run_s = t1.elapsed().as_secs_f64();
    lat.sort_by(f64::total_cmp);
    let summary: serde_json::Map<String, Value> = match serde_json::to_value(&result) {
        Ok(Value::Object(m)) => m
            .into_iter()
            .filter(|(_, v)| v.is_number() || v.is_string())
            .collect(),
        _ => Default::default(),
    };
    let line = json!({
        "axis": a.axis,
        "kind": kind,
        "policy": a.policy.clone().unwrap_or_else(|| e.policy().to_string()),
        "servers": servers,
        "jobs": jobs,
        "slots": slots,
        "build_s": build_s,
        "run_s": run_s,
        "decisions": lat.len(),
        "p50_ms": percentile(&lat, 0.50) * 1e3,
        "p99_ms": percentile(&lat, 0.99) * 1e3,
        "max_ms": lat.last().copied().unwrap_or(0.0) * 1e3,
        "peak_heap_bytes": PEAK.load(Ordering::Relaxed).saturating_sub(heap_before),
        "peak_rss_bytes": peak_rss(),
        "log_hash": e.sink().hash().hex().as_str(),
        "result": summary,
    });
    println!("{line}");
    Ok(())
}

fn earliest(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// Least-squares slope of log10(y) against log10(x).
fn slope(pts: &[(f64, f64)]) -> Option<f64> {
    let v: Vec<(f64, f64)> = pts
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.log10(), y.log10()))
        .collect();
    if v.len() < 2 {
        return None;
    }
    let n = v.len() as f64;
    let (mx, my) = (
        v.iter().map(|p| p.0).sum::<f64>() / n,
        v.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = v.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = v.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn plot(a: &PlotArgs) -> Result<(), String> {
    use plotters::prelude::*;
    let text =
        std::fs::read_to_string(&a.input).map_err(|e| format!("{}: {e}", a.input.display()))?;
    let rows: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{}: {e}", a.input.display())))
        .collect::<Result<_, _>>()?;
    std::fs::create_dir_all(&a.out).map_err(|e| e.to_string())?;
    let mut table = String::from(
        "| kind | axis | policy | points | time slope | peak heap slope |\n|---|---|---|---|---|---|\n",
    );
    let mut groups: Vec<(String, String)> = rows
        .iter()
        .filter(|r| !r["axis"].as_str().unwrap_or("").is_empty())
        .map(|r| {
            (
                r["kind"].as_str().unwrap_or("").to_string(),
                r["axis"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    groups.sort();
    groups.dedup();
    for (kind, axis) in &groups {
        let pick: Vec<&Value> = rows
            .iter()
            .filter(|r| r["kind"] == kind.as_str() && r["axis"] == axis.as_str())
            .collect();
        let mut policies: Vec<String> = pick
            .iter()
            .map(|r| r["policy"].as_str().unwrap_or("").to_string())
            .collect();
        policies.sort();
        policies.dedup();
        let xs = |r: &Value| r[axis.as_str()].as_f64().unwrap_or(0.0);
        for (metric, label, file, unit) in [
            ("run_s", "run time (s)", "time", 1.0),
            ("peak_heap_bytes", "peak heap (MiB)", "heap", 1048576.0),
        ] {
            let path = a.out.join(format!("{kind}-{axis}-{file}.svg"));
            // Each metric in the unit its label names (bytes are drawn as MiB).
            let y_of = |r: &Value| r[metric].as_f64().map(|v| v / unit);
            let ys: Vec<f64> = pick.iter().filter_map(|r| y_of(r)).collect();
            let xv: Vec<f64> = pick.iter().map(|r| xs(r)).collect();
            let (x0, x1) = bounds(&xv);
            let (y0, y1) = bounds(&ys);
            // Ticks where a reader looks for them: at the sizes measured on x, at 1-2-5
            // steps on y; no light lines (a log axis's default ones crowd into bands).
            let mut xticks: Vec<f64> = xv.iter().copied().filter(|x| *x > 0.0).collect();
            xticks.sort_by(f64::total_cmp);
            xticks.dedup();
            let yticks = ticks_125(y0, y1);
            let root = SVGBackend::new(&path, (640, 420)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let mut chart = ChartBuilder::on(&root)
                .caption(
                    format!("{kind}: {label} vs {axis} (log-log)"),
                    ("sans-serif", 18),
                )
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(60)
                .build_cartesian_2d(
                    (x0..x1).log_scale().with_key_points(xticks),
                    (y0..y1).log_scale().with_key_points(yticks),
                )
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .x_desc(axis.as_str())
                .y_desc(label)
                .x_label_formatter(&|v| tick_label(*v))
                .y_label_formatter(&|v| tick_label(*v))
                .bold_line_style(BLACK.mix(0.12))
                .light_line_style(TRANSPARENT)
                .draw()
                .map_err(|e| e.to_string())?;
            for (i, p) in policies.iter().enumerate() {
                let mut pts: Vec<(f64, f64)> = pick
                    .iter()
                    .filter(|r| r["policy"] == p.as_str())
                    .filter_map(|r| Some((xs(r), y_of(r)?)))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                let c = Palette99::pick(i).to_rgba();
                let s = slope(&pts);
                chart
                    .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                    .map_err(|e| e.to_string())?
                    .label(match s {
                        Some(s) => format!("{p} (slope {s:.2})"),
                        None => p.clone(),
                    })
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c));
                chart
                    .draw_series(pts.iter().map(|&(x, y)| Circle::new((x, y), 3, c.filled())))
                    .map_err(|e| e.to_string())?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .border_style(BLACK)
                .background_style(WHITE.mix(0.8))
                .draw()
                .map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())?;
        }
        for p in &policies {
            let pts = |m: &str| -> Vec<(f64, f64)> {
                pick.iter()
                    .filter(|r| r["policy"] == p.as_str())
                    .filter_map(|r| Some((xs(r), r[m].as_f64()?)))
                    .collect()
            };
            let f = |s: Option<f64>| s.map_or("-".into(), |s| format!("{s:.2}"));
            table.push_str(&format!(
                "| {kind} | {axis} | {p} | {} | {} | {} |\n",
                pts("run_s").len(),
                f(slope(&pts("run_s"))),
                f(slope(&pts("peak_heap_bytes")))
            ));
        }
    }
    std::fs::write(a.out.join("slopes.md"), &table).map_err(|e| e.to_string())?;
    print!("{table}");
    Ok(())
}

/// Log-axis bounds around `v` (a decade's margin is too much; 20 % either side).
fn bounds(v: &[f64]) -> (f64, f64) {
    let pos: Vec<f64> = v.iter().copied().filter(|x| *x > 0.0).collect();
    let lo = pos.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = pos.iter().copied().fold(0.0, f64::max);
    if !lo.is_finite() || hi <= 0.0 {
        return (1.0, 10.0);
    }
    (lo / 1.25, hi * 1.25)
}

/// The values m 10^k (m in 1, 2, 5) within [lo, hi]: the ticks of a log axis.
fn ticks_125(lo: f64, hi: f64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut k = lo.log10().floor() as i32;
    while 10f64.powi(k) <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(k);
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
        k += 1;
    }
    out
}

/// A tick's label: below 1 compare's tick label (no float noise: 0.05, 0.3), from 1 on the
/// whole number, thousands separated (12,500), since every tick here is a size or a 1-2-5 step.
fn tick_label(v: f64) -> String {
    if v < 1.0 {
        return mlsched_lab::compare::number::tick(v);
    }
    let digits = format!("{:.0}", v);
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_1_2_5_steps_inside_the_range() {
        assert_eq!(ticks_125(0.016, 0.6), vec![0.02, 0.05, 0.1, 0.2, 0.5]);
        assert_eq!(ticks_125(3.0, 120.0), vec![5.0, 10.0, 20.0, 50.0, 100.0]);
        assert!(ticks_125(3.0, 4.0).is_empty());
    }

    #[test]
    fn tick_labels_are_short_and_exact() {
        let labels: Vec<String> = [0.05, 0.2, 1.0, 5.0, 125.0, 12_500.0, 1_048_576.0]
            .iter()
            .map(|v| tick_label(*v))
            .collect();
        assert_eq!(
            labels,
            ["0.05", "0.2", "1", "5", "125", "12,500", "1,048,576"]
        );
        // 3 x 0.1 is 0.30000000000000004 in binary: the label still says 0.3.
        assert_eq!(tick_label(3.0 * 0.1), "0.3");
    }

    #[test]
    fn slope_of_a_power_law_is_its_exponent() {
        let pts: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0]
            .iter()
            .map(|&x| (x, 3.0 * x * x))
            .collect();
        assert!((slope(&pts).unwrap() - 2.0).abs() < 1e-12);
        assert_eq!(slope(&pts[..1]), None);
    }

    #[test]
    fn plot_writes_svgs_with_the_slopes() {
        let dir = std::env::temp_dir().join(format!("mlsched-scale-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("points.jsonl");
        let mut lines = String::new();
        for (policy, k) in [("fifo", 1.0), ("oasis", 2.0)] {
            for servers in [125.0f64, 250.0, 500.0] {
                lines.push_str(&format!(
                    "{}\n",
                    json!({"kind": "oasis", "axis": "servers", "policy": policy,
                           "servers": servers, "run_s": 0.001 * servers.powf(k),
                           "peak_heap_bytes": 1_048_576.0 * servers})
                ));
            }
        }
        std::fs::write(&input, lines).unwrap();
        let out = dir.join("out");
        plot(&PlotArgs {
            input,
            out: out.clone(),
        })
        .unwrap();
        let slopes = std::fs::read_to_string(out.join("slopes.md")).unwrap();
        assert!(
            slopes.contains("| oasis | servers | fifo | 3 | 1.00 | 1.00 |"),
            "{slopes}"
        );
        assert!(
            slopes.contains("| oasis | servers | oasis | 3 | 2.00 | 1.00 |"),
            "{slopes}"
        );
        let svg = std::fs::read_to_string(out.join("oasis-servers-heap.svg")).unwrap();
        // A tick at each size measured, none between them (the SVG puts a text on its own line).
        let texts: Vec<&str> = svg.lines().filter(|l| !l.starts_with('<')).collect();
        assert!(texts.contains(&"peak heap (MiB)"), "{svg}");
        for x in ["125", "250", "500"] {
            assert!(texts.contains(&x), "tick {x}: {texts:?}");
        }
        assert!(!texts.contains(&"300"), "{texts:?}");
        assert!(svg.contains("oasis (slope 1.00)"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
