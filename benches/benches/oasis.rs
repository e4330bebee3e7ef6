//! OASiS (Bao et al. 2018, Alg. 2): the exact fast DP against the paper-literal DP on one job
//! (T = 60, D = E N = 2,000 chunks, H = K = 50, on a cluster already loaded by 30 admitted or
//! rejected jobs), and the per-decision latency over 1,000 generated jobs at the paper's
//! defaults (T = 300, H = K = 50, R = 5), reported as median / p99 / max.
//!
//! Then, in the same run: whole runs of OASiS (the fast path) and of the FIFO baseline on the
//! same generated scenario, and a scale case: per-decision latency on a generated 12,500-node
//! cluster (T = 100,000 slots) -- or on any OASiS scenario file named by `OASIS_SCALE_SCENARIO`
//! (e.g. `mlsched gen oasis --nodes 12500 --jobs 100000 --slots 100000 -o big.json`), which
//! times every decision of the whole run (p50 / p99 / max / total); `OASIS_SCALE_LIMIT=n` times
//! only the first n, and `OASIS_SCALE_SLOWEST=n` lists the n slowest with what they did.
//! `OASIS_SCALE_SWEEP=1` decides without the slot trees (`docs/oasis.md`, "The slot trees"):
//! the sweep of the time-major copy, same decisions, to compare both in one build.
//! `OASIS_SCALE_SPLIT=1` also decides each job once more before its timed decision, without
//! committing (untimed for the run's figures), and reports, over the decisions from the
//! 98.5th to the 99.5th percentile, the average time of the decision with its commit against
//! the decision alone (the dry run warms the caches: its figures are a little optimistic).
//!
//! `cargo bench -p mlsched-benches --bench oasis -- --warm-up-time 1 --measurement-time 3`
use criterion::{black_box, Criterion};
use mlsched_benches::thread_cpu_ms;
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::oasis::{OasisJob, OasisScenario, Utility};
use mlsched_kernel::oasis::fast::{DpSize, FastDp};
use mlsched_kernel::oasis::{reference, JobParams, OasisScheduler};
use mlsched_lab::gen::GenOptions;
use std::time::Instant;

fn generated(seed: u64, jobs: u32, slots: u32) -> OasisScenario {
    let mut doc = mlsched_lab::gen::oasis::generate(&GenOptions {
        seed,
        jobs: Some(jobs),
        ..GenOptions::default()
    })
    .expect("generates");
    doc.slots = slots as f64;
    for j in &mut doc.jobs {
        j.arrival = j.arrival.min(slots as f64 - 1.0);
    }
    doc.validate().expect("valid")
}

/// A loaded T = 60 cluster and one job with D = 2,000 chunks that fits in about 30 slots.
fn comparison_case() -> (OasisScheduler, JobParams, Utility, OasisScenario, OasisJob) {
    let mut scn = generated(7, 30, 60);
    let mut job: OasisJob = scn.jobs[0].clone();
    job.arrival = 59;
    job.epochs = 100;
    job.chunks = 20;
    job.minibatches_per_chunk = 10;
    job.minibatch_time = 0.025;
    job.comm_time = 0.0025;
    job.worker_demand =
        mlsched_kernel::ResourceVec::from_slice(&[1.0, 4.0, 8.0, 5.0, 1.0]).unwrap();
    job.utility = Utility::Sigmoid {
        priority: 100.0,
        decay: 0.05,
        target: 30.0,
    };
    scn.jobs.push(job.clone());
    let mut s = OasisScheduler::new(&scn).expect("builds");
    for idx in s.arrival_order() {
        if idx as usize == scn.jobs.len() - 1 {
            break;
        }
        let a = scn.jobs[idx as usize].arrival;
        s.decide(a, idx).expect("decides");
    }
    s.settle(); // the comparisons decide on its market
    let mut p = JobParams::of(&job);
    p.arrival = 0; // decide it as if it arrived at slot 0 on the loaded cluster
    let mut j0 = job.clone();
    j0.arrival = 0;
    (s, p, job.utility, scn, j0)
}

