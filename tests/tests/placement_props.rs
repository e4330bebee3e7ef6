//! Property tests of the placement kernel (Liu et al. 2024): market = exact assignment, the
//! market ends within its cap, unranking = enumeration, JPS(N = abs(Psi), alpha = 0) = HAS.
use mlsched_kernel::log::HashSink;
use mlsched_kernel::model::placement::{
    JpsParams, Method, PlacementJob, PlacementScenario, Worker,
};
use mlsched_kernel::placement::legacy_market::LegacyMarket;
use mlsched_kernel::placement::per_worker::per_worker_instance;
use mlsched_kernel::placement::{category, reference, Exact, Instance, Market, Placer, MARKET_CAP};
use mlsched_kernel::rng::SplitMix64;
use proptest::prelude::*;

/// A random scenario: S jobs, K workers on `nodes` nodes, throughputs real-valued in
/// [lo, hi) or (typed) drawn from a few GPU-type columns.
fn scenario(seed: u64, s: usize, k: usize, typed: bool) -> PlacementScenario {
    let mut r = SplitMix64::new(seed);
    let types = 1 + r.below(3) as usize;
    let type_of: Vec<usize> = (0..k).map(|_| r.below(types as u64) as usize).collect();
    let jobs = (0..s)
        .map(|_| {
            let per_type: Vec<f64> = (0..types).map(|_| r.range_f64(1.0, 2000.0)).collect();
            PlacementJob {
                samples: r.range_f64(1e3, 1e5),
                epochs: 1.0 + r.below(200) as f64,
                model_bytes: r.range_f64(1e6, 5e8),
                throughput: (0..k)
                    .map(|w| {
                        if typed {
                            per_type[type_of[w]]
                        } else {
                            r.range_f64(1.0, 2000.0)
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    PlacementScenario {
        method: Method::Has,
        workers: (0..k)
            .map(|w| Worker {
                gpu_type: type_of[w] as u32,
                node: (w / 3) as u32,
            })
            .collect(),
        intra_node: 37.5e9,
        inter_node: 1.25e9,
        jobs,
        include_comm: r.below(2) == 1,
        jps: JpsParams::default(),
        seed,
        solver: Default::default(),
    }
}

fn random_category(r: &mut SplitMix64, k: u32, s: u32) -> Vec<u32> {
    let n = category::count(k, s).unwrap();
    let mut c = vec![0; s as usize];
    category::unrank(k, r.below(n), &mut c).unwrap();
    c
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn market_throughput(inst: &Instance, m: &Market) -> f64 {
    let c = inst.classes.len();
    (0..inst.s)
        .flat_map(|i| (0..c).map(move |cl| (i, cl)))
        .map(|(i, cl)| f64::from(m.counts[i * c + cl]) * inst.classes.rho[i * c + cl])
        .sum()
}

/// The independent per-worker market (its own eqs. 19-22) clears within the fast path's cap,
/// gives every job K_i workers, and reaches the fast market's and the exact solver's total
/// throughput.
fn check_reference_market(
    scn: &PlacementScenario,
    cat: &[u32],
    fast: f64,
    exact: f64,
) -> Result<(), TestCaseError> {
    let job_of = reference::market(scn, cat, MARKET_CAP);
    prop_assert!(job_of.is_some(), "reference market hit its cap");
    let job_of = job_of.unwrap();
    let mut counts = vec![0u32; cat.len()];
    for &j in &job_of {
        counts[j as usize] += 1;
    }
    prop_assert_eq!(&counts[..], cat);
    let t: f64 = job_of
        .iter()
        .enumerate()
        .map(|(w, &j)| scn.jobs[j as usize].throughput[w])
        .sum();
    prop_assert!(
        close(t, fast),
        "reference market {} fast market {}",
        t,
        fast
    );
    prop_assert!(close(t, exact), "reference market {} exact {}", t, exact);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5000, .. ProptestConfig::default() })]

    /// Real-valued throughputs: the market clears within its cap and matches the exact
    /// solver's total throughput (and the brute force when K is tiny).
    #[test]
    fn market_equals_exact_real_valued(seed in any::<u64>(), s in 1usize..6, extra in 0usize..10) {
        let k = s + extra;
        let scn = scenario(seed, s, k, false);
        let inst = Instance::new(&scn).unwrap();
        let mut r = SplitMix64::new(seed ^ 0x5eed);
        let cat = random_category(&mut r, k as u32, s as u32);
        let mut m = Market::new(&inst);
        let out = m.run(&inst, &cat, MARKET_CAP);
        prop_assert!(out.cleared, "market hit its cap: {:?}", out);
        let mut e = Exact::new(&inst);
        let ex = e.solve(&inst, &cat);
        let mk = market_throughput(&inst, &m);
        check_reference_market(&scn, &cat, mk, ex)?;
        prop_assert!(close(mk, ex), "market {} exact {}", mk, ex);
        if k <= 8 {
            let bf = reference::brute_force(&scn, &cat);
            prop_assert!(close(ex, bf), "exact {} brute force {}", ex, bf);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, .. ProptestConfig::default() })]

    /// Typed clusters (identical columns, the paper's and Gavel's setting): same properties.
    #[test]
    fn market_equals_exact_typed(seed in any::<u64>(), s in 1usize..6, extra in 0usize..12) {
        let k = s + extra;
        let scn = scenario(seed, s, k, true);
        let inst = Instance::new(&scn).unwrap();
        let mut r = SplitMix64::new(seed ^ 0x7e5);
        let cat = random_category(&mut r, k as u32, s as u32);
        let mut m = Market::new(&inst);
        let out = m.run(&inst, &cat, MARKET_CAP);
        prop_assert!(out.cleared, "market hit its cap: {:?}", out);
        let mut e = Exact::new(&inst);
        let ex = e.solve(&inst, &cat);
        check_reference_market(&scn, &cat, market_throughput(&inst, &m), ex)?;
        prop_assert!(close(market_throughput(&inst, &m), ex));
        if k <= 8 {
            prop_assert!(close(ex, reference::brute_force(&scn, &cat)));
        }
        // The per-worker market (no classes) reaches the same throughput when it clears.
        let pw = per_worker_instance(&inst);
        let mut m2 = Market::new(&pw);
        if m2.run(&pw, &cat, MARKET_CAP).cleared {
            prop_assert!(close(market_throughput(&pw, &m2), ex));
        }
    }

    /// JPS with N = abs(Psi), alpha = 0, beta = 1 examines every category and picks HAS's.
    #[test]
    fn jps_full_equals_has(seed in any::<u64>(), s in 1usize..5, extra in 0usize..7, typed in any::<bool>()) {
        let k = s + extra;
        let mut scn = scenario(seed, s, k, typed);
        let n = category::count(k as u32, s as u32).unwrap();
        scn.jps = JpsParams { samples: n as u32, alpha: 0.0, beta: 1.0 };
        let mut a = Placer::new(&scn).unwrap();
        let sa = a.run(Method::Has, &mut HashSink::new(), |_| {}).unwrap();
        let mut b = Placer::new(&scn).unwrap();
        let sb = b.run(Method::Jps, &mut HashSink::new(), |_| {}).unwrap();
        prop_assert_eq!(sb.examined, n);
        prop_assert_eq!(sa.best_rank, sb.best_rank);
        prop_assert_eq!(&a.best().job_of, &b.best().job_of);
        prop_assert_eq!(a.best().avg_jct.to_bits(), b.best().avg_jct.to_bits());
    }
}

/// Unranking agrees with Algorithm 1's enumeration (and rank inverts it) for every K <= 16,
/// S <= 6, and abs(Psi) = C(K-1, S-1).
#[test]
fn unranking_equals_enumeration() {
    for s in 1u32..=6 {
        for k in s..=16 {
            let mut c = vec![0u32; s as usize];
            let mut u = vec![0u32; s as usize];
            category::first(k, &mut c);
            let mut n = 0u64;
            loop {
                category::unrank(k, n, &mut u).unwrap();
                assert_eq!(u, c, "K={k} S={s} n={n}");
                assert_eq!(category::rank(k, &c), n);
                assert_eq!(c.iter().sum::<u32>(), k);
                assert!(c.iter().all(|&x| x >= 1));
                n += 1;
                if !category::next(k, &mut c) {
                    break;
                }
            }
            assert_eq!(n, category::count(k, s).unwrap(), "K={k} S={s}");
            assert_eq!(
                n,
                category::binomial(u64::from(k - 1), u64::from(s - 1)).unwrap()
            );
        }
    }
}

/// Unranking large spaces (JPS at K = 300, S = 4) round-trips through rank.
#[test]
fn unranking_large_round_trips() {
    let (k, s) = (300u32, 4u32);
    let n = category::count(k, s).unwrap();
    assert_eq!(n, 4_410_549);
    let mut r = SplitMix64::new(3);
    let mut c = vec![0u32; 4];
    for _ in 0..2000 {
        let i = r.below(n);
        category::unrank(k, i, &mut c).unwrap();
        assert_eq!(c.iter().sum::<u32>(), k);
        assert_eq!(category::rank(k, &c), i);
    }
    assert!(category::unrank(k, n, &mut c).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// Exhaustive search is the lower bound of every method on tiny instances, and every method
    /// uses each worker exactly once with every job served (8b-8d).
    #[test]
    fn exhaustive_bounds_every_method(seed in any::<u64>(), s in 1usize..4, extra in 0usize..5, typed in any::<bool>()) {
        let k = s + extra;
        let scn = scenario(seed, s, k, typed);
        let mut p = Placer::new(&scn).unwrap();
        p.run(Method::Exhaustive, &mut HashSink::new(), |_| {}).unwrap();
        let best = p.best().avg_jct;
        for m in [Method::Has, Method::Jps, Method::Exact, Method::Optimus, Method::OptimusLb, Method::Las] {
            p.run(m, &mut HashSink::new(), |_| {}).unwrap();
            let a = p.best();
            prop_assert!(a.avg_jct >= best * (1.0 - 1e-12), "{:?} {} < {}", m, a.avg_jct, best);
            prop_assert_eq!(a.counts.iter().sum::<u32>() as usize, k);
            prop_assert!(a.counts.iter().all(|&c| c >= 1), "{:?}", m);
            prop_assert!(a.job_of.iter().all(|&j| (j as usize) < s));
        }
    }
}

/// A scenario whose throughputs mix the hard cases of the market's fast paths: every worker
/// distinct, some columns repeated (classes of several workers), and values repeated across
/// workers of one job (exact ties in Gamma) or integers (ties after integer price raises).
fn mixed_scenario(seed: u64, s: usize, k: usize) -> PlacementScenario {
    let mut scn = scenario(seed, s, k, false);
    let mut r = SplitMix64::new(seed ^ 0x313);
    let mode = r.below(4);
    for j in scn.jobs.iter_mut() {
        for w in 0..k {
            match mode {
                // Integer throughputs in a narrow band: many exact ties.
                1 => j.throughput[w] = (1 + r.below(12)) as f64 * 50.0,
                // Repeat an earlier worker's value for this job (a tie in one row only).
                2 if w > 0 && r.below(3) == 0 => {
                    j.throughput[w] = j.throughput[r.below(w as u64) as usize]
                }
                _ => {}
            }
        }
    }
    if mode == 3 {
        // Repeat whole columns: classes of several workers next to singletons.
        for w in 1..k {
            if r.below(3) == 0 {
                let src = r.below(w as u64) as usize;
                for j in scn.jobs.iter_mut() {
                    j.throughput[w] = j.throughput[src];
                }
            }
        }
    }
    scn
}

fn same_path(inst: &Instance, cat: &[u32]) -> Result<(), TestCaseError> {
    let mut new = Market::new(inst);
    let mut old = LegacyMarket::new(inst);
    let a = new.run(inst, cat, MARKET_CAP);
    let b = old.run(inst, cat, MARKET_CAP);
    prop_assert_eq!(a, b, "market outcome differs from the pre-fast-path market");
    let c = inst.classes.len();
    for cl in 0..c {
        prop_assert_eq!(
            new.price(cl).to_bits(),
            old.price(cl).to_bits(),
            "price of class {}",
            cl
        );
    }
    if a.cleared {
        prop_assert_eq!(&new.counts, &old.counts);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, .. ProptestConfig::default() })]

    /// The market follows exactly the price path of the market before the distinct-worker fast
    /// path (`legacy_market`, verbatim): same rounds, unit rounds, outcome, prices (bit for
    /// bit) and counts, on distinct, typed, mixed and per-worker (singleton classes with exact
    /// ties) instances.
    #[test]
    fn market_path_equals_legacy(seed in any::<u64>(), s in 1usize..7, extra in 0usize..40, kind in 0u8..4) {
        let k = s + extra;
        let scn = match kind {
            0 => scenario(seed, s, k, false),
            1 => scenario(seed, s, k, true),
            _ => mixed_scenario(seed, s, k),
        };
        let inst = Instance::new(&scn).unwrap();
        let inst = if kind == 3 { per_worker_instance(&inst) } else { inst };
        let mut r = SplitMix64::new(seed ^ 0xfa57);
        for _ in 0..4 {
            let cat = random_category(&mut r, k as u32, s as u32);
            same_path(&inst, &cat)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, .. ProptestConfig::default() })]

    /// Large distinct-worker instances (K up to 300, the JPS benchmark's size): same path.
    #[test]
    fn market_path_equals_legacy_large(seed in any::<u64>(), s in 2usize..6, k in 60usize..300, kind in 0u8..4) {
        let scn = match kind {
            0 | 1 => scenario(seed, s, k, false),
            _ => mixed_scenario(seed, s, k),
        };
        let inst = Instance::new(&scn).unwrap();
        let inst = if kind == 3 { per_worker_instance(&inst) } else { inst };
        let mut r = SplitMix64::new(seed ^ 0xb16);
        let cat = random_category(&mut r, k as u32, s as u32);
        same_path(&inst, &cat)?;
    }
}
