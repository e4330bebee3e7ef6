//! A commit's bookings: recorded one by one ([`Pool::add`]), then applied server by server,
//! each server's block of breakpoints rewritten in one pass ([`Pool::rebuild`]), with eq. (22)
//! through a small cache of recent prices.
use super::gallop::{gallop, gallop_back};
use super::Pool;
use crate::limits::RESOURCES_MAX;
use crate::price::oasis_price;
use crate::resources::ResourceVec;

/// log2 of the entries of [`Pool::price_of`]'s cache.
pub(super) const PRICE_CACHE_BITS: u32 = 10;

/// One recorded [`Pool::add`]: `count` x `dem` on server `s` in slot `t`, the `seq`-th of
/// the batch (a server's bookings apply in that order).
#[derive(Clone, Copy, Debug)]
pub(super) struct Booking {
    s: u32,
    t: u32,
    seq: u32,
    count: u32,
    dem: ResourceVec,
}

impl Pool {
    /// Records `count` x `dem` on server `s` in slot `t`, applied by [`Self::merge_dirty`].
    pub(super) fn add(&mut self, t: u32, s: u32, dem: &ResourceVec, count: u32) {
        if t >= self.slots || s >= self.servers {
            return;
        }
        let seq = self.books.len() as u32;
        self.books.push(Booking {
            s,
            t,
            seq,
            count,
            dem: *dem,
        });
    }

    /// Applies the recorded bookings server by server, each server's in one pass over its
    /// block ([`Self::rebuild`]): a booking changes only its server's breakpoints, so the
    /// result is the one of recording order, and a server's block is read and written once
    /// per commit instead of shifted once per booked slot.
    pub(super) fn apply_bookings(&mut self) {
        let mut books = core::mem::take(&mut self.books);
        // by server, then slot; bookings of one cell keep their recording order
        books.sort_unstable_by_key(|b| (b.s, b.t, b.seq));
        // each server's block is read below one after another, most of them cold: read
        // where each rebuild starts here first, independent loads whose misses overlap
        let mut seen = 0u64;
        let mut last = u32::MAX;
        for b in &books {
            if b.s != last {
                last = b.s;
                seen ^= self.touch(b.s, b.t);
            }
        }
        core::hint::black_box(seen);
        let mut i = 0;
        while let Some(b) = books.get(i) {
            let k = i + books[i..].partition_point(|x| x.s == b.s);
            self.rebuild(b.s, &books[i..k]);
            i = k;
        }
        books.clear();
        self.books = books;
    }

