//! A counting global allocator proves that the kernel's core decision path — free-capacity
//! lookups, fits, a price evaluation, a server ordering, a ledger reservation and logging the
//! decision through the hash sink — allocates nothing once the ledger is built.
//! (Each algorithm adds its own no-allocation test of a full decision, e.g. `oasis_alloc.rs`.)
use mlsched_kernel::ledger::Ledger;
use mlsched_kernel::log::{HashSink, LogSink, TAG_OASIS};
use mlsched_kernel::order::sort_indices_by_keys;
use mlsched_kernel::price::oasis_price;
use mlsched_kernel::ResourceVec;
use mlsched_tests::alloc_count::{allocations, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[derive(serde::Serialize)]
struct Decision {
    job: u32,
    server: u32,
    workers: u32,
    cost: f64,
}

#[test]
fn core_decision_path_allocates_nothing() {
    let caps: Vec<ResourceVec> = (0..16)
        .map(|h| ResourceVec::from_slice(&[4.0 + h as f64, 64.0, 256.0]).unwrap())
        .collect();
    let mut ledger = Ledger::with_capacities(100, &caps).unwrap();
    let demand = ResourceVec::from_slice(&[1.0, 4.0, 16.0]).unwrap();
    let mut keys = vec![0.0; 16];
    let mut idx: Vec<u32> = (0..16).collect();
    let mut scratch = vec![0u32; 16];
    let mut sink = HashSink::new();

    let ((), allocated) = allocations(|| {
        for job in 0..50u32 {
            let slot = job % 90;
            for (h, key) in keys.iter_mut().enumerate() {
                let free = ledger.free(slot, h as u32).unwrap();
                let used = caps[h].get(0) - free.get(0);
                *key = oasis_price(0.1, 60.0, used, caps[h].get(0)) * demand.get(0);
            }
            sort_indices_by_keys(&mut idx, &keys, &mut scratch);
            let best = idx[0];
            let fit = ledger.free(slot, best).unwrap().fits(&demand).min(2);
            if fit > 0 {
                ledger.reserve(slot, slot + 10, best, &demand, fit).unwrap();
            }
            sink.record(
                TAG_OASIS,
                &Decision {
                    job,
                    server: best,
                    workers: fit,
                    cost: keys[best as usize],
                },
            )
            .unwrap();
        }
    });
    assert_eq!(
        allocated, 0,
        "the decision path allocated {allocated} times"
    );
    assert_eq!(sink.hash().records(), 50);
}

#[test]
fn the_counter_sees_allocations() {
    // Guards every no-allocation test against a counter that silently counts nothing.
    let (v, n) = allocations(|| vec![7u8; 64]);
    assert_eq!(v.len(), 64);
    assert!(n >= 1, "a Vec allocation was not counted");
}
