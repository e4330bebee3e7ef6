//! Window capacities: how many workers of a type (or PSs, for the PS hosts of [`FastScratch::zetas`])
//! each server can hold over [t-, t- + L), as fit counts of the window minima; the block and
//! room-set bounds that skip servers which cannot hold what a pass needs, and the whole-window
//! upper bounds ([`FastScratch::worker_ub`], [`FastScratch::possible`]).
use super::bounds::BlockBounds;
use super::prices::price_cap;
use super::room::RoomSets;
use super::scratch::{FastScratch, BLOCK};
use crate::online::common::*;
use crate::online::Ctx;
use alloc::vec::Vec;

/// Window capacities of the last capacity pass and the bounds kept across passes.
#[derive(Clone, Debug)]
pub(super) struct Capacity {
    pub(super) caps: Vec<u32>,
    /// The servers with a positive `caps` after the last full capacity pass ([`FastScratch::caps_for`],
    /// [`FastScratch::caps_direct`], [`FastScratch::caps_at`]; set order), and how many:
    /// [`FastScratch::omegas_live`] and [`FastScratch::sort_and_prefix`] without `all` visit these only, not
    /// the whole set (in a full window a few percent of it).
    pub(super) live: Vec<u32>,
    pub(super) live_n: usize,
    /// The q = 1 hosts of [`FastScratch::caps_possible`], and how many.
    pub(super) hold: Vec<u32>,
    pub(super) hold_n: usize,
    /// Servers with room for a worker per (worker type, L, t-), kept across the searches of a
    /// window ([`RoomSets`]): when few, [`FastScratch::caps_for`] visits only these.
    pub(super) room: RoomSets,
    /// fit(bmax) per (type, L, t-, block) kept across the searches of a window
    /// ([`BlockBounds`]): a block recorded below what a pass needs is skipped without
    /// computing its window minima ([`FastScratch::block_fits`]).
    pub(super) bounds: BlockBounds,
    /// Per worker type m: (most workers one server can hold in any slot of the window, most
    /// the whole set can), computed on first use after `maxfree` changed ([`FastScratch::worker_ub`]).
    pub(super) ub: Vec<Option<(u32, u64)>>,
    /// fit(`maxfree` of server h, worker type m) at `ubfit[m * hcap + h]`, kept while
    /// `ubfit_ok[m]` (refreshed for a server whenever its `maxfree` is rebuilt), so that after a
    /// commit [`FastScratch::worker_ub`] recounts the touched servers only, not the whole set.
    pub(super) ubfit: Vec<u32>,
    pub(super) ubfit_ok: Vec<bool>,
    /// Per type ty (worker types, then PS types), the servers of [`FastScratch::possible`] at
    /// `poss[ty * hcap..][..poss_n[ty]]`.
    pub(super) poss: Vec<u32>,
    pub(super) poss_n: Vec<u32>,
    pub(super) poss_ok: Vec<bool>,
}

/// The PS hosts of the last (L, t-) per PS type.
#[derive(Clone, Debug)]
pub(super) struct PsHosts {
    pub(super) zeta: Vec<u128>,
    /// PS capacity s-hat(0) per (PS type, server) over the (L, t-) of [`FastScratch::zetas`].
    pub(super) pcap: Vec<u32>,
    /// The possible PS hosts of [`FastScratch::zetas`] per PS type (set order), and how many.
    pub(super) phost: Vec<u32>,
    pub(super) phost_n: Vec<u32>,
    pub(super) zmin: Vec<u128>,
    pub(super) zdone: Vec<bool>,
    /// The `need` each PS type's host list of [`FastScratch::zetas`] was made for.
    pub(super) zneed: Vec<u32>,
    /// The price cap each PS type's host list of [`FastScratch::zetas`] was made for.
    pub(super) zcap: Vec<u128>,
}

