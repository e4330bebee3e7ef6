//! Zhou et al.: once built, the scheduler allocates nothing while deciding (a counting global
//! allocator watches every `on_event` of a whole generated run, both architectures).
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::online::{OnlineScheduler, Search};
use mlsched_lab::gen::{online as gen, GenOptions};
use mlsched_tests::alloc_count::{allocations, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[test]
fn decisions_allocate_nothing() {
    for ring in [false, true] {
        let opts = GenOptions {
            seed: 5,
            jobs: Some(30),
            nodes: Some(30),
            trace: None,
            slots: None,
        };
        let mut doc = gen::generate(&opts).unwrap();
        if ring {
            doc = gen::to_ring(doc);
        }
        let scn = doc.validate().unwrap();
        let mut s = OnlineScheduler::new(&scn, Search::Fast).unwrap();
        let mut scheduled = 0u32;
        let mut out = |o: &mlsched_kernel::online::OnlineDecision<'_>| {
            if let mlsched_kernel::online::OnlineDecision::Decision(d) = o {
                scheduled += d.scheduled as u32;
            }
        };
        let ((), allocated) = allocations(|| {
            for now in 0..scn.slots {
                s.on_event(now, Event::SlotAdvanced, &mut out).unwrap();
                for (j, job) in scn.jobs.iter().enumerate() {
                    if job.arrival == now {
                        s.on_event(now, Event::JobArrived(j as u32), &mut out)
                            .unwrap();
                    }
                }
            }
        });
        assert_eq!(allocated, 0, "ring {ring}: allocations while deciding");
        assert!(scheduled > 0, "ring {ring}: nothing scheduled");
    }
}
