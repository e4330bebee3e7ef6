//! The end of a commit: its bookings applied (`super::books`), then the time-major copy
//! (`super::sync`) or the slot trees (`super::trees`) in line, at once or owed until
//! [`Pool::settle`].
use super::changes::{GROUP, NO_ENTRY};
use super::Pool;

impl Pool {
    /// Applies the bookings recorded since the last call ([`Self::apply_bookings`]) and
    /// brings the time-major copy or the slot trees in line.
    pub(super) fn merge_dirty(&mut self) {
        self.merge_books();
        self.settle();
    }

    /// Brings the slot trees in line with the last commit's cells, if they are owed them
    /// ([`Self::merge_books`]).
    pub(crate) fn settle(&mut self) {
        if !self.changes.owed {
            return;
        }
        self.sync_grid();
        self.changes.touched.clear();
        self.changes.tvals.clear();
        self.changes.owed = false;
    }

    /// Do the slot trees (if kept) hold every commit's cells ([`Self::settle`])?
    pub(crate) fn settled(&self) -> bool {
        !self.changes.owed
    }

    /// [`Self::merge_dirty`], except that with the slot trees the cells are only noted: the
    /// trees owe them until [`Self::settle`] (the breakpoints, the census and every query of
    /// the pool are in line at once; only the next listing needs the trees).
    pub(super) fn merge_books(&mut self) {
        self.settle(); // a cell is noted once per sync
        self.apply_bookings();
        // A breakpoint changes (appears, moves its prices, or is merged away) only at a
        // touched cell: an untouched one keeps its values and its predecessor's.
        let mut top = self.changes.last;
        // by slot then server (in place: no allocation; each cell is noted once): a group's
        // summary is then redone once per slot, after all its cells, and the slot trees'
        // nodes above a slot's cells are met together
        self.changes.touched.sort_unstable();
        debug_assert!(self
            .changes
            .touched
            .windows(2)
            .all(|w| (w[0].0, w[0].1) != (w[1].0, w[1].1)));
        let mut i = 0;
        if self.grid.is_some() {
            // the slot trees stand in for the time-major copy, which is not kept: only its
            // last slot with a change, here an upper bound (a removed breakpoint may leave it
            // high, which only keeps a rejection's sweep from stopping early)
            let top = self
                .changes
                .touched
                .iter()
                .filter(|c| c.2 != NO_ENTRY)
                .map(|c| c.0)
                .max();
            let after = self.changes.after.take();
            self.changes.last = self.changes.last.max(top).max(after);
            self.changes.owed = !self.changes.touched.is_empty();
            return;
        }
        while let Some(&(t, _, _)) = self.changes.touched.get(i) {
            let k = i + self.changes.touched[i..].partition_point(|c| c.0 == t);
            self.sync_slot(t, i..k);
            top = top.max(Some(t));
            i = k;
        }
        let mut last = None;
        let mut hint = (0, 0);
        for i in 0..self.changes.touched.len() {
            let (t, s, _) = self.changes.touched[i];
            let g = s / GROUP as u32;
            if last.is_none_or(|(lt, _)| lt != t) {
                hint = (0, 0); // a new slot: search from its start
            }
            if last != Some((t, g)) {
                self.regroup(t, g, &mut hint);
                last = Some((t, g));
            }
        }
        self.sync_grid();
        if let Some(now) = self.changes.now {
            // a change at or before the kept slot may move the prices in force there
            for i in 0..self.changes.touched.len() {
                let (t, s, _) = self.changes.touched[i];
                if t <= now {
                    self.now_refresh(now, s);
                }
            }
        }
        if !self.changes.touched.is_empty() {
            self.changes.touched.clear();
            self.changes.tvals.clear();
            self.changes.settle_last(top);
        }
    }
}
