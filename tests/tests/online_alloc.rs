//! Zhou et al.: once built, the scheduler allocates nothing while deciding (a counting global
//! allocator watches every `on_event` of a whole generated run, both architectures).
use mlsched_cli::gen::{online as gen, GenOptions};
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::online::{OnlineScheduler, Search};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

struct Counting;
static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);

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
fn decisions_allocate_nothing() {
    for ring in [false, true] {
        let opts = GenOptions {
            seed: 5,
            jobs: Some(30),
            nodes: Some(30),
            trace: None,
        };
        let mut doc = gen::generate(&opts).unwrap();
        if ring {
            doc = gen::to_ring(doc);
        }
        let scn = doc.validate().unwrap();
        let mut s = OnlineScheduler::new(&scn, Search::Fast).unwrap();
        let mut scheduled = 0u32;
        let mut out = |d: &mlsched_kernel::online::OnlineDecision| scheduled += d.scheduled as u32;
        ALLOCS.store(0, Ordering::Relaxed);
        COUNTING.store(true, Ordering::Relaxed);
        for now in 0..scn.slots {
            s.on_event(now, Event::SlotAdvanced, &mut out).unwrap();
            for (j, job) in scn.jobs.iter().enumerate() {
                if job.arrival == now {
                    s.on_event(now, Event::JobArrived(j as u32), &mut out)
                        .unwrap();
                }
            }
        }
        COUNTING.store(false, Ordering::Relaxed);
        assert_eq!(
            ALLOCS.load(Ordering::Relaxed),
            0,
            "ring {ring}: allocations while deciding"
        );
        assert!(scheduled > 0, "ring {ring}: nothing scheduled");
    }
}
