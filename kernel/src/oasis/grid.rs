//! [`Grid`]: the slot trees. A pool's free rooms and prices in force at every slot, with a
//! tree of summaries per slot, so that listing the cheapest servers of slot t is a best-first
//! search whose cost follows the servers and nodes it opens ([`super::fast`], `docs/oasis.md`
//! "The slot trees").
//!
//! The sweep of the time-major copy keeps one slot's state current by reading the usage changes
//! between a decision's slots; on a congested cluster that is thousands of servers a slot, while
//! a listing needs a few dozen. Here nothing is swept:
//!
//! - each slot keeps, per server, the 2R values in force there: its free rooms c^r - g^r
//!   and, in an array of their own, its prices p^r (a listing reads a leaf's prices
//!   together), and per resource a byte that rounds the free room down ([`room_code`]);
//! - over nodes of [`LEAF`] servers, then nodes of [`FAN`] nodes up to one root, each node keeps
//!   its least price per resource, its least peak prices (the group floor's inputs,
//!   [`super::market::group_floor`]), its largest free room per resource and, per level of the
//!   pool's key resource ([`RoomLevels`]), the largest free rooms of its servers at that level;
//! - servers sit in the tree by capacity vector (then index), so a node holds servers alike;
//! - an idle server (no usage) is not in the tree: every idle server of a pool with the same
//!   idle prices (an idle stream) has the same unit price for any demand, so they are listed in
//!   index order from a bit per server and slot.
//!
//! Stale summaries: a summary only has to bound the servers under it (least prices and peaks
//! at most theirs, largest free rooms at least theirs) for a listing to open every node that
//! may hold a server it lists, and so to list the same servers; a tighter one only lets it
//! open fewer nodes. A commit only adds usage, so it makes a server's values worse (room down,
//! prices up) or brings an idle server into the tree: the nodes above a changed server take
//! its new values at once where they are better ([`Grid::changed`]), and the leaf is queued
//! to be redone; [`Grid::tidy`] redoes a bounded number of queued leaves each decision, then
//! the nodes above them that changed. A large commit's summaries are so spread over the
//! decisions after it.
//!
//! The grid is derived from the breakpoints and dense in T x H, so a pool keeps it only within
//! [`GRID_VALUES_MAX`] values (and at most [`STREAMS_MAX`] idle streams); beyond, its decisions
//! sweep the time-major copy, with the same results.
use super::market::{entry_peaks, PEAKS};
use crate::limits::RESOURCES_MAX;
use alloc::vec;
use alloc::vec::Vec;

/// Servers per node of the tree's first level.
pub(crate) const LEAF: usize = 16;

/// Nodes per node of the levels above.
pub(crate) const FAN: usize = 16;

/// Most free-room levels of a pool's key resource kept per node ([`RoomLevels`]).
pub(crate) const ROOM_LEVELS: usize = 8;

/// Leaves whose summaries one light decision redoes per pool ([`Grid::tidy`], called by
/// [`super::OasisScheduler`]), with the nodes above them: a commit leaves its cells' leaves
/// loose, and the light decisions after it (most are rejections that list a few slots) tighten
/// them, so that no heavy decision pays for a large commit's summaries.
pub(crate) const TIDY_LEAVES: usize = 2048;

/// A decision is light ([`TIDY_LEAVES`]) when it admits nothing and lists at most this many
/// slots.
pub(crate) const TIDY_LIGHT_SLOTS: u64 = 8;

/// Queued leaves and nodes beyond which every decision tidies, light or not, so that a run of
/// heavy decisions cannot leave the summaries ever looser.
pub(crate) const TIDY_BACKLOG: usize = 1 << 18;

/// Most values one pool's grid keeps: cells, summaries and idle bits, counted as 8 bytes each
/// (2^26: 512 MiB). A larger pool keeps none and its decisions sweep the time-major copy.
pub(crate) const GRID_VALUES_MAX: usize = 1 << 26;

