//! The time-major copy of a pool's breakpoints ([`SlotChanges`]): what it holds, how the
//! sweep reads it ([`Pool::changes`], [`Pool::groups`]), the prices and free rooms in force at
//! the decision's slot ([`Pool::advance`]), the cells a commit notes for it, and its rebuild
//! from the breakpoints. Kept in step with each commit by `super::sync`.
use super::Pool;
use crate::limits::{RESOURCES_MAX, SERVERS_MAX};
use alloc::vec;
use alloc::vec::Vec;

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

// [`Pool::groups`] marks a group's servers in a `u32`
const _: () = assert!(GROUP <= 32);

/// [`SlotChanges::touched`]: the cell has no breakpoint after the commit.
pub(super) const NO_ENTRY: u32 = u32::MAX;

/// [`IDLE`] if a breakpoint's values (usage then prices) have usage +0.0 everywhere.
pub(super) fn idle_flag(values: &[f64], nr: usize) -> u32 {
    let idle = values.iter().take(nr).all(|g| g.to_bits() == 0);
    if idle {
        IDLE
    } else {
        0
    }
}

/// A slot's group summaries ([`Pool::groups`]): entry counts, largest free rooms (R per
/// group), least prices (R per group), least peak prices (R + 1 per group).
pub(crate) type GroupSummaries<'a> = (&'a [u32], &'a [f64], &'a [f64], &'a [f64]);

/// A time-major copy of a pool's breakpoints, kept for the sweep of [`crate::oasis::fast`]: per
/// slot t, the servers that have a breakpoint at t (by index) and its R prices, contiguous. Moving
/// the sweep one slot on then reads one slot's changes sequentially instead of chasing each changed
/// server's next breakpoint through the server-major arena (the cache misses that made most of a
/// large decision's time, `docs/oasis.md` "Measured"). Only prices are copied: the unit price sum_r
/// p^r dem^r is all the sweep needs per change; a fit is computed from the server-major usage only
/// for the few servers the listing reaches. Kept in step by each commit's merge ([`Pool::sync`]);
/// rebuilt on restore.
#[derive(Clone, Debug, Default)]
pub(super) struct SlotChanges {
    /// per slot: servers with a breakpoint there, increasing, each with [`IDLE`] set when
    /// that breakpoint's usage is +0.0 everywhere
    pub(super) srv: Vec<Vec<u32>>,
    /// per slot: per entry of `srv`, same order, its breakpoint's free room c^r - g^r (R
    /// values), for the sweep's room tests and fits (no capacity lookup)
    pub(super) fr: Vec<Vec<f64>>,
    /// per slot: per entry of `srv`, same order, its breakpoint's R prices, for the sweep's
    /// unit prices (apart from `fr`, so each pass reads only the half it needs)
    pub(super) px: Vec<Vec<f64>>,
    /// per slot: the groups of [`GROUP`] servers (by index: server / GROUP) with an entry
    /// there, increasing
    pub(super) gid: Vec<Vec<u32>>,
    /// per slot: per group of `gid`, its servers with an entry there (bit i: server
    /// group x [`GROUP`] + i; its entries, as many as bits, follow each other in `srv`)
    pub(super) gsrv: Vec<Vec<u32>>,
    /// per slot: per group of `gid`, the largest free room per resource over its entries (R
    /// values): a job without room on one resource's largest has room on none of them
    pub(super) gfr: Vec<Vec<f64>>,
    /// per slot: per group of `gid`, the least price per resource over its entries (R
    /// values): sum_r least^r dem^r is a lower bound of every entry's unit price
    pub(super) gpx: Vec<Vec<f64>>,
    /// per slot: per group of `gid`, its least peak prices (R + 1 values,
    /// [`PEAKS`](crate::oasis::units::PEAKS)): first min over its entries of max_r p^r, then for
    /// each resource r0 the same over the other resources (min max_{r != r0} p^r). A unit price
    /// sum_r p^r dem^r is at least its largest term, so (least peak over the demanded resources) x
    /// (least demand) bounds it from below too -- far closer than sum_r least^r dem^r when the
    /// entries' high prices sit on different resources (eq. (22) prices span many orders of
    /// magnitude).
    pub(super) gpk: Vec<Vec<f64>>,
    /// the last slot with a change (`None`: no breakpoint anywhere)
    pub(super) last: Option<u32>,
    /// (slot, server, entry) cells a commit touched, synced at its merge (reserved with the
    /// arena): entry is [`NO_ENTRY`] when the server has no breakpoint at that slot after the
    /// commit, else the index of its record in `tvals`, with [`IDLE`] set as for the copy
    pub(super) touched: Vec<(u32, u32, u32)>,
    /// the touched cells' new entries, 2R values each (free rooms then prices), as the
    /// commit wrote them
    pub(super) tvals: Vec<f64>,
    /// with the slot trees: `touched` and `tvals` hold a commit whose cells the trees do
    /// not have yet ([`Pool::merge_books`] leaves them to [`Pool::settle`])
    pub(super) owed: bool,
    /// with the slot trees, the last slot after a booked one where a commit wrote a
    /// breakpoint (such cells keep their values in force, so they are not touched)
    pub(super) after: Option<u32>,
    /// the slot whose prices `now_px` holds (`None`: not kept yet)
    pub(super) now: Option<u32>,
    /// per server, the R prices in force at slot `now` (server-major, dense)
    pub(super) now_px: Vec<f64>,
    /// per server, the R free rooms c^r - g^r in force at slot `now` (server-major, dense)
    pub(super) now_fr: Vec<f64>,
}

impl SlotChanges {
    pub(super) fn new(slots: u32, cells: usize) -> Self {
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
    pub(super) fn settle_last(&mut self, from: Option<u32>) {
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
    /// values, [`PEAKS`](crate::oasis::units::PEAKS)).
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
    pub(super) fn now_refresh(&mut self, t: u32, s: u32) {
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

    /// The time-major copy's entry of breakpoint `j` of server `s` into `out` (2R values): the free
    /// room c^r - g^r per resource (the same subtraction [`fit_of`](crate::oasis::units::fit_of)
    /// makes, so a fit from it is bit-identical and needs no capacity), then the R prices.
    pub(super) fn entry_of(&self, s: u32, j: usize, out: &mut [f64]) {
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
    pub(super) fn rebuild_changes(&mut self) {
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

    /// Notes touched cell (`t`, `s`) for the time-major copy: its breakpoint's values (usage
    /// then prices), or none. The entry keeps the free rooms c^r - g^r (the subtraction
    /// [`Self::entry_of`] makes) and the prices.
    pub(super) fn note(&mut self, t: u32, s: u32, values: Option<&[f64]>) {
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
}
