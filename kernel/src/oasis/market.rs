//! The priced cluster of OASiS: usage g_h^r(t) / v_k^r(t), prices p_h^r(t) / q_k^r(t) (eq. 22)
//! and the per-job constants the subroutines need.
use super::census::Census;
use super::grid::{Grid, RoomLevels};
use super::OasisError;
use crate::error::Limit;
use crate::limits::{self, PS_SERVERS_MAX, RESOURCES_MAX, SERVERS_MAX, SLOTS_MAX};
use crate::model::oasis::{OasisJob, OasisScenario, PriceBounds};
use crate::num::{ceil_eps, floor_eps, floor_fit};
use crate::price::oasis_price;
use crate::resources::ResourceVec;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Usage and prices of one pool (the H worker servers or the K parameter-server servers),
/// stored sparsely: per server, the usage g^r(t) (or v^r(t)) is piecewise constant in t and kept
/// as sorted breakpoints (slot, g^1..g^R, p^1..p^R); before the first breakpoint a server is idle
/// (g = 0, p = the idle price of eq. 22). Memory follows the number of usage changes, never
/// T x H. Each breakpoint caches the eq. (22) price of its usage, so a price is bit-identical to
/// a dense grid's. All breakpoints of a pool live in one arena (per server a block; a full block
/// moves to the arena's end at twice its size), so that [`Pool::reserve`] can guarantee that a
/// commit of a bounded number of cells allocates nothing. Derived from the breakpoints, for the
/// decisions: either the slot trees ([`Grid`], when they fit) or the time-major copy of the
/// changes ([`SlotChanges`]), and the census.
#[derive(Clone, Debug)]
pub struct Pool {
    slots: u32,
    servers: u32,
    resources: u32,
    /// c^r per server, server-major.
    capacity: Vec<f64>,
    /// eq. (22) at zero usage per server and resource (derived from the above).
    idle: Vec<f64>,
    /// U^r of eq. (22).
    upper: ResourceVec,
    /// L of eq. (22).
    lower: f64,
    /// Breakpoint slots, per server a block `off[s]..off[s] + cap[s]` (first `len[s]` used).
    bt: Vec<u32>,
    /// Breakpoint values, `2R` per breakpoint (usage then price), same blocks as `bt`.
    bv: Vec<f64>,
    off: Vec<usize>,
    len: Vec<u32>,
    cap: Vec<u32>,
    /// Sum of `len`.
    live: usize,
    /// Per server, the first server with a bit-identical capacity vector (derived): idle
    /// servers of one class have the same unit price and fit for any demand.
    class: Vec<u32>,
    /// The time-major copy of the breakpoints' prices (derived; see [`SlotChanges`]).
    changes: SlotChanges,
    /// Bookings recorded since the last merge, applied server by server at the merge
    /// ([`Self::apply_bookings`]): a server's block stays in cache across its bookings.
    books: Vec<Booking>,
    /// Recent eq. (22) prices by (usage bits, capacity bits, resource), direct-mapped
    /// ([`Self::price_of`]; derived, never compared or saved).
    prices: Vec<((u64, u64, u32), f64)>,
    /// Servers per slot, kind and free share of capacity (derived; kept by [`Self::rebuild`],
    /// counted again on restore).
    census: Census,
    /// Every server's values in force at every slot and their summary trees (derived; kept
    /// by each merge, rebuilt on restore; `None` beyond [`super::grid::GRID_VALUES_MAX`] or
    /// when dropped by [`Market::drop_grids`]).
    grid: Option<Grid>,
    /// The slot trees' joint room test (derived from the jobs at the build).
    room: RoomLevels,
}

/// log2 of the entries of [`Pool::price_of`]'s cache.
const PRICE_CACHE_BITS: u32 = 10;

/// One recorded [`Pool::add`]: `count` x `dem` on server `s` in slot `t`, the `seq`-th of
/// the batch (a server's bookings apply in that order).
#[derive(Clone, Copy, Debug)]
struct Booking {
    s: u32,
    t: u32,
    seq: u32,
    count: u32,
    dem: ResourceVec,
}

/// Set on an entry of the time-major copy whose breakpoint has no usage (every g^r +0.0): the
/// server is idle from that slot on, with its class's idle prices and fit. Server indices stay
/// below it (`SERVERS_MAX`).
pub(crate) const IDLE: u32 = 1 << 31;
// both pools' indices stay below the flag (PS_SERVERS_MAX <= SERVERS_MAX, `limits`)
const _: () = assert!(SERVERS_MAX < IDLE as usize);

/// Servers per group of the time-major copy's summaries ([`Pool::groups`]): a group whose
/// entries of a slot have, on some resource, less free room than a job needs on all of them is
/// skipped by the sweep as a whole.
pub(crate) const GROUP: usize = 16;
// the slot trees find a server's node at each level by shifts ([`Pool::sync_grid`])
const _: () = assert!(GROUP.is_power_of_two());

/// [`IDLE`] if a breakpoint's values (usage then prices) have usage +0.0 everywhere.
fn idle_flag(values: &[f64], nr: usize) -> u32 {
    let idle = values.iter().take(nr).all(|g| g.to_bits() == 0);
    if idle {
        IDLE
    } else {
        0
    }
}

/// A time-major copy of a pool's breakpoints, kept for the sweep of [`super::fast`]: per slot t,
/// the servers that have a breakpoint at t (by index) and its R prices, contiguous. Moving the
/// sweep one slot on then reads one slot's changes sequentially instead of chasing each changed
/// server's next breakpoint through the server-major arena (the cache misses that made most of
/// a large decision's time, `docs/oasis.md` "Measured"). Only prices are copied: the unit price
/// sum_r p^r dem^r is all the sweep needs per change; a fit is computed from the server-major
/// usage only for the few servers the listing reaches. Kept in step by each commit's merge
/// ([`Pool::sync`]); rebuilt on restore.
#[derive(Clone, Debug, Default)]
struct SlotChanges {
    /// per slot: servers with a breakpoint there, increasing, each with [`IDLE`] set when
    /// that breakpoint's usage is +0.0 everywhere
    srv: Vec<Vec<u32>>,
    /// per slot: per entry of `srv`, same order, its breakpoint's free room c^r - g^r (R
    /// values), for the sweep's room tests and fits (no capacity lookup)
    fr: Vec<Vec<f64>>,
    /// per slot: per entry of `srv`, same order, its breakpoint's R prices, for the sweep's
    /// unit prices (apart from `fr`, so each pass reads only the half it needs)
    px: Vec<Vec<f64>>,
    /// per slot: the groups of [`GROUP`] servers (by index: server / GROUP) with an entry
    /// there, increasing
    gid: Vec<Vec<u32>>,
    /// per slot: per group of `gid`, its servers with an entry there (bit i: server
    /// group x [`GROUP`] + i; its entries, as many as bits, follow each other in `srv`)
    gsrv: Vec<Vec<u32>>,
    /// per slot: per group of `gid`, the largest free room per resource over its entries (R
    /// values): a job without room on one resource's largest has room on none of them
    gfr: Vec<Vec<f64>>,
    /// per slot: per group of `gid`, the least price per resource over its entries (R
    /// values): sum_r least^r dem^r is a lower bound of every entry's unit price
    gpx: Vec<Vec<f64>>,
    /// per slot: per group of `gid`, its least peak prices (R + 1 values, [`PEAKS`]): first
    /// min over its entries of max_r p^r, then for each resource r0 the same over the other
    /// resources (min max_{r != r0} p^r). A unit price sum_r p^r dem^r is at least its largest
    /// term, so (least peak over the demanded resources) x (least demand) bounds it from
    /// below too -- far closer than sum_r least^r dem^r when the entries' high prices sit on
    /// different resources (eq. (22) prices span many orders of magnitude).
    gpk: Vec<Vec<f64>>,
    /// the last slot with a change (`None`: no breakpoint anywhere)
    last: Option<u32>,
    /// (slot, server, entry) cells a commit touched, synced at its merge (reserved with the
    /// arena): entry is [`NO_ENTRY`] when the server has no breakpoint at that slot after the
    /// commit, else the index of its record in `tvals`, with [`IDLE`] set as for the copy
    touched: Vec<(u32, u32, u32)>,
    /// the touched cells' new entries, 2R values each (free rooms then prices), as the
    /// commit wrote them
    tvals: Vec<f64>,
    /// with the slot trees: `touched` and `tvals` hold a commit whose cells the trees do
    /// not have yet ([`Pool::merge_books`] leaves them to [`Pool::settle`])
    owed: bool,
    /// with the slot trees, the last slot after a booked one where a commit wrote a
    /// breakpoint (such cells keep their values in force, so they are not touched)
    after: Option<u32>,
    /// the slot whose prices `now_px` holds (`None`: not kept yet)
    now: Option<u32>,
    /// per server, the R prices in force at slot `now` (server-major, dense)
    now_px: Vec<f64>,
    /// per server, the R free rooms c^r - g^r in force at slot `now` (server-major, dense)
    now_fr: Vec<f64>,
}

impl SlotChanges {
    fn new(slots: u32, cells: usize) -> Self {
        SlotChanges {
            srv: vec![Vec::new(); slots as usize],
            fr: vec![Vec::new(); slots as usize],
            px: vec![Vec::new(); slots as usize],
            gid: vec![Vec::new(); slots as usize],
            gsrv: vec![Vec::new(); slots as usize],
            gfr: vec![Vec::new(); slots as usize],
            gpx: vec![Vec::new(); slots as usize],
            gpk: vec![Vec::new(); slots as usize],
            last: None,
            touched: Vec::new(),
            tvals: Vec::new(),
            owed: false,
            after: None,
            now: None,
            now_px: vec![0.0; cells],
            now_fr: vec![0.0; cells],
        }
    }

