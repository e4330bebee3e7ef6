//! The exact fast DP of Alg. 2 (the default path).
//!
//! Per slot t, COST_t(t, d) depends on d only through w = ceil(d m_i) (Alg. 2 line 26) and is
//! non-decreasing in w, so slot t offers the choices "w workers cover chunks_for(w) chunks" for
//! w = 0..=Wcap(t) (Wcap: the most workers both pools can host; feasibility is a prefix in w),
//! of which only the smallest w per distinct chunk count matters. The DP over "at least x chunks
//! covered in slots a_i..t" then has at most N_i + 1 transitions per cell instead of x + 1, and
//! its value equals the literal exact-split DP (COST_t is monotone, so covering more than d in a
//! slot never costs less than covering d with the same workers).
//!
//! COST_t(t, w) reproduces the literal greedy bit for bit: workers fill servers in price order
//! (prefix sums of unit price x fit, summed in the same order as the greedy), then parameter
//! servers likewise for z = ceil(w b_i / B_i).
//!
//! Scale (`docs/oasis.md`): the slots are swept forward from a_i, one at a time and only as far
//! as the DP goes; per slot only the servers whose usage changes are touched ([`Sweep`]), and
//! only the cheapest servers covering Wcap workers (and their parameter servers) are listed.
//! The DP's lower cut `lo` uses an upper bound of the chunks the later slots can cover, the
//! t_hat scan stops on the idle-price lower bound of any schedule's cost, and the choice table
//! holds only the rows that bound lets the scan reach. Each of these computes a superset of the
//! cells the full-window DP computes, with the same values: the decision is the same.
use super::census::{KINDS_MAX, LEVELS, SHARES};
use super::cheapest::{ordered, Cheapest, ABSENT};
use super::grid::{room_code, Grid, FAN, LEAF, STREAMS_MAX};
use super::market::{
    fit_free, fit_of, group_floor, has_room, peak_of, unit_of, JobParams, Market, Pool, GROUP, IDLE,
};
use super::{Decision, OasisError, Reason};
use crate::limits::RESOURCES_MAX;
use crate::model::oasis::Utility;
use crate::num::{greater, less, less_bound};
use crate::ResourceVec;
use alloc::vec;
use alloc::vec::Vec;

const NONE: u32 = u32::MAX;

/// One pool's prices swept forward in time for the job being decided: per server the unit
/// price and fit in force at the current slot, an index of the servers with fit > 0
/// ([`Cheapest`]) keyed (unit price, index) (the order of Alg. 2 lines 25 / 35). Moving one slot
/// on touches only the servers whose usage changes there, read in one pass from the pool's
/// time-major copy of its breakpoints ([`Pool::changes`]), by groups of servers
/// ([`Pool::groups`]): a group without room leaves the index unread, and outside full slots a
/// changed group is queued unread under a lower bound of its servers' unit prices until the
/// listing reaches that bound or one of its servers ([`Sweep::step`]).
/// Servers with fit 0 add exactly 0 to every prefix sum of the greedy fill, so the walk over
/// the index's cheapest servers reproduces the full sorted walk bit for bit.
///
/// On a pool that keeps its slot trees ([`Grid`]) none of that state is used: `start` and
/// `step` only move `now`, and each listing searches slot `now`'s tree ([`Self::list_grid`]).
#[derive(Clone, Debug, Default)]
struct Sweep {
    n: usize,
    unit: Vec<f64>,
    fit: Vec<u32>,
    /// per class (first server of a capacity vector): idle unit price and fit, valid when the
    /// class's stamp is the current one
    cu: Vec<f64>,
    cf: Vec<u32>,
    cstamp: Vec<u32>,
    stamp: u32,
    /// servers taken out of the index while the cheapest ones are listed
    masked: Vec<bool>,
    /// the cheapest server with fit > 0 (or not yet known)
    cheap: Cheapest,
    /// per server: is `fit` computed? (a changed server's fit is computed only when it comes
    /// up in the price order)
    known: Vec<bool>,
    /// per server: the (slot, entry) of the time-major copy in force, when the sweep read it
    /// (NONE: from the start slot, found by a binary search)
    src: Vec<(u32, u32)>,
    /// the slot the state is at
    now: u32,
    /// the listed cheapest servers of `now`: index, and prefix fits / costs (n + 1 each)
    ls: Vec<u32>,
    cum: Vec<u64>,
    pre: Vec<f64>,
    k: usize,
    /// did the last listing run out of servers before its count, or meet more servers without
    /// room than it listed? (then the next step tests each changed server for room)
    eager: bool,
    /// per group of [`GROUP`] servers: has it changed since the sweep last read it, its
    /// changes waiting in `occ` and the group in `pend` under a lower bound of the changed
    /// servers' keys until the listing reaches it ([`Self::reveal`])? A pending group's
    /// servers keep their old keys in `cheap`: one that comes up there is not listed before
    /// its group is read.
    pending: Vec<bool>,
    /// per group: the ordered lower bound it waits under
    bound: Vec<i64>,
    /// per waiting group: its servers with a queued change (bit: server - g x GROUP), so
    /// [`Self::reveal`] stops once it has read each of them
    changed: Vec<u32>,
    /// the pending groups, keyed by their bound (index: the group)
    pend: Cheapest,
    /// per group: its newest unread change in `occ` (`NONE`: none)
    head: Vec<u32>,
    /// the unread changes of pending groups, each linked to its group's previous one
    occ: Vec<Occ>,
    /// entries of `occ` in use (it is never grown: when full, groups are read at once)
    occ_len: usize,
    /// the decision's first slot, when the pool keeps its prices and free rooms densely
    /// ([`Pool::free_at`]; `NONE`: it does not)
    dense: u32,
    /// the decision's choice of least peak price for group floors ([`peak_of`])
    peak: Option<(usize, f64)>,
    /// per census kind and level: (stamp, fit of its floor share), [`Self::census_fit`]
    kfit: Vec<(u32, u32)>,
    /// the frontier of a listing over the pool's slot tree ([`Self::list_grid`]), a binary
    /// heap by (key, first server) in its first `heap_len` entries
    heap: Vec<Front>,
    heap_len: usize,
    /// per slot-tree position (in [`LEAF`]s): the (ordered unit price, server) of an opened
    /// leaf's servers whose room codes pass, `leaf_n` of them per leaf, written by
    /// [`Self::leaf_best`] and sorted when the leaf's turn comes ([`LEAF_NEXT`])
    leaf: Vec<(i64, u32)>,
    leaf_n: Vec<u8>,
    /// per server (a bit each): room for one instance while idle, computed once a decision
    /// a word at a time (valid when the word's `fstamp` is the current stamp)
    fits: Vec<u64>,
    fstamp: Vec<u32>,
}

/// A server or a summary node on the frontier of [`Sweep::list_grid`]: `key` is the ordered
/// unit price of server `idx` (`lvl` 0) or the ordered group floor of node `idx` of the slot
/// tree's level `lvl - 1`, `first` the least server index under it. Ordered by (key, first):
/// a node's servers all have keys >= its floor and indices >= its first, so none of them can
/// come before a frontier item that comes before the node.
#[derive(Clone, Copy, Debug, Default)]
struct Front {
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

/// One slot's changes of one group, not read yet ([`Sweep::reveal`]): the entries from `from`
/// of slot `t`'s time-major copy, one per server of `servers` (bit: server - g x GROUP).
#[derive(Clone, Copy, Debug, Default)]
struct Occ {
    t: u32,
    from: u32,
    servers: u16,
    /// did the group have room for one instance in that slot?
    room: bool,
    /// the group's previous unread change (`NONE`: none)
    prev: u32,
}

/// Most unread group changes one sweep keeps (16 bytes each): more are read at once.
const OCC_MAX: usize = 1 << 18;
// [`Occ`] marks the servers of a group in a `u16`
const _: () = assert!(GROUP <= 16);

impl Sweep {
    /// A sweep over `n` servers of a horizon of `slots` slots.
    fn new(n: usize, slots: usize) -> Self {
        let groups = n.div_ceil(GROUP);
        Sweep {
            n,
            unit: vec![0.0; n],
            fit: vec![0; n],
            cu: vec![0.0; n],
            cf: vec![0; n],
            cstamp: vec![0; n],
            stamp: 0,
            masked: vec![false; n],
            cheap: Cheapest::new(n),
            src: vec![(NONE, 0); n],
            known: vec![false; n],
            now: 0,
            ls: vec![0; n],
            cum: vec![0; n + 1],
            pre: vec![0.0; n + 1],
            k: 0,
            eager: false,
            pending: vec![false; groups],
            bound: vec![ABSENT; groups],
            changed: vec![0; groups],
            pend: Cheapest::new(groups),
            head: vec![NONE; groups],
            occ: vec![Occ::default(); groups.saturating_mul(slots).min(OCC_MAX)],
            occ_len: 0,
            dense: NONE,
            peak: None,
            kfit: vec![(0, 0); KINDS_MAX * LEVELS],
            // the frontier holds distinct servers, nodes and idle streams: fewer than 2n + 64
            heap: vec![Front::default(); 2 * n + 64],
            heap_len: 0,
            leaf: vec![(0, 0); n.div_ceil(LEAF) * LEAF],
            leaf_n: vec![0; n.div_ceil(LEAF)],
            fits: vec![0; n.div_ceil(64)],
            fstamp: vec![0; n.div_ceil(64)],
        }
    }

