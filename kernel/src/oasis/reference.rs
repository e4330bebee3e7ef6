//! The paper-literal Alg. 2 (reference; feature `reference` or tests): COST_t sorts the servers
//! on every call and places workers then parameter servers greedily (lines 23-46); DP_COST tries
//! every split d = 0..=D of the workload between the last slot and the earlier ones (lines
//! 12-22), memoised per (t, D') as the paper stores its sub-results: O(T D^2) per job. It
//! allocates freely and is only an oracle for the fast path.
//!
//! Independent of the fast path: [`RefMarket`] keeps its own usage g_h^r(t) / v_k^r(t) and
//! computes every price by eq. (22) from it, the bounds U1, U2, L1, L2 by eqs. (23)-(26) when the
//! scenario gives none, and m_i, D_i, ceil(d m_i), ceil(y b_i / B_i) and the fits itself, from
//! the model types only (no `super::market`, `crate::price`, `crate::order`;
//! `tests/tests/reference_independence.rs` scans this file). Shared: the model, the utility
//! functions f_i of the model, and the rounding / comparison conventions of `crate::num`
//! (`semantics.md`).
use crate::model::oasis::{OasisJob, OasisScenario, Utility};
use crate::num::{ceil_eps, floor_eps, greater, less};
use alloc::vec;
use alloc::vec::Vec;

/// Why a job was admitted or not (the fast path's reasons, by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefReason {
    /// The best payoff is > 0.
    Admitted,
    /// No completion slot before T admits a feasible schedule.
    NoFeasibleSchedule,
    /// A feasible schedule exists but the best payoff is <= 0.
    NonPositivePayoff,
}

/// The reference's decision for one job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefOutcome {
    /// x_i.
    pub admitted: bool,
    /// Why.
    pub reason: RefReason,
    /// t_hat.
    pub completion_slot: Option<u32>,
    /// f_i(t_hat - a_i).
    pub utility: f64,
    /// The schedule's cost at the prices it was decided on.
    pub cost: f64,
    /// utility - cost.
    pub payoff: f64,
}

/// U1^r, U2^r, L1, L2 of eq. (22).
#[derive(Clone, Debug, PartialEq)]
pub struct RefBounds {
    /// U1^r.
    pub u_worker: Vec<f64>,
    /// U2^r.
    pub u_ps: Vec<f64>,
    /// L1.
    pub l_worker: f64,
    /// L2.
    pub l_ps: f64,
}

/// The smallest derived floor (`docs/oasis.md`: L below 1e-290 is raised to it).
const FLOOR_MIN: f64 = 1e-290;

/// ln f_i(d) for a sigmoid utility with priority > 0, in the log domain so that it stays finite
/// where `exp` overflows: ln g1 - ln(1 + e^z), z = g2 (d - g3), with ln(1 + e^z) = z + ln(1 +
/// e^-z) for z > 0. `None` for table utilities and non-positive priorities.
fn ln_sigmoid(j: &OasisJob, d: u32) -> Option<f64> {
    match j.utility {
        Utility::Sigmoid {
            priority,
            decay,
            target,
        } if priority > 0.0 => {
            let z = decay * (d as f64 - target);
            let softplus = if z > 0.0 {
                z + libm::log1p(libm::exp(-z))
            } else {
                libm::log1p(libm::exp(z))
            };
            Some(libm::log(priority) - softplus)
        }
        _ => None,
    }
}

/// m_i = M_i (tau_i + 2 e_i / b_i): slots one worker needs per chunk.
pub fn chunk_time(j: &OasisJob) -> f64 {
    j.minibatches_per_chunk as f64 * (j.minibatch_time + 2.0 * j.comm_time)
}

/// D_i = E_i N_i chunk-passes.
pub fn workload(j: &OasisJob) -> u64 {
    j.epochs as u64 * j.chunks as u64
}

fn sat(x: f64) -> u64 {
    if x <= 0.0 || x.is_nan() {
        0
    } else if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x as u64
    }
}

/// ceil(d m_i): workers for d chunks in one slot (Alg. 2 line 26).
pub fn workers_for(j: &OasisJob, d: u64) -> u64 {
    sat(ceil_eps(d as f64 * chunk_time(j)))
}

