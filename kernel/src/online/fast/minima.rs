//! Window minima of free capacity (min over [t-, t- + L) of omega_h^r(t)): the sparse table
//! kept across searches, the PS search's sliding minima, the ring search's power-of-two
//! levels, the runs of equal usage, and the per-block minima (`wmin`, `bmax`) of one range.
use super::scratch::{FastScratch, BLOCK, SLIDE_WINDOW_MAX};
use crate::online::Window;
use alloc::vec::Vec;

/// Free capacities of the cached window and their window minima.
#[derive(Clone, Debug)]
pub(super) struct Minima {
    /// free[(h * R + r) * wcap + t] = omega_h^r(t).
    pub(super) free: Vec<f64>,
    /// max over the window's slots of omega_h^r(t), at `h * R + r`.
    pub(super) maxfree: Vec<f64>,
    /// Window minima of `free`: ring, power-of-two levels ([`FastScratch::levels_to`]); PS in windows
    /// of at most [`SLIDE_WINDOW_MAX`] slots, sliding minima over [t, t + L) ([`FastScratch::mins_for`]).
    pub(super) mins: Vec<f64>,
    /// The L the PS sliding minima describe (0: none built in this search).
    pub(super) mins_len: u32,
    /// Sparse table of window minima kept across searches: level k (0..=`sparse_k`) at
    /// `sparse[((k * wcap + t) * hcap + v) * R + r]` = min of `free` over [t, t + 2^k)
    /// (level 0 is `free` itself). Rebuilt per server with its free capacities
    /// ([`FastScratch::build_server`]), so a search reads any window minimum in O(1) instead of
    /// growing sliding minima over the whole set ([`FastScratch::min_free`]); slot-major, so the
    /// minima of every server for one range ([`FastScratch::window_minima`]) read two contiguous
    /// rows. Empty (`sparse_on` false) when the table would exceed [`super::scratch::SPARSE_CELLS_MAX`].
    pub(super) sparse: Vec<f64>,
    pub(super) sparse_k: u32,
    pub(super) sparse_on: bool,
    /// Runs of equal usage: `runs[v * wcap + k]` is the first slot of virtual server v's k-th
    /// run of slots whose R usages all have the same bits (so do their free capacities), and
    /// `run_of[v * wcap + t]` is the run holding slot t. A window minimum is a minimum over the
    /// runs it meets ([`FastScratch::min_free`]); an idle server is one run.
    pub(super) runs: Vec<u32>,
    pub(super) run_of: Vec<u32>,
    /// Window minima of free capacity of every server for the range `wmin_key`
    /// ([`FastScratch::window_minima`]), computed block by block on demand: block b's entries (and
    /// its `bmax`) describe the range when `bgen[b]` is `wgen`.
    pub(super) wmin: Vec<f64>,
    pub(super) wmin_key: Option<(u32, u32)>,
    pub(super) wgen: u32,
    pub(super) bgen: Vec<u32>,
    /// Per block of [`BLOCK`] consecutive servers of the set, the largest of their `wmin` per
    /// resource, at `bmax[b * R + r]`: fit(bmax, type) bounds every member's window capacity
    /// from above (the fit count is non-decreasing in each free capacity), so a block whose
    /// bound is below what a pass needs is skipped without visiting its servers.
    pub(super) bmax: Vec<f64>,
}

