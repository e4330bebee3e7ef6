//! The priced cluster of OASiS: usage g_h^r(t) / v_k^r(t), prices p_h^r(t) / q_k^r(t) (eq. 22)
//! and the per-job constants the subroutines need.
use super::OasisError;
use crate::error::Limit;
use crate::limits::{
    self, LEDGER_CELLS_MAX, PS_SERVERS_MAX, RESOURCES_MAX, SERVERS_MAX, SLOTS_MAX,
};
use crate::model::oasis::{OasisJob, OasisScenario, PriceBounds};
use crate::num::{ceil_eps, floor_eps};
use crate::price::oasis_price;
use crate::resources::ResourceVec;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Usage and prices of one pool (the H worker servers or the K parameter-server servers).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pool {
    servers: u32,
    resources: u32,
    /// c^r per server, server-major.
    capacity: Vec<f64>,
    /// g^r(t) (or v^r(t)): slot-major, then server, then resource.
    usage: Vec<f64>,
    /// p^r(t) (or q^r(t)), same layout as `usage`.
    price: Vec<f64>,
    /// U^r of eq. (22).
    upper: ResourceVec,
    /// L of eq. (22).
    lower: f64,
}

impl Pool {
    fn new(
        slots: u32,
        caps: &[ResourceVec],
        r: usize,
        upper: ResourceVec,
        lower: f64,
    ) -> Result<Self, OasisError> {
        let cells = slots as usize * caps.len() * r;
        limits::check(Limit::LedgerCells, cells, LEDGER_CELLS_MAX)?;
        let mut capacity = Vec::with_capacity(caps.len() * r);
        for c in caps {
            if c.len() != r {
                return Err(OasisError::Shape);
            }
            capacity.extend_from_slice(c.as_slice());
        }
        let mut price = vec![0.0; cells];
        let per_slot = caps.len() * r;
        for (i, p) in price.iter_mut().enumerate() {
            // An idle cell prices at L; a zero-capacity cell is full and prices at U.
            let c = capacity.get(i % per_slot.max(1)).copied().unwrap_or(0.0);
            *p = oasis_price(lower, upper.get(i % r), 0.0, c);
        }
        Ok(Pool {
            servers: caps.len() as u32,
            resources: r as u32,
            capacity,
            usage: vec![0.0; cells],
            price,
            upper,
            lower,
        })
    }

    /// Number of servers.
    pub fn servers(&self) -> u32 {
        self.servers
    }

    fn cell(&self, t: u32, s: u32, r: usize) -> usize {
        (t as usize * self.servers as usize + s as usize) * self.resources as usize + r
    }

    /// Capacity c^r of server `s` (0 outside the pool).
    pub fn capacity(&self, s: u32, r: usize) -> f64 {
        let i = s as usize * self.resources as usize + r;
        self.capacity.get(i).copied().unwrap_or(0.0)
    }

    /// Usage g^r(t) of server `s` (0 outside the pool).
    pub fn usage(&self, t: u32, s: u32, r: usize) -> f64 {
        self.usage.get(self.cell(t, s, r)).copied().unwrap_or(0.0)
    }

    /// Price p^r(t) of server `s` (eq. 22; `U` outside the pool).
    pub fn price(&self, t: u32, s: u32, r: usize) -> f64 {
        self.price
            .get(self.cell(t, s, r))
            .copied()
            .unwrap_or(self.upper.get(r))
    }

    /// sum_r p^r(t) dem^r in index order: the unit price of one worker (PS) on `s` in `t`.
    pub fn unit_price(&self, t: u32, s: u32, dem: &ResourceVec) -> f64 {
        let base = self.cell(t, s, 0);
        let mut acc = 0.0;
        for r in 0..self.resources as usize {
            acc += self.price.get(base + r).copied().unwrap_or(0.0) * dem.get(r);
        }
        acc
    }

    /// floor(min_r (c^r - g^r(t)) / dem^r) over resources with dem^r > 0 (constraints 30/31);
    /// `u32::MAX` when nothing binds.
    pub fn fit(&self, t: u32, s: u32, dem: &ResourceVec) -> u32 {
        let base = self.cell(t, s, 0);
        let cbase = s as usize * self.resources as usize;
        let mut best = u32::MAX;
        for r in 0..self.resources as usize {
            let d = dem.get(r);
            if d > 0.0 {
                let free = self.capacity.get(cbase + r).copied().unwrap_or(0.0)
                    - self.usage.get(base + r).copied().unwrap_or(f64::INFINITY);
                let k = floor_eps(free / d);
                let k = if k <= 0.0 || k.is_nan() {
                    0
                } else if k >= u32::MAX as f64 {
                    u32::MAX
                } else {
                    k as u32
                };
                best = best.min(k);
            }
        }
        best
    }

    /// Adds `count` x `dem` to server `s` in slot `t` and reprices exactly the touched cells.
    fn add(&mut self, t: u32, s: u32, dem: &ResourceVec, count: u32) {
        for r in 0..self.resources as usize {
            if dem.get(r) == 0.0 {
                continue; // untouched cell: neither usage nor price moves
            }
            let i = self.cell(t, s, r);
            let cap = self.capacity(s, r);
            if let Some(g) = self.usage.get_mut(i) {
                *g += dem.get(r) * count as f64;
                let g = *g;
                if let Some(p) = self.price.get_mut(i) {
                    *p = oasis_price(self.lower, self.upper.get(r), g, cap);
                }
            }
        }
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
    /// same shape, capacities and bounds; every usage finite, >= 0 and within capacity (float
    /// dust of 1e-6 relative allowed); every price exactly eq. (22) of its usage.
    fn check_restored(
        &self,
        fresh: &Pool,
        f: &PoolFields,
    ) -> Result<(), crate::snapshot::SnapshotError> {
        use crate::snapshot::{ensure, invalid_at};
        let same_shape = self.servers == fresh.servers
            && self.resources == fresh.resources
            && self.capacity == fresh.capacity
            && self.upper == fresh.upper
            && self.lower.to_bits() == fresh.lower.to_bits()
            && self.usage.len() == fresh.usage.len()
            && self.price.len() == fresh.price.len();
        ensure(same_shape, f.shape)?;
        let r = (self.resources as usize).max(1);
        let per_slot = (self.servers as usize * self.resources as usize).max(1);
        for (i, (&g, &p)) in self.usage.iter().zip(&self.price).enumerate() {
            let c = self.capacity.get(i % per_slot).copied().unwrap_or(0.0);
            let dust = 1e-6 * libm::fabs(c).max(1.0);
            if !(g.is_finite() && g >= 0.0 && g <= c.max(0.0) + dust) {
                return Err(invalid_at(f.usage, i));
            }
            let want = oasis_price(self.lower, self.upper.get(i % r), g, c);
            if p.to_bits() != want.to_bits() {
                return Err(invalid_at(f.price, i));
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
            )?,
            ps: Pool::new(scn.slots, &scn.ps_servers, r, bounds.u_ps, bounds.l_ps)?,
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
    }

    /// Adds `count` parameter servers of `job` on PS server `k` in slot `t` (Alg. 1 lines 11-12).
    pub fn add_ps(&mut self, t: u32, k: u32, job: &JobParams, count: u32) {
        self.ps.add(t, k, &job.ps_demand, count);
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
