//! Prices of the window: delta_h^r(t) of eq. (11) per (server, resource, slot), computed once
//! per run of equal usage; prefix sums of every type's unit price per server (Omega_h, Zeta_h
//! as O(1) differences), built per type on demand; the per-slot and per-block price minima
//! that bound a whole (m, p, L, t-) block or a block of servers in O(1).
use super::scratch::{FastScratch, BLOCK, SLIDE_WINDOW_MAX};
use crate::online::common::unit_price;
use crate::online::{Ctx, Window};
use alloc::vec::Vec;

/// Prices of the cached window and their prefix sums and minima.
#[derive(Clone, Debug)]
pub(super) struct Prices {
    /// pre[(ty * (wcap + 1) + t) * H + h]: sum of unit prices of type ty on server h over
    /// slots [0, t). Slot-major, so a pass over the servers (Omega_h, Zeta_h of every h) reads
    /// two contiguous rows.
    pub(super) pre: Vec<u128>,
    /// delta_h^r(t) at `(h * wcap + t) * R + r`.
    pub(super) dl: Vec<f64>,
    /// `fresh[h * wcap + t]`: the prices of slot t on h differ from slot t - 1's (or t = 0).
    pub(super) fresh: Vec<bool>,
    /// `row_ok[ty * H + h]`: the prefix row of type ty on server h describes the window.
    pub(super) row_ok: Vec<bool>,
    /// `type_ok[ty]`: every row of type ty does.
    pub(super) type_ok: Vec<bool>,
    /// Slot-minimum prefix sums: `smin[ty * (wcap + 1) + t]` = sum over slots [0, t) of the
    /// smallest unit price of type ty on any server of the set in that slot
    /// ([`FastScratch::slot_lb`]).
    pub(super) smin: Vec<u128>,
    /// `smin_ok[ty]`: the slot minima of type ty describe the current rows.
    pub(super) smin_ok: Vec<bool>,
    /// Per (type, block of [`BLOCK`] servers) the smallest unit price of the block's servers in
    /// every slot, at `bsmin[(ty * SLIDE_WINDOW_MAX + t) * blocks + b]` (a slot's blocks side
    /// by side, for the minimum over the blocks), and whether it is stale
    /// (a member's prefix row was rebuilt): after a commit only the touched servers' blocks
    /// are recomputed before the minimum over the blocks ([`FastScratch::slot_lb`]).
    pub(super) bsmin: Vec<u128>,
    pub(super) bstale: Vec<bool>,
    /// Prefix sums over the slots of `bsmin`, at `bspre[(ty * (SLIDE_WINDOW_MAX + 1) + t) *
    /// blocks + b]` (built with it): a lower bound of every member's window sum in O(1)
    /// ([`FastScratch::block_floor`]). A slot's blocks side by side, so that a pass over the blocks
    /// for one (t-, L) reads two contiguous rows, not two lines per block.
    pub(super) bspre: Vec<u128>,
    /// delta_h^r at zero usage, at `h * R + r` (filled on first use).
    pub(super) price0: Vec<Option<f64>>,
}

impl FastScratch {
    /// Rebuilds the free capacities and prices of server `h` for window `w`; its prefix rows
    /// are rebuilt on demand ([`Self::ensure`]), only for the types a search asks about.
    ///
    /// delta_h^r(t) depends only on beta_h^r(t) (and C_h^r, fixed), and a reservation covers a
    /// run of slots, so beta is piecewise constant along t: a slot whose usage bits equal the
    /// previous slot's reuses its price (same inputs to the same `pow`, hence the same bits).
    pub(super) fn build_server(&mut self, cx: &Ctx, w: &Window, v: usize) {
        let (rr, wcap) = (self.r, self.wcap);
        let len = (w.len as usize).min(wcap);
        let h = self.set.real[v] as usize;
        let caps = cx.scn.servers.get(h);
        for r in 0..rr {
            let cap = caps.map_or(0.0, |c| c.get(r));
            let free = &mut self.minima.free[(v * rr + r) * wcap..][..len];
            let mut last = 0u64;
            let mut delta = 0.0;
            let mut most = f64::NEG_INFINITY;
            let busy = cx.win.is_busy(h);
            for (t, f) in free.iter_mut().enumerate() {
                let u = if busy {
                    cx.used(w.base + t as u32, h, r)
                } else {
                    0.0
                };
                *f = cap - u;
                if *f > most {
                    most = *f;
                }
                let fresh = t == 0 || u.to_bits() != last;
                if fresh {
                    last = u.to_bits();
                    delta = price(&mut self.prices.price0, cx.lambda, h * rr + r, u, cap);
                }
                self.prices.dl[(v * wcap + t) * rr + r] = delta;
                // A slot is fresh when any of its R prices changed.
                if r == 0 {
                    self.prices.fresh[v * wcap + t] = fresh;
                } else if fresh {
                    self.prices.fresh[v * wcap + t] = true;
                }
            }
            self.minima.maxfree[v * rr + r] = most;
        }
        self.build_sparse(v, len);
        let mut k = 0;
        for t in 0..len {
            if self.prices.fresh[v * wcap + t] {
                self.minima.runs[v * wcap + k] = t as u32;
                k += 1;
            }
            self.minima.run_of[v * wcap + t] = k.saturating_sub(1) as u32;
        }
        for ty in 0..self.m + self.p {
            self.prices.row_ok[ty * self.hcap + v] = false;
            self.prices.type_ok[ty] = false;
        }
        // The ring bounds read `maxfree`. The possible-host lists are kept as supersets: free
        // capacity only falls within a window, so a rebuilt server can only leave them.
        self.capacity.ub.iter_mut().for_each(|u| *u = None);
        for m in 0..self.m {
            if self.capacity.ubfit_ok[m] {
                self.capacity.ubfit[m * self.hcap + v] = self.max_fit(cx, m, v);
            }
        }
    }