    /// Rewrites server `s`'s breakpoints with `books` (its bookings, by slot then recording
    /// order) added. Each booked slot's values are the old ones in force there plus its
    /// bookings' usage (added in recording order, g^r += dem^r x count), repriced by eq. (22)
    /// on each resource a booking demands; the slot after a booked one gets the old values
    /// back. A breakpoint whose values repeat its predecessor's bit for bit (or, first, the
    /// idle state) is not written, so the block stays canonical: the same breakpoints as
    /// booking the cells one by one and dropping repeats after. The breakpoints before the
    /// first booked slot stay in place; the rest is written once at the arena's end (room
    /// kept by [`Self::reserve`]), the old runs between booked slots copied whole, then
    /// copied back when the block still fits (else the block moves there). Touched cells are
    /// noted for the time-major copy.
    fn rebuild(&mut self, s: u32, books: &[Booking]) {
        let Some(first) = books.first().map(|b| b.t) else {
            return;
        };
        let si = s as usize;
        let nr = (self.resources as usize).min(RESOURCES_MAX);
        let st = self.stride();
        let (o, l, cap) = (self.off[si], self.len[si] as usize, self.cap[si] as usize);
        // the breakpoints are distinct slots below T: the j-th is at least j and at most
        // T - l + j, so the first at or after `first` is between these two; a dense block
        // (most slots a breakpoint) has it near first x l / T: galloping from there reads a
        // cache line or two of the block where a bisection reads several, one after another
        let lo = (first as usize + l)
            .saturating_sub(self.slots as usize)
            .min(l);
        let hi = (first as usize).clamp(lo, l);
        let ts = self.times(s);
        let guess = self.guess(first, l).clamp(lo, hi);
        let before = |x: &u32| *x < first;
        let j0 = if ts.get(guess).is_some_and(before) {
            gallop(ts, guess, before)
        } else {
            lo + ts.get(lo..guess).map_or(0, |w| gallop_back(w, before))
        };
        debug_assert_eq!(j0, ts.partition_point(|&x| x < first));
        // may the block outgrow its room (each booked slot adds at most two breakpoints)?
        // Then the whole block is written at the end, else only from the first booked slot.
        let moving = l + 2 * books.len() > cap;
        let no = self.bt.len();
        if moving {
            self.copy_old(o, 0..j0);
        }
        // the values in force before the next old breakpoint, and the last ones written
        let mut cur = [0.0f64; 2 * RESOURCES_MAX];
        match j0.checked_sub(1) {
            Some(p) => cur[..st].copy_from_slice(&self.bv[(o + p) * st..(o + p + 1) * st]),
            None => cur[nr..2 * nr].copy_from_slice(self.idle(s).get(..nr).unwrap_or(&[])),
        }
        let mut last = cur;
        let (mut j, mut bi) = (j0, 0usize);
        while let Some(x) = books.get(bi).map(|b| b.t) {
            // the old breakpoints before x: unchanged, and the first differs from `last`
            let k = gallop(self.times(s), j, |&y| y < x);
            if k > j {
                self.copy_old(o, j..k);
                cur[..st].copy_from_slice(&self.bv[(o + k - 1) * st..(o + k) * st]);
                last = cur;
                j = k;
            }
            if self.times(s).get(j) == Some(&x) {
                cur[..st].copy_from_slice(&self.bv[(o + j) * st..(o + j + 1) * st]);
                j += 1;
            }
            let mut vals = cur;
            let mut demanded = [false; RESOURCES_MAX];
            while let Some(b) = books.get(bi).filter(|b| b.t == x) {
                for (r, d) in demanded.iter_mut().enumerate().take(nr) {
                    if b.dem.get(r) == 0.0 {
                        continue; // untouched: neither usage nor price moves
                    }
                    vals[r] += b.dem.get(r) * b.count as f64;
                    // a release (open world: a negative booking) that brings the usage back
                    // to within rounding of 0 leaves the server idle, not at a residue
                    if b.dem.get(r) < 0.0 && vals[r] <= 1e-12 * self.capacity(s, r) {
                        vals[r] = 0.0;
                    }
                    *d = true;
                }
                bi += 1;
            }
            for r in (0..nr).filter(|&r| demanded[r]) {
                vals[nr + r] = self.price_of(s, r, vals[r]);
            }
            let (from, to) = (self.level(s, &cur[..nr]), self.level(s, &vals[..nr]));
            self.census.shift(x, s, from, to);
            // the cells whose breakpoints may change: x, and x + 1 (split, or merged away;
            // noted with x + 1's bookings when it has some)
            let wrote = self.write_new(x, &vals[..st], &mut last);
            self.note(x, s, wrote.then_some(&vals[..st]));
            let next = x + 1;
            if next < self.slots && books.get(bi).map(|b| b.t) != Some(next) {
                // the old values back at x + 1
                if self.times(s).get(j) == Some(&next) {
                    cur[..st].copy_from_slice(&self.bv[(o + j) * st..(o + j + 1) * st]);
                    j += 1;
                }
                let wrote = self.write_new(next, &cur[..st], &mut last);
                if self.grid.is_none() {
                    self.note(next, s, wrote.then_some(&cur[..st]));
                } else if wrote {
                    // the slot trees hold the values in force, unchanged at x + 1: only the
                    // last slot with a breakpoint follows it
                    let after = &mut self.changes.after;
                    *after = (*after).max(Some(next));
                }
            }
        }
        if !moving {
            // in place: the old breakpoints after the last touched one shift once, the new
            // ones between go in
            let n = self.bt.len() - no;
            let end = j0 + n + (l - j);
            if j != j0 + n {
                // the breakpoints after the last touched one move (most rebuilds replace
                // as many as they write: nothing moves)
                self.bt.copy_within(o + j..o + l, o + j0 + n);
                self.bv
                    .copy_within((o + j) * st..(o + l) * st, (o + j0 + n) * st);
            }
            self.bt.copy_within(no..no + n, o + j0);
            self.bv.copy_within(no * st..(no + n) * st, (o + j0) * st);
            self.bt.truncate(no);
            self.bv.truncate(no * st);
            self.live = self.live + end - l;
            self.len[si] = end as u32;
            return;
        }
        self.copy_old(o, j..l);
        let total = self.bt.len() - no;
        if total <= cap {
            // fits the old block after all: back in place, the arena's end dropped
            self.bt.copy_within(no..no + total, o);
            self.bv.copy_within(no * st..(no + total) * st, o * st);
            self.bt.truncate(no);
            self.bv.truncate(no * st);
        } else {
            // the block moves to the arena's end, at least twice its old size
            let mut newcap = (2 * cap).max(4);
            while newcap < total {
                newcap *= 2;
            }
            self.bt.resize(no + newcap, 0);
            self.bv.resize((no + newcap) * st, 0.0);
            self.off[si] = no;
            self.cap[si] = newcap as u32;
        }
        self.live = self.live + total - l;
        self.len[si] = total as u32;
    }

    /// Eq. (22) at usage `g` of resource `r` on server `s`, through a small cache keyed by
    /// the capacity and the usage's bits (the same pure function: the same price bit for bit;
    /// a commit books many servers of one class from the same usage).
    fn price_of(&mut self, s: u32, r: usize, g: f64) -> f64 {
        let c = self.capacity(s, r);
        let key = (g.to_bits(), c.to_bits(), r as u32);
        let h =
            (key.0 ^ key.1.rotate_left(21) ^ (key.2 as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let i = (h >> (64 - PRICE_CACHE_BITS)) as usize;
        if let Some(e) = self.prices.get(i).filter(|e| e.0 == key) {
            return e.1;
        }
        let p = oasis_price(self.lower, self.upper.get(r), g, c);
        if let Some(e) = self.prices.get_mut(i) {
            *e = (key, p);
        }
        p
    }
}
