//! The Ring-AllReduce path of the fast search (A_RAmincost1/2): only the Phi whose d-hat can
//! fit the window are evaluated, bucketed by duration; q = 1 and q = 0 in one pass over the
//! durations that occur ([`ring_search`]), with whole-window capacity bounds.
use super::scratch::FastScratch;
use super::useful;
use crate::index::NONE;
use crate::model::online::{OnlineJob, OnlineScenario};
use crate::online::common::*;
use crate::online::{Ctx, Window};
use alloc::vec::Vec;

/// The ring options of the current job, bucketed by duration.
#[derive(Clone, Debug)]
pub(super) struct RingTable {
    /// Ring: the (m, Phi, q) whose duration fits the window, bucketed by duration
    /// (`ring[ring_at[d]..ring_at[d + 1]]`), in (m, Phi, q = 1 first) order within a bucket.
    pub(super) ents: Vec<RingEnt>,
    /// Ring: the same entries with their durations, in (m, Phi, q) order (bucket sort input).
    pub(super) tmp: Vec<(u32, RingEnt)>,
    pub(super) at: Vec<u32>,
    pub(super) fill: Vec<u32>,
    pub(super) phis: usize,
}

/// One ring option of a job: worker type m, Phi workers, q_j = 1 (one server) or 0.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RingEnt {
    pub(super) m: u32,
    pub(super) phi: u32,
    pub(super) one: bool,
}

/// The smallest Phi whose d-hat (A_RAmincost1/2 line 5) can be below `len`; every smaller Phi is
/// skipped without evaluating eq. (14). In exact arithmetic eq. (14) only adds non-negative terms
/// to v_jm, so rho_jm <= 1 / v_jm and E D K / (Phi rho_jm) >= E D K v_jm / Phi for both q. A Phi
/// with E D K v_jm >= Phi len (1 + 1e-6) therefore has E D K / (Phi rho) >= len up to a few ulps,
/// far above len - 1 + 1e-9, so ceil_eps gives d-hat >= len: it cannot fit (t- >= 1). Returns 1
/// when a term's sign is not known (the bound would not hold).
pub(super) fn ring_phi_first(job: &OnlineJob, edk: f64, m: usize, len: u32) -> u32 {
    let v = job.minibatch_time.get(m).copied().unwrap_or(1.0);
    let u = job.update_time.first().copied().unwrap_or(0.0);
    let x = edk * v;
    if !(v > 0.0 && u >= 0.0 && job.gradient_size >= 0.0 && x.is_finite()) || len == 0 {
        return 1;
    }
    // lim >= 0 and finite here, so the saturating cast is floor(lim).
    let lim = x / (len as f64 * (1.0 + 1e-6));
    (lim as u32).saturating_add(1)
}

/// The most ring options (m, Phi, q) [`ring_table`] can keep for one job in any window of at
/// most `wcap` slots: Phi runs from [`ring_phi_first`] (non-increasing in the window length, so
/// the `wcap` value is the smallest) to min(D_j, Phi_max(m), `phis`), two q each.
pub fn ring_options_max(scn: &OnlineScenario, phi_max: &[u32], wcap: u32, phis: u32) -> usize {
    scn.jobs
        .iter()
        .map(|job| ring_options_of(scn, job, phi_max, wcap, phis))
        .max()
        .unwrap_or(0)
}

/// [`ring_options_max`] for one job (a submitted job extends the bound by this, O(M)).
pub fn ring_options_of(
    scn: &OnlineScenario,
    job: &OnlineJob,
    phi_max: &[u32],
    wcap: u32,
    phis: u32,
) -> usize {
    let work = edk(job);
    let mut n = 0usize;
    for (m, &pm) in phi_max.iter().enumerate().take(scn.worker_types.len()) {
        let top = job.chunks.min(pm).min(phis);
        let first = ring_phi_first(job, work, m, wcap);
        if first <= top {
            n = n.saturating_add(2 * (top - first + 1) as usize);
        }
    }
    n
}

/// Per job: every (m, Phi, q) of A_RAmincost1/2 whose duration d-hat fits the window (t- >= 1,
/// so d < len), bucketed by duration (a counting sort keeps the (m, Phi, q) order inside a
/// bucket); returns the longest such duration (0 if none).
pub(super) fn ring_table(cx: &Ctx, job: &OnlineJob, s: &mut FastScratch, len: u32) -> u32 {
    let mut n = 0;
    let mut longest = 0;
    let buckets = (len as usize + 1).min(s.ring.at.len());
    s.ring.at[..buckets].iter_mut().for_each(|c| *c = 0);
    let work = edk(job);
    for m in 0..s.m {
        let top = job.chunks.min(cx.phi_max(m)).min(s.ring.phis as u32);
        let first = ring_phi_first(job, work, m, len);
        if first > top {
            continue;
        }
        let wt = &cx.scn.worker_types[m];
        for phi in first..=top {
            for one in [true, false] {
                let d = ring_duration(job, phi, rho_ring(job, m, phi, wt, one));
                let (Some(c), Some(slot)) = (s.ring.at.get_mut(d as usize), s.ring.tmp.get_mut(n))
                else {
                    continue;
                };
                if d >= len {
                    continue;
                }
                *c += 1;
                let m = m as u32;
                *slot = (d, RingEnt { m, phi, one });
                n += 1;
                longest = longest.max(d);
            }
        }
    }
    // Counting sort: bucket d is ring[ring_at[d]..ring_at[d + 1]].
    let mut acc = 0;
    for d in 0..buckets {
        let c = s.ring.at[d];
        s.ring.at[d] = acc;
        s.ring.fill[d] = acc;
        acc += c;
    }
    s.ring.at[buckets] = acc;
    for i in 0..n {
        let (d, e) = s.ring.tmp[i];
        let at = &mut s.ring.fill[d as usize];
        s.ring.ents[*at as usize] = e;
        *at += 1;
    }
    longest
}

