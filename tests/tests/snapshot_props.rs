//! Snapshot and restore: decisions after a restore are identical to an uninterrupted run, at
//! random cut points, driven by the shared action enum (`mlsched_tests::actions`).
use mlsched_kernel::snapshot::{self, SnapshotError, KIND_CORE};
use mlsched_tests::actions::{self, decode_all, Action, CoreState};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Core state (ledger + PRNG + held reservations): any cut gives the same decisions.
    #[test]
    fn core_decisions_survive_a_restore(seed in any::<u64>(), bytes in proptest::collection::vec(any::<u8>(), 0..600), cut in any::<prop::sample::Index>()) {
        let acts = decode_all(&bytes);
        let whole = actions::run(seed, &acts, None);
        let k = if acts.is_empty() { 0 } else { cut.index(acts.len()) };
        prop_assert_eq!(whole, actions::run(seed, &acts, Some(k)));
    }

    /// A corrupted core snapshot is a typed error, never a panic or a silently different state.
    #[test]
    fn corrupted_core_snapshots_are_refused(seed in any::<u64>(), pos in any::<prop::sample::Index>(), x in 1u8..=255) {
        let mut s = CoreState::new(seed);
        let mut sink = mlsched_kernel::log::HashSink::new();
        for a in decode_all(&[0, 0, 4, 1, 2, 2, 3, 0, 1, 5, 1, 1, 1, 2, 2, 9, 9]) {
            s.apply(a, &mut sink);
        }
        let mut b = snapshot::save(KIND_CORE, &s).unwrap();
        let i = pos.index(b.len());
        b[i] ^= x;
        prop_assert!(snapshot::restore::<CoreState>(KIND_CORE, &b).is_err());
    }
}

#[test]
fn snapshot_of_another_kind_is_refused() {
    let s = CoreState::new(3);
    let b = snapshot::save(KIND_CORE, &s).unwrap();
    assert_eq!(
        snapshot::restore::<CoreState>(0x10, &b).unwrap_err(),
        SnapshotError::WrongKind {
            expected: 0x10,
            found: KIND_CORE
        }
    );
    let a = Action::SnapshotRestore;
    let mut s2 = CoreState::new(3);
    s2.apply(a, &mut mlsched_kernel::log::HashSink::new());
}
