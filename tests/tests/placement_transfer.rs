//! The transfer solver (`"solver": "transfer"`, `kernel/src/placement/transfer.rs`) against
//! the matching market: exactness, not speed. Per category, whenever it certifies a unique
//! optimum its class counts are the market's exactly and its throughput the exact solver's;
//! whole HAS/JPS runs give category by category the same assignment, values and records as the
//! market run (only the 0x30 records' rounds differ); the scenario field is parsed and refused
//! as documented.
use mlsched_kernel::log::{HashSink, LogError, LogHash, LogSink, TAG_PLACEMENT};
use mlsched_kernel::model::placement::{
    CategorySolver, JpsParams, Method, PlacementJob, PlacementScenario, Worker,
};
use mlsched_kernel::placement::{
    category, CategoryReport, Exact, Instance, Market, Placer, Transfer, TransferOutcome,
    MARKET_CAP,
};
use mlsched_kernel::rng::SplitMix64;
use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_scenario::run::{run_json, RunOptions};
use mlsched_tests::placement_instances::distinct_scenario;
use serde_json::{json, Value};

/// A random scenario: S jobs, K workers in nodes of 5; throughputs real-valued per worker
/// (`kind` 0), per GPU type (1: typed, many ties), or mixed (2: integer bands with exact ties,
/// 3: values repeated within a row, 4: repeated columns next to singletons).
fn scenario(seed: u64, s: usize, k: usize, kind: u8) -> PlacementScenario {
    let mut r = SplitMix64::new(seed);
    let types = 1 + r.below(3) as usize;
    let type_of: Vec<usize> = (0..k).map(|_| r.below(types as u64) as usize).collect();
    let mut jobs: Vec<PlacementJob> = (0..s)
        .map(|_| {
            let per_type: Vec<f64> = (0..types).map(|_| r.range_f64(1.0, 2000.0)).collect();
            PlacementJob {
                samples: r.range_f64(1e3, 1e5),
                epochs: 1.0 + r.below(200) as f64,
                model_bytes: r.range_f64(1e6, 5e8),
                throughput: (0..k)
                    .map(|w| match kind {
                        1 => per_type[type_of[w]],
                        2 => (1 + r.below(12)) as f64 * 50.0,
                        _ => r.range_f64(1.0, 2000.0),
                    })
                    .collect(),
            }
        })
        .collect();
    if kind == 3 {
        for j in jobs.iter_mut() {
            for w in 1..k {
                if r.below(3) == 0 {
                    j.throughput[w] = j.throughput[r.below(w as u64) as usize];
                }
            }
        }
    }
    if kind == 4 {
        for w in 1..k {
            if r.below(3) == 0 {
                let src = r.below(w as u64) as usize;
                for j in jobs.iter_mut() {
                    j.throughput[w] = j.throughput[src];
                }
            }
        }
    }
    PlacementScenario {
        method: Method::Has,
        workers: (0..k)
            .map(|w| Worker {
                gpu_type: type_of[w] as u32,
                node: (w / 5) as u32,
            })
            .collect(),
        intra_node: 37.5e9,
        inter_node: 1.25e9,
        jobs,
        include_comm: r.below(2) == 1,
        jps: JpsParams {
            samples: 12,
            alpha: 0.5,
            beta: 1.0,
        },
        seed,
        solver: CategorySolver::Market,
    }
}