impl FastScratch {
    /// Window capacities for (m, t-, L) by [`Self::caps_direct`] while the scan budget lasts,
    /// then from the power-of-two levels (`lv`: the level reached, the budget left).
    pub(super) fn caps_any(
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
    pub(super) fn caps_direct(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) {
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        self.capacity.live_n = 0;
        let (a, n) = (t0 as usize, dur as usize);
        for h in 0..self.h {
            for (r, f) in free.iter_mut().enumerate().take(self.r) {
                let row = &self.minima.free[(h * self.r + r) * self.wcap + a..][..n];
                let mut lo = f64::INFINITY;
                for &x in row {
                    if x < lo {
                        lo = x;
                    }
                }
                *f = lo;
            }
            let c = self.fit_type(cx, m, &free[..self.r]);
            self.set_cap(h, c);
        }
    }

    /// Window capacity of every server for worker type m over [t-, t- + L), with `mins` at level
    /// k = floor(log2 L): min over [t-, t- + L) = min(level k at t-, at t- + L - 2^k) (the two
    /// ranges cover it; min is idempotent). Equals the literal min over slots of the fit count,
    /// because the fit count is non-decreasing in each free capacity.
    pub(super) fn caps_at(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32, k: u32) {
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        let (a, b) = (t0 as usize, (t0 + dur - (1 << k)) as usize);
        self.capacity.live_n = 0;
        for h in 0..self.h {
            for (r, f) in free.iter_mut().enumerate().take(self.r) {
                let row = (h * self.r + r) * self.wcap;
                let (x, y) = (self.minima.mins[row + a], self.minima.mins[row + b]);
                *f = if y < x { y } else { x };
            }
            let c = self.fit_type(cx, m, &free[..self.r]);
            self.set_cap(h, c);
        }
    }

    /// Window capacity of every server of the set for worker type m over [t-, t- + L).
    /// Blocks whose bound fits no worker get 0 without a visit ([`super::minima::Minima::bmax`]).
    pub(super) fn caps_for(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) {
        self.capacity.live_n = 0;
        let key = self.capacity.room.key(m, dur, t0);
        if let Some(key) = key.filter(|&k| self.capacity.room.sparse(k, self.h)) {
            // Only the servers with room get a positive capacity (fits_at_least(1) holds
            // exactly when the fit is at least 1).
            self.capacity.caps[..self.h].iter_mut().for_each(|c| *c = 0);
            let mut v = 0;
            while let Some(h) = self.next_room(cx, key, m, (t0, dur), v) {
                v = h + 1;
                let c = self.fit_wmin(cx, m, h);
                self.set_cap(h, c);
            }
            return;
        }
        self.caps_for_blocks(cx, m, t0, dur);
        if let Some(key) = key {
            // The servers with room are the live ones: the room set of the next pass.
            self.capacity
                .room
                .record(key, &self.capacity.live[..self.capacity.live_n], self.h);
        }
    }

    /// [`Self::caps_for`] over the whole set, block by block.
    pub(super) fn caps_for_blocks(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) {
        self.window_minima(t0, dur);
        for b in 0..self.h.div_ceil(BLOCK) {
            let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(self.h));
            if !self.block_fits(cx, m, b, 1) {
                self.capacity.caps[lo..hi].iter_mut().for_each(|c| *c = 0);
                continue;
            }
            for h in lo..hi {
                let c = if self.wmin_fits(cx, m, h, 1) {
                    self.fit_wmin(cx, m, h)
                } else {
                    0
                };
                self.set_cap(h, c);
            }
        }
    }

    /// Sets server h's window capacity and lists it in `live` when positive (the full passes
    /// [`Self::caps_for`], [`Self::caps_direct`] and [`Self::caps_at`] visit servers in set
    /// order after emptying `live`).
    pub(super) fn set_cap(&mut self, h: usize, c: u32) {
        self.capacity.caps[h] = c;
        if c > 0 {
            self.capacity.live[self.capacity.live_n] = h as u32;
            self.capacity.live_n += 1;
        }
    }

    /// Whether fit(`bmax` of block b, type ty) >= `need` (`need` >= 1) for the range of
    /// [`Self::window_minima`]: when not, no server of the block has window capacity `need`
    /// (worker type ty < M, else PS type ty - M). When true, the block's window minima are
    /// in `wmin`. A bound recorded by an earlier search of the window ([`BlockBounds`])
    /// answers false without computing them; a full block's fit(bmax) is recorded.
    pub(super) fn block_fits(&mut self, cx: &Ctx, ty: usize, b: usize, need: u32) -> bool {
        let key = self
            .minima
            .wmin_key
            .and_then(|(t0, dur)| self.capacity.bounds.key(ty, dur, t0));
        if key.is_some_and(|k| !self.capacity.bounds.may_hold(k, b, need)) {
            return false;
        }
        self.block_minima(b);
        // fit >= need exactly when fits_at_least(need) for need >= 1 ([`fits_at_least`]).
        let f = fit(&self.minima.bmax[b * self.r..][..self.r], self.task(cx, ty));
        if let Some(k) = key.filter(|_| (b + 1) * BLOCK <= self.h) {
            self.capacity.bounds.record(k, b, f);
        }
        f >= need
    }

