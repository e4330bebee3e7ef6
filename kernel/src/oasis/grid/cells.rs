//! [`Grid`] and its cells: per slot and server (by position) the free rooms, prices and room
//! codes in force, and per idle stream and slot the idle servers; reading them, and setting
//! one server's values at a slot ([`Grid::set`], [`Grid::carry`]) with what that changed
//! ([`Change`]).
use super::level::Level;
use super::{LEAF, ROOM_LEVELS};
use crate::limits::RESOURCES_MAX;
use crate::oasis::grid::room_code;
use alloc::vec::Vec;

/// Per slot, the values in force of every server and their summary tree (module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Grid {
    pub(super) slots: usize,
    pub(super) servers: usize,
    pub(super) nr: usize,
    /// per slot, per server by position (`order`), per resource: its free room c^r - g^r
    /// (-inf for a server out of the tree)
    pub(super) free: Vec<f64>,
    /// per slot, per server by position, per resource: its price p^r (+inf out of the
    /// tree), apart from the free rooms so that a listing reads a leaf's prices together
    /// ([`crate::oasis::fast`]: the least unit price of a leaf's servers with room codes)
    pub(super) prices: Vec<f64>,
    /// per slot, per server by position, per resource: its free room's [`room_code`], so
    /// that a listing passes over servers without room reading a byte per resource
    pub(super) codes: Vec<u8>,
    /// the servers by position: sorted by capacity vector (then index), so that a group holds
    /// servers of like capacities and its largest free rooms say more about each of them
    pub(super) order: Vec<u32>,
    /// per server, its position
    pub(super) pos: Vec<u32>,
    /// the summary tree, leaves' parents first; the last level has one node
    pub(super) levels: Vec<Level>,
    /// the key resource: the summaries keep, per level k of its free room (at least
    /// `theta[k]`, decreasing), the largest free rooms of the servers at that level, a joint
    /// room test far tighter than the largest free room per resource alone
    pub(super) key: usize,
    pub(super) theta: [f64; ROOM_LEVELS],
    /// levels in use (the first `nl` of `theta`)
    pub(super) nl: usize,
    /// per server, its idle stream: the servers with bit-identical idle prices
    pub(super) stream: Vec<u8>,
    /// per idle stream, its idle prices (R values)
    pub(super) stream_px: Vec<f64>,
    /// 64-bit words per slot and stream of `idle_bits`
    pub(super) words: usize,
    /// per stream and slot, the servers idle there (bit s % 64 of word s / 64): they are
    /// absent from the tree (free rooms -inf, prices +inf) and listed by index from here, as
    /// they all have the same unit price for any demand
    pub(super) idle_bits: Vec<u64>,
}

/// What [`Grid::set`] or [`Grid::carry`] changed of a server's values at a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// nothing
    None,
    /// its values only got worse (free rooms no larger, prices no smaller) and it was in
    /// the tree before: no summary above it can improve
    Worse,
    /// anything else (it entered the tree, or some value improved)
    Other,
}

impl Change {
    fn of(same: bool, worse: bool) -> Self {
        match (same, worse) {
            (true, _) => Change::None,
            (false, true) => Change::Worse,
            (false, false) => Change::Other,
        }
    }
}

/// Are `new` values (2R: free rooms, then prices) no better than `old` on every resource,
/// `old` being in the tree (a finite free room; an absent server has -inf)? False on a NaN.
fn worse_only(old: &[f64], new: &[f64], nr: usize) -> bool {
    let (of, op) = old.split_at(nr);
    let (nf, np) = new.split_at(nr);
    of.first().is_some_and(|&f| f > f64::NEG_INFINITY)
        && of.iter().zip(nf).all(|(o, n)| n <= o)
        && op.iter().zip(np).all(|(o, n)| n >= o)
}

/// The values of a server that is not in the tree (idle there): no room on any resource, no
/// price below any bound.
fn absent(v: &mut [f64], nr: usize) {
    let (f, p) = v.split_at_mut(nr);
    f.iter_mut().for_each(|x| *x = f64::NEG_INFINITY);
    p.iter_mut().for_each(|x| *x = f64::INFINITY);
}

