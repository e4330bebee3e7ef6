//! The usage ledger under random reserve/release sequences: usage never exceeds capacity, every
//! refusal is a typed error that changes nothing, and accepted operations are tracked exactly.
use mlsched_kernel::ledger::Ledger;
use mlsched_kernel::{LedgerError, ResourceVec};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Reserve {
        from: u32,
        len: u32,
        server: u32,
        amount: [f64; 3],
        count: u32,
    },
    Release {
        from: u32,
        len: u32,
        server: u32,
        amount: [f64; 3],
        count: u32,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let amount = prop::array::uniform3(prop_oneof![
        Just(0.0),
        0.0..6.0f64,
        Just(-1.0),
        Just(f64::NAN)
    ]);
    (any::<bool>(), 0u32..14, 0u32..5, 0u32..5, amount, 0u32..4).prop_map(
        |(res, from, len, server, amount, count)| {
            if res {
                Op::Reserve {
                    from,
                    len,
                    server,
                    amount,
                    count,
                }
            } else {
                Op::Release {
                    from,
                    len,
                    server,
                    amount,
                    count,
                }
            }
        },
    )
}

const SLOTS: u32 = 12;
const SERVERS: u32 = 4;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn usage_stays_within_capacity(ops in prop::collection::vec(op(), 1..60)) {
        let caps: Vec<ResourceVec> = (0..SERVERS)
            .map(|h| ResourceVec::from_slice(&[8.0 + h as f64, 16.0, 4.0]).unwrap())
            .collect();
        let mut l = Ledger::with_capacities(SLOTS as usize, &caps).unwrap();
        // A shadow model in plain arrays: what the ledger must hold after each accepted op.
        let mut shadow = vec![0.0f64; (SLOTS * SERVERS * 3) as usize];
        for op in ops {
            let before: Vec<f64> = l.usage_cells().to_vec();
            let (from, len, server, amount, count, reserve) = match op {
                Op::Reserve { from, len, server, amount, count } => (from, len, server, amount, count, true),
                Op::Release { from, len, server, amount, count } => (from, len, server, amount, count, false),
            };
            let a = ResourceVec::from_slice(&amount).unwrap();
            let r = if reserve { l.reserve(from, from + len, server, &a, count) } else { l.release(from, from + len, server, &a, count) };
            match r {
                Ok(()) => {
                    for t in from..from + len {
                        for res in 0..3u32 {
                            let i = ((t * SERVERS + server) * 3 + res) as usize;
                            let d = amount[res as usize] * count as f64;
                            if reserve { shadow[i] += d } else { shadow[i] = (shadow[i] - d).max(0.0) }
                        }
                    }
                }
                Err(e) => {
                    // Every refusal is one of the typed reasons, and leaves the ledger unchanged.
                    let bad_amount = amount.iter().any(|x| !(x.is_finite() && *x >= 0.0));
                    match e {
                        LedgerError::BadAmount { .. } => prop_assert!(bad_amount),
                        LedgerError::OutOfRange { slot, server: s, .. } => prop_assert!(slot >= SLOTS || s >= SERVERS),
                        LedgerError::OverCapacity { would_use, capacity, .. } => { prop_assert!(reserve); prop_assert!(would_use > capacity); }
                        LedgerError::ReleaseUnderflow { .. } => prop_assert!(!reserve),
                        other => prop_assert!(false, "unexpected refusal {other:?}"),
                    }
                    prop_assert_eq!(&before[..], l.usage_cells());
                }
            }
            for t in 0..SLOTS {
                for h in 0..SERVERS {
                    for res in 0..3u32 {
                        let g = l.usage(t, h, res).unwrap();
                        let c = l.capacity(h, res).unwrap();
                        prop_assert!(g <= c * (1.0 + 1e-9) + 1e-9, "slot {t} server {h} res {res}: {g} > {c}");
                        prop_assert!(g >= 0.0);
                        let i = ((t * SERVERS + h) * 3 + res) as usize;
                        prop_assert!((g - shadow[i]).abs() <= 1e-6, "ledger {g} vs shadow {}", shadow[i]);
                    }
                }
            }
        }
    }
}

#[test]
fn construction_errors_are_typed() {
    let caps = [ResourceVec::from_slice(&[1.0]).unwrap()];
    let e = Ledger::with_capacities(300_000, &caps).unwrap_err();
    assert_eq!(
        e.to_string(),
        "300000 exceeds this build's limit SLOTS_MAX = 262144"
    );
    let mut cap = [f64::NAN];
    let mut usage = [0.0; 2];
    let e = Ledger::new(2, 1, 1, &mut cap[..], &mut usage[..]).unwrap_err();
    assert_eq!(
        e,
        LedgerError::BadCapacity {
            server: 0,
            resource: 0
        }
    );
    let mut cap = [1.0];
    let mut usage = [0.0; 3];
    let e = Ledger::new(2, 1, 1, &mut cap[..], &mut usage[..]).unwrap_err();
    assert_eq!(
        e,
        LedgerError::StorageSize {
            needed: 2,
            given: 3
        }
    );
}