    /// Whether [`Self::block_fits`] answers for block b without computing window minima: a
    /// bound recorded for (ty, range) says no, or the block's minima describe the range
    /// already (an earlier capacity pass of this range made them).
    pub(super) fn block_bound_known(&self, ty: usize, b: usize, need: u32) -> bool {
        if self.minima.bgen[b] == self.minima.wgen {
            return true;
        }
        self.minima
            .wmin_key
            .and_then(|(t0, dur)| self.capacity.bounds.key(ty, dur, t0))
            .is_some_and(|k| !self.capacity.bounds.may_hold(k, b, need))
    }

    /// Whether server h's window capacity for type ty over the range of `wmin` is at least
    /// `need` ([`fits_at_least`]: no floors).
    pub(super) fn wmin_fits(&self, cx: &Ctx, ty: usize, h: usize, need: u32) -> bool {
        fits_at_least(
            &self.minima.wmin[h * self.r..][..self.r],
            self.task(cx, ty),
            need,
        )
    }

    /// [`Self::fit_type`] of server h's window minima in `wmin`, read in place.
    pub(super) fn fit_wmin(&mut self, cx: &Ctx, ty: usize, h: usize) -> u32 {
        self.fit_type(cx, ty, &self.minima.wmin[h * self.r..][..self.r])
    }

    /// fit(`maxfree` of server h, worker type m): at least its window capacity for m.
    pub(super) fn max_fit(&self, cx: &Ctx, m: usize, h: usize) -> u32 {
        fit(
            &self.minima.maxfree[h * self.r..][..self.r],
            &cx.scn.worker_types[m],
        )
    }

    /// Bounds of worker type m over the window (cached in [`Capacity::ub`]): (most workers one
    /// server can hold, most the whole set can). A server's window capacity
    /// floor(min over t of omega / e) is at most fit(max over t of omega), the fit count being
    /// non-decreasing in each free capacity. So a q = 1 schedule of more workers than the first
    /// is infeasible (Ring Phi, PS N), and so is a q = 0 schedule of more than the second (the
    /// greedy fill places at most the sum of the capacities).
    pub(super) fn worker_ub(&mut self, cx: &Ctx, m: usize) -> (u32, u64) {
        if let Some(Some(u)) = self.capacity.ub.get(m) {
            return *u;
        }
        // Every server of the set is built (a search runs after `prepare`), so `maxfree` and
        // the kept fits describe the window.
        debug_assert!(!self.dirty[..self.h].contains(&true));
        let at = m * self.hcap;
        if !self.capacity.ubfit_ok[m] {
            for h in 0..self.h {
                self.capacity.ubfit[at + h] = self.max_fit(cx, m, h);
            }
            self.capacity.ubfit_ok[m] = true;
        }
        // The kept counts are those of the current `maxfree` (the recount they replace).
        debug_assert!((0..self.h).all(|h| self.capacity.ubfit[at + h] == self.max_fit(cx, m, h)));
        let fits = &self.capacity.ubfit[at..][..self.h];
        let (mut one, mut all) = (0u32, 0u64);
        for &c in fits.iter() {
            one = one.max(c);
            all = all.saturating_add(c as u64);
        }
        if let Some(u) = self.capacity.ub.get_mut(m) {
            *u = Some((one, all));
        }
        (one, all)
    }