impl Grid {
    /// R.
    pub(crate) fn resources(&self) -> usize {
        self.nr
    }

    /// All servers' prices at slot `t` (R each, by position).
    pub(crate) fn slot_prices(&self, t: u32) -> &[f64] {
        let w = self.servers * self.nr;
        let b = t as usize * w;
        self.prices.get(b..b + w).unwrap_or(&[])
    }

    /// The server at position `p` ([`Self::order`]).
    pub(crate) fn server_at(&self, p: usize) -> u32 {
        self.order.get(p).copied().unwrap_or(u32::MAX)
    }

    /// Where the R values of the server at position `p` at slot `t` start in `free`,
    /// `prices` and `codes`.
    pub(super) fn at(&self, t: u32, p: usize) -> usize {
        (t as usize * self.servers + p) * self.nr
    }

    /// Reads server `s`'s values at slot `t` (its first free room and price and its room
    /// code) and returns some of their bits: the pool's sync reads the cells a commit touched
    /// ahead, all at once, so that their cache misses overlap.
    pub(crate) fn touch(&self, t: u32, s: usize) -> u64 {
        let Some(&p) = self.pos.get(s) else {
            return 0;
        };
        let b = self.at(t, p as usize);
        let f = self.free.get(b).map_or(0, |x| x.to_bits());
        let x = self.prices.get(b).map_or(0, |x| x.to_bits());
        let c = self.codes.get(b).map_or(0, |&c| u64::from(c));
        f ^ x ^ c
    }

    /// Reads leaf `j`'s room codes and prices at slot `t` (a value per cache line) and
    /// returns some of their bits: the listing reads a leaf ahead when it puts the leaf on
    /// its frontier, so that the leaf's misses overlap the search until the leaf's turn.
    pub(crate) fn touch_leaf(&self, t: u32, j: usize) -> u64 {
        let b = self.at(t, j * LEAF);
        let e = self.at(t, ((j + 1) * LEAF).min(self.servers));
        let mut acc = self.codes.get(b).map_or(0, |&c| u64::from(c));
        for k in (b..e).step_by(8) {
            acc ^= self.prices.get(k).map_or(0, |x| x.to_bits());
        }
        acc
    }

    /// Server `s`'s free rooms at slot `t` (R values).
    pub(crate) fn free_of(&self, t: u32, s: usize) -> &[f64] {
        let p = self.pos.get(s).map_or(usize::MAX / 4, |&p| p as usize);
        let b = self.at(t, p);
        self.free.get(b..b + self.nr).unwrap_or(&[])
    }

    /// The values of the server at position `p` at slot `t` (2R: free rooms, then prices).
    fn values(&self, t: u32, p: usize) -> [f64; 2 * RESOURCES_MAX] {
        let (nr, b) = (self.nr, self.at(t, p));
        let mut v = [0.0f64; 2 * RESOURCES_MAX];
        if let (Some(f), Some(x)) = (self.free.get(b..b + nr), self.prices.get(b..b + nr)) {
            v[..nr].copy_from_slice(f);
            v[nr..2 * nr].copy_from_slice(x);
        }
        v
    }

    /// Writes values `v` (2R) of the server at position `p` at slot `t`, with its room code.
    fn put(&mut self, t: u32, p: usize, v: &[f64]) {
        let (nr, b) = (self.nr, self.at(t, p));
        let (f, x) = v.split_at(nr.min(v.len()));
        if let Some(d) = self.free.get_mut(b..b + nr) {
            d.copy_from_slice(f);
        }
        if let Some(d) = self.prices.get_mut(b..b + nr) {
            d.copy_from_slice(x);
        }
        if let Some(c) = self.codes.get_mut(b..b + nr) {
            for (c, &f) in c.iter_mut().zip(f) {
                *c = room_code(f);
            }
        }
    }