/// ceil(y b_i / B_i): parameter servers for y workers (constraint 6).
pub fn ps_for(j: &OasisJob, y: u64) -> u64 {
    sat(ceil_eps(y as f64 * j.worker_bw / j.ps_bw))
}

/// Eqs. (23)-(26) as `docs/oasis.md` reads them (f takes a duration): per side,
/// U^r = max_i f_i(ceil(E_i m_i) - 1) / dem_i^r over jobs with dem_i^r > 0;
/// L = min_i f_i(T - 1 - a_i) / (4 eta W_i) with W_i = ceil(E_i N_i m_i) sum_r dem_i^r over jobs
/// with both positive, eta = max(1, max_i T (sum of the side's capacities) / W_i); L raised to
/// 1e-290, every U to at least L; a sigmoid whose f_i underflows counts as below the floor (issue
/// 45, decided in the log domain). `None` when L cannot be derived.
pub fn derive_bounds(scn: &OasisScenario) -> Option<RefBounds> {
    let r = scn.resources as usize;
    let side = |worker: bool| -> Option<(Vec<f64>, f64)> {
        let caps = if worker {
            &scn.worker_servers
        } else {
            &scn.ps_servers
        };
        let mut total = 0.0;
        for c in caps {
            total += c.as_slice().iter().sum::<f64>();
        }
        let t = scn.slots as f64;
        let mut eta: f64 = 1.0;
        let mut floor = f64::INFINITY;
        // min ln(f_i(T - 1 - a_i) / W_i) over the sigmoid jobs, exact where f_i underflows.
        let mut ln_floor = f64::INFINITY;
        let mut upper = vec![0.0; r];
        for j in &scn.jobs {
            let dem = if worker {
                &j.worker_demand
            } else {
                &j.ps_demand
            };
            let m = chunk_time(j);
            // Eqs. (23)/(24): the fastest run, N_i workers throughout, lasts ceil(E_i m_i)
            // slots and completes at offset ceil(E_i m_i) - 1.
            let fastest = ceil_eps(j.epochs as f64 * m);
            let best = j.utility.at(if fastest >= 1.0 {
                fastest as u32 - 1
            } else {
                0
            });
            for (k, u) in upper.iter_mut().enumerate() {
                let d = dem.get(k);
                if d > 0.0 && best / d > *u {
                    *u = best / d;
                }
            }
            // Eqs. (25)/(26).
            let w = ceil_eps(workload(j) as f64 * m) * dem.as_slice().iter().sum::<f64>();
            if w > 0.0 {
                if t * total / w > eta {
                    eta = t * total / w;
                }
                let d = scn.slots.saturating_sub(1 + j.arrival);
                let last = j.utility.at(d);
                if last > 0.0 && last / w < floor {
                    floor = last / w;
                }
                if let Some(ln_f) = ln_sigmoid(j, d) {
                    ln_floor = ln_floor.min(ln_f - libm::log(w));
                }
            }
        }
        if !floor.is_finite() && !ln_floor.is_finite() {
            return None;
        }
        // A sigmoid whose f_i underflowed (exp overflowed, f_i = 0) still belongs to the
        // minimum (issue 45): in the log domain it is below the floor, and so is L.
        let low = if ln_floor - libm::log(4.0 * eta) < libm::log(FLOOR_MIN) {
            FLOOR_MIN
        } else {
            (floor / (4.0 * eta)).max(FLOOR_MIN)
        };
        for u in &mut upper {
            if *u < low {
                *u = low;
            }
        }
        Some((upper, low))
    };
    let (u_worker, l_worker) = side(true)?;
    let (u_ps, l_ps) = side(false)?;
    Some(RefBounds {
        u_worker,
        u_ps,
        l_worker,
        l_ps,
    })
}

