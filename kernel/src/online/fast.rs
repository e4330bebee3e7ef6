//! The default, exact and fast search of A_maxweight's per-job choice.
//!
//! It finds the same schedule as [`super::reference`] (same cost, same enumeration-order tie-break)
//! because costs are exact integers (see [`super::common::quantize`]): the winner is the
//! lexicographic minimum of (cost, enumeration index), whatever order candidates are visited in.
//! What makes it fast:
//! - window prefix sums of every type's unit price per server (`pre`), so Omega_h and Zeta_h are
//!   O(1) differences; built per type only when a search asks for it, and refreshed only for the
//!   servers a scheduled job touched (lazily, by the next search in the same window); prices
//!   are computed once per run of equal usage (beta is piecewise constant along t);
//! - PS: sliding-window minima of free capacity per (server, resource), grown by one slot per
//!   duration L (min over [t-, t- + L) = min(min over [t-, t- + L - 1), omega(t- + L - 1)));
//! - Ring-AllReduce: only the Phi whose d-hat can fit the window are evaluated (a bound from
//!   rho_jm <= 1 / v_jm), bucketed by duration; q = 1 and q = 0 in one pass over the durations
//!   that occur; window minima from power-of-two levels (min over [t, t + L) = min of two
//!   overlapping 2^k windows) or a direct scan when few are needed; whole-window capacity
//!   bounds (fit of the maximum free capacity) skip Phi no server / the whole cluster can hold;
//! - fit counts memoised per (worker type, server) on the bits of the free capacities;
//! - one server order (by Omega, then index) per (L, t-, m), shared by every PS type p and every
//!   PS host n; greedy fills answered from prefix sums over that order by binary search;
//! - the q = 1 subroutine runs first and bounds the q = 0 one (which only matters when strictly
//!   cheaper), and lower bounds (greedy fill of N >= any placement of N; one PS >= the cheapest
//!   PS slot) skip candidates that cannot beat the best so far.
use super::common::*;
use super::{Ctx, Placed, Placement, Window};
use crate::model::online::{OnlineJob, OnlineScenario};
use alloc::vec;
use alloc::vec::Vec;

/// Per (m, p) rates of the current job.
#[derive(Clone, Copy, Debug, Default)]
struct Rates {
    rho1: f64,
    lo1: u32,
    hi1: u32,
    rho2: f64,
    lo2: u32,
    hi2: u32,
}

/// Scratch of the fast search, allocated once when the scheduler is built.
#[derive(Clone, Debug)]
pub struct FastScratch {
    h: usize,
    r: usize,
    m: usize,
    p: usize,
    wcap: usize,
    /// The window the prefix sums describe.
    cached: Option<(u32, u32)>,
    /// pre[(ty * H + h) * (wcap + 1) + t]: sum of unit prices of type ty over slots [0, t).
    pre: Vec<u128>,
    /// free[(h * R + r) * wcap + t] = omega_h^r(t).
    free: Vec<f64>,
    /// Sliding minima of `free` over [t, t + L).
    mins: Vec<f64>,
    /// delta_h^r(t) at `(h * wcap + t) * R + r`.
    dl: Vec<f64>,
    /// `fresh[h * wcap + t]`: the prices of slot t on h differ from slot t - 1's (or t = 0).
    fresh: Vec<bool>,
    /// `row_ok[ty * H + h]`: the prefix row of type ty on server h describes the window.
    row_ok: Vec<bool>,
    /// `type_ok[ty]`: every row of type ty does.
    type_ok: Vec<bool>,
    /// Memo of `fit` per (worker type, server): the window-minimum free capacities it was last
    /// asked about (bits) and its answer. `fit` is a pure function of those, so a hit is exact.
    fit_key: Vec<u64>,
    fit_val: Vec<u32>,
    fit_ok: Vec<bool>,
    omega: Vec<u128>,
    zeta: Vec<u128>,
    zmin: Vec<u128>,
    zdone: Vec<bool>,
    caps: Vec<u32>,
    order: Vec<(u128, u32)>,
    posof: Vec<u32>,
    ocap: Vec<u64>,
    oom: Vec<u128>,
    pc: Vec<u64>,
    po: Vec<u128>,
    rates: Vec<Rates>,
    n1: Vec<u32>,
    n2: Vec<u32>,
    /// Ring: the (m, Phi, q) whose duration fits the window, bucketed by duration
    /// (`ring[ring_at[d]..ring_at[d + 1]]`), in (m, Phi, q = 1 first) order within a bucket.
    ring: Vec<RingEnt>,
    /// Ring: the same entries with their durations, in (m, Phi, q) order (bucket sort input).
    ring_tmp: Vec<(u32, RingEnt)>,
    ring_at: Vec<u32>,
    ring_fill: Vec<u32>,
    phis: usize,
    /// Servers whose usage changed since their prices were built for the cached window.
    dirty: Vec<bool>,
    /// delta_h^r at zero usage, at `h * R + r` (filled on first use).
    price0: Vec<Option<f64>>,
    /// max over the window's slots of omega_h^r(t), at `h * R + r`.
    maxfree: Vec<f64>,
    /// Ring, per worker type m: (most workers one server can hold in any slot of the window,
    /// most the whole cluster can), computed on first use after `maxfree` changed.
    ub: Vec<Option<(u32, u64)>>,
}