fn fast_vs_literal(c: &mut Criterion) {
    let (s, p, f, scn, j0) = comparison_case();
    let m = s.market();
    let size = FastDp::size_of(m, &p, &f).expect("needs a DP");
    let mut dp = FastDp::new(size);
    let fast = dp.decide(m, 0, &p, &f).unwrap();
    // The literal DP on its own market, with the fast market's usage copied in.
    let mut rm = reference::RefMarket::new(&scn).expect("bounds");
    rm.set_usage(
        |t, h, r| m.workers.usage(t, h, r),
        |t, k, r| m.ps.usage(t, k, r),
    );
    let lit = reference::decide(&rm, &j0).decision;
    assert!((fast.payoff - lit.payoff).abs() <= 1e-9 * fast.payoff.abs().max(1.0));
    println!(
        "comparison job: D = {}, t_hat = {:?}, payoff {:.6} (fast) vs {:.6} (literal), fast DP cells {}",
        p.workload, fast.completion_slot, fast.payoff, lit.payoff, dp.cells
    );
    let mut g = c.benchmark_group("oasis/decide T=60 D=2000 H=K=50");
    g.sample_size(10);
    g.bench_function("literal DP (reference)", |b| {
        b.iter(|| black_box(reference::decide(&rm, &j0).decision))
    });
    g.bench_function("fast DP", |b| {
        b.iter(|| black_box(dp.decide(m, 0, &p, &f).unwrap()))
    });
    g.finish();
}

