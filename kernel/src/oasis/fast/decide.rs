//! [`FastDp::decide`]: Alg. 2 for one job. The t_hat scan sweeps the slots from a_i, lists
//! each slot's cheapest servers (its Wcap and Dcap, [`FastDp::capacity_now`]), runs one DP row
//! per slot and stops on the price-floor bound; a rejection's reason comes from the rest of
//! the window, ended early by the pools' census ([`FastDp::rest_covers`]).
use super::dp::{DpSize, FastDp};
use crate::model::oasis::Utility;
use crate::num::greater;
use crate::oasis::market::{JobParams, Market};
use crate::oasis::{OasisError, OasisJobDecision, Reason};

impl FastDp {
    /// Lists the cheapest servers of the current slot (workers until N_i, parameter servers
    /// until ceil(N_i b_i / B_i), or all) and returns Wcap and its chunks. The listed fits stand
    /// in for the pools' totals: min(N_i, total) and the PS checks below come out the same.
    fn capacity_now(&mut self, m: &Market, job: &JobParams) -> (u64, u64) {
        self.listed += 1;
        let n = job.max_workers as u64;
        self.wsw.list(&m.workers, &job.worker_demand, n);
        self.psw.list(&m.ps, &job.ps_demand, job.ps_for(n));
        let lo = wcap(
            job,
            n.min(self.wsw.cum[self.wsw.k]),
            self.psw.cum[self.psw.k],
        );
        (lo, job.chunks_for(lo))
    }

    /// A lower bound of Dcap(t) ([`Self::capacity_now`]) from the pools' census of slot `t`
    /// ([`Sweep::census_fit`](super::sweep::Sweep::census_fit)): [`wcap`] over lower bounds of both
    /// pools' total fits is at most Wcap(t), so its chunks are at most Dcap(t). `None` without a
    /// census.
    fn census_dcap(&mut self, m: &Market, job: &JobParams, t: u32) -> Option<u64> {
        let n = job.max_workers as u64;
        let w = self.wsw.census_fit(&m.workers, &job.worker_demand, t, n)?;
        if w == 0 {
            return Some(0);
        }
        let ps_total = self
            .psw
            .census_fit(&m.ps, &job.ps_demand, t, job.ps_for(n))?;
        Some(job.chunks_for(wcap(job, n.min(w), ps_total)))
    }

    /// Do the slots after `t` surely hold `need` more chunks? From their census
    /// ([`Self::census_dcap`]): the suffix sums are computed once a decision, from T - 1 down
    /// (stopping as soon as they reach `need`), and later calls (larger `t`) read them. False
    /// without a census.
    fn rest_covers(&mut self, m: &Market, job: &JobParams, t: u32, need: u64) -> bool {
        let from = t + 1;
        let known = match self.rest_from {
            Some(k) => k,
            None => {
                let mut acc = 0u64;
                let mut x = m.slots();
                while x > from {
                    x -= 1;
                    let Some(d) = self.census_dcap(m, job, x) else {
                        // no census: no suffix is known this decision
                        self.rest_from = Some(m.slots());
                        return false;
                    };
                    acc = acc.saturating_add(d);
                    if acc >= need {
                        return true;
                    }
                    if let Some(r) = self.rest.get_mut(x as usize) {
                        *r = acc;
                    }
                }
                self.rest_from = Some(from);
                from
            }
        };
        from >= known
            && from < m.slots()
            && self.rest.get(from as usize).is_some_and(|&r| r >= need)
    }

    /// COST_t(t, w) for w workers of the listed slot.
    pub(super) fn slot_cost(&self, job: &JobParams, w: u64) -> f64 {
        self.wsw.cost(w) + self.psw.cost(job.ps_for(w))
    }

    fn start(&mut self, m: &Market, job: &JobParams, t: u32, tree: bool) {
        self.wsw.start(&m.workers, &job.worker_demand, t, tree);
        self.psw.start(&m.ps, &job.ps_demand, t, tree);
    }

    fn step(&mut self, m: &Market, job: &JobParams, tree: bool) {
        self.wsw.step(&m.workers, &job.worker_demand, tree);
        self.psw.step(&m.ps, &job.ps_demand, tree);
    }