    /// Server `s`'s key in the index: its unit price while it may have room and is not
    /// listed already.
    fn key(&self, s: usize) -> Option<f64> {
        let present = s < self.n && (!self.known[s] || self.fit[s] > 0) && !self.masked[s];
        present.then(|| self.unit[s])
    }

    fn refresh(&mut self, s: usize) {
        let k = self.key(s);
        self.cheap.set(s, k);
    }

    fn load(&mut self, pool: &Pool, s: usize, j: Option<usize>, dem: &ResourceVec) {
        let nr = pool.resources_n();
        let cb = s * nr;
        let cap = pool.capacities(cb, nr);
        match j {
            Some(j)
                if pool.values(s as u32, j)[..nr]
                    .iter()
                    .any(|g| g.to_bits() != 0) =>
            {
                let v = pool.values(s as u32, j);
                self.unit[s] = unit_of(v.get(nr..).unwrap_or(&[]), dem);
                self.known[s] = false;
                let _ = cap;
            }
            // usage +0.0 everywhere: the idle state (its prices are eq. (22) at 0, checked on
            // restore), shared by the server's class
            _ => {
                let c = pool.class_of(s);
                if self.cstamp.get(c) != Some(&self.stamp) {
                    let cc = pool.capacities(c * nr, nr);
                    self.cu[c] = unit_of(pool.idle(c as u32), dem);
                    self.cf[c] = fit_of(cc, &[], dem);
                    self.cstamp[c] = self.stamp;
                }
                self.unit[s] = self.cu[c];
                self.fit[s] = self.cf[c];
                self.known[s] = true;
            }
        }
    }

    /// A lower bound of the total fit of slot `t`'s servers, capped at `cap`: per kind and
    /// level of the pool's [`super::census::Census`], its servers times the fit of the kind's
    /// floor capacities scaled by the level's share (cached for the decision). `None` when the
    /// pool keeps no census.
    fn census_fit(&mut self, pool: &Pool, dem: &ResourceVec, t: u32, cap: u64) -> Option<u64> {
        let census = pool.census();
        let row = census.row(t)?;
        let mut sum = 0u64;
        for (i, &n) in row.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let fit = match self.kfit.get(i) {
                Some(&(stamp, fit)) if stamp == self.stamp => fit,
                _ => {
                    let share = SHARES[i % LEVELS];
                    let mut free = [0.0f64; RESOURCES_MAX];
                    let floor = census.floor(i / LEVELS);
                    for (f, &c) in free.iter_mut().zip(floor) {
                        *f = c * share;
                    }
                    let fit = fit_free(&free[..floor.len()], dem);
                    if let Some(k) = self.kfit.get_mut(i) {
                        *k = (self.stamp, fit);
                    }
                    fit
                }
            };
            sum = sum.saturating_add(u64::from(n) * u64::from(fit));
            if sum >= cap {
                return Some(cap);
            }
        }
        Some(sum)
    }

    /// Computes the fit of server `s` in the breakpoint in force at `now`: from the entry of the
    /// time-major copy the sweep last read for it (one cache line), else by a binary search.
    fn resolve(&mut self, pool: &Pool, s: usize, dem: &ResourceVec) {
        let nr = pool.resources_n();
        let cap = pool.capacities(s * nr, nr);
        let (t, i) = self.src[s];
        // unchanged since the first slot: the pool's dense free rooms of that slot
        let free = match t {
            NONE => pool.free_at(self.dense).map(|f| (f, s)),
            _ => Some((pool.changes(t).1, i as usize)),
        };
        if let Some(v) = free.and_then(|(f, i)| f.get(i * nr..i * nr + nr)) {
            self.fit[s] = fit_free(v, dem);
            self.known[s] = true;
            return;
        }
        self.fit[s] = match pool.at(self.now, s as u32) {
            Some(j) => fit_of(cap, pool.values(s as u32, j), dem),
            None => fit_of(cap, &[], dem),
        };
        self.known[s] = true;
    }