/// Eq. (22): L (U / L)^(g / c) (an empty-capacity cell is full), in the log domain when U / L
/// overflows.
pub fn price(lower: f64, upper: f64, used: f64, capacity: f64) -> f64 {
    let x = if capacity > 0.0 { used / capacity } else { 1.0 };
    let ratio = upper / lower;
    if ratio.is_finite() {
        lower * libm::pow(ratio, x)
    } else {
        libm::exp(libm::log(lower) + x * (libm::log(upper) - libm::log(lower)))
    }
}

/// One pool's capacities and usage.
#[derive(Clone, Debug, PartialEq)]
struct RefPool {
    caps: Vec<Vec<f64>>,
    /// usage[t][s][r].
    usage: Vec<Vec<Vec<f64>>>,
    upper: Vec<f64>,
    lower: f64,
}

impl RefPool {
    fn new(slots: u32, caps: &[crate::ResourceVec], upper: Vec<f64>, lower: f64) -> Self {
        let caps: Vec<Vec<f64>> = caps.iter().map(|c| c.as_slice().to_vec()).collect();
        let r = upper.len();
        RefPool {
            usage: vec![vec![vec![0.0; r]; caps.len()]; slots as usize],
            caps,
            upper,
            lower,
        }
    }

    fn servers(&self) -> u32 {
        self.caps.len() as u32
    }

    /// sum_r price^r(t) dem^r, resources in index order.
    fn unit_price(&self, t: u32, s: u32, dem: &crate::ResourceVec) -> f64 {
        let (t, s) = (t as usize, s as usize);
        let mut acc = 0.0;
        for r in 0..self.upper.len() {
            let p = price(
                self.lower,
                self.upper[r],
                self.usage[t][s][r],
                self.caps[s][r],
            );
            acc += p * dem.get(r);
        }
        acc
    }

    /// floor(min_r (c^r - g^r(t)) / dem^r) over dem^r > 0 (constraints 30/31).
    fn fit(&self, t: u32, s: u32, dem: &crate::ResourceVec) -> u64 {
        let (t, s) = (t as usize, s as usize);
        let mut best = u64::MAX;
        for r in 0..self.upper.len() {
            let d = dem.get(r);
            if d > 0.0 {
                let k = floor_eps((self.caps[s][r] - self.usage[t][s][r]) / d);
                best = best.min(if k >= u32::MAX as f64 {
                    u32::MAX as u64
                } else {
                    sat(k)
                });
            }
        }
        best.min(u32::MAX as u64)
    }

    fn add(&mut self, t: u32, s: u32, dem: &crate::ResourceVec, count: u32) {
        for r in 0..self.upper.len() {
            if dem.get(r) != 0.0 {
                self.usage[t as usize][s as usize][r] += dem.get(r) * count as f64;
            }
        }
    }
}

/// One slot of a booked schedule: (t, `[h, y]` worker counts, `[k, z]` PS counts).
pub type BookedSlot = (u32, Vec<[u32; 2]>, Vec<[u32; 2]>);

/// The reference's priced cluster: its own usage, prices by eq. (22) on demand.
#[derive(Clone, Debug, PartialEq)]
pub struct RefMarket {
    slots: u32,
    workers: RefPool,
    ps: RefPool,
    bounds: RefBounds,
}

impl RefMarket {
    /// An idle cluster for `scn`: the scenario's `prices`, or eqs. (23)-(26). `None` when the
    /// bounds cannot be derived.
    pub fn new(scn: &OasisScenario) -> Option<Self> {
        let bounds = match &scn.prices {
            Some(p) => RefBounds {
                u_worker: p.u_worker.as_slice().to_vec(),
                u_ps: p.u_ps.as_slice().to_vec(),
                l_worker: p.l_worker,
                l_ps: p.l_ps,
            },
            None => derive_bounds(scn)?,
        };
        Some(RefMarket {
            slots: scn.slots,
            workers: RefPool::new(
                scn.slots,
                &scn.worker_servers,
                bounds.u_worker.clone(),
                bounds.l_worker,
            ),
            ps: RefPool::new(scn.slots, &scn.ps_servers, bounds.u_ps.clone(), bounds.l_ps),
            bounds,
        })
    }

    /// The bounds in force.
    pub fn bounds(&self) -> &RefBounds {
        &self.bounds
    }

