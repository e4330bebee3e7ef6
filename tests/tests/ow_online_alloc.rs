//! Zhou et al. in the open world: after jobs were submitted (`OnlineScheduler::submit`) and
//! after a server went down and a capacity changed, deciding still allocates nothing (the
//! events themselves may: they are not decision paths).
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::online::{OnlineDecision, OnlineScheduler, Search};
use mlsched_lab::gen::{online as gen, GenOptions};
use mlsched_tests::alloc_count::{allocations, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[test]
fn decisions_after_open_world_events_allocate_nothing() {
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
        let full = doc.validate().unwrap();
        let mut empty = full.clone();
        empty.jobs.clear();
        let mut s = OnlineScheduler::new(&empty, Search::Fast).unwrap();
        for job in &full.jobs {
            s.submit(job.clone()).unwrap();
        }
        let mut scheduled = 0u32;
        let mut out = |o: &OnlineDecision<'_>| {
            if let OnlineDecision::Decision(d) = o {
                scheduled += d.scheduled as u32;
            }
        };
        let mid = full.slots / 2;
        let run = |s: &mut OnlineScheduler,
                   from: u32,
                   to: u32,
                   out: &mut dyn FnMut(&OnlineDecision<'_>)| {
            for now in from..to {
                s.on_event(now, Event::SlotAdvanced, out).unwrap();
                for (j, job) in full.jobs.iter().enumerate() {
                    if job.arrival == now {
                        s.on_event(now, Event::JobArrived(j as u32), out).unwrap();
                    }
                }
            }
        };
        let ((), first) = allocations(|| run(&mut s, 0, mid, &mut out));
        assert_eq!(
            first, 0,
            "ring {ring}: allocations while deciding submitted jobs"
        );
        s.on_event(mid, Event::ServerDown(0), &mut out).unwrap();
        let h1 = full.servers[1];
        let half: Vec<f64> = (0..h1.len()).map(|r| h1.get(r) / 2.0).collect();
        let c = mlsched_kernel::ResourceVec::from_slice(&half).unwrap();
        s.on_event(mid, Event::Capacity(1, c), &mut out).unwrap();
        let ((), second) = allocations(|| run(&mut s, mid, full.slots, &mut out));
        assert_eq!(
            second, 0,
            "ring {ring}: allocations while deciding after events"
        );
        assert!(scheduled > 0, "ring {ring}: nothing scheduled");
    }
}
