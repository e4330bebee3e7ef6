//! The runner's Dorm hooks: an event re-solves the allocation (active jobs, fair shares,
//! branching order and bounds, then the passes), and every slot places the kept allocation
//! first fit; the accessors and test settings.
use super::bounds::{cmp_vec, fair_shares, order_and_bounds};
use super::greedy::hi_alone;
use super::knapsack::knapsack_items;
use super::passes::solve_passes;
use super::{Ctx, DormEvent, DormStats};
use crate::baseline::oasis::{ps_for, useful_workers, OasisBaseline, OasisBaselineDecision, Unit};
use crate::baseline::BaselineError;
#[cfg(doc)]
use crate::baseline::DORM_ADJUST_MAX;
#[cfg(doc)]
use crate::limits::DORM_EVENT_NODES;
use crate::limits::RESOURCES_MAX;
use crate::order::sort_indices_by;
use crate::Slot;

impl OasisBaseline<'_> {
    /// One Dorm slot: re-solve on an arrival at `t` or a completion in `t - 1`, then place the
    /// kept allocation (the same first-fit-decreasing packing the solve checked).
    pub(in crate::baseline::oasis) fn dorm(
        &mut self,
        t: Slot,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) -> Result<(), BaselineError> {
        let arrival = self.scn.jobs.iter().any(|j| j.arrival == t);
        if arrival || self.replan {
            self.replan = false;
            self.dorm_solve(t)?;
        }
        for k in 0..self.dorm.pack_len {
            let j = self.dorm.pack[k] as usize;
            let x = self.dorm.x[j];
            if x > 0 && self.arrived(j, t) {
                self.dorm_place(j, x, t, out);
            }
        }
        Ok(())
    }

    /// First-fit placement of job j's x workers and their PSs (the packing the solve checked).
    fn dorm_place(
        &mut self,
        j: usize,
        x: u32,
        t: Slot,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) {
        let job = &self.scn.jobs[j];
        let unit = |ps, server| {
            OasisBaselineDecision::Unit(Unit {
                slot: t,
                job: j as u32,
                ps,
                server,
            })
        };
        for _ in 0..x {
            if let Some(h) = self.workers.place_first(&job.worker_demand) {
                self.jobs[j].workers += 1;
                // Unlike the round-robin baselines, Dorm keeps its placement between events
                // and re-places jobs at an event (the Dorm paper's checkpoint-and-resume):
                // the fingerprint is by server, so a re-placement is charged as a restart.
                self.restarts.place(j, 0, h);
                self.spans.mark(j, h);
                out(&unit(false, h));
            }
        }
        for _ in 0..ps_for(job, x) {
            if let Some(k) = self.ps.place_first(&job.ps_demand) {
                self.jobs[j].ps += 1;
                self.restarts.place(j, 1, k);
                out(&unit(true, k));
            }
        }
    }

    /// Dorm's worker count per job (input order) since the last event.
    pub fn dorm_allocation(&self) -> &[u32] {
        &self.dorm.x
    }

    /// The dominant-resource-fair share f_j of each job at the last event (0 for jobs that
    /// were not active).
    pub fn dorm_fair_shares(&self) -> &[f64] {
        &self.dorm.fair
    }

    /// The problem of the last event, as the solver saw it (read by the external MILP probe,
    /// `scripts/dorm-milp-probe.py`).
    pub fn dorm_last_event(&self) -> DormEvent<'_> {
        let d = &self.dorm;
        DormEvent {
            active: &d.pack[..d.pack_len],
            hi: &d.hi,
            old: &d.old,
            fair: &d.fair,
        }
    }

    /// Dorm's solver counters so far.
    pub fn dorm_stats(&self) -> DormStats {
        self.dorm.stats
    }

    /// Sets the node budget of one event (default [`DORM_EVENT_NODES`]): an event whose
    /// search reaches it applies the best feasible allocation found so far (tests raise it to
    /// solve exactly, or lower it to exercise the stop; a scenario's `dorm_event_nodes`
    /// sets it). `u64::MAX` is "unlimited": the search's loop still stops at that many nodes
    /// (each visits one tentative count, so the loop is bounded), but the tree of an event is
    /// finite (at most prod_j (hi_j + 1) leaves per pass) and always exhausted first, so every
    /// event is proven optimal.
    pub fn set_dorm_event_nodes(&mut self, budget: u64) {
        self.dorm.budget = budget;
    }

    /// Sets the adjustment bound (default [`DORM_ADJUST_MAX`]): at most `max` jobs that held
    /// workers before an event change their count.
    pub fn set_dorm_adjust_max(&mut self, max: u32) {
        self.dorm.adjust_max = max;
    }

    /// Solves the event at `t` and keeps its allocation in `dorm.x`.
    fn dorm_solve(&mut self, t: Slot) -> Result<(), BaselineError> {
        let n = self.jobs.len();
        let mut m = 0usize;
        for j in 0..n {
            self.dorm.fair[j] = 0.0;
            if !self.arrived(j, t) {
                self.dorm.x[j] = 0;
                continue;
            }
            if m < self.dorm.pack.len() {
                self.dorm.pack[m] = j as u32;
            }
            m += 1;
        }
        if m > self.dorm.pack.len() {
            return Err(BaselineError::DormActive {
                slot: t,
                active: m as u32,
            });
        }
        let r = self.dorm.r;
        let mut wcap = [0.0; RESOURCES_MAX];
        let mut pcap = [0.0; RESOURCES_MAX];
        let (wt, pt) = (self.workers.total(r)?, self.ps.total(r)?);
        for k in 0..r {
            wcap[k] = wt.get(k);
            pcap[k] = pt.get(k);
        }
        let mut ctx = Ctx {
            scn: &self.scn,
            total: &self.total,
            workers: &mut self.workers,
            ps: &mut self.ps,
        };
        let d = &mut self.dorm;
        d.pack_len = m;
        let jobs = &ctx.scn.jobs;
        // The shared `&dyn` sort, not a closure sort of its own (wasm size): the order is
        // total (ties end on the index), so it is the one any correct sort gives.
        sort_indices_by(&mut d.pack[..m], &|a, b| {
            let (ja, jb) = (&jobs[a as usize], &jobs[b as usize]);
            cmp_vec(&jb.worker_demand, &ja.worker_demand)
                .then_with(|| cmp_vec(&jb.ps_demand, &ja.ps_demand))
                .then(a.cmp(&b))
        });
        for k in 0..m {
            let j = d.pack[k] as usize;
            let job = &ctx.scn.jobs[j];
            d.hi[j] = hi_alone(&ctx, job, useful_workers(job, &self.jobs[j]));
            d.old[j] = d.x[j].min(d.hi[j]);
        }
        fair_shares(d, &ctx, m);
        order_and_bounds(d, &ctx, m, &wcap, &pcap);
        knapsack_items(d, &ctx, m);
        let mut nodes = 0u64;
        solve_passes(d, &mut ctx, m, &mut nodes);
        d.stats.events += 1;
        d.stats.nodes = d.stats.nodes.saturating_add(nodes);
        d.stats.nodes_event_max = d.stats.nodes_event_max.max(nodes);
        for k in 0..m {
            let j = d.act[k] as usize;
            d.x[j] = d.best[k];
        }
        Ok(())
    }
}