    /// The servers of the set that can hold one task of type ty (worker type ty < M, else PS
    /// type ty - M) in some slot of the window: fit(max over the window of omega) >= 1 (the
    /// window capacity, a fit of the minima, is at most that, the fit count being
    /// non-decreasing in each free capacity), or a superset of them (servers added to the set
    /// later are appended; a server whose capacity fell stays), in set order: ascending, as
    /// a server joins the set with the next index. For a PS type these are the
    /// only possible PS hosts of A_mincost1: s-hat(g) <= s-hat(0) = fit of the window minima.
    pub(super) fn possible(&mut self, cx: &Ctx, ty: usize) {
        if self.capacity.poss_ok[ty] {
            return;
        }
        let task = if ty < self.m {
            &cx.scn.worker_types[ty]
        } else {
            &cx.scn.ps_types[ty - self.m]
        };
        let mut n = 0;
        for v in 0..self.h {
            if fit(&self.minima.maxfree[v * self.r..(v + 1) * self.r], task) >= 1 {
                self.capacity.poss[ty * self.hcap + n] = v as u32;
                n += 1;
            }
        }
        self.capacity.poss_n[ty] = n as u32;
        self.capacity.poss_ok[ty] = true;
    }

    /// [`Self::caps_for`] for the servers of [`Self::possible`] only; the servers whose window
    /// capacity is at least `least` go to `hold[..hold_n]` (index order of the set), their
    /// Omega_h (type m) to `omega`: the only q = 1 hosts of a worker count >= `least`. A
    /// server is first priced: when `worth(least x Omega_h)` is false (its `least` workers
    /// alone cannot beat the incumbent, see [`super::ps::ps_q1`]) it is no host worth listing,
    /// and neither its capacity nor its block's window minima are computed for it.
    pub(super) fn caps_possible(
        &mut self,
        cx: &Ctx,
        (m, t0, dur): (usize, u32, u32),
        least: u32,
        worth: impl Fn(u128) -> bool,
    ) {
        self.possible(cx, m);
        self.ensure(cx, m);
        self.capacity.hold_n = 0;
        let Some(cap) = price_cap(|om| worth((least as u128).saturating_mul(om))) else {
            return;
        };
        // Most of the set: the shared window minima (one pass for every worker type).
        let shared = 2 * self.capacity.poss_n[m] as usize >= self.h;
        if shared {
            self.window_minima(t0, dur);
        }
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        let (at, n) = (m * self.hcap, self.capacity.poss_n[m] as usize);
        let mut blk = (usize::MAX, true);
        let mut cheap = (usize::MAX, true);
        let floors = self.block_floors(cx, m);
        let mut i = 0;
        while i < n {
            let h = self.capacity.poss[at + i] as usize;
            // Price first, a block at a time: contiguous reads of the prefix rows, against the
            // window minima and fit tests of a capacity (in the late rounds' full windows
            // about 1% of the servers with room for `least` workers are worth listing).
            if cheap.0 != h / BLOCK {
                cheap = (
                    h / BLOCK,
                    self.block_under((m, h / BLOCK), (t0, dur), cap, floors),
                );
            }
            if !cheap.1 {
                let next = (h / BLOCK + 1) * BLOCK;
                i += self.capacity.poss[at + i..at + n].partition_point(|&x| (x as usize) < next);
                continue;
            }
            i += 1;
            let om = self.win_sum(m, h, t0, dur);
            if om > cap {
                continue;
            }
            let c = if shared {
                // A block whose bound holds fewer than `least` cannot hold a q = 1 host (its
                // servers' `caps` are left as they were: only `hold` servers' are read). The
                // list is in set order, so its members in the block are skipped at once.
                if blk.0 != h / BLOCK {
                    blk = (h / BLOCK, self.block_fits(cx, m, h / BLOCK, least.max(1)));
                }
                if !blk.1 {
                    let next = (h / BLOCK + 1) * BLOCK;
                    i += self.capacity.poss[at + i..at + n]
                        .partition_point(|&x| (x as usize) < next);
                    continue;
                }
                if !self.wmin_fits(cx, m, h, least.max(1)) {
                    continue;
                }
                self.fit_wmin(cx, m, h)
            } else {
                self.min_free(h, t0, dur, &mut free[..self.r]);
                self.fit_type(cx, m, &free[..self.r])
            };
            self.capacity.caps[h] = c;
            if c >= least {
                self.omega[h] = om;
                self.capacity.hold[self.capacity.hold_n] = h as u32;
                self.capacity.hold_n += 1;
            }
        }
    }

