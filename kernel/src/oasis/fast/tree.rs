//! The listing from a pool's slot tree ([`Sweep::list_grid`]): a best-first search by
//! (key, first server) over nodes under their group floors ([`Front`]), opened leaves under
//! their servers' least (unit price, index), and the idle streams.
use super::sweep::Sweep;
use crate::limits::RESOURCES_MAX;
use crate::oasis::cheapest::ordered;
use crate::oasis::grid::{room_code, Grid, FAN, LEAF, STREAMS_MAX};
use crate::oasis::market::Pool;
use crate::oasis::units::{fit_free, fit_of, group_floor, has_room, unit_of};
use crate::ResourceVec;

/// A server or a summary node on the frontier of [`Sweep::list_grid`]: `key` is the ordered
/// unit price of server `idx` (`lvl` 0) or the ordered group floor of node `idx` of the slot
/// tree's level `lvl - 1`, `first` the least server index under it. Ordered by (key, first):
/// a node's servers all have keys >= its floor and indices >= its first, so none of them can
/// come before a frontier item that comes before the node.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Front {
    key: i64,
    first: u32,
    lvl: u32,
    idx: u32,
}

/// [`Front::lvl`] of an idle stream (`idx`: the stream, `first`: its next idle server).
const STREAM: u32 = u32::MAX;

/// [`Front::lvl`] of a leaf of the slot tree under its servers' least (unit price, index)
/// ([`Sweep::leaf_best`]), where a leaf (`lvl` 1) is under its summary's group floor.
const LEAF_READY: u32 = u32::MAX - 1;

/// [`Front::lvl`] of an opened leaf's next server in (unit price, index) order: `idx` is its
/// place in [`Sweep::leaf`], `key` and `first` its (unit price, index). One frontier item per
/// leaf stands for all its servers not listed yet, which come after it in that order.
const LEAF_NEXT: u32 = u32::MAX - 2;
// [`Sweep::leaf_n`] counts a leaf's servers in a `u8`
const _: () = assert!(LEAF <= u8::MAX as usize);

impl Front {
    fn before(&self, o: &Front) -> bool {
        (self.key, self.first) < (o.key, o.first)
    }
}

