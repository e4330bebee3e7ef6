//! Arithmetic shared by the fast search and the literal reference: rho (eqs. 1 and 14), the
//! duration / worker-count ranges of A_mincost1/2 and A_RAmincost1/2, fixed-point unit prices,
//! and the fit counts floor(omega / e) and s-hat(g).
//!
//! Both searches call these same functions, so every float they compare is computed by the same
//! expression; costs are exact integers (see [`quantize`]), so the summation order of a search
//! cannot change a cost or a tie.
use crate::model::online::{OnlineJob, TaskType};
use crate::num::{ceil_u32, floor_fit};

/// Fractional bits of the fixed-point unit prices: a unit price is stored as round(x 2^20).
pub const PRICE_FRAC_BITS: u32 = 20;
/// 2^[`PRICE_FRAC_BITS`].
pub const PRICE_SCALE: f64 = (1u64 << PRICE_FRAC_BITS) as f64;

/// A slot's unit price of one worker type m (or PS type p) on one server,
/// sum_r delta_h^r(t) e_m^r (r in index order), rounded to a multiple of 2^-20 and stored as an
/// integer. [R] With integer unit prices every window sum Omega_h and every schedule cost
/// sum_t sum_h sum_r delta (e y + z s) is exact, so a prefix-sum difference equals the literal
/// left-to-right sum bit for bit and ties are exact equalities.
pub fn quantize(x: f64) -> u128 {
    let y = libm::floor(x * PRICE_SCALE + 0.5);
    if y > 0.0 {
        // `as` saturates for values beyond u128 (never reached with validated inputs).
        y as u128
    } else {
        0
    }
}

/// A fixed-point cost as f64 (what results and logs report).
pub fn cost_f64(c: u128) -> f64 {
    c as f64 / PRICE_SCALE
}

/// Unit price of demand `d` under the per-resource prices `delta` (one slot, one server).
pub fn unit_price(delta: &[f64], d: &TaskType) -> u128 {
    let mut s = 0.0;
    for (r, &x) in delta.iter().enumerate() {
        s += x * d.demand.get(r);
    }
    quantize(s)
}

/// How many copies of demand `e` fit into the free capacities `free` (one per resource):
/// min over r with e^r > 0 of floor(omega^r / e^r). Resources with zero demand do not bind.
pub fn fit(free: &[f64], e: &TaskType) -> u32 {
    let mut best = u32::MAX;
    for (r, &f) in free.iter().enumerate() {
        let d = e.demand.get(r);
        if d > 0.0 {
            best = best.min(floor_fit(f / d));
        }
    }
    best
}

/// Whether [`fit`]`(free, e) >= need`, without the floors: fit takes
/// floor(omega^r / e^r + 1e-9) per resource, and for an integer n, floor(y) >= n exactly when
/// y >= n (fit's clamping, to 0 below and u32::MAX above, keeps that for n >= 1). The same
/// expression as [`fit`] computes y, so the answer is exact; a pass over many servers that
/// only needs to know which can hold `need` tasks skips the per-resource minimum of the counts.
pub fn fits_at_least(free: &[f64], e: &TaskType, need: u32) -> bool {
    if need == 0 {
        return true;
    }
    let n = need as f64;
    free.iter().enumerate().all(|(r, &f)| {
        let d = e.demand.get(r);
        // NaN >= n is false, as floor(NaN) clamps to 0 < n.
        d.partial_cmp(&0.0) != Some(core::cmp::Ordering::Greater)
            || f / d + crate::num::ROUND_EPS >= n
    })
}

/// s-hat(g) of A_mincost1 line 16: PSs of type `z` that fit beside `g` workers of type `e`,
/// min over r with z^r > 0 of floor((omega^r - g e^r) / z^r).
pub fn ps_fit(free: &[f64], g: u32, e: &TaskType, z: &TaskType) -> u32 {
    let mut best = u32::MAX;
    for (r, &f) in free.iter().enumerate() {
        let d = z.demand.get(r);
        if d > 0.0 {
            best = best.min(floor_fit((f - g as f64 * e.demand.get(r)) / d));
        }
    }
    best
}

/// PSs needed by (13d): ceil(rest b_m / B_p) for `rest` workers away from the PS server.
pub fn ps_needed(rest: u32, wt: &TaskType, pt: &TaskType) -> u32 {
    ceil_u32(rest as f64 * wt.bw / pt.bw).unwrap_or(u32::MAX)
}

