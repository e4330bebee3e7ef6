//! A driver for `perf record` on the distinct-worker placement runs of
//! `benches/benches/placement.rs` (HAS S=4 K=30, JPS S=4 K=300 N=40), and the shape of their
//! market rounds (strict conflicts, constricted sets, set sizes).
//!
//! ```text
//! cargo build --profile bench -p mlsched-benches --example placement_profile
//! perf record -g target/release/examples/placement_profile has 20
//! target/release/examples/placement_profile stats
//! target/release/examples/placement_profile legacy 9
//! target/release/examples/placement_profile transfer 9
//! perf record -g target/release/examples/placement_profile transfer-has-typed 200
//! ```
//!
//! `transfer N`: HAS K=30 and JPS K=300 N=40 distinct with the market and with
//! `"solver": "transfer"`, alternating in this process, best of N CPU times each, and the
//! transfer solver's counters (categories certified, degenerate ones the market decided).
use mlsched_benches::thread_cpu_ms;
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::placement::{CategorySolver, Method, PlacementScenario};
use mlsched_kernel::placement::legacy_market::LegacyMarket;
use mlsched_kernel::placement::{category, Instance, Market, Placer, MARKET_CAP};
use mlsched_kernel::rng::SplitMix64;

/// Runs `method` on `scn` `reps` times; prints the best wall time and the round total.
fn time(scn: &PlacementScenario, method: Method, reps: u32) {
    let mut p = Placer::new(scn).unwrap();
    let mut best = f64::INFINITY;
    let mut rounds = 0;
    for _ in 0..reps {
        let mut sink = HashSink::new();
        let t = thread_cpu_ms() / 1e3;
        let sum = p.run(method, &mut sink, |_| {}).unwrap();
        best = best.min(thread_cpu_ms() / 1e3 - t);
        rounds = sum.market_rounds;
    }
    println!(
        "{method:?} K={}: best {:.2} ms CPU of {reps}, {rounds} price updates, {:.0} ns per update",
        scn.workers.len(),
        best * 1e3,
        best * 1e9 / rounds.max(1) as f64
    );
}

/// One run of `method` on a fresh-built placer's scratch: (CPU ms, summary, log hash).
fn run_once(
    p: &mut Placer,
    method: Method,
) -> (f64, mlsched_kernel::placement::RunSummary, String) {
    let mut sink = HashSink::new();
    let t = thread_cpu_ms();
    let sum = p.run(method, &mut sink, |_| {}).unwrap();
    let ms = thread_cpu_ms() - t;
    (ms, sum, sink.hash().hex().as_str().to_string())
}

/// `method` on `scn` with the market and with the transfer solver, alternating, best of `reps`
/// CPU times each; checks that both choose the same best assignment.
fn versus_transfer(name: &str, scn: &PlacementScenario, method: Method, reps: u32) {
    let mut market = Placer::new(scn).unwrap();
    let tscn = PlacementScenario {
        solver: CategorySolver::Transfer,
        ..scn.clone()
    };
    let mut transfer = Placer::new(&tscn).unwrap();
    let (mut best_m, mut best_t) = (f64::INFINITY, f64::INFINITY);
    let mut last = None;
    for _ in 0..reps {
        let (ms, _, _) = run_once(&mut market, method);
        best_m = best_m.min(ms);
        let (ms, sum, _) = run_once(&mut transfer, method);
        best_t = best_t.min(ms);
        last = sum.transfer;
    }
    assert_eq!(market.best(), transfer.best(), "same best assignment");
    let t = last.unwrap_or_default();
    println!(
        "{method:?} K={} {name}: market {best_m:.2} ms, transfer {best_t:.2} ms CPU (best of \
         {reps}), {:.1}x; transfer decided {} categories, {} degenerate (market), {} paths",
        scn.workers.len(),
        best_m / best_t,
        t.categories,
        t.degenerate,
        t.paths
    );
}