    /// Makes the prefix rows of type `ty` (worker types first, then PS types) current: row
    /// (ty, h) at t + 1 = sum of the unit prices of slots [0, t]. A slot whose prices repeat the
    /// previous slot's repeats its unit price.
    pub(super) fn ensure(&mut self, cx: &Ctx, ty: usize) {
        if self.prices.type_ok.get(ty) != Some(&false) {
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
            if self.prices.row_ok[ty * self.hcap + h] {
                continue;
            }
            let fresh = &self.prices.fresh[h * self.wcap..][..len];
            let dl = &self.prices.dl[h * self.wcap * self.r..][..len * self.r];
            let mut unit = 0u128;
            let mut acc = 0u128;
            // Column h of the slot-major table: entry t + 1 is H entries after entry t.
            let col = self.prices.pre[(ty * stride + 1) * self.hcap + h..].iter_mut();
            for ((p, &f), d) in col
                .step_by(self.hcap)
                .zip(fresh)
                .zip(dl.chunks_exact(self.r))
            {
                if f {
                    unit = unit_price(d, tt);
                }
                acc = acc.saturating_add(unit);
                *p = acc;
            }
            self.prices.row_ok[ty * self.hcap + h] = true;
            self.prices.bstale[ty * self.hcap.div_ceil(BLOCK) + h / BLOCK] = true;
        }
        self.prices.type_ok[ty] = true;
        self.prices.smin_ok[ty] = false;
    }

    /// A lower bound of min over the set's servers of the window sum of type ty's unit price
    /// over [t-, t- + L): the sum over those slots of the smallest unit price of any server in
    /// each slot (a sum of per-slot minima is at most the minimum of the sums). O(1) once the
    /// slot minima are built (O(H x window) per type after the prices changed), so a search
    /// can drop a whole (m, p, L, t-) block before it visits a server: Omega_h >= this for
    /// every h, Zeta_h too. Exact integers (unit prices are fixed-point), so no rounding.
    pub(super) fn slot_lb(&mut self, cx: &Ctx, ty: usize, t0: u32, dur: u32) -> u128 {
        self.ensure(cx, ty);
        let stride = self.wcap + 1;
        if !self.prices.smin_ok[ty] {
            self.build_slot_minima(ty);
        }
        let row = &self.prices.smin[ty * stride..][..stride];
        row[(t0 + dur) as usize] - row[t0 as usize]
    }

