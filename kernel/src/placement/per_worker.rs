//! The fast market's instance with one class per worker (feature `reference`): on it
//! [`super::Market`] runs the per-worker tie-aware market of `docs/placement.md` without any
//! grouping. An adapter for tests and benchmarks, not a reference: the independent per-worker
//! market is [`super::reference::market`].
use super::Instance;
use alloc::vec::Vec;

/// The instance with one class per worker (no grouping of identical columns).
pub fn per_worker_instance(inst: &Instance) -> Instance {
    let mut out = inst.clone();
    let (s, k) = (inst.s, inst.k);
    let c = &mut out.classes;
    c.of = (0..k as u32).collect();
    c.members = (0..k as u32).collect();
    c.start = (0..=k as u32).collect();
    c.rho = inst.rho.clone();
    c.order = Vec::with_capacity(s * k);
    for i in 0..s {
        let mut idx: Vec<u32> = (0..k as u32).collect();
        crate::order::sort_indices_by(&mut idx, &|a, b| {
            inst.rho(i, b as usize)
                .total_cmp(&inst.rho(i, a as usize))
                .then(a.cmp(&b))
        });
        c.order.extend_from_slice(&idx);
    }
    out
}