    /// Recomputes `last` from `from` down (`from`: at or above the last non-empty slot).
    fn settle_last(&mut self, from: Option<u32>) {
        let mut t = from;
        while let Some(x) = t {
            if self.srv.get(x as usize).is_some_and(|v| !v.is_empty()) {
                break;
            }
            t = x.checked_sub(1);
        }
        self.last = t;
    }
}

impl Pool {
    fn new(
        slots: u32,
        caps: &[ResourceVec],
        r: usize,
        upper: ResourceVec,
        lower: f64,
        demands: &[&[f64]],
    ) -> Result<Self, OasisError> {
        let mut capacity = Vec::with_capacity(caps.len() * r);
        for c in caps {
            if c.len() != r {
                return Err(OasisError::Shape);
            }
            capacity.extend_from_slice(c.as_slice());
        }
        let n = caps.len();
        let mut p = Pool {
            slots,
            servers: n as u32,
            resources: r as u32,
            capacity,
            idle: Vec::new(),
            upper,
            lower,
            bt: Vec::new(),
            bv: Vec::new(),
            off: vec![0; n],
            len: vec![0; n],
            cap: vec![0; n],
            live: 0,
            class: Vec::new(),
            changes: SlotChanges::new(slots, n * r),
            books: Vec::new(),
            prices: vec![((u64::MAX, u64::MAX, u32::MAX), 0.0); 1 << PRICE_CACHE_BITS],
            census: Census::default(),
            grid: None,
            room: RoomLevels::default(),
        };
        p.idle = p.idle_prices();
        p.class = p.classes();
        p.census = Census::new(&p.capacity, r, slots);
        p.room = RoomLevels::of(demands.iter().copied(), &p.capacity, r);
        p.grid = Grid::idle(slots, n, r, &p.capacity, &p.idle, &p.room);
        Ok(p)
    }

    fn classes(&self) -> Vec<u32> {
        let r = self.resources as usize;
        let key = |s: usize| -> &[f64] { self.capacity.get(s * r..s * r + r).unwrap_or(&[]) };
        let mut first: alloc::collections::BTreeMap<Vec<u64>, u32> = Default::default();
        (0..self.servers as usize)
            .map(|s| {
                let k: Vec<u64> = key(s).iter().map(|c| c.to_bits()).collect();
                *first.entry(k).or_insert(s as u32)
            })
            .collect()
    }

    /// The class of server `s` (the first server with its capacity vector).
    pub(crate) fn class_of(&self, s: usize) -> usize {
        self.class.get(s).copied().unwrap_or(s as u32) as usize
    }

    fn idle_prices(&self) -> Vec<f64> {
        let r = self.resources as usize;
        // An idle cell prices at L; a zero-capacity cell is full and prices at U.
        (0..self.capacity.len())
            .map(|i| {
                oasis_price(
                    self.lower,
                    self.upper.get(i % r.max(1)),
                    0.0,
                    self.capacity[i],
                )
            })
            .collect()
    }

    /// The slot trees ([`Grid`]), when the pool keeps them.
    pub(crate) fn grid(&self) -> Option<&Grid> {
        self.grid.as_ref()
    }