impl Sweep {
    /// [`Self::list`] from the pool's slot tree at `now` ([`Grid`]): a best-first search from the
    /// root, by (key, first server) ([`Front`]). A node enters the frontier under its group floor
    /// ([`group_floor`] of its least prices and peaks, below every unit price under it), unless its
    /// largest free room on some demanded resource is short of one instance (then no server under
    /// it has room: room is monotone in each free room); a leaf that leaves it enters again under
    /// the least (unit price, index) of its servers whose room codes pass ([`Self::leaf_best`]);
    /// when it leaves under that key, it stands for those servers one at a time, in (unit price,
    /// index) order ([`LEAF_NEXT`]), each listed when it leaves if it has room. Every key is at
    /// most the (unit price, index) of every server with room under it, so the servers leave the
    /// frontier in the order (unit price, index) of those with room, which is the order the sweep's
    /// listing takes them in, and the list is the same; its cost follows the servers and nodes the
    /// search opens, not the changes between slots.
    pub(super) fn list_grid(&mut self, pool: &Pool, grid: &Grid, dem: &ResourceVec, count: u64) {
        let t = self.now;
        let nr = grid.resources();
        let sw = grid.summary_width();
        self.k = 0;
        self.cum[0] = 0;
        self.pre[0] = 0.0;
        self.heap_len = 0;
        // the joint room test of the nodes: the largest free rooms of the servers at the
        // room level of the demand on the key resource (all servers with room are there)
        let level = grid.room_level(dem.get(grid.key()));
        let at = level.map_or(grid.top_at(), |k| grid.levels_at() + k * nr);
        // the same field's room codes ([`Grid::child_codes`]): 0 the largest free rooms
        let field = level.map_or(0, |k| 1 + k);
        let ta = grid.top_at();
        let top = grid.depth();
        // per resource, the least room code of a server with room ([`room_code`])
        let mut need = [0u8; RESOURCES_MAX];
        for (r, n) in need.iter_mut().enumerate().take(nr) {
            let d = dem.get(r);
            if d > 0.0 {
                *n = room_code(d * (1.0 - 2e-9));
            }
        }
        if let Some(root) = grid.summaries(t, top - 1).get(..sw) {
            if room_in(&root[ta..ta + nr], dem) && has_room(&root[at..at + nr], dem) {
                let floor = group_floor(&root[..nr], &root[nr..ta], dem, self.peak);
                self.push_front(Front {
                    key: ordered(floor),
                    first: grid.first(top - 1, 0),
                    lvl: top as u32,
                    idx: 0,
                });
            }
        }
        // each idle stream's unit price, the same for all its servers: computed once here
        let mut stream_unit = [0.0f64; STREAMS_MAX];
        for (k, u) in stream_unit.iter_mut().enumerate().take(grid.streams()) {
            *u = unit_of(grid.stream_prices(k), dem);
        }
        for (k, &u) in stream_unit.iter().enumerate().take(grid.streams()) {
            if let Some(s) = self.next_fit(pool, grid, k, dem, 0) {
                self.push_front(Front {
                    key: ordered(u),
                    first: s as u32,
                    lvl: STREAM,
                    idx: k as u32,
                });
            }
        }
        // bits of the leaves read ahead ([`Grid::touch_leaf`])
        let mut touched = 0u64;
        while self.cum[self.k] < count {
            let Some(x) = self.pop_front() else {
                break;
            };
            let i = x.idx as usize;
            match x.lvl {
                STREAM => {
                    // the idle server `first` of stream i, which has room; then its next one
                    let s = x.first as usize;
                    let fit = self.idle_fit(pool, s, dem);
                    let unit = stream_unit.get(i).copied().unwrap_or(f64::INFINITY);
                    self.list_one(s, fit, unit);
                    if let Some(n) = self.next_fit(pool, grid, i, dem, s + 1) {
                        self.push_front(Front {
                            first: n as u32,
                            ..x
                        });
                    }
                }
                1 => {
                    // a leaf under its summary's group floor: back under its servers' least
                    // (unit price, index), a far closer key, so that of many leaves whose
                    // floors pass, only those that hold a listed server are opened
                    if let Some((key, first)) = self.leaf_best(grid, i, dem, &need) {
                        self.push_front(Front {
                            key,
                            first,
                            lvl: LEAF_READY,
                            idx: i as u32,
                        });
                    }
                }
                LEAF_READY => {
                    // a group of servers (by position): those whose room codes pass, by
                    // (unit price, index); the first is the least item of the frontier now
                    let (from, end) = (i * LEAF, self.leaf_end(i));
                    if let Some(q) = self.leaf.get_mut(from..end) {
                        q.sort_unstable();
                        debug_assert_eq!(q.first(), Some(&(x.key, x.first)));
                    }
                    self.leaf_take(grid, dem, from);
                }
                LEAF_NEXT => self.leaf_take(grid, dem, i),
                0 => debug_assert!(false, "servers enter the frontier through their leaf"),
                l => {
                    // a node of level l - 1: its children of level l - 2
                    let below = l as usize - 2;
                    let sums = grid.summaries(t, below);
                    // the children's room codes side by side: a child whose codes are below
                    // the demand's has no room (its summary is not read)
                    let codes = grid.child_codes(t, below, i, field);
                    let from = i * FAN;
                    let to = (from + FAN).min(grid.nodes(below));
                    for j in from..to {
                        let o = (j - from) * nr;
                        if !codes.get(o..o + nr).is_none_or(|c| codes_hold(c, &need)) {
                            continue;
                        }
                        let v = sums.get(j * sw..(j + 1) * sw).unwrap_or(&[]);
                        if v.len() == sw
                            && room_in(&v[ta..ta + nr], dem)
                            && has_room(&v[at..at + nr], dem)
                        {
                            let floor = group_floor(&v[..nr], &v[nr..ta], dem, self.peak);
                            self.push_front(Front {
                                key: ordered(floor),
                                first: grid.first(below, j),
                                lvl: below as u32 + 1,
                                idx: j as u32,
                            });
                            if below == 0 {
                                touched ^= grid.touch_leaf(t, j);
                            }
                        }
                    }
                }
            }
        }
        core::hint::black_box(touched);
    }

    /// The least (unit price, index) over the servers of leaf `j` of the slot tree ([`LEAF`]
    /// servers by position) whose room codes pass the demand's (`need`), from the prices
    /// ([`Grid::slot_prices`], apart from the free rooms so that they are read together);
    /// `None` when no server passes. A server whose codes pass without room only lowers it:
    /// still a bound of the leaf's servers with room.
    ///
    /// Keeps each passing server's unit price and (ordered unit price, index) in
    /// [`Self::leaf`] for when the leaf's turn comes.
    fn leaf_best(
        &mut self,
        grid: &Grid,
        j: usize,
        dem: &ResourceVec,
        need: &[u8; RESOURCES_MAX],
    ) -> Option<(i64, u32)> {
        let from = j * LEAF;
        let mut m = 0;
        let mut best: Option<(i64, u32)> = None;
        for (s, u) in leaf_units(grid, self.now, j, self.n, dem, need) {
            let (Some(e), Some(us)) = (self.leaf.get_mut(from + m), self.unit.get_mut(s as usize))
            else {
                continue;
            };
            *us = u;
            *e = (ordered(u), s);
            best = Some(best.map_or(*e, |b| b.min(*e)));
            m += 1;
        }
        if let Some(n) = self.leaf_n.get_mut(j) {
            *n = m as u8;
        }
        best
    }

    /// The end in [`Self::leaf`] of leaf `j`'s passing servers (from `j` x [`LEAF`]).
    fn leaf_end(&self, j: usize) -> usize {
        j * LEAF + self.leaf_n.get(j).map_or(0, |&m| m as usize)
    }

