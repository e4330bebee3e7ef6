//! The paper-literal Alg. 2 (reference; feature `reference` or tests): COST_t sorts the servers
//! on every call and places workers then parameter servers greedily (lines 23-46); DP_COST tries
//! every split d = 0..=D of the workload between the last slot and the earlier ones (lines
//! 12-22), memoised per (t, D') as the paper stores its sub-results: O(T D^2) per job. It
//! allocates freely and is only an oracle for the fast path.
use super::market::{JobParams, Market};
use super::{Decision, Reason};
use crate::model::oasis::Utility;
use crate::num::{greater, less};
use crate::order::sort_indices_by_key;
use alloc::vec;
use alloc::vec::Vec;

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
    /// The decision (same fields as the fast path's).
    pub decision: Decision,
    /// Slots with workers, in time order.
    pub slots: Vec<RefSlot>,
}

/// COST_t(t, d) of Alg. 2 lines 23-46: (cost, y per worker server, z per PS server); cost is
/// +inf when the workers or the parameter servers do not fit.
pub fn cost_t(m: &Market, job: &JobParams, t: u32, d: u64) -> (f64, Vec<u32>, Vec<u32>) {
    let hn = m.workers.servers();
    let kn = m.ps.servers();
    let mut y = vec![0u32; hn as usize];
    let mut z = vec![0u32; kn as usize];
    let unit_w: Vec<f64> = (0..hn)
        .map(|h| m.workers.unit_price(t, h, &job.worker_demand))
        .collect();
    let mut order: Vec<u32> = (0..hn).collect();
    sort_indices_by_key(&mut order, |h| unit_w[h as usize]);
    let mut need = job.workers_for(d);
    let mut placed = 0u64;
    for &h in &order {
        let fit = m.workers.fit(t, h, &job.worker_demand) as u64;
        let take = fit.min(job.max_workers as u64 - placed).min(need);
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
    let mut order_p: Vec<u32> = (0..kn).collect();
    sort_indices_by_key(&mut order_p, |k| unit_p[k as usize]);
    let target = job.ps_for(placed);
    let mut zs = 0u64;
    for &k in &order_p {
        let fit = m.ps.fit(t, k, &job.ps_demand) as u64;
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
pub fn decide(m: &Market, idx: u32, job: &JobParams, f: &Utility) -> RefDecision {
    let a = job.arrival;
    let big_d = job.workload as usize;
    let mut dec = Decision {
        job: idx,
        arrival: a,
        admitted: false,
        reason: Reason::NoFeasibleSchedule,
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
    for t in a..m.slots() {
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
            dec.reason = Reason::NonPositivePayoff;
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
    dec.reason = Reason::Admitted;
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
