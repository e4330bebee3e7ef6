//! Risk-Reward Heuristic (RRH) on OASiS scenarios, as the OASiS paper's comparison describes it
//! (section V, scheme (iii)): a job is admitted if its utility minus the delay cost its
//! admission incurs exceeds a threshold; upon a job arrival or completion every unfinished job
//! either continues (with the same fixed worker / PS numbers) or pauses, decided by its future
//! utility gain minus cost; units are placed round-robin.
//!
//! The paper leaves the delay cost and the threshold open; our readings (`docs/oasis.md`):
//! - a job j running from slot t with its fixed n_j = min(N_j, [`FIXED_WORKERS`]) workers
//!   processes c_j = floor(n_j / m_j) chunks a slot and needs L_j = ceil(remaining_j / c_j)
//!   slots; its **gain** is f_j(t + L_j - 1 - a_j), 0 if that is past T - 1, if c_j = 0, or
//!   if its gang does not fit even on the idle cluster (it can never run);
//! - the **delay** it imposes on the others is delta_j = ceil(L_j * share_j) slots, share_j the
//!   dominant share of its n_j workers and z_j PSs over the whole cluster (the cluster-wide
//!   time its work occupies);
//! - its **cost** is the utility the other active jobs lose when their own gain is delayed by
//!   delta_j (all of it when the delay pushes them past the horizon);
//! - **admission** (at arrival, in (arrival, index) order): gain - cost > [`RRH_THRESHOLD`];
//! - **continue / pause** (at slot 0 and at every slot with an arrival or after a completion):
//!   active jobs are ranked by gain - cost (descending, ties by arrival then index) and run in
//!   that order while their whole gang fits; a job whose gain is 0 (it cannot finish by T) or
//!   that does not fit pauses. Between decision points the running set and its order stay.
//!
//! The cost sums over the active jobs, so a decision point costs O(active^2) utility
//! evaluations; nothing is allocated (the ranking reuses the runner's scratch).
use super::{fixed_workers, ps_for, OasisBaseline, OasisBaselineDecision};
use crate::baseline::{FIXED_WORKERS, RRH_THRESHOLD};
use crate::num::{ceil_u32, floor_eps};
use crate::order::sort_indices_by_keys;
use crate::Slot;

impl OasisBaseline<'_> {
    /// One RRH slot: admissions of the jobs arriving at `t`, the continue / pause decision at
    /// decision points, and the gang placement of the running set.
    pub(super) fn rrh(&mut self, t: Slot, out: &mut dyn FnMut(&OasisBaselineDecision)) {
        let arrivals = self.admit_arrivals(t);
        if arrivals || self.replan || t == 0 {
            self.replan = false;
            self.rank_active(t);
        }
        for k in 0..self.run_len {
            let j = self.idx[k] as usize;
            if !self.jobs[j].running {
                continue;
            }
            let n = fixed_workers(&self.scn.jobs[j]);
            if !self.arrived(j, t) || !self.gang(j, n, t, out) {
                self.jobs[j].running = false;
            }
        }
    }

    /// Admits or rejects every job arriving at `t`; `true` if any arrived.
    fn admit_arrivals(&mut self, t: Slot) -> bool {
        let mut any = false;
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            if self.scn.jobs[j].arrival != t {
                continue;
            }
            any = true;
            let (gain, delta) = self.outlook(j, t);
            if gain - self.delay_cost(j, delta, t) <= RRH_THRESHOLD {
                self.jobs[j].rejected = true;
            }
        }
        any
    }

    /// Ranks the active jobs by gain - cost and decides which run until the next decision
    /// point (the first of them in rank order whose gang fits; the pool is reset afterwards).
    fn rank_active(&mut self, t: Slot) {
        let mut n = 0;
        for j in 0..self.jobs.len() {
            self.jobs[j].running = false;
            if !self.arrived(j, t) {
                continue;
            }
            let (gain, delta) = self.outlook(j, t);
            let score = if gain > 0.0 {
                gain - self.delay_cost(j, delta, t)
            } else {
                f64::NEG_INFINITY
            };
            self.idx[n] = j as u32;
            n += 1;
            // The index sort is ascending: the best score gets the smallest key.
            self.keys[j] = -score;
        }
        self.run_len = n;
        // Ties by index: the sort's order is total on (key, index), so the result does not
        // depend on the order `idx` is in (it cannot fail here: `keys` and `scratch` hold every
        // job). No pre-order by arrival: it would not change the result, and it was a sort of
        // its own in the wasm (11 KB).
        sort_indices_by_keys(&mut self.idx[..n], &self.keys, &mut self.scratch);
        for k in 0..n {
            let j = self.idx[k] as usize;
            if self.keys[j].is_finite() && -self.keys[j] > RRH_THRESHOLD {
                self.jobs[j].running = true;
            }
        }
    }

    /// (gain, delta) of job j if it runs from slot t with its fixed gang: its utility at the
    /// completion that gives (0 past the horizon), and the slots of delay it imposes.
    fn outlook(&self, j: usize, t: Slot) -> (f64, u32) {
        match self.slots_left(j) {
            Some(l) => {
                let job = &self.scn.jobs[j];
                let done = t as u64 + l as u64 - 1;
                let gain = if done < self.scn.slots as u64 {
                    job.utility.at((done - job.arrival as u64) as u32)
                } else {
                    0.0
                };
                let n = fixed_workers(job);
                let share = self.share(j, n, ps_for(job, n));
                (gain, ceil_u32(l as f64 * share).unwrap_or(u32::MAX))
            }
            None => (0.0, 0),
        }
    }

    /// L_j = ceil(remaining / c_j) slots at the fixed rate, `None` if the gang makes no
    /// progress (c_j = 0) or never fits, even on the idle cluster.
    fn slots_left(&self, j: usize) -> Option<u32> {
        if !self.jobs[j].fits_alone {
            return None;
        }
        let job = &self.scn.jobs[j];
        let c = floor_eps(fixed_workers(job) as f64 / job.chunk_time());
        if c < 1.0 {
            return None;
        }
        let rem = self.jobs[j].remaining as f64;
        Some(ceil_u32(rem / c).unwrap_or(u32::MAX).max(1))
    }

    /// Utility the active jobs other than `j` lose if their completion moves `delta` slots
    /// later.
    fn delay_cost(&self, j: usize, delta: u32, t: Slot) -> f64 {
        if delta == 0 {
            return 0.0;
        }
        let mut cost = 0.0;
        for l in 0..self.jobs.len() {
            if l == j || !self.arrived(l, t) {
                continue;
            }
            let Some(len) = self.slots_left(l) else {
                continue;
            };
            let job = &self.scn.jobs[l];
            let done = t as u64 + len as u64 - 1;
            if done >= self.scn.slots as u64 {
                continue; // nothing to lose: it cannot finish anyway
            }
            let now = job.utility.at((done - job.arrival as u64) as u32);
            let later = done + delta as u64;
            let then = if later < self.scn.slots as u64 {
                job.utility.at((later - job.arrival as u64) as u32)
            } else {
                0.0
            };
            cost += now - then;
        }
        cost
    }
}

/// Compile-time reminder that RRH's gang is the FIFO fixed size ("within [1, 30]").
const _: () = assert!(FIXED_WORKERS >= 1 && FIXED_WORKERS <= 30);