    /// Builds `smin` for type ty from the prefix rows (a slot's unit price is the difference of
    /// two consecutive prefix sums; saturated rows only make the bound smaller).
    pub(super) fn build_slot_minima(&mut self, ty: usize) {
        let len = self.cached.map_or(0, |c| c.1) as usize;
        let stride = self.wcap + 1;
        if len <= SLIDE_WINDOW_MAX.min(self.wcap as u32) as usize {
            self.build_slot_minima_blocks(ty, len);
            return;
        }
        let row = &mut self.prices.smin[ty * stride..][..stride];
        // Per-slot minima first (row[t + 1] = min unit price in slot t), then prefix sums.
        row[1..=len].iter_mut().for_each(|x| *x = u128::MAX);
        for (t, x) in row[1..=len].iter_mut().enumerate() {
            let at = (ty * stride + t) * self.hcap;
            let (a, b) = (
                &self.prices.pre[at..][..self.h],
                &self.prices.pre[at + self.hcap..][..self.h],
            );
            for (lo, hi) in a.iter().zip(b) {
                let u = hi - lo;
                if u < *x {
                    *x = u;
                }
            }
        }
        if self.h == 0 {
            row[1..=len].iter_mut().for_each(|x| *x = 0);
        }
        row[0] = 0;
        for t in 1..=len {
            row[t] = row[t - 1].saturating_add(row[t]);
        }
        self.prices.smin_ok[ty] = true;
    }

    /// [`Self::build_slot_minima`] through the per-block slot minima (`bsmin`): the stale
    /// blocks first, then per slot the minimum over the blocks (the same minimum of the same
    /// exact integers, grouped by block).
    pub(super) fn build_slot_minima_blocks(&mut self, ty: usize, len: usize) {
        let (stride, bs, nb) = (
            self.wcap + 1,
            SLIDE_WINDOW_MAX.min(self.wcap as u32) as usize,
            self.hcap.div_ceil(BLOCK),
        );
        let used = self.h.div_ceil(BLOCK);
        for b in 0..used {
            if !self.prices.bstale[ty * nb + b] {
                continue;
            }
            let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(self.h));
            let mut acc = 0u128;
            self.prices.bspre[ty * (bs + 1) * nb + b] = 0;
            for t in 0..len {
                let at = (ty * stride + t) * self.hcap;
                let (a, c) = (
                    &self.prices.pre[at + lo..at + hi],
                    &self.prices.pre[at + self.hcap + lo..],
                );
                let x = a.iter().zip(c).fold(u128::MAX, |m, (p, q)| m.min(q - p));
                self.prices.bsmin[(ty * bs + t) * nb + b] = x;
                acc = acc.saturating_add(x);
                self.prices.bspre[(ty * (bs + 1) + t + 1) * nb + b] = acc;
            }
            self.prices.bstale[ty * nb + b] = false;
        }
        let row = &mut self.prices.smin[ty * stride..][..stride];
        row[0] = 0;
        for t in 0..len {
            let blocks = &self.prices.bsmin[(ty * bs + t) * nb..][..used];
            let lo = blocks.iter().fold(u128::MAX, |m, &x| m.min(x));
            // No server at all: nothing to bound (the search has no candidate anyway).
            let lo = if used == 0 { 0 } else { lo };
            row[t + 1] = row[t].saturating_add(lo);
        }
        self.prices.smin_ok[ty] = true;
    }

    /// Whether [`Self::block_floor`] answers for type ty: the window is short enough for the
    /// per-block slot minima, which are brought up to date here (only the blocks whose members'
    /// rows changed since are recomputed).
    pub(super) fn block_floors(&mut self, cx: &Ctx, ty: usize) -> bool {
        self.ensure(cx, ty);
        let len = self.cached.map_or(0, |c| c.1);
        if len > SLIDE_WINDOW_MAX.min(self.wcap as u32) {
            return false;
        }
        if !self.prices.smin_ok[ty] {
            self.build_slot_minima(ty);
        }
        true
    }

    /// A lower bound of the window sum of type ty's unit price over [t-, t- + L) of every
    /// server of block b: the sum over those slots of the block's smallest unit price in each
    /// (exact integers; valid only after [`Self::block_floors`] returned true for ty).
    pub(super) fn block_floor(&self, ty: usize, b: usize, t0: u32, dur: u32) -> u128 {
        let (bs, nb) = (
            SLIDE_WINDOW_MAX.min(self.wcap as u32) as usize,
            self.hcap.div_ceil(BLOCK),
        );
        let at = |t: u32| (ty * (bs + 1) + t as usize) * nb + b;
        self.prices.bspre[at(t0 + dur)] - self.prices.bspre[at(t0)]
    }

    /// Where the prefix rows of type ty at t- and t- + L start in `pre` (a server's window
    /// sum is the difference of its entries in the two).
    pub(super) fn pre_rows(&self, ty: usize, t0: u32, dur: u32) -> (usize, usize) {
        let i = ty * (self.wcap + 1);
        (
            (i + t0 as usize) * self.hcap,
            (i + (t0 + dur) as usize) * self.hcap,
        )
    }

    pub(super) fn win_sum(&self, ty: usize, h: usize, t0: u32, dur: u32) -> u128 {
        let (a, b) = self.pre_rows(ty, t0, dur);
        self.prices.pre[b + h] - self.prices.pre[a + h]
    }

    /// Omega_h (type m) for every server; returns min_h Omega_h.
    pub(super) fn omegas(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) -> u128 {
        self.ensure(cx, m);
        let mut lo = u128::MAX;
        for h in 0..self.h {
            let o = self.win_sum(m, h, t0, dur);
            self.omega[h] = o;
            lo = lo.min(o);
        }
        lo
    }

    /// min over every server of the set of Omega_h (type m) over [t-, t- + L): a lower bound of
    /// the cost of any N >= 1 workers, with or without room (two reads of the prefix rows per
    /// server, against window minima and fit tests for the capacities).
    /// Blocks whose floor ([`Self::block_floor`]) is not below the minimum so far are skipped:
    /// none of their members can lower it (the same minimum).
    pub(super) fn omega_floor(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) -> u128 {
        let floors = self.block_floors(cx, m);
        let (a, b) = self.pre_rows(m, t0, dur);
        let (lo, hi) = (
            &self.prices.pre[a..a + self.h],
            &self.prices.pre[b..b + self.h],
        );
        let mut best = u128::MAX;
        for (blk, (x, y)) in lo.chunks(BLOCK).zip(hi.chunks(BLOCK)).enumerate() {
            if floors && self.block_floor(m, blk, t0, dur) >= best {
                continue;
            }
            best = x.iter().zip(y).fold(best, |o, (x, y)| o.min(y - x));
        }
        best
    }

    /// Omega_h (type m) of the servers whose window capacity `caps` of the last
    /// [`Self::caps_for`] (which must be the last to write `caps`) is positive, its `live`
    /// list; returns their minimum (u128::MAX when there is none). The other servers' `omega`
    /// is left as it was: [`Self::sort_and_prefix`] without `all` never reads it, and a PS
    /// host without worker capacity takes no worker.
    pub(super) fn omegas_live(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) -> u128 {
        self.ensure(cx, m);
        let mut lo = u128::MAX;
        for i in 0..self.capacity.live_n {
            let h = self.capacity.live[i] as usize;
            let o = self.win_sum(m, h, t0, dur);
            self.omega[h] = o;
            lo = lo.min(o);
        }
        lo
    }

    /// Whether some server of block b has a window sum of type ty's unit price over
    /// [t-, t- + L) of at most `cap` (one contiguous pass over the block's prefix rows, unless
    /// the block's floor, when `floors` ([`Self::block_floors`]), is already above the cap).
    pub(super) fn block_under(
        &self,
        (ty, b): (usize, usize),
        (t0, dur): (u32, u32),
        cap: u128,
        floors: bool,
    ) -> bool {
        if floors && self.block_floor(ty, b, t0, dur) > cap {
            return false;
        }
        let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(self.h));
        let (a, c) = self.pre_rows(ty, t0, dur);
        self.prices.pre[a + lo..a + hi]
            .iter()
            .zip(&self.prices.pre[c + lo..c + hi])
            .any(|(x, y)| y - x <= cap)
    }
}

