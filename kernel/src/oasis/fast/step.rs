//! The sweep moved one slot on ([`Sweep::step`]) from the pool's time-major copy, group by
//! group: a group without room leaves the index unread, a changed group is read at once or
//! queued unread ([`Occ`]) under a lower bound of its servers' unit prices until the listing
//! reaches it ([`Sweep::reveal`]).
use super::sweep::Sweep;
use crate::index::NONE;
use crate::oasis::cheapest::{ordered, ABSENT};
use crate::oasis::market::{Pool, GROUP, IDLE};
use crate::oasis::units::{group_floor, has_room, unit_of};
use crate::ResourceVec;

/// One slot's changes of one group, not read yet ([`Sweep::reveal`]): the entries from `from`
/// of slot `t`'s time-major copy, one per server of `servers` (bit: server - g x GROUP).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Occ {
    t: u32,
    from: u32,
    servers: u16,
    /// did the group have room for one instance in that slot?
    room: bool,
    /// the group's previous unread change (`NONE`: none)
    prev: u32,
}

/// Most unread group changes one sweep keeps (16 bytes each): more are read at once.
pub(super) const OCC_MAX: usize = 1 << 18;

// [`Occ`] marks the servers of a group in a `u16`
const _: () = assert!(GROUP <= 16);

impl Sweep {
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
    pub(super) fn step(&mut self, pool: &Pool, dem: &ResourceVec, tree: bool) {
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
    pub(super) fn reveal(&mut self, pool: &Pool, dem: &ResourceVec, g: usize) {
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
}
