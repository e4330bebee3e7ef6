//! Block bounds kept across the searches of one A_dual window: per (type, L, t-) and per block
//! of [`super::scratch::BLOCK`] servers of the virtual set, the fit count of the block's
//! largest window-minimum free capacities, fit(bmax) (an upper bound of every member's window
//! capacity over [t-, t- + L), the fit count being non-decreasing in each free capacity).
//!
//! Why a bound stays one: within a cached window free capacity only falls (a commit adds
//! reservations, nothing releases one before the window changes), so a block's largest window
//! minima, hence fit(bmax), only fall too; and a block's members are fixed until the window
//! changes once the block is full (the set only appends servers, and [`BlockBounds::reset`]
//! runs when it is rebuilt), so only full blocks are recorded. A pass that needs `need` tasks
//! of a type on one server then skips a block whose recorded bound is below `need` without
//! computing its window minima: the current fit(bmax) is at most the recorded one, so the
//! block test the pass would have made fails too, and the pass does the same as before.
//! In the late rounds' full windows most blocks hold a server with room for one worker but
//! none with room for the fewest workers a q = 1 schedule asks for.
use alloc::vec;
use alloc::vec::Vec;

/// The most bytes of all block bounds together (16 MB); above it the bounds are off and every
/// pass computes the block bounds as before. The generated 12,500-server scenario (8 worker
/// and 2 PS types, 22-slot windows, 391 blocks) needs 2 MB.
pub(super) const BOUND_BYTES_MAX: usize = 1 << 24;

/// "No bound recorded" (also a fit count of 255 or more: such bounds are not kept).
const UNKNOWN: u8 = u8::MAX;

/// Block bounds per (type, L, t-); see the module documentation.
#[derive(Clone, Debug)]
pub struct BlockBounds {
    /// Blocks per key (the most the set can have).
    blocks: usize,
    /// Slots per window (the key's L and t- stride).
    wcap: usize,
    /// Task types the bounds are kept for.
    types: usize,
    /// `fits[key * blocks + b]`: the recorded fit(bmax) of block b, [`UNKNOWN`] when none.
    fits: Vec<u8>,
    /// Per key, the epoch its row was last written in: a row of an older epoch is unknown.
    epoch_of: Vec<u32>,
    /// The current epoch (bumped by [`BlockBounds::reset`]).
    epoch: u32,
}

impl BlockBounds {
    /// Bounds for `types` types, windows of up to `wcap` slots and `blocks` blocks; empty
    /// (off) when they would exceed [`BOUND_BYTES_MAX`] bytes.
    pub fn new(types: usize, wcap: usize, blocks: usize) -> Self {
        let keys = types.saturating_mul(wcap).saturating_mul(wcap);
        let total = keys.saturating_mul(blocks);
        let on = total <= BOUND_BYTES_MAX && total > 0;
        BlockBounds {
            blocks,
            wcap,
            types,
            fits: vec![UNKNOWN; if on { total } else { 0 }],
            epoch_of: vec![0; if on { keys } else { 0 }],
            epoch: 1,
        }
    }

    /// Forgets every bound (the window, hence the set's blocks, changed). O(1): rows of an
    /// older epoch read as unknown and are cleared when first written.
    pub fn reset(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // After 2^32 resets: clear for real so that no stale row matches the new epoch.
            self.epoch_of.iter_mut().for_each(|e| *e = 0);
            self.epoch = 1;
        }
    }

    /// The key of (type `ty`, L = `dur`, t- = `t0`), or `None` when the bounds are off or the
    /// triple is out of range (the pass then computes every block's bound).
    pub fn key(&self, ty: usize, dur: u32, t0: u32) -> Option<usize> {
        let (d, t) = (dur as usize, t0 as usize);
        if self.epoch_of.is_empty() || ty >= self.types || d >= self.wcap || t >= self.wcap {
            return None;
        }
        Some((ty * self.wcap + d) * self.wcap + t)
    }

    /// Whether block b may hold a server with room for `need` tasks by the bound recorded for
    /// `key` (true when none is recorded).
    pub fn may_hold(&self, key: usize, b: usize, need: u32) -> bool {
        if self.epoch_of[key] != self.epoch {
            return true;
        }
        let f = self.fits[key * self.blocks + b];
        f == UNKNOWN || f as u32 >= need
    }

    /// Records fit(bmax) = `fit` of block b (a full block) for `key`.
    pub fn record(&mut self, key: usize, b: usize, fit: u32) {
        let row = &mut self.fits[key * self.blocks..][..self.blocks];
        if self.epoch_of[key] != self.epoch {
            row.iter_mut().for_each(|f| *f = UNKNOWN);
            self.epoch_of[key] = self.epoch;
        }
        row[b] = fit.min(UNKNOWN as u32) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::BlockBounds;

    #[test]
    fn a_recorded_bound_skips_larger_needs_until_reset() {
        let mut b = BlockBounds::new(2, 8, 4);
        let k = b.key(1, 3, 2).expect("in range");
        assert!(b.may_hold(k, 0, 5), "nothing recorded yet");
        b.record(k, 0, 3);
        assert!(b.may_hold(k, 0, 3));
        assert!(!b.may_hold(k, 0, 4));
        assert!(b.may_hold(k, 1, 100), "other blocks unknown");
        b.reset();
        assert!(b.may_hold(k, 0, 4), "forgotten with the window");
        b.record(k, 2, 0);
        assert!(b.may_hold(k, 0, 4), "a new epoch's row starts unknown");
        assert!(!b.may_hold(k, 2, 1));
    }

    #[test]
    fn large_fits_are_not_kept_and_keys_stay_in_range() {
        let mut b = BlockBounds::new(1, 4, 2);
        let k = b.key(0, 1, 1).expect("in range");
        b.record(k, 1, 1000);
        assert!(b.may_hold(k, 1, 1000));
        assert!(b.key(1, 1, 1).is_none());
        assert!(b.key(0, 4, 1).is_none());
        assert!(
            BlockBounds::new(1 << 20, 64, 1 << 10)
                .key(0, 1, 1)
                .is_none(),
            "over budget"
        );
    }
}
