//! [`Cheapest`]: the server with the least (unit price, index) among those present, for the
//! sweep of [`super::fast`], with O(1) key changes.
//!
//! A slot of a large cluster changes thousands of servers' unit prices (`docs/oasis.md`,
//! "Measured"), while the listing asks for the cheapest few. A tournament tree over the servers
//! pays a walk up the tree per change; here the servers are cut into blocks of [`BLOCK`], each
//! block keeps its least key, and a small tournament tree runs over the blocks. A change is one
//! comparison against its block's least key; only when a block's least server gets dearer (or
//! leaves) is the block scanned again, once, before the next query ([`Cheapest::settle`]) --
//! unless the next server of the block has the same key, which then is the block's least.
//!
//! Keys are compared as `f64::total_cmp` then index, exactly the order of
//! [`crate::order::cmp_f64_then_index`]: a unit price is mapped to the integer whose order is
//! `total_cmp`'s, and an absent server holds `i64::MAX`, above every such integer of a number
//! (NaN payloads aside, which no unit price has: prices and demands are finite).
use alloc::vec;
use alloc::vec::Vec;

/// Servers per block.
pub(crate) const BLOCK: usize = 64;

/// The key of an absent server.
pub(crate) const ABSENT: i64 = i64::MAX;
use crate::index::NONE;

/// The integer whose order is `f64::total_cmp`'s.
pub(crate) fn ordered(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

/// Least (key, index) per block and over all blocks; see the module documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cheapest {
    n: usize,
    /// per server: its ordered key, `ABSENT` when not present
    key: Vec<i64>,
    /// per block: its least (key, server); (`ABSENT`, NONE) when empty
    least: Vec<(i64, u32)>,
    /// leaves of the tree over blocks (a power of two)
    leaves: usize,
    /// tournament tree over `least`: `tree[1]` is the overall least
    tree: Vec<(i64, u32)>,
    /// blocks whose tree leaf is stale, and whether they need a scan
    queued: Vec<u32>,
    is_queued: Vec<bool>,
    rescan: Vec<bool>,
}

impl Cheapest {
    /// An index over `n` servers, all absent.
    pub(crate) fn new(n: usize) -> Self {
        let blocks = n.div_ceil(BLOCK).max(1);
        let leaves = blocks.next_power_of_two();
        Cheapest {
            n,
            key: vec![ABSENT; n],
            least: vec![(ABSENT, NONE); blocks],
            leaves,
            tree: vec![(ABSENT, NONE); 2 * leaves],
            queued: Vec::with_capacity(blocks),
            is_queued: vec![false; blocks],
            rescan: vec![false; blocks],
        }
    }

    /// Sets every server's key at once (`None`: absent) and rebuilds the blocks and the tree.
    pub(crate) fn build(&mut self, mut key: impl FnMut(usize) -> Option<f64>) {
        for s in 0..self.n {
            self.key[s] = key(s).map_or(ABSENT, ordered);
        }
        for b in 0..self.least.len() {
            self.scan(b);
            self.tree[self.leaves + b] = self.least[b];
            self.is_queued[b] = false;
            self.rescan[b] = false;
        }
        self.queued.clear();
        for i in (1..self.leaves).rev() {
            self.tree[i] = self.tree[2 * i].min(self.tree[2 * i + 1]);
        }
    }

    /// Sets server `s`'s key (`None`: absent). O(1); the tree catches up at [`Self::settle`].
    #[inline]
    pub(crate) fn set(&mut self, s: usize, key: Option<f64>) {
        self.set_ordered(s, key.map_or(ABSENT, ordered));
    }

