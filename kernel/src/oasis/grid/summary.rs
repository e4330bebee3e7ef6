//! The summaries of a slot tree: where a node's values are ([`Grid::summary_width`] and the
//! offsets), recomputed from the level below ([`Grid::summarise`]), merged at once where a
//! server's change may improve them ([`Grid::changed`]), redone later where it may worsen
//! them ([`Grid::tidy`]).
use super::cells::Change;
use super::level::{put_codes, width};
use super::{Grid, FAN, LEAF, ROOM_LEVELS};
use crate::limits::RESOURCES_MAX;
use crate::oasis::units::{entry_peaks, PEAKS};

/// The widest summary ([`RESOURCES_MAX`] resources).
const MAX_WIDTH: usize = 3 * RESOURCES_MAX + 1 + ROOM_LEVELS * RESOURCES_MAX;
const _: () = assert!(ROOM_LEVELS >= 2);

/// Merges summary `v` (the least values first, `lo.len()` of them, then the largest) into
/// `lo` and `hi`: the least with the least, the largest with the largest. True when that
/// changed any.
fn merge(lo: &mut [f64], hi: &mut [f64], v: &[f64]) -> bool {
    let (vl, vh) = v.split_at(lo.len().min(v.len()));
    let mut any = false;
    for (m, &x) in lo.iter_mut().zip(vl) {
        if x < *m {
            *m = x;
            any = true;
        }
    }
    for (m, &x) in hi.iter_mut().zip(vh) {
        if x > *m {
            *m = x;
            any = true;
        }
    }
    any
}

impl Grid {
    /// Values per summary node ([`width`]).
    pub(crate) fn summary_width(&self) -> usize {
        width(self.nr, self.nl)
    }

    /// Where a node's largest free rooms (R values) are in its summary: after its least
    /// prices (R, from 0) and least peaks (R + 1, from R).
    pub(crate) fn top_at(&self) -> usize {
        2 * self.nr + 1
    }

    /// Where a node's room levels start in its summary: level k's R largest free rooms (over
    /// the servers whose free room on the key resource is at least theta_k) follow at
    /// `levels_at() + k R`.
    pub(crate) fn levels_at(&self) -> usize {
        3 * self.nr + 1
    }

    /// The room level for a demand of `d` on the key resource: the first k with
    /// theta_k <= d (1 - 2e-9), below which no server with room for `d` can be (a fit of at
    /// least 1 needs f / d + 1e-9 >= 1, so f >= d (1 - 1e-9) up to the division's rounding);
    /// `None` when even the smallest level is above it, or the demand is zero.
    pub(crate) fn room_level(&self, d: f64) -> Option<usize> {
        if d <= 0.0 {
            return None;
        }
        let x = d * (1.0 - 2e-9);
        self.theta[..self.nl].iter().position(|&th| th <= x)
    }

    /// The pool's key resource (the one whose room levels the summaries keep).
    pub(crate) fn key(&self) -> usize {
        self.key
    }

    /// Number of summary levels (the last one is the root).
    pub(crate) fn depth(&self) -> usize {
        self.levels.len()
    }

    /// Nodes of level `l` per slot.
    pub(crate) fn nodes(&self, l: usize) -> usize {
        self.levels.get(l).map_or(0, |x| x.n)
    }

