//! The breakpoints' arena ([`Pool`]'s `bt` / `bv`: per server a block, a full block moving to
//! the arena's end at twice its size): room reserved ahead of a commit so that it allocates
//! nothing, compaction when most of it is garbage, and the appends a rewrite makes at its end.
use super::Pool;
use crate::limits::RESOURCES_MAX;
use alloc::vec::Vec;

impl Pool {
    /// Makes room for `cells` more single-cell additions ([`Self::add`]) without allocating:
    /// each may split two breakpoints, and each touched server's block may move to the arena's
    /// end at twice its size. Compacts the arena first when most of it is garbage.
    pub(crate) fn reserve(&mut self, cells: usize) {
        let used: usize = self.cap.iter().map(|&c| c as usize).sum();
        if self.bt.len() > 2 * used + 4096 {
            self.compact();
        }
        let need = 4usize
            .saturating_mul(self.live)
            .saturating_add(12usize.saturating_mul(cells))
            .saturating_add(64);
        let st = self.stride();
        if self.bt.capacity() - self.bt.len() < need {
            self.bt.reserve(need);
        }
        if self.bv.capacity() - self.bv.len() < need.saturating_mul(st) {
            self.bv.reserve(need.saturating_mul(st));
        }
        if self.books.capacity() - self.books.len() < cells {
            self.books.reserve(cells);
        }
        let touched = &mut self.changes.touched;
        let want = 2usize.saturating_mul(cells);
        if touched.capacity() - touched.len() < want {
            touched.reserve(want);
        }
        let tvals = &mut self.changes.tvals;
        let want = want.saturating_mul(st);
        if tvals.capacity() - tvals.len() < want {
            tvals.reserve(want);
        }
    }

    /// Rewrites the arena with every block exactly its length.
    fn compact(&mut self) {
        let st = self.stride();
        let mut bt = Vec::with_capacity(self.live);
        let mut bv = Vec::with_capacity(self.live * st);
        for s in 0..self.servers as usize {
            let (o, l) = (self.off[s], self.len[s] as usize);
            self.off[s] = bt.len();
            self.cap[s] = l as u32;
            bt.extend_from_slice(&self.bt[o..o + l]);
            bv.extend_from_slice(&self.bv[o * st..(o + l) * st]);
        }
        self.bt = bt;
        self.bv = bv;
    }

    /// Where a block of `l` breakpoints over the horizon likely has its first at or after
    /// slot `t`: t x l / T, exact for a block dense in every slot.
    pub(super) fn guess(&self, t: u32, l: usize) -> usize {
        (u64::from(t) * l as u64 / u64::from(self.slots.max(1))) as usize
    }

    /// Reads server `s`'s breakpoint at about slot `t` (where [`Self::rebuild`] starts
    /// looking) and returns some of its bits.
    pub(super) fn touch(&self, s: u32, t: u32) -> u64 {
        let si = s as usize;
        let (Some(&o), Some(&l)) = (self.off.get(si), self.len.get(si)) else {
            return 0;
        };
        let l = l as usize;
        let k = o + self.guess(t, l).min(l.saturating_sub(1));
        let x = self.bt.get(k).map_or(0, |&x| u64::from(x));
        // the breakpoint before the first booked slot is the one read first
        let st = self.stride();
        let v = self.bv.get(k * st).map_or(0, |v| v.to_bits());
        let w = self
            .bv
            .get(k.max(o + 1) * st - st)
            .map_or(0, |v| v.to_bits());
        x ^ v ^ w
    }

    /// Appends the old breakpoints `js` of the block at `o` to the arena's end.
    pub(super) fn copy_old(&mut self, o: usize, js: core::ops::Range<usize>) {
        let st = self.stride();
        if js.is_empty() {
            return;
        }
        self.bt.extend_from_within(o + js.start..o + js.end);
        self.bv
            .extend_from_within((o + js.start) * st..(o + js.end) * st);
    }

    /// Appends a breakpoint (`x`, `vals`) to the arena's end unless it repeats `last` bit
    /// for bit; it is then the last written. Returns whether it was written.
    pub(super) fn write_new(
        &mut self,
        x: u32,
        vals: &[f64],
        last: &mut [f64; 2 * RESOURCES_MAX],
    ) -> bool {
        let st = vals.len();
        let new = vals
            .iter()
            .zip(&last[..st])
            .any(|(a, b)| a.to_bits() != b.to_bits());
        if new {
            self.bt.push(x);
            self.bv.extend_from_slice(vals);
            last[..st].copy_from_slice(vals);
        }
        new
    }
}