    /// Usage copied in cell by cell (e.g. from another implementation's state): `worker(t, h,
    /// r)` and `ps(t, k, r)`. Prices stay this module's own.
    pub fn set_usage(
        &mut self,
        worker: impl Fn(u32, u32, usize) -> f64,
        ps: impl Fn(u32, u32, usize) -> f64,
    ) {
        for (pool, f) in [
            (
                &mut self.workers,
                &worker as &dyn Fn(u32, u32, usize) -> f64,
            ),
            (&mut self.ps, &ps),
        ] {
            for (t, row) in pool.usage.iter_mut().enumerate() {
                for (s, cell) in row.iter_mut().enumerate() {
                    for (r, g) in cell.iter_mut().enumerate() {
                        *g = f(t as u32, s as u32, r);
                    }
                }
            }
        }
    }

    /// Books job `j`'s schedule (Alg. 1 lines 9-12): per slot, `[h, y]` worker and `[k, z]`
    /// parameter-server counts.
    pub fn commit(&mut self, j: &OasisJob, slots: &[BookedSlot]) {
        for (t, w, p) in slots {
            for &[h, y] in w {
                self.workers.add(*t, h, &j.worker_demand, y);
            }
            for &[k, z] in p {
                self.ps.add(*t, k, &j.ps_demand, z);
            }
        }
    }

    /// The price of worker server h's resource r in slot t (eq. 22).
    pub fn worker_price(&self, t: u32, h: u32, r: usize) -> f64 {
        let p = &self.workers;
        price(
            p.lower,
            p.upper[r],
            p.usage[t as usize][h as usize][r],
            p.caps[h as usize][r],
        )
    }

    /// The price of PS server k's resource r in slot t (eq. 22).
    pub fn ps_price(&self, t: u32, k: u32, r: usize) -> f64 {
        let p = &self.ps;
        price(
            p.lower,
            p.upper[r],
            p.usage[t as usize][k as usize][r],
            p.caps[k as usize][r],
        )
    }
}

/// Indices sorted by key, equal keys by index (a stable insertion sort).
fn sorted_by(n: u32, key: &[f64]) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n).collect();
    v.sort_by(|&a, &b| key[a as usize].total_cmp(&key[b as usize]).then(a.cmp(&b)));
    v
}

/// One slot of a reference schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct RefSlot {
    /// t.
    pub slot: u32,
    /// Chunks trained in t.
    pub chunks: u64,
    /// `[h, y]` pairs, by server index, y > 0.
    pub workers: Vec<[u32; 2]>,
    /// `[k, z]` pairs, by server index, z > 0.
    pub ps: Vec<[u32; 2]>,
    /// COST_t.
    pub cost: f64,
}

/// A reference decision and its schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct RefDecision {
    /// The decision.
    pub decision: RefOutcome,
    /// Slots with workers, in time order.
    pub slots: Vec<RefSlot>,
}

/// COST_t(t, d) of Alg. 2 lines 23-46: (cost, y per worker server, z per PS server); cost is
/// +inf when the workers or the parameter servers do not fit.
pub fn cost_t(m: &RefMarket, job: &OasisJob, t: u32, d: u64) -> (f64, Vec<u32>, Vec<u32>) {
    let hn = m.workers.servers();
    let kn = m.ps.servers();
    let mut y = vec![0u32; hn as usize];
    let mut z = vec![0u32; kn as usize];
    let unit_w: Vec<f64> = (0..hn)
        .map(|h| m.workers.unit_price(t, h, &job.worker_demand))
        .collect();
    let order = sorted_by(hn, &unit_w);
    let mut need = workers_for(job, d);
    let mut placed = 0u64;
    for &h in &order {
        let fit = m.workers.fit(t, h, &job.worker_demand);
        let take = fit.min(job.chunks as u64 - placed).min(need);
        y[h as usize] = take as u32;
        placed += take;
        need -= take;
    }
    if need > 0 {
        return (f64::INFINITY, y, z);
    }
    let unit_p: Vec<f64> = (0..kn)
        .map(|k| m.ps.unit_price(t, k, &job.ps_demand))
        .collect();
    let order_p = sorted_by(kn, &unit_p);
    let target = ps_for(job, placed);
    let mut zs = 0u64;
    for &k in &order_p {
        let fit = m.ps.fit(t, k, &job.ps_demand);
        let take = fit
            .min(target.saturating_sub(zs))
            .min(placed.saturating_sub(zs));
        z[k as usize] = take as u32;
        zs += take;
    }
    if (zs as f64) < placed as f64 * job.worker_bw / job.ps_bw - crate::num::ROUND_EPS {
        return (f64::INFINITY, y, z);
    }
    let mut cw = 0.0;
    for &h in &order {
        cw += unit_w[h as usize] * y[h as usize] as f64;
    }
    let mut cp = 0.0;
    for &k in &order_p {
        cp += unit_p[k as usize] * z[k as usize] as f64;
    }
    (cw + cp, y, z)
}

