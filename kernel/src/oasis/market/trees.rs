//! A pool's slot trees ([`Grid`]): built from the breakpoints, dropped (decisions then sweep
//! the time-major copy), brought in line with a commit's cells.
use super::changes::{idle_flag, SlotChanges, IDLE, NO_ENTRY};
use super::Pool;
use crate::limits::RESOURCES_MAX;
use crate::oasis::grid::Grid;

impl Pool {
    /// The slot trees ([`Grid`]), when the pool keeps them.
    pub(crate) fn grid(&self) -> Option<&Grid> {
        self.grid.as_ref()
    }

    /// Builds the slot trees from the breakpoints (after a restore), within
    /// [`crate::oasis::grid::GRID_VALUES_MAX`].
    pub(super) fn rebuild_grid(&mut self) {
        // the trees are built from the breakpoints, which hold every commit
        self.changes.touched.clear();
        self.changes.tvals.clear();
        self.changes.owed = false;
        let nr = self.resources as usize;
        let mut grid = Grid::idle(
            self.slots,
            self.servers as usize,
            nr,
            &self.capacity,
            &self.idle,
            &self.room,
        );
        if let Some(g) = grid.as_mut() {
            let mut vals = [0.0f64; 2 * RESOURCES_MAX];
            let st = 2 * nr.min(RESOURCES_MAX);
            for s in 0..self.servers {
                let ts = self.times(s);
                for (j, &from) in ts.iter().enumerate() {
                    let to = ts.get(j + 1).copied().unwrap_or(self.slots);
                    self.entry_of(s, j, &mut vals[..st]);
                    let idle = idle_flag(self.values(s, j), nr) != 0;
                    for t in from..to.min(self.slots) {
                        g.set(t, s as usize, &vals[..st], idle);
                    }
                }
            }
            for t in 0..self.slots {
                g.summarise_slot(t);
            }
            // the time-major copy is not kept beside the slot trees (its last slot is)
            let last = self.changes.last;
            self.changes = SlotChanges::new(self.slots, 0);
            self.changes.last = last;
        }
        self.grid = grid;
    }

    /// Drops the slot trees: decisions then sweep the time-major copy.
    pub(crate) fn drop_grid(&mut self) {
        self.settle();
        if self.grid.take().is_some() {
            self.rebuild_changes(); // not kept beside the slot trees
        }
    }

    /// Brings the slot trees in line with the cells a commit touched (sorted by slot, then
    /// server; with the slot trees only its booked cells, as the slot after one keeps the
    /// values in force there): each gets the values in force there after the commit (the
    /// entry the commit noted, or with no breakpoint there the values of the slot before,
    /// brought in line first, or the idle values in slot 0); the summaries above take what it
    /// improves at once and are redone where it may worsen them by the next decisions
    /// ([`Grid::changed`]).
    pub(super) fn sync_grid(&mut self) {
        let nr = self.resources as usize;
        let st = 2 * nr;
        let Some(g) = self.grid.as_mut() else {
            return;
        };
        let c = &self.changes;
        // by slot, so a carry reads a slot already in line
        debug_assert!(c.touched.windows(2).all(|w| w[0] < w[1]));
        // each cell's values are read below one after another, most of them cold: read all
        // of them here first, independent loads whose misses overlap
        let seen = c
            .touched
            .iter()
            .fold(0u64, |acc, &(t, s, _)| acc ^ g.touch(t, s as usize));
        core::hint::black_box(seen);
        for &(t, s, e) in &c.touched {
            let si = s as usize;
            let changed = if e != NO_ENTRY {
                let b = (e & !IDLE) as usize * st;
                g.set(t, si, c.tvals.get(b..b + st).unwrap_or(&[]), e & IDLE != 0)
            } else if t > 0 {
                g.carry(t, si)
            } else {
                g.set(t, si, &[], true)
            };
            g.changed(t, si, changed);
        }
    }
}
