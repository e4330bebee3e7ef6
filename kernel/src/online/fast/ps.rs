//! The parameter-server path of the fast search: per job the rates and duration ranges of
//! every (worker type, PS type), then A_mincost2 (q = 1, [`ps_q1`]) and A_mincost1 (q = 0,
//! [`ps_q0`], only schedules strictly cheaper than the q = 1 choice) over the window.
use super::prices::price_cap;
use super::scratch::FastScratch;
use super::useful;
use crate::index::NONE;
use crate::model::online::{OnlineJob, TaskType};
use crate::online::common::*;
use crate::online::{Ctx, Window};

/// Per (m, p) rates of the current job.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Rates {
    pub(super) rho1: f64,
    pub(super) lo1: u32,
    pub(super) hi1: u32,
    pub(super) rho2: f64,
    pub(super) lo2: u32,
    pub(super) hi2: u32,
}

pub(super) fn idx_ps(m: usize, p: usize, dur: u32, t0: u32, n: usize) -> [u32; 5] {
    [m as u32, p as u32, dur, t0, n as u32]
}

/// Per job: the rates and duration ranges of every (m, p); returns the longest duration that
/// fits the window (0 if none does).
pub(super) fn job_rates(cx: &Ctx, job: &OnlineJob, s: &mut FastScratch, len: u32) -> u32 {
    let mut top = 0;
    for m in 0..s.m {
        for p in 0..s.p {
            let wt = &cx.scn.worker_types[m];
            let rho1 = rho_ps(job, m, p, wt, false);
            let rho2 = rho_ps(job, m, p, wt, true);
            let (lo1, hi1) = duration_range(job, rho1);
            let (lo2, hi2) = duration_range(job, rho2);
            s.rates[m * s.p + p] = Rates {
                rho1,
                lo1,
                hi1,
                rho2,
                lo2,
                hi2,
            };
            for (lo, hi) in [(lo1, hi1), (lo2, hi2)] {
                if lo < len {
                    top = top.max(hi.min(len - 1));
                }
            }
        }
    }
    top
}

/// N for duration `dur` of every (m, p) (NONE outside the range or above D_j).
pub(super) fn job_workers(job: &OnlineJob, s: &mut FastScratch, dur: u32) -> bool {
    let mut any = false;
    for i in 0..s.m * s.p {
        let rt = s.rates[i];
        s.n1[i] = if (rt.lo1..=rt.hi1).contains(&dur) {
            workers_for(job, dur, rt.rho1).unwrap_or(NONE)
        } else {
            NONE
        };
        s.n2[i] = if (rt.lo2..=rt.hi2).contains(&dur) {
            workers_for(job, dur, rt.rho2).unwrap_or(NONE)
        } else {
            NONE
        };
        any |= s.n1[i] != NONE || s.n2[i] != NONE;
    }
    any
}

/// Drops the worker counts no server (`one`) or the whole set (`!one`) can hold in any slot of
/// the window ([`FastScratch::worker_ub`]): such (m, p) have no feasible candidate at this
/// duration. Returns whether any count is left.
fn drop_unholdable(cx: &Ctx, s: &mut FastScratch, one: bool) -> bool {
    let mut any = false;
    for m in 0..s.m {
        let (most_one, most_all) = s.worker_ub(cx, m);
        for p in 0..s.p {
            let n = if one {
                &mut s.n2[m * s.p + p]
            } else {
                &mut s.n1[m * s.p + p]
            };
            let most = if one { most_one as u64 } else { most_all };
            if *n != NONE && *n as u64 > most {
                *n = NONE;
            }
            any |= *n != NONE;
        }
    }
    any
}

/// A lower bound of the cost of every candidate of block (m, p, L, t-) with `n` workers, q = 1
/// or q = 0: n x (slot-minimum bound of type m) + (slot-minimum bound of PS type p). Every
/// schedule of the block puts n type-m workers and at least one type-p PS on servers of the
/// set for the L slots, each at a window price at least the bound
/// ([`FastScratch::slot_lb`]); saturating arithmetic is monotone, so the bound also holds for
/// the searches' saturating costs.
fn block_lb(cx: &Ctx, s: &mut FastScratch, mp: (usize, usize), n: u32, t0: u32, dur: u32) -> u128 {
    let om = s.slot_lb(cx, mp.0, t0, dur);
    let ze = s.slot_lb(cx, s.m + mp.1, t0, dur);
    (n as u128).saturating_mul(om).saturating_add(ze)
}

