//! Placement with every worker distinct (each worker its own throughput column, the case of
//! real clusters where GPUs differ by node): the decision logs of HAS, JPS and the exact method
//! are pinned to hashes recorded before the distinct-worker fast path of the market existed
//! (commit 1f2012e), so the fast path changes no decision, value or round count.
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::placement::{Method, PlacementScenario};
use mlsched_kernel::placement::Placer;
use mlsched_tests::placement_instances::distinct_scenario;

fn hash(scn: &PlacementScenario, m: Method) -> (String, u64, u64) {
    let mut p = Placer::new(scn).unwrap();
    let mut sink = HashSink::new();
    let sum = p.run(m, &mut sink, |_| {}).unwrap();
    let h = sink.hash();
    (h.hex().as_str().to_string(), h.records(), sum.market_rounds)
}

/// (name, seed, S, K, typed, method, log hash, records, market rounds) recorded at 1f2012e.
type Pinned = (
    &'static str,
    u64,
    usize,
    usize,
    bool,
    Method,
    &'static str,
    u64,
    u64,
);
const PINNED: [Pinned; 8] = [
    (
        "has-k30-distinct",
        7,
        4,
        30,
        false,
        Method::Has,
        "0cdf18e8a6b2fc1b",
        3685,
        211800,
    ),
    (
        "exact-k30-distinct",
        7,
        4,
        30,
        false,
        Method::Exact,
        "6bec2dbe54f7a246",
        3685,
        0,
    ),
    (
        "has-k30-typed",
        7,
        4,
        30,
        true,
        Method::Has,
        "3b06fb5913de7e62",
        3685,
        6285,
    ),
    (
        "jps-k300-distinct",
        11,
        4,
        300,
        false,
        Method::Jps,
        "0d3894a8c1f1f4e8",
        342,
        93748,
    ),
    (
        "jps-k300-typed",
        11,
        4,
        300,
        true,
        Method::Jps,
        "815a1a2a27287c6e",
        342,
        70,
    ),
    (
        "has-k20-s3-distinct",
        5,
        3,
        20,
        false,
        Method::Has,
        "9fde6680ad86ae59",
        192,
        3409,
    ),
    (
        "jps-k120-s5-distinct",
        9,
        5,
        120,
        false,
        Method::Jps,
        "a7761695a8f8b548",
        162,
        22307,
    ),
    (
        "has-k12-s6-distinct",
        13,
        6,
        12,
        false,
        Method::Has,
        "abe5d4a25ab2e2dc",
        475,
        6690,
    ),
];

#[test]
fn distinct_worker_logs_are_pinned() {
    for (name, seed, s, k, typed, m, h, records, rounds) in PINNED {
        let scn = distinct_scenario(seed, s, k, typed);
        let got = hash(&scn, m);
        assert_eq!(
            (got.0.as_str(), got.1, got.2),
            (h, records, rounds),
            "{name}: (log hash, records, market rounds)"
        );
    }
}