const NONE: u32 = u32::MAX;

/// One ring option of a job: worker type m, Phi workers, q_j = 1 (one server) or 0.
#[derive(Clone, Copy, Debug, Default)]
struct RingEnt {
    m: u32,
    phi: u32,
    one: bool,
}

impl FastScratch {
    /// Scratch for H servers, R resources, M worker / P PS types, windows up to `wcap` slots and
    /// up to `phis` ring worker counts per type and up to `ring_cap` ring options per job
    /// ([`ring_options_max`]).
    pub fn new(
        h: usize,
        r: usize,
        m: usize,
        p: usize,
        wcap: usize,
        phis: usize,
        ring_cap: usize,
    ) -> Self {
        let ty = m + p;
        FastScratch {
            h,
            r,
            m,
            p,
            wcap,
            cached: None,
            pre: vec![0; ty * h * (wcap + 1)],
            free: vec![0.0; h * r * wcap],
            mins: vec![0.0; h * r * wcap],
            dl: vec![0.0; h * r * wcap],
            fresh: vec![false; h * wcap],
            row_ok: vec![false; (m + p) * h],
            type_ok: vec![false; m + p],
            fit_key: vec![0; m * h * r],
            fit_val: vec![0; m * h],
            fit_ok: vec![false; m * h],
            omega: vec![0; h],
            zeta: vec![0; p * h],
            zmin: vec![0; p],
            zdone: vec![false; p],
            caps: vec![0; h],
            order: vec![(0, 0); h],
            posof: vec![0; h],
            ocap: vec![0; h],
            oom: vec![0; h],
            pc: vec![0; h + 1],
            po: vec![0; h + 1],
            rates: vec![Rates::default(); m * p],
            n1: vec![NONE; m * p],
            n2: vec![NONE; m * p],
            ring: vec![RingEnt::default(); ring_cap],
            ring_tmp: vec![(0, RingEnt::default()); ring_cap],
            ring_at: vec![0; wcap + 2],
            ring_fill: vec![0; wcap + 2],
            phis,
            maxfree: vec![0.0; h * r],
            price0: vec![None; h * r],
            dirty: vec![false; h],
            ub: vec![None; m],
        }
    }

    /// Forgets the cached window (after a restore, or when prices changed elsewhere).
    pub fn invalidate(&mut self) {
        self.cached = None;
    }

    /// Rebuilds the free capacities and prices of server `h` for window `w`; its prefix rows
    /// are rebuilt on demand ([`Self::ensure`]), only for the types a search asks about.
    ///
    /// delta_h^r(t) depends only on beta_h^r(t) (and C_h^r, fixed), and a reservation covers a
    /// run of slots, so beta is piecewise constant along t: a slot whose usage bits equal the
    /// previous slot's reuses its price (same inputs to the same `pow`, hence the same bits).
    fn build_server(&mut self, cx: &Ctx, w: &Window, h: usize) {
        let (hh, rr, wcap) = (self.h, self.r, self.wcap);
        let len = (w.len as usize).min(wcap);
        let caps = cx.scn.servers.get(h);
        for r in 0..rr {
            let cap = caps.map_or(0.0, |c| c.get(r));
            let free = &mut self.free[(h * rr + r) * wcap..][..len];
            let mut last = 0u64;
            let mut delta = 0.0;
            let mut most = f64::NEG_INFINITY;
            for (t, f) in free.iter_mut().enumerate() {
                let i = ((w.base as usize + t) * hh + h) * rr + r;
                let u = cx.usage.get(i).copied().unwrap_or(0.0);
                *f = cap - u;
                if *f > most {
                    most = *f;
                }
                let fresh = t == 0 || u.to_bits() != last;
                if fresh {
                    last = u.to_bits();
                    delta = price(&mut self.price0, cx.lambda, h * rr + r, u, cap);
                }
                self.dl[(h * wcap + t) * rr + r] = delta;
                // A slot is fresh when any of its R prices changed.
                if r == 0 {
                    self.fresh[h * wcap + t] = fresh;
                } else if fresh {
                    self.fresh[h * wcap + t] = true;
                }
            }
            self.maxfree[h * rr + r] = most;
        }
        for ty in 0..self.m + self.p {
            self.row_ok[ty * self.h + h] = false;
            self.type_ok[ty] = false;
        }
        // The ring bounds read `maxfree`.
        self.ub.iter_mut().for_each(|u| *u = None);
    }