/// The largest x with `ok(x)` for a predicate `ok` that is non-increasing in x (true up to
/// some x, false beyond), `None` when `ok(0)` is false: by binary search over u128, so a pass
/// testing `ok(x)` for many x compares each with the answer instead (the same answers).
pub(super) fn price_cap(ok: impl Fn(u128) -> bool) -> Option<u128> {
    ok(0).then(|| crate::num::last_true(0, u128::MAX, ok))
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

#[cfg(test)]
mod tests {
    use super::price_cap;

    #[test]
    fn price_cap_is_the_largest_value_a_monotone_test_accepts() {
        assert_eq!(price_cap(|x| x <= 41), Some(41));
        assert_eq!(price_cap(|_| true), Some(u128::MAX));
        assert_eq!(price_cap(|x| x == 0), Some(0));
        assert_eq!(price_cap(|_| false), None);
        // The q = 1 use: least x Omega (saturating) below an incumbent cost of 100.
        let cap = price_cap(|om| 7u128.saturating_mul(om) < 100).expect("0 passes");
        assert_eq!(cap, 14);
        // 2^128 - 1 = 3 x (u128::MAX / 3): that product saturates to the cost itself.
        let huge = price_cap(|om| 3u128.saturating_mul(om) < u128::MAX).expect("0 passes");
        assert_eq!(huge, u128::MAX / 3 - 1);
    }
}