/// The largest g in [0, `top`] with s-hat(g) >= `need` (0 when even g = 0 falls short; the
/// caller checks g = 0 itself), by binary search: s-hat(g) = min over r of
/// floor((omega^r - g e^r) / z^r) is non-increasing in g (every step is monotone in f64).
fn fit_below(free: &[f64], top: u32, need: u32, (wt, pt): (&TaskType, &TaskType)) -> u32 {
    if ps_fit(free, top, wt, pt) >= need {
        return top;
    }
    // Invariant: s-hat(lo) >= need or lo = 0; s-hat(hi) < need.
    let (mut lo, mut hi) = (0, top);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ps_fit(free, mid, wt, pt) >= need {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A_mincost2 (q = 1) over the window, durations up to `top`.
///
/// Candidates are (m, p, L, t-, h) with cost >= 0, so once the best so far precedes
/// (0, (0, 0, L, t-, 0)) in (cost, index) order no candidate of duration L from t- on, nor of
/// any longer duration, can beat it: the loops stop there.
pub(super) fn ps_q1(
    cx: &Ctx,
    job: &OnlineJob,
    w: &Window,
    s: &mut FastScratch,
    top: u32,
) -> Option<Cand> {
    let mut best: Option<Cand> = None;
    let mut free = [0.0; crate::limits::RESOURCES_MAX];
    // Short windows: sliding minima, rebuilt per search (free capacities changed since).
    s.minima.mins_len = 0;
    let slides = s.slides(w);
    for dur in 1..=top {
        if !may_beat(0, idx_ps(0, 0, dur, 0, 0), &best) {
            break;
        }
        if !job_workers(job, s, dur) || !drop_unholdable(cx, s, true) {
            continue;
        }
        for t0 in 1..=w.len - dur {
            if !may_beat(0, idx_ps(0, 0, dur, t0, 0), &best) {
                break;
            }
            for m in 0..s.m {
                let mut caps_done = false;
                // min Omega_h over the q = 1 hosts (set with the capacities).
                let mut om_min = 0;
                for p in 0..s.p {
                    let n = s.n2[m * s.p + p];
                    if n == NONE || !may_beat(0, idx_ps(m, p, dur, t0, 0), &best) {
                        continue;
                    }
                    // No server of the set can do better than the slot-minimum bound (only
                    // worth building against a positive incumbent, in short windows).
                    if slides && best.is_some_and(|b| b.cost > 0) {
                        let lb = block_lb(cx, s, (m, p), n, t0, dur);
                        if !may_beat(lb, idx_ps(m, p, dur, t0, 0), &best) {
                            continue;
                        }
                    }
                    if !caps_done {
                        s.possible(cx, m);
                        if slides {
                            s.mins_for(w.len, dur);
                        }
                        // The fewest workers any PS type asks for at this duration.
                        let least = (0..s.p).map(|q| s.n2[m * s.p + q]).min().unwrap_or(NONE);
                        // A host whose `least` workers alone cannot beat the incumbent is no
                        // host of any p here: every p asks for n >= `least` workers (cost
                        // >= n Omega_h, Zeta >= 0) at an index >= (m, 0, L, t-, 0).
                        let idx0 = idx_ps(m, 0, dur, t0, 0);
                        let worth = |lb: u128| may_beat(lb, idx0, &best);
                        s.caps_possible(cx, (m, t0, dur), least, worth);
                        om_min = u128::MAX;
                        for i in 0..s.capacity.hold_n {
                            om_min = om_min.min(s.omega[s.capacity.hold[i] as usize]);
                        }
                        caps_done = true;
                    }
                    // Every host of this p costs at least n min Omega (Zeta >= 0).
                    let lb = (n as u128).saturating_mul(om_min);
                    if !may_beat(lb, idx_ps(m, p, dur, t0, 0), &best) {
                        continue;
                    }
                    s.ensure(cx, s.m + p);
                    let (wt, pt) = (&cx.scn.worker_types[m], &cx.scn.ps_types[p]);
                    // Only servers that can hold the fewest workers of any PS type over the
                    // range (the others have window capacity < n).
                    for i in 0..s.capacity.hold_n {
                        let h = s.capacity.hold[i] as usize;
                        if n > s.capacity.caps[h] {
                            continue;
                        }
                        let idx = idx_ps(m, p, dur, t0, s.set.real[h] as usize);
                        let workers = (n as u128).saturating_mul(s.omega[h]);
                        if !may_beat(workers, idx, &best) {
                            continue;
                        }
                        let cost = workers.saturating_add(s.win_sum(s.m + p, h, t0, dur));
                        if !may_beat(cost, idx, &best) {
                            continue;
                        }
                        s.min_free(h, t0, dur, &mut free[..s.r]);
                        if ps_fit(&free[..s.r], n, wt, pt) < 1 {
                            continue;
                        }
                        best = Some(Cand {
                            cost,
                            idx,
                            colocated: true,
                            m: m as u32,
                            p: p as u32,
                            dur,
                            tminus: t0,
                            host: s.set.real[h],
                            workers: n,
                        });
                    }
                }
            }
        }
    }
    best
}

/// A_mincost1 (q = 0), durations up to `top`, only looking for schedules strictly cheaper than
/// `bound`; stops as [`ps_q1`] does once nothing of cost >= 0 can be useful.
pub(super) fn ps_q0(
    cx: &Ctx,
    job: &OnlineJob,
    w: &Window,
    s: &mut FastScratch,
    bound: u128,
    top: u32,
) -> Option<Cand> {
    let mut best: Option<Cand> = None;
    // The sliding minima ps_q1 left (same window, same free capacities) are reused.
    let slides = s.slides(w);
    for dur in 1..=top {
        if !useful(0, idx_ps(0, 0, dur, 0, 0), bound, &best) {
            break;
        }
        if !job_workers(job, s, dur) || !drop_unholdable(cx, s, false) {
            continue;
        }
        for t0 in 1..=w.len - dur {
            if !useful(0, idx_ps(0, 0, dur, t0, 0), bound, &best) {
                break;
            }
            s.hosts.zdone.iter_mut().for_each(|z| *z = false);
            // With an incumbent (or a q = 1 bound) blocks are first checked against the
            // slot-minimum bound, which needs no pass over the servers.
            // Only against a positive bound (a cost-0 one already stops every loop by index),
            // and only in short windows (the slot minima cost O(H x window) per price change).
            let prune = slides
                && match best {
                    Some(b) => b.cost > 0,
                    None => bound < u128::MAX,
                };
            for m in 0..s.m {
                let at = Q0At {
                    m,
                    dur,
                    t0,
                    bound,
                    slides,
                    prune,
                };
                q0_worker_type(cx, w, s, &at, &mut best);
            }
        }
    }
    best
}

/// One (worker type m, L, t-) of [`ps_q0`], with what bounds its candidates.
#[derive(Clone, Copy)]
struct Q0At {
    m: usize,
    dur: u32,
    t0: u32,
    /// The q = 1 choice's cost: a q = 0 schedule must be strictly cheaper.
    bound: u128,
    /// Whether the PS search keeps sliding minima in this window ([`FastScratch::slides`]).
    slides: bool,
    /// Whether blocks are first checked against the slot-minimum bounds.
    prune: bool,
}

impl Q0At {
    /// The enumeration index of (m, p) here with PS host `host`.
    fn idx(&self, p: usize, host: usize) -> [u32; 5] {
        idx_ps(self.m, p, self.dur, self.t0, host)
    }

    /// The slot-minimum bound of PS type p's Zeta over the range (0 unless pruning and the
    /// type's host list of this (L, t-) is not made yet).
    fn zeta_lb(&self, cx: &Ctx, s: &mut FastScratch, p: usize) -> u128 {
        if self.prune && !s.hosts.zdone[p] {
            s.slot_lb(cx, s.m + p, self.t0, self.dur)
        } else {
            0
        }
    }
}

/// The q = 0 candidates of one (m, L, t-): cheap bounds over every PS type first, then the
/// window capacities, the Omega_h of the servers with room and each PS type's hosts.
fn q0_worker_type(cx: &Ctx, w: &Window, s: &mut FastScratch, at: &Q0At, best: &mut Option<Cand>) {
    let (m, dur, t0, bound) = (at.m, at.dur, at.t0, at.bound);
    let mut any = false;
    for p in 0..s.p {
        let nn = s.n1[m * s.p + p];
        let idx = at.idx(p, 0);
        if nn != NONE && useful(0, idx, bound, best) {
            any = !at.prune || useful(block_lb(cx, s, (m, p), nn, t0, dur), idx, bound, best);
            if any {
                break;
            }
        }
    }
    if !any {
        return;
    }
    // Every candidate of (m, p) costs at least N min_h Omega_h over the whole set
    // plus the PS bound the loop below uses: when no p can be useful by it, the
    // capacities are not needed (in the late rounds' full windows most (m, L, t-)
    // end here).
    let om_all = s.omega_floor(cx, m, t0, dur);
    if !(0..s.p).any(|p| {
        let nn = s.n1[m * s.p + p];
        nn != NONE && {
            let zlb = at.zeta_lb(cx, s, p);
            let lb = (nn as u128).saturating_mul(om_all).saturating_add(zlb);
            useful(lb, at.idx(p, 0), bound, best)
        }
    }) {
        return;
    }
    if at.slides {
        // Window minima for caps_for and zetas (a no-op when the sparse table
        // answers L).
        s.mins_for(w.len, dur);
    }
    // Window capacities first (block bounds skip most of a full set), then Omega_h
    // of the servers that can take a worker only: the greedy fill never uses the
    // others, and a PS host without worker capacity takes g = 0 workers, so min
    // Omega over them bounds every placement of N >= 1 workers.
    s.caps_for(cx, m, t0, dur);
    let om_min = s.omegas_live(cx, m, t0, dur);
    let mut sorted = false;
    for p in 0..s.p {
        q0_ps_type(cx, s, at, p, om_min, &mut sorted, best);
    }
}

/// The q = 0 candidates of one (m, p, L, t-): the greedy fill of N workers and its bounds,
/// then every listed PS host ([`q0_host`]). `sorted`: the server order of this (m, L, t-) is
/// built (by the first PS type that needs it).
fn q0_ps_type(
    cx: &Ctx,
    s: &mut FastScratch,
    at: &Q0At,
    p: usize,
    om_min: u128,
    sorted: &mut bool,
    best: &mut Option<Cand>,
) {
    let (m, dur, t0, bound) = (at.m, at.dur, at.t0, at.bound);
    let nn = s.n1[m * s.p + p];
    if nn == NONE {
        return;
    }
    // Cheap bounds first: Zeta_h of every server costs a pass over the set
    // (with window minima), the server order one per worker type.
    let zlb = at.zeta_lb(cx, s, p);
    let lb = (nn as u128).saturating_mul(om_min).saturating_add(zlb);
    if !useful(lb, at.idx(p, 0), bound, best) {
        return;
    }
    if !*sorted {
        // Every fill of this (m, L, t-) places at most max_p N workers.
        let most_n = (0..s.p)
            .map(|q| s.n1[m * s.p + q])
            .filter(|&n| n != NONE)
            .max()
            .unwrap_or(0);
        s.sort_and_prefix(false, most_n as u64);
        *sorted = true;
    }
    // The greedy fill of N is the cheapest placement of N workers.
    let Some(fill_n) = s.fill(nn as u64, None) else {
        return;
    };
    if !useful(fill_n.saturating_add(zlb), at.idx(p, 0), bound, best) {
        return;
    }
    let (wt, pt) = (&cx.scn.worker_types[m], &cx.scn.ps_types[p]);
    // Every host needs at least `need` PSs over the whole range (y_k <= the
    // largest window capacity), so [`FastScratch::zetas`] lists only servers
    // with that much room: in a full window, a few.
    let most = s.order.omax;
    let need = ps_needed(nn - most.min(nn - 1), wt, pt).max(1);
    // Hosts whose Zeta_h alone, beside the cheapest fill, cannot be useful
    // (the host loop below would skip them) are not listed at all.
    let idx0 = at.idx(p, 0);
    let Some(zcap) = price_cap(|z| useful(fill_n.saturating_add(z), idx0, bound, best)) else {
        return;
    };
    let zmin = s.zetas(cx, (p, t0, dur), need, zcap);
    if !useful(fill_n.saturating_add(zmin), at.idx(p, 0), bound, best) {
        return;
    }
    let fill = Q0Fill {
        p,
        nn,
        need,
        fill_n,
    };
    for i in 0..s.hosts.phost_n[p] as usize {
        let n = s.hosts.phost[p * s.hcap + i] as usize;
        if let Some(c) = q0_host(cx, s, at, &fill, n, best) {
            *best = Some(c);
        }
    }
}

/// The fill of N workers of one (m, p, L, t-) that its PS hosts are tried against.
struct Q0Fill {
    p: usize,
    /// N.
    nn: u32,
    /// The fewest PSs any host needs over the range.
    need: u32,
    /// The greedy fill of N workers.
    fill_n: u128,
}

/// The A_mincost1 schedule of (m, p, L, t-) with PS host n (server n of the set), if it is
/// useful against `best`: g* workers on n, the rest by the greedy fill skipping n.
fn q0_host(
    cx: &Ctx,
    s: &mut FastScratch,
    at: &Q0At,
    f: &Q0Fill,
    n: usize,
    best: &Option<Cand>,
) -> Option<Cand> {
    let (m, dur, t0, bound) = (at.m, at.dur, at.t0, at.bound);
    let (p, nn, need, fill_n) = (f.p, f.nn, f.need, f.fill_n);
    let (wt, pt) = (&cx.scn.worker_types[m], &cx.scn.ps_types[p]);
    if s.hosts.pcap[p * s.hcap + n] < need {
        return None;
    }
    let zn = s.hosts.zeta[p * s.hcap + n];
    let idx = idx_ps(m, p, dur, t0, s.set.real[n] as usize);
    if !useful(fill_n.saturating_add(zn), idx, bound, best) {
        return None;
    }
    // A server with no window capacity is not in the order: it takes no
    // worker (y_k = 0) and the fill of the rest is the plain fill.
    // Nor is one beyond the sorted prefix ([`FastScratch::sort_and_prefix`]):
    // it takes no worker either.
    let pos =
        (s.capacity.caps[n] > 0 && s.order.posof[n] != NONE).then(|| s.order.posof[n] as usize);
    let yk = match pos {
        Some(pos) => s.capacity.caps[n].min(nn - (nn as u64).min(s.order.pc[pos]) as u32),
        None => 0,
    };
    // g* <= min(y_k, N - 1) and the PSs needed grow with the workers away
    // from n, so n hosts at least this many PSs (and at least one).
    let ps_lo = ps_needed(nn - yk.min(nn - 1), wt, pt).max(1);
    let lb = fill_n.saturating_add((ps_lo as u128).saturating_mul(zn));
    if ps_lo > 1 && !useful(lb, idx, bound, best) {
        return None;
    }
    // s-hat(g) <= s-hat(0) and the PSs needed are at least ps_lo for every
    // g the loop below tries: no g* when s-hat(0) < ps_lo.
    if s.hosts.pcap[p * s.hcap + n] < ps_lo {
        return None;
    }
    let mut free = [0.0; crate::limits::RESOURCES_MAX];
    s.min_free(n, t0, dur, &mut free[..s.r]);
    // g* = the largest g <= yk with N - g >= 1 and s-hat(g) >= PSs needed.
    // s-hat(g) is non-increasing in g and every g needs at least ps_lo
    // PSs, so no g with s-hat(g) < ps_lo qualifies: start below them.
    let mut gstar = None;
    let mut g = fit_below(&free[..s.r], yk.min(nn - 1), ps_lo, (wt, pt));
    loop {
        if ps_fit(&free[..s.r], g, wt, pt) >= ps_needed(nn - g, wt, pt) {
            gstar = Some(g);
            break;
        }
        if g == 0 {
            break;
        }
        g -= 1;
    }
    let g = gstar?;
    let ps = ps_needed(nn - g, wt, pt);
    if ps < 1 {
        return None;
    }
    let rest = s.fill((nn - g) as u64, pos)?;
    let cost = rest
        .saturating_add((g as u128).saturating_mul(s.omega[n]))
        .saturating_add((ps as u128).saturating_mul(zn));
    if !useful(cost, idx, bound, best) {
        return None;
    }
    Some(Cand {
        cost,
        idx,
        colocated: false,
        m: m as u32,
        p: p as u32,
        dur,
        tminus: t0,
        host: s.set.real[n],
        workers: nn,
    })
}
