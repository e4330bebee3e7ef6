//! Compute slots as lanes with a "free from" time (eqs. 6-7): a worker takes a lane free at its
//! start and holds it for the job's duration, so at no time does a node run more than its
//! slots. `free_at` counts the lanes free at each start offset a CSRP particle can choose.
use super::graph::Graph;
use super::scratch::DELTAS;
use super::RouteError;
use alloc::vec::Vec;

/// The lanes of every compute node and how many are free at `now + d`.
#[derive(Clone, Debug)]
pub(super) struct Lanes {
    /// Node v's lanes are `off[v]..off[v + 1]` of `free`.
    pub(super) off: Vec<u32>,
    /// Per lane: the slot it is free from.
    pub(super) free: Vec<u32>,
    /// free_at[d] = lanes free at t + d (refreshed at each event time t).
    pub(super) free_at: [u64; DELTAS],
    /// Lanes in all.
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
