//! Placement (Liu et al. 2024) hot loops, each fast path beside its reference:
//! - HAS, S = 4, K = 30 (3,654 categories; paper Table IV: 55.5 s), market vs
//!   exact solver per category, on a typed cluster (3 GPU types 1:1:1, the paper's setting) and
//!   on distinct real-valued workers (every worker its own class: the market's hardest case).
//! - JPS, K = 300, S = 4, N = 40 (paper Table V: 114.6 s).
//! - HAS and JPS with `"solver": "transfer"` (the warm-started transfer solver, market
//!   fallback on ties) beside the market, same instances.
//! - One category: tie-aware market (classes) vs per-worker market vs exact solver, and the
//!   market vs the pre-fast-path market (`legacy_market`, the same price path) in one run, at
//!   K = 30 and at K = 300 (distinct workers: the JPS benchmark's category size).
//!
//! Throughputs are synthetic (SplitMix64), sized like the paper's (hundreds to thousands of
//! samples/s).
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use mlsched_benches::placement_scenario as scenario;
use mlsched_kernel::log::HashSink;
use mlsched_kernel::model::placement::{CategorySolver, Method, PlacementScenario};
use mlsched_kernel::placement::legacy_market::LegacyMarket;
use mlsched_kernel::placement::{category, Exact, Instance, Market, Placer, MARKET_CAP};
use mlsched_kernel::rng::SplitMix64;
use std::time::Duration;

/// `scn` with the per-category solver of HAS and JPS set to `solver`.
fn with_solver(scn: &PlacementScenario, solver: CategorySolver) -> PlacementScenario {
    PlacementScenario {
        solver,
        ..scn.clone()
    }
}

fn has(c: &mut Criterion) {
    let mut g = c.benchmark_group("placement/HAS S=4 K=30 (3,654 categories)");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for (name, typed) in [("typed", true), ("distinct", false)] {
        let scn = scenario(7, 4, 30, typed);
        for (m, label, solver) in [
            (Method::Has, "market", CategorySolver::Market),
            (Method::Has, "transfer", CategorySolver::Transfer),
            (Method::Exact, "exact", CategorySolver::Market),
        ] {
            let mut p = Placer::new(&with_solver(&scn, solver)).unwrap();
            g.bench_function(format!("{name} {label}"), |b| {
                b.iter(|| {
                    let mut sink = HashSink::new();
                    black_box(p.run(m, &mut sink, |_| {}).unwrap())
                })
            });
        }
    }
    g.finish();
}

fn jps(c: &mut Criterion) {
    let mut g = c.benchmark_group("placement/JPS K=300 S=4 N=40");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for (name, typed) in [("typed", true), ("distinct", false)] {
        let scn = scenario(11, 4, 300, typed);
        for (label, solver) in [
            ("market", CategorySolver::Market),
            ("transfer", CategorySolver::Transfer),
        ] {
            let mut p = Placer::new(&with_solver(&scn, solver)).unwrap();
            g.bench_function(format!("{name} {label}"), |b| {
                b.iter(|| {
                    let mut sink = HashSink::new();
                    black_box(p.run(Method::Jps, &mut sink, |_| {}).unwrap())
                })
            });
        }
    }
    g.finish();
}

fn per_category(c: &mut Criterion) {
    for (name, typed) in [("typed", true), ("distinct", false)] {
        let scn = scenario(5, 4, 30, typed);
        let inst = Instance::new(&scn).unwrap();
        let pw = mlsched_kernel::placement::per_worker::per_worker_instance(&inst);
        let n = category::count(30, 4).unwrap();
        let mut r = SplitMix64::new(3);
        let cats: Vec<Vec<u32>> = (0..64)
            .map(|_| {
                let mut x = vec![0; 4];
                category::unrank(30, r.below(n), &mut x).unwrap();
                x
            })
            .collect();
        let mut g = c.benchmark_group(format!("placement/one category K=30 S=4 {name} (x64)"));
        g.measurement_time(Duration::from_secs(3));
        let mut m = Market::new(&inst);
        g.bench_function("market (classes)", |b| {
            b.iter(|| {
                for x in &cats {
                    black_box(m.run(&inst, x, MARKET_CAP));
                }
            })
        });
        let mut m2 = Market::new(&pw);
        g.bench_function("reference per-worker market", |b| {
            b.iter(|| {
                for x in &cats {
                    black_box(m2.run(&pw, x, MARKET_CAP));
                }
            })
        });
        let mut lm = LegacyMarket::new(&inst);
        g.bench_function("legacy market (same path)", |b| {
            b.iter(|| {
                for x in &cats {
                    black_box(lm.run(&inst, x, MARKET_CAP));
                }
            })
        });
        let mut e = Exact::new(&inst);
        g.bench_function("exact (min-cost flow)", |b| {
            b.iter(|| {
                for x in &cats {
                    black_box(e.solve(&inst, x));
                }
            })
        });
        g.finish();
    }
}

/// One K = 300 category (distinct workers, the JPS benchmark's instance), market vs the
/// pre-fast-path market: the same price path (about 2,300 price updates), timed in one run.
fn per_category_k300(c: &mut Criterion) {
    let scn = scenario(11, 4, 300, false);
    let inst = Instance::new(&scn).unwrap();
    let n = category::count(300, 4).unwrap();
    let mut r = SplitMix64::new(3);
    let cats: Vec<Vec<u32>> = (0..4)
        .map(|_| {
            let mut x = vec![0; 4];
            category::unrank(300, n / 2 + r.below(n / 2), &mut x).unwrap();
            x
        })
        .collect();
    let mut g = c.benchmark_group("placement/one category K=300 S=4 distinct (x4)");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    let mut m = Market::new(&inst);
    g.bench_function("market", |b| {
        b.iter(|| {
            for x in &cats {
                black_box(m.run(&inst, x, MARKET_CAP));
            }
        })
    });
    let mut lm = LegacyMarket::new(&inst);
    g.bench_function("legacy market (same path)", |b| {
        b.iter(|| {
            for x in &cats {
                black_box(lm.run(&inst, x, MARKET_CAP));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, has, jps, per_category, per_category_k300);
criterion_main!(benches);
