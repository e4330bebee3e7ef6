//! One OASiS admission decision on a built scheduler allocates nothing: a counting global
//! allocator, armed only on this thread around each decision, must see zero allocations. The
//! sparse market may grow to hold an admitted schedule: `OasisScheduler::reserve` makes that room
//! before the decision (amortised), outside the count.
use mlsched_kernel::log::HashSink;
use mlsched_kernel::oasis::OasisScheduler;
use mlsched_tests::alloc_count::{allocations, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn bundled_small() -> mlsched_kernel::model::oasis::OasisScenario {
    let (_, text) = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|(n, _)| *n == "oasis-small")
        .expect("bundled");
    let doc: mlsched_scenario::kinds::oasis::doc::OasisDoc =
        serde_json::from_str(text).expect("parses");
    doc.validate().expect("valid")
}

/// A generated cluster (H = K = 50, R = 5) shortened to 40 slots, so the DP runs on big rows.
fn generated() -> mlsched_kernel::model::oasis::OasisScenario {
    let mut doc = mlsched_lab::gen::oasis::generate(&mlsched_lab::gen::GenOptions {
        seed: 3,
        jobs: Some(60),
        ..Default::default()
    })
    .expect("generates");
    doc.slots = 40.0;
    for j in &mut doc.jobs {
        j.arrival = j.arrival.min(30.0);
        j.epochs = j.epochs.min(60.0);
        j.minibatch_time = j.minibatch_time.min(0.01);
        if let mlsched_scenario::kinds::oasis::doc::UtilityDoc::Sigmoid(g) = &mut j.utility {
            g.decay = g.decay.min(0.5);
        }
    }
    doc.validate().expect("valid")
}

#[test]
fn a_decision_allocates_nothing() {
    for scn in [bundled_small(), generated()] {
        let mut s = OasisScheduler::new(&scn).expect("builds");
        let order = s.arrival_order();
        let mut sink = HashSink::new();
        let (mut admitted, mut dp) = (0, 0);
        for idx in order {
            let a = scn.jobs[idx as usize].arrival;
            // The one step that may grow the sparse market (amortised), outside the count.
            s.reserve(idx);
            let (d, allocated) = allocations(|| s.decide_logged(a, idx, &mut sink));
            let d = d.expect("decides");
            assert_eq!(allocated, 0, "job {idx} allocated");
            admitted += d.admitted as u32;
            dp += (s.last_work() > 0) as u32;
        }
        assert!(
            admitted > 0 && dp > 0,
            "the DP ran: {admitted} admitted, {dp} DP decisions"
        );
    }
}