    /// The least server index under node `i` of level `l`.
    pub(crate) fn first(&self, l: usize, i: usize) -> u32 {
        self.levels
            .get(l)
            .and_then(|x| x.first.get(i))
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// The summaries of level `l` at slot `t` ([`Self::summary_width`] values per node).
    pub(crate) fn summaries(&self, t: u32, l: usize) -> &[f64] {
        let Some(lv) = self.levels.get(l) else {
            return &[];
        };
        let w = lv.n * self.summary_width();
        let b = t as usize * w;
        lv.sum.get(b..b + w).unwrap_or(&[])
    }

    /// The room codes of room field `k` (0: the largest free rooms, 1 + j: room level j) of
    /// the [`FAN`] children of node `i` of level `l + 1` (nodes `i` x [`FAN`].. of level `l`)
    /// at slot `t`, R per child ([`Level::codes`](super::level::Level::codes)).
    pub(crate) fn child_codes(&self, t: u32, l: usize, i: usize, k: usize) -> &[u8] {
        let Some(lv) = self.levels.get(l) else {
            return &[];
        };
        let b = lv.code_base(t as usize, i * FAN) + k * FAN * self.nr;
        lv.codes.get(b..b + FAN * self.nr).unwrap_or(&[])
    }

    /// Recomputes node `i` of level `l` at slot `t` from its children (level `l - 1`, or the
    /// servers for `l = 0`).
    pub(crate) fn summarise(&mut self, t: u32, l: usize, i: usize) -> bool {
        let nr = self.nr;
        let sw = self.summary_width();
        // the least values come first (least prices, least peaks), then the largest (free
        // rooms, then by room level): two plain loops per child
        let mins = 2 * nr + 1;
        let mut out = [0.0f64; MAX_WIDTH];
        let (lo, hi) = out[..sw].split_at_mut(mins);
        lo.iter_mut().for_each(|x| *x = f64::INFINITY);
        hi.iter_mut().for_each(|x| *x = f64::NEG_INFINITY);
        if l == 0 {
            let from = i * LEAF;
            let to = (from + LEAF).min(self.servers);
            let (b, e) = (self.at(t, from), self.at(t, to));
            let mut peaks = [f64::INFINITY; PEAKS];
            // per room level, the largest free rooms of the servers whose key free room is
            // first at that level (then carried down: a server at level k is at every later)
            let mut lv = [[f64::NEG_INFINITY; RESOURCES_MAX]; ROOM_LEVELS];
            let frees = self.free.get(b..e).unwrap_or(&[]).chunks_exact(nr);
            let prices = self.prices.get(b..e).unwrap_or(&[]).chunks_exact(nr);
            for (free, px) in frees.zip(prices) {
                for (m, &x) in lo.iter_mut().zip(px) {
                    // prices are finite and >= L > 0 (or +inf for a server not in the tree)
                    if x < *m {
                        *m = x;
                    }
                }
                entry_peaks(px, &mut peaks);
                for (m, &x) in hi.iter_mut().zip(free) {
                    // free rooms are finite (or -inf); a NaN one would fit nothing anyway
                    if x > *m {
                        *m = x;
                    }
                }
                let f = free[self.key];
                if let Some(k) = self.theta[..self.nl].iter().position(|&th| f >= th) {
                    for (m, &x) in lv[k].iter_mut().zip(free) {
                        if x > *m {
                            *m = x;
                        }
                    }
                }
            }
            lo[nr..].copy_from_slice(&peaks[..nr + 1]);
            for k in 0..self.nl {
                if k > 0 {
                    let (a, b) = lv.split_at_mut(k);
                    for (m, &x) in b[0].iter_mut().zip(&a[k - 1]) {
                        if x > *m {
                            *m = x;
                        }
                    }
                }
                hi[nr + k * nr..nr + (k + 1) * nr].copy_from_slice(&lv[k][..nr]);
            }
        } else {
            let Some(below) = self.levels.get(l - 1) else {
                return false;
            };
            let from = i * FAN;
            let to = (from + FAN).min(below.n);
            let b = t as usize * below.n;
            for v in below
                .sum
                .get((b + from) * sw..(b + to) * sw)
                .unwrap_or(&[])
                .chunks_exact(sw)
            {
                merge(lo, hi, v);
            }
        }
        let Some(lvl) = self.levels.get_mut(l) else {
            return false;
        };
        let b = (t as usize * lvl.n + i) * sw;
        match lvl.sum.get_mut(b..b + sw) {
            Some(dst)
                if dst
                    .iter()
                    .zip(&out[..sw])
                    .any(|(a, b)| a.to_bits() != b.to_bits()) =>
            {
                dst.copy_from_slice(&out[..sw]);
                let base = lvl.code_base(t as usize, i);
                put_codes(&mut lvl.codes, base, nr, &out[mins..sw]);
                true
            }
            _ => false,
        }
    }

    /// Brings the summaries in line with a change of server `s`'s values at slot `t`
    /// ([`Self::set`], [`Self::carry`]) at once where it may improve them, and later where it
    /// may worsen them (module docs, "stale summaries"): its values are merged into the
    /// nodes above it (least prices and peaks, largest free rooms) as far as they change any,
    /// and its leaf is queued to be redone by [`Self::tidy`].
    pub(crate) fn changed(&mut self, t: u32, s: usize, how: Change) {
        let Some(&p) = self.pos.get(s) else {
            return;
        };
        let p = p as usize;
        if how == Change::None {
            return;
        }
        if let Some(leaves) = self.levels.first_mut() {
            leaves.queue(t, p / LEAF);
        }
        if how == Change::Worse {
            return; // nothing above it can improve: its leaf is only redone later
        }
        let sw = self.summary_width();
        let mut c = [0.0f64; MAX_WIDTH];
        self.contribution(t, p, &mut c[..sw]);
        let mins = 2 * self.nr + 1;
        let mut i = p / LEAF;
        for lv in self.levels.iter_mut() {
            let b = (t as usize * lv.n + i) * sw;
            let base = lv.code_base(t as usize, i);
            let Some(dst) = lv.sum.get_mut(b..b + sw) else {
                break;
            };
            let (lo, hi) = dst.split_at_mut(mins);
            if !merge(lo, hi, &c[..sw]) {
                break; // the nodes above hold it already
            }
            put_codes(&mut lv.codes, base, self.nr, hi);
            i /= FAN;
        }
    }

    /// The summary of the server at position `p` alone at slot `t` (what it adds to the
    /// summaries above it, [`Self::summarise`]).
    fn contribution(&self, t: u32, p: usize, out: &mut [f64]) {
        let nr = self.nr;
        let b = self.at(t, p);
        let (Some(free), Some(px)) = (self.free.get(b..b + nr), self.prices.get(b..b + nr)) else {
            return;
        };
        let mut peaks = [f64::INFINITY; PEAKS];
        entry_peaks(px, &mut peaks);
        out[..nr].copy_from_slice(px);
        out[nr..2 * nr + 1].copy_from_slice(&peaks[..nr + 1]);
        out[2 * nr + 1..3 * nr + 1].copy_from_slice(free);
        let at = self.theta[..self.nl]
            .iter()
            .position(|&th| free[self.key] >= th)
            .unwrap_or(self.nl);
        for k in 0..self.nl {
            let o = &mut out[3 * nr + 1 + k * nr..3 * nr + 1 + (k + 1) * nr];
            if k >= at {
                o.copy_from_slice(free);
            } else {
                o.iter_mut().for_each(|x| *x = f64::NEG_INFINITY);
            }
        }
    }

    /// Redoes up to `budget` queued leaves, oldest first, then every node above them whose
    /// children's summaries changed, level by level. Summaries
    /// waiting here are looser than the values under them, never tighter, so a listing that
    /// reads them lists the same servers (module docs).
    pub(crate) fn tidy(&mut self, budget: usize) {
        for l in 0..self.levels.len() {
            // the leaves within the budget; the levels above all they were given
            let mut left = if l == 0 { budget } else { self.levels[l].len };
            while left > 0 {
                let Some((t, i)) = self.levels[l].next() else {
                    break;
                };
                left -= 1;
                if self.summarise(t, l, i) {
                    if let Some(up) = self.levels.get_mut(l + 1) {
                        up.queue(t, i / FAN);
                    }
                }
            }
        }
    }

    /// Nodes waiting to be redone ([`Self::tidy`]), over all levels.
    pub(crate) fn queued(&self) -> usize {
        self.levels.iter().map(|l| l.len).sum()
    }

    /// Recomputes every summary of slot `t`.
    pub(crate) fn summarise_slot(&mut self, t: u32) {
        for l in 0..self.levels.len() {
            for i in 0..self.levels[l].n {
                let _ = self.summarise(t, l, i);
            }
        }
    }
}