    /// The state at slot `t`; `tree`: also build the cheapest-server index.
    fn start(&mut self, pool: &Pool, dem: &ResourceVec, t: u32, tree: bool) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.cstamp.iter_mut().for_each(|x| *x = 0);
            self.kfit.iter_mut().for_each(|x| *x = (0, 0));
            self.fstamp.iter_mut().for_each(|x| *x = 0);
            self.stamp = 1;
        }
        self.now = t;
        self.k = 0;
        self.eager = false;
        self.peak = peak_of(dem, pool.resources_n());
        if pool.grid().is_some() {
            return; // each listing searches its slot's tree: no state to sweep
        }
        self.src.iter_mut().for_each(|x| *x = (NONE, 0));
        self.head.iter_mut().for_each(|x| *x = NONE);
        self.occ_len = 0;
        self.pending.iter_mut().for_each(|x| *x = false);
        self.pend.build(|_| None);
        self.dense = if pool.free_at(t).is_some() { t } else { NONE };
        if let Some(px) = pool.prices_at(t) {
            // the pool keeps slot t's prices densely: one sequential pass; every fit waits
            // for the listing (an idle server's fit over no usage is its fit over +0.0)
            let nr = pool.resources_n();
            for (s, p) in px.chunks_exact(nr.max(1)).take(self.n).enumerate() {
                self.unit[s] = unit_of(p, dem);
                self.known[s] = false;
            }
        } else {
            self.start_sparse(pool, dem, t);
        }
        if tree {
            let (unit, known, fit, masked) = (&self.unit, &self.known, &self.fit, &self.masked);
            self.cheap.build(|s| {
                let present = (!known[s] || fit[s] > 0) && !masked[s];
                present.then(|| unit[s])
            });
        }
    }

    /// The unit prices at slot `t` from each server's breakpoints (a binary search per server),
    /// when the pool does not keep that slot's prices.
    fn start_sparse(&mut self, pool: &Pool, dem: &ResourceVec, t: u32) {
        for s in 0..self.n {
            let ts = pool.times(s as u32);
            let j = ts.partition_point(|&x| x <= t);
            self.load(pool, s, j.checked_sub(1), dem);
        }
    }

    /// Moves the state on to slot `now + 1` from the pool's time-major copy, group by group
    /// ([`Pool::groups`]), in one sequential pass over the group summaries. The work follows
    /// the changed groups, not the changed servers: outside full slots a changed group is not
    /// read at all. Its change is queued (`occ`, a link per group, [`Self::push`]) and the
    /// group waits in `pend` under sum_r least^r dem^r, a lower bound of every changed server's
    /// unit price, until the listing reaches that bound or one of the group's servers, whose
    /// old key stays in `cheap` ([`Self::reveal`] reads the queue newest first). A group whose
    /// largest free room on some demanded resource is short of one instance has no server with
    /// room (room is monotone in each resource's free room): it is queued as such if pending
    /// (no bound: it adds no candidate), else its servers get fit 0 and leave the index
    /// without their entries being read. After a listing that found the slot full (`eager`),
    /// a group that is not pending is read entry by entry ([`Self::step_entries`], with the
    /// room test). Either way a server without room is never listed and a server is never
    /// passed over in the price order, so the lists are unchanged. A unit price is the same
    /// sum over the same prices as the server-major breakpoint's (an idle breakpoint's prices
    /// are its class's idle prices, and its fit over a usage of +0.0 is the idle fit).
    fn step(&mut self, pool: &Pool, dem: &ResourceVec, tree: bool) {
        let t = self.now + 1;
        self.now = t;
        self.k = 0;
        if pool.grid().is_some() {
            return;
        }
        let nr = pool.resources_n();
        let w = nr.max(1);
        let (srv, free, px) = pool.changes(t);
        let (gn, gfr, gpx, gpk) = pool.groups(t);
        let mut at = 0usize;
        let groups = gn
            .iter()
            .zip(gfr.chunks_exact(w))
            .zip(gpx.chunks_exact(w))
            .zip(gpk.chunks_exact(nr + 1));
        for (((&bits, top), least), peaks) in groups {
            let n = bits.count_ones() as usize; // one entry per server with a bit
            let (from, to) = (at, (at + n).min(srv.len()));
            at = to;
            let Some(&e) = srv.get(from) else {
                continue;
            };
            let g = (e & !IDLE) as usize / GROUP;
            let room = has_room(top, dem);
            let pending = self.pending.get(g).copied().unwrap_or(false);
            // a pending group's changes queue behind its older ones (read newest first); a
            // group read now must have its older changes read first
            let queue = tree && (pending || (room && !self.eager));
            if queue && self.push(g, t, from, bits, room) {
                if room {
                    self.defer(g, ordered(group_floor(least, peaks, dem, self.peak)));
                }
                continue;
            }
            if pending {
                self.reveal(pool, dem, g);
            }
            if !room {
                self.drop_entries(srv.get(from..to).unwrap_or(&[]), tree);
            } else {
                self.step_entries(pool, dem, tree, t, from..to, (srv, free, px));
            }
        }
    }

    /// Queues group `g`'s changed entries from `from` of slot `t`, one per server of `servers`
    /// (`room`: the group has room for one instance there) for [`Self::reveal`]; false when
    /// the queue is full.
    fn push(&mut self, g: usize, t: u32, from: usize, servers: u32, room: bool) -> bool {
        let Some(o) = self.occ.get_mut(self.occ_len) else {
            return false;
        };
        let Some(h) = self.head.get_mut(g) else {
            return false;
        };
        *o = Occ {
            t,
            from: from as u32,
            servers: servers as u16,
            room,
            prev: *h,
        };
        *h = self.occ_len as u32;
        self.occ_len += 1;
        if !self.pending[g] {
            // pending from here on, with no bound until a change with room comes
            self.pending[g] = true;
            self.bound[g] = ABSENT;
            self.changed[g] = 0;
        }
        self.changed[g] |= servers;
        true
    }

    /// The changed servers `entries` have no room: fit 0, out of the index (nothing to do for
    /// one out of it already: between listings, only servers known to have fit 0 are).
    fn drop_entries(&mut self, entries: &[u32], tree: bool) {
        for &e in entries {
            let si = (e & !IDLE) as usize;
            if tree && self.cheap.is_absent(si) {
                // out of the index already: between listings that means fit 0, known
                debug_assert!(si >= self.n || (self.known[si] && self.fit[si] == 0));
                continue;
            }
            if si < self.n {
                self.fit[si] = 0;
                self.known[si] = true;
                if tree {
                    self.cheap.set_ordered(si, ABSENT);
                }
            }
        }
    }

    /// Group `g`'s changed servers have keys of at least `floor` (ordered): the group waits
    /// in `pend` under the least such floor since it was last read.
    fn defer(&mut self, g: usize, floor: i64) {
        let b = self.bound[g].min(floor);
        self.bound[g] = b;
        self.pend.set_ordered(g, b);
    }

    /// Reads pending group `g`'s queued changes, newest first, each server's newest entry only
    /// (as [`Self::step_entries`] would have read it, or as [`Self::drop_entries`] for a slot
    /// where the group had no room), and puts its servers' keys in line in `cheap`.
    fn reveal(&mut self, pool: &Pool, dem: &ResourceVec, g: usize) {
        let nr = pool.resources_n();
        let mut seen = 0u32; // servers of the group read already (bit: server - g * GROUP)
        let mut at = core::mem::replace(&mut self.head[g], NONE);
        while let Some(&o) = self.occ.get(at as usize) {
            at = o.prev;
            if u32::from(o.servers) & !seen == 0 {
                continue; // each of its servers has a newer entry, read already
            }
            let (srv, free, px) = pool.changes(o.t);
            let from = o.from as usize;
            let to = from + o.servers.count_ones() as usize;
            for (i, &e) in (from..).zip(srv.get(from..to).unwrap_or(&[])) {
                let si = (e & !IDLE) as usize;
                let bit = 1u32 << (si % GROUP);
                if si >= self.n || seen & bit != 0 {
                    continue;
                }
                seen |= bit;
                let b = i * nr;
                let f = free.get(b..b + nr).unwrap_or(&[]);
                if !o.room {
                    self.fit[si] = 0;
                    self.known[si] = true;
                } else if e & IDLE != 0 {
                    self.load(pool, si, None, dem);
                } else if !self.eager || has_room(f, dem) {
                    self.unit[si] = unit_of(px.get(b..b + nr).unwrap_or(&[]), dem);
                    self.known[si] = false;
                    self.src[si] = (o.t, i as u32);
                } else {
                    self.fit[si] = 0;
                    self.known[si] = true;
                }
                self.refresh(si);
            }
            if seen & self.changed[g] == self.changed[g] {
                // every server with a queued change read: older changes are overridden
                break;
            }
        }
        self.pending[g] = false;
        self.bound[g] = ABSENT;
        self.pend.set_ordered(g, ABSENT);
    }

    /// [`Self::step`] on the entries `range` of slot `t`'s changes, one by one.
    fn step_entries(
        &mut self,
        pool: &Pool,
        dem: &ResourceVec,
        tree: bool,
        t: u32,
        range: core::ops::Range<usize>,
        (srv, free, px): (&[u32], &[f64], &[f64]),
    ) {
        let nr = pool.resources_n();
        let w = nr.max(1);
        let (from, to) = (range.start, range.end);
        let entries = srv
            .get(from..to)
            .unwrap_or(&[])
            .iter()
            .zip(free.get(from * w..to * w).unwrap_or(&[]).chunks_exact(w))
            .zip(px.get(from * w..to * w).unwrap_or(&[]).chunks_exact(w));
        for (i, ((&e, f), p)) in (from..).zip(entries) {
            let si = (e & !IDLE) as usize;
            if si >= self.n {
                continue;
            }
            if e & IDLE != 0 {
                // idle from here: the class's unit price and fit (its prices are eq. (22) at
                // zero usage, checked on restore)
                self.load(pool, si, None, dem);
                if tree {
                    self.refresh(si);
                }
            } else {
                // After a listing that ran out of servers or met more without room than with
                // (a full slot), room for one instance
                // is tested here, from the entry's free room (read in this same pass): a server
                // without leaves the index at once (fit 0), so the next listing does not walk
                // past it. Otherwise the listing stops early and would never reach most changed
                // servers: their fits wait for it. Either way a server without room is never listed.
                // A server with room waits for the listing to compute its fit.
                let key = if !self.eager || has_room(f, dem) {
                    let u = unit_of(p, dem);
                    self.unit[si] = u;
                    self.known[si] = false;
                    // where the fit's free room is, for `resolve`: this entry of slot t
                    self.src[si] = (t, i as u32);
                    Some(u)
                } else {
                    self.fit[si] = 0;
                    self.known[si] = true;
                    None
                };
                if tree {
                    // nothing is masked between listings
                    self.cheap.set(si, key);
                }
            }
        }
    }

    /// Lists the cheapest servers of the current slot with fit > 0 until their fits cover
    /// `count` (or none is left): `ls`, `cum`, `pre` as the full sorted walk would have them.
    /// A server whose fit turns out 0 leaves the index until its usage changes again.
    fn list(&mut self, pool: &Pool, dem: &ResourceVec, count: u64) {
        if let Some(grid) = pool.grid() {
            self.list_grid(pool, grid, dem, count);
            return;
        }
        self.k = 0;
        self.cum[0] = 0;
        self.pre[0] = 0.0;
        let mut zeros = 0usize; // servers met without room
        while self.cum[self.k] < count {
            self.cheap.settle();
            self.pend.settle();
            let (key, s) = self.cheap.top_pair();
            let (pk, g) = self.pend.top_pair();
            if pk != ABSENT && (pk, g as usize * GROUP) <= (key, s as usize) {
                // a pending group may hold a cheaper server: read it first
                self.reveal(pool, dem, g as usize);
                continue;
            }
            if key == ABSENT {
                break;
            }
            let si = s as usize;
            if self.pending.get(si / GROUP).copied().unwrap_or(false) {
                // its key may be stale: read its group first
                self.reveal(pool, dem, si / GROUP);
                continue;
            }
            if !self.known[si] {
                self.resolve(pool, si, dem);
                if self.fit[si] == 0 {
                    zeros += 1;
                    self.refresh(si);
                    continue;
                }
            }
            let k = self.k;
            self.ls[k] = s;
            self.cum[k + 1] = self.cum[k] + self.fit[si] as u64;
            self.pre[k + 1] = self.pre[k] + self.unit[si] * self.fit[si] as f64;
            self.k += 1;
            self.masked[si] = true;
            self.refresh(si);
        }
        self.eager = self.cum[self.k] < count || zeros > self.k;
        for i in 0..self.k {
            let s = self.ls[i] as usize;
            self.masked[s] = false;
            self.refresh(s);
        }
    }

    /// [`Self::list`] from the pool's slot tree at `now` ([`Grid`]): a best-first search from
    /// the root, by (key, first server) ([`Front`]). A node enters the frontier under its
    /// group floor ([`group_floor`] of its least prices and peaks, below every unit price
    /// under it), unless its largest free room on some demanded resource is short of one
    /// instance (then no server under it has room: room is monotone in each free room); a
    /// leaf that leaves it enters again under the least (unit price, index) of its servers
    /// whose room codes pass ([`Self::leaf_best`]); when it leaves under that key, it stands
    /// for those servers one at a time, in (unit price, index) order ([`LEAF_NEXT`]), each
    /// listed when it leaves if it has room. Every key is at most the (unit price, index) of
    /// every server with room under it, so the servers leave the frontier in the order (unit price, index) of those with room, which is the order the
    /// sweep's listing takes them in, and the list is the same; its cost follows the servers
    /// and nodes the search opens, not the changes between slots.
    fn list_grid(&mut self, pool: &Pool, grid: &Grid, dem: &ResourceVec, count: u64) {
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

    /// Appends server `s` with its fit and unit price to the list.
    fn list_one(&mut self, s: usize, fit: u32, unit: f64) {
        let k = self.k;
        self.fit[s] = fit;
        self.unit[s] = unit;
        self.ls[k] = s as u32;
        self.cum[k + 1] = self.cum[k] + fit as u64;
        self.pre[k + 1] = self.pre[k] + unit * fit as f64;
        self.k += 1;
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

    /// Appends the list to `buf` from `at`; returns the new end.
    fn save(&self, buf: &mut [(u32, u32, f64)], at: usize) -> Option<usize> {
        let out = buf.get_mut(at..at + self.k)?;
        for (i, o) in out.iter_mut().enumerate() {
            let s = self.ls[i];
            *o = (s, self.fit[s as usize], self.unit[s as usize]);
        }
        Some(at + self.k)
    }

    /// Makes a saved list the current one (same prefix sums, same order of additions).
    fn restore(&mut self, saved: &[(u32, u32, f64)]) {
        self.k = 0;
        self.cum[0] = 0;
        self.pre[0] = 0.0;
        for &(s, fit, unit) in saved {
            let (k, si) = (self.k, s as usize);
            self.ls[k] = s;
            self.fit[si] = fit;
            self.unit[si] = unit;
            self.cum[k + 1] = self.cum[k] + fit as u64;
            self.pre[k + 1] = self.pre[k] + unit * fit as f64;
            self.k += 1;
        }
    }

    /// Cost of the greedy fill of `count` instances (Alg. 2 lines 27-31 / 36-40), from the
    /// list (which must cover `count`).
    fn cost(&self, count: u64) -> f64 {
        if count == 0 {
            return 0.0;
        }
        let k = self.k;
        // smallest j with cum[j + 1] >= count
        let (mut lo, mut hi) = (0usize, k);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.cum[mid + 1] >= count {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if lo >= k {
            return f64::INFINITY;
        }
        let s = self.ls[lo] as usize;
        self.pre[lo] + self.unit[s] * (count - self.cum[lo]) as f64
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

/// Choices compared at once by [`best_choice`].
const LANES: usize = 4;

/// The DP cell x of one row as the literal scan computes it ([`best_choice_literal`]): over
/// the choices j = 0, 1, ... in order, the candidate c_j + f_prev[x - d_j] (0 for f_prev once
/// d_j >= x, which ends the scan) replaces the best so far when `less` than it; the scan stops
/// at the first j, once a best exists, whose c_j + `floor` is not `less` than it. Returns the
/// best and its choice (`usize::MAX`: none). `below`: the choices with d_j < x, a prefix.
///
/// Same result, fewer branches: the choices with d_j < x go by [`LANES`] at once. A group none
/// of whose candidates is below the best's bound ([`less_bound`]) changes nothing (the literal
/// scan would replace nothing there either), and the scan ends after it when any of its
/// choices meets the stop test (the literal scan stops at the first of them, having replaced
/// nothing since). Only a group holding a smaller candidate is replayed one by one, literally.
fn best_choice(
    pc: &[f64],
    pd: &[u64],
    fp: &[f64],
    x: usize,
    floor: f64,
    below: usize,
) -> (f64, usize) {
    let (mut best, mut bound, mut bj) = (f64::INFINITY, f64::INFINITY, usize::MAX);
    let mut j = 0usize;
    while j + LANES <= below {
        let (c, d) = (&pc[j..j + LANES], &pd[j..j + LANES]);
        let mut cand = [0.0f64; LANES];
        for l in 0..LANES {
            cand[l] = c[l] + fp[x - d[l] as usize];
        }
        let (mut hit, mut stop) = (false, false);
        for l in 0..LANES {
            hit |= cand[l] < bound;
            stop |= !under(c[l] + floor, bound);
        }
        if hit {
            for l in 0..LANES {
                if bj != usize::MAX && !under(c[l] + floor, bound) {
                    return (best, bj);
                }
                if cand[l] < bound {
                    best = cand[l];
                    bound = less_bound(best);
                    bj = j + l;
                }
            }
        } else if stop && bj != usize::MAX {
            return (best, bj);
        }
        j += LANES;
    }
    // the rest one by one: d_j < x reads f_prev, the first d_j >= x reads 0 and ends the scan
    while let (Some(&c), Some(&dj)) = (pc.get(j), pd.get(j)) {
        if bj != usize::MAX && !under(c + floor, bound) {
            break;
        }
        let prev = if j >= below { 0.0 } else { fp[x - dj as usize] };
        let cand = c + prev;
        if prev.is_finite() && cand < bound {
            best = cand;
            bound = less_bound(best);
            bj = j;
        }
        if j >= below {
            break;
        }
        j += 1;
    }
    (best, bj)
}

/// Wcap given at most `wmax` workers and `ps_total` parameter-server fits: the largest
/// w <= wmax whose ceil(w b / B) parameter servers fit and are <= w (6, 7). Both conditions
/// hold on a prefix of w (so bisect; w = 0 always qualifies) and only weaken as `wmax` and
/// `ps_total` grow, so bounds of the totals give bounds of Wcap.
fn wcap(job: &JobParams, wmax: u64, ps_total: u64) -> u64 {
    let ok = |w: u64| {
        let z = job.ps_for(w);
        z <= w && z <= ps_total
    };
    crate::num::last_true(0, u128::from(wmax), |w| ok(w as u64)) as u64
}

/// `a < bound`: with `bound` = [`less_bound`]`(b)`, exactly `less(a, b)` (a NaN is never under).
#[inline]
fn under(a: f64, bound: f64) -> bool {
    a < bound
}

/// The literal scan of [`best_choice`], for choices whose chunk counts do not rise.
fn best_choice_literal(pc: &[f64], pd: &[u64], fp: &[f64], x: usize, floor: f64) -> (f64, usize) {
    let x64 = x as u64;
    let (mut best, mut bj) = (f64::INFINITY, usize::MAX);
    for (j, (&c, &dj)) in pc.iter().zip(pd).enumerate() {
        if bj != usize::MAX && !less(c + floor, best) {
            break;
        }
        let prev = if dj >= x64 { 0.0 } else { fp[x - dj as usize] };
        if prev.is_finite() {
            let cand = c + prev;
            if less(cand, best) {
                best = cand;
                bj = j;
            }
        }
        if dj >= x64 {
            break;
        }
    }
    (best, bj)
}

/// One slot of the chosen schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct SlotAlloc {
    slot: u32,
    chunks: u64,
    workers: u32,
    ps: u32,
    cost: f64,
    w_from: u32,
    w_to: u32,
    p_from: u32,
    p_to: u32,
}

/// Scratch of the fast DP, sized once for a scenario.
#[derive(Clone, Debug)]
pub struct FastDp {
    slots: usize,
    wsw: Sweep,
    psw: Sweep,
    pt_w: Vec<u64>,
    pt_d: Vec<u64>,
    pt_c: Vec<f64>,
    f_prev: Vec<f64>,
    f_cur: Vec<f64>,
    choice: Vec<u32>,
    plan_w: Vec<u64>,
    plan_d: Vec<u64>,
    out: Vec<SlotAlloc>,
    out_len: usize,
    pairs_w: Vec<[u32; 2]>,
    pairs_p: Vec<[u32; 2]>,
    /// the listed servers of every DP row (server, fit, unit), for the reconstruction
    list_w: Vec<(u32, u32, f64)>,
    list_p: Vec<(u32, u32, f64)>,
    /// per DP row, where its lists start (and, at the next row, end)
    row_w: Vec<usize>,
    row_p: Vec<usize>,
    /// per slot x: a lower bound of the chunks the slots x..T can hold for the decision's job,
    /// from the census ([`Self::rest_covers`]), valid from `rest_from` up (`None`: not
    /// computed yet this decision)
    rest: Vec<u64>,
    rest_from: Option<u32>,
    /// DP cells written by the last decision (a work measure for benches and tests).
    pub cells: u64,
    /// Slots whose cheapest servers the last decision listed (a work measure: the
    /// scheduler lets only light decisions redo stale summaries, [`crate::oasis::Market`]).
    pub listed: u64,
}

/// What a fast decision needs to know of its scratch size.
#[derive(Clone, Copy, Debug, Default)]
pub struct DpSize {
    /// T.
    pub slots: usize,
    /// H.
    pub workers: usize,
    /// K.
    pub ps: usize,
    /// Largest N_i + 1 among jobs that need the DP.
    pub points: usize,
    /// Largest D_i + 1 among jobs that need the DP.
    pub row: usize,
    /// Largest reach_i (D_i + 1) among jobs that need the DP (reach_i: the rows the t_hat scan
    /// can reach, [`FastDp::reach`]).
    pub cells: usize,
    /// Largest (worker server, slot) pairs of one schedule: min(reach_i, D_i) min(N_i, H).
    pub pairs_w: usize,
    /// Largest (PS server, slot) pairs of one schedule: min(reach_i, D_i) min(Z_i, K).
    pub pairs_p: usize,
    /// Largest reach_i.
    pub rows: usize,
    /// Largest reach_i min(N_i, H): the listed worker servers of all rows.
    pub list_w: usize,
    /// Largest reach_i min(Z_i, K).
    pub list_p: usize,
}

impl DpSize {
    /// The larger of each field.
    pub fn max(self, o: DpSize) -> DpSize {
        DpSize {
            slots: self.slots.max(o.slots),
            workers: self.workers.max(o.workers),
            ps: self.ps.max(o.ps),
            points: self.points.max(o.points),
            row: self.row.max(o.row),
            cells: self.cells.max(o.cells),
            pairs_w: self.pairs_w.max(o.pairs_w),
            pairs_p: self.pairs_p.max(o.pairs_p),
            rows: self.rows.max(o.rows),
            list_w: self.list_w.max(o.list_w),
            list_p: self.list_p.max(o.list_p),
        }
    }
}

impl FastDp {
    /// Scratch for decisions of the given size (allocated here, never in a decision).
    pub fn new(size: DpSize) -> Self {
        let t = size.slots;
        FastDp {
            slots: t,
            wsw: Sweep::new(size.workers, size.slots),
            psw: Sweep::new(size.ps, size.slots),
            pt_w: vec![0; size.points],
            pt_d: vec![0; size.points],
            pt_c: vec![0.0; size.points],
            f_prev: vec![f64::INFINITY; size.row],
            f_cur: vec![f64::INFINITY; size.row],
            choice: vec![NONE; size.cells],
            plan_w: vec![0; t],
            plan_d: vec![0; t],
            out: vec![SlotAlloc::default(); t],
            out_len: 0,
            pairs_w: vec![[0, 0]; size.pairs_w],
            pairs_p: vec![[0, 0]; size.pairs_p],
            list_w: vec![(0, 0, 0.0); size.list_w],
            list_p: vec![(0, 0, 0.0); size.list_p],
            row_w: vec![0; size.rows + 1],
            row_p: vec![0; size.rows + 1],
            rest: vec![0; t + 1],
            rest_from: None,
            cells: 0,
            listed: 0,
        }
    }

    /// A lower bound on the cost of any schedule of `job`: at least D m_i worker-slots (less
    /// the rounding slack), each at least the idle unit price sum_r L w_i^r (every price of eq.
    /// (22) is >= L; the factor 1 - 1e-9 absorbs the rounding of the log-domain form), likewise
    /// ceil(y b / B) parameter servers; the factor 0.999 keeps it strict against float noise.
    /// It is below the old bound (the cheapest unit price with room in the window), so the t_hat
    /// scan it stops may only go further; no slot it adds can pay more (see `docs/oasis.md`).
    pub fn floor_bound(m: &Market, job: &JobParams) -> f64 {
        let t = m.slots() as f64;
        let w = (job.workload as f64 * job.chunk_time - t * 1e-9).max(0.0);
        let z = (w * job.worker_bw / job.ps_bw - t * 1e-9).max(0.0);
        let b = m.bounds();
        let floor = |l: f64, dem: &ResourceVec| {
            let mut acc = 0.0;
            for &d in dem.as_slice() {
                acc += l * d;
            }
            acc * (1.0 - 1e-9)
        };
        let (cw, cp) = (
            floor(b.l_worker, &job.worker_demand),
            floor(b.l_ps, &job.ps_demand),
        );
        let lw = if w > 0.0 { 0.999 * w * cw } else { 0.0 };
        let lp = if z > 0.0 { 0.999 * z * cp } else { 0.0 };
        lw + lp
    }

    /// The rows (slots from a_i) the t_hat scan can reach: the first k with
    /// f_i(k) - floor_bound <= 0 (the scan stops there whatever payoff it has), at most T - a_i.
    /// f_i is non-increasing, so bisect.
    pub fn reach(m: &Market, job: &JobParams, f: &Utility) -> u32 {
        let window = m.slots().saturating_sub(job.arrival);
        let lb = Self::floor_bound(m, job);
        let stops = |k: u32| !greater(f.at(k) - lb, 0.0);
        let (mut lo, mut hi) = (0u32, window);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if stops(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// Does `job` need the DP at all, and how big is it? `None` when even the full capacity of
    /// an empty cluster cannot cover D_i before T (the job is rejected without a DP).
    pub fn size_of(m: &Market, job: &JobParams, f: &Utility) -> Option<DpSize> {
        let window = m.slots().checked_sub(job.arrival)? as u64;
        let per_slot = job.chunks_for(job.max_workers as u64);
        if per_slot.saturating_mul(window) < job.workload {
            return None;
        }
        let row = usize::try_from(job.workload).ok()?.checked_add(1)?;
        let reach = Self::reach(m, job, f) as usize;
        let cells = row.checked_mul(reach)?;
        let used = reach.min(usize::try_from(job.workload).unwrap_or(usize::MAX));
        let nw = (job.max_workers as usize).min(m.workers.servers() as usize);
        let z = usize::try_from(job.ps_for(job.max_workers as u64)).unwrap_or(usize::MAX);
        let nz = z.min(m.ps.servers() as usize);
        Some(DpSize {
            slots: m.slots() as usize,
            workers: m.workers.servers() as usize,
            ps: m.ps.servers() as usize,
            points: job.max_workers as usize + 1,
            row,
            cells,
            pairs_w: used.saturating_mul(nw),
            pairs_p: used.saturating_mul(nz),
            rows: reach,
            list_w: reach.saturating_mul(nw),
            list_p: reach.saturating_mul(nz),
        })
    }

    /// Lists the cheapest servers of the current slot (workers until N_i, parameter servers
    /// until ceil(N_i b_i / B_i), or all) and returns Wcap and its chunks. The listed fits stand
    /// in for the pools' totals: min(N_i, total) and the PS checks below come out the same.
    fn capacity_now(&mut self, m: &Market, job: &JobParams) -> (u64, u64) {
        self.listed += 1;
        let n = job.max_workers as u64;
        self.wsw.list(&m.workers, &job.worker_demand, n);
        self.psw.list(&m.ps, &job.ps_demand, job.ps_for(n));
        let lo = wcap(
            job,
            n.min(self.wsw.cum[self.wsw.k]),
            self.psw.cum[self.psw.k],
        );
        (lo, job.chunks_for(lo))
    }

    /// A lower bound of Dcap(t) ([`Self::capacity_now`]) from the pools' census of slot `t`
    /// ([`Sweep::census_fit`]): [`wcap`] over lower bounds of both pools' total fits is at
    /// most Wcap(t), so its chunks are at most Dcap(t). `None` without a census.
    fn census_dcap(&mut self, m: &Market, job: &JobParams, t: u32) -> Option<u64> {
        let n = job.max_workers as u64;
        let w = self.wsw.census_fit(&m.workers, &job.worker_demand, t, n)?;
        if w == 0 {
            return Some(0);
        }
        let ps_total = self
            .psw
            .census_fit(&m.ps, &job.ps_demand, t, job.ps_for(n))?;
        Some(job.chunks_for(wcap(job, n.min(w), ps_total)))
    }

    /// Do the slots after `t` surely hold `need` more chunks? From their census
    /// ([`Self::census_dcap`]): the suffix sums are computed once a decision, from T - 1 down
    /// (stopping as soon as they reach `need`), and later calls (larger `t`) read them. False
    /// without a census.
    fn rest_covers(&mut self, m: &Market, job: &JobParams, t: u32, need: u64) -> bool {
        let from = t + 1;
        let known = match self.rest_from {
            Some(k) => k,
            None => {
                let mut acc = 0u64;
                let mut x = m.slots();
                while x > from {
                    x -= 1;
                    let Some(d) = self.census_dcap(m, job, x) else {
                        // no census: no suffix is known this decision
                        self.rest_from = Some(m.slots());
                        return false;
                    };
                    acc = acc.saturating_add(d);
                    if acc >= need {
                        return true;
                    }
                    if let Some(r) = self.rest.get_mut(x as usize) {
                        *r = acc;
                    }
                }
                self.rest_from = Some(from);
                from
            }
        };
        from >= known
            && from < m.slots()
            && self.rest.get(from as usize).is_some_and(|&r| r >= need)
    }

    /// COST_t(t, w) for w workers of the listed slot.
    fn slot_cost(&self, job: &JobParams, w: u64) -> f64 {
        self.wsw.cost(w) + self.psw.cost(job.ps_for(w))
    }

    /// The choices of the listed slot: for each distinct chunk count, the fewest workers and
    /// their cost.
    fn points(&mut self, job: &JobParams, cap: u64) -> usize {
        let mut np = 0usize;
        let mut last_d = u64::MAX;
        let mut w = 0u64;
        while w <= cap && np < self.pt_w.len() {
            let d = job.chunks_for(w);
            if d != last_d {
                let c = self.slot_cost(job, w);
                self.pt_w[np] = w;
                self.pt_d[np] = d;
                self.pt_c[np] = c;
                np += 1;
                last_d = d;
                if d >= job.workload {
                    break;
                }
            }
            // jump to the fewest workers covering one more chunk
            let next = job.workers_for(d + 1).max(w + 1);
            w = next;
        }
        np
    }

    fn start(&mut self, m: &Market, job: &JobParams, t: u32, tree: bool) {
        self.wsw.start(&m.workers, &job.worker_demand, t, tree);
        self.psw.start(&m.ps, &job.ps_demand, t, tree);
    }

    fn step(&mut self, m: &Market, job: &JobParams, tree: bool) {
        self.wsw.step(&m.workers, &job.worker_demand, tree);
        self.psw.step(&m.ps, &job.ps_demand, tree);
    }

    /// Alg. 2 for `job` (index `idx`) against the prices of `m`; the schedule stays in the
    /// scratch until the next call ([`Self::schedule`]). Allocates nothing.
    pub fn decide(
        &mut self,
        m: &Market,
        idx: u32,
        job: &JobParams,
        f: &Utility,
    ) -> Result<Decision, OasisError> {
        self.out_len = 0;
        self.cells = 0;
        self.listed = 0;
        self.rest_from = None;
        let a = job.arrival;
        let t_end = m.slots();
        let d_all = job.workload;
        let mut dec = Decision {
            job: idx,
            arrival: a,
            admitted: false,
            reason: Reason::NoFeasibleSchedule,
            completion_slot: None,
            utility: 0.0,
            cost: 0.0,
            payoff: 0.0,
        };
        if !m.settled() {
            return Err(OasisError::Unsettled);
        }
        let Some(size) = FastDp::size_of(m, job, f) else {
            return Ok(dec);
        };
        let row = size.row;
        if row > self.f_prev.len()
            || size.cells > self.choice.len()
            || t_end as usize > self.slots
            || size.points > self.pt_w.len()
            || size.pairs_w > self.pairs_w.len()
            || size.pairs_p > self.pairs_p.len()
            || size.list_w > self.list_w.len()
            || size.list_p > self.list_p.len()
            || size.rows >= self.row_w.len()
            || size.workers != self.wsw.n
            || size.ps != self.psw.n
        {
            return Err(OasisError::Capacity(crate::CapacityError {
                limit: crate::Limit::OasisDpCells,
                max: self.choice.len() as u64,
                got: size.cells as u64,
                job: None,
            }));
        }
        let reach = size.cells / row.max(1);
        let lb = Self::floor_bound(m, job);
        let per_slot = job.chunks_for(job.max_workers as u64);
        for x in self
            .f_prev
            .iter_mut()
            .take(row)
            .chain(self.f_cur.iter_mut().take(row))
        {
            *x = f64::INFINITY;
        }
        self.f_prev[0] = 0.0;
        self.f_cur[0] = 0.0;
        self.start(m, job, a, true);
        self.row_w[0] = 0;
        self.row_p[0] = 0;
        let mut hi_prev = 0u64;
        let mut covered = 0u64; // sum of Dcap over the slots swept so far
                                // Alg. 2 line 3: mu_i = 0, l* = none; a t_hat replaces it only with a larger payoff.
        let mut best = 0.0f64;
        let mut best_t = None;
        let mut best_cost = 0.0;
        let mut t = a;
        // the scan stops at or before slot `stop` (the break test below holds there)
        let mut stop = t_end.min(a.saturating_add(reach as u32));
        while t < t_end {
            if t > a {
                self.step(m, job, true);
            }
            let util = f.at(t - a);
            if (t - a) as usize >= reach || !greater(util - lb, best) {
                break; // no later t_hat can pay more: f_i only falls and cost >= lb
            }
            // Completing at t_hat >= t needs the D_i - covered chunks left in t..=t_hat, at most
            // N_i workers' chunks a slot: no t_hat before `e` is feasible, and none from `e`
            // on pays more than f_i(e - a_i) - lb. So if that cannot beat the best, stop.
            let left = d_all.saturating_sub(covered);
            if left > 0 {
                let e = u64::from(t) + left.div_ceil(per_slot.max(1)) - 1;
                if e >= u64::from(t_end) || !greater(f.at(e as u32 - a) - lb, best) {
                    break;
                }
            }
            // best only rises, so a slot where the break test holds now stops the scan there
            // or earlier: move `stop` down while the test holds at the slot before it
            while stop - 1 > t && !greater(f.at(stop - 1 - a) - lb, best) {
                stop -= 1;
            }
            let (wcap, dcap) = self.capacity_now(m, job);
            covered = covered.saturating_add(dcap);
            let r = (t - a) as usize;
            let ew = self.wsw.save(&mut self.list_w, self.row_w[r]);
            let ep = self.psw.save(&mut self.list_p, self.row_p[r]);
            let (Some(ew), Some(ep)) = (ew, ep) else {
                return Err(OasisError::Internal);
            };
            self.row_w[r + 1] = ew;
            self.row_p[r + 1] = ep;
            let np = self.points(job, wcap);
            // An upper bound of the chunks the slots after t that the scan can still reach
            // (t + 1..stop) can cover: the cut `lo` is at or below the exact one and moves by
            // at least Dcap(t) per row (`stop` never rises), so every cell a row reads was
            // computed by the row before, and every cell the reconstruction reads is computed.
            let future = per_slot.saturating_mul((stop - 1 - t) as u64);
            let lo = d_all.saturating_sub(future);
            let hi = d_all.min(hi_prev.saturating_add(dcap));
            let base = (t - a) as usize * row;
            self.row(np, lo, hi, dcap, base);
            core::mem::swap(&mut self.f_prev, &mut self.f_cur);
            hi_prev = hi;
            let cost = self.f_prev[d_all as usize];
            if hi == d_all && cost.is_finite() {
                let payoff = util - cost;
                if greater(payoff, best) {
                    best = payoff;
                    best_t = Some(t);
                    best_cost = cost;
                    dec.utility = util;
                }
            }
            t += 1;
        }
        let Some(tb) = best_t else {
            // Rejected: infeasible iff the whole window's capacity stays below D_i. Sweep on
            // (totals only) from the first slot not yet counted.
            if covered < d_all && t < t_end {
                // the state is at slot t (stepped before the break), not yet counted
                loop {
                    let (_, dcap) = self.capacity_now(m, job);
                    covered = covered.saturating_add(dcap);
                    if covered >= d_all || t + 1 >= t_end {
                        break;
                    }
                    let rest = (t_end - 1 - t) as u64; // slots after t
                    if covered.saturating_add(per_slot.saturating_mul(rest)) < d_all {
                        break; // even N_i workers in every later slot fall short
                    }
                    if self.rest_covers(m, job, t, d_all - covered) {
                        // the later slots' census alone proves they hold the rest
                        covered = d_all;
                        break;
                    }
                    if !m.workers.changes_after(t) && !m.ps.changes_after(t) {
                        // no usage changes after t: every later slot offers Dcap(t)
                        covered = covered.saturating_add(dcap.saturating_mul(rest));
                        break;
                    }
                    self.step(m, job, true);
                    t += 1;
                }
            }
            dec.reason = if covered >= d_all {
                Reason::NonPositivePayoff
            } else {
                Reason::NoFeasibleSchedule
            };
            return Ok(dec);
        };
        dec.completion_slot = Some(tb);
        dec.cost = best_cost;
        dec.payoff = best;
        dec.admitted = true;
        dec.reason = Reason::Admitted;
        self.reconstruct(job, a, tb, row)?;
        Ok(dec)
    }

    /// One DP row: f_cur[x] = min_j c_j + f_prev[x - d_j] for x in lo..=hi (first strictly
    /// smaller wins, j in increasing workers).
    fn row(&mut self, np: usize, lo: u64, hi: u64, dcap: u64, base: usize) {
        let (pw, pd, pc) = (&self.pt_w[..np], &self.pt_d[..np], &self.pt_c[..np]);
        let fp = &self.f_prev;
        // the choices' chunk counts rise strictly (`points`), so those below x are a prefix
        // of them; checked, else every cell takes the literal scan
        let rising = pd.windows(2).all(|w| w[0] < w[1]);
        let mut below = 0usize; // choices with d_j < x
        for x in lo..=hi {
            let xi = x as usize;
            // f_prev is non-decreasing in x, so no choice can beat c_j + f_prev[x - dcap].
            let floor = if x > dcap {
                fp[xi - dcap as usize]
            } else {
                0.0
            };
            let (best, bw) = if rising {
                while below < np && pd[below] < x {
                    below += 1;
                }
                best_choice(pc, pd, fp, xi, floor, below)
            } else {
                best_choice_literal(pc, pd, fp, xi, floor)
            };
            self.f_cur[xi] = best;
            if let Some(ch) = self.choice.get_mut(base + xi) {
                *ch = pw.get(bw).map_or(NONE, |&w| w as u32);
            }
        }
        self.cells += (hi + 1).saturating_sub(lo);
    }

    fn reconstruct(
        &mut self,
        job: &JobParams,
        a: u32,
        tb: u32,
        row: usize,
    ) -> Result<(), OasisError> {
        let mut x = job.workload;
        for t in (a..=tb).rev() {
            let (w, d) = if x == 0 {
                (0, 0)
            } else {
                let ch = self
                    .choice
                    .get((t - a) as usize * row + x as usize)
                    .copied()
                    .unwrap_or(NONE);
                if ch == NONE {
                    return Err(OasisError::Internal);
                }
                let d = job.chunks_for(ch as u64).min(x);
                (ch as u64, d)
            };
            self.plan_w[t as usize] = w;
            self.plan_d[t as usize] = d;
            x -= d;
        }
        if x != 0 {
            return Err(OasisError::Internal);
        }
        let (mut nw, mut np) = (0usize, 0usize);
        for t in a..=tb {
            let w = self.plan_w[t as usize];
            if w == 0 {
                continue;
            }
            let z = job.ps_for(w);
            // the lists the DP row of t was priced with (they cover Wcap(t) >= w workers)
            let r = (t - a) as usize;
            let lw = self.list_w.get(self.row_w[r]..self.row_w[r + 1]);
            let lp = self.list_p.get(self.row_p[r]..self.row_p[r + 1]);
            let (Some(lw), Some(lp)) = (lw, lp) else {
                return Err(OasisError::Internal);
            };
            self.wsw.restore(lw);
            self.psw.restore(lp);
            let mut s = SlotAlloc {
                slot: t,
                chunks: self.plan_d[t as usize],
                workers: w as u32,
                ps: z as u32,
                cost: self.slot_cost(job, w),
                w_from: nw as u32,
                p_from: np as u32,
                ..SlotAlloc::default()
            };
            nw = Self::fill(&self.wsw, w, &mut self.pairs_w, nw)?;
            np = Self::fill(&self.psw, z, &mut self.pairs_p, np)?;
            s.w_to = nw as u32;
            s.p_to = np as u32;
            *self.out.get_mut(self.out_len).ok_or(OasisError::Internal)? = s;
            self.out_len += 1;
        }
        Ok(())
    }

    /// The greedy fill of `count` instances over the listed servers (Alg. 2 lines 27-31 /
    /// 36-40) as `[server, count]` pairs by server index, appended at `at`.
    fn fill(
        sw: &Sweep,
        count: u64,
        pairs: &mut [[u32; 2]],
        at: usize,
    ) -> Result<usize, OasisError> {
        let mut left = count;
        let mut n = at;
        for i in 0..sw.k {
            if left == 0 {
                break;
            }
            let s = sw.ls[i];
            let take = (sw.fit[s as usize] as u64).min(left);
            if take > 0 {
                *pairs.get_mut(n).ok_or(OasisError::Internal)? = [s, take as u32];
                n += 1;
            }
            left -= take;
        }
        if left != 0 {
            return Err(OasisError::Internal);
        }
        pairs
            .get_mut(at..n)
            .ok_or(OasisError::Internal)?
            .sort_unstable_by_key(|p| p[0]);
        Ok(n)
    }

    /// The schedule of the last decision (empty when none was feasible).
    pub fn schedule(&self) -> Schedule<'_> {
        Schedule {
            slots: &self.out[..self.out_len],
            pairs_w: &self.pairs_w,
            pairs_p: &self.pairs_p,
        }
    }
}

/// A borrowed view of a schedule l: per used slot, y_ih(t) and z_ik(t) (Alg. 2 output).
#[derive(Clone, Copy, Debug)]
pub struct Schedule<'a> {
    slots: &'a [SlotAlloc],
    pairs_w: &'a [[u32; 2]],
    pairs_p: &'a [[u32; 2]],
}

/// One slot t of a schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlotPlacement<'a> {
    /// t.
    pub slot: u32,
    /// D_i(t): chunks trained in t.
    pub chunks: u64,
    /// sum_h y_ih(t).
    pub workers: u32,
    /// sum_k z_ik(t).
    pub ps: u32,
    /// COST_t of this slot at decision time.
    pub cost: f64,
    /// `[h, y_ih(t)]` with y > 0, by server index.
    pub worker_pairs: &'a [[u32; 2]],
    /// `[k, z_ik(t)]` with z > 0, by server index.
    pub ps_pairs: &'a [[u32; 2]],
}

impl<'a> Schedule<'a> {
    /// Number of slots with workers.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when the schedule is empty.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The slots with workers, in time order.
    pub fn iter(&self) -> impl Iterator<Item = SlotPlacement<'a>> + 'a {
        let (pw, pp) = (self.pairs_w, self.pairs_p);
        self.slots.iter().map(move |s| SlotPlacement {
            slot: s.slot,
            chunks: s.chunks,
            workers: s.workers,
            ps: s.ps,
            cost: s.cost,
            worker_pairs: pw.get(s.w_from as usize..s.w_to as usize).unwrap_or(&[]),
            ps_pairs: pp.get(s.p_from as usize..s.p_to as usize).unwrap_or(&[]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::oasis::{OasisJob, OasisScenario, PriceBounds};
    use crate::oasis::scheduler::{commit, commit_owed};

    fn rv(v: &[f64]) -> ResourceVec {
        ResourceVec::from_slice(v).unwrap()
    }

    /// The queue of unread group changes is an optimisation only: a sweep whose queue is full
    /// (every group read at once) decides and places every job the same.
    #[test]
    fn a_full_change_queue_gives_the_same_decisions() {
        let mut x = 99u64;
        let mut draw = |n: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        let (slots, nw, np) = (30u32, 300usize, 90usize);
        let cap = |i: u64| rv(&[8.0 + (i % 3) as f64 * 4.0, 16.0 + (i % 2) as f64 * 8.0]);
        let mut jobs = Vec::new();
        for i in 0..200u32 {
            jobs.push(OasisJob {
                arrival: i * slots / 200,
                epochs: 1 + draw(3) as u32,
                chunks: 2 + draw(30) as u32,
                minibatches_per_chunk: 1 + draw(3) as u32,
                minibatch_time: 0.2 + draw(5) as f64 * 0.1,
                comm_time: 0.01,
                worker_bw: 1.0,
                ps_bw: 1.0 + draw(3) as f64,
                worker_demand: rv(&[1.0 + draw(3) as f64, draw(4) as f64]),
                ps_demand: rv(&[1.0, 1.0 + draw(2) as f64]),
                utility: Utility::Sigmoid {
                    priority: 50.0 + draw(200) as f64,
                    decay: 0.02 * draw(4) as f64,
                    target: 1.0 + draw(8) as f64,
                },
            });
        }
        let scn = OasisScenario {
            slots,
            resources: 2,
            worker_servers: (0..nw as u64).map(cap).collect(),
            ps_servers: (0..np as u64).map(cap).collect(),
            prices: None,
            jobs: jobs.clone(),
            throughput: None,
        };
        let bounds = PriceBounds {
            u_worker: rv(&[16.0, 16.0]),
            u_ps: rv(&[16.0, 16.0]),
            l_worker: 0.5,
            l_ps: 0.5,
        };
        let mut m = Market::new(&scn, bounds).unwrap();
        m.drop_grids(); // the queue belongs to the sweep of the time-major copy
                        // in the first third of each pool, whole groups of servers turn busy and idle from
                        // slot to slot: their changes queue up while the listing takes idle servers, and a
                        // group turning busy leaves its servers' idle keys in the index
        let p0 = JobParams::of(&OasisJob {
            worker_demand: rv(&[1.0, 1.0]),
            ps_demand: rv(&[1.0, 1.0]),
            ..jobs[0].clone()
        });
        m.reserve(nw * slots as usize, np * slots as usize);
        for t in 0..slots {
            let mut busy = false;
            for s in 0..nw as u32 / 3 {
                if s as usize % GROUP == 0 {
                    busy = draw(2) == 0;
                }
                if busy {
                    m.add_workers_raw(t, s, &p0, 1 + draw(3) as u32);
                }
            }
            for s in 0..np as u32 / 3 {
                m.add_ps_raw(t, s, &p0, 1 + draw(3) as u32);
            }
        }
        m.merge();
        let size = jobs
            .iter()
            .filter_map(|j| FastDp::size_of(&m, &JobParams::of(j), &j.utility))
            .fold(DpSize::default(), DpSize::max);
        let mut full = FastDp::new(size);
        let mut short = [0usize, 1, 5].map(|k| {
            let mut dp = FastDp::new(size);
            dp.wsw.occ.truncate(k);
            dp.psw.occ.truncate(k);
            dp
        });
        let mut admitted = 0;
        for (i, j) in jobs.iter().enumerate() {
            let p = JobParams::of(j);
            m.advance(p.arrival);
            let want = full.decide(&m, i as u32, &p, &j.utility).unwrap();
            for dp in &mut short {
                let got = dp.decide(&m, i as u32, &p, &j.utility).unwrap();
                assert_eq!(got, want, "job {i}");
                assert!(dp.schedule().iter().eq(full.schedule().iter()), "job {i}");
            }
            if want.admitted {
                admitted += 1;
                m.reserve(nw * slots as usize, np * slots as usize);
                m.reserve_window(&p, p.arrival, slots - p.arrival);
                commit(&mut m, &p, &full.schedule());
            }
        }
        assert!(admitted > 10, "{admitted} admitted");
    }

    /// The slot trees ([`Grid`]) are an optimisation only: a market without them (decisions
    /// sweep the time-major copy) decides and places every job the same, on pools of mixed
    /// capacities (one without a resource: its own idle stream) with idle and busy servers.
    #[test]
    fn slot_trees_give_the_same_decisions() {
        let mut x = 7u64;
        let mut draw = |n: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        let (slots, nw, np) = (24u32, 700usize, 150usize);
        let cap = |i: u64| {
            rv(&[
                [0.0, 2.0, 4.0, 8.0][(i % 4) as usize],
                16.0 + (i % 3) as f64 * 8.0,
                32.0 + (i % 5) as f64 * 16.0,
            ])
        };
        let mut jobs = Vec::new();
        for i in 0..260u32 {
            jobs.push(OasisJob {
                arrival: i * slots / 260,
                epochs: 1 + draw(3) as u32,
                chunks: 2 + draw(40) as u32,
                minibatches_per_chunk: 1 + draw(3) as u32,
                minibatch_time: 0.2 + draw(5) as f64 * 0.1,
                comm_time: 0.01,
                worker_bw: 1.0,
                ps_bw: 1.0 + draw(3) as f64,
                worker_demand: rv(&[draw(3) as f64, 1.0 + draw(6) as f64, draw(9) as f64]),
                // every seventh job's parameter servers demand nothing: every server has room
                ps_demand: if i % 7 == 3 {
                    rv(&[0.0, 0.0, 0.0])
                } else {
                    rv(&[0.0, 1.0 + draw(4) as f64, 2.0 + draw(5) as f64])
                },
                utility: Utility::Sigmoid {
                    priority: 50.0 + draw(400) as f64,
                    decay: 0.02 * draw(4) as f64,
                    target: 1.0 + draw(8) as f64,
                },
            });
        }
        let scn = OasisScenario {
            slots,
            resources: 3,
            worker_servers: (0..nw as u64).map(cap).collect(),
            ps_servers: (0..np as u64).map(|i| cap(i + 1)).collect(),
            prices: None,
            jobs: jobs.clone(),
            throughput: None,
        };
        let bounds = PriceBounds {
            u_worker: rv(&[64.0, 16.0, 8.0]),
            u_ps: rv(&[64.0, 16.0, 8.0]),
            l_worker: 0.25,
            l_ps: 0.25,
        };
        let mut a = Market::new(&scn, bounds).unwrap();
        assert!(a.has_grids());
        let mut b = a.clone();
        b.drop_grids();
        let size = jobs
            .iter()
            .filter_map(|j| FastDp::size_of(&a, &JobParams::of(j), &j.utility))
            .fold(DpSize::default(), DpSize::max);
        let (mut da, mut db) = (FastDp::new(size), FastDp::new(size));
        let mut admitted = 0;
        for (i, j) in jobs.iter().enumerate() {
            let p = JobParams::of(j);
            a.advance(p.arrival);
            b.advance(p.arrival);
            if !a.settled() {
                // a listing refuses trees that owe a commit's cells; settled, they decide
                // as if synced at the commit
                let e = da.decide(&a, i as u32, &p, &j.utility);
                assert_eq!(e, Err(OasisError::Unsettled), "job {i}");
                a.settle();
                assert!(a.settled());
            }
            let got = da.decide(&a, i as u32, &p, &j.utility).unwrap();
            let want = db.decide(&b, i as u32, &p, &j.utility).unwrap();
            assert_eq!(got, want, "job {i}");
            assert!(da.schedule().iter().eq(db.schedule().iter()), "job {i}");
            if want.admitted {
                admitted += 1;
                for (k, m) in [&mut a, &mut b].into_iter().enumerate() {
                    m.reserve(nw * slots as usize, np * slots as usize);
                    m.reserve_window(&p, p.arrival, slots - p.arrival);
                    if k == 0 && admitted % 2 == 0 {
                        // every other admission leaves the trees' sync owed, as the
                        // scheduler does
                        commit_owed(m, &p, &db.schedule());
                        assert!(!m.settled());
                    } else {
                        commit(m, &p, &db.schedule());
                    }
                }
            }
        }
        assert!(admitted > 30, "{admitted} admitted");
    }
}