    /// Alg. 2 for `job` (index `idx`) against the prices of `m`; the schedule stays in the
    /// scratch until the next call ([`Self::schedule`]). Allocates nothing.
    pub fn decide(
        &mut self,
        m: &Market,
        idx: u32,
        job: &JobParams,
        f: &Utility,
    ) -> Result<OasisJobDecision, OasisError> {
        self.out_len = 0;
        self.cells = 0;
        self.listed = 0;
        self.rest_from = None;
        let a = job.arrival;
        let t_end = m.slots();
        let d_all = job.workload;
        let mut dec = OasisJobDecision {
            job: idx,
            arrival: a,
            admitted: false,
            reason: Reason::NoFeasibleSchedule,
            completion_slot: None,
            utility: 0.0,
            cost: 0.0,
            payoff: 0.0,
        };
        if !m.settled() {
            return Err(OasisError::Unsettled);
        }
        let Some(size) = FastDp::size_of(m, job, f) else {
            return Ok(dec);
        };
        let row = size.row;
        self.check_room(&size, t_end)?;
        let reach = size.cells / row.max(1);
        let lb = Self::floor_bound(m, job);
        let per_slot = job.chunks_for(job.max_workers as u64);
        for x in self
            .f_prev
            .iter_mut()
            .take(row)
            .chain(self.f_cur.iter_mut().take(row))
        {
            *x = f64::INFINITY;
        }
        self.f_prev[0] = 0.0;
        self.f_cur[0] = 0.0;
        self.start(m, job, a, true);
        self.row_w[0] = 0;
        self.row_p[0] = 0;
        let mut hi_prev = 0u64;
        let mut covered = 0u64; // sum of Dcap over the slots swept so far
                                // Alg. 2 line 3: mu_i = 0, l* = none; a t_hat replaces it only with a larger payoff.
        let mut best = 0.0f64;
        let mut best_t = None;
        let mut best_cost = 0.0;
        let mut t = a;
        // the scan stops at or before slot `stop` (the break test below holds there)
        let mut stop = t_end.min(a.saturating_add(reach as u32));
        while t < t_end {
            if t > a {
                self.step(m, job, true);
            }
            let util = f.at(t - a);
            if (t - a) as usize >= reach || !greater(util - lb, best) {
                break; // no later t_hat can pay more: f_i only falls and cost >= lb
            }
            // Completing at t_hat >= t needs the D_i - covered chunks left in t..=t_hat, at most
            // N_i workers' chunks a slot: no t_hat before `e` is feasible, and none from `e`
            // on pays more than f_i(e - a_i) - lb. So if that cannot beat the best, stop.
            let left = d_all.saturating_sub(covered);
            if left > 0 {
                let e = u64::from(t) + left.div_ceil(per_slot.max(1)) - 1;
                if e >= u64::from(t_end) || !greater(f.at(e as u32 - a) - lb, best) {
                    break;
                }
            }
            // best only rises, so a slot where the break test holds now stops the scan there
            // or earlier: move `stop` down while the test holds at the slot before it
            while stop - 1 > t && !greater(f.at(stop - 1 - a) - lb, best) {
                stop -= 1;
            }
            let (wcap, dcap) = self.capacity_now(m, job);
            covered = covered.saturating_add(dcap);
            let r = (t - a) as usize;
            let ew = self.wsw.save(&mut self.list_w, self.row_w[r]);
            let ep = self.psw.save(&mut self.list_p, self.row_p[r]);
            let (Some(ew), Some(ep)) = (ew, ep) else {
                return Err(OasisError::Internal);
            };
            self.row_w[r + 1] = ew;
            self.row_p[r + 1] = ep;
            let np = self.points(job, wcap);
            // An upper bound of the chunks the slots after t that the scan can still reach
            // (t + 1..stop) can cover: the cut `lo` is at or below the exact one and moves by
            // at least Dcap(t) per row (`stop` never rises), so every cell a row reads was
            // computed by the row before, and every cell the reconstruction reads is computed.
            let future = per_slot.saturating_mul((stop - 1 - t) as u64);
            let lo = d_all.saturating_sub(future);
            let hi = d_all.min(hi_prev.saturating_add(dcap));
            let base = (t - a) as usize * row;
            self.row(np, lo, hi, dcap, base);
            core::mem::swap(&mut self.f_prev, &mut self.f_cur);
            hi_prev = hi;
            let cost = self.f_prev[d_all as usize];
            if hi == d_all && cost.is_finite() {
                let payoff = util - cost;
                if greater(payoff, best) {
                    best = payoff;
                    best_t = Some(t);
                    best_cost = cost;
                    dec.utility = util;
                }
            }
            t += 1;
        }
        let Some(tb) = best_t else {
            // Rejected: infeasible iff the whole window's capacity stays below D_i.
            dec.reason = self.rejection(m, job, t, covered);
            return Ok(dec);
        };
        dec.completion_slot = Some(tb);
        dec.cost = best_cost;
        dec.payoff = best;
        dec.admitted = true;
        dec.reason = Reason::Admitted;
        self.reconstruct(job, a, tb, row)?;
        Ok(dec)
    }

