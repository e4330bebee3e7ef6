//! Liu et al. (kind "placement"): `Placer::run` allocates nothing once the placer is built —
//! every method on the bundled placement scenarios, under a counting global allocator.
use mlsched_cli::bundled::SCENARIOS;
use mlsched_cli::doc::{parse, ScenarioDoc};
use mlsched_kernel::log::HashSink;
use mlsched_kernel::model::placement::Method;
use mlsched_kernel::placement::Placer;
use mlsched_tests::alloc_count::{allocations, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[test]
fn runs_allocate_nothing() {
    let mut checked = 0;
    for (name, text) in SCENARIOS.iter().filter(|(n, _)| n.starts_with("placement")) {
        let ScenarioDoc::Placement(d) = parse(text).unwrap() else {
            panic!("{name}")
        };
        let scn = d.validate().unwrap();
        for m in [
            Method::Has,
            Method::Jps,
            Method::Exact,
            Method::Exhaustive,
            Method::Optimus,
            Method::OptimusLb,
            Method::Las,
        ] {
            let mut p = Placer::new(&scn).unwrap();
            let mut sink = HashSink::new();
            let mut seen = 0u64;
            let (r, allocated) = allocations(|| p.run(m, &mut sink, |_| seen += 1));
            // Exhaustive search refuses the larger scenarios (S^K too big): that path too.
            if m != Method::Exhaustive || name.ends_with("table2") {
                r.unwrap();
            }
            assert_eq!(allocated, 0, "{name} {m:?}");
            checked += 1;
        }
    }
    assert!(checked >= 7);
}