/// The best A_RAmincost1 (q = 1) and A_RAmincost2 (q = 0) schedules of the window, in one pass
/// over the durations that occur (ascending), the window starts t- and the options of that
/// duration:
/// - q = 1, (m, Phi, t-, h): feasible iff Phi <= floor(min over the window of omega / e_m)
///   on h, cost Phi Omega_h (Omega_h a prefix-sum difference);
/// - q = 0, (m, Phi, t-): the greedy fill of Phi workers along the (Omega, index) order, answered
///   by binary search over prefix sums of that order (built once per (L, t-, m)).
///
/// The winner of each subroutine is its (cost, enumeration index) minimum, so visiting order
/// does not matter. q = 0 only matters when strictly cheaper than the final q = 1 choice; the
/// q = 1 best so far is at least that, so pruning q = 0 with it is safe (a kept q = 0 schedule
/// that is not strictly cheaper than the final q = 1 choice loses in [`super::search`]).
pub(super) fn ring_search(
    cx: &Ctx,
    w: &Window,
    s: &mut FastScratch,
    top: u32,
) -> [Option<Cand>; 2] {
    let mut b1: Option<Cand> = None;
    let mut b0: Option<Cand> = None;
    // Window minima levels built so far (lazily: many searches never need a capacity). The
    // first few capacity questions scan `free` directly, within a budget of about what the
    // levels cost to build; both give the same exact minima.
    let mut have = None;
    let mut budget = w.len as u64 * 4;
    for dur in 1..=top {
        let (a, b) = (s.ring.at[dur as usize], s.ring.at[dur as usize + 1]);
        if a == b {
            continue;
        }
        for t0 in 1..=w.len - dur {
            // Per (L, t-, m): window capacities, Omega and the order are built at most once.
            let mut cur = NONE;
            let (mut caps_done, mut om_min, mut sorted) = (false, None, false);
            for e in a..b {
                let RingEnt { m, phi, one } = s.ring.ents[e as usize];
                if m != cur {
                    cur = m;
                    (caps_done, om_min, sorted) = (false, None, false);
                }
                let (m, idx) = (m as usize, [m, phi, t0, 0, 0]);
                if one {
                    if !may_beat(0, idx, &b1) || phi > s.worker_ub(cx, m).0 {
                        continue;
                    }
                    if !caps_done {
                        s.caps_any(cx, m, t0, dur, (&mut have, &mut budget));
                        caps_done = true;
                    }
                    s.ensure(cx, m);
                    ring_q1_at(s, m, phi, t0, dur, &mut b1);
                    continue;
                }
                let bound = b1.map_or(u128::MAX, |c| c.cost);
                if !useful(0, idx, bound, &b0) || phi as u64 > s.worker_ub(cx, m).1 {
                    continue;
                }
                let lo = *om_min.get_or_insert_with(|| s.omegas(cx, m, t0, dur));
                if !useful((phi as u128).saturating_mul(lo), idx, bound, &b0) {
                    continue;
                }
                if !sorted {
                    if !caps_done {
                        s.caps_any(cx, m, t0, dur, (&mut have, &mut budget));
                        caps_done = true;
                    }
                    s.sort_and_prefix(false, u64::MAX);
                    sorted = true;
                }
                let Some(cost) = s.fill(phi as u64, None) else {
                    continue;
                };
                if useful(cost, idx, bound, &b0) {
                    b0 = Some(Cand {
                        cost,
                        idx,
                        colocated: false,
                        m: m as u32,
                        p: NONE,
                        dur,
                        tminus: t0,
                        host: 0,
                        workers: phi,
                    });
                }
            }
        }
    }
    [b1, b0]
}

/// A_RAmincost1 at (m, Phi, t-, L): every server h whose window capacity (`caps`) holds Phi.
pub(super) fn ring_q1_at(
    s: &FastScratch,
    m: usize,
    phi: u32,
    t0: u32,
    dur: u32,
    best: &mut Option<Cand>,
) {
    for h in 0..s.h {
        if phi > s.capacity.caps[h] {
            continue;
        }
        let cost = (phi as u128).saturating_mul(s.win_sum(m, h, t0, dur));
        let idx = [m as u32, phi, t0, s.set.real[h], 0];
        if may_beat(cost, idx, best) {
            *best = Some(Cand {
                cost,
                idx,
                colocated: true,
                m: m as u32,
                p: NONE,
                dur,
                tminus: t0,
                host: s.set.real[h],
                workers: phi,
            });
        }
    }
}