    /// Does the scratch hold a decision of `size` over `t_end` slots? Else the error
    /// [`Self::decide`] returns.
    fn check_room(&self, size: &DpSize, t_end: u32) -> Result<(), OasisError> {
        if size.row > self.f_prev.len()
            || size.cells > self.choice.len()
            || t_end as usize > self.slots
            || size.points > self.pt_w.len()
            || size.pairs_w > self.pairs_w.len()
            || size.pairs_p > self.pairs_p.len()
            || size.list_w > self.list_w.len()
            || size.list_p > self.list_p.len()
            || size.rows >= self.row_w.len()
            || size.workers != self.wsw.n
            || size.ps != self.psw.n
        {
            return Err(OasisError::Capacity(crate::CapacityError {
                limit: crate::Limit::OasisDpCells,
                max: self.choice.len() as u64,
                got: size.cells as u64,
                job: None,
            }));
        }
        Ok(())
    }

    /// The reason of a rejection when the t_hat scan stopped at slot `t` (the sweep's state
    /// is there, not yet counted) with `covered` chunks counted over the slots before: no
    /// feasible schedule iff the whole window's capacity stays below D_i. Sweeps on (totals
    /// only) from the first slot not yet counted until that is decided.
    fn rejection(&mut self, m: &Market, job: &JobParams, mut t: u32, mut covered: u64) -> Reason {
        let t_end = m.slots();
        let d_all = job.workload;
        let per_slot = job.chunks_for(job.max_workers as u64);
        if covered < d_all && t < t_end {
            // the state is at slot t (stepped before the break), not yet counted
            loop {
                let (_, dcap) = self.capacity_now(m, job);
                covered = covered.saturating_add(dcap);
                if covered >= d_all || t + 1 >= t_end {
                    break;
                }
                let rest = (t_end - 1 - t) as u64; // slots after t
                if covered.saturating_add(per_slot.saturating_mul(rest)) < d_all {
                    break; // even N_i workers in every later slot fall short
                }
                if self.rest_covers(m, job, t, d_all - covered) {
                    // the later slots' census alone proves they hold the rest
                    covered = d_all;
                    break;
                }
                if !m.workers.changes_after(t) && !m.ps.changes_after(t) {
                    // no usage changes after t: every later slot offers Dcap(t)
                    covered = covered.saturating_add(dcap.saturating_mul(rest));
                    break;
                }
                self.step(m, job, true);
                t += 1;
            }
        }
        if covered >= d_all {
            Reason::NonPositivePayoff
        } else {
            Reason::NoFeasibleSchedule
        }
    }
}

/// Wcap given at most `wmax` workers and `ps_total` parameter-server fits: the largest
/// w <= wmax whose ceil(w b / B) parameter servers fit and are <= w (6, 7). Both conditions
/// hold on a prefix of w (so bisect; w = 0 always qualifies) and only weaken as `wmax` and
/// `ps_total` grow, so bounds of the totals give bounds of Wcap.
fn wcap(job: &JobParams, wmax: u64, ps_total: u64) -> u64 {
    let ok = |w: u64| {
        let z = job.ps_for(w);
        z <= w && z <= ps_total
    };
    crate::num::last_true(0, u128::from(wmax), |w| ok(w as u64)) as u64
}