/// One level of the summary tree: `n` nodes per slot, each over [`FAN`] nodes of the level
/// below (or [`LEAF`] servers), [`width`] values per node and slot.
#[derive(Clone, Debug, Default)]
struct Level {
    n: usize,
    sum: Vec<f64>,
    /// per slot, per parent (each [`FAN`] nodes of this level), per room field (0: the
    /// largest free rooms; 1 + k: those of room level k), per node, per resource: the
    /// [`room_code`] of the summary's value ([`code_base`]), so that a listing opening a
    /// node passes over children without room reading a byte per resource of each, for the
    /// one field it tests, side by side
    codes: Vec<u8>,
    /// room fields per node (1 + the room levels in use)
    fields: usize,
    /// R
    nr: usize,
    /// per node: the least server index under it (the tie-break of [`super::fast`]'s order)
    first: Vec<u32>,
    /// per slot and node, whether its summary waits to be redone ([`Grid::tidy`]): a bit each
    stale: Vec<u64>,
    /// the (slot, node) pairs whose bit is set, oldest first: a ring of `slots x n` places,
    /// from `head`, `len` of them (a node is queued once, so it never overflows)
    ring: Vec<(u32, u32)>,
    head: usize,
    len: usize,
}

impl Level {
    fn new(n: usize, slots: usize, sw: usize, first: Vec<u32>, nr: usize, fields: usize) -> Self {
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
    fn queue(&mut self, t: u32, i: usize) {
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
    fn code_base(&self, t: usize, i: usize) -> usize {
        code_base(self.n, self.fields, self.nr, t, i)
    }

    /// Takes the oldest queued node (its bit cleared).
    fn next(&mut self) -> Option<(u32, usize)> {
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
fn put_codes(codes: &mut [u8], base: usize, nr: usize, hi: &[f64]) {
    for (k, f) in hi.chunks_exact(nr.max(1)).enumerate() {
        let b = base + k * FAN * nr;
        if let Some(c) = codes.get_mut(b..b + nr) {
            for (c, &x) in c.iter_mut().zip(f) {
                *c = room_code(x);
            }
        }
    }
}

/// Per slot, the values in force of every server and their summary tree (module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Grid {
    slots: usize,
    servers: usize,
    nr: usize,
    /// per slot, per server by position (`order`), per resource: its free room c^r - g^r
    /// (-inf for a server out of the tree)
    free: Vec<f64>,
    /// per slot, per server by position, per resource: its price p^r (+inf out of the
    /// tree), apart from the free rooms so that a listing reads a leaf's prices together
    /// ([`super::fast`]: the least unit price of a leaf's servers with room codes)
    prices: Vec<f64>,
    /// per slot, per server by position, per resource: its free room's [`room_code`], so
    /// that a listing passes over servers without room reading a byte per resource
    codes: Vec<u8>,
    /// the servers by position: sorted by capacity vector (then index), so that a group holds
    /// servers of like capacities and its largest free rooms say more about each of them
    order: Vec<u32>,
    /// per server, its position
    pos: Vec<u32>,
    /// the summary tree, leaves' parents first; the last level has one node
    levels: Vec<Level>,
    /// the key resource: the summaries keep, per level k of its free room (at least
    /// `theta[k]`, decreasing), the largest free rooms of the servers at that level, a joint
    /// room test far tighter than the largest free room per resource alone
    key: usize,
    theta: [f64; ROOM_LEVELS],
    /// levels in use (the first `nl` of `theta`)
    nl: usize,
    /// per server, its idle stream: the servers with bit-identical idle prices
    stream: Vec<u8>,
    /// per idle stream, its idle prices (R values)
    stream_px: Vec<f64>,
    /// 64-bit words per slot and stream of `idle_bits`
    words: usize,
    /// per stream and slot, the servers idle there (bit s % 64 of word s / 64): they are
    /// absent from the tree (free rooms -inf, prices +inf) and listed by index from here, as
    /// they all have the same unit price for any demand
    idle_bits: Vec<u64>,
}

/// Most idle streams (distinct idle price vectors) a pool's grid keeps: a pool with more keeps
/// no grid. Idle prices are L on every resource with capacity and U^r on one without, so a
/// pool has one stream per pattern of resources without capacity.
pub(crate) const STREAMS_MAX: usize = 16;

/// Values per summary node of `nr` resources: R least prices, R + 1 least peaks, R largest
/// free rooms, then [`ROOM_LEVELS`] x R largest free rooms by level of the key resource.
fn width(nr: usize, nl: usize) -> usize {
    3 * nr + 1 + nl * nr
}

/// The joint room test of a pool's slot tree: a key resource and thresholds of its free room
/// (decreasing, at most [`ROOM_LEVELS`]); each node keeps, per threshold theta_k, the largest
/// free rooms over its servers whose key free room is at least theta_k. Any thresholds are
/// exact (a job's servers with room are all at the level of its demand); thresholds at the
/// jobs' demands make it tightest ([`RoomLevels::of`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RoomLevels {
    pub(crate) key: usize,
    pub(crate) theta: Vec<f64>,
}

impl RoomLevels {
    /// For demands `dem` (one per job) on servers of capacities `cap` (server-major, R each):
    /// the key resource is the one whose mean demand is the largest share of its mean
    /// capacity; the thresholds are its distinct positive demands (evenly spaced among them
    /// beyond [`ROOM_LEVELS`]), each a little below the demand so that the demand itself is
    /// at its level.
    pub(crate) fn of<'a>(
        dem: impl Iterator<Item = &'a [f64]> + Clone,
        cap: &[f64],
        nr: usize,
    ) -> Self {
        let mut best = (0usize, 0.0f64);
        for r in 0..nr {
            let (mut sd, mut nd) = (0.0f64, 0usize);
            for d in dem.clone() {
                sd += d.get(r).copied().unwrap_or(0.0);
                nd += 1;
            }
            let caps = cap.iter().skip(r).step_by(nr.max(1));
            let (sc, nc) = caps.fold((0.0f64, 0usize), |a, &c| (a.0 + c, a.1 + 1));
            if nd == 0 || nc == 0 || sc <= 0.0 {
                continue;
            }
            let share = (sd / nd as f64) / (sc / nc as f64);
            if share > best.1 {
                best = (r, share);
            }
        }
        let key = best.0;
        let mut v: Vec<f64> = dem
            .filter_map(|d| d.get(key).copied())
            .filter(|&x| x > 0.0 && x.is_finite())
            .collect();
        v.sort_by(|a, b| b.total_cmp(a));
        v.dedup_by(|a, b| a.to_bits() == b.to_bits());
        let theta = if v.len() <= ROOM_LEVELS {
            v
        } else {
            (0..ROOM_LEVELS)
                .map(|k| v[k * (v.len() - 1) / (ROOM_LEVELS - 1)])
                .collect()
        };
        RoomLevels {
            key,
            theta: theta.into_iter().map(|x| x * (1.0 - 1e-6)).collect(),
        }
    }
}

/// A free room `f` rounded down to one byte, monotone in `f`: 0 up to 2^-16 (and for -inf, a
/// server out of the tree), then 8 steps per power of two (the exponent and the top three
/// bits of the mantissa) up to 2^16, 255 from there. A server with room for a demand `d`
/// has f >= d (1 - 2e-9) ([`Grid::room_level`]), so its code is at least that value's: a
/// code below it proves no room, reading a byte.
pub(crate) fn room_code(f: f64) -> u8 {
    const LOW: f64 = 1.0 / 65536.0;
    if f.is_nan() || f < LOW {
        return 0;
    }
    if f >= 65536.0 {
        return 255;
    }
    let bits = f.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023; // -16..=15: f is normal here
    let m = ((bits >> 49) & 7) as i64;
    ((e + 16) * 8 + m + 1).clamp(1, 254) as u8
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

/// The widest summary ([`RESOURCES_MAX`] resources).
const MAX_WIDTH: usize = 3 * RESOURCES_MAX + 1 + ROOM_LEVELS * RESOURCES_MAX;
const _: () = assert!(ROOM_LEVELS >= 2);

/// The values of a server that is not in the tree (idle there): no room on any resource, no
/// price below any bound.
fn absent(v: &mut [f64], nr: usize) {
    let (f, p) = v.split_at_mut(nr);
    f.iter_mut().for_each(|x| *x = f64::NEG_INFINITY);
    p.iter_mut().for_each(|x| *x = f64::INFINITY);
}

impl Grid {
    /// The grid of a pool of `servers` servers of `nr` resources over `slots` slots (capacities
    /// `cap` and idle prices `idle`, server-major, R values each) with every server idle: out
    /// of the tree, in its idle stream. `None` when it would exceed [`GRID_VALUES_MAX`] or
    /// [`STREAMS_MAX`] idle streams, or the pool is empty.
    pub(crate) fn idle(
        slots: u32,
        servers: usize,
        nr: usize,
        cap: &[f64],
        idle: &[f64],
        room: &RoomLevels,
    ) -> Option<Self> {
        if servers == 0 || nr == 0 || nr > RESOURCES_MAX || room.key >= nr {
            return None;
        }
        let (key, nl) = (room.key, room.theta.len().min(ROOM_LEVELS));
        let mut theta = [f64::INFINITY; ROOM_LEVELS];
        theta[..nl].copy_from_slice(&room.theta[..nl]);
        let t = slots as usize;
        let mut total = t.checked_mul(servers)?.checked_mul(2 * nr)?;
        let mut levels = Vec::new();
        let mut n = servers;
        loop {
            n = n.div_ceil(if levels.is_empty() { LEAF } else { FAN });
            // per node and slot: its summary, its place in the queue of stale nodes (8
            // bytes) and its stale bit
            let nodes = t.checked_mul(n)?;
            total = total.checked_add(nodes.checked_mul(width(nr, nl) + 1)?)?;
            total = total.checked_add(nodes.div_ceil(64))?;
            // their room codes: a byte per parent's place, field and resource
            let places = t.checked_mul(n.div_ceil(FAN) * FAN)?;
            total = total.checked_add(places.checked_mul((1 + nl) * nr)?.div_ceil(8))?;
            levels.push(n);
            if n == 1 {
                break;
            }
        }
        if total > GRID_VALUES_MAX {
            return None;
        }
        // idle streams: servers with bit-identical idle prices
        let mut stream = vec![0u8; servers];
        let mut stream_px: Vec<f64> = Vec::new();
        for (s, k) in stream.iter_mut().enumerate() {
            let px = idle.get(s * nr..s * nr + nr)?;
            let found = stream_px
                .chunks_exact(nr)
                .position(|q| q.iter().zip(px).all(|(a, b)| a.to_bits() == b.to_bits()));
            *k = match found {
                Some(k) => k as u8,
                None if stream_px.len() / nr < STREAMS_MAX => {
                    stream_px.extend_from_slice(px);
                    (stream_px.len() / nr - 1) as u8
                }
                None => return None,
            };
        }
        let streams = stream_px.len() / nr;
        let words = servers.div_ceil(64);
        total = total.checked_add(streams.checked_mul(t)?.checked_mul(words)?)?;
        // the room codes: a byte per cell and resource
        total = total.checked_add(t.checked_mul(servers)?.checked_mul(nr)?.div_ceil(8))?;
        if total > GRID_VALUES_MAX {
            return None;
        }
        // positions by capacity vector, then index: a node holds servers of like capacities
        let capv = |s: u32| {
            cap.get(s as usize * nr..s as usize * nr + nr)
                .unwrap_or(&[])
        };
        let mut order: Vec<u32> = (0..servers as u32).collect();
        order.sort_by(|&a, &b| {
            capv(a)
                .iter()
                .zip(capv(b))
                .map(|(x, y)| x.total_cmp(y))
                .find(|o| o.is_ne())
                .unwrap_or(core::cmp::Ordering::Equal)
                .then(a.cmp(&b))
        });
        let mut pos = vec![0u32; servers];
        for (p, &s) in order.iter().enumerate() {
            pos[s as usize] = p as u32;
        }
        // every server idle: absent from the tree (no room, no price below any bound),
        // present in its stream; its free rooms are -inf: room code 0
        let free = vec![f64::NEG_INFINITY; t * servers * nr];
        let prices = vec![f64::INFINITY; t * servers * nr];
        let codes = vec![0u8; t * servers * nr];
        let mut idle_bits = vec![0u64; streams * t * words];
        for x in 0..t {
            for (s, &k) in stream.iter().enumerate() {
                let b = (k as usize * t + x) * words + s / 64;
                idle_bits[b] |= 1 << (s % 64);
            }
        }
        let sw = width(nr, nl);
        let mut first: Vec<u32> = order.clone();
        let mut lv = Vec::with_capacity(levels.len());
        for &n in &levels {
            first = first
                .chunks(if lv.is_empty() { LEAF } else { FAN })
                .map(|c| c.iter().copied().min().unwrap_or(u32::MAX))
                .collect();
            debug_assert_eq!(first.len(), n);
            lv.push(Level::new(n, t, sw, first.clone(), nr, 1 + nl));
        }
        let mut g = Grid {
            slots: t,
            servers,
            nr,
            free,
            prices,
            codes,
            order,
            pos,
            levels: lv,
            key,
            theta,
            nl,
            stream,
            stream_px,
            words,
            idle_bits,
        };
        for x in 0..slots {
            g.summarise_slot(x);
        }
        Some(g)
    }

    /// R.
    pub(crate) fn resources(&self) -> usize {
        self.nr
    }

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

    /// The least server index under node `i` of level `l`.
    pub(crate) fn first(&self, l: usize, i: usize) -> u32 {
        self.levels
            .get(l)
            .and_then(|x| x.first.get(i))
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// Where the R values of the server at position `p` at slot `t` start in `free`,
    /// `prices` and `codes`.
    fn at(&self, t: u32, p: usize) -> usize {
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

    /// Server `s`'s prices at slot `t` (R values).
    #[cfg(test)]
    pub(crate) fn prices_of(&self, t: u32, s: usize) -> &[f64] {
        let p = self.pos.get(s).map_or(usize::MAX / 4, |&p| p as usize);
        let b = self.at(t, p);
        self.prices.get(b..b + self.nr).unwrap_or(&[])
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
    /// at slot `t`, R per child ([`Level::codes`]).
    pub(crate) fn child_codes(&self, t: u32, l: usize, i: usize, k: usize) -> &[u8] {
        let Some(lv) = self.levels.get(l) else {
            return &[];
        };
        let b = lv.code_base(t as usize, i * FAN) + k * FAN * self.nr;
        lv.codes.get(b..b + FAN * self.nr).unwrap_or(&[])
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

    /// Redoes every queued node ([`Self::tidy`]): the summaries are then exact.
    #[cfg(test)]
    pub(crate) fn tidy_all(&mut self) {
        let all = self.levels.first().map_or(0, |l| l.ring.len());
        self.tidy(all);
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

    /// Server `s`'s room codes at slot `t`.
    #[cfg(test)]
    pub(crate) fn codes_of(&self, t: u32, s: usize) -> &[u8] {
        let p = self.pos[s] as usize;
        &self.slot_codes(t)[p * self.nr..(p + 1) * self.nr]
    }

    /// Bit for bit the same free rooms, prices, room codes, summaries and idle servers as
    /// `o`?
    #[cfg(test)]
    pub(crate) fn same(&self, o: &Grid) -> bool {
        let bits = |a: &[f64], b: &[f64]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
        };
        bits(&self.free, &o.free)
            && bits(&self.prices, &o.prices)
            && self.codes == o.codes
            && self.idle_bits == o.idle_bits
            && self.levels.len() == o.levels.len()
            && self
                .levels
                .iter()
                .zip(&o.levels)
                .all(|(a, b)| a.n == b.n && bits(&a.sum, &b.sum) && a.codes == b.codes)
    }

    /// Is every node's room code the [`room_code`] of its summary's value?
    #[cfg(test)]
    pub(crate) fn codes_match(&self) -> bool {
        let (sw, mins, nr) = (self.summary_width(), 2 * self.nr + 1, self.nr);
        self.levels.iter().all(|lv| {
            (0..self.slots).all(|t| {
                (0..lv.n).all(|i| {
                    let v = &lv.sum[(t * lv.n + i) * sw..(t * lv.n + i + 1) * sw];
                    let base = lv.code_base(t, i);
                    v[mins..].chunks_exact(nr).enumerate().all(|(k, f)| {
                        let c = &lv.codes[base + k * FAN * nr..base + k * FAN * nr + nr];
                        c.iter().zip(f).all(|(&c, &x)| c == room_code(x))
                    })
                })
            })
        })
    }

    /// Does every summary bound `exact`'s (the same grid with its summaries redone): least
    /// prices and peaks at most, largest free rooms at least? What a listing needs of the
    /// summaries [`Self::tidy`] has not redone yet.
    #[cfg(test)]
    pub(crate) fn bounds(&self, exact: &Grid) -> bool {
        let (sw, mins) = (self.summary_width(), 2 * self.nr + 1);
        self.levels.len() == exact.levels.len()
            && self.levels.iter().zip(&exact.levels).all(|(a, b)| {
                a.sum.len() == b.sum.len()
                    && a.sum.iter().zip(&b.sum).enumerate().all(|(k, (x, y))| {
                        if k % sw < mins {
                            x <= y
                        } else {
                            x >= y
                        }
                    })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queue of stale nodes: each (slot, node) once however often it is queued, oldest
    /// first, across the ring's wrap, and queued again once taken.
    #[test]
    fn stale_nodes_queue_once_in_order() {
        let mut lv = Level::new(3, 2, 1, vec![0; 3], 1, 1);
        let mut want = std::collections::VecDeque::new();
        let mut rng = crate::rng::SplitMix64::new(7);
        for _ in 0..10_000 {
            if rng.below(3) < 2 {
                let (t, i) = (rng.below(2) as u32, rng.below(3) as usize);
                lv.queue(t, i);
                if !want.contains(&(t, i)) {
                    want.push_back((t, i));
                }
            } else {
                assert_eq!(lv.next(), want.pop_front());
            }
            assert_eq!(lv.len, want.len());
            assert!(lv.len <= lv.ring.len());
        }
    }

    /// Room codes are monotone in the free room and never below a demand's code when the
    /// free room has room for it (the fit of `fit_free`): 200,000 random pairs over many
    /// orders of magnitude, near-equal pairs and the edges.
    #[test]
    fn room_codes_never_hide_room() {
        use crate::oasis::market::fit_free;
        use crate::ResourceVec;
        let mut g = crate::rng::SplitMix64::new(5);
        let edges = [
            0.0,
            -0.0,
            1.0 / 65536.0,
            65536.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for i in 0..200_000u32 {
            let x = libm::pow(2.0, g.next_f64() * 40.0 - 20.0);
            let d = match i % 3 {
                0 => libm::pow(2.0, g.next_f64() * 40.0 - 20.0),
                1 => x * (1.0 + (g.next_f64() - 0.5) * 1e-8),
                _ => edges[(g.next_u64() % 6) as usize].abs().max(1e-300),
            };
            let f = if i % 7 == 0 {
                edges[(g.next_u64() % 6) as usize]
            } else {
                x
            };
            let (lo, hi) = if f <= d { (f, d) } else { (d, f) };
            assert!(room_code(lo) <= room_code(hi), "{lo} {hi}");
            let dem = ResourceVec::from_slice(&[d]).unwrap();
            if fit_free(&[f], &dem) > 0 {
                assert!(room_code(f) >= room_code(d * (1.0 - 2e-9)), "{f} {d}");
            }
        }
    }
}
