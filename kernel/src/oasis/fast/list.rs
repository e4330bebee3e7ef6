//! The cheapest servers of the sweep's slot with room, listed in (unit price, index) order
//! until their fits cover a count ([`Sweep::list`]; from the slot tree when the pool keeps
//! one), saved per DP row and restored for the reconstruction, and the greedy fill's cost
//! from the list ([`Sweep::cost`]).
use super::sweep::Sweep;
use crate::oasis::cheapest::ABSENT;
use crate::oasis::market::{Pool, GROUP};
use crate::ResourceVec;

impl Sweep {
    /// Lists the cheapest servers of the current slot with fit > 0 until their fits cover
    /// `count` (or none is left): `ls`, `cum`, `pre` as the full sorted walk would have them.
    /// A server whose fit turns out 0 leaves the index until its usage changes again.
    pub(super) fn list(&mut self, pool: &Pool, dem: &ResourceVec, count: u64) {
        if let Some(grid) = pool.grid() {
            self.list_grid(pool, grid, dem, count);
            return;
        }
        self.k = 0;
        self.cum[0] = 0;
        self.pre[0] = 0.0;
        let mut zeros = 0usize; // servers met without room
        while self.cum[self.k] < count {
            self.cheap.settle();
            self.pend.settle();
            let (key, s) = self.cheap.top_pair();
            let (pk, g) = self.pend.top_pair();
            if pk != ABSENT && (pk, g as usize * GROUP) <= (key, s as usize) {
                // a pending group may hold a cheaper server: read it first
                self.reveal(pool, dem, g as usize);
                continue;
            }
            if key == ABSENT {
                break;
            }
            let si = s as usize;
            if self.pending.get(si / GROUP).copied().unwrap_or(false) {
                // its key may be stale: read its group first
                self.reveal(pool, dem, si / GROUP);
                continue;
            }
            if !self.known[si] {
                self.resolve(pool, si, dem);
                if self.fit[si] == 0 {
                    zeros += 1;
                    self.refresh(si);
                    continue;
                }
            }
            let k = self.k;
            self.ls[k] = s;
            self.cum[k + 1] = self.cum[k] + self.fit[si] as u64;
            self.pre[k + 1] = self.pre[k] + self.unit[si] * self.fit[si] as f64;
            self.k += 1;
            self.masked[si] = true;
            self.refresh(si);
        }
        self.eager = self.cum[self.k] < count || zeros > self.k;
        for i in 0..self.k {
            let s = self.ls[i] as usize;
            self.masked[s] = false;
            self.refresh(s);
        }
    }

    /// Appends server `s` with its fit and unit price to the list.
    pub(super) fn list_one(&mut self, s: usize, fit: u32, unit: f64) {
        let k = self.k;
        self.fit[s] = fit;
        self.unit[s] = unit;
        self.ls[k] = s as u32;
        self.cum[k + 1] = self.cum[k] + fit as u64;
        self.pre[k + 1] = self.pre[k] + unit * fit as f64;
        self.k += 1;
    }

    /// Appends the list to `buf` from `at`; returns the new end.
    pub(super) fn save(&self, buf: &mut [(u32, u32, f64)], at: usize) -> Option<usize> {
        let out = buf.get_mut(at..at + self.k)?;
        for (i, o) in out.iter_mut().enumerate() {
            let s = self.ls[i];
            *o = (s, self.fit[s as usize], self.unit[s as usize]);
        }
        Some(at + self.k)
    }

    /// Makes a saved list the current one (same prefix sums, same order of additions).
    pub(super) fn restore(&mut self, saved: &[(u32, u32, f64)]) {
        self.k = 0;
        self.cum[0] = 0;
        self.pre[0] = 0.0;
        for &(s, fit, unit) in saved {
            let (k, si) = (self.k, s as usize);
            self.ls[k] = s;
            self.fit[si] = fit;
            self.unit[si] = unit;
            self.cum[k + 1] = self.cum[k] + fit as u64;
            self.pre[k + 1] = self.pre[k] + unit * fit as f64;
            self.k += 1;
        }
    }

    /// Cost of the greedy fill of `count` instances (Alg. 2 lines 27-31 / 36-40), from the
    /// list (which must cover `count`).
    pub(super) fn cost(&self, count: u64) -> f64 {
        if count == 0 {
            return 0.0;
        }
        let k = self.k;
        // smallest j with cum[j + 1] >= count
        let (mut lo, mut hi) = (0usize, k);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.cum[mid + 1] >= count {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if lo >= k {
            return f64::INFINITY;
        }
        let s = self.ls[lo] as usize;
        self.pre[lo] + self.unit[s] * (count - self.cum[lo]) as f64
    }
}