    /// The next server at or after `from` with room for one task of type ty over
    /// [t-, t- + L) by room set `key` ([`RoomSets`]), its window minima in `wmin`; the servers
    /// visited without room leave the set, and the set is complete once this returns `None`.
    pub(super) fn next_room(
        &mut self,
        cx: &Ctx,
        key: usize,
        ty: usize,
        (t0, dur): (u32, u32),
        from: usize,
    ) -> Option<usize> {
        let mut v = from;
        while let Some(h) = self.capacity.room.next(key, v, self.h) {
            self.wmin_at(h, t0, dur);
            let ok = self.wmin_fits(cx, ty, h, 1);
            self.capacity.room.set(key, h, ok);
            if ok {
                return Some(h);
            }
            v = h + 1;
        }
        self.capacity.room.done(key, self.h);
        None
    }

    /// Zeta_h (PS type p) of the servers that can host at least `need` type-p PSs over
    /// [t-, t- + L), cached per (L, t-): their PS capacity s-hat(0) = fit(window minima, p)
    /// goes to `pcap` (A_mincost1 needs at least one PS on its host, and s-hat(g) <= s-hat(0)),
    /// the servers with s-hat(0) >= `need` to `phost[p * hcap..][..phost_n[p]]` (set order).
    /// Returns their min Zeta (u128::MAX when there is none: then no q = 0 schedule uses
    /// p here). Only servers with Zeta_h <= `cap` are listed (the caller's price cap: a host
    /// above it cannot be useful), priced before their PS capacity is computed. A list made
    /// for a smaller `need` and a larger `cap` is kept (a superset whose minimum is a lower
    /// bound); blocks whose bound holds fewer than `need` are skipped.
    pub(super) fn zetas(
        &mut self,
        cx: &Ctx,
        (p, t0, dur): (usize, u32, u32),
        need: u32,
        cap: u128,
    ) -> u128 {
        let need = need.max(1);
        let mut cap = cap;
        if self.hosts.zdone[p] && self.hosts.zneed[p] <= need && self.hosts.zcap[p] < cap {
            // A list made for a smaller cap (a cheaper fill of another worker type): made
            // again without a cap, so one (L, t-) makes at most two lists per PS type
            // (rebuilding for every larger cap cost 12,500 servers / 5,000 jobs 14.2-15.5 s
            // user against 13.9-14.3 s this way; `docs/online.md`, "Priced passes").
            cap = u128::MAX;
        }
        if !self.hosts.zdone[p] || self.hosts.zneed[p] > need || self.hosts.zcap[p] < cap {
            let ty = self.m + p;
            self.ensure(cx, ty);
            let mut lo = u128::MAX;
            let mut n = 0;
            self.window_minima(t0, dur);
            let floors = self.block_floors(cx, ty);
            // Block by block over the whole set: a block whose bound holds fewer than `need`
            // PSs is skipped as a whole.
            // A block's bound (and window minima) only when a member is under the price cap.
            // (The floor only: a scan of the block's prices before its members' would read
            // them twice where most blocks hold a member under the cap.)
            for b in 0..self.h.div_ceil(BLOCK) {
                if floors && self.block_floor(ty, b, t0, dur) > cap {
                    continue;
                }
                let mut fits = None;
                if self.block_bound_known(ty, b, need) {
                    // Its capacity bound costs no window minima: cheaper than the prices.
                    if !self.block_fits(cx, ty, b, need) {
                        continue;
                    }
                    fits = Some(true);
                }
                for h in b * BLOCK..((b + 1) * BLOCK).min(self.h) {
                    let z = self.win_sum(ty, h, t0, dur);
                    if z > cap {
                        continue;
                    }
                    if !*fits.get_or_insert_with(|| self.block_fits(cx, ty, b, need)) {
                        break;
                    }
                    if !self.wmin_fits(cx, ty, h, need) {
                        continue;
                    }
                    let c = self.fit_wmin(cx, ty, h);
                    if c < need {
                        continue;
                    }
                    self.hosts.pcap[p * self.hcap + h] = c;
                    self.hosts.phost[p * self.hcap + n] = h as u32;
                    n += 1;
                    self.hosts.zeta[p * self.hcap + h] = z;
                    lo = lo.min(z);
                }
            }
            // Set order, unsorted: every listed host can hold `need` PSs, and the host loop
            // skips the few below a larger `need` of a reused list.
            self.hosts.phost_n[p] = n as u32;
            self.hosts.zmin[p] = lo;
            self.hosts.zdone[p] = true;
            self.hosts.zneed[p] = need;
            self.hosts.zcap[p] = cap;
        }
        self.hosts.zmin[p]
    }
}