fn throughput(inst: &Instance, counts: &[u32]) -> f64 {
    let c = inst.classes.len();
    (0..inst.s * c)
        .map(|ic| f64::from(counts[ic]) * inst.classes.rho[ic])
        .sum()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// What the per-category walk saw.
#[derive(Default, Debug)]
struct Tally {
    certified: u64,
    degenerate: u64,
}

/// Walks `steps` categories of `scn` the way the placer does (a stretch of Algorithm 1's
/// order, then a jump to a random category, ...), solving each with a warm-started transfer
/// solver and with the market; re-seeds from the market on a degenerate category.
fn walk(scn: &PlacementScenario, steps: usize, seed: u64, t: &mut Tally) {
    let inst = Instance::new(scn).unwrap();
    let (s, k) = (inst.s as u32, inst.k as u32);
    let mut tr = Transfer::new(&inst);
    let mut market = Market::new(&inst);
    let mut exact = Exact::new(&inst);
    let mut r = SplitMix64::new(seed);
    let n = category::count(k, s).unwrap();
    let mut cat = vec![0u32; s as usize];
    category::unrank(k, r.below(n), &mut cat).unwrap();
    for step in 0..steps {
        let out = tr.solve(&inst, &cat);
        let m = market.run(&inst, &cat, MARKET_CAP);
        let best = exact.solve(&inst, &cat);
        if m.cleared {
            // The margin's premise (`Transfer::margin`): prices stay within the throughput
            // range plus the unit step, so abs(theta_i) <= 2 (max rho + 1).
            let top = inst.classes.rho.iter().fold(0.0f64, |a, &b| a.max(b.abs()));
            let pmax = (0..inst.classes.len())
                .map(|c| market.price(c).abs())
                .fold(0.0f64, f64::max);
            assert!(pmax <= top + 1.0, "price {pmax} above max rho {top} + 1");
        }
        let market_counts = if m.cleared {
            &market.counts
        } else {
            &exact.counts
        };
        match out {
            TransferOutcome::Unique => {
                assert_eq!(
                    tr.counts(),
                    &market_counts[..],
                    "certified counts differ from the market's: seed {seed} step {step} cat {cat:?}"
                );
                let got = throughput(&inst, tr.counts());
                assert!(close(got, best), "throughput {got} vs exact {best}");
                t.certified += 1;
            }
            TransferOutcome::Degenerate => {
                // Ties: the counts may differ from the market's, but when they are feasible
                // for the category they are still a max-throughput assignment.
                let c = inst.classes.len();
                let feasible = (0..inst.s)
                    .all(|i| tr.counts()[i * c..(i + 1) * c].iter().sum::<u32>() == cat[i]);
                if feasible {
                    let got = throughput(&inst, tr.counts());
                    assert!(
                        close(got, best),
                        "degenerate: throughput {got} vs exact {best}"
                    );
                }
                tr.seed(&inst, market_counts);
                t.degenerate += 1;
            }
        }
        // Mostly the next category of Algorithm 1 (HAS), sometimes a jump (JPS's samples).
        if r.below(4) == 0 || !category::next(k, &mut cat) {
            category::unrank(k, r.below(n), &mut cat).unwrap();
        }
    }
}

/// Thousands of random categories: whenever the transfer solver certifies, its counts equal
/// the market's and its throughput the exact solver's (1e-9 relative).
#[test]
fn certified_counts_equal_the_market_small() {
    let mut t = [Tally::default(), Tally::default(), Tally::default()];
    for seed in 0..500u64 {
        let mut r = SplitMix64::new(seed ^ 0x7a5f);
        let s = 2 + r.below(5) as usize;
        let k = s + r.below(40) as usize;
        let kind = (seed % 5) as u8;
        let group = match kind {
            0 => 0,
            1 => 1,
            _ => 2,
        };
        walk(&scenario(seed, s, k, kind), 12, seed, &mut t[group]);
    }
    println!("distinct {:?}, typed {:?}, mixed {:?}", t[0], t[1], t[2]);
    assert!(
        t[0].certified > 500,
        "distinct instances are mostly certified"
    );
    assert!(t[1].degenerate > 0, "typed instances fall back");
}

/// The same on large categories (K up to 300).
#[test]
fn certified_counts_equal_the_market_large() {
    let mut t = [Tally::default(), Tally::default(), Tally::default()];
    for seed in 0..12u64 {
        let mut r = SplitMix64::new(seed ^ 0x1a29e);
        let s = 2 + r.below(5) as usize;
        let k = 150 + r.below(151) as usize;
        let kind = (seed % 5) as u8;
        let group = match kind {
            0 => 0,
            1 => 1,
            _ => 2,
        };
        walk(&scenario(seed, s, k, kind), 3, seed, &mut t[group]);
    }
    println!("distinct {:?}, typed {:?}, mixed {:?}", t[0], t[1], t[2]);
    assert!(t[0].certified > 0);
}

/// Records every decision record as JSON, the 0x30 records without their rounds.
struct Records {
    inner: HashSink,
    out: Vec<(u8, Value)>,
}

impl LogSink for Records {
    fn record<T: serde::Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        let mut v = serde_json::to_value(rec).unwrap();
        if tag == TAG_PLACEMENT {
            v["rounds"] = json!(0);
            v["unit_rounds"] = json!(0);
        }
        self.out.push((tag, v));
        self.inner.record(tag, rec)
    }
    fn hash(&self) -> LogHash {
        self.inner.hash()
    }
}

/// One evaluated category as the observer sees it.
type Seen = (u64, u64, Vec<u32>, u64, u64, u64);

fn seen(c: &CategoryReport<'_>) -> Seen {
    (
        c.index,
        c.rank,
        c.assignment.job_of.clone(),
        c.assignment.avg_jct.to_bits(),
        c.assignment.total_throughput.to_bits(),
        c.assignment.fairness.to_bits(),
    )
}

