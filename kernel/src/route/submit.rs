//! The open world's submissions ([`RouteScheduler::submit`]): a job the scenario did not list
//! is checked as [`RouteScheduler::new`] checks the listed ones, appended (the next index), and
//! the tables built at build time are extended for it, so that it is decided exactly as the
//! same job listed with its arrival (`docs/open-world.md`, "Kind route").
use super::aggregate::AggScratch;
use super::pso::Swarm;
use super::scratch::Scratch;
use super::tables::{demand, hop_row, shares};
use super::{pso_work, JobPlan, Policy, RouteError, RouteScheduler, NONE, START_BITS, WORKER_DIMS};
use crate::error::Limit;
use crate::limits::{check, JOBS_MAX, PSO_WORK_MAX, ROUTE_WORKERS_MAX};
use crate::model::route::{NodeKind, RouteJob};
use alloc::vec::Vec;

impl RouteScheduler {
    /// Appends `job` and returns its index; the host then feeds `JobArrived(index)` at the
    /// submission slot. Refused (nothing changes) as the build refuses a listed job: over
    /// [`JOBS_MAX`] jobs or CSRP's [`PSO_WORK_MAX`], over [`ROUTE_WORKERS_MAX`] workers
    /// ([`RouteError::Capacity`]), a PS that is not a PS node ([`RouteError::BadPs`]), more
    /// workers than the compute slots its PS reaches in the topology
    /// ([`RouteError::Unreachable`]).
    ///
    /// Cost: O(computes) for a known PS; a new PS node runs one Dijkstra by hops
    /// (O(E log V)) for its row, as the build does. Scratch grows only for a job with more
    /// workers than any before. The Capacity-like baseline's guaranteed shares are
    /// proportional to the demand of the jobs known (section 5.1 reading), so they are
    /// recomputed here (O(PS rows)).
    pub fn submit(&mut self, job: RouteJob) -> Result<u32, RouteError> {
        let idx = self.jobs.len();
        let row = self.check_submit(&job, idx)?;
        if let Some((pred, order, len)) = row {
            self.tables.ps_row[job.ps as usize] = self.tables.hop_order_len.len() as u32;
            self.tables.hop_pred.extend_from_slice(&pred);
            self.tables.hop_order.extend_from_slice(&order);
            self.tables.hop_order_len.push(len);
            self.tables.group_demand.push(0.0);
            self.group_running.push(0);
        }
        let r = self.tables.ps_row[job.ps as usize] as usize;
        let d = demand(&job);
        self.tables.group_demand[r] += d;
        self.tables.total_demand += d;
        self.tables.group_share = shares(&self.tables.group_demand, self.tables.total_demand);
        self.insert_release(idx as u32, job.release);
        self.jobs.push(job);
        self.plans.push(JobPlan::EMPTY);
        self.decided.push(false);
        self.job_links.push((0, 0));
        self.applied.push(false);
        self.released.push(false);
        self.ow.fate.push(None);
        self.queue
            .reserve_exact(self.queue.capacity() + 1 - self.queue.len());
        self.live
            .reserve_exact(self.live.capacity() + 1 - self.live.len());
        let runs = if self.policy == Policy::DeadlinePreemptive {
            1 + super::PREEMPT_RERUNS
        } else {
            1
        };
        self.grow_arenas(runs * job.workers as usize)?;
        self.grow_scratch(job.workers as usize);
        Ok(idx as u32)
    }

    /// Every check of [`Self::submit`], before anything changes; for a PS node without a row
    /// yet, the row (hop tree, reachable compute nodes, their count).
    #[allow(clippy::type_complexity)]
    fn check_submit(
        &self,
        job: &RouteJob,
        idx: usize,
    ) -> Result<Option<(Vec<u32>, Vec<u32>, u32)>, RouteError> {
        check(Limit::Jobs, idx + 1, JOBS_MAX)?;
        if self.policy == Policy::Csrp {
            let work = pso_work(self.pso.particles, self.pso.iterations, idx + 1);
            if work > PSO_WORK_MAX {
                return Err(RouteError::Capacity(crate::CapacityError {
                    limit: Limit::PsoWork,
                    max: PSO_WORK_MAX,
                    got: work,
                    job: None,
                }));
            }
        }
        check(Limit::RouteWorkers, job.workers as usize, ROUTE_WORKERS_MAX)
            .map_err(|e| e.for_job(idx as u32))?;
        let is_ps = (job.ps as usize) < self.g.nodes() && self.g.kind(job.ps) == NodeKind::Ps;
        if !is_ps {
            return Err(RouteError::BadPs { job: idx as u32 });
        }
        let (n, c) = (self.g.nodes(), self.tables.computes);
        let r = self.tables.ps_row[job.ps as usize];
        let (row, reach) = if r == NONE {
            let (mut pred, mut order) = (alloc::vec![NONE; n], alloc::vec![0u32; c]);
            let mut dj = super::dijkstra::Dijkstra::new(n, self.g.links());
            let (len, reach) = hop_row(&self.g, &mut dj, job.ps, &mut pred, &mut order)?;
            (Some((pred, order, len)), reach)
        } else {
            let r = r as usize;
            let len = self.tables.hop_order_len[r] as usize;
            let reach = self.tables.hop_order[r * c..r * c + len]
                .iter()
                .fold(0u32, |a, &v| a.saturating_add(self.g.slots(v)));
            (None, reach)
        };
        if reach < job.workers {
            return Err(RouteError::Unreachable {
                job: idx as u32,
                workers: job.workers,
                reachable: reach,
            });
        }
        Ok(row)
    }

    /// Job `j` in the release order (release time, then index) and the arrival list.
    fn insert_release(&mut self, j: u32, release: u32) {
        let jobs = &self.jobs;
        let key = |x: u32| (jobs.get(x as usize).map_or(release, |b| b.release), x);
        let pos = self
            .tables
            .order
            .partition_point(|&x| key(x) < (release, j));
        self.tables.order.insert(pos, j);
        let pos = self.tables.arrivals.partition_point(|&a| a < (release, j));
        self.tables.arrivals.insert(pos, (release, j));
    }

    /// Per-decision scratch wide enough for a job of `w` workers (rebuilt only when `w`
    /// exceeds every job before; scratch carries no decision state between jobs).
    fn grow_scratch(&mut self, w: usize) {
        if w <= self.sc.wnodes.len() {
            return;
        }
        let n = self.g.nodes();
        let particles = if self.policy == Policy::Csrp {
            self.pso.particles as usize
        } else {
            0
        };
        self.swarm = Swarm::new(particles, START_BITS + w * WORKER_DIMS);
        self.agg = AggScratch::new(n, w);
        self.sc = Scratch::new(n, self.tables.computes, w);
    }
}
