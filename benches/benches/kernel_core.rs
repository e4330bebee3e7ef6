//! Core kernel hot loops: ledger reservation and the merge index sort against insertion sort.
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use mlsched_kernel::ledger::Ledger;
use mlsched_kernel::order::{sort_indices_by_key, sort_indices_by_keys};
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::ResourceVec;

fn ledger(c: &mut Criterion) {
    let caps: Vec<ResourceVec> = (0..50)
        .map(|_| ResourceVec::from_slice(&[8.0, 64.0, 488.0, 25.0]).unwrap())
        .collect();
    let d = ResourceVec::from_slice(&[1.0, 4.0, 16.0, 1.0]).unwrap();
    c.bench_function("ledger/reserve+release 50 slots", |b| {
        let mut l = Ledger::with_capacities(300, &caps).unwrap();
        b.iter(|| {
            l.reserve(10, 60, black_box(7), &d, 2).unwrap();
            l.release(10, 60, 7, &d, 2).unwrap();
        })
    });
}

fn sorting(c: &mut Criterion) {
    let mut rng = SplitMix64::new(1);
    let keys: Vec<f64> = (0..300).map(|_| (rng.below(50)) as f64).collect();
    let mut g = c.benchmark_group("order/sort 300 servers");
    g.bench_function("reference insertion", |b| {
        b.iter(|| {
            let mut idx: Vec<u32> = (0..300).collect();
            sort_indices_by_key(&mut idx, |i| keys[i as usize]);
            black_box(idx)
        })
    });
    g.bench_function("fast merge", |b| {
        let mut scratch = vec![0u32; 300];
        b.iter(|| {
            let mut idx: Vec<u32> = (0..300).collect();
            sort_indices_by_keys(&mut idx, &keys, &mut scratch);
            black_box(idx)
        })
    });
    g.finish();
}

criterion_group!(benches, ledger, sorting);
criterion_main!(benches);