/// Runs `m` with `solver`: (categories seen, records without rounds, summary, best).
fn whole(
    scn: &PlacementScenario,
    m: Method,
    solver: CategorySolver,
) -> (
    Vec<Seen>,
    Vec<(u8, Value)>,
    mlsched_kernel::placement::RunSummary,
    Placer,
) {
    let scn = PlacementScenario {
        solver,
        ..scn.clone()
    };
    let mut p = Placer::new(&scn).unwrap();
    let mut sink = Records {
        inner: HashSink::new(),
        out: Vec::new(),
    };
    let mut cats = Vec::new();
    let sum = p.run(m, &mut sink, |c| cats.push(seen(c))).unwrap();
    (cats, sink.out, sum, p)
}

/// HAS and JPS with the transfer solver against the market: the same categories, `job_of`,
/// avg_jct / throughput / fairness bits, records (rounds aside), best and summary. Returns the
/// transfer counters (certified, degenerate).
fn same_run(name: &str, scn: &PlacementScenario, m: Method) -> (u64, u64) {
    let (mc, mr, ms, mp) = whole(scn, m, CategorySolver::Market);
    let (tc, tr, ts, tp) = whole(scn, m, CategorySolver::Transfer);
    assert_eq!(mc.len(), tc.len(), "{name}: categories");
    for (a, b) in mc.iter().zip(&tc) {
        assert_eq!(a, b, "{name}: category {}", a.0);
    }
    assert_eq!(mr, tr, "{name}: records (rounds aside)");
    assert_eq!(mp.best(), tp.best(), "{name}: best");
    assert_eq!(
        (ms.best_rank, ms.examined, ms.category_count, ms.jps_from),
        (ts.best_rank, ts.examined, ts.category_count, ts.jps_from),
        "{name}: summary"
    );
    assert_eq!(ms.transfer, None, "{name}: no counters with the market");
    let t = ts.transfer.expect("transfer counters");
    assert_eq!(
        t.categories + t.degenerate,
        ts.examined,
        "{name}: every category counted"
    );
    (t.categories, t.degenerate)
}

/// The instances of `placement_distinct.rs` (pinned hashes there) and the benchmarks'.
fn distinct(seed: u64, s: usize, k: usize, typed: bool) -> PlacementScenario {
    distinct_scenario(seed, s, k, typed)
}

#[test]
fn pinned_runs_equal_the_market() {
    let cases = [
        ("has-k30-distinct", 7, 4, 30, false, Method::Has),
        ("has-k30-typed", 7, 4, 30, true, Method::Has),
        ("jps-k300-distinct", 11, 4, 300, false, Method::Jps),
        ("jps-k300-typed", 11, 4, 300, true, Method::Jps),
        ("has-k20-s3-distinct", 5, 3, 20, false, Method::Has),
        ("jps-k120-s5-distinct", 9, 5, 120, false, Method::Jps),
        ("has-k12-s6-distinct", 13, 6, 12, false, Method::Has),
    ];
    for (name, seed, s, k, typed, m) in cases {
        let (certified, degenerate) = same_run(name, &distinct(seed, s, k, typed), m);
        println!("{name}: {certified} certified, {degenerate} degenerate");
        if !typed {
            assert!(certified > 0, "{name}: the transfer solver decided nothing");
        }
    }
}

/// Random instances, including tie-heavy ones: the degenerate fallback and the re-seeding
/// happen mid-run, and the runs still equal the market's.
#[test]
fn random_runs_equal_the_market() {
    let (mut certified, mut degenerate, mut mixed_runs) = (0, 0, 0);
    for seed in 0..40u64 {
        let mut r = SplitMix64::new(seed ^ 0x4a11);
        let s = 2 + r.below(4) as usize;
        let k = s + 2 + r.below(14) as usize;
        let kind = (seed % 5) as u8;
        let scn = scenario(seed, s, k, kind);
        for m in [Method::Has, Method::Jps] {
            let (c, d) = same_run(&format!("seed {seed} kind {kind} {m:?}"), &scn, m);
            certified += c;
            degenerate += d;
            if c > 0 && d > 0 {
                mixed_runs += 1;
            }
        }
    }
    println!("{certified} certified, {degenerate} degenerate, {mixed_runs} runs with both");
    assert!(certified > 0 && degenerate > 0 && mixed_runs > 0);
}

fn table2() -> Value {
    let text = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|(n, _)| *n == "placement-table2")
        .map(|(_, t)| *t)
        .unwrap();
    serde_json::from_str(text).unwrap()
}

fn validate(v: &Value) -> Result<PlacementScenario, String> {
    let ScenarioDoc::Placement(d) = doc::parse(&v.to_string()).map_err(|e| e.to_string())? else {
        panic!("not a placement document")
    };
    d.validate().map_err(|e| e.to_string())
}

