//! Compute slots as lanes with a "free from" time (eqs. 6-7): a worker takes a lane free at its
//! start and holds it for the job's duration, so at no time does a node run more than its
//! slots. `free_at` counts the lanes free at each start offset a CSRP particle can choose.
use super::graph::Graph;
use super::scratch::DELTAS;
use super::RouteError;
use alloc::vec::Vec;

/// The "free from" value of a lane switched off by the open world (a down node, a capacity
/// cut): never free, so no placement takes it and `free_at` never counts it.
pub(super) const DISABLED: u32 = u32::MAX;

/// The lanes of every compute node and how many are free at `now + d`.
#[derive(Clone, Debug)]
pub(super) struct Lanes {
    /// Node v's lanes are `off[v]..off[v + 1]` of `free`.
    pub(super) off: Vec<u32>,
    /// Per lane: the slot it is free from.
    pub(super) free: Vec<u32>,
    /// free_at[d] = lanes free at t + d (refreshed at each event time t).
    pub(super) free_at: [u64; DELTAS],
    /// Lanes in force (all of them in the closed world; the open world switches some off).
    pub(super) total: u64,
}

impl Lanes {
    /// One lane per compute slot of each node (at most [`crate::limits::COMPUTE_SLOTS_MAX`]
    /// per node), all free from slot 0.
    pub(super) fn new(g: &Graph) -> Self {
        let n = g.nodes();
        let mut off = alloc::vec![0u32; n + 1];
        for v in 0..n {
            off[v + 1] = off[v]
                + g.slots(v as u32)
                    .min(crate::limits::COMPUTE_SLOTS_MAX as u32);
        }
        let lanes = off[n] as usize;
        Lanes {
            off,
            free: alloc::vec![0; lanes],
            free_at: [lanes as u64; DELTAS],
            total: lanes as u64,
        }
    }

    /// Lanes of node `v` free at slot `s`.
    pub(super) fn free_lanes(&self, v: u32, s: u32) -> u32 {
        let (a, b) = (self.off[v as usize], self.off[v as usize + 1]);
        self.free[a as usize..b as usize]
            .iter()
            .filter(|&&f| f <= s)
            .count() as u32
    }

    /// free_at[d] = lanes free at t + d.
    pub(super) fn refresh_free_at(&mut self, t: u32) {
        self.free_at = [0; DELTAS];
        for &f in &self.free {
            let d = f.saturating_sub(t) as usize;
            for x in self.free_at.iter_mut().skip(d) {
                *x += 1;
            }
        }
    }

    /// Gives back at `t` a lane of node `v` held until `end` (a preempted run): it is free
    /// from `t` on. Lanes are interchangeable, so any lane of `v` free from `end` is the one.
    /// [`RouteError::Scratch`] if there is none (an internal invariant).
    pub(super) fn give_back(&mut self, v: usize, t: u32, end: u32) -> Result<(), RouteError> {
        let (a, b) = (self.off[v] as usize, self.off[v + 1] as usize);
        let x = (a..b)
            .find(|&x| self.free[x] == end)
            .ok_or(RouteError::Scratch)?;
        self.free[x] = t;
        self.refresh_free_at(t);
        Ok(())
    }

    /// Lanes of node `v` not switched off ([`DISABLED`]): the slots in force.
    pub(super) fn active(&self, v: usize) -> u32 {
        let (a, b) = (self.off[v] as usize, self.off[v + 1] as usize);
        self.free[a..b].iter().filter(|&&f| f != DISABLED).count() as u32
    }

    /// Gives back at `t` a lane of node `v` held until `end` if one is (the open world's
    /// interruptions). A lane a later reservation took over (its start >= `end`) is not one:
    /// it stays held by that run, which is the safe side (the cut run's time is not reused).
    pub(super) fn give_back_if_held(&mut self, v: usize, t: u32, end: u32) {
        let (a, b) = (self.off[v] as usize, self.off[v + 1] as usize);
        if let Some(x) = (a..b).find(|&x| self.free[x] == end) {
            self.free[x] = t;
        }
        self.refresh_free_at(t);
    }

    /// Open world: node `v` has `cap` lanes in force from `t` on, keeping the lanes it holds:
    /// switched-off lanes come back free from `t`, more are added when `cap` exceeds the
    /// node's lanes (the one allocation, O(lanes)). `cap >= self.active(v)` is the caller's.
    pub(super) fn grow_node(&mut self, v: usize, t: u32, cap: u32) {
        let have = self.off[v + 1] - self.off[v];
        if cap > have {
            let add = cap - have;
            let at = self.off[v + 1] as usize;
            self.free
                .splice(at..at, core::iter::repeat_n(DISABLED, add as usize));
            for o in self.off.iter_mut().skip(v + 1) {
                *o += add;
            }
        }
        let mut active = self.active(v);
        let (a, b) = (self.off[v] as usize, self.off[v + 1] as usize);
        for x in self.free[a..b].iter_mut() {
            if active < cap && *x == DISABLED {
                *x = t;
                active += 1;
            }
        }
        self.recount(t);
    }

    /// Open world: node `v` gets `cap` lanes in force from `t`, the first ones held until the
    /// `ends` (the runs still on `v`, one lane each), the rest free from `t`, and its other
    /// lanes switched off ([`DISABLED`]). `cap` at most the node's lanes and at least the
    /// count of `ends` are the caller's (a capacity cut after its interruptions).
    pub(super) fn reset_node(
        &mut self,
        v: usize,
        t: u32,
        cap: u32,
        ends: impl Iterator<Item = u32>,
    ) {
        let (a, b) = (self.off[v] as usize, self.off[v + 1] as usize);
        let mut k = 0u32;
        for e in ends {
            if let Some(x) = self
                .free
                .get_mut(a + k as usize)
                .filter(|_| a + (k as usize) < b)
            {
                *x = e;
                k += 1;
            }
        }
        for x in self.free[a + k as usize..b].iter_mut() {
            *x = if k < cap { t } else { DISABLED };
            k += 1;
        }
        self.recount(t);
    }

    /// After an open-world change: `total` is the lanes in force, `free_at` refreshed.
    fn recount(&mut self, t: u32) {
        self.total = self.free.iter().filter(|&&f| f != DISABLED).count() as u64;
        self.refresh_free_at(t);
    }

    /// Takes a lane of node `v` free by `start` until `end` (best fit: the lane free latest
    /// but by `start`, which keeps early lanes for others) and updates `free_at` for event
    /// time `t`. [`RouteError::Scratch`] if none is free (an internal invariant).
    pub(super) fn take(
        &mut self,
        v: usize,
        t: u32,
        start: u32,
        end: u32,
    ) -> Result<(), RouteError> {
        let (a, b) = (self.off[v] as usize, self.off[v + 1] as usize);
        let mut pick: Option<usize> = None;
        for x in a..b {
            let f = self.free[x];
            if f <= start && !matches!(pick, Some(p) if f <= self.free[p]) {
                pick = Some(x);
            }
        }
        let x = pick.ok_or(RouteError::Scratch)?;
        let old = self.free[x];
        for (d, c) in self.free_at.iter_mut().enumerate() {
            let s = t.saturating_add(d as u32);
            *c = *c - (old <= s) as u64 + (end <= s) as u64;
        }
        self.free[x] = end;
        debug_assert!(
            self.free_at.iter().all(|&c| c <= self.total),
            "route lanes: more lanes free than exist"
        );
        Ok(())
    }
}