    /// Makes the prefix rows of type `ty` (worker types first, then PS types) current: row
    /// (ty, h) at t + 1 = sum of the unit prices of slots [0, t]. A slot whose prices repeat the
    /// previous slot's repeats its unit price.
    fn ensure(&mut self, cx: &Ctx, ty: usize) {
        if self.type_ok.get(ty) != Some(&false) {
            return;
        }
        let len = self.cached.map_or(0, |c| c.1) as usize;
        let stride = self.wcap + 1;
        let tt = if ty < self.m {
            &cx.scn.worker_types[ty]
        } else {
            &cx.scn.ps_types[ty - self.m]
        };
        for h in 0..self.h {
            if self.row_ok[ty * self.h + h] {
                continue;
            }
            let pre = &mut self.pre[(ty * self.h + h) * stride..][..stride];
            let fresh = &self.fresh[h * self.wcap..][..len];
            let dl = &self.dl[h * self.wcap * self.r..][..len * self.r];
            let mut unit = 0u128;
            let mut acc = 0u128;
            for ((p, &f), d) in pre[1..].iter_mut().zip(fresh).zip(dl.chunks_exact(self.r)) {
                if f {
                    unit = unit_price(d, tt);
                }
                acc = acc.saturating_add(unit);
                *p = acc;
            }
            self.row_ok[ty * self.h + h] = true;
        }
        self.type_ok[ty] = true;
    }

    /// Makes the scratch describe window `w` (full rebuild when the window changed).
    fn prepare(&mut self, cx: &Ctx, w: &Window) {
        if self.cached != Some((w.base, w.len)) {
            for h in 0..self.h {
                self.build_server(cx, w, h);
                self.dirty[h] = false;
            }
            self.cached = Some((w.base, w.len));
        } else {
            for h in 0..self.h {
                if self.dirty[h] {
                    self.build_server(cx, w, h);
                    self.dirty[h] = false;
                }
            }
        }
    }

    /// Marks the servers of `placement` for a refresh after it was reserved in window `w` (done
    /// by the next search in the same window, if any).
    pub fn touched(&mut self, w: &Window, placement: &Placement) {
        if self.cached == Some((w.base, w.len)) {
            for pl in placement.iter() {
                if let Some(d) = self.dirty.get_mut(pl.server as usize) {
                    *d = true;
                }
            }
        }
    }

    fn win_sum(&self, ty: usize, h: usize, t0: u32, dur: u32) -> u128 {
        let i = (ty * self.h + h) * (self.wcap + 1);
        self.pre[i + (t0 + dur) as usize] - self.pre[i + t0 as usize]
    }

    /// mins for L = 1.
    fn reset_mins(&mut self) {
        self.mins.copy_from_slice(&self.free);
    }

    /// Grows the sliding minima from L - 1 to L over a window of `len` slots.
    fn slide(&mut self, len: u32, dur: u32) {
        let last = (len - dur) as usize;
        for hr in 0..self.h * self.r {
            let b = hr * self.wcap;
            for t in 0..=last {
                let f = self.free[b + t + dur as usize - 1];
                if f < self.mins[b + t] {
                    self.mins[b + t] = f;
                }
            }
        }
    }

    /// Level 0 of the power-of-two window minima: `mins` = `free` over the window's `len` slots.
    fn level_reset(&mut self, len: u32) {
        for hr in 0..self.h * self.r {
            let b = hr * self.wcap;
            let n = len as usize;
            self.mins[b..b + n].copy_from_slice(&self.free[b..b + n]);
        }
    }

    /// Level k to k + 1 in place: min over [t, t + 2^(k+1)) = min(level k at t, at t + 2^k), for
    /// every t whose range stays in the window (ascending t reads t + 2^k before overwriting it).
    fn level_up(&mut self, len: u32, k: u32) {
        let half = 1usize << k;
        let Some(n) = (len as usize + 1).checked_sub(2 * half) else {
            return;
        };
        for hr in 0..self.h * self.r {
            let row = &mut self.mins[hr * self.wcap..][..n + half];
            for t in 0..n {
                let f = row[t + half];
                if f < row[t] {
                    row[t] = f;
                }
            }
        }
    }