#[test]
fn the_solver_field_is_parsed_and_refused_by_name() {
    let mut v = table2();
    assert_eq!(validate(&v).unwrap().solver, CategorySolver::Market);
    for (method, name, want) in [
        ("has", "transfer", CategorySolver::Transfer),
        ("jps", "transfer", CategorySolver::Transfer),
        ("has", "market", CategorySolver::Market),
    ] {
        v["method"] = json!(method);
        v["solver"] = json!(name);
        assert_eq!(validate(&v).unwrap().solver, want, "{method} {name}");
    }
    v["solver"] = json!("auction");
    let e = validate(&v).unwrap_err();
    assert!(e.contains("field `solver`") && e.contains("auction"), "{e}");
    for method in ["exact", "exhaustive", "optimus", "optimus-lb", "las"] {
        v["method"] = json!(method);
        v["solver"] = json!("market");
        let e = validate(&v).unwrap_err();
        assert!(e.contains("field `solver`"), "{method}: {e}");
    }
}

#[test]
fn the_result_carries_counters_only_with_the_transfer_solver() {
    let mut v = table2();
    let plain = run_json(&v.to_string(), &RunOptions::default()).unwrap();
    assert!(!plain.contains("\"transfer\""), "{plain}");
    v["solver"] = json!("transfer");
    let t = run_json(&v.to_string(), &RunOptions::default()).unwrap();
    let (a, b): (Value, Value) = (
        serde_json::from_str(&plain).unwrap(),
        serde_json::from_str(&t).unwrap(),
    );
    assert_eq!(a["best"], b["best"]);
    let stats = &b["transfer"];
    assert_eq!(
        stats["categories"].as_u64().unwrap() + stats["degenerate"].as_u64().unwrap(),
        b["categories_examined"].as_u64().unwrap(),
        "{t}"
    );
}

/// The transfer scratch and the solver choice are not on the snapshot wire: a freshly built
/// transfer placer's snapshot is byte for byte the market placer's (the market's own scratch
/// after a run differs, as the market did not run), and a run's snapshot restores into a
/// transfer placer with the same best.
#[test]
fn snapshots_do_not_carry_the_transfer_solver() {
    use mlsched_kernel::snapshot::Snapshot;
    let scn = distinct(7, 4, 16, false);
    let tscn = PlacementScenario {
        solver: CategorySolver::Transfer,
        ..scn.clone()
    };
    let fresh_market = Placer::new(&scn).unwrap().snapshot().unwrap();
    let fresh_transfer = Placer::new(&tscn).unwrap().snapshot().unwrap();
    assert!(fresh_market == fresh_transfer, "fresh snapshots differ");
    let (_, _, _, transfer) = whole(&scn, Method::Has, CategorySolver::Transfer);
    let mut restored = Placer::new(&tscn).unwrap();
    restored
        .restore_snapshot(&transfer.snapshot().unwrap())
        .unwrap();
    assert_eq!(restored.best(), transfer.best());
}

/// Near ties, the case the margin exists for: a random distinct instance with one entry moved
/// so that some exchange of two units between two jobs changes the throughput by only
/// 1e-13..1e-8 of the largest throughput, the market's tie tolerance range. Whenever the
/// transfer solver certifies, its counts are still the market's (the margin sends these
/// categories to the market).
#[test]
fn near_ties_go_to_the_market() {
    let mut t = Tally::default();
    for seed in 0..400u64 {
        let mut r = SplitMix64::new(seed ^ 0x9ea7);
        let s = 2 + r.below(3) as usize;
        let k = s + r.below(8) as usize;
        let mut scn = scenario(seed, s, k, 0);
        // Exchange workers a and b between jobs u and v: the gain is
        // rho_ua + rho_vb - rho_ub - rho_va; make it tiny by moving rho_vb.
        let (u, v) = (0, 1);
        let a = r.below(k as u64) as usize;
        let b = (a + 1 + r.below(k as u64 - 1) as usize) % k;
        let eps = [1e-13, 1e-11, 1e-10, 1e-9, 1e-8][r.below(5) as usize] * 2000.0;
        let j = &scn.jobs;
        let vb = j[u].throughput[b] + j[v].throughput[a] - j[u].throughput[a]
            + if r.below(2) == 0 { eps } else { -eps };
        if vb <= 0.0 {
            continue;
        }
        scn.jobs[v].throughput[b] = vb;
        walk(&scn, 10, seed, &mut t);
    }
    println!("near ties: {t:?}");
    assert!(t.degenerate > 0);
}
