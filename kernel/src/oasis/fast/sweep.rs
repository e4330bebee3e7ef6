//! [`Sweep`]: one pool's unit prices and fits swept forward in time for the job being
//! decided, with its index of cheapest servers and the state of its change queue and tree
//! listing; its start at the decision's first slot and the fits it resolves on demand.
use super::step::{Occ, OCC_MAX};
use super::tree::Front;
use crate::index::NONE;
use crate::limits::RESOURCES_MAX;
use crate::oasis::census::{KINDS_MAX, LEVELS, SHARES};
use crate::oasis::cheapest::{Cheapest, ABSENT};
use crate::oasis::grid::LEAF;
use crate::oasis::market::{Pool, GROUP};
use crate::oasis::units::{fit_free, fit_of, peak_of, unit_of};
use crate::ResourceVec;
use alloc::vec;
use alloc::vec::Vec;

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
/// On a pool that keeps its slot trees ([`Grid`](crate::oasis::grid::Grid)) none of that state is
/// used: `start` and `step` only move `now`, and each listing searches slot `now`'s tree
/// ([`Self::list_grid`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Sweep {
    pub(super) n: usize,
    pub(super) unit: Vec<f64>,
    pub(super) fit: Vec<u32>,
    /// per class (first server of a capacity vector): idle unit price and fit, valid when the
    /// class's stamp is the current one
    pub(super) cu: Vec<f64>,
    pub(super) cf: Vec<u32>,
    pub(super) cstamp: Vec<u32>,
    pub(super) stamp: u32,
    /// servers taken out of the index while the cheapest ones are listed
    pub(super) masked: Vec<bool>,
    /// the cheapest server with fit > 0 (or not yet known)
    pub(super) cheap: Cheapest,
    /// per server: is `fit` computed? (a changed server's fit is computed only when it comes
    /// up in the price order)
    pub(super) known: Vec<bool>,
    /// per server: the (slot, entry) of the time-major copy in force, when the sweep read it
    /// (NONE: from the start slot, found by a binary search)
    pub(super) src: Vec<(u32, u32)>,
    /// the slot the state is at
    pub(super) now: u32,
    /// the listed cheapest servers of `now`: index, and prefix fits / costs (n + 1 each)
    pub(super) ls: Vec<u32>,
    pub(super) cum: Vec<u64>,
    pub(super) pre: Vec<f64>,
    pub(super) k: usize,
    /// did the last listing run out of servers before its count, or meet more servers without
    /// room than it listed? (then the next step tests each changed server for room)
    pub(super) eager: bool,
    /// per group of [`GROUP`] servers: has it changed since the sweep last read it, its
    /// changes waiting in `occ` and the group in `pend` under a lower bound of the changed
    /// servers' keys until the listing reaches it ([`Self::reveal`])? A pending group's
    /// servers keep their old keys in `cheap`: one that comes up there is not listed before
    /// its group is read.
    pub(super) pending: Vec<bool>,
    /// per group: the ordered lower bound it waits under
    pub(super) bound: Vec<i64>,
    /// per waiting group: its servers with a queued change (bit: server - g x GROUP), so
    /// [`Self::reveal`] stops once it has read each of them
    pub(super) changed: Vec<u32>,
    /// the pending groups, keyed by their bound (index: the group)
    pub(super) pend: Cheapest,
    /// per group: its newest unread change in `occ` (`NONE`: none)
    pub(super) head: Vec<u32>,
    /// the unread changes of pending groups, each linked to its group's previous one
    pub(super) occ: Vec<Occ>,
    /// entries of `occ` in use (it is never grown: when full, groups are read at once)
    pub(super) occ_len: usize,
    /// the decision's first slot, when the pool keeps its prices and free rooms densely
    /// ([`Pool::free_at`]; `NONE`: it does not)
    pub(super) dense: u32,
    /// the decision's choice of least peak price for group floors ([`peak_of`])
    pub(super) peak: Option<(usize, f64)>,
    /// per census kind and level: (stamp, fit of its floor share), [`Self::census_fit`]
    pub(super) kfit: Vec<(u32, u32)>,
    /// the frontier of a listing over the pool's slot tree ([`Self::list_grid`]), a binary
    /// heap by (key, first server) in its first `heap_len` entries
    pub(super) heap: Vec<Front>,
    pub(super) heap_len: usize,
    /// per slot-tree position (in [`LEAF`]s): the (ordered unit price, server) of an opened
    /// leaf's servers whose room codes pass, `leaf_n` of them per leaf, written by
    /// [`Self::leaf_best`] and sorted when the leaf's turn comes (`LEAF_NEXT` (`super::tree`))
    pub(super) leaf: Vec<(i64, u32)>,
    pub(super) leaf_n: Vec<u8>,
    /// per server (a bit each): room for one instance while idle, computed once a decision
    /// a word at a time (valid when the word's `fstamp` is the current stamp)
    pub(super) fits: Vec<u64>,
    pub(super) fstamp: Vec<u32>,
}

impl Sweep {
    /// A sweep over `n` servers of a horizon of `slots` slots.
    pub(super) fn new(n: usize, slots: usize) -> Self {
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

    pub(super) fn refresh(&mut self, s: usize) {
        let k = self.key(s);
        self.cheap.set(s, k);
    }

    pub(super) fn load(&mut self, pool: &Pool, s: usize, j: Option<usize>, dem: &ResourceVec) {
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

    /// A lower bound of the total fit of slot `t`'s servers, capped at `cap`: per kind and level of
    /// the pool's [`crate::oasis::census::Census`], its servers times the fit of the kind's floor
    /// capacities scaled by the level's share (cached for the decision). `None` when the pool keeps
    /// no census.
    pub(super) fn census_fit(
        &mut self,
        pool: &Pool,
        dem: &ResourceVec,
        t: u32,
        cap: u64,
    ) -> Option<u64> {
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
    pub(super) fn resolve(&mut self, pool: &Pool, s: usize, dem: &ResourceVec) {
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
    pub(super) fn start(&mut self, pool: &Pool, dem: &ResourceVec, t: u32, tree: bool) {
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
}
