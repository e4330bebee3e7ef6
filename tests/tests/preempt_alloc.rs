//! Wang et al. (kind "preempt"): the decision path allocates nothing once the scheduler is
//! built — every event of a generated paper-like run (dispatches, A_ps, pool compactions) under
//! a counting global allocator, for every policy.
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::preempt::{Policy, PreemptScheduler};
use mlsched_tests::alloc_count::{allocations, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[test]
fn decisions_allocate_nothing() {
    let opts = mlsched_lab::gen::GenOptions {
        seed: 4,
        jobs: Some(120),
        nodes: Some(6),
        trace: None,
        slots: None,
    };
    let text = mlsched_lab::gen::generate_json("preempt", &opts).unwrap();
    let doc: mlsched_scenario::kinds::preempt::doc::PreemptDoc =
        serde_json::from_str(&text).unwrap();
    let scn = doc.validate().unwrap();
    let mut order: Vec<u32> = (0..scn.jobs.len() as u32).collect();
    order.sort_by_key(|&j| (scn.jobs[j as usize].arrival, j));
    for policy in [
        Policy::Greedy,
        Policy::AllCloud,
        Policy::EdgeFifo,
        Policy::Random,
    ] {
        let mut s = PreemptScheduler::new(&scn, policy).unwrap();
        let mut decisions = 0u64;
        let (mut next, mut t) = (0usize, 0u32);
        let ((), allocated) = allocations(|| loop {
            while next < order.len() && scn.jobs[order[next] as usize].arrival == t {
                s.on_event(t, Event::JobArrived(order[next]), &mut |_| decisions += 1)
                    .unwrap();
                next += 1;
            }
            s.on_event(t, Event::SlotAdvanced, &mut |_| decisions += 1)
                .unwrap();
            t += 1;
            if next >= order.len() && t >= s.horizon_end() {
                break;
            }
        });
        assert!(decisions > 1000, "{policy:?}: only {decisions} decisions");
        assert_eq!(allocated, 0, "{policy:?} allocated");
    }
}
