//! Online weighted-completion-time scheduling (Zhou et al. 2022, Algorithms 1-7).
//!
//! - **A_online** (Algorithm 1): rounds i = 1, 2, ... at tau_i = 2^(i-1) (tau_0 = 1). The batch
//!   J_i is every job that arrived before slot tau_i (Algorithm 1 lines 3-5, "while t < tau_i")
//!   and is not yet scheduled, in arrival order (ties: input order).
//! - **A_dual** (Algorithm 2): A_maxweight `alpha` times on what is left of J_i, round iota using
//!   the window [(iota-1) tau_i + 1, iota tau_i] of the batch's schedule, which runs from
//!   alpha tau_i on; it stops early once every job of J_i is scheduled. `alpha` is a scenario
//!   parameter (default 4); [`theoretical_alpha`] gives Theorem 5's value to report beside it.
//! - **A_maxweight** (Algorithm 3): per job, the cheapest schedule of A_mincost2 (q_j = 1) and
//!   A_mincost1 (q_j = 0, winning only if strictly cheaper) under the prices
//!   delta_h^r(t) = lambda^(beta_h^r(t) / C_h^r) - 1 with lambda = 2 T H R F + 1 (eq. 11);
//!   scheduled iff u_j = w_j - cost > 0, then its usage is added to beta. Ring-AllReduce uses
//!   A_RAmincost1/2 (Algorithms 6-7) with rho of eq. (14).
//!
//! Absolute times: a job of round i, A_dual round iota, window start t- runs in slots
//! [start, start + L_j) with start = alpha tau_i + (iota-1) tau_i + t-, completion = start + L_j,
//! and completion <= T (a window is clipped to the horizon; with the scenario's
//! `rounds_past_horizon` to the extended horizon [`OnlineScenario::horizon`] instead).
//! Batches of different rounds and different iota never overlap in time, so one usage ledger
//! over all slots holds every beta.
//!
//! [R] Costs are exact fixed-point integers ([`common::quantize`]): the fast search
//! ([`fast`], the default) and the paper-literal one (`reference`, feature `reference`) return
//! the same schedule, cost and tie-break; the enumeration order of `docs/online.md` breaks
//! cost ties. `independent` (feature `reference`) is a whole second A_online that shares only
//! the model types with this module: its own driver, usage, eq. (11) prices, rho and listings.
//!
//! | file | what |
//! |---|---|
//! | `scheduler` | A_online / A_dual / A_maxweight as a `Scheduler` value: rounds, batches, decisions |
//! | `fast/` | the default, exact and fast search of A_maxweight's per-job choice (A_mincost1/2 under eq. 11's prices) |
//! | `common` | arithmetic shared by the fast search and the references: rho (eqs. 1 and 14), E D K |
//! | `usage` | the sparse usage store beta_h^r(t): one reservation per (job, server) |
//! | `records` | the decision records (tags `TAG_ONLINE_DECISION`, `TAG_ONLINE_PLACED`, `TAG_ONLINE_INTERRUPTED`) and `OnlineDecision` |
//! | `snapshot` | the restorable state and its snapshots |
//! | `world` | the open world: submit, cancel, server down / up, capacity, status (`docs/open-world.md`) |
//! | `error` | `OnlineError` |
//! | `reference` | (feature `reference`) paper-literal A_mincost1/2 (Algorithms 4-5) |
//! | `independent` | (feature `reference`) an independent paper-literal A_online (Algorithms 1-7) for property tests |
pub mod common;
mod error;
pub mod fast;
#[cfg(any(test, feature = "reference"))]
pub mod independent;
mod records;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod scheduler;
mod snapshot;
pub mod usage;
mod world;

pub use error::OnlineError;
pub use records::{
    log_decision, DecisionRec, InterruptRec, OnlineDecision, PlacedRec, CAUSE_CANCEL,
    CAUSE_CAPACITY, CAUSE_DOWN, TAG_ONLINE_DECISION, TAG_ONLINE_INTERRUPTED, TAG_ONLINE_PLACED,
};
pub use scheduler::{run_scenario, theoretical_alpha, OnlineJobDecision, OnlineScheduler, Search};
pub use snapshot::OnlineState;

use crate::model::online::{Architecture, OnlineScenario};
use serde::{Deserialize, Serialize};

/// One server's share of a schedule: y_jhm workers and s_jhp PSs on server h.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placed {
    /// Server h.
    pub server: u32,
    /// y_jhm.
    pub workers: u32,
    /// s_jhp (0 for ring).
    pub ps: u32,
}

/// The placement of one job, servers in index order. The scheduler reserves it once for the
/// largest placement the scenario allows (min(H, max_j D_j + 1) servers: N <= D_j workers and
/// one PS host), so filling it never allocates.
pub type Placement = alloc::vec::Vec<Placed>;

/// A window of A_dual: relative slot t is absolute slot `base + t`; `len` slots usable
/// (t- >= 1 and t- + L <= len).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Absolute slot of relative slot 0: alpha tau_i + (iota - 1) tau_i.
    pub base: u32,
    /// min(tau_i, T' - base), T' = [`OnlineScenario::horizon`].
    pub len: u32,
}

/// Read-only view of the prices and free capacity the searches see.
pub struct Ctx<'a> {
    /// The scenario.
    pub scn: &'a OnlineScenario,
    /// lambda = 2 T H R F + 1 (eq. 11).
    pub lambda: f64,
    /// beta_h^r(t): every reservation ([`usage::SparseUsage`]).
    pub usage: &'a usage::SparseUsage,
    /// The reservations of the current window, chained per server.
    pub win: &'a usage::WindowIndex,
    /// H.
    pub h: usize,
    /// R.
    pub r: usize,
    phi_max: &'a [u32],
}

impl Ctx<'_> {
    /// beta_h^r(t) for a slot t of the current window.
    pub fn used(&self, t: u32, h: usize, r: usize) -> f64 {
        self.win.at(self.usage, self.r, t, h, r)
    }

    fn cell(&self, t: u32, h: usize, r: usize) -> (f64, f64) {
        let used = self.used(t, h, r);
        let cap = self.scn.servers.get(h).map_or(0.0, |c| c.get(r));
        (used, cap)
    }

    /// omega_h^r(t) = C_h^r - beta_h^r(t).
    pub fn free(&self, t: u32, h: usize, r: usize) -> f64 {
        let (used, cap) = self.cell(t, h, r);
        cap - used
    }

    /// delta_h^r(t) of eq. (11).
    pub fn delta(&self, t: u32, h: usize, r: usize) -> f64 {
        let (used, cap) = self.cell(t, h, r);
        crate::price::zhou_price(self.lambda, used, cap)
    }

    /// True for Ring-AllReduce.
    pub fn ring(&self) -> bool {
        self.scn.architecture == Architecture::Ring
    }

    /// Most workers of type m the whole (empty) cluster holds: larger Phi are infeasible.
    pub fn phi_max(&self, m: usize) -> u32 {
        self.phi_max.get(m).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod world_tests;
