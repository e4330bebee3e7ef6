//! [`Census`]: per slot, how many servers of a pool have at least a given share of their
//! capacity free, by kind of server, so that a rejected job can prove "the rest of the horizon
//! holds my workload" without sweeping it ([`super::fast`]; `docs/oasis.md`, "Rejections").
//!
//! Each server belongs to a *kind*: its exact capacity vector when the pool has at most
//! [`KINDS_MAX`] of them, else its capacities rounded down to {1, 1.5} x 2^k, else to 2^k. A
//! kind keeps the least capacity of its servers on each resource, its *floor*. In each slot a
//! server is at *level* k (shares [`SHARES`]: 1, 3/4, 1/2, 1/4) when its free room
//! c^r - g^r is at least c^r x share_k on every resource (the first such k), else at no level.
//! Free room, floor and share multiply monotonically in floats, so a server at level k has free
//! room >= floor^r x share_k on every resource, and its fit (monotone in each free room) is at
//! least the fit of that vector: sum over kinds and levels of (servers) x (that fit) is a lower
//! bound of a slot's total fit. OASiS never releases usage, so a commit only moves a cell to a
//! later level ([`Census::shift`]); a restore counts again from the breakpoints.
//!
//! The counts are T x kinds x levels. Beyond [`CENSUS_CELLS_MAX`] counts, or with more kinds
//! than [`KINDS_MAX`] after rounding, the census is not kept ([`Census::row`] gives `None`);
//! the rejection's sweep then steps on slot by slot, with the same result.
use crate::limits::RESOURCES_MAX;
use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;

/// Most (slot, kind, level) counts a [`Census`] keeps (2 bytes each); beyond, it is not kept.
pub(crate) const CENSUS_CELLS_MAX: usize = 1 << 25;

/// Most kinds of server a [`Census`] tells apart.
pub(crate) const KINDS_MAX: usize = 128;

/// The free shares of capacity the levels stand for, largest first (level 0: idle).
pub(crate) const SHARES: [f64; 4] = [1.0, 0.75, 0.5, 0.25];

/// Levels per kind.
pub(crate) const LEVELS: usize = SHARES.len();

/// No level: less than the last share free on some resource.
pub(crate) const NO_LEVEL: usize = LEVELS;

/// Servers per slot, kind and level; see the module documentation.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Census {
    resources: usize,
    /// per server: its kind
    kind: Vec<u32>,
    /// per kind: the least capacity of its servers per resource (R values)
    floor: Vec<f64>,
    /// per kind: its servers
    size: Vec<u32>,
    /// per slot, kind and level: servers there (slot-major; empty when not kept)
    count: Vec<u16>,
}

/// `x` rounded down to {1, 1.5} x 2^k (`fine`) or 2^k; 0 and below stay as they are.
fn round_down(x: f64, fine: bool) -> f64 {
    if x.is_nan() || x <= 0.0 || !x.is_finite() {
        return x;
    }
    let mut p = 1.0f64;
    while p > x {
        p *= 0.5;
    }
    while p * 2.0 <= x {
        p *= 2.0;
    }
    if fine && p * 1.5 <= x {
        p * 1.5
    } else {
        p
    }
}

impl Census {
    /// A census of a pool of servers with capacities `caps` (R per server), every server idle
    /// in each of `slots` slots.
    pub(crate) fn new(caps: &[f64], resources: usize, slots: u32) -> Self {
        let nr = resources.min(RESOURCES_MAX);
        let servers = caps.len() / resources.max(1);
        let key = |s: usize, how: u8| -> Vec<u64> {
            let c = caps.get(s * nr..s * nr + nr).unwrap_or(&[]);
            c.iter()
                .map(|&x| match how {
                    0 => x,
                    1 => round_down(x, true),
                    _ => round_down(x, false),
                })
                .map(f64::to_bits)
                .collect()
        };
        for how in 0..3u8 {
            let mut kinds: BTreeMap<Vec<u64>, u32> = BTreeMap::new();
            let mut kind = Vec::with_capacity(servers);
            for s in 0..servers {
                let n = kinds.len() as u32;
                kind.push(*kinds.entry(key(s, how)).or_insert(n));
            }
            if kinds.len() > KINDS_MAX {
                continue;
            }
            let nk = kinds.len();
            let mut floor = vec![f64::INFINITY; nk * nr];
            let mut size = vec![0u32; nk];
            for (s, &k) in kind.iter().enumerate() {
                let k = k as usize;
                size[k] += 1;
                for r in 0..nr {
                    let c = caps.get(s * nr + r).copied().unwrap_or(0.0);
                    floor[k * nr + r] = floor[k * nr + r].min(c);
                }
            }
            let cells = (slots as usize).saturating_mul(nk * LEVELS);
            // every count fits 16 bits: a pool has at most SERVERS_MAX < 2^16 servers
            let kept = cells <= CENSUS_CELLS_MAX && servers <= u16::MAX as usize;
            let mut c = Census {
                resources: nr,
                kind,
                floor,
                size,
                count: if kept { vec![0; cells] } else { Vec::new() },
            };
            c.clear();
            return c;
        }
        Census::default()
    }