    /// Sets server `s`'s values at slot `t` (2R: free rooms, then prices), or makes it idle
    /// there (`idle`: its usage is +0.0 on every resource; `v` is not read); what that changed
    /// ([`Change`]; then its summaries are brought in line by [`Self::changed`]).
    pub(crate) fn set(&mut self, t: u32, s: usize, v: &[f64], idle: bool) -> Change {
        let nr = self.nr;
        let st = 2 * nr;
        let Some(&p) = self.pos.get(s) else {
            return Change::None;
        };
        if t as usize >= self.slots {
            return Change::None;
        }
        let p = p as usize;
        let mut new = [0.0f64; 2 * RESOURCES_MAX];
        match (idle, v.get(..st)) {
            (false, Some(v)) => new[..st].copy_from_slice(v),
            _ => absent(&mut new[..st], nr),
        }
        self.replace(t, p, s, &new[..st], idle)
    }

    /// Copies server `s`'s values (and idleness) at slot `t - 1` to slot `t` (no breakpoint
    /// at `t`); what that changed ([`Change`]).
    pub(crate) fn carry(&mut self, t: u32, s: usize) -> Change {
        let Some(&p) = self.pos.get(s) else {
            return Change::None;
        };
        if t == 0 || t as usize >= self.slots {
            return Change::None;
        }
        let p = p as usize;
        let prev = self.values(t - 1, p);
        let idle = self.is_idle(t - 1, s);
        self.replace(t, p, s, &prev[..2 * self.nr], idle)
    }

    /// Gives server `s` (at position `p`) values `new` (2R) and idleness `idle` at slot `t`;
    /// what that changed ([`Change`]).
    fn replace(&mut self, t: u32, p: usize, s: usize, new: &[f64], idle: bool) -> Change {
        let old = self.values(t, p);
        let old = &old[..new.len()];
        let same = old.iter().zip(new).all(|(a, b)| a.to_bits() == b.to_bits());
        let worse = !same && worse_only(old, new, self.nr);
        if !same {
            self.put(t, p, new);
        }
        let was = self.is_idle(t, s);
        self.set_idle(t, s, idle);
        Change::of(same && was == idle, worse)
    }

    /// The room codes of slot `t`'s servers by position (R each, [`room_code`]).
    pub(crate) fn slot_codes(&self, t: u32) -> &[u8] {
        let w = self.servers * self.nr;
        let b = t as usize * w;
        self.codes.get(b..b + w).unwrap_or(&[])
    }

    fn bit(&self, t: u32, s: usize) -> Option<(usize, u64)> {
        let k = *self.stream.get(s)? as usize;
        let b = (k * self.slots + t as usize) * self.words + s / 64;
        (b < self.idle_bits.len()).then_some((b, 1u64 << (s % 64)))
    }

    fn set_idle(&mut self, t: u32, s: usize, idle: bool) {
        if let Some((b, m)) = self.bit(t, s) {
            if idle {
                self.idle_bits[b] |= m;
            } else {
                self.idle_bits[b] &= !m;
            }
        }
    }

    /// Is server `s` idle at slot `t`?
    pub(crate) fn is_idle(&self, t: u32, s: usize) -> bool {
        self.bit(t, s)
            .is_some_and(|(b, m)| self.idle_bits[b] & m != 0)
    }

    /// Number of idle streams.
    pub(crate) fn streams(&self) -> usize {
        self.stream_px.len() / self.nr.max(1)
    }

    /// The idle prices (R values) of stream `k`'s servers.
    pub(crate) fn stream_prices(&self, k: usize) -> &[f64] {
        let nr = self.nr;
        self.stream_px.get(k * nr..k * nr + nr).unwrap_or(&[])
    }

    /// The servers of stream `k` idle at slot `t` (bit s % 64 of word s / 64).
    pub(crate) fn idle_row(&self, k: usize, t: u32) -> &[u64] {
        let b = (k * self.slots + t as usize) * self.words;
        self.idle_bits.get(b..b + self.words).unwrap_or(&[])
    }
}