    /// Brings the window minima to level `k` (`have`: the level they are at, `None` before
    /// level 0 was copied in).
    fn levels_to(&mut self, len: u32, have: &mut Option<u32>, k: u32) {
        let mut at = match *have {
            Some(at) => at,
            None => {
                self.level_reset(len);
                0
            }
        };
        while at < k {
            self.level_up(len, at);
            at += 1;
        }
        *have = Some(at);
    }

    /// Window capacities for (m, t-, L) by [`Self::caps_direct`] while the scan budget lasts,
    /// then from the power-of-two levels (`lv`: the level reached, the budget left).
    fn caps_any(
        &mut self,
        cx: &Ctx,
        m: usize,
        t0: u32,
        dur: u32,
        lv: (&mut Option<u32>, &mut u64),
    ) {
        let (have, budget) = lv;
        let len = self.cached.map_or(0, |c| c.1);
        if have.is_none() && *budget >= dur as u64 {
            *budget -= dur as u64;
            self.caps_direct(cx, m, t0, dur);
            return;
        }
        let k = 31 - dur.leading_zeros();
        self.levels_to(len, have, k);
        self.caps_at(cx, m, t0, dur, k);
    }

    /// The same capacities as [`Self::caps_at`], each window minimum taken slot by slot from
    /// `free` (cheaper than building the levels when a search needs few of them).
    fn caps_direct(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) {
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        let (a, n) = (t0 as usize, dur as usize);
        for h in 0..self.h {
            for (r, f) in free.iter_mut().enumerate().take(self.r) {
                let row = &self.free[(h * self.r + r) * self.wcap + a..][..n];
                let mut lo = f64::INFINITY;
                for &x in row {
                    if x < lo {
                        lo = x;
                    }
                }
                *f = lo;
            }
            self.caps[h] = self.fit_memo(cx, m, h, &free[..self.r]);
        }
    }

    /// Window capacity of every server for worker type m over [t-, t- + L), with `mins` at level
    /// k = floor(log2 L): min over [t-, t- + L) = min(level k at t-, at t- + L - 2^k) (the two
    /// ranges cover it; min is idempotent). Equals the literal min over slots of the fit count,
    /// because the fit count is non-decreasing in each free capacity.
    fn caps_at(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32, k: u32) {
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        let (a, b) = (t0 as usize, (t0 + dur - (1 << k)) as usize);
        for h in 0..self.h {
            for (r, f) in free.iter_mut().enumerate().take(self.r) {
                let row = (h * self.r + r) * self.wcap;
                let (x, y) = (self.mins[row + a], self.mins[row + b]);
                *f = if y < x { y } else { x };
            }
            self.caps[h] = self.fit_memo(cx, m, h, &free[..self.r]);
        }
    }

    fn min_free(&self, h: usize, t0: u32, out: &mut [f64]) {
        for (r, o) in out.iter_mut().enumerate() {
            *o = self.mins[(h * self.r + r) * self.wcap + t0 as usize];
        }
    }

    /// Omega_h (type m) for every server; returns min_h Omega_h.
    fn omegas(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) -> u128 {
        self.ensure(cx, m);
        let mut lo = u128::MAX;
        for h in 0..self.h {
            let o = self.win_sum(m, h, t0, dur);
            self.omega[h] = o;
            lo = lo.min(o);
        }
        lo
    }

    /// Zeta_h (PS type p) for every server, cached per (L, t-).
    fn zetas(&mut self, cx: &Ctx, p: usize, t0: u32, dur: u32) -> u128 {
        if !self.zdone[p] {
            self.ensure(cx, self.m + p);
            let mut lo = u128::MAX;
            for h in 0..self.h {
                let z = self.win_sum(self.m + p, h, t0, dur);
                self.zeta[p * self.h + h] = z;
                lo = lo.min(z);
            }
            self.zmin[p] = lo;
            self.zdone[p] = true;
        }
        self.zmin[p]
    }

    fn caps_for(&mut self, cx: &Ctx, m: usize, t0: u32) {
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        for h in 0..self.h {
            self.min_free(h, t0, &mut free[..self.r]);
            self.caps[h] = self.fit_memo(cx, m, h, &free[..self.r]);
        }
    }