fn paper_defaults_latency() {
    let scn = generated(1, 1000, 300);
    let t0 = Instant::now();
    let mut s = OasisScheduler::new(&scn).expect("builds");
    let build = t0.elapsed();
    // Each decision is timed once as it happens, and as the best of 3 repeats on clones of the
    // scheduler (same state, same work): the shared 2-core machine preempts single shots.
    let (mut once, mut best3, mut dp_best3) = (Vec::new(), Vec::new(), Vec::new());
    let mut admitted = 0;
    for idx in s.arrival_order() {
        let a = scn.jobs[idx as usize].arrival;
        let mut b = f64::INFINITY;
        for _ in 0..3 {
            let mut c = s.clone();
            let t = Instant::now();
            black_box(c.decide(a, idx).expect("decides"));
            b = b.min(t.elapsed().as_secs_f64() * 1e3);
        }
        let t = Instant::now();
        let d = s.decide(a, idx).expect("decides");
        once.push(t.elapsed().as_secs_f64() * 1e3);
        best3.push(b);
        if s.last_work() > 0 {
            dp_best3.push(b);
        }
        admitted += d.admitted as u32;
    }
    let stats = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let q = |x: f64| {
            v.get(((v.len() as f64 - 1.0) * x).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        format!(
            "n {}: median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            v.len(),
            q(0.5),
            q(0.99),
            q(1.0)
        )
    };
    println!(
        "paper defaults (T=300, H=K=50, R=5, 1000 jobs, seed 1, derived prices): build {:.1} ms, \
         {admitted} admitted",
        build.as_secs_f64() * 1e3
    );
    println!("  per decision, single shot:      {}", stats(&mut once));
    println!("  per decision, best of 3:        {}", stats(&mut best3));
    println!("  decisions that ran the DP (b3): {}", stats(&mut dp_best3));
}

fn stats(v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    let q = |x: f64| {
        v.get(((v.len() as f64 - 1.0) * x).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    format!(
        "n {}: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms, total {:.2} s",
        v.len(),
        q(0.5),
        q(0.99),
        q(1.0),
        v.iter().sum::<f64>() / 1e3
    )
}

/// Every decision of `scn` timed once (reserve, DP, commit and the hash of its log records).
fn timed_run(label: &str, scn: &OasisScenario) {
    let t0 = Instant::now();
    let mut s = OasisScheduler::new(scn).expect("builds");
    let build = t0.elapsed();
    let mut ms = Vec::with_capacity(scn.jobs.len());
    let mut cpu = Vec::with_capacity(scn.jobs.len());
    let mut admitted = 0u32;
    // per decision: CPU ms, job, admitted, completion slot, DP cells (for OASIS_SCALE_SLOWEST)
    let mut each: Vec<(f64, u32, bool, Option<u32>, u64)> = Vec::new();
    // OASIS_SCALE_LIMIT=n: time only the first n decisions of the run (same state as the run).
    let limit = std::env::var("OASIS_SCALE_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    // The decision log's hash of the timed decisions: a faster path must print the same one.
    let mut sink = HashSink::new();
    // OASIS_SCALE_REPEAT=job:n: before deciding `job`, decide it n times more on the same
    // market without committing (untimed), so a profiler sees one slow decision many times.
    let repeat: Option<(u32, u32)> = std::env::var("OASIS_SCALE_REPEAT").ok().and_then(|v| {
        let (j, n) = v.split_once(':')?;
        Some((j.parse().ok()?, n.parse().ok()?))
    });
    if std::env::var("OASIS_SCALE_SWEEP").is_ok() {
        s.drop_grids();
    }
    let split = std::env::var("OASIS_SCALE_SPLIT").is_ok();
    let mut dry = split.then(|| {
        let empty = DpSize {
            slots: scn.slots as usize,
            workers: scn.worker_servers.len(),
            ps: scn.ps_servers.len(),
            ..Default::default()
        };
        let size = scn
            .jobs
            .iter()
            .filter_map(|j| FastDp::size_of(s.market(), &JobParams::of(j), &j.utility))
            .fold(empty, DpSize::max);
        FastDp::new(size)
    });
    let mut drys: Vec<(f64, f64)> = Vec::new();
    for idx in s.arrival_order().into_iter().take(limit) {
        let a = scn.jobs[idx as usize].arrival;
        if let Some((_, n)) = repeat.filter(|r| r.0 == idx) {
            s.settle();
            repeat_decision(&s, scn, idx, n);
        }
        let dry_ms = match dry.as_mut() {
            Some(dp) => {
                // the dry decision needs the slot trees settled (untimed here, so the timed
                // decision after it does not settle the last admission)
                s.settle();
                let j = &scn.jobs[idx as usize];
                let p = JobParams::of(j);
                let c = thread_cpu_ms();
                black_box(dp.decide(s.market(), idx, &p, &j.utility).expect("decides"));
                thread_cpu_ms() - c
            }
            None => 0.0,
        };
        let (t, c) = (Instant::now(), thread_cpu_ms());
        let d = s.decide_logged(a, idx, &mut sink).expect("decides");
        let c = thread_cpu_ms() - c;
        cpu.push(c);
        drys.push((c, dry_ms));
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        admitted += d.admitted as u32;
        each.push((c, idx, d.admitted, d.completion_slot, s.last_work()));
    }
    let m = s.market();
    println!(
        "{label}: H {} K {} T {}, {} jobs, {admitted} admitted; build {:.1} ms; slot trees {}; \
         decisions {}; market breakpoints {} + {}; decision log hash {}",
        m.workers.servers(),
        m.ps.servers(),
        m.slots(),
        scn.jobs.len(),
        build.as_secs_f64() * 1e3,
        if m.has_grids() { "kept" } else { "not kept" },
        stats(&mut ms),
        m.workers.breakpoints(),
        m.ps.breakpoints(),
        sink.hash().hex()
    );
    println!(
        "  the same decisions in thread CPU time: {}",
        stats(&mut cpu)
    );
    slowest(scn, &mut each);
    if split {
        drys.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = drys.len();
        let band = &drys[n * 985 / 1000..n * 995 / 1000];
        let (tt, dd) = band.iter().fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        let k = band.len().max(1) as f64;
        println!(
            "  p98.5-p99.5 band, {} decisions, CPU: {:.2} ms with the commit, {:.2} ms deciding",
            band.len(),
            tt / k,
            dd / k
        );
    }
}

/// Decides job `idx` `n` times on `s`'s market (as it stands before `idx`), without committing.
fn repeat_decision(s: &OasisScheduler, scn: &OasisScenario, idx: u32, n: u32) {
    let job = &scn.jobs[idx as usize];
    let p = JobParams::of(job);
    let Some(size) = FastDp::size_of(s.market(), &p, &job.utility) else {
        return;
    };
    let mut dp = FastDp::new(size);
    let c = thread_cpu_ms();
    for _ in 0..n {
        black_box(
            dp.decide(s.market(), idx, &p, &job.utility)
                .expect("decides"),
        );
    }
    println!(
        "  job {idx} decided {n} more times without commit: {:.2} ms CPU each, DP cells {}",
        (thread_cpu_ms() - c) / n.max(1) as f64,
        dp.cells
    );
}

/// OASIS_SCALE_SLOWEST=n: the n slowest decisions in CPU time, with what they did (arrival,
/// admitted and completion slot, DP cells written), to see what the tail is made of.
fn slowest(scn: &OasisScenario, each: &mut [(f64, u32, bool, Option<u32>, u64)]) {
    let n: usize = match std::env::var("OASIS_SCALE_SLOWEST").map(|v| v.parse()) {
        Ok(Ok(n)) => n,
        _ => return,
    };
    each.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(c, idx, adm, done, cells) in each.iter().take(n) {
        let j = &scn.jobs[idx as usize];
        println!(
            "  job {idx}: {c:.2} ms CPU, arrival {}, workload {} chunks, admitted {adm} \
             (completion {done:?}), DP cells {cells}",
            j.arrival,
            j.workload()
        );
    }
}

/// Whole runs, OASiS against FIFO, on the same scenario.
fn whole_runs(c: &mut Criterion) {
    use mlsched_kernel::baseline::{oasis::OasisBaseline, Policy};
    let scn = generated(1, 1000, 300);
    let fresh = OasisScheduler::new(&scn).expect("builds");
    let order = fresh.arrival_order();
    let mut g = c.benchmark_group("oasis/whole run T=300 H=K=50 1000 jobs");
    g.sample_size(10);
    g.bench_function("OASiS (fast DP, sparse market)", |b| {
        b.iter(|| {
            let mut s = fresh.clone();
            for &idx in &order {
                black_box(s.decide(scn.jobs[idx as usize].arrival, idx).unwrap());
            }
        })
    });
    g.bench_function("FIFO baseline", |b| {
        b.iter(|| {
            let mut f = OasisBaseline::new(Policy::Fifo, &scn).unwrap();
            let mut sink = HashSink::new();
            f.run(&mut sink, &mut |u| {
                black_box(u);
            })
            .unwrap();
        })
    });
    g.finish();
}

fn scale_case() {
    if let Ok(path) = std::env::var("OASIS_SCALE_SCENARIO") {
        let text = std::fs::read_to_string(&path).expect("reads OASIS_SCALE_SCENARIO");
        use mlsched_scenario::engine::{Kind, Oasis};
        let doc = mlsched_scenario::doc::parse(&text).expect("parses");
        let Some(d) = Oasis::doc_of(&doc) else {
            panic!("{path} is not an OASiS scenario");
        };
        timed_run(&path, &d.validate().expect("valid"));
        return;
    }
    let mut doc = mlsched_lab::gen::oasis::generate(&GenOptions {
        seed: 1,
        jobs: Some(2000),
        nodes: Some(12_500),
        slots: Some(2_000),
        ..GenOptions::default()
    })
    .expect("generates");
    doc.jobs.truncate(2000);
    // A constant utility (decay 0) lets a job's DP reach its whole window (tens of millions
    // of cells at T = 2,000, once refused by OASIS_DP_CELLS_MAX); the scale case keeps every
    // utility falling, as it always has, so its figures compare across builds.
    for j in &mut doc.jobs {
        if let mlsched_scenario::kinds::oasis::doc::UtilityDoc::Sigmoid(g) = &mut j.utility {
            g.decay = g.decay.max(0.1);
        }
    }
    timed_run(
        "scale (gen oasis --nodes 12500 --slots 2000, 2000 jobs)",
        &doc.validate().expect("valid"),
    );
}

/// As the `mlsched` CLI: large arrays on transparent huge pages (`MLSCHED_HUGEPAGES=0` to
/// compare without; `docs/scale.md`, "Huge pages").
#[global_allocator]
static ALLOC: mlsched_hugepages::HugePages = mlsched_hugepages::HugePages;

fn main() {
    mlsched_hugepages::from_env().expect("MLSCHED_HUGEPAGES");
    if std::env::var("OASIS_SCALE_SCENARIO").is_ok() {
        scale_case(); // the scale case alone
        return;
    }
    paper_defaults_latency();
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this binary without it,
    // and the 12,500-server case is for benchmarks, not the test suite.
    if std::env::args().any(|a| a == "--bench") {
        scale_case();
    }
    let mut c = Criterion::default().configure_from_args();
    fast_vs_literal(&mut c);
    whole_runs(&mut c);
    c.final_summary();
}
