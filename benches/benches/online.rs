//! Zhou et al. A_online: a full run at the paper's defaults (T = 150, H = 150, 8 worker / 10 PS
//! types, 100 jobs; target <= 2 s), the fast search against the paper-literal listings and the
//! FIFO baseline in the same group on a small generated scenario (target >= 50x over the
//! listings), a scale case (1,000 servers, 500 jobs) with FIFO beside it, and long windows (an
//! openb slice with hour-long slots, windows of thousands of slots) with FIFO beside it.
//! Per-decision p50 / p99 on big scenario files: `examples/online_scale.rs`.
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use mlsched_kernel::baseline::online::OnlineBaseline;
use mlsched_kernel::baseline::Policy;
use mlsched_kernel::log::HashSink;
use mlsched_kernel::model::online::OnlineScenario;
use mlsched_kernel::online::{run_scenario, Search};
use mlsched_lab::gen::{online as gen, GenOptions};
use std::time::Duration;

fn scenario(jobs: u32, nodes: u32, ring: bool) -> OnlineScenario {
    let opts = GenOptions {
        seed: 1,
        jobs: Some(jobs),
        nodes: Some(nodes),
        trace: None,
        slots: None,
    };
    let mut doc = gen::generate(&opts).expect("generate");
    if ring {
        doc = gen::to_ring(doc);
    }
    doc.validate().expect("valid")
}

fn run(scn: &OnlineScenario, mode: Search) -> u32 {
    let mut n = 0;
    run_scenario(scn, mode, &mut |d| n += d.scheduled as u32).expect("run");
    n
}

fn fifo(scn: &OnlineScenario) -> u32 {
    let mut n = 0;
    let mut b = OnlineBaseline::new(Policy::Fifo, scn).expect("fifo");
    b.run(&mut HashSink::new(), &mut |_| n += 1).expect("run");
    n
}

fn full_run(c: &mut Criterion) {
    let mut g = c.benchmark_group("online/full run T=150 H=150 M=8 P=10 100 jobs");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for ring in [false, true] {
        let scn = scenario(100, 150, ring);
        let name = if ring { "ring fast" } else { "ps fast" };
        g.bench_function(name, |b| b.iter(|| black_box(run(&scn, Search::Fast))));
    }
    g.finish();
}

/// Both architectures in one group, so the report shows the four times side by side: the
/// ratios "ps literal" / "ps fast" and "ring literal" / "ring fast" are the targets.
fn fast_vs_literal(c: &mut Criterion) {
    let mut g = c.benchmark_group("online/fast vs literal T=150 H=12 M=8 (P=10 for ps) 8 jobs");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for ring in [false, true] {
        let scn = scenario(8, 12, ring);
        let arch = if ring { "ring" } else { "ps" };
        g.bench_function(format!("{arch} literal"), |b| {
            b.iter(|| black_box(run(&scn, Search::Reference)))
        });
        g.bench_function(format!("{arch} fast"), |b| {
            b.iter(|| black_box(run(&scn, Search::Fast)))
        });
        g.bench_function(format!("{arch} fifo"), |b| b.iter(|| black_box(fifo(&scn))));
    }
    g.finish();
}

/// Scale: 1,000 servers and 500 scarce jobs (a generated 2,000 x 2,000 run takes ~40 s, too long
/// for criterion samples: `examples/online_scale.rs` measures those), fast search and FIFO.
fn scale(c: &mut Criterion) {
    let mut g = c.benchmark_group("online/scale T=150 H=1000 M=8 P=10 500 jobs");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for ring in [false, true] {
        let scn = scenario(500, 1000, ring);
        let arch = if ring { "ring" } else { "ps" };
        g.bench_function(format!("{arch} fast"), |b| {
            b.iter(|| black_box(run(&scn, Search::Fast)))
        });
        g.bench_function(format!("{arch} fifo"), |b| b.iter(|| black_box(fifo(&scn))));
    }
    g.finish();
}

/// Long windows: the first 1,500 openb pods on 150 servers with 3,600-second slots (T = 23,664,
/// windows of up to 4,096 slots; docs/online.md "Long windows"), A_online PS and FIFO. Took
/// 32 s before the long-window work, about as long as FIFO after it.
fn long_windows(c: &mut Criterion) {
    use mlsched_lab::import::{import_json, ImportOptions, Source};
    let o = ImportOptions {
        kind: "online".into(),
        jobs: 1500,
        start: Some(0),
        servers: 150,
        slots: 0,
        slot_seconds: 3600.0,
        ..ImportOptions::default()
    };
    let text = import_json(Source::Openb, &o).expect("import openb");
    let doc: mlsched_scenario::kinds::online::doc::OnlineDoc =
        serde_json::from_str(&text).expect("parse");
    let scn = doc.validate().expect("valid");
    let mut g = c.benchmark_group("online/long windows openb 1500 pods H=150 3600-s slots");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("ps fast", |b| b.iter(|| black_box(run(&scn, Search::Fast))));
    g.bench_function("ps fifo", |b| b.iter(|| black_box(fifo(&scn))));
    g.finish();
}

criterion_group!(benches, full_run, fast_vs_literal, scale, long_windows);
criterion_main!(benches);