    /// `fit(free, e_m)` for server h, answered from the memo when `free` has the same bits as
    /// the last question about (m, h) (free capacity is piecewise constant along t).
    fn fit_memo(&mut self, cx: &Ctx, m: usize, h: usize, free: &[f64]) -> u32 {
        let i = m * self.h + h;
        let key = &mut self.fit_key[i * self.r..(i + 1) * self.r];
        if self.fit_ok[i] && key.iter().zip(free).all(|(k, f)| *k == f.to_bits()) {
            return self.fit_val[i];
        }
        for (k, f) in key.iter_mut().zip(free) {
            *k = f.to_bits();
        }
        let v = fit(free, &cx.scn.worker_types[m]);
        self.fit_val[i] = v;
        self.fit_ok[i] = true;
        v
    }

    /// Orders servers by (Omega, index) and builds the prefix sums of caps and cap x Omega.
    fn sort_and_prefix(&mut self) {
        for h in 0..self.h {
            self.order[h] = (self.omega[h], h as u32);
        }
        self.order.sort_unstable();
        for (i, &(om, h)) in self.order.iter().enumerate() {
            self.posof[h as usize] = i as u32;
            let c = self.caps[h as usize] as u64;
            self.ocap[i] = c;
            self.oom[i] = om;
            self.pc[i + 1] = self.pc[i] + c;
            self.po[i + 1] = self.po[i].saturating_add((c as u128).saturating_mul(om));
        }
    }

