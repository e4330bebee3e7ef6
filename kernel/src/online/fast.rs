//! The default, exact and fast search of A_maxweight's per-job choice.
//!
//! It finds the same schedule as [`super::reference`] (same cost, same enumeration-order tie-break)
//! because costs are exact integers (see [`super::common::quantize`]): the winner is the
//! lexicographic minimum of (cost, enumeration index), whatever order candidates are visited in.
//! What makes it fast:
//! - window prefix sums of every type's unit price per server (`pre`), refreshed only for the
//!   servers a scheduled job touched, so Omega_h and Zeta_h are O(1) differences;
//! - sliding-window minima of free capacity per (server, resource), grown by one slot per
//!   duration L (min over [t-, t- + L) = min(min over [t-, t- + L - 1), omega(t- + L - 1)));
//! - one server order (by Omega, then index) per (L, t-, m), shared by every PS type p and every
//!   PS host n; greedy fills answered from prefix sums over that order by binary search;
//! - the q = 1 subroutine runs first and bounds the q = 0 one (which only matters when strictly
//!   cheaper), and lower bounds (greedy fill of N >= any placement of N; one PS >= the cheapest
//!   PS slot) skip candidates that cannot beat the best so far.
use super::common::*;
use super::{Ctx, Placed, Placement, Window};
use crate::model::online::OnlineJob;
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
    /// Ring: (Phi, d q=1, d q=0) per worker type, `phis` entries each.
    ring: Vec<(u32, u32, u32)>,
    ring_len: Vec<u32>,
    phis: usize,
    /// Ring: durations (< window length) some kept Phi has.
    dur_used: Vec<bool>,
}

const NONE: u32 = u32::MAX;