impl FastScratch {
    /// The sparse table's entries of server v over the window's `len` slots: level 0 is `free`,
    /// level k at t = min(level k - 1 at t, at t + 2^(k - 1)). Minima of the same values in
    /// any grouping, so every entry is exactly the slot-by-slot minimum.
    pub(super) fn build_sparse(&mut self, v: usize, len: usize) {
        if !self.minima.sparse_on {
            return;
        }
        let (rr, wcap, hc) = (self.r, self.wcap, self.hcap);
        let at = |k: usize, t: usize, r: usize| ((k * wcap + t) * hc + v) * rr + r;
        for r in 0..rr {
            for t in 0..len {
                self.minima.sparse[at(0, t, r)] = self.minima.free[(v * rr + r) * wcap + t];
            }
        }
        for k in 1..=self.minima.sparse_k as usize {
            let half = 1usize << (k - 1);
            let Some(n) = (len + 1).checked_sub(2 * half) else {
                break;
            };
            for t in 0..n {
                for r in 0..rr {
                    let (x, y) = (
                        self.minima.sparse[at(k - 1, t, r)],
                        self.minima.sparse[at(k - 1, t + half, r)],
                    );
                    self.minima.sparse[at(k, t, r)] = if y < x { y } else { x };
                }
            }
        }
    }

    /// Whether the PS search keeps sliding minima in window `w`: short windows, where a few
    /// passes over every row cost less than walking the runs of many busy servers per start.
    pub(super) fn slides(&self, w: &Window) -> bool {
        w.len <= SLIDE_WINDOW_MAX && !self.minima.mins.is_empty()
    }

    /// Brings the sliding minima to windows of `dur` slots, growing them one duration at a time
    /// from the last (or from `free` when `mins_len` is 0 or above `dur`). A no-op when the
    /// sparse table answers `dur` ([`Self::min_free`] reads it first).
    pub(super) fn mins_for(&mut self, len: u32, dur: u32) {
        if self.minima.sparse_on && 31 - dur.leading_zeros() <= self.minima.sparse_k {
            return;
        }
        if self.minima.mins_len == 0 || self.minima.mins_len > dur {
            let n = self.h * self.r * self.wcap;
            self.minima.mins[..n].copy_from_slice(&self.minima.free[..n]);
            self.minima.mins_len = 1;
        }
        while self.minima.mins_len < dur {
            self.minima.mins_len += 1;
            let (last, d) = (
                (len - self.minima.mins_len) as usize,
                self.minima.mins_len as usize,
            );
            for hr in 0..self.h * self.r {
                let b = hr * self.wcap;
                for t in 0..=last {
                    let f = self.minima.free[b + t + d - 1];
                    if f < self.minima.mins[b + t] {
                        self.minima.mins[b + t] = f;
                    }
                }
            }
        }
    }

    /// Level 0 of the power-of-two window minima: `mins` = `free` over the window's `len` slots.
    pub(super) fn level_reset(&mut self, len: u32) {
        for hr in 0..self.h * self.r {
            let b = hr * self.wcap;
            let n = len as usize;
            self.minima.mins[b..b + n].copy_from_slice(&self.minima.free[b..b + n]);
        }
    }

