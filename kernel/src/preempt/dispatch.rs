//! A_greedy (Algorithm 2 with CALCULATEQ, Algorithm 3) and the baseline dispatch rules.
use super::plan::QValue;
use super::{
    Cand, DispatchRec, Placement, Policy, PreemptDecision, PreemptError, PreemptScheduler,
};
use crate::index::NONE;
use crate::model::preempt::PreemptJob;
use crate::Slot;

/// ceil(p) slots, at least one (p > 0 always: rates are positive and finite).
fn slots_of(p: f64) -> u32 {
    crate::num::ceil_u32(p).unwrap_or(u32::MAX).max(1)
}

/// Cloud Q (CALCULATEQ line 8): Delta/D + p/D, t* = r_j + Delta.
fn cloud_q(job: &PreemptJob, s: usize, colocated: bool) -> Option<(f64, Slot)> {
    let n = job.rate_of(s, 0, true, colocated);
    if n <= 0.0 {
        return None;
    }
    let d = job.chunks as f64;
    let delta = job.delay(s);
    let q = delta as f64 / d + job.processing(n) / d;
    Some((q, job.arrival.saturating_add(delta)))
}

impl PreemptScheduler {
    /// Q of the next chunk of `job` on edge worker `w` of server `s` (CALCULATEQ, eq. 5).
    fn edge_q(&self, job: &PreemptJob, s: usize, w: u32) -> Option<QValue> {
        let n = job.rate_of(s, w as usize, false, false);
        if n <= 0.0 {
            return None;
        }
        let gw = self.worker_index(s, w)? as usize;
        let delta = job.delay(s);
        let t0 = job.arrival.saturating_add(delta);
        let qv = self.plans.q_edge(
            gw,
            job.gamma(n),
            t0,
            job.processing(n),
            delta,
            job.chunks as f64,
        );
        Some(qv)
    }

    /// C_j (Algorithm 2, lines 3-8) into the scratch table, servers then workers in index order;
    /// the cloud entry uses zeta_j = 1 (chunk 1).
    fn fill_candidates(&mut self, job: &PreemptJob) {
        self.cand.clear();
        for (s, sv) in self.scn.servers.iter().enumerate() {
            if sv.cloud {
                if let Some((q, t_star)) = cloud_q(job, s, true) {
                    self.cand.push(Cand {
                        server: s as u32,
                        worker: 0,
                        gw: NONE,
                        q,
                        t_star,
                    });
                }
                continue;
            }
            for w in 0..sv.workers {
                if let Some(qv) = self.edge_q(job, s, w) {
                    let gw = self.worker_index(s, w).unwrap_or(NONE);
                    self.cand.push(Cand {
                        server: s as u32,
                        worker: w,
                        gw,
                        q: qv.q,
                        t_star: qv.t_star,
                    });
                }
            }
        }
    }