    /// Every server idle (level 0) in every slot again (before counting anew after a restore).
    pub(crate) fn clear(&mut self) {
        let per_slot = self.size.len() * LEVELS;
        for row in self.count.chunks_exact_mut(per_slot.max(1)) {
            for (k, &n) in self.size.iter().enumerate() {
                row[k * LEVELS] = n as u16;
                row[k * LEVELS + 1..(k + 1) * LEVELS].fill(0);
            }
        }
    }

    /// The level of a server with capacities `cap` and free rooms `free` (R values each).
    pub(crate) fn level(cap: &[f64], free: impl Fn(usize) -> f64) -> usize {
        SHARES
            .iter()
            .position(|&share| cap.iter().enumerate().all(|(r, &c)| free(r) >= c * share))
            .unwrap_or(NO_LEVEL)
    }

    /// Server `s` moved from level `from` to level `to` in slot `t`.
    pub(crate) fn shift(&mut self, t: u32, s: u32, from: usize, to: usize) {
        if from == to || self.count.is_empty() {
            return;
        }
        let Some(&k) = self.kind.get(s as usize) else {
            return;
        };
        let base = (t as usize * self.size.len() + k as usize) * LEVELS;
        if from < LEVELS {
            if let Some(n) = self.count.get_mut(base + from) {
                debug_assert!(*n > 0, "census: no server to move at slot {t}");
                *n = n.saturating_sub(1);
            }
        }
        if to < LEVELS {
            if let Some(n) = self.count.get_mut(base + to) {
                *n += 1;
            }
        }
    }

    /// Slot `t`'s counts, per kind its [`LEVELS`] levels (`None`: not kept).
    pub(crate) fn row(&self, t: u32) -> Option<&[u16]> {
        if self.count.is_empty() {
            return None;
        }
        let per_slot = self.size.len() * LEVELS;
        let from = (t as usize).checked_mul(per_slot)?;
        self.count.get(from..from + per_slot)
    }

    /// Kind `k`'s floor capacities (R values).
    pub(crate) fn floor(&self, k: usize) -> &[f64] {
        let nr = self.resources;
        self.floor.get(k * nr..k * nr + nr).unwrap_or(&[])
    }

    /// The kind of server `s`.
    #[cfg(test)]
    pub(crate) fn kind_of(&self, s: usize) -> usize {
        self.kind.get(s).copied().unwrap_or(0) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_goes_down_to_the_grid() {
        assert_eq!(round_down(61.0, true), 48.0);
        assert_eq!(round_down(61.0, false), 32.0);
        assert_eq!(round_down(64.0, true), 64.0);
        assert_eq!(round_down(0.75, true), 0.75);
        assert_eq!(round_down(0.7, false), 0.5);
        assert_eq!(round_down(0.0, true), 0.0);
    }

    #[test]
    fn levels_are_the_first_share_held_on_every_resource() {
        let cap = [8.0, 100.0];
        assert_eq!(Census::level(&cap, |r| cap[r]), 0);
        assert_eq!(Census::level(&cap, |r| [6.0, 100.0][r]), 1);
        assert_eq!(Census::level(&cap, |r| [8.0, 30.0][r]), 3);
        assert_eq!(Census::level(&cap, |r| [1.0, 100.0][r]), NO_LEVEL);
    }
}