    /// Level k to k + 1 in place: min over [t, t + 2^(k+1)) = min(level k at t, at t + 2^k), for
    /// every t whose range stays in the window (ascending t reads t + 2^k before overwriting it).
    pub(super) fn level_up(&mut self, len: u32, k: u32) {
        let half = 1usize << k;
        let Some(n) = (len as usize + 1).checked_sub(2 * half) else {
            return;
        };
        for hr in 0..self.h * self.r {
            let row = &mut self.minima.mins[hr * self.wcap..][..n + half];
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
    pub(super) fn levels_to(&mut self, len: u32, have: &mut Option<u32>, k: u32) {
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

    /// The minima over [t-, t- + L) of server h's free capacities, one per resource: the
    /// minimum over the runs of equal usage the range meets (every slot of a run has the same
    /// free capacities, so this is the slot-by-slot minimum). An idle server is one run.
    pub(super) fn min_free(&self, h: usize, t0: u32, dur: u32, out: &mut [f64]) {
        let k = 31 - dur.leading_zeros();
        if self.minima.sparse_on && k <= self.minima.sparse_k {
            // Two overlapping 2^k ranges cover [t-, t- + L); min is idempotent.
            let row = |t: u32| ((k as usize * self.wcap + t as usize) * self.hcap + h) * self.r;
            let (a, b) = (row(t0), row(t0 + dur - (1 << k)));
            for (r, o) in out.iter_mut().enumerate() {
                let (x, y) = (self.minima.sparse[a + r], self.minima.sparse[b + r]);
                *o = if y < x { y } else { x };
            }
            return;
        }
        if dur == 1 {
            for (r, o) in out.iter_mut().enumerate() {
                *o = self.minima.free[(h * self.r + r) * self.wcap + t0 as usize];
            }
            return;
        }
        if self.minima.mins_len == dur {
            // The sliding minima of this search describe L (short windows).
            for (r, o) in out.iter_mut().enumerate() {
                *o = self.minima.mins[(h * self.r + r) * self.wcap + t0 as usize];
            }
            return;
        }
        let at = h * self.wcap;
        let first = self.minima.run_of[at + t0 as usize] as usize;
        let last = self.minima.run_of[at + (t0 + dur) as usize - 1] as usize;
        let starts = &self.minima.runs[at + first..=at + last];
        for (r, o) in out.iter_mut().enumerate() {
            let row = &self.minima.free[(h * self.r + r) * self.wcap..];
            let mut lo = f64::INFINITY;
            for &t in starts {
                let f = row[t as usize];
                if f < lo {
                    lo = f;
                }
            }
            *o = lo;
        }
    }

    /// Makes `wmin` describe [t-, t- + L): [`Self::min_free`] of every server of the set,
    /// server-major and contiguous, computed block by block when a pass first asks about a
    /// block ([`Self::block_minima`], from [`Self::block_fits`]) and kept while the search
    /// asks about the same range: the q = 0 search needs them for every worker type
    /// (capacities) and PS type (PS capacities) of one (L, t-). Free capacities only change
    /// between searches ([`Self::prepare`] forgets them).
    pub(super) fn window_minima(&mut self, t0: u32, dur: u32) {
        if self.minima.wmin_key == Some((t0, dur)) {
            return;
        }
        self.minima.wmin_key = Some((t0, dur));
        self.minima.wgen = self.minima.wgen.wrapping_add(1);
        if self.minima.wgen == 0 {
            // After 2^32 ranges: clear for real so that no stale block matches.
            self.minima.bgen.iter_mut().for_each(|g| *g = 0);
            self.minima.wgen = 1;
        }
    }

    /// Block b's entries of `wmin` and its `bmax` for the range of [`Self::window_minima`]
    /// (a no-op when they describe it already).
    pub(super) fn block_minima(&mut self, b: usize) {
        let Some((t0, dur)) = self.minima.wmin_key else {
            return;
        };
        if self.minima.bgen[b] == self.minima.wgen {
            return;
        }
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        let r = self.r;
        let mut most = [f64::NEG_INFINITY; crate::limits::RESOURCES_MAX];
        for h in b * BLOCK..((b + 1) * BLOCK).min(self.h) {
            self.min_free(h, t0, dur, &mut free[..r]);
            for k in 0..r {
                self.minima.wmin[h * r + k] = free[k];
                if free[k] > most[k] {
                    most[k] = free[k];
                }
            }
        }
        self.minima.bmax[b * r..][..r].copy_from_slice(&most[..r]);
        self.minima.bgen[b] = self.minima.wgen;
    }

    /// Server h's entry of `wmin` for [t-, t- + L) (already there when `wmin` describes that
    /// range; else `wmin` no longer describes one range as a whole).
    pub(super) fn wmin_at(&mut self, h: usize, t0: u32, dur: u32) {
        let same = self.minima.wmin_key == Some((t0, dur));
        if same && self.minima.bgen[h / BLOCK] == self.minima.wgen {
            return;
        }
        if !same {
            self.minima.wmin_key = None;
        }
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        let r = self.r;
        self.min_free(h, t0, dur, &mut free[..r]);
        self.minima.wmin[h * r..][..r].copy_from_slice(&free[..r]);
    }
}