fn pairs(v: &[u32]) -> Vec<[u32; 2]> {
    v.iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(i, &c)| [i as u32, c])
        .collect()
}

/// Alg. 2 (and Alg. 1's admission rule) for job `idx`, literally.
pub fn decide(m: &RefMarket, job: &OasisJob) -> RefDecision {
    let f = &job.utility;
    let a = job.arrival;
    let big_d = workload(job) as usize;
    let mut dec = RefOutcome {
        admitted: false,
        reason: RefReason::NoFeasibleSchedule,
        completion_slot: None,
        utility: 0.0,
        cost: 0.0,
        payoff: 0.0,
    };
    // rows[t - a][D'] = DP_COST(t, D'); arg[t - a][D'] = the d kept for slot t.
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut args: Vec<Vec<usize>> = Vec::new();
    // Alg. 2 line 3: mu_i = 0 and l* = none; line 7 keeps a strictly larger payoff.
    let mut best = 0.0f64;
    let mut best_t = None;
    let mut feasible = false;
    for t in a..m.slots {
        let costs: Vec<f64> = (0..=big_d).map(|d| cost_t(m, job, t, d as u64).0).collect();
        let mut row = vec![f64::INFINITY; big_d + 1];
        let mut arg = vec![0usize; big_d + 1];
        for dd in 0..=big_d {
            let mut min_cost = f64::INFINITY;
            for d in 0..=dd {
                let rest = match rows.last() {
                    Some(prev) => prev[dd - d],
                    None => {
                        if dd == d {
                            0.0
                        } else {
                            f64::INFINITY
                        }
                    }
                };
                let total = costs[d] + rest;
                if less(total, min_cost) {
                    min_cost = total;
                    arg[dd] = d;
                }
            }
            row[dd] = min_cost;
        }
        rows.push(row);
        args.push(arg);
        let cost = rows[(t - a) as usize][big_d];
        if cost.is_finite() {
            feasible = true;
            let util = f.at(t - a);
            let payoff = util - cost;
            if greater(payoff, best) {
                best = payoff;
                best_t = Some(t);
                dec.utility = util;
                dec.cost = cost;
            }
        }
    }
    let Some(tb) = best_t else {
        if feasible {
            dec.reason = RefReason::NonPositivePayoff;
        }
        dec.utility = 0.0;
        dec.cost = 0.0;
        return RefDecision {
            decision: dec,
            slots: Vec::new(),
        };
    };
    dec.completion_slot = Some(tb);
    dec.payoff = best;
    dec.admitted = true;
    dec.reason = RefReason::Admitted;
    let mut plan = vec![0usize; (tb - a + 1) as usize];
    let mut x = big_d;
    for t in (a..=tb).rev() {
        let d = args[(t - a) as usize][x];
        plan[(t - a) as usize] = d;
        x -= d;
    }
    let mut slots = Vec::new();
    for t in a..=tb {
        let d = plan[(t - a) as usize];
        if d == 0 {
            continue;
        }
        let (cost, y, z) = cost_t(m, job, t, d as u64);
        slots.push(RefSlot {
            slot: t,
            chunks: d as u64,
            workers: pairs(&y),
            ps: pairs(&z),
            cost,
        });
    }
    RefDecision {
        decision: dec,
        slots,
    }
}