/// rho_jm^p of eq. (1): 1 / (v_jm + U_j^p) when colocated (q = 1), else
/// 1 / (v_jm + U_j^p + 2 pi_j / b_m).
pub fn rho_ps(job: &OnlineJob, m: usize, p: usize, wt: &TaskType, colocated: bool) -> f64 {
    let v = job.minibatch_time.get(m).copied().unwrap_or(1.0);
    let u = job.update_time.get(p).copied().unwrap_or(0.0);
    if colocated {
        1.0 / (v + u)
    } else {
        1.0 / (v + u + 2.0 * job.gradient_size / wt.bw)
    }
}

/// rho_jm of eq. (14) with Phi workers: 1 / (v + U (Phi-1)/Phi) when on one server (q = 1), else
/// 1 / (v + U (Phi-1)/Phi + 2 pi (Phi-1) / (Phi b_m)).
pub fn rho_ring(job: &OnlineJob, m: usize, phi: u32, wt: &TaskType, colocated: bool) -> f64 {
    let v = job.minibatch_time.get(m).copied().unwrap_or(1.0);
    let u = job.update_time.first().copied().unwrap_or(0.0);
    let f = (phi as f64 - 1.0) / phi as f64;
    if colocated {
        1.0 / (v + u * f)
    } else {
        1.0 / (v + u * f + 2.0 * job.gradient_size * f / wt.bw)
    }
}

/// E_j D_j K_j, the mini-batches of the whole job.
pub fn edk(job: &OnlineJob) -> f64 {
    job.epochs as f64 * job.chunks as f64 * job.minibatches_per_chunk as f64
}

/// The duration range of A_mincost1/2 line 5: L from ceil(E K / rho) (D workers) to
/// ceil(E D K / rho) (one worker), at least 1.
pub fn duration_range(job: &OnlineJob, rho: f64) -> (u32, u32) {
    let ek = job.epochs as f64 * job.minibatches_per_chunk as f64;
    let lo = ceil_u32(ek / rho).unwrap_or(u32::MAX).max(1);
    let hi = ceil_u32(edk(job) / rho).unwrap_or(u32::MAX).max(1);
    (lo, hi)
}

/// N of (13c): ceil(E D K / (L rho)) workers for duration L, at least 1; `None` when above D_j.
pub fn workers_for(job: &OnlineJob, dur: u32, rho: f64) -> Option<u32> {
    let n = ceil_u32(edk(job) / (dur as f64 * rho))?.max(1);
    (n <= job.chunks).then_some(n)
}

/// d-hat of A_RAmincost1/2 line 5: ceil(E D K / (Phi rho)), at least 1.
pub fn ring_duration(job: &OnlineJob, phi: u32, rho: f64) -> u32 {
    ceil_u32(edk(job) / (phi as f64 * rho))
        .unwrap_or(u32::MAX)
        .max(1)
}

/// One candidate schedule found by a search, with the enumeration index that breaks cost ties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cand {
    /// Exact fixed-point cost (see [`quantize`]).
    pub cost: u128,
    /// Position in the listing's enumeration: PS (m, p, L, t-, n or h), ring (m, Phi, t-, h, 0).
    pub idx: [u32; 5],
    /// q_j.
    pub colocated: bool,
    /// Worker type m.
    pub m: u32,
    /// PS type p (`u32::MAX` for ring).
    pub p: u32,
    /// Duration L_j.
    pub dur: u32,
    /// Window start t- (relative to the window base).
    pub tminus: u32,
    /// PS server n (PS, q = 0) or the single server h (q = 1); 0 for ring q = 0.
    pub host: u32,
    /// Workers N (or Phi).
    pub workers: u32,
}

impl Cand {
    /// True when `self` precedes `best` in (cost, enumeration index) order, i.e. the listing's
    /// "keep the strict minimum, first found wins ties".
    pub fn beats(&self, best: &Option<Cand>) -> bool {
        match best {
            None => true,
            Some(b) => (self.cost, self.idx) < (b.cost, b.idx),
        }
    }
}

/// Whether a candidate with cost at least `lb` and index at least `idx` could still beat `best`
/// (used to prune without computing the candidate).
pub fn may_beat(lb: u128, idx: [u32; 5], best: &Option<Cand>) -> bool {
    match best {
        None => true,
        Some(b) => (lb, idx) < (b.cost, b.idx),
    }
}
