//! [`Pool`]: one pool's capacities and sparse breakpoints (kept in an arena, `super::arena`),
//! the derived state beside them, and what the breakpoints say at a cell: usage, price, unit
//! price, fit.
use super::books::{Booking, PRICE_CACHE_BITS};
use super::changes::SlotChanges;
use crate::oasis::census::Census;
use crate::oasis::grid::{Grid, RoomLevels};
use crate::oasis::units::{fit_of, unit_of};
use crate::oasis::OasisError;
use crate::price::oasis_price;
use crate::resources::ResourceVec;
use alloc::vec;
use alloc::vec::Vec;

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
    pub(super) slots: u32,
    pub(super) servers: u32,
    pub(super) resources: u32,
    /// c^r per server, server-major.
    pub(super) capacity: Vec<f64>,
    /// eq. (22) at zero usage per server and resource (derived from the above).
    pub(super) idle: Vec<f64>,
    /// U^r of eq. (22).
    pub(super) upper: ResourceVec,
    /// L of eq. (22).
    pub(super) lower: f64,
    /// Breakpoint slots, per server a block `off[s]..off[s] + cap[s]` (first `len[s]` used).
    pub(super) bt: Vec<u32>,
    /// Breakpoint values, `2R` per breakpoint (usage then price), same blocks as `bt`.
    pub(super) bv: Vec<f64>,
    pub(super) off: Vec<usize>,
    pub(super) len: Vec<u32>,
    pub(super) cap: Vec<u32>,
    /// Sum of `len`.
    pub(super) live: usize,
    /// Per server, the first server with a bit-identical capacity vector (derived): idle
    /// servers of one class have the same unit price and fit for any demand.
    pub(super) class: Vec<u32>,
    /// The time-major copy of the breakpoints' prices (derived; see [`SlotChanges`]).
    pub(super) changes: SlotChanges,
    /// Bookings recorded since the last merge, applied server by server at the merge
    /// ([`Self::apply_bookings`]): a server's block stays in cache across its bookings.
    pub(super) books: Vec<Booking>,
    /// Recent eq. (22) prices by (usage bits, capacity bits, resource), direct-mapped
    /// ([`Self::price_of`]; derived, never compared or saved).
    pub(super) prices: Vec<((u64, u64, u32), f64)>,
    /// Servers per slot, kind and free share of capacity (derived; kept by [`Self::rebuild`],
    /// counted again on restore).
    pub(super) census: Census,
    /// Every server's values in force at every slot and their summary trees (derived; kept
    /// by each merge, rebuilt on restore; `None` beyond [`crate::oasis::grid::GRID_VALUES_MAX`] or
    /// when dropped by [`Market::drop_grids`](super::Market::drop_grids)).
    pub(super) grid: Option<Grid>,
    /// The slot trees' joint room test (derived from the jobs at the build).
    pub(super) room: RoomLevels,
}

impl Pool {
    pub(super) fn new(
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

    pub(super) fn classes(&self) -> Vec<u32> {
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

    pub(super) fn idle_prices(&self) -> Vec<f64> {
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

    /// Servers per slot, kind and free share of capacity ([`Census`]).
    pub(crate) fn census(&self) -> &Census {
        &self.census
    }

    /// Server `s`'s [`Census`] level at usage `g` (R values): its free rooms c^r - g^r, the
    /// subtraction the time-major copy makes.
    pub(super) fn level(&self, s: u32, g: &[f64]) -> usize {
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

    pub(super) fn stride(&self) -> usize {
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
}