    /// Builds the slot trees from the breakpoints (after a restore), within
    /// [`super::grid::GRID_VALUES_MAX`].
    fn rebuild_grid(&mut self) {
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
    fn sync_grid(&mut self) {
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

    /// Servers per slot, kind and free share of capacity ([`Census`]).
    pub(crate) fn census(&self) -> &Census {
        &self.census
    }

    /// Server `s`'s [`Census`] level at usage `g` (R values): its free rooms c^r - g^r, the
    /// subtraction the time-major copy makes.
    fn level(&self, s: u32, g: &[f64]) -> usize {
        let nr = self.resources as usize;
        let b = s as usize * nr;
        let cap = self.capacity.get(b..b + nr).unwrap_or(&[]);
        Census::level(cap, |r| cap[r] - g.get(r).copied().unwrap_or(0.0))
    }

    /// Number of servers.
    pub fn servers(&self) -> u32 {
        self.servers
    }

    /// R.
    pub(crate) fn resources_n(&self) -> usize {
        self.resources as usize
    }

    /// `n` capacities from flat position `b`.
    pub(crate) fn capacities(&self, b: usize, n: usize) -> &[f64] {
        self.capacity.get(b..b + n).unwrap_or(&[])
    }

    /// Breakpoints stored (the memory measure of the sparse store).
    pub fn breakpoints(&self) -> usize {
        self.live
    }

    fn stride(&self) -> usize {
        2 * self.resources as usize
    }

    /// Slots of server `s`'s breakpoints, in increasing order.
    pub(crate) fn times(&self, s: u32) -> &[u32] {
        let s = s as usize;
        match (self.off.get(s), self.len.get(s)) {
            (Some(&o), Some(&l)) => self.bt.get(o..o + l as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Usage then price (R each) of breakpoint `j` of server `s`.
    pub(crate) fn values(&self, s: u32, j: usize) -> &[f64] {
        let st = self.stride();
        let b = (self.off.get(s as usize).copied().unwrap_or(0) + j) * st;
        self.bv.get(b..b + st).unwrap_or(&[])
    }

    /// Idle prices (R) of server `s`.
    pub(crate) fn idle(&self, s: u32) -> &[f64] {
        let r = self.resources as usize;
        let b = s as usize * r;
        self.idle.get(b..b + r).unwrap_or(&[])
    }

    /// The servers with a breakpoint at slot `t` (increasing, each with [`IDLE`] set when the
    /// breakpoint has no usage), their free rooms c^r - g^r and their prices (R values each),
    /// from the time-major copy.
    pub(crate) fn changes(&self, t: u32) -> (&[u32], &[f64], &[f64]) {
        let c = &self.changes;
        let t = t as usize;
        match (c.srv.get(t), c.fr.get(t), c.px.get(t)) {
            (Some(s), Some(f), Some(p)) => (s, f, p),
            _ => (&[], &[], &[]),
        }
    }

    /// The groups of slot `t`'s entries in the time-major copy ([`GROUP`] servers by index
    /// each, only those with an entry, in order): per group its servers with an entry (bit i:
    /// server group x [`GROUP`] + i; their entries follow each other in [`Self::changes`]) and
    /// its largest free room per resource (R
    /// values), its least price per resource (R values) and its least peak prices (R + 1
    /// values, [`PEAKS`]).
    pub(crate) fn groups(&self, t: u32) -> GroupSummaries<'_> {
        let c = &self.changes;
        let t = t as usize;
        match (c.gsrv.get(t), c.gfr.get(t), c.gpx.get(t), c.gpk.get(t)) {
            (Some(n), Some(f), Some(p), Some(k)) => (n, f, p, k),
            _ => (&[], &[], &[], &[]),
        }
    }

    /// Every server's R prices in force at slot `t` (server-major), if the pool keeps that
    /// slot's prices ([`Self::advance`]).
    pub(crate) fn prices_at(&self, t: u32) -> Option<&[f64]> {
        (self.changes.now == Some(t)).then_some(&self.changes.now_px[..])
    }

    /// Every server's R free rooms c^r - g^r in force at slot `t` (server-major), if the pool
    /// keeps that slot ([`Self::advance`]): the same subtraction as the time-major copy's, so
    /// a fit from it is bit-identical.
    pub(crate) fn free_at(&self, t: u32) -> Option<&[f64]> {
        (self.changes.now == Some(t)).then_some(&self.changes.now_fr[..])
    }

    /// Keeps every server's prices at slot `t` in a dense array, for the start of a decision
    /// arriving at `t`: from the last such slot on by the time-major copy's changes (arrivals
    /// come in time order, so a whole run reads each change once), or from scratch. Never
    /// allocates after the first call.
    pub(crate) fn advance(&mut self, t: u32) {
        if self.grid.is_some() {
            return; // decisions list from the slot trees: nothing to keep
        }
        let nr = self.resources as usize;
        let n = self.servers as usize;
        if self.changes.now_px.len() != n * nr || self.changes.now_fr.len() != n * nr {
            self.changes.now_px = vec![0.0; n * nr];
            self.changes.now_fr = vec![0.0; n * nr];
            self.changes.now = None;
        }
        match self.changes.now {
            Some(c) if c <= t => {
                for slot in c + 1..=t.min(self.slots.saturating_sub(1)) {
                    let c = &mut self.changes;
                    let t = slot as usize;
                    let (Some(srv), Some(px), Some(fr)) = (c.srv.get(t), c.px.get(t), c.fr.get(t))
                    else {
                        continue;
                    };
                    let w = nr.max(1);
                    for ((&e, v), f) in srv.iter().zip(px.chunks_exact(w)).zip(fr.chunks_exact(w)) {
                        let b = (e & !IDLE) as usize * nr;
                        c.now_px[b..b + nr].copy_from_slice(v);
                        c.now_fr[b..b + nr].copy_from_slice(f);
                    }
                }
            }
            _ => {
                for s in 0..self.servers {
                    self.now_refresh(t, s);
                }
            }
        }
        self.changes.now = Some(t);
    }

    /// Sets server `s`'s prices and free rooms at slot `t` in `now_px` / `now_fr` from its
    /// breakpoints (an idle server's free room is c^r - 0.0, as its entries hold it).
    fn now_refresh(&mut self, t: u32, s: u32) {
        let nr = self.resources as usize;
        let mut vals = [0.0f64; 2 * RESOURCES_MAX];
        let n = nr.min(RESOURCES_MAX);
        match self.at(t, s) {
            Some(j) => self.entry_of(s, j, &mut vals[..2 * n]),
            None => {
                let cap = self.capacities(s as usize * nr, nr);
                for (r, v) in vals[..n].iter_mut().enumerate() {
                    *v = cap.get(r).copied().unwrap_or(0.0) - 0.0;
                }
                let idle = self.idle(s);
                for (r, v) in vals[n..2 * n].iter_mut().enumerate() {
                    *v = idle.get(r).copied().unwrap_or(0.0);
                }
            }
        }
        let b = s as usize * nr;
        let c = &mut self.changes;
        if let (Some(fr), Some(px)) = (c.now_fr.get_mut(b..b + n), c.now_px.get_mut(b..b + n)) {
            fr.copy_from_slice(&vals[..n]);
            px.copy_from_slice(&vals[n..2 * n]);
        }
    }

    /// Does any server have a breakpoint after slot `t`?
    pub(crate) fn changes_after(&self, t: u32) -> bool {
        self.changes.last.is_some_and(|l| l > t)
    }

    /// The breakpoint in force at slot `t` on server `s` (`None`: idle).
    pub(crate) fn at(&self, t: u32, s: u32) -> Option<usize> {
        let j = self.times(s).partition_point(|&x| x <= t);
        j.checked_sub(1)
    }

    /// Capacity c^r of server `s` (0 outside the pool).
    pub fn capacity(&self, s: u32, r: usize) -> f64 {
        let i = s as usize * self.resources as usize + r;
        self.capacity.get(i).copied().unwrap_or(0.0)
    }

    fn inside(&self, t: u32, s: u32, r: usize) -> bool {
        t < self.slots && s < self.servers && r < self.resources as usize
    }

    /// Usage g^r(t) of server `s` (0 outside the pool).
    pub fn usage(&self, t: u32, s: u32, r: usize) -> f64 {
        if !self.inside(t, s, r) {
            return 0.0;
        }
        match self.at(t, s) {
            Some(j) => self.values(s, j).get(r).copied().unwrap_or(0.0),
            None => 0.0,
        }
    }

    /// Price p^r(t) of server `s` (eq. 22; `U` outside the pool).
    pub fn price(&self, t: u32, s: u32, r: usize) -> f64 {
        if !self.inside(t, s, r) {
            return self.upper.get(r);
        }
        let nr = self.resources as usize;
        match self.at(t, s) {
            Some(j) => self.values(s, j).get(nr + r).copied().unwrap_or(0.0),
            None => self.idle(s).get(r).copied().unwrap_or(0.0),
        }
    }

    /// sum_r p^r(t) dem^r in index order: the unit price of one worker (PS) on `s` in `t`.
    pub fn unit_price(&self, t: u32, s: u32, dem: &ResourceVec) -> f64 {
        if !self.inside(t, s, 0) {
            return 0.0;
        }
        let nr = self.resources as usize;
        match self.at(t, s) {
            Some(j) => unit_of(self.values(s, j).get(nr..).unwrap_or(&[]), dem),
            None => unit_of(self.idle(s), dem),
        }
    }

    /// floor(min_r (c^r - g^r(t)) / dem^r) over resources with dem^r > 0 (constraints 30/31);
    /// `u32::MAX` when nothing binds.
    pub fn fit(&self, t: u32, s: u32, dem: &ResourceVec) -> u32 {
        if !self.inside(t, s, 0) {
            return 0;
        }
        let nr = self.resources as usize;
        let cb = s as usize * nr;
        let cap = self.capacity.get(cb..cb + nr).unwrap_or(&[]);
        match self.at(t, s) {
            Some(j) => fit_of(cap, self.values(s, j), dem),
            None => fit_of(cap, &[], dem),
        }
    }

    /// Makes room for `cells` more single-cell additions ([`Self::add`]) without allocating:
    /// each may split two breakpoints, and each touched server's block may move to the arena's
    /// end at twice its size. Compacts the arena first when most of it is garbage.
    pub(crate) fn reserve(&mut self, cells: usize) {
        let used: usize = self.cap.iter().map(|&c| c as usize).sum();
        if self.bt.len() > 2 * used + 4096 {
            self.compact();
        }
        let need = 4usize
            .saturating_mul(self.live)
            .saturating_add(12usize.saturating_mul(cells))
            .saturating_add(64);
        let st = self.stride();
        if self.bt.capacity() - self.bt.len() < need {
            self.bt.reserve(need);
        }
        if self.bv.capacity() - self.bv.len() < need.saturating_mul(st) {
            self.bv.reserve(need.saturating_mul(st));
        }
        if self.books.capacity() - self.books.len() < cells {
            self.books.reserve(cells);
        }
        let touched = &mut self.changes.touched;
        let want = 2usize.saturating_mul(cells);
        if touched.capacity() - touched.len() < want {
            touched.reserve(want);
        }
        let tvals = &mut self.changes.tvals;
        let want = want.saturating_mul(st);
        if tvals.capacity() - tvals.len() < want {
            tvals.reserve(want);
        }
    }

    /// Makes room in the time-major copy of slots `from..to` for a commit that books at most
    /// `per_slot` servers per slot: each may add an entry at its slot and at the next one.
    pub(crate) fn reserve_slots(&mut self, from: u32, to: u32, per_slot: usize) {
        if self.grid.is_some() {
            return; // no time-major copy kept
        }
        let need = 2usize.saturating_mul(per_slot).min(self.servers as usize);
        let nr = self.resources as usize;
        let c = &mut self.changes;
        let to = (to as usize).min(c.srv.len());
        for t in (from as usize).min(to)..to {
            let srv = &mut c.srv[t];
            if srv.capacity() - srv.len() < need {
                srv.reserve(need);
            }
            for v in [&mut c.fr[t], &mut c.px[t], &mut c.gfr[t], &mut c.gpx[t]] {
                if v.capacity() - v.len() < need * nr {
                    v.reserve(need * nr);
                }
            }
            let gpk = &mut c.gpk[t];
            if gpk.capacity() - gpk.len() < need * (nr + 1) {
                gpk.reserve(need * (nr + 1));
            }
            // each new entry adds at most one group
            for v in [&mut c.gid[t], &mut c.gsrv[t]] {
                if v.capacity() - v.len() < need {
                    v.reserve(need);
                }
            }
        }
    }

    /// Brings the summary of group `g` at slot `t` in line with the entries: present iff the
    /// group has an entry there, with their count and largest free room per resource. Never
    /// allocates within [`Self::reserve_slots`]. `hint`: positions in the slot's entries and
    /// groups at or before group `g`'s (searched by galloping from there), moved on to the
    /// next group's for a caller that goes through a slot's groups in increasing order.
    fn regroup(&mut self, t: u32, g: u32, hint: &mut (usize, usize)) {
        let nr = self.resources as usize;
        let c = &mut self.changes;
        let t = t as usize;
        let (Some(srv), Some(fr), Some(px), Some(gid), Some(gsrv), Some(gfr), Some(gpx), Some(gpk)) = (
            c.srv.get(t),
            c.fr.get(t),
            c.px.get(t),
            c.gid.get_mut(t),
            c.gsrv.get_mut(t),
            c.gfr.get_mut(t),
            c.gpx.get_mut(t),
            c.gpk.get_mut(t),
        ) else {
            return;
        };
        let first = g as usize * GROUP;
        let lo = gallop(srv, hint.0.min(srv.len()), |&e| {
            ((e & !IDLE) as usize) < first
        });
        let hi = gallop(srv, lo, |&e| ((e & !IDLE) as usize) < first + GROUP);
        let nv = nr.min(RESOURCES_MAX);
        let mut top = [f64::NEG_INFINITY; RESOURCES_MAX];
        let mut least = [f64::INFINITY; RESOURCES_MAX];
        for v in fr
            .get(lo * nr..hi * nr)
            .unwrap_or(&[])
            .chunks_exact(nr.max(1))
        {
            for (m, &x) in top.iter_mut().zip(v) {
                // usage is finite (checked on restore); a NaN room, which `max` skips, would
                // have no room for any demand anyway
                *m = m.max(x);
            }
        }
        let mut peaks = [f64::INFINITY; PEAKS];
        for v in px
            .get(lo * nr..hi * nr)
            .unwrap_or(&[])
            .chunks_exact(nr.max(1))
        {
            for (m, &x) in least.iter_mut().zip(v) {
                // prices are finite and >= L > 0: `min` and `max` are exact
                *m = m.min(x);
            }
            entry_peaks(v, &mut peaks);
        }
        let n = (hi - lo) as u32;
        // which of the group's servers have an entry (one each: a slot's servers are distinct)
        let mut bits = 0u32;
        for &e in srv.get(lo..hi).unwrap_or(&[]) {
            bits |= 1 << ((e & !IDLE) as usize % GROUP);
        }
        debug_assert_eq!(bits.count_ones(), n);
        let at = gallop(gid, hint.1.min(gid.len()), |&x| x < g);
        let p = if gid.get(at) == Some(&g) {
            Ok(at)
        } else {
            Err(at)
        };
        // the next group's entries and summary come after these
        *hint = (hi, at);
        match (n > 0, p) {
            (true, Ok(p)) => gsrv[p] = bits,
            (true, Err(p)) => {
                gid.insert(p, g);
                gsrv.insert(p, bits);
            }
            (false, Ok(p)) => {
                gid.remove(p);
                gsrv.remove(p);
            }
            (false, Err(_)) => {}
        }
        let np = nv + 1;
        for (v, new, w) in [
            (gfr, &top[..nv], nr),
            (gpx, &least[..nv], nr),
            (gpk, &peaks[..np], nr + 1),
        ] {
            match (n > 0, p) {
                (true, Ok(p)) => v[p * w..(p + 1) * w].copy_from_slice(new),
                (true, Err(p)) => {
                    let end = v.len();
                    v.extend_from_slice(new);
                    v.copy_within(p * w..end, (p + 1) * w);
                    v[p * w..(p + 1) * w].copy_from_slice(new);
                }
                (false, Ok(p)) => {
                    v.copy_within((p + 1) * w.., p * w);
                    v.truncate(v.len() - w);
                }
                (false, Err(_)) => {}
            }
        }
    }

    /// Brings slot `t` of the time-major copy in line with the breakpoints at the cells
    /// `touched[cells]` (all of slot `t`, servers increasing and distinct): an entry iff the
    /// server has a breakpoint at `t`, with the values the commit noted. Two passes over the
    /// slot's entries (removals and overwrites forward, then insertions from the back) instead
    /// of a shift per cell, each touched cell found by galloping from the last. Never
    /// allocates within [`Self::reserve_slots`].
    fn sync_slot(&mut self, t: u32, cells: core::ops::Range<usize>) {
        let nr = self.resources as usize;
        let st = 2 * nr.min(RESOURCES_MAX);
        let ti = t as usize;
        if ti >= self.changes.srv.len() || st == 0 {
            return;
        }
        let c = &mut self.changes;
        let (Some(srv), Some(fr), Some(px)) =
            (c.srv.get_mut(ti), c.fr.get_mut(ti), c.px.get_mut(ti))
        else {
            return;
        };
        let cells = c.touched.get(cells).unwrap_or(&[]);
        let tvals = &c.tvals;
        let mut vals = [0.0f64; 2 * RESOURCES_MAX];
        let nv = st / 2;
        // the entry the commit noted for a touched cell (`None`: no breakpoint there)
        let noted = |c: &(u32, u32, u32), vals: &mut [f64; 2 * RESOURCES_MAX]| {
            let k = (c.2 != NO_ENTRY).then(|| ((c.2 & !IDLE) as usize).checked_mul(st))??;
            vals[..st].copy_from_slice(tvals.get(k..k.checked_add(st)?)?);
            Some(c.1 | (c.2 & IDLE))
        };
        let server = |e: u32| e & !IDLE;
        let put =
            |srv: &mut Vec<u32>, fr: &mut Vec<f64>, px: &mut Vec<f64>, w: usize, e, v: &[f64]| {
                srv[w] = e;
                fr[w * nr..(w + 1) * nr].copy_from_slice(&v[..nv]);
                px[w * nr..(w + 1) * nr].copy_from_slice(&v[nv..st]);
            };
        let mv =
            |srv: &mut Vec<u32>, fr: &mut Vec<f64>, px: &mut Vec<f64>, r: usize, w: usize, n| {
                srv.copy_within(r..r + n, w);
                fr.copy_within(r * nr..(r + n) * nr, w * nr);
                px.copy_within(r * nr..(r + n) * nr, w * nr);
            };
        // forward: keep untouched entries (a run at a time, found by bisection, moved only
        // after a removal), overwrite or drop touched ones, count insertions
        let n0 = srv.len();
        let (mut r, mut w, mut ins) = (0usize, 0usize, 0usize);
        for c in cells {
            let ts = c.1;
            let p = gallop(srv, r, |&e| server(e) < ts);
            if r != w {
                mv(srv, fr, px, r, w, p - r);
            }
            w += p - r;
            r = p;
            if srv.get(r).is_some_and(|&e| server(e) == ts) {
                if let Some(e) = noted(c, &mut vals) {
                    put(srv, fr, px, w, e, &vals);
                    w += 1;
                }
                r += 1;
            } else {
                ins += usize::from(c.2 != NO_ENTRY);
            }
        }
        if r != w {
            mv(srv, fr, px, r, w, n0 - r);
        }
        w += n0 - r;
        srv.truncate(w);
        fr.truncate(w * nr);
        px.truncate(w * nr);
        if ins > 0 {
            // backward: open the gaps (a run at a time) and fill them
            let n = w + ins;
            srv.resize(n, 0);
            fr.resize(n * nr, 0.0);
            px.resize(n * nr, 0.0);
            let (mut r, mut w) = (n - ins, n);
            for c in cells.iter().rev() {
                let ts = c.1;
                let p = gallop_back(srv.get(..r).unwrap_or(&[]), |&e| server(e) <= ts);
                w -= r - p;
                mv(srv, fr, px, p, w, r - p);
                r = p;
                if r > 0 && server(srv[r - 1]) == ts {
                    continue; // present: done forward
                }
                if let Some(e) = noted(c, &mut vals) {
                    w -= 1;
                    put(srv, fr, px, w, e, &vals);
                }
            }
        }
    }

    /// The time-major copy's entry of breakpoint `j` of server `s` into `out` (2R values): the
    /// free room c^r - g^r per resource (the same subtraction [`fit_of`] makes, so a fit from
    /// it is bit-identical and needs no capacity), then the R prices.
    fn entry_of(&self, s: u32, j: usize, out: &mut [f64]) {
        let nr = self.resources as usize;
        let v = self.values(s, j);
        let cap = self.capacities(s as usize * nr, nr);
        for (r, o) in out.iter_mut().enumerate() {
            *o = match (r < nr, cap.get(r), v.get(r)) {
                (true, Some(&c), Some(&g)) => c - g,
                _ => v.get(r).copied().unwrap_or(0.0),
            };
        }
    }

    /// Rebuilds the time-major copy from the breakpoints (after a restore).
    fn rebuild_changes(&mut self) {
        let nr = self.resources as usize;
        let mut c = SlotChanges::new(self.slots, self.servers as usize * nr);
        for s in 0..self.servers {
            for (j, &t) in self.times(s).iter().enumerate() {
                let t = t as usize;
                if let (Some(srv), Some(fr), Some(px)) =
                    (c.srv.get_mut(t), c.fr.get_mut(t), c.px.get_mut(t))
                {
                    let mut vals = [0.0f64; 2 * RESOURCES_MAX];
                    let st = 2 * nr.min(RESOURCES_MAX);
                    self.entry_of(s, j, &mut vals[..st]);
                    srv.push(s | idle_flag(self.values(s, j), nr));
                    fr.extend_from_slice(&vals[..st / 2]);
                    px.extend_from_slice(&vals[st / 2..st]);
                }
            }
        }
        c.settle_last(self.slots.checked_sub(1));
        self.changes = c;
        self.census.clear();
        for s in 0..self.servers {
            for j in 0..self.times(s).len() {
                let level = self.level(s, self.values(s, j).get(..nr).unwrap_or(&[]));
                let ts = self.times(s);
                let (from, to) = (ts[j], ts.get(j + 1).copied().unwrap_or(self.slots));
                for t in from..to {
                    self.census.shift(t, s, 0, level);
                }
            }
        }
        for t in 0..self.slots {
            let srv = self.changes.srv.get(t as usize).map_or(&[][..], |v| &v[..]);
            let mut groups: Vec<u32> = srv.iter().map(|&e| (e & !IDLE) / GROUP as u32).collect();
            groups.dedup();
            let mut hint = (0, 0);
            for g in groups {
                self.regroup(t, g, &mut hint);
            }
        }
    }

    /// Rewrites the arena with every block exactly its length.
    fn compact(&mut self) {
        let st = self.stride();
        let mut bt = Vec::with_capacity(self.live);
        let mut bv = Vec::with_capacity(self.live * st);
        for s in 0..self.servers as usize {
            let (o, l) = (self.off[s], self.len[s] as usize);
            self.off[s] = bt.len();
            self.cap[s] = l as u32;
            bt.extend_from_slice(&self.bt[o..o + l]);
            bv.extend_from_slice(&self.bv[o * st..(o + l) * st]);
        }
        self.bt = bt;
        self.bv = bv;
    }

    /// Records `count` x `dem` on server `s` in slot `t`, applied by [`Self::merge_dirty`].
    fn add(&mut self, t: u32, s: u32, dem: &ResourceVec, count: u32) {
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
    fn apply_bookings(&mut self) {
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

    /// Where a block of `l` breakpoints over the horizon likely has its first at or after
    /// slot `t`: t x l / T, exact for a block dense in every slot.
    fn guess(&self, t: u32, l: usize) -> usize {
        (u64::from(t) * l as u64 / u64::from(self.slots.max(1))) as usize
    }

    /// Reads server `s`'s breakpoint at about slot `t` (where [`Self::rebuild`] starts
    /// looking) and returns some of its bits.
    fn touch(&self, s: u32, t: u32) -> u64 {
        let si = s as usize;
        let (Some(&o), Some(&l)) = (self.off.get(si), self.len.get(si)) else {
            return 0;
        };
        let l = l as usize;
        let k = o + self.guess(t, l).min(l.saturating_sub(1));
        let x = self.bt.get(k).map_or(0, |&x| u64::from(x));
        // the breakpoint before the first booked slot is the one read first
        let st = self.stride();
        let v = self.bv.get(k * st).map_or(0, |v| v.to_bits());
        let w = self
            .bv
            .get(k.max(o + 1) * st - st)
            .map_or(0, |v| v.to_bits());
        x ^ v ^ w
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

    /// Appends the old breakpoints `js` of the block at `o` to the arena's end.
    fn copy_old(&mut self, o: usize, js: core::ops::Range<usize>) {
        let st = self.stride();
        if js.is_empty() {
            return;
        }
        self.bt.extend_from_within(o + js.start..o + js.end);
        self.bv
            .extend_from_within((o + js.start) * st..(o + js.end) * st);
    }

    /// Appends a breakpoint (`x`, `vals`) to the arena's end unless it repeats `last` bit
    /// for bit; it is then the last written. Returns whether it was written.
    fn write_new(&mut self, x: u32, vals: &[f64], last: &mut [f64; 2 * RESOURCES_MAX]) -> bool {
        let st = vals.len();
        let new = vals
            .iter()
            .zip(&last[..st])
            .any(|(a, b)| a.to_bits() != b.to_bits());
        if new {
            self.bt.push(x);
            self.bv.extend_from_slice(vals);
            last[..st].copy_from_slice(vals);
        }
        new
    }

    /// Notes touched cell (`t`, `s`) for the time-major copy: its breakpoint's values (usage
    /// then prices), or none. The entry keeps the free rooms c^r - g^r (the subtraction
    /// [`Self::entry_of`] makes) and the prices.
    fn note(&mut self, t: u32, s: u32, values: Option<&[f64]>) {
        let nr = self.resources as usize;
        let st = 2 * nr;
        let k = match values {
            None => NO_ENTRY,
            Some(v) => {
                let k = self.changes.tvals.len() / st.max(1);
                // a record index stays below the flag (each record is 2R values of memory)
                debug_assert!(k < IDLE as usize);
                let k = k as u32 | idle_flag(v, nr);
                let b = s as usize * nr;
                let cap = self.capacity.get(b..b + nr).unwrap_or(&[]);
                let c = &mut self.changes;
                for (r, &g) in v.iter().take(nr).enumerate() {
                    c.tvals.push(cap.get(r).copied().unwrap_or(0.0) - g);
                }
                c.tvals.extend_from_slice(v.get(nr..st).unwrap_or(&[]));
                k
            }
        };
        self.changes.touched.push((t, s, k));
    }

    /// Applies the bookings recorded since the last call ([`Self::apply_bookings`]) and
    /// brings the time-major copy or the slot trees in line.
    fn merge_dirty(&mut self) {
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
    fn merge_books(&mut self) {
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

// [`Pool::groups`] marks a group's servers in a `u32`
const _: () = assert!(GROUP <= 32);

/// [`SlotChanges::touched`]: the cell has no breakpoint after the commit.
const NO_ENTRY: u32 = u32::MAX;

/// The first index at or after `from` where `pred` fails, `pred` holding on a prefix of `v`
/// that reaches at least `from`: steps of 1, 2, 4, ... from `from`, then a bisection of the
/// last step (cheap when the index is near, as a commit's next touched cell usually is).
fn gallop<T>(v: &[T], from: usize, pred: impl Fn(&T) -> bool) -> usize {
    let (mut lo, mut hi, mut step) = (from, from, 1usize);
    while let Some(x) = v.get(hi) {
        if !pred(x) {
            break;
        }
        lo = hi + 1;
        hi = from.saturating_add(step);
        step = step.saturating_mul(2);
    }
    let hi = hi.min(v.len()).max(lo);
    lo + v.get(lo..hi).map_or(0, |w| w.partition_point(pred))
}

/// `v.partition_point(pred)` (`pred` holding on a prefix) by galloping from the end: steps
/// of 1, 2, 4, ... back from `v.len()`, then a bisection of the last step.
fn gallop_back<T>(v: &[T], pred: impl Fn(&T) -> bool) -> usize {
    let (mut lo, mut hi, mut step) = (0usize, v.len(), 1usize);
    while hi > 0 {
        let i = hi.saturating_sub(step);
        if v.get(i).is_some_and(&pred) {
            lo = i + 1;
            break;
        }
        hi = i;
        step = step.saturating_mul(2);
    }
    lo + v.get(lo..hi).map_or(0, |w| w.partition_point(pred))
}

/// sum_r p^r dem^r in index order.
pub(crate) fn unit_of(prices: &[f64], dem: &ResourceVec) -> f64 {
    let mut acc = 0.0;
    for (r, &p) in prices.iter().enumerate() {
        acc += p * dem.get(r);
    }
    acc
}

/// floor(min_r (c^r - g^r) / dem^r) over dem^r > 0; `usage` empty means idle.
///
/// Each quotient is rounded as [`crate::num::floor_eps`] then clamped to `0..=u32::MAX`, without
/// calling `floor` (the sweep computes a fit per usage change, `docs/oasis.md` "Measured"): for
/// y = x + 1e-9, floor(y) <= 0 or NaN iff not y >= 1, floor(y) >= u32::MAX iff y >= u32::MAX
/// (an integer), and in between `y as u32` truncates a positive y, which is its floor. Same
/// result bit for bit.
pub(crate) fn fit_of(cap: &[f64], usage: &[f64], dem: &ResourceVec) -> u32 {
    let mut best = u32::MAX;
    for (r, &c) in cap.iter().enumerate() {
        let d = dem.get(r);
        if d > 0.0 {
            let g = if usage.is_empty() {
                0.0
            } else {
                usage.get(r).copied().unwrap_or(f64::INFINITY)
            };
            best = best.min(floor_fit((c - g) / d));
        }
    }
    best
}

/// [`fit_of`] from the free room c^r - g^r (R values, as the time-major copy holds it): the
/// same quotients, so the same fit bit for bit.
pub(crate) fn fit_free(free: &[f64], dem: &ResourceVec) -> u32 {
    let mut best = u32::MAX;
    for (&f, &d) in free.iter().zip(dem.as_slice()) {
        if d > 0.0 {
            best = best.min(floor_fit(f / d));
        }
    }
    best
}

/// Values per group of the least peak prices ([`Pool::groups`]): one over all resources, one
/// without each resource.
pub(crate) const PEAKS: usize = RESOURCES_MAX + 1;

/// A slot's group summaries ([`Pool::groups`]): entry counts, largest free rooms (R per
/// group), least prices (R per group), least peak prices (R + 1 per group).
pub(crate) type GroupSummaries<'a> = (&'a [u32], &'a [f64], &'a [f64], &'a [f64]);

/// Lowers `peaks` (R + 1 values) to one entry's peak prices `v` (R values): max_r v^r, then
/// for each r0, max over r != r0 -- the largest price unless r0 holds it, then the second
/// largest (one pass for both; `max` is exact, so ties give the same values).
pub(crate) fn entry_peaks(v: &[f64], peaks: &mut [f64; PEAKS]) {
    let (mut first, mut second, mut at) = (0.0f64, 0.0f64, usize::MAX);
    for (r, &x) in v.iter().enumerate() {
        if x > first {
            (second, first, at) = (first, x, r);
        } else {
            second = second.max(x);
        }
    }
    peaks[0] = peaks[0].min(first);
    for (r0, pk) in peaks.iter_mut().skip(1).take(v.len()).enumerate() {
        *pk = pk.min(if r0 == at { second } else { first });
    }
}

/// The least unit price sum_r p^r dem^r any entry of a group can have, from the group's least
/// prices `least` (R values) and least peak prices `peaks` (R + 1, [`Pool::groups`]): the
/// larger of sum_r least^r dem^r and (least peak over the demanded resources) x (least
/// positive demand), the latter when every resource, or all but one, is demanded. Both are
/// below the float unit price of every entry: float sums and products of non-negative terms
/// are monotone, and a float sum is at least each of its terms.
pub(crate) fn group_floor(
    least: &[f64],
    peaks: &[f64],
    dem: &ResourceVec,
    peak: Option<(usize, f64)>,
) -> f64 {
    let sum = unit_of(least, dem);
    match peak.and_then(|(i, wmin)| peaks.get(i).map(|&p| p * wmin)) {
        Some(b) if b > sum => b,
        _ => sum,
    }
}

/// Which least peak price bounds a demand's unit prices ([`group_floor`]): the index into a
/// group's [`PEAKS`] values (0 when every resource is demanded, 1 + r0 when all but r0 are)
/// and the least positive demand; `None` when two or more resources are not demanded.
pub(crate) fn peak_of(dem: &ResourceVec, nr: usize) -> Option<(usize, f64)> {
    let d = dem.as_slice().get(..nr)?;
    let mut off = None;
    let mut wmin = f64::INFINITY;
    for (r, &w) in d.iter().enumerate() {
        if w > 0.0 {
            wmin = wmin.min(w);
        } else if off.replace(r).is_some() {
            return None;
        }
    }
    wmin.is_finite().then_some((off.map_or(0, |r| r + 1), wmin))
}

/// `fit_free(free, dem) > 0`, mostly without dividing: per resource with dem^r > 0, a free
/// room f >= dem^r gives a quotient >= 1 (division rounds monotonically and 1 is a float),
/// f < dem^r / 2 one <= 1/2 (floor 0 even after + 1e-9); only in between is the quotient
/// computed. `free` must hold R values.
#[inline]
pub(crate) fn has_room(free: &[f64], dem: &ResourceVec) -> bool {
    for (&f, &d) in free.iter().zip(dem.as_slice()) {
        if d > 0.0 {
            if f >= d {
                continue;
            }
            if f < 0.5 * d || floor_fit(f / d) == 0 {
                return false;
            }
        }
    }
    true
}

impl PartialEq for Pool {
    fn eq(&self, o: &Pool) -> bool {
        self.slots == o.slots
            && self.servers == o.servers
            && self.resources == o.resources
            && self.capacity == o.capacity
            && self.upper == o.upper
            && self.lower.to_bits() == o.lower.to_bits()
            && (0..self.servers).all(|s| {
                let st = self.stride();
                let l = self.times(s).len();
                self.times(s) == o.times(s)
                    && (0..l).all(|j| {
                        self.values(s, j)
                            .iter()
                            .zip(o.values(s, j))
                            .all(|(a, b)| a.to_bits() == b.to_bits())
                            && self.values(s, j).len() == st
                    })
            })
    }
}

/// The serialised form of a [`Pool`]: per server its breakpoints (slots, then 2R values each).
#[derive(Serialize, Deserialize)]
struct PoolRepr {
    slots: u32,
    servers: u32,
    resources: u32,
    capacity: Vec<f64>,
    series: Vec<(Vec<u32>, Vec<f64>)>,
    upper: ResourceVec,
    lower: f64,
}

struct SeriesRef<'a>(&'a Pool);

impl Serialize for SeriesRef<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        let st = p.stride();
        ser.collect_seq((0..p.servers).map(|s| {
            let o = p.off[s as usize];
            let l = p.len[s as usize] as usize;
            (&p.bt[o..o + l], &p.bv[o * st..(o + l) * st])
        }))
    }
}

impl Serialize for Pool {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = ser.serialize_struct("PoolRepr", 7)?;
        s.serialize_field("slots", &self.slots)?;
        s.serialize_field("servers", &self.servers)?;
        s.serialize_field("resources", &self.resources)?;
        s.serialize_field("capacity", &self.capacity)?;
        s.serialize_field("series", &SeriesRef(self))?;
        s.serialize_field("upper", &self.upper)?;
        s.serialize_field("lower", &self.lower)?;
        s.end()
    }
}

impl<'de> Deserialize<'de> for Pool {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let r = PoolRepr::deserialize(de)?;
        let nr = r.resources as usize;
        let st = 2 * nr;
        let n = r.servers as usize;
        if r.series.len() != n
            || r.capacity.len() != n * nr
            || r.upper.len() != nr
            || r.series.iter().any(|(t, v)| v.len() != t.len() * st)
        {
            return Err(serde::de::Error::custom("oasis pool: inconsistent shape"));
        }
        let mut p = Pool {
            slots: r.slots,
            servers: r.servers,
            resources: r.resources,
            capacity: r.capacity,
            idle: Vec::new(),
            upper: r.upper,
            lower: r.lower,
            bt: Vec::new(),
            bv: Vec::new(),
            off: vec![0; n],
            len: vec![0; n],
            cap: vec![0; n],
            live: 0,
            class: Vec::new(),
            changes: SlotChanges::default(),
            books: Vec::new(),
            prices: vec![((u64::MAX, u64::MAX, u32::MAX), 0.0); 1 << PRICE_CACHE_BITS],
            census: Census::default(),
            grid: None,
            room: RoomLevels::default(),
        };
        p.idle = p.idle_prices();
        p.class = p.classes();
        p.census = Census::new(&p.capacity, nr, p.slots);
        for (s, (t, v)) in r.series.into_iter().enumerate() {
            p.off[s] = p.bt.len();
            p.len[s] = t.len() as u32;
            p.cap[s] = t.len() as u32;
            p.live += t.len();
            p.bt.extend_from_slice(&t);
            p.bv.extend_from_slice(&v);
        }
        // no slot trees: the scheduler that restores the market builds them with its own
        // room levels ([`Market::rebuild_grids_like`]); until then decisions sweep
        p.rebuild_changes();
        Ok(p)
    }
}

/// Field names of one pool in [`crate::snapshot::SnapshotError::Invalid`].
struct PoolFields {
    shape: &'static str,
    usage: &'static str,
    price: &'static str,
}

impl Pool {
    /// Every cell of slot `t` within its capacity (the float dust [`Self::check_restored`]
    /// allows): what an admitted schedule keeps.
    pub(crate) fn within_capacity(&self, t: u32) -> bool {
        (0..self.servers).all(|s| {
            (0..self.resources as usize).all(|r| {
                let c = self.capacity(s, r);
                self.usage(t, s, r) <= c.max(0.0) + 1e-6 * libm::fabs(c).max(1.0)
            })
        })
    }

    /// Checks a restored pool against `fresh` (the same pool as built from the scenario):
    /// same shape, capacities and bounds; breakpoint slots strictly increasing within 0..T;
    /// every usage finite, >= 0 and within capacity (float dust of 1e-6 relative allowed);
    /// every price exactly eq. (22) of its usage.
    fn check_restored(
        &self,
        fresh: &Pool,
        f: &PoolFields,
    ) -> Result<(), crate::snapshot::SnapshotError> {
        use crate::snapshot::{ensure, invalid_at};
        let same_shape = self.slots == fresh.slots
            && self.servers == fresh.servers
            && self.resources == fresh.resources
            && self.capacity == fresh.capacity
            && self.upper == fresh.upper
            && self.lower.to_bits() == fresh.lower.to_bits();
        ensure(same_shape, f.shape)?;
        let nr = self.resources as usize;
        let mut at = 0usize;
        for s in 0..self.servers {
            let ts = self.times(s);
            let ordered = ts.windows(2).all(|w| w[0] < w[1]) && ts.iter().all(|&t| t < self.slots);
            ensure(ordered, f.shape)?;
            for j in 0..ts.len() {
                let v = self.values(s, j);
                for r in 0..nr {
                    let (g, p) = (v[r], v[nr + r]);
                    let c = self.capacity(s, r);
                    let dust = 1e-6 * libm::fabs(c).max(1.0);
                    if !(g.is_finite() && g >= 0.0 && g <= c.max(0.0) + dust) {
                        return Err(invalid_at(f.usage, at));
                    }
                    let want = oasis_price(self.lower, self.upper.get(r), g, c);
                    if p.to_bits() != want.to_bits() {
                        return Err(invalid_at(f.price, at));
                    }
                    at += 1;
                }
            }
        }
        Ok(())
    }
}

impl Market {
    /// Checks a market restored from a snapshot against `fresh`, a market of the same scenario
    /// (only its shape, bounds and capacities are read: they never change after the build), in
    /// [`crate::snapshot`]: shape, bounds, capacities, usage and eq. (22) prices.
    pub fn check_restored(&self, fresh: &Market) -> Result<(), crate::snapshot::SnapshotError> {
        use crate::snapshot::ensure;
        ensure(
            self.slots == fresh.slots
                && self.resources == fresh.resources
                && self.bounds == fresh.bounds,
            "market.shape",
        )?;
        self.workers.check_restored(
            &fresh.workers,
            &PoolFields {
                shape: "market.workers.shape",
                usage: "market.workers.usage",
                price: "market.workers.price",
            },
        )?;
        self.ps.check_restored(
            &fresh.ps,
            &PoolFields {
                shape: "market.ps.shape",
                usage: "market.ps.usage",
                price: "market.ps.price",
            },
        )
    }
}

/// The whole priced cluster: T slots, the worker pool and the PS pool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Market {
    slots: u32,
    resources: u32,
    /// H worker servers: g_h^r(t), p_h^r(t).
    pub workers: Pool,
    /// K PS servers: v_k^r(t), q_k^r(t).
    pub ps: Pool,
    bounds: PriceBounds,
}

impl Market {
    /// An empty cluster for `scn` priced with `bounds` (every price at its floor L).
    pub fn new(scn: &OasisScenario, bounds: PriceBounds) -> Result<Self, OasisError> {
        let r = scn.resources as usize;
        limits::check(Limit::Slots, scn.slots as usize, SLOTS_MAX)?;
        limits::check(Limit::Servers, scn.worker_servers.len(), SERVERS_MAX)?;
        limits::check(Limit::PsServers, scn.ps_servers.len(), PS_SERVERS_MAX)?;
        limits::check(Limit::Resources, r, RESOURCES_MAX)?;
        let ok = |l: f64, u: &ResourceVec| {
            l > 0.0
                && l.is_finite()
                && u.len() == r
                && u.as_slice().iter().all(|&x| x >= l && x.is_finite())
        };
        if !ok(bounds.l_worker, &bounds.u_worker) || !ok(bounds.l_ps, &bounds.u_ps) {
            return Err(OasisError::Bounds);
        }
        Ok(Market {
            slots: scn.slots,
            resources: scn.resources,
            workers: Pool::new(
                scn.slots,
                &scn.worker_servers,
                r,
                bounds.u_worker,
                bounds.l_worker,
                &scn.jobs
                    .iter()
                    .map(|j| j.worker_demand.as_slice())
                    .collect::<Vec<_>>(),
            )?,
            ps: Pool::new(
                scn.slots,
                &scn.ps_servers,
                r,
                bounds.u_ps,
                bounds.l_ps,
                &scn.jobs
                    .iter()
                    .map(|j| j.ps_demand.as_slice())
                    .collect::<Vec<_>>(),
            )?,
            bounds,
        })
    }

    /// T.
    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// R.
    pub fn resources(&self) -> u32 {
        self.resources
    }

    /// U1, U2, L1, L2 in force.
    pub fn bounds(&self) -> &PriceBounds {
        &self.bounds
    }

    /// Adds `count` workers of `job` on worker server `h` in slot `t` (Alg. 1 lines 9-10).
    pub fn add_workers(&mut self, t: u32, h: u32, job: &JobParams, count: u32) {
        self.workers.add(t, h, &job.worker_demand, count);
        self.workers.merge_dirty();
    }

    /// Adds `count` parameter servers of `job` on PS server `k` in slot `t` (Alg. 1 lines 11-12).
    pub fn add_ps(&mut self, t: u32, k: u32, job: &JobParams, count: u32) {
        self.ps.add(t, k, &job.ps_demand, count);
        self.ps.merge_dirty();
    }

    /// [`Self::add_workers`] without the merge of equal neighbouring breakpoints (a commit
    /// merges each touched server once at its end, [`Self::merge`]).
    pub(crate) fn add_workers_raw(&mut self, t: u32, h: u32, job: &JobParams, count: u32) {
        self.workers.add(t, h, &job.worker_demand, count);
    }

    /// [`Self::add_ps`] without the merge.
    pub(crate) fn add_ps_raw(&mut self, t: u32, k: u32, job: &JobParams, count: u32) {
        self.ps.add(t, k, &job.ps_demand, count);
    }

    /// Drops repeated breakpoints of every server added to since the last merge.
    pub(crate) fn merge(&mut self) {
        self.workers.merge_dirty();
        self.ps.merge_dirty();
    }

    /// [`Self::merge`], leaving the slot trees' sync owed to [`Self::settle`]: the
    /// scheduler's commit, so that an admission returns before its cells reach the trees
    /// (`docs/oasis.md`, "Settling").
    pub(crate) fn merge_owed(&mut self) {
        self.workers.merge_books();
        self.ps.merge_books();
    }

    /// Brings both pools' slot trees in line with the last commit, if they are owed it
    /// ([`super::OasisScheduler::settle`]).
    pub fn settle(&mut self) {
        self.workers.settle();
        self.ps.settle();
    }

    /// Do both pools' slot trees hold every commit ([`Self::settle`])? A listing needs it.
    pub fn settled(&self) -> bool {
        self.workers.settled() && self.ps.settled()
    }

    /// Makes room for a commit of at most `w` worker cells and `p` PS cells (each a
    /// (slot, server) pair) that then allocates nothing. May grow storage (amortised).
    pub fn reserve(&mut self, w: usize, p: usize) {
        self.workers.reserve(w);
        self.ps.reserve(p);
    }

    /// Drops both pools' slot trees (`docs/oasis.md`, "The slot trees"): decisions then sweep
    /// the time-major copies, with the same results. For tests and benchmarks that compare
    /// the two; a restore builds them again.
    #[doc(hidden)]
    pub fn drop_grids(&mut self) {
        self.workers.drop_grid();
        self.ps.drop_grid();
    }

    /// Builds both pools' slot trees from the breakpoints with the room levels of `like`'s
    /// (a market restored from a snapshot keeps none: `like` is the scheduler's live one).
    pub(crate) fn rebuild_grids_like(&mut self, like: &Market) {
        for (p, q) in [(&mut self.workers, &like.workers), (&mut self.ps, &like.ps)] {
            p.room = q.room.clone();
            if q.grid.is_some() {
                p.rebuild_grid();
            }
        }
    }

    /// Redoes up to `budget` leaves of each pool's slot trees that commits left loose, with
    /// the nodes above them ([`Grid::tidy`]; no decision depends on it, only how many nodes
    /// a listing opens).
    pub(crate) fn tidy(&mut self, budget: usize) {
        self.settle();
        for p in [&mut self.workers, &mut self.ps] {
            if let Some(g) = p.grid.as_mut() {
                g.tidy(budget);
            }
        }
    }

    /// Leaves and nodes of both pools' slot trees waiting to be redone ([`Self::tidy`]).
    pub(crate) fn untidy(&self) -> usize {
        [&self.workers, &self.ps]
            .iter()
            .filter_map(|p| p.grid.as_ref())
            .map(|g| g.queued())
            .sum()
    }

    /// Does each pool keep its slot trees?
    pub fn has_grids(&self) -> bool {
        self.workers.grid().is_some() && self.ps.grid().is_some()
    }

    /// Keeps both pools' prices at slot `t` for the start of the next decisions
    /// ([`Pool::advance`]); allocates only on the first call.
    pub fn advance(&mut self, t: u32) {
        self.workers.advance(t);
        self.ps.advance(t);
    }

    /// Makes room in the time-major copies for a commit of `job` within slots
    /// `from..from + rows` (each booking also touches the slot after it), so that it allocates
    /// nothing: at most min(N_i, H) worker and min(ceil(N_i b_i / B_i), K) PS servers a slot.
    pub fn reserve_window(&mut self, job: &JobParams, from: u32, rows: u32) {
        let to = from.saturating_add(rows).saturating_add(1);
        let nw = job.max_workers as usize;
        let nz = usize::try_from(job.ps_for(job.max_workers as u64)).unwrap_or(usize::MAX);
        self.workers.reserve_slots(from, to, nw);
        self.ps.reserve_slots(from, to, nz);
    }
}

/// The constants of job i that Alg. 2 uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JobParams {
    /// a_i.
    pub arrival: u32,
    /// D_i = E_i N_i (chunks).
    pub workload: u64,
    /// N_i: at most this many workers per slot (constraint 3).
    pub max_workers: u32,
    /// m_i = M_i (tau_i + 2 e_i / b_i): slots one worker needs per chunk.
    pub chunk_time: f64,
    /// b_i.
    pub worker_bw: f64,
    /// B_i.
    pub ps_bw: f64,
    /// w_i^r.
    pub worker_demand: ResourceVec,
    /// s_i^r.
    pub ps_demand: ResourceVec,
}

impl JobParams {
    /// The constants of `job`.
    pub fn of(job: &OasisJob) -> Self {
        JobParams {
            arrival: job.arrival,
            workload: job.workload(),
            max_workers: job.chunks,
            chunk_time: job.chunk_time(),
            worker_bw: job.worker_bw,
            ps_bw: job.ps_bw,
            worker_demand: job.worker_demand,
            ps_demand: job.ps_demand,
        }
    }

    /// ceil(d m_i): workers needed for `d` chunks in one slot (Alg. 2 line 26), saturating.
    pub fn workers_for(&self, d: u64) -> u64 {
        sat_u64(ceil_eps(d as f64 * self.chunk_time))
    }

    /// ceil(y b_i / B_i): parameter servers needed by `y` workers (constraint 6), saturating.
    pub fn ps_for(&self, y: u64) -> u64 {
        sat_u64(ceil_eps(y as f64 * self.worker_bw / self.ps_bw))
    }

    /// The most chunks `w` workers cover in one slot: max d with ceil(d m_i) <= w, capped at
    /// D_i. Consistent with [`Self::workers_for`] by construction (checked both ways).
    pub fn chunks_for(&self, w: u64) -> u64 {
        let guess = floor_eps(w as f64 / self.chunk_time);
        let mut d = sat_u64(guess).min(self.workload);
        // The float guess can be off by one either way; settle it with workers_for itself.
        let mut steps = 0;
        while d > 0 && self.workers_for(d) > w && steps < 4 {
            d -= 1;
            steps += 1;
        }
        while d < self.workload && self.workers_for(d + 1) <= w && steps < 8 {
            d += 1;
            steps += 1;
        }
        d
    }
}

fn sat_u64(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fit_of` without `floor` and `has_room` without most divisions agree with the rounding
    /// of `floor_eps` on quotients around every integer boundary, 0, huge values and NaN.
    #[test]
    fn fits_round_as_floor_eps() {
        let literal = |x: f64| {
            let k = floor_eps(x);
            if k <= 0.0 || k.is_nan() {
                0
            } else if k >= u32::MAX as f64 {
                u32::MAX
            } else {
                k as u32
            }
        };
        let mut xs = vec![
            0.0,
            -0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
        ];
        for k in [
            0.5f64,
            1.0,
            2.0,
            3.0,
            7.0,
            4294967294.0,
            4294967295.0,
            4294967296.0,
        ] {
            for e in [0.0, 1e-9, 2e-9, 1e-12, 1e-15, 1e-6] {
                xs.extend([k - e, k + e, f64::from_bits(k.to_bits() - 1)]);
            }
        }
        for &x in &xs {
            assert_eq!(floor_fit(x), literal(x), "x = {x:e}");
        }
        let dem = ResourceVec::from_slice(&[0.25, 0.0, 3.0]).unwrap();
        let cap = [4.0, 0.0, 12.0];
        for a in 0..=40 {
            for b in 0..=130 {
                let g = [a as f64 * 0.1, 5.0, b as f64 * 0.1 - 1e-10 * (b % 3) as f64];
                let free: Vec<f64> = cap.iter().zip(&g).map(|(c, g)| c - g).collect();
                let fit = fit_of(&cap, &g, &dem);
                assert_eq!(fit_free(&free, &dem), fit);
                assert_eq!(has_room(&free, &dem), fit > 0);
            }
        }
    }
    use crate::model::oasis::{OasisJob, Utility};

    fn rv(v: &[f64]) -> ResourceVec {
        ResourceVec::from_slice(v).unwrap()
    }

    /// Is the time-major copy exactly a rebuild from the breakpoints?
    fn copy_matches(p: &Pool) -> bool {
        let mut q = p.clone();
        q.rebuild_changes();
        let (a, b) = (&p.changes, &q.changes);
        // each group's server bits are its entries' (in the rebuilt copy too)
        let groups_match = a
            .srv
            .iter()
            .zip(&a.gid)
            .zip(&a.gsrv)
            .all(|((srv, gid), gsrv)| {
                let mut want: Vec<(u32, u32)> = Vec::new();
                for &e in srv {
                    let (g, bit) = (
                        (e & !IDLE) / GROUP as u32,
                        1 << ((e & !IDLE) % GROUP as u32),
                    );
                    match want.last_mut() {
                        Some(w) if w.0 == g => w.1 |= bit,
                        _ => want.push((g, bit)),
                    }
                }
                want.iter().map(|w| w.0).eq(gid.iter().copied())
                    && want.iter().map(|w| w.1).eq(gsrv.iter().copied())
            });
        groups_match
            && p.census == q.census
            && a.srv == b.srv
            && a.last == b.last
            && a.gid == b.gid
            && a.gsrv == b.gsrv
            && [
                (&a.fr, &b.fr),
                (&a.px, &b.px),
                (&a.gfr, &b.gfr),
                (&a.gpx, &b.gpx),
                (&a.gpk, &b.gpk),
            ]
            .iter()
            .all(|(a, b)| {
                a.len() == b.len()
                    && a.iter().zip(b.iter()).all(|(x, y)| {
                        x.len() == y.len()
                            && x.iter().zip(y).all(|(u, v)| u.to_bits() == v.to_bits())
                    })
            })
    }

    /// A commit's bookings, applied server by server in one pass per block, give every cell
    /// the usage of a dense grid (its bookings added in recording order) and the eq. (22)
    /// price of that usage bit for bit, in canonical breakpoints (none repeating its
    /// predecessor or, first, the idle state), with the time-major copy in step: random
    /// batches with several bookings per cell, resources a demand leaves at zero, the last
    /// slot, and blocks that must move.
    #[test]
    fn batched_bookings_match_a_dense_grid() {
        let mut g = crate::rng::SplitMix64::new(11);
        let (slots, n, nr) = (24u32, 20usize, 3usize);
        let caps: Vec<ResourceVec> = (0..n)
            .map(|s| rv(&[64.0 + (s % 3) as f64 * 32.0, 128.0, 16.0]))
            .collect();
        let demands: [&[f64]; 2] = [&[1.0, 2.0, 0.0], &[0.5, 0.0, 0.25]];
        let mut p = Pool::new(slots, &caps, nr, rv(&[8.0, 30.0, 4.0]), 0.5, &demands).unwrap();
        // the same bookings on a pool without slot trees, whose decisions sweep the copy
        let mut q = p.clone();
        q.drop_grid();
        assert!(p.grid().is_some() && q.grid().is_none());
        let mut dense = vec![0.0f64; slots as usize * n * nr];
        let dems = [
            rv(&[1.0, 2.0, 0.0]),
            rv(&[0.5, 0.0, 0.25]),
            rv(&[0.0, 0.0, 0.0]),
        ];
        for _ in 0..120 {
            let cells = 1 + g.below(40) as usize;
            p.reserve(cells);
            for _ in 0..cells {
                // few servers and runs of slots: blocks grow, move and merge
                let few = g.below(2) == 0;
                let s = g.below(if few { 4 } else { n as u64 }) as u32;
                let t = (slots - 1).min(g.below(slots as u64) as u32);
                let dem = dems[g.below(3) as usize];
                let count = 1 + g.below(3) as u32;
                p.add(t, s, &dem, count);
                q.add(t, s, &dem, count);
                for r in 0..nr {
                    if dem.get(r) != 0.0 {
                        let i = (t as usize * n + s as usize) * nr + r;
                        dense[i] += dem.get(r) * count as f64;
                    }
                }
            }
            p.merge_dirty();
            q.reserve(cells);
            q.merge_dirty();
            assert!(copy_matches(&q));
            assert!(p == q);
            // the slot trees: each cell the values in force (idle: out of the tree, in its
            // stream), each summary as a rebuild from the breakpoints computes it
            let grid = p.grid().unwrap();
            for t in 0..slots {
                for s in 0..n {
                    let idle = (0..nr).all(|r| dense[(t as usize * n + s) * nr + r].to_bits() == 0);
                    assert_eq!(grid.is_idle(t, s), idle, "{t} {s}");
                    let (free, prices) = (grid.free_of(t, s), grid.prices_of(t, s));
                    for r in 0..nr {
                        let (f, px) = if idle {
                            (f64::NEG_INFINITY, f64::INFINITY)
                        } else {
                            (
                                p.capacity(s as u32, r) - p.usage(t, s as u32, r),
                                p.price(t, s as u32, r),
                            )
                        };
                        assert_eq!(free[r].to_bits(), f.to_bits(), "{t} {s} {r}");
                        assert_eq!(prices[r].to_bits(), px.to_bits(), "{t} {s} {r}");
                        assert_eq!(grid.codes_of(t, s)[r], super::super::grid::room_code(f));
                    }
                }
            }
            // the summaries the commit left loose bound the exact ones, and are them once
            // redone
            let mut fresh = p.clone();
            fresh.rebuild_grid();
            let exact = fresh.grid().unwrap();
            assert!(grid.bounds(exact));
            assert!(grid.codes_match() && exact.codes_match());
            let mut tidy = p.clone();
            let g = tidy.grid.as_mut().unwrap();
            g.tidy(1);
            assert!(g.bounds(exact));
            assert!(g.codes_match());
            g.tidy_all();
            assert_eq!(g.queued(), 0);
            assert!(g.same(exact));
            // the census: per slot, kind and level, the servers whose free room holds that
            // share of their capacity on every resource
            for t in 0..slots {
                let row = p.census().row(t).unwrap();
                let mut want = vec![0u16; row.len()];
                for s in 0..n {
                    let cap: Vec<f64> = (0..nr).map(|r| p.capacity(s as u32, r)).collect();
                    let g = |r: usize| dense[(t as usize * n + s) * nr + r];
                    let level = Census::level(&cap, |r| cap[r] - g(r));
                    if level < crate::oasis::census::LEVELS {
                        want[p.census.kind_of(s) * crate::oasis::census::LEVELS + level] += 1;
                    }
                }
                assert_eq!(row, &want[..], "slot {t}");
            }
            for s in 0..n as u32 {
                for t in 0..slots {
                    for r in 0..nr {
                        let want = dense[(t as usize * n + s as usize) * nr + r];
                        assert_eq!(p.usage(t, s, r).to_bits(), want.to_bits(), "{t} {s} {r}");
                        let price = oasis_price(p.lower, p.upper.get(r), want, p.capacity(s, r));
                        assert_eq!(p.price(t, s, r).to_bits(), price.to_bits(), "{t} {s} {r}");
                    }
                }
                let mut prev: Option<&[f64]> = None;
                for j in 0..p.times(s).len() {
                    let v = p.values(s, j);
                    let repeats = match prev {
                        Some(q) => q.iter().zip(v).all(|(a, b)| a.to_bits() == b.to_bits()),
                        None => v[..nr].iter().all(|x| x.to_bits() == 0),
                    };
                    assert!(!repeats, "server {s} breakpoint {j} repeats");
                    prev = Some(v);
                }
                assert!(p.times(s).windows(2).all(|w| w[0] < w[1]));
            }
        }
        assert!(p.breakpoints() > 100, "{}", p.breakpoints());
    }

    /// A group's floor (`group_floor` with `peak_of`) is never above the float unit price of
    /// any of its entries: random groups of up to `GROUP` entries, prices over many orders of
    /// magnitude (as eq. (22) gives), demands with every resource, all but one, or fewer.
    #[test]
    fn group_floors_bound_every_entry() {
        let mut g = crate::rng::SplitMix64::new(7);
        let nr = 5;
        let mut tight = 0u32;
        for _ in 0..20_000 {
            let n = 1 + (g.next_u64() % GROUP as u64) as usize;
            let mut px = alloc::vec::Vec::new();
            for _ in 0..n * nr {
                // 1e-3 .. 1e12, sometimes exactly the idle price 1e-3
                let e = if g.next_u64() % 4 == 0 {
                    0.0
                } else {
                    g.next_f64() * 15.0
                };
                px.push(1e-3 * libm::pow(10.0, e));
            }
            let mut least = [f64::INFINITY; RESOURCES_MAX];
            let mut peaks = [f64::INFINITY; PEAKS];
            for v in px.chunks_exact(nr) {
                for (m, &x) in least.iter_mut().zip(v) {
                    *m = m.min(x);
                }
                entry_peaks(v, &mut peaks);
            }
            let zeros = g.next_u64() % 3; // resources not demanded
            let mut d = [0.0; 5];
            for (r, x) in d.iter_mut().enumerate() {
                if r as u64 >= zeros {
                    *x = 0.1 + g.next_f64() * 100.0;
                }
            }
            // shuffle which resources are not demanded
            d.rotate_left((g.next_u64() % nr as u64) as usize);
            let dem = rv(&d);
            let floor = group_floor(&least[..nr], &peaks[..nr + 1], &dem, peak_of(&dem, nr));
            let best = px
                .chunks_exact(nr)
                .map(|v| unit_of(v, &dem))
                .fold(f64::INFINITY, f64::min);
            assert!(
                floor <= best,
                "floor {floor} above an entry's unit price {best}"
            );
            tight += u32::from(floor >= 0.5 * best && unit_of(&least[..nr], &dem) < 0.5 * best);
        }
        // the peak floor is what makes it useful: within 2x of the true least where the sum
        // of least prices alone is not (4,088 of the 20,000 with this seed)
        assert!(tight > 2_000, "{tight}");
    }

    #[test]
    fn the_time_major_copy_follows_every_commit() {
        let job = OasisJob {
            arrival: 0,
            epochs: 1,
            chunks: 4,
            minibatches_per_chunk: 1,
            minibatch_time: 0.5,
            comm_time: 0.0,
            worker_bw: 1.0,
            ps_bw: 2.0,
            worker_demand: rv(&[1.0, 0.5]),
            ps_demand: rv(&[1.0, 0.0]),
            utility: Utility::Table(alloc::vec![1.0]),
        };
        let scn = OasisScenario {
            slots: 12,
            resources: 2,
            worker_servers: alloc::vec![rv(&[64.0, 64.0]); 40],
            ps_servers: alloc::vec![rv(&[64.0, 64.0]); 3],
            prices: None,
            jobs: alloc::vec![job.clone()],
            throughput: None,
        };
        let bounds = PriceBounds {
            u_worker: rv(&[8.0, 8.0]),
            u_ps: rv(&[8.0, 8.0]),
            l_worker: 1.0,
            l_ps: 1.0,
        };
        let mut m = Market::new(&scn, bounds).unwrap();
        m.drop_grids(); // the copy is kept only without slot trees
        let p = JobParams::of(&job);
        let mut x = 12345u64;
        let mut draw = |n: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        for round in 0..200u32 {
            // arrivals in time order: the kept prices follow changes and commits
            let now = round / 20;
            m.advance(now);
            m.reserve(4, 4);
            m.reserve_window(&p, 0, 12);
            let (t0, len) = (draw(12) as u32, 1 + draw(4) as u32);
            for t in t0..(t0 + len).min(12) {
                let c = 1 + draw(2) as u32;
                m.add_workers_raw(t, draw(40) as u32, &p, c);
                m.add_ps_raw(t, draw(3) as u32, &p, c);
            }
            m.merge();
            assert!(copy_matches(&m.workers) && copy_matches(&m.ps));
            for pool in [&m.workers, &m.ps] {
                let px = pool.prices_at(now).unwrap();
                let want = (0..pool.servers()).flat_map(|s| (0..2).map(move |r| (s, r)));
                for ((s, r), got) in want.clone().zip(px) {
                    assert_eq!(got.to_bits(), pool.price(now, s, r).to_bits());
                }
                let fr = pool.free_at(now).unwrap();
                for ((s, r), got) in want.zip(fr) {
                    let free = pool.capacity(s, r) - pool.usage(now, s, r);
                    assert_eq!(got.to_bits(), free.to_bits());
                }
            }
        }
        assert!(m.workers.changes_after(0));
        // the restored market rebuilds the same copy
        let bytes = postcard::to_allocvec(&m).unwrap();
        let back: Market = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, m);
        assert!(copy_matches(&back.workers) && back.workers.changes.srv == m.workers.changes.srv);
    }
}
