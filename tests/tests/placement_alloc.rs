//! Liu et al. (kind "placement"): `Placer::run` allocates nothing once the placer is built —
//! every method on the bundled placement scenarios, under a counting global allocator.
use mlsched_cli::bundled::SCENARIOS;
use mlsched_cli::doc::{parse, ScenarioDoc};
use mlsched_kernel::log::HashSink;
use mlsched_kernel::model::placement::Method;
use mlsched_kernel::placement::Placer;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

struct Counting;
static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
            ALLOCS.store(0, Ordering::Relaxed);
            COUNTING.store(true, Ordering::Relaxed);
            let r = p.run(m, &mut sink, |_| seen += 1);
            COUNTING.store(false, Ordering::Relaxed);
            // Exhaustive search refuses the larger scenarios (S^K too big): that path too.
            if m != Method::Exhaustive || name.ends_with("table2") {
                r.unwrap();
            }
            assert_eq!(ALLOCS.load(Ordering::Relaxed), 0, "{name} {m:?}");
            checked += 1;
        }
    }
    assert!(checked >= 7);
}
