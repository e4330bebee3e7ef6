//! One level of a slot tree's summaries ([`Level`]): per slot and node its summary, the room
//! codes of its summary's largest free rooms (children of one parent side by side) and the
//! queue of nodes whose summaries wait to be redone ([`super::Grid::tidy`]).
use super::{room_code, FAN};
use alloc::vec;
use alloc::vec::Vec;

/// One level of the summary tree: `n` nodes per slot, each over [`FAN`] nodes of the level
/// below (or [`LEAF`](super::LEAF) servers), [`width`] values per node and slot.
#[derive(Clone, Debug, Default)]
pub(super) struct Level {
    pub(super) n: usize,
    pub(super) sum: Vec<f64>,
    /// per slot, per parent (each [`FAN`] nodes of this level), per room field (0: the
    /// largest free rooms; 1 + k: those of room level k), per node, per resource: the
    /// [`room_code`] of the summary's value ([`code_base`]), so that a listing opening a
    /// node passes over children without room reading a byte per resource of each, for the
    /// one field it tests, side by side
    pub(super) codes: Vec<u8>,
    /// room fields per node (1 + the room levels in use)
    pub(super) fields: usize,
    /// R
    pub(super) nr: usize,
    /// per node: the least server index under it (the tie-break of [`crate::oasis::fast`]'s order)
    pub(super) first: Vec<u32>,
    /// per slot and node, whether its summary waits to be redone
    /// ([`Grid::tidy`](super::Grid::tidy)): a bit each
    pub(super) stale: Vec<u64>,
    /// the (slot, node) pairs whose bit is set, oldest first: a ring of `slots x n` places,
    /// from `head`, `len` of them (a node is queued once, so it never overflows)
    pub(super) ring: Vec<(u32, u32)>,
    pub(super) head: usize,
    pub(super) len: usize,
}

impl Level {
    pub(super) fn new(
        n: usize,
        slots: usize,
        sw: usize,
        first: Vec<u32>,
        nr: usize,
        fields: usize,
    ) -> Self {
        Level {
            n,
            sum: vec![0.0; slots * n * sw],
            // a summary's values start at +0.0, whose code is 0
            codes: vec![0; slots * n.div_ceil(FAN) * FAN * fields * nr],
            fields,
            nr,
            first,
            stale: vec![0; (slots * n).div_ceil(64)],
            ring: vec![(0, 0); slots * n],
            head: 0,
            len: 0,
        }
    }

    /// Queues node `i` of slot `t` unless it is queued already.
    pub(super) fn queue(&mut self, t: u32, i: usize) {
        let b = t as usize * self.n + i;
        let Some(w) = self.stale.get_mut(b / 64) else {
            return;
        };
        let m = 1u64 << (b % 64);
        if *w & m != 0 {
            return;
        }
        debug_assert!(self.len < self.ring.len());
        let k = (self.head + self.len) % self.ring.len().max(1);
        if let Some(x) = self.ring.get_mut(k) {
            *w |= m;
            *x = (t, i as u32);
            self.len += 1;
        }
    }

    /// Where node `i`'s room codes at slot `t` start in `codes` ([`code_base`]).
    pub(super) fn code_base(&self, t: usize, i: usize) -> usize {
        code_base(self.n, self.fields, self.nr, t, i)
    }

    /// Takes the oldest queued node (its bit cleared).
    pub(super) fn next(&mut self) -> Option<(u32, usize)> {
        if self.len == 0 {
            return None;
        }
        let (t, i) = *self.ring.get(self.head)?;
        self.head = (self.head + 1) % self.ring.len();
        self.len -= 1;
        let b = t as usize * self.n + i as usize;
        if let Some(w) = self.stale.get_mut(b / 64) {
            *w &= !(1u64 << (b % 64));
        }
        Some((t, i as usize))
    }
}

/// Where node `i` of a level of `n` nodes with `fields` room fields of `nr` resources has its
/// room codes at slot `t` ([`Level::codes`]): field 0 from there, field k at k x [`FAN`] x
/// `nr` after it. The [`FAN`] children of one node are side by side in each field.
fn code_base(n: usize, fields: usize, nr: usize, t: usize, i: usize) -> usize {
    ((t * n.div_ceil(FAN) + i / FAN) * fields * FAN + i % FAN) * nr
}

/// Writes the room codes of a node's largest free rooms `hi` (its summary's values from
/// 2R + 1: per room field, R values) at `base` in `codes` ([`code_base`]).
pub(super) fn put_codes(codes: &mut [u8], base: usize, nr: usize, hi: &[f64]) {
    for (k, f) in hi.chunks_exact(nr.max(1)).enumerate() {
        let b = base + k * FAN * nr;
        if let Some(c) = codes.get_mut(b..b + nr) {
            for (c, &x) in c.iter_mut().zip(f) {
                *c = room_code(x);
            }
        }
    }
}

/// Values per summary node of `nr` resources: R least prices, R + 1 least peaks, R largest
/// free rooms, then [`super::ROOM_LEVELS`] x R largest free rooms by level of the key resource.
pub(super) fn width(nr: usize, nl: usize) -> usize {
    3 * nr + 1 + nl * nr
}