    /// Cost of the greedy fill of `x` workers along the order, skipping position `excl`;
    /// `None` when the servers cannot hold them.
    fn fill(&self, x: u64, excl: Option<usize>) -> Option<u128> {
        if x == 0 {
            return Some(0);
        }
        let (qc, qo) = match excl {
            Some(q) => (
                self.ocap[q],
                (self.ocap[q] as u128).saturating_mul(self.oom[q]),
            ),
            None => (0, 0),
        };
        let before = |i: usize| excl.is_some_and(|q| q < i);
        let pcx = |i: usize| self.pc[i] - if before(i) { qc } else { 0 };
        if pcx(self.h) < x {
            return None;
        }
        let (mut lo, mut hi) = (1usize, self.h);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if pcx(mid) >= x {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let j = lo - 1;
        let pox = self.po[j] - if before(j) { qo } else { 0 };
        Some(pox.saturating_add(((x - pcx(j)) as u128).saturating_mul(self.oom[j])))
    }
}

/// delta of eq. (11) for usage `u` of cell `hr` (capacity `cap`); the price of an empty cell
/// is computed once per cell (the same `pow` of the same inputs, so the same bits).
fn price(price0: &mut [Option<f64>], lambda: f64, hr: usize, u: f64, cap: f64) -> f64 {
    if u.to_bits() != 0 {
        return crate::price::zhou_price(lambda, u, cap);
    }
    match price0.get(hr) {
        Some(Some(d)) => *d,
        _ => {
            let d = crate::price::zhou_price(lambda, u, cap);
            if let Some(slot) = price0.get_mut(hr) {
                *slot = Some(d);
            }
            d
        }
    }
}

fn idx_ps(m: usize, p: usize, dur: u32, t0: u32, n: usize) -> [u32; 5] {
    [m as u32, p as u32, dur, t0, n as u32]
}

/// Per job: the rates and duration ranges of every (m, p); returns the longest duration that
/// fits the window (0 if none does).
fn job_rates(cx: &Ctx, job: &OnlineJob, s: &mut FastScratch, len: u32) -> u32 {
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
fn job_workers(job: &OnlineJob, s: &mut FastScratch, dur: u32) -> bool {
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

/// A_mincost2 (q = 1) over the window, durations up to `top`.
fn ps_q1(cx: &Ctx, job: &OnlineJob, w: &Window, s: &mut FastScratch, top: u32) -> Option<Cand> {
    let mut best: Option<Cand> = None;
    let mut free = [0.0; crate::limits::RESOURCES_MAX];
    s.reset_mins();
    for dur in 1..=top {
        if dur > 1 {
            s.slide(w.len, dur);
        }
        if !job_workers(job, s, dur) {
            continue;
        }
        for t0 in 1..=w.len - dur {
            s.zdone.iter_mut().for_each(|z| *z = false);
            for m in 0..s.m {
                let mut caps_done = false;
                for p in 0..s.p {
                    let n = s.n2[m * s.p + p];
                    if n == NONE || !may_beat(0, idx_ps(m, p, dur, t0, 0), &best) {
                        continue;
                    }
                    if !caps_done {
                        s.caps_for(cx, m, t0);
                        s.ensure(cx, m);
                        caps_done = true;
                    }
                    s.zetas(cx, p, t0, dur);
                    let (wt, pt) = (&cx.scn.worker_types[m], &cx.scn.ps_types[p]);
                    for h in 0..s.h {
                        if n > s.caps[h] {
                            continue;
                        }
                        let cost = (n as u128)
                            .saturating_mul(s.win_sum(m, h, t0, dur))
                            .saturating_add(s.zeta[p * s.h + h]);
                        let idx = idx_ps(m, p, dur, t0, h);
                        if !may_beat(cost, idx, &best) {
                            continue;
                        }
                        s.min_free(h, t0, &mut free[..s.r]);
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
                            host: h as u32,
                            workers: n,
                        });
                    }
                }
            }
        }
    }
    best
}

/// Whether a q = 0 candidate with lower bound `lb` and index >= `idx` still matters: it must be
/// strictly cheaper than the q = 1 choice (`bound`) and beat the best q = 0 so far.
fn useful(lb: u128, idx: [u32; 5], bound: u128, best: &Option<Cand>) -> bool {
    lb < bound && may_beat(lb, idx, best)
}

/// A_mincost1 (q = 0), durations up to `top`, only looking for schedules strictly cheaper than
/// `bound`.
fn ps_q0(
    cx: &Ctx,
    job: &OnlineJob,
    w: &Window,
    s: &mut FastScratch,
    bound: u128,
    top: u32,
) -> Option<Cand> {
    let mut best: Option<Cand> = None;
    let mut free = [0.0; crate::limits::RESOURCES_MAX];
    s.reset_mins();
    for dur in 1..=top {
        if dur > 1 {
            s.slide(w.len, dur);
        }
        if !job_workers(job, s, dur) {
            continue;
        }
        for t0 in 1..=w.len - dur {
            s.zdone.iter_mut().for_each(|z| *z = false);
            for m in 0..s.m {
                if !(0..s.p).any(|p| {
                    s.n1[m * s.p + p] != NONE && useful(0, idx_ps(m, p, dur, t0, 0), bound, &best)
                }) {
                    continue;
                }
                let om_min = s.omegas(cx, m, t0, dur);
                let mut sorted = false;
                for p in 0..s.p {
                    let nn = s.n1[m * s.p + p];
                    if nn == NONE {
                        continue;
                    }
                    let zmin = s.zetas(cx, p, t0, dur);
                    let lb0 = (nn as u128).saturating_mul(om_min).saturating_add(zmin);
                    if !useful(lb0, idx_ps(m, p, dur, t0, 0), bound, &best) {
                        continue;
                    }
                    if !sorted {
                        s.caps_for(cx, m, t0);
                        s.sort_and_prefix();
                        sorted = true;
                    }
                    let Some(fill_n) = s.fill(nn as u64, None) else {
                        continue;
                    };
                    if !useful(
                        fill_n.saturating_add(zmin),
                        idx_ps(m, p, dur, t0, 0),
                        bound,
                        &best,
                    ) {
                        continue;
                    }
                    let (wt, pt) = (&cx.scn.worker_types[m], &cx.scn.ps_types[p]);
                    for n in 0..s.h {
                        let zn = s.zeta[p * s.h + n];
                        let idx = idx_ps(m, p, dur, t0, n);
                        if !useful(fill_n.saturating_add(zn), idx, bound, &best) {
                            continue;
                        }
                        let pos = s.posof[n] as usize;
                        let before = (nn as u64).min(s.pc[pos]) as u32;
                        let yk = s.caps[n].min(nn - before);
                        s.min_free(n, t0, &mut free[..s.r]);
                        // g* = the largest g <= yk with N - g >= 1 and s-hat(g) >= PSs needed.
                        let mut gstar = None;
                        let mut g = yk.min(nn - 1);
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
                        let Some(g) = gstar else { continue };
                        let ps = ps_needed(nn - g, wt, pt);
                        if ps < 1 {
                            continue;
                        }
                        let Some(rest) = s.fill((nn - g) as u64, Some(pos)) else {
                            continue;
                        };
                        let cost = rest
                            .saturating_add((g as u128).saturating_mul(s.omega[n]))
                            .saturating_add((ps as u128).saturating_mul(zn));
                        if !useful(cost, idx, bound, &best) {
                            continue;
                        }
                        best = Some(Cand {
                            cost,
                            idx,
                            colocated: false,
                            m: m as u32,
                            p: p as u32,
                            dur,
                            tminus: t0,
                            host: n as u32,
                            workers: nn,
                        });
                    }
                }
            }
        }
    }
    best
}

/// The smallest Phi whose d-hat (A_RAmincost1/2 line 5) can be below `len`; every smaller Phi is
/// skipped without evaluating eq. (14). In exact arithmetic eq. (14) only adds non-negative terms
/// to v_jm, so rho_jm <= 1 / v_jm and E D K / (Phi rho_jm) >= E D K v_jm / Phi for both q. A Phi
/// with E D K v_jm >= Phi len (1 + 1e-6) therefore has E D K / (Phi rho) >= len up to a few ulps,
/// far above len - 1 + 1e-9, so ceil_eps gives d-hat >= len: it cannot fit (t- >= 1). Returns 1
/// when a term's sign is not known (the bound would not hold).
fn ring_phi_first(job: &OnlineJob, edk: f64, m: usize, len: u32) -> u32 {
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
    let mut most = 0usize;
    for job in &scn.jobs {
        let work = edk(job);
        let mut n = 0usize;
        for (m, &pm) in phi_max.iter().enumerate().take(scn.worker_types.len()) {
            let top = job.chunks.min(pm).min(phis);
            let first = ring_phi_first(job, work, m, wcap);
            if first <= top {
                n = n.saturating_add(2 * (top - first + 1) as usize);
            }
        }
        most = most.max(n);
    }
    most
}

/// Per job: every (m, Phi, q) of A_RAmincost1/2 whose duration d-hat fits the window (t- >= 1,
/// so d < len), bucketed by duration (a counting sort keeps the (m, Phi, q) order inside a
/// bucket); returns the longest such duration (0 if none).
fn ring_table(cx: &Ctx, job: &OnlineJob, s: &mut FastScratch, len: u32) -> u32 {
    let mut n = 0;
    let mut longest = 0;
    let buckets = (len as usize + 1).min(s.ring_at.len());
    s.ring_at[..buckets].iter_mut().for_each(|c| *c = 0);
    let work = edk(job);
    for m in 0..s.m {
        let top = job.chunks.min(cx.phi_max(m)).min(s.phis as u32);
        let first = ring_phi_first(job, work, m, len);
        if first > top {
            continue;
        }
        let wt = &cx.scn.worker_types[m];
        for phi in first..=top {
            for one in [true, false] {
                let d = ring_duration(job, phi, rho_ring(job, m, phi, wt, one));
                let (Some(c), Some(slot)) = (s.ring_at.get_mut(d as usize), s.ring_tmp.get_mut(n))
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
        let c = s.ring_at[d];
        s.ring_at[d] = acc;
        s.ring_fill[d] = acc;
        acc += c;
    }
    s.ring_at[buckets] = acc;
    for i in 0..n {
        let (d, e) = s.ring_tmp[i];
        let at = &mut s.ring_fill[d as usize];
        s.ring[*at as usize] = e;
        *at += 1;
    }
    longest
}

/// Ring bounds of worker type m over the window (see [`FastScratch::ub`]): a server's window
/// capacity floor(min over t of omega / e) is at most fit(max over t of omega), the fit count
/// being non-decreasing in each free capacity. So Phi above the first is infeasible for q = 1
/// and Phi above the second for q = 0 (the greedy fill places at most the sum of capacities).
fn ring_ub(cx: &Ctx, s: &mut FastScratch, m: usize) -> (u32, u64) {
    if let Some(Some(u)) = s.ub.get(m) {
        return *u;
    }
    let (mut one, mut all) = (0u32, 0u64);
    for h in 0..s.h {
        let c = fit(&s.maxfree[h * s.r..(h + 1) * s.r], &cx.scn.worker_types[m]);
        one = one.max(c);
        all = all.saturating_add(c as u64);
    }
    if let Some(u) = s.ub.get_mut(m) {
        *u = Some((one, all));
    }
    (one, all)
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
/// that is not strictly cheaper than the final q = 1 choice loses in [`search`]).
fn ring_search(cx: &Ctx, w: &Window, s: &mut FastScratch, top: u32) -> [Option<Cand>; 2] {
    let mut b1: Option<Cand> = None;
    let mut b0: Option<Cand> = None;
    // Window minima levels built so far (lazily: many searches never need a capacity). The
    // first few capacity questions scan `free` directly, within a budget of about what the
    // levels cost to build; both give the same exact minima.
    let mut have = None;
    let mut budget = w.len as u64 * 4;
    for dur in 1..=top {
        let (a, b) = (s.ring_at[dur as usize], s.ring_at[dur as usize + 1]);
        if a == b {
            continue;
        }
        for t0 in 1..=w.len - dur {
            // Per (L, t-, m): window capacities, Omega and the order are built at most once.
            let mut cur = NONE;
            let (mut caps_done, mut om_min, mut sorted) = (false, None, false);
            for e in a..b {
                let RingEnt { m, phi, one } = s.ring[e as usize];
                if m != cur {
                    cur = m;
                    (caps_done, om_min, sorted) = (false, None, false);
                }
                let (m, idx) = (m as usize, [m, phi, t0, 0, 0]);
                if one {
                    if !may_beat(0, idx, &b1) || phi > ring_ub(cx, s, m).0 {
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
                if !useful(0, idx, bound, &b0) || phi as u64 > ring_ub(cx, s, m).1 {
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
                    s.sort_and_prefix();
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
fn ring_q1_at(s: &FastScratch, m: usize, phi: u32, t0: u32, dur: u32, best: &mut Option<Cand>) {
    for h in 0..s.h {
        if phi > s.caps[h] {
            continue;
        }
        let cost = (phi as u128).saturating_mul(s.win_sum(m, h, t0, dur));
        let idx = [m as u32, phi, t0, h as u32, 0];
        if may_beat(cost, idx, best) {
            *best = Some(Cand {
                cost,
                idx,
                colocated: true,
                m: m as u32,
                p: NONE,
                dur,
                tminus: t0,
                host: h as u32,
                workers: phi,
            });
        }
    }
}

/// Rebuilds the greedy placement of a q = 0 winner (literal inner loop over the order).
fn place_q0(cx: &Ctx, s: &mut FastScratch, c: &Cand, out: &mut Placement) {
    let (m, t0, dur) = (c.m as usize, c.tminus, c.dur);
    // Window minima of free capacity for this (t-, L), straight from `free`.
    for hr in 0..s.h * s.r {
        let b = hr * s.wcap;
        let mut lo = f64::INFINITY;
        for t in t0..t0 + dur {
            let f = s.free[b + t as usize];
            if f < lo {
                lo = f;
            }
        }
        s.mins[b + t0 as usize] = lo;
    }
    s.omegas(cx, m, t0, dur);
    s.caps_for(cx, m, t0);
    s.sort_and_prefix();
    let mut free = [0.0; crate::limits::RESOURCES_MAX];
    let mut left = c.workers;
    let mut ps_on_host = 0;
    let mut y_host = 0;
    out.clear();
    for i in 0..s.h {
        let k = s.order[i].1 as usize;
        let yk = s.caps[k].min(left);
        let mut y = yk;
        if c.p != NONE && k == c.host as usize {
            let (wt, pt) = (&cx.scn.worker_types[m], &cx.scn.ps_types[c.p as usize]);
            s.min_free(k, t0, &mut free[..s.r]);
            let mut g = yk.min(c.workers - 1);
            loop {
                let need = ps_needed(c.workers - g, wt, pt);
                if ps_fit(&free[..s.r], g, wt, pt) >= need {
                    ps_on_host = need;
                    break;
                }
                if g == 0 {
                    break;
                }
                g -= 1;
            }
            y = g;
            y_host = g;
        }
        left -= y;
        s.caps[k] = y; // reuse as the per-server worker count
    }
    for h in 0..s.h {
        let ps = if c.p != NONE && h == c.host as usize {
            ps_on_host
        } else {
            0
        };
        let y = if c.p != NONE && h == c.host as usize {
            y_host
        } else {
            s.caps[h]
        };
        if y > 0 || ps > 0 {
            let _ = out.push(Placed {
                server: h as u32,
                workers: y,
                ps,
            });
        }
    }
}

/// A_maxweight's choice for one job: the q = 1 subroutine, then the q = 0 one if strictly
/// cheaper. Writes the placement of the choice.
pub fn search(
    cx: &Ctx,
    job: &OnlineJob,
    w: &Window,
    s: &mut FastScratch,
    out: &mut Placement,
) -> Option<Cand> {
    out.clear();
    if w.len < 2 || w.len as usize > s.wcap {
        return None;
    }
    let top = if cx.ring() {
        ring_table(cx, job, s, w.len)
    } else {
        job_rates(cx, job, s, w.len)
    };
    if top == 0 {
        // No duration fits the window: nothing to price.
        return None;
    }
    s.prepare(cx, w);
    let (two, one) = if cx.ring() {
        let [two, one] = ring_search(cx, w, s, top);
        (two, one)
    } else {
        let two = ps_q1(cx, job, w, s, top);
        let bound = two.map_or(u128::MAX, |c| c.cost);
        (two, ps_q0(cx, job, w, s, bound, top))
    };
    let pick = match (two, one) {
        (Some(a), Some(b)) => Some(if b.cost < a.cost { b } else { a }),
        (a, b) => a.or(b),
    }?;
    if pick.colocated {
        let ps = if cx.ring() { 0 } else { 1 };
        let _ = out.push(Placed {
            server: pick.host,
            workers: pick.workers,
            ps,
        });
    } else {
        place_q0(cx, s, &pick, out);
    }
    Some(pick)
}
