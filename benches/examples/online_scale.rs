//! Per-decision timings of A_online (fast search) on a big scenario, for `docs/online.md`'s
//! scale numbers (timings are measured here, never asserted in tests).
//!
//! ```text
//! cargo run --release -p mlsched-benches --example online_scale -- FILE.json [--ring]
//! ```
//!
//! FILE is a kind "online" scenario document (`mlsched gen online ...` or
//! `mlsched import ... --kind online`); `--ring` converts it to Ring-AllReduce the way
//! `gen::online::to_ring` does. One A_maxweight decision is timed from the previous decision's
//! output to its own (the first decision of a window includes building the window's scratch),
//! in wall time and in the thread's CPU time: on a shared machine a niced run waits for a core
//! much of the time, and only the CPU time says what a decision costs.
//! Prints decisions, scheduled, total time, p50 / p99 / max per decision (wall, then CPU).
//! `ONLINE_SCALE_TIMES=OUT` also writes one line per decision to OUT (a header first): its
//! number, CPU ms, round i, iota, feasible, scheduled, q (colocated), duration and job, to
//! see which rounds the slowest decisions fall in (`docs/online.md`, "Contiguous block floors").
use mlsched_benches::thread_cpu_ms;
use mlsched_kernel::online::{run_scenario, Search};
use mlsched_lab::gen::online as gen;
use mlsched_scenario::kinds::online::doc::OnlineDoc;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .expect("usage: FILE [--ring]");
    let ring = args.iter().any(|a| a == "--ring");
    let text = std::fs::read_to_string(path).expect("read scenario");
    let mut doc: OnlineDoc = serde_json::from_str(&text).expect("parse scenario");
    if ring {
        doc = gen::to_ring(doc);
    }
    let scn = doc.validate().expect("valid scenario");
    let mut times: Vec<f64> = Vec::with_capacity(scn.jobs.len() * 4);
    let mut cpu: Vec<f64> = Vec::with_capacity(scn.jobs.len() * 4);
    let mut scheduled = 0u64;
    let mut what: Vec<[u32; 7]> = Vec::with_capacity(scn.jobs.len() * 4);
    let (start, cpu0) = (Instant::now(), thread_cpu_ms());
    let (mut last, mut last_cpu) = (Instant::now(), thread_cpu_ms());
    run_scenario(&scn, Search::Fast, &mut |d| {
        let (now, now_cpu) = (Instant::now(), thread_cpu_ms());
        times.push(now.duration_since(last).as_secs_f64() * 1e3);
        cpu.push(now_cpu - last_cpu);
        (last, last_cpu) = (now, now_cpu);
        scheduled += d.scheduled as u64;
        what.push([
            d.round,
            d.iota,
            d.feasible as u32,
            d.scheduled as u32,
            d.colocated as u32,
            d.duration,
            d.job,
        ]);
        if times.len() % 5000 == 0 {
            // Progress on stderr, so a run stopped early still says how far it got.
            eprintln!(
                "{} decisions ({} scheduled) in {:.1} s wall, {:.1} s CPU: {}; CPU {}",
                times.len(),
                scheduled,
                start.elapsed().as_secs_f64(),
                (thread_cpu_ms() - cpu0) / 1e3,
                quantiles(&times),
                quantiles(&cpu)
            );
        }
    })
    .expect("run");
    if let Ok(out) = std::env::var("ONLINE_SCALE_TIMES") {
        write_times(&out, &cpu, &what).expect("write ONLINE_SCALE_TIMES");
    }
    println!(
        "servers {} jobs {} slots {} arch {}: decisions {} scheduled {} total {:.2} s wall \
         {:.2} s CPU; per decision {}; CPU {}",
        scn.servers.len(),
        scn.jobs.len(),
        scn.slots,
        if ring { "ring" } else { "ps" },
        times.len(),
        scheduled,
        start.elapsed().as_secs_f64(),
        (thread_cpu_ms() - cpu0) / 1e3,
        quantiles(&times),
        quantiles(&cpu)
    );
}

/// One line per decision: number, CPU ms, then `what` (round, iota, feasible, scheduled,
/// colocated, duration, job).
fn write_times(out: &str, cpu: &[f64], what: &[[u32; 7]]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
    writeln!(
        f,
        "decision cpu_ms round iota feasible scheduled colocated duration job"
    )?;
    for (i, (c, w)) in cpu.iter().zip(what).enumerate() {
        let rest: Vec<String> = w.iter().map(|x| x.to_string()).collect();
        writeln!(f, "{i} {c:.4} {}", rest.join(" "))?;
    }
    f.flush()
}

/// "p50 A ms p99 B ms max C ms" of per-decision times in ms (nearest rank on a sorted copy).
fn quantiles(ms: &[f64]) -> String {
    let mut v = ms.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |p: f64| {
        v.get(((v.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    format!(
        "p50 {:.3} ms p99 {:.3} ms max {:.3} ms",
        at(0.5),
        at(0.99),
        at(1.0)
    )
}