    /// argmin of Q over C_j; ties: the earlier entry (lower server, then worker).
    fn best(&self) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for (i, c) in self.cand.iter().enumerate() {
            if c.q.is_finite() && best.is_none_or(|(_, q)| c.q < q) {
                best = Some((i, c.q));
            }
        }
        best.map(|b| b.0)
    }

    pub(super) fn dispatch_job(
        &mut self,
        j: u32,
        now: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let ju = j as usize;
        let arrival = self
            .scn
            .jobs
            .get(ju)
            .ok_or(PreemptError::UnknownJob { job: j })?
            .arrival;
        if arrival != now {
            return Err(PreemptError::WrongSlot {
                job: j,
                arrival,
                now,
            });
        }
        if self.dispatched.get(ju).copied().unwrap_or(true) {
            return Err(PreemptError::AlreadyDispatched { job: j });
        }
        self.plans.advance(now);
        self.reserve_scratch();
        // The model is moved out for the duration of the dispatch so plans can be borrowed
        // mutably beside it; it is put back on every path (no allocation: Vec moves).
        let jobs = core::mem::take(&mut self.scn.jobs);
        let r = match jobs.get(ju) {
            Some(job) => match self.policy {
                Policy::Greedy => self.greedy(j, job, out),
                Policy::AllCloud => self.all_cloud(j, job, out),
                Policy::EdgeFifo => self.edge_fifo(j, job, out),
                Policy::Random => self.random(j, job, out),
            },
            None => Err(PreemptError::UnknownJob { job: j }),
        };
        self.scn.jobs = jobs;
        if let Some(x) = self.dispatched.get_mut(ju) {
            *x = true;
        }
        self.arrived.push(j);
        r
    }

    /// Build-time reservations are not part of a snapshot (serde keeps lengths only): after a
    /// restore they are made again here, once; on a scheduler built by `new` this is a no-op.
    pub(super) fn reserve_scratch(&mut self) {
        let workers = self.plans.workers_len() + self.scn.servers.len();
        if self.cand.capacity() < workers {
            self.cand.reserve_exact(workers - self.cand.len());
        }
        let jobs = self.scn.jobs.len();
        if self.arrived.capacity() < jobs {
            self.arrived.reserve_exact(jobs - self.arrived.len());
        }
    }

    /// A_greedy for one job (reconciled listing).
    fn greedy(
        &mut self,
        j: u32,
        job: &PreemptJob,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        self.fill_candidates(job);
        for c in &self.cand {
            out(&PreemptDecision::Candidate(super::CandidateRec {
                job: j,
                server: c.server,
                worker: c.worker,
                q: c.q,
                t_star: c.t_star,
            }));
        }
        for d in 0..job.chunks {
            let i = self
                .best()
                .ok_or(PreemptError::NoEligibleWorker { job: j })?;
            let Some(c) = self.cand.get(i).copied() else {
                return Err(PreemptError::NoEligibleWorker { job: j });
            };
            if c.gw == NONE {
                // The cloud: this chunk and every remaining one (zeta_j = 1 iff chunk 1).
                return self.rest_to_cloud(j, job, d, c.server as usize, d == 0, c.q, out);
            }
            if d == 0 {
                self.recheck_cloud(job);
            }
            let (len, gamma, inv_d) = self.edge_params(job, c.server as usize, c.worker);
            let pre =
                self.place_edge(j, d, c.server, c.worker, c.gw, c.t_star, len, gamma, inv_d)?;
            let next = self.edge_q(job, c.server as usize, c.worker);
            if let (Some(e), Some(nv)) = (self.cand.get_mut(i), next) {
                e.q = nv.q;
                e.t_star = nv.t_star;
            }
            out(&PreemptDecision::Dispatch(DispatchRec {
                job: j,
                chunk: d,
                server: c.server,
                worker: c.worker,
                cloud: false,
                zeta: false,
                q: c.q,
                q_next: next.map_or(f64::INFINITY, |v| v.q),
                start: c.t_star,
                len,
                preempted: pre,
            }));
        }
        Ok(())
    }

    /// After chunk 1 lands on an edge worker the cloud entry switches to zeta_j = 0.
    fn recheck_cloud(&mut self, job: &PreemptJob) {
        for c in self.cand.iter_mut().filter(|c| c.gw == NONE) {
            match cloud_q(job, c.server as usize, false) {
                Some((q, t)) => {
                    c.q = q;
                    c.t_star = t;
                }
                None => c.q = f64::INFINITY,
            }
        }
    }

    fn edge_params(&self, job: &PreemptJob, s: usize, w: u32) -> (u32, f64, f64) {
        let n = job.rate_of(s, w as usize, false, false);
        (
            slots_of(job.processing(n)),
            job.gamma(n),
            1.0 / job.chunks as f64,
        )
    }

    /// UPDATEVARIABLES for an edge chunk.
    #[allow(clippy::too_many_arguments)]
    fn place_edge(
        &mut self,
        j: u32,
        d: u32,
        server: u32,
        worker: u32,
        gw: u32,
        t_star: Slot,
        len: u32,
        gamma: f64,
        inv_d: f64,
    ) -> Result<u32, PreemptError> {
        let c = self
            .chunk_index(j as usize, d)
            .ok_or(PreemptError::UnknownJob { job: j })?;
        if let Some(pc) = self.plans.chunks.get_mut(c as usize) {
            pc.gamma = gamma;
            pc.inv_d = inv_d;
        }
        let pre = self
            .plans
            .insert_restart(gw as usize, c, t_star, len, self.restart)?;
        self.preemptions += pre as u64;
        if let Some(p) = self.place.get_mut(c as usize) {
            *p = Placement {
                placed: true,
                server,
                worker,
                cloud: false,
                start: t_star,
                end: 0,
            };
        }
        Ok(pre)
    }

    /// Chunks d.. of job j go to the cloud, each on a fresh worker, all in [t*, t* + ceil(p)).
    #[allow(clippy::too_many_arguments)]
    fn rest_to_cloud(
        &mut self,
        j: u32,
        job: &PreemptJob,
        from: u32,
        s: usize,
        zeta: bool,
        q: f64,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let n = job.rate_of(s, 0, true, zeta);
        if n <= 0.0 {
            return Err(PreemptError::NoEligibleWorker { job: j });
        }
        let len = slots_of(job.processing(n));
        let start = job.arrival.saturating_add(job.delay(s));
        let end = start.saturating_add(len);
        if end as usize > crate::limits::PREEMPT_PLAN_SLOTS_MAX {
            return Err(PreemptError::Capacity(crate::error::CapacityError {
                limit: crate::error::Limit::PreemptPlanSlots,
                max: crate::limits::PREEMPT_PLAN_SLOTS_MAX as u64,
                got: end as u64,
                job: Some(j),
            }));
        }
        if let Some(z) = self.zeta.get_mut(j as usize) {
            *z = zeta;
        }
        if let Some(w) = self.cloud_window.get_mut(j as usize) {
            *w = (start, end);
        }
        self.cloud_end = self.cloud_end.max(end);
        for d in from..job.chunks {
            let c = self
                .chunk_index(j as usize, d)
                .ok_or(PreemptError::UnknownJob { job: j })?;
            let worker = self.cloud_workers;
            self.cloud_workers = self.cloud_workers.wrapping_add(1);
            if let Some(p) = self.place.get_mut(c as usize) {
                *p = Placement {
                    placed: true,
                    server: s as u32,
                    worker,
                    cloud: true,
                    start,
                    end,
                };
            }
            out(&PreemptDecision::Dispatch(DispatchRec {
                job: j,
                chunk: d,
                server: s as u32,
                worker,
                cloud: true,
                zeta,
                q,
                q_next: f64::INFINITY,
                start,
                len,
                preempted: 0,
            }));
        }
        Ok(())
    }

    /// Baseline: the whole job on the cloud with zeta_j = 1.
    fn all_cloud(
        &mut self,
        j: u32,
        job: &PreemptJob,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let s = self
            .scn
            .cloud()
            .ok_or(PreemptError::NoEligibleWorker { job: j })?;
        let (q, _) = cloud_q(job, s, true).ok_or(PreemptError::NoEligibleWorker { job: j })?;
        self.rest_to_cloud(j, job, 0, s, true, q, out)
    }

    /// Baseline: nearest edge server, earliest-free worker, appended (no preemption).
    fn edge_fifo(
        &mut self,
        j: u32,
        job: &PreemptJob,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let mut near: Option<(u32, usize)> = None;
        for (s, sv) in self.scn.servers.iter().enumerate() {
            let eligible = !sv.cloud
                && (0..sv.workers).any(|w| job.rate_of(s, w as usize, false, false) > 0.0);
            if eligible && near.is_none_or(|(d, _)| job.delay(s) < d) {
                near = Some((job.delay(s), s));
            }
        }
        let Some((delta, s)) = near else {
            return self.all_cloud(j, job, out);
        };
        let t0 = job.arrival.saturating_add(delta);
        let workers = self.scn.servers.get(s).map_or(0, |x| x.workers);
        for d in 0..job.chunks {
            let mut pick: Option<(Slot, u32)> = None;
            for w in 0..workers {
                if job.rate_of(s, w as usize, false, false) <= 0.0 {
                    continue;
                }
                let gw = self.worker_index(s, w).unwrap_or(NONE) as usize;
                let start = self.plans.tail_end(gw).max(t0);
                if pick.is_none_or(|(b, _)| start < b) {
                    pick = Some((start, w));
                }
            }
            let Some((start, w)) = pick else {
                return Err(PreemptError::NoEligibleWorker { job: j });
            };
            let gw = self.worker_index(s, w).unwrap_or(NONE);
            let (len, gamma, inv_d) = self.edge_params(job, s, w);
            self.place_edge(j, d, s as u32, w, gw, start, len, gamma, inv_d)?;
            out(&PreemptDecision::Dispatch(DispatchRec {
                job: j,
                chunk: d,
                server: s as u32,
                worker: w,
                cloud: false,
                zeta: false,
                q: (start - job.arrival + len) as f64 / job.chunks as f64,
                q_next: f64::INFINITY,
                start,
                len,
                preempted: 0,
            }));
        }
        Ok(())
    }

    /// Baseline: each chunk on a uniformly random eligible candidate (seeded PRNG).
    fn random(
        &mut self,
        j: u32,
        job: &PreemptJob,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        self.fill_candidates(job);
        if job.chunks > 0 {
            // zeta_j = 1 only if the whole job goes to the cloud; a random split never does.
            self.recheck_cloud(job);
        }
        let n = self.cand.iter().filter(|c| c.q.is_finite()).count() as u64;
        if n == 0 {
            return Err(PreemptError::NoEligibleWorker { job: j });
        }
        for d in 0..job.chunks {
            let k = self.dispatch_rng.below(n) as usize;
            let Some(c) = self.cand.iter().filter(|c| c.q.is_finite()).nth(k).copied() else {
                return Err(PreemptError::NoEligibleWorker { job: j });
            };
            if c.gw == NONE {
                self.cloud_one(j, job, d, c.server as usize, out)?;
                continue;
            }
            let qv = self
                .edge_q(job, c.server as usize, c.worker)
                .ok_or(PreemptError::NoEligibleWorker { job: j })?;
            let (len, gamma, inv_d) = self.edge_params(job, c.server as usize, c.worker);
            let pre =
                self.place_edge(j, d, c.server, c.worker, c.gw, qv.t_star, len, gamma, inv_d)?;
            out(&PreemptDecision::Dispatch(DispatchRec {
                job: j,
                chunk: d,
                server: c.server,
                worker: c.worker,
                cloud: false,
                zeta: false,
                q: qv.q,
                q_next: f64::INFINITY,
                start: qv.t_star,
                len,
                preempted: pre,
            }));
        }
        Ok(())
    }

    /// One chunk on a fresh cloud worker (zeta_j = 0), for the random baseline.
    fn cloud_one(
        &mut self,
        j: u32,
        job: &PreemptJob,
        d: u32,
        s: usize,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let (q, start) = cloud_q(job, s, false).ok_or(PreemptError::NoEligibleWorker { job: j })?;
        let len = slots_of(job.processing(job.rate_of(s, 0, true, false)));
        let end = start.saturating_add(len);
        let c = self
            .chunk_index(j as usize, d)
            .ok_or(PreemptError::UnknownJob { job: j })?;
        let worker = self.cloud_workers;
        self.cloud_workers = self.cloud_workers.wrapping_add(1);
        if let Some(p) = self.place.get_mut(c as usize) {
            *p = Placement {
                placed: true,
                server: s as u32,
                worker,
                cloud: true,
                start,
                end,
            };
        }
        if let Some(w) = self.cloud_window.get_mut(j as usize) {
            *w = (start, end);
        }
        self.cloud_end = self.cloud_end.max(end);
        out(&PreemptDecision::Dispatch(DispatchRec {
            job: j,
            chunk: d,
            server: s as u32,
            worker,
            cloud: true,
            zeta: false,
            q,
            q_next: f64::INFINITY,
            start,
            len,
            preempted: 0,
        }));
        Ok(())
    }
}