    /// Lists the opened leaf's server at [`Self::leaf`]`[at]` (the least item of the
    /// frontier) if it has room now (its room codes may pass without), and puts the leaf's
    /// next server, if any, on the frontier.
    fn leaf_take(&mut self, grid: &Grid, dem: &ResourceVec, at: usize) {
        let end = self.leaf_end(at / LEAF);
        let Some(&(_, s)) = self.leaf.get(at).filter(|_| at < end) else {
            return;
        };
        let s = s as usize;
        let free = grid.free_of(self.now, s);
        if free.len() == grid.resources() && room_in(free, dem) {
            let fit = fit_free(free, dem);
            debug_assert!(fit > 0);
            self.list_one(s, fit, self.unit[s]);
        }
        if let Some(&(key, first)) = self.leaf.get(at + 1).filter(|_| at + 1 < end) {
            self.push_front(Front {
                key,
                first,
                lvl: LEAF_NEXT,
                idx: (at + 1) as u32,
            });
        }
    }

    /// The fit of server `s` while idle: its class's (computed once a decision).
    fn idle_fit(&mut self, pool: &Pool, s: usize, dem: &ResourceVec) -> u32 {
        let c = pool.class_of(s);
        if self.cstamp.get(c) != Some(&self.stamp) {
            let nr = pool.resources_n();
            let cc = pool.capacities(c * nr, nr);
            self.cu[c] = unit_of(pool.idle(c as u32), dem);
            self.cf[c] = fit_of(cc, &[], dem);
            self.cstamp[c] = self.stamp;
        }
        self.cf[c]
    }

    /// The first server at or after `from` of idle stream `k` at the current slot with room
    /// for one instance.
    fn next_fit(
        &mut self,
        pool: &Pool,
        grid: &Grid,
        k: usize,
        dem: &ResourceVec,
        from: usize,
    ) -> Option<usize> {
        let row = grid.idle_row(k, self.now);
        let mut w = from / 64;
        let mut bits = row.get(w)? & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                bits &= self.fit_word(pool, dem, w);
                if bits != 0 {
                    return Some(w * 64 + bits.trailing_zeros() as usize);
                }
            }
            w += 1;
            bits = *row.get(w)?;
        }
    }

    /// Word `w` of the servers with room for one instance while idle (a bit each), computed
    /// once a decision, when first needed.
    fn fit_word(&mut self, pool: &Pool, dem: &ResourceVec, w: usize) -> u64 {
        if self.fstamp.get(w) == Some(&self.stamp) {
            return self.fits[w];
        }
        let mut m = 0u64;
        for s in w * 64..(w * 64 + 64).min(self.n) {
            if self.idle_fit(pool, s, dem) > 0 {
                m |= 1 << (s % 64);
            }
        }
        if let (Some(f), Some(st)) = (self.fits.get_mut(w), self.fstamp.get_mut(w)) {
            *f = m;
            *st = self.stamp;
        }
        m
    }

    /// Adds `x` to the frontier heap.
    #[inline]
    fn push_front(&mut self, x: Front) {
        // the frontier holds distinct servers, nodes and streams: fewer than `heap` has room
        // for (2n + 64, fixed at `new`, kept by clones)
        let pushed = crate::heap::push(&mut self.heap, &mut self.heap_len, x, Front::before);
        debug_assert!(pushed);
    }

    /// Takes the least item of the frontier heap.
    fn pop_front(&mut self) -> Option<Front> {
        crate::heap::pop(&mut self.heap, &mut self.heap_len, Front::before)
    }
}

/// The servers of leaf `j` of the slot tree at slot `t` ([`LEAF`] servers by position, of
/// `n`) whose room codes are all at least `need` (a byte per resource first: most servers
/// met have no room), each with its unit price from its prices ([`Grid::slot_prices`]).
fn leaf_units<'a>(
    grid: &'a Grid,
    t: u32,
    j: usize,
    n: usize,
    dem: &'a ResourceVec,
    need: &'a [u8; RESOURCES_MAX],
) -> impl Iterator<Item = (u32, f64)> + 'a {
    let nr = grid.resources();
    let (codes, prices) = (grid.slot_codes(t), grid.slot_prices(t));
    (j * LEAF..((j + 1) * LEAF).min(n)).filter_map(move |p| {
        let cs = codes.get(p * nr..(p + 1) * nr)?;
        if !codes_hold(cs, need) {
            return None;
        }
        let pc = prices.get(p * nr..(p + 1) * nr)?;
        Some((grid.server_at(p), unit_of(pc, dem)))
    })
}

/// May a server, or a node by its largest free rooms ([`Grid::child_codes`]), with room codes
/// `codes` have room for a demand whose least codes with room are `need`? A code below proves
/// no room ([`room_code`]).
fn codes_hold(codes: &[u8], need: &[u8; RESOURCES_MAX]) -> bool {
    codes.iter().zip(need).all(|(c, n)| c >= n)
}

/// Does a server or node of the slot tree have room for one instance? Its (largest) free
/// rooms `top`, -inf where no server is in the tree ([`Grid`]: the idle ones are not), which
/// has no room even for a demand of zero on every resource.
fn room_in(top: &[f64], dem: &ResourceVec) -> bool {
    top.first().is_some_and(|&f| f != f64::NEG_INFINITY) && has_room(top, dem)
}
