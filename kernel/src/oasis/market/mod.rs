//! The priced cluster of OASiS: usage g_h^r(t) / v_k^r(t), prices p_h^r(t) / q_k^r(t) (eq. 22)
//! and the per-job constants the subroutines need.
//!
//! | module | what |
//! |---|---|
//! | `pool` | [`Pool`]: one pool's capacities and sparse breakpoints, and what they say at a cell (usage, price, unit price, fit) |
//! | `arena` | the breakpoints' arena: room reserved ahead of a commit, compaction, appends at its end |
//! | `books` | a commit's bookings, applied server by server: each server's block rewritten in one pass, eq. (22) through a small cache |
//! | `changes` | the time-major copy of the breakpoints: per slot the servers with a change, their free rooms and prices, per group of servers a summary; the prices in force at the decision's slot |
//! | `sync` | the time-major copy brought in step with a commit's cells (entries, then group summaries) |
//! | `trees` | the pool's slot trees (`super::grid`): built, dropped, brought in line with a commit's cells |
//! | `merge` | the end of a commit: bookings applied, then the time-major copy or the slot trees in line (at once or owed) |
//! | `snapshot` | a pool's equality, its serialised form and the checks of a restored pool or market |
//! | `gallop` | galloping searches in sorted runs (a commit's next cell is usually near the last) |
//! | `job` | [`JobParams`]: the per-job constants (m_i, D_i, N_i, b_i / B_i) |
//! | [`Market`] (here) | the whole priced cluster: T slots, the worker pool and the PS pool |

mod arena;
mod books;
mod changes;
mod gallop;
mod job;
mod merge;
mod pool;
mod snapshot;
mod sync;
mod trees;

pub(crate) use changes::{GROUP, IDLE};
pub use job::JobParams;
pub use pool::Pool;

use super::OasisError;
use crate::error::Limit;
use crate::limits::{self, PS_SERVERS_MAX, RESOURCES_MAX, SERVERS_MAX, SLOTS_MAX};
use crate::model::oasis::{OasisScenario, PriceBounds};
use crate::resources::ResourceVec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

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

    /// Books `delta` (R values, either sign) on kernel server `server` (workers `0..H`, then
    /// PS `H..H+K`) at slot `t`, applied by [`Self::merge`]: the open world's releases (a
    /// negated demand) and capacity withheld (`super::world`). Usage never goes below 0.
    pub(crate) fn shift_raw(&mut self, t: u32, server: u32, delta: &ResourceVec, count: u32) {
        let h = self.workers.servers();
        match server.checked_sub(h) {
            None => self.workers.add(t, server, delta, count),
            Some(k) => self.ps.add(t, k, delta, count),
        }
    }

    /// The pool and its index of kernel server `server`.
    pub(crate) fn pool_of(&self, server: u32) -> (&Pool, u32) {
        let h = self.workers.servers();
        match server.checked_sub(h) {
            None => (&self.workers, server),
            Some(k) => (&self.ps, k),
        }
    }

    /// Makes room for `cells` more bookings in each pool (amortised; an event's cost).
    pub(crate) fn reserve_cells(&mut self, cells: usize) {
        self.workers.reserve(cells);
        self.ps.reserve(cells);
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
    /// ([`crate::oasis::OasisScheduler::settle`]).
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

    /// Redoes up to `budget` leaves of each pool's slot trees that commits left loose, with the
    /// nodes above them ([`Grid::tidy`](crate::oasis::grid::Grid::tidy); no decision depends on it,
    /// only how many nodes a listing opens).
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

#[cfg(test)]
mod tests;
