//! OASiS: the fast DP against the paper-literal DP (Alg. 2) on 2,000 small random instances,
//! with every schedule invariant checked on every decision.
mod oasis_common;
use mlsched_kernel::oasis::{reference, OasisScheduler, Reason};
use oasis_common::{
    check_market, check_schedule, close, medium_instance, owned, priced_cost, small_instance,
};
use proptest::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

static DECISIONS: AtomicU64 = AtomicU64::new(0);
static ADMITTED: AtomicU64 = AtomicU64::new(0);
static REJECTED_PAYOFF: AtomicU64 = AtomicU64::new(0);
static REJECTED_INFEASIBLE: AtomicU64 = AtomicU64::new(0);

/// Runs one instance: per job (arrival order), the reference and the fast path decide on the
/// same prices; then the fast decision is committed.
fn run_instance(seed: u64) -> Result<(), TestCaseError> {
    run_scenario(seed, small_instance(seed)).map(|_| ())
}

fn run_scenario(
    seed: u64,
    scn: mlsched_kernel::model::oasis::OasisScenario,
) -> Result<u32, TestCaseError> {
    let mut s = OasisScheduler::new(&scn).expect("builds");
    let mut admitted = 0;
    for idx in s.arrival_order() {
        let job = *s.job(idx).unwrap();
        let before = s.market().clone();
        let r = reference::decide(&before, idx, &job, &scn.jobs[idx as usize].utility);
        let d = s.decide(job.arrival, idx).expect("decides");
        check_schedule(&before, &job, &d, &s.last_schedule());
        check_market(s.market(), &before);
        let rd = r.decision;
        prop_assert_eq!(
            d.reason,
            rd.reason,
            "seed {} job {}: {:?} vs {:?}",
            seed,
            idx,
            d,
            rd
        );
        prop_assert_eq!(d.admitted, rd.admitted);
        if d.admitted {
            prop_assert!(
                close(d.payoff, rd.payoff),
                "seed {seed} job {idx}: payoff {} vs {}",
                d.payoff,
                rd.payoff
            );
            prop_assert!(close(d.cost, rd.cost));
            prop_assert!(close(d.utility, rd.utility));
            // The reference schedule costs the same when priced on the same market.
            let ref_slots: Vec<_> = r
                .slots
                .iter()
                .map(|x| (x.slot, x.workers.clone(), x.ps.clone()))
                .collect();
            let (fast_slots, _) = owned(&s.last_schedule());
            prop_assert!(close(
                priced_cost(&before, &job, &ref_slots),
                priced_cost(&before, &job, &fast_slots)
            ));
            prop_assert_eq!(r.slots.iter().map(|x| x.chunks).sum::<u64>(), job.workload);
        }
        admitted += d.admitted as u32;
        DECISIONS.fetch_add(1, Ordering::Relaxed);
        match d.reason {
            Reason::Admitted => ADMITTED.fetch_add(1, Ordering::Relaxed),
            Reason::NonPositivePayoff => REJECTED_PAYOFF.fetch_add(1, Ordering::Relaxed),
            Reason::NoFeasibleSchedule => REJECTED_INFEASIBLE.fetch_add(1, Ordering::Relaxed),
        };
    }
    Ok(admitted)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn fast_equals_reference(seed in any::<u64>()) {
        run_instance(seed)?;
    }
}

/// A fixed sweep (deterministic, independent of proptest's seed) that also proves the
/// instances exercise every outcome: admissions and both kinds of rejection.
#[test]
fn fixed_sweep_covers_every_outcome() {
    for seed in 0..400u64 {
        run_instance(seed).unwrap();
    }
    let (a, p, i) = (
        ADMITTED.load(Ordering::Relaxed),
        REJECTED_PAYOFF.load(Ordering::Relaxed),
        REJECTED_INFEASIBLE.load(Ordering::Relaxed),
    );
    eprintln!(
        "decisions {} admitted {a} rejected(payoff) {p} rejected(infeasible) {i}",
        DECISIONS.load(Ordering::Relaxed)
    );
    assert!(a > 0 && p > 0 && i > 0);
}

/// 30 medium instances (T 20-30, up to ~400 chunks, 6 servers per pool): the row band, the
/// lower-bound prune and the early t_hat stop on bigger rows.
#[test]
fn medium_instances_agree() {
    let mut admitted = 0;
    for seed in 0..30u64 {
        admitted += run_scenario(seed, medium_instance(seed)).unwrap();
    }
    assert!(admitted >= 20, "medium instances admit jobs: {admitted}");
}
