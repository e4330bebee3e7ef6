//! Zhou et al.: the fast search and the paper-literal listings give identical schedules (same
//! cost, same tie-break, same placement, same log hash) on >= 1,000 small random instances, for
//! the PS and the Ring-AllReduce architectures.
mod online_common;
use mlsched_kernel::model::online::Architecture;
use mlsched_kernel::online::Search;
use online_common::{decisions, long_window_instance, many_servers_instance, small_instance};
use proptest::prelude::*;

fn same(seed: u64, arch: Architecture) -> Result<(), TestCaseError> {
    let scn = small_instance(seed, arch);
    let (fast, hf) = decisions(&scn, Search::Fast);
    let (lit, hl) = decisions(&scn, Search::Reference);
    prop_assert_eq!(&fast, &lit, "seed {} {:?}", seed, arch);
    prop_assert_eq!(hf, hl);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]
    #[test]
    fn fast_equals_literal_ps(seed in any::<u64>()) {
        same(seed, Architecture::Ps)?;
    }

    #[test]
    fn fast_equals_literal_ring(seed in any::<u64>()) {
        same(seed, Architecture::Ring)?;
    }
}

fn same_wide(seed: u64, arch: Architecture) -> Result<(), TestCaseError> {
    let scn = many_servers_instance(seed, arch);
    let (fast, hf) = decisions(&scn, Search::Fast);
    let (lit, hl) = decisions(&scn, Search::Reference);
    prop_assert_eq!(&fast, &lit, "wide seed {} {:?}", seed, arch);
    prop_assert_eq!(hf, hl);
    Ok(())
}

proptest! {
    // Many servers of two shapes: the fast search keeps only the busy servers and the first
    // K_s idle ones of each shape, the literal listings see all of them.
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn fast_equals_literal_many_identical_servers_ps(seed in any::<u64>()) {
        same_wide(seed, Architecture::Ps)?;
    }

    #[test]
    fn fast_equals_literal_many_identical_servers_ring(seed in any::<u64>()) {
        same_wide(seed, Architecture::Ring)?;
    }
}

fn same_long(seed: u64, arch: Architecture) -> Result<(), TestCaseError> {
    let scn = long_window_instance(seed, arch);
    let (fast, hf) = decisions(&scn, Search::Fast);
    let (lit, hl) = decisions(&scn, Search::Reference);
    prop_assert_eq!(&fast, &lit, "long seed {} {:?}", seed, arch);
    prop_assert_eq!(hf, hl);
    Ok(())
}

proptest! {
    // Windows of 512 slots: the PS search reads window minima from runs of equal usage there
    // (short windows keep sliding minima), and stops early once nothing can win.
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]
    #[test]
    fn fast_equals_literal_long_windows_ps(seed in any::<u64>()) {
        same_long(seed, Architecture::Ps)?;
    }

    #[test]
    fn fast_equals_literal_long_windows_ring(seed in any::<u64>()) {
        same_long(seed, Architecture::Ring)?;
    }
}

/// The long-window instances schedule jobs (in windows of 512 slots) under both architectures.
#[test]
fn long_window_instances_schedule_jobs() {
    for arch in [Architecture::Ps, Architecture::Ring] {
        let mut long = 0;
        for seed in 0..40 {
            let (d, _) = decisions(&long_window_instance(seed, arch), Search::Fast);
            long += d.iter().filter(|d| d.scheduled && d.tau == 512).count();
        }
        assert!(long > 0, "{arch:?}: nothing scheduled in a 512-slot window");
    }
}

/// The random instances are not trivial: many schedule jobs, some refuse some (u_j <= 0 or no
/// room), and both q_j = 0 and q_j = 1 win somewhere.
#[test]
fn instances_exercise_both_branches() {
    let mut stats = [0u32; 5];
    for seed in 0..300 {
        for arch in [Architecture::Ps, Architecture::Ring] {
            let (d, _) = decisions(&small_instance(seed, arch), Search::Fast);
            stats[0] += d.iter().filter(|d| d.scheduled && d.colocated).count() as u32;
            stats[1] += d.iter().filter(|d| d.scheduled && !d.colocated).count() as u32;
            stats[2] += d.iter().filter(|d| d.feasible && !d.scheduled).count() as u32;
            stats[3] += d.iter().filter(|d| !d.feasible).count() as u32;
            stats[4] += d.iter().filter(|d| d.scheduled && d.cost > 0.0).count() as u32;
        }
    }
    eprintln!(
        "q1 {} q0 {} unprofitable {} infeasible {} priced {}",
        stats[0], stats[1], stats[2], stats[3], stats[4]
    );
    assert!(stats.iter().all(|&s| s > 0), "{stats:?}");
}

/// The same on generated paper-like scenarios (8 worker and 10 PS types, section 7's ranges),
/// shrunk to 6 servers so the literal listings stay affordable.
#[test]
fn fast_equals_literal_on_generated_scenarios() {
    use mlsched_lab::gen::{online as gen, GenOptions};
    let mut scheduled = 0;
    for seed in 1..=3 {
        for ring in [false, true] {
            let opts = GenOptions {
                seed,
                jobs: Some(6),
                nodes: Some(6),
                trace: None,
                slots: None,
            };
            let mut doc = gen::generate(&opts).unwrap();
            if ring {
                doc = gen::to_ring(doc);
            }
            let scn = doc.validate().unwrap();
            let (fast, hf) = decisions(&scn, Search::Fast);
            let (lit, hl) = decisions(&scn, Search::Reference);
            assert_eq!(fast, lit, "seed {seed} ring {ring}");
            assert_eq!(hf, hl);
            scheduled += fast.iter().filter(|d| d.scheduled).count();
        }
    }
    assert!(scheduled >= 6, "only {scheduled} jobs scheduled");
}