impl FastScratch {
    /// Scratch for H servers, R resources, M worker / P PS types, windows up to `wcap` slots and
    /// up to `phis` ring worker counts per type.
    pub fn new(h: usize, r: usize, m: usize, p: usize, wcap: usize, phis: usize) -> Self {
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
            ring: vec![(0, 0, 0); m * phis],
            ring_len: vec![0; m],
            phis,
            dur_used: vec![false; wcap + 1],
        }
    }

    /// Forgets the cached window (after a restore, or when prices changed elsewhere).
    pub fn invalidate(&mut self) {
        self.cached = None;
    }

    /// Rebuilds the prefix sums and free capacities of server `h` for window `w`.
    fn build_server(&mut self, cx: &Ctx, w: &Window, h: usize) {
        let stride = self.wcap + 1;
        let mut delta = [0.0; crate::limits::RESOURCES_MAX];
        for t in 0..w.len as usize {
            for (r, d) in delta.iter_mut().enumerate().take(self.r) {
                *d = cx.delta(w.base + t as u32, h, r);
                self.free[(h * self.r + r) * self.wcap + t] = cx.free(w.base + t as u32, h, r);
            }
            for ty in 0..self.m + self.p {
                let tt = if ty < self.m {
                    &cx.scn.worker_types[ty]
                } else {
                    &cx.scn.ps_types[ty - self.m]
                };
                let i = (ty * self.h + h) * stride + t;
                self.pre[i + 1] = self.pre[i].saturating_add(unit_price(&delta[..self.r], tt));
            }
        }
    }

    /// Makes the scratch describe window `w` (full rebuild when the window changed).
    fn prepare(&mut self, cx: &Ctx, w: &Window) {
        if self.cached != Some((w.base, w.len)) {
            for h in 0..self.h {
                self.build_server(cx, w, h);
            }
            self.cached = Some((w.base, w.len));
        }
    }

    /// Refreshes the servers of `placement` after it was reserved in window `w`.
    pub fn touched(&mut self, cx: &Ctx, w: &Window, placement: &Placement) {
        if self.cached == Some((w.base, w.len)) {
            for pl in placement.iter() {
                self.build_server(cx, w, pl.server as usize);
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

    fn min_free(&self, h: usize, t0: u32, out: &mut [f64]) {
        for (r, o) in out.iter_mut().enumerate() {
            *o = self.mins[(h * self.r + r) * self.wcap + t0 as usize];
        }
    }

    /// Omega_h (type m) for every server; returns min_h Omega_h.
    fn omegas(&mut self, m: usize, t0: u32, dur: u32) -> u128 {
        let mut lo = u128::MAX;
        for h in 0..self.h {
            let o = self.win_sum(m, h, t0, dur);
            self.omega[h] = o;
            lo = lo.min(o);
        }
        lo
    }

    /// Zeta_h (PS type p) for every server, cached per (L, t-).
    fn zetas(&mut self, p: usize, t0: u32, dur: u32) -> u128 {
        if !self.zdone[p] {
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
            self.caps[h] = fit(&free[..self.r], &cx.scn.worker_types[m]);
        }
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
                        caps_done = true;
                    }
                    s.zetas(p, t0, dur);
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
                let om_min = s.omegas(m, t0, dur);
                let mut sorted = false;
                for p in 0..s.p {
                    let nn = s.n1[m * s.p + p];
                    if nn == NONE {
                        continue;
                    }
                    let zmin = s.zetas(p, t0, dur);
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

/// Per job: (Phi, d for q = 1, d for q = 0) of every worker type, keeping only the Phi whose
/// duration fits the window (t- >= 1, so d < len); marks the durations that occur.
fn ring_table(cx: &Ctx, job: &OnlineJob, s: &mut FastScratch, len: u32) -> u32 {
    s.dur_used.iter_mut().for_each(|u| *u = false);
    let mut longest = 0;
    for m in 0..s.m {
        let wt = &cx.scn.worker_types[m];
        let top = (job.chunks.min(cx.phi_max(m)) as usize).min(s.phis);
        let mut kept = 0;
        for k in 0..top {
            let phi = k as u32 + 1;
            let d1 = ring_duration(job, phi, rho_ring(job, m, phi, wt, true));
            let d0 = ring_duration(job, phi, rho_ring(job, m, phi, wt, false));
            if d1 >= len && d0 >= len {
                continue;
            }
            for d in [d1, d0] {
                if d < len {
                    longest = longest.max(d);
                    if let Some(u) = s.dur_used.get_mut(d as usize) {
                        *u = true;
                    }
                }
            }
            s.ring[m * s.phis + kept] = (phi, d1, d0);
            kept += 1;
        }
        s.ring_len[m] = kept as u32;
    }
    longest
}

/// A_RAmincost1 (q = 1) over the window, durations up to `top`.
fn ring_q1(cx: &Ctx, w: &Window, s: &mut FastScratch, top: u32) -> Option<Cand> {
    let mut best: Option<Cand> = None;
    s.reset_mins();
    for dur in 1..=top {
        if dur > 1 {
            s.slide(w.len, dur);
        }
        if !s.dur_used[dur as usize] {
            continue;
        }
        for t0 in 1..=w.len - dur {
            for m in 0..s.m {
                let mut caps_done = false;
                for k in 0..s.ring_len[m] as usize {
                    let (phi, d1, _) = s.ring[m * s.phis + k];
                    if d1 != dur || !may_beat(0, [m as u32, phi, t0, 0, 0], &best) {
                        continue;
                    }
                    if !caps_done {
                        s.caps_for(cx, m, t0);
                        caps_done = true;
                    }
                    for h in 0..s.h {
                        if phi > s.caps[h] {
                            continue;
                        }
                        let cost = (phi as u128).saturating_mul(s.win_sum(m, h, t0, dur));
                        let idx = [m as u32, phi, t0, h as u32, 0];
                        if may_beat(cost, idx, &best) {
                            best = Some(Cand {
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
            }
        }
    }
    best
}

/// A_RAmincost2 (q = 0), durations up to `top`, only looking for schedules strictly cheaper
/// than `bound`.
fn ring_q0(cx: &Ctx, w: &Window, s: &mut FastScratch, bound: u128, top: u32) -> Option<Cand> {
    let mut best: Option<Cand> = None;
    s.reset_mins();
    for dur in 1..=top {
        if dur > 1 {
            s.slide(w.len, dur);
        }
        if !s.dur_used[dur as usize] {
            continue;
        }
        for t0 in 1..=w.len - dur {
            for m in 0..s.m {
                let mut om_min = None;
                let mut sorted = false;
                for k in 0..s.ring_len[m] as usize {
                    let (phi, _, d0) = s.ring[m * s.phis + k];
                    let idx = [m as u32, phi, t0, 0, 0];
                    if d0 != dur || !useful(0, idx, bound, &best) {
                        continue;
                    }
                    let lo = *om_min.get_or_insert_with(|| s.omegas(m, t0, dur));
                    if !useful((phi as u128).saturating_mul(lo), idx, bound, &best) {
                        continue;
                    }
                    if !sorted {
                        s.caps_for(cx, m, t0);
                        s.sort_and_prefix();
                        sorted = true;
                    }
                    let Some(cost) = s.fill(phi as u64, None) else {
                        continue;
                    };
                    if useful(cost, idx, bound, &best) {
                        best = Some(Cand {
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
    }
    best
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
    s.omegas(m, t0, dur);
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
        let two = ring_q1(cx, w, s, top);
        let bound = two.map_or(u128::MAX, |c| c.cost);
        (two, ring_q0(cx, w, s, bound, top))
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