/// The market against `legacy_market` (the same price path) on the same categories, in this
/// process, alternating, best of `reps` each: a ratio the machine's load does not move much.
fn versus_legacy(inst: &Instance, cats: &[Vec<u32>], reps: u32) {
    let mut m = Market::new(inst);
    let mut lm = LegacyMarket::new(inst);
    let (mut best_m, mut best_l) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..reps {
        let t = thread_cpu_ms() / 1e3;
        for c in cats {
            std::hint::black_box(m.run(inst, c, MARKET_CAP));
        }
        best_m = best_m.min(thread_cpu_ms() / 1e3 - t);
        let t = thread_cpu_ms() / 1e3;
        for c in cats {
            std::hint::black_box(lm.run(inst, c, MARKET_CAP));
        }
        best_l = best_l.min(thread_cpu_ms() / 1e3 - t);
    }
    println!(
        "K={} {} categories: market {:.2} ms, legacy market {:.2} ms CPU (best of {reps}), ratio {:.3}",
        inst.k,
        cats.len(),
        best_m * 1e3,
        best_l * 1e3,
        best_m / best_l
    );
}

/// Round shapes of the market on `cats`.
fn stats(inst: &Instance, cats: &[Vec<u32>]) {
    let mut m = Market::new(inst);
    let (mut strict, mut set_rounds, mut set_classes, mut unit_sum) = (0u64, 0u64, 0u64, 0u64);
    let mut rounds = 0u64;
    for cat in cats {
        let out = m.run_traced(inst, cat, MARKET_CAP, |r| {
            if r.over.is_none() {
                return;
            }
            if r.constricted {
                set_rounds += 1;
                set_classes += (0..inst.classes.len())
                    .filter(|&c| r.in_constricted_set(c))
                    .count() as u64;
            } else {
                strict += 1;
            }
        });
        rounds += u64::from(out.rounds);
        unit_sum += out.unit_rounds;
    }
    println!(
        "K={} {} categories: {rounds} rounds ({:.1} per category), {strict} strict conflicts, \
         {set_rounds} constricted (mean set {:.1} classes), {unit_sum} unit rounds",
        inst.k,
        cats.len(),
        rounds as f64 / cats.len() as f64,
        set_classes as f64 / set_rounds.max(1) as f64
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map_or("all", |s| s.as_str());
    let reps: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let has = mlsched_benches::placement_scenario(7, 4, 30, false);
    let jps = mlsched_benches::placement_scenario(11, 4, 300, false);
    if what == "has" || what == "all" {
        time(&has, Method::Has, reps);
    }
    if what == "jps" || what == "all" {
        time(&jps, Method::Jps, reps);
    }
    if let Some(which) = what.strip_prefix("transfer-") {
        // A driver for `perf record` on one transfer run: transfer-has, transfer-jps,
        // transfer-has-typed, transfer-jps-typed.
        let typed = which.ends_with("-typed");
        let (scn, method) = if which.starts_with("has") {
            (
                mlsched_benches::placement_scenario(7, 4, 30, typed),
                Method::Has,
            )
        } else {
            (
                mlsched_benches::placement_scenario(11, 4, 300, typed),
                Method::Jps,
            )
        };
        let tscn = PlacementScenario {
            solver: CategorySolver::Transfer,
            ..scn
        };
        let mut p = Placer::new(&tscn).unwrap();
        for _ in 0..reps {
            run_once(&mut p, method);
        }
        return;
    }
    if what == "transfer" {
        versus_transfer("distinct", &has, Method::Has, reps);
        versus_transfer("distinct", &jps, Method::Jps, reps);
        let has_t = mlsched_benches::placement_scenario(7, 4, 30, true);
        let jps_t = mlsched_benches::placement_scenario(11, 4, 300, true);
        versus_transfer("typed", &has_t, Method::Has, reps);
        versus_transfer("typed", &jps_t, Method::Jps, reps);
        return;
    }
    let has_inst = Instance::new(&has).unwrap();
    let mut has_cats = Vec::new();
    let mut c = vec![0u32; 4];
    category::first(30, &mut c);
    loop {
        has_cats.push(c.clone());
        if !category::next(30, &mut c) {
            break;
        }
    }
    let jps_inst = Instance::new(&jps).unwrap();
    let n = category::count(300, 4).unwrap();
    let mut r = SplitMix64::new(3);
    let jps_cats: Vec<Vec<u32>> = (0..41)
        .map(|_| {
            let mut x = vec![0; 4];
            category::unrank(300, n * 7 / 10 + r.below(n - n * 7 / 10), &mut x).unwrap();
            x
        })
        .collect();
    if what == "legacy" || what == "all" {
        versus_legacy(&has_inst, &has_cats, reps);
        versus_legacy(&jps_inst, &jps_cats, reps.div_ceil(3));
    }
    if what == "stats" || what == "all" {
        stats(&has_inst, &has_cats);
        stats(&jps_inst, &jps_cats);
    }
}