    /// [`Self::set`] with the key already mapped by [`ordered`] (`ABSENT`: absent).
    #[inline]
    pub(crate) fn set_ordered(&mut self, s: usize, new: i64) {
        if s >= self.n {
            return;
        }
        let old = core::mem::replace(&mut self.key[s], new);
        let b = s / BLOCK;
        if self.rescan[b] || new == old {
            return; // the scan will see it, or nothing moved
        }
        let least = self.least[b];
        if new != ABSENT && (new, s as u32) < least {
            self.least[b] = (new, s as u32);
        } else if least.1 == s as u32 {
            // The block's least got dearer or left. Every other server of the block is above
            // (old, s), so a next server of the block with the same key is the new least
            // (idle servers of one class share a key, and the listing takes them in index
            // order); otherwise the block is scanned again.
            let next = s + 1;
            if next < self.n && next % BLOCK != 0 && self.key[next] == old {
                self.least[b] = (old, next as u32);
            } else {
                self.rescan[b] = true;
            }
        } else {
            return;
        }
        if !self.is_queued[b] {
            self.is_queued[b] = true;
            self.queued.push(b as u32);
        }
    }

    /// Is server `s` absent (or outside the index)?
    #[inline]
    pub(crate) fn is_absent(&self, s: usize) -> bool {
        self.key.get(s).is_none_or(|&k| k == ABSENT)
    }

    /// Brings the tree in line with every [`Self::set`] since the last call.
    pub(crate) fn settle(&mut self) {
        while let Some(b) = self.queued.pop() {
            let b = b as usize;
            self.is_queued[b] = false;
            if core::mem::replace(&mut self.rescan[b], false) {
                self.scan(b);
            }
            let mut i = self.leaves + b;
            self.tree[i] = self.least[b];
            i /= 2;
            while i >= 1 {
                self.tree[i] = self.tree[2 * i].min(self.tree[2 * i + 1]);
                i /= 2;
            }
        }
    }

    /// The present server with the least (key, index) (`None`: none); call [`Self::settle`]
    /// first.
    #[cfg(test)]
    pub(crate) fn top(&self) -> Option<u32> {
        let (k, s) = self.tree[1];
        (k != ABSENT).then_some(s)
    }

    /// The least (ordered key, index) present (`ABSENT`, `u32::MAX` when none); call
    /// [`Self::settle`] first.
    pub(crate) fn top_pair(&self) -> (i64, u32) {
        self.tree[1]
    }

    /// Recomputes block `b`'s least (first strictly smaller wins: ties go to the lower index).
    fn scan(&mut self, b: usize) {
        let from = b * BLOCK;
        let to = (from + BLOCK).min(self.n);
        let keys = self.key.get(from..to).unwrap_or(&[]);
        // two branch-free passes (the least key, then its first position) vectorise well
        let least = keys.iter().copied().min().unwrap_or(ABSENT);
        self.least[b] = match keys.iter().position(|&k| k == least) {
            Some(i) if least != ABSENT => (least, (from + i) as u32),
            _ => (ABSENT, NONE),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::cmp_f64_then_index;

    /// The listing takes servers of equal keys in index order: each one leaving hands the
    /// block's least to the next (across block ends and past absent servers too).
    #[test]
    fn equal_keys_leave_in_index_order() {
        let n = 3 * BLOCK + 5;
        let mut c = Cheapest::new(n);
        c.build(|s| (s != 10 && s != BLOCK + 1).then_some(2.5));
        let mut got = Vec::new();
        loop {
            c.settle();
            let Some(s) = c.top() else { break };
            got.push(s as usize);
            c.set(s as usize, None);
        }
        let want: Vec<usize> = (0..n).filter(|&s| s != 10 && s != BLOCK + 1).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn the_top_is_the_least_key_then_index() {
        let n = 300;
        let mut c = Cheapest::new(n);
        let mut keys: Vec<Option<f64>> = vec![None; n];
        let mut x = 7u64;
        let mut draw = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        c.build(|_| None);
        for round in 0..3000 {
            let s = draw(n as u64) as usize;
            // few distinct values, so ties on the key are common
            keys[s] = match draw(6) {
                0 => None,
                1 => Some(-0.0),
                2 => Some(0.0),
                v => Some(v as f64 * 0.5),
            };
            c.set(s, keys[s]);
            if round % 7 == 0 {
                c.settle();
                let want = (0..n)
                    .filter_map(|i| keys[i].map(|k| (k, i as u32)))
                    .min_by(|a, b| cmp_f64_then_index(*a, *b))
                    .map(|p| p.1);
                assert_eq!(c.top(), want, "round {round}");
            }
        }
    }
}
