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

/// The chunks one dispatch places: all of a job's (its arrival), or the interrupted ones an
/// open-world event re-dispatches (global chunk indices, ascending, and the job's chunk 0).
#[derive(Clone, Copy, Debug)]
pub(super) enum Todo<'a> {
    /// Chunks 0..D_j.
    All(u32),
    /// These global chunks of the job whose chunk 0 is the second field.
    Some(&'a [u32], u32),
}

impl Todo<'_> {
    fn len(&self) -> u32 {
        match *self {
            Todo::All(n) => n,
            Todo::Some(v, _) => v.len() as u32,
        }
    }

    /// Chunk d of the i-th chunk to place.
    fn at(&self, i: u32) -> u32 {
        match *self {
            Todo::All(_) => i,
            Todo::Some(v, base) => v.get(i as usize).map_or(0, |c| c - base),
        }
    }

    /// The job's first dispatch (zeta_j is decided by its chunk 1 only then).
    fn fresh(&self) -> bool {
        matches!(self, Todo::All(_))
    }
}

/// Cloud Q (CALCULATEQ line 8): Delta/D + p/D, t* = ready + Delta (ready = r_j, or the slot of
/// an open-world re-dispatch).
fn cloud_q(job: &PreemptJob, s: usize, colocated: bool, ready: Slot) -> Option<(f64, Slot)> {
    let n = job.rate_of(s, 0, true, colocated);
    if n <= 0.0 {
        return None;
    }
    let d = job.chunks as f64;
    let delta = job.delay(s);
    let q = delta as f64 / d + job.processing(n) / d;
    Some((q, ready.saturating_add(delta)))
}

impl PreemptScheduler {
    /// Q of the next chunk of `job` on edge worker `w` of server `s` (CALCULATEQ, eq. 5).
    fn edge_q(&self, job: &PreemptJob, s: usize, w: u32, ready: Slot) -> Option<QValue> {
        let n = job.rate_of(s, w as usize, false, false);
        if n <= 0.0 {
            return None;
        }
        let gw = self.worker_index(s, w)? as usize;
        if self.ow.worker_off(gw) {
            return None;
        }
        let delta = job.delay(s);
        let t0 = ready.saturating_add(delta);
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
    /// the cloud entry uses zeta_j = 1 (chunk 1). Workers that are off (open world) are not
    /// candidates.
    fn fill_candidates(&mut self, job: &PreemptJob, ready: Slot) {
        self.cand.clear();
        for (s, sv) in self.scn.servers.iter().enumerate() {
            if sv.cloud {
                if let Some((q, t_star)) = cloud_q(job, s, true, ready) {
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
                if let Some(qv) = self.edge_q(job, s, w, ready) {
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
        let r = if self.rejects(j, now, out) {
            Ok(())
        } else {
            self.dispatch(j, Todo::All(0), arrival, out)
        };
        if let Some(x) = self.dispatched.get_mut(ju) {
            *x = true;
        }
        self.arrived.push(j);
        r
    }

    /// Places the chunks `todo` of job `j` (ready at `ready`) by the policy's rule.
    pub(super) fn dispatch(
        &mut self,
        j: u32,
        todo: Todo<'_>,
        ready: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        // The model is moved out for the duration of the dispatch so plans can be borrowed
        // mutably beside it; it is put back on every path (no allocation: Vec moves).
        let jobs = core::mem::take(&mut self.scn.jobs);
        let r = match jobs.get(j as usize) {
            Some(job) => {
                let todo = match todo {
                    Todo::All(_) => Todo::All(job.chunks),
                    t => t,
                };
                match self.policy {
                    Policy::Greedy => self.greedy(j, job, todo, ready, out),
                    Policy::AllCloud => self.all_cloud(j, job, todo, ready, out),
                    Policy::EdgeFifo => self.edge_fifo(j, job, todo, ready, out),
                    Policy::Random => self.random(j, job, todo, ready, out),
                }
            }
            None => Err(PreemptError::UnknownJob { job: j }),
        };
        self.scn.jobs = jobs;
        r
    }

    /// Open world: whether some worker that is on (or the cloud) can train a chunk of `job`
    /// (on the cloud with the zeta_j = 1 rate too when `colocated`: a first dispatch).
    pub(super) fn can_place(&self, job: &PreemptJob, colocated: bool) -> bool {
        self.scn.servers.iter().enumerate().any(|(s, sv)| {
            if sv.cloud {
                return job.rate_of(s, 0, true, false) > 0.0
                    || (colocated && job.rate_of(s, 0, true, true) > 0.0);
            }
            (0..sv.workers).any(|w| {
                job.rate_of(s, w as usize, false, false) > 0.0
                    && self
                        .worker_index(s, w)
                        .is_some_and(|gw| !self.ow.worker_off(gw as usize))
            })
        })
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
        todo: Todo<'_>,
        ready: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        self.fill_candidates(job, ready);
        if !todo.fresh() {
            // A re-dispatch: the job already has chunks elsewhere, so zeta_j = 0.
            self.recheck_cloud(job, ready);
        }
        for c in &self.cand {
            out(&PreemptDecision::Candidate(super::CandidateRec {
                job: j,
                server: c.server,
                worker: c.worker,
                q: c.q,
                t_star: c.t_star,
            }));
        }
        for k in 0..todo.len() {
            let d = todo.at(k);
            let first = todo.fresh() && k == 0;
            let i = self
                .best()
                .ok_or(PreemptError::NoEligibleWorker { job: j })?;
            let Some(c) = self.cand.get(i).copied() else {
                return Err(PreemptError::NoEligibleWorker { job: j });
            };
            if c.gw == NONE {
                // The cloud: this chunk and every remaining one (zeta_j = 1 iff chunk 1).
                return self.rest_to_cloud(
                    j,
                    job,
                    todo,
                    k,
                    c.server as usize,
                    first,
                    c.q,
                    ready,
                    out,
                );
            }
            if first {
                self.recheck_cloud(job, ready);
            }
            let (len, gamma, inv_d) = self.edge_params(job, c.server as usize, c.worker);
            let pre =
                self.place_edge(j, d, c.server, c.worker, c.gw, c.t_star, len, gamma, inv_d)?;
            let next = self.edge_q(job, c.server as usize, c.worker, ready);
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
    fn recheck_cloud(&mut self, job: &PreemptJob, ready: Slot) {
        for c in self.cand.iter_mut().filter(|c| c.gw == NONE) {
            match cloud_q(job, c.server as usize, false, ready) {
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

    /// Chunks `from..` of `todo` of job j go to the cloud, each on a fresh worker, all in
    /// [t*, t* + ceil(p)).
    #[allow(clippy::too_many_arguments)]
    fn rest_to_cloud(
        &mut self,
        j: u32,
        job: &PreemptJob,
        todo: Todo<'_>,
        from: u32,
        s: usize,
        zeta: bool,
        q: f64,
        ready: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let n = job.rate_of(s, 0, true, zeta);
        if n <= 0.0 {
            return Err(PreemptError::NoEligibleWorker { job: j });
        }
        let len = slots_of(job.processing(n));
        let start = ready.saturating_add(job.delay(s));
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
        self.widen_cloud_window(j, start, end);
        for k in from..todo.len() {
            let d = todo.at(k);
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

    /// The cloud window of job j becomes the hull of itself and [start, end) (a job's cloud
    /// chunks share one window in the closed world, so there it is just [start, end)).
    fn widen_cloud_window(&mut self, j: u32, start: Slot, end: Slot) {
        if let Some(w) = self.cloud_window.get_mut(j as usize) {
            *w = if w.0 < w.1 {
                (w.0.min(start), w.1.max(end))
            } else {
                (start, end)
            };
        }
        self.cloud_end = self.cloud_end.max(end);
    }

    /// Baseline: the whole job on the cloud with zeta_j = 1 (a re-dispatch: the chunks
    /// `todo`, zeta_j = 0, since the job has chunks on the edge).
    fn all_cloud(
        &mut self,
        j: u32,
        job: &PreemptJob,
        todo: Todo<'_>,
        ready: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let s = self
            .scn
            .cloud()
            .ok_or(PreemptError::NoEligibleWorker { job: j })?;
        let zeta = todo.fresh();
        let (q, _) =
            cloud_q(job, s, zeta, ready).ok_or(PreemptError::NoEligibleWorker { job: j })?;
        self.rest_to_cloud(j, job, todo, 0, s, zeta, q, ready, out)
    }

    /// Baseline: nearest edge server, earliest-free worker, appended (no preemption).
    fn edge_fifo(
        &mut self,
        j: u32,
        job: &PreemptJob,
        todo: Todo<'_>,
        ready: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let mut near: Option<(u32, usize)> = None;
        for (s, sv) in self.scn.servers.iter().enumerate() {
            let eligible =
                !sv.cloud && (0..sv.workers).any(|w| self.fifo_eligible(job, s, w).is_some());
            if eligible && near.is_none_or(|(d, _)| job.delay(s) < d) {
                near = Some((job.delay(s), s));
            }
        }
        let Some((delta, s)) = near else {
            return self.all_cloud(j, job, todo, ready, out);
        };
        let t0 = ready.saturating_add(delta);
        let workers = self.scn.servers.get(s).map_or(0, |x| x.workers);
        for k in 0..todo.len() {
            let d = todo.at(k);
            let mut pick: Option<(Slot, u32)> = None;
            for w in 0..workers {
                let Some(gw) = self.fifo_eligible(job, s, w) else {
                    continue;
                };
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
                q: (start - ready + len) as f64 / job.chunks as f64,
                q_next: f64::INFINITY,
                start,
                len,
                preempted: 0,
            }));
        }
        Ok(())
    }

    /// Edge FIFO: the global index of worker w of edge server s if it is on and job j may
    /// use it.
    fn fifo_eligible(&self, job: &PreemptJob, s: usize, w: u32) -> Option<usize> {
        if job.rate_of(s, w as usize, false, false) <= 0.0 {
            return None;
        }
        let gw = self.worker_index(s, w)? as usize;
        (!self.ow.worker_off(gw)).then_some(gw)
    }

    /// Baseline: each chunk on a uniformly random eligible candidate (seeded PRNG).
    fn random(
        &mut self,
        j: u32,
        job: &PreemptJob,
        todo: Todo<'_>,
        ready: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        self.fill_candidates(job, ready);
        if todo.len() > 0 {
            // zeta_j = 1 only if the whole job goes to the cloud; a random split never does.
            self.recheck_cloud(job, ready);
        }
        let n = self.cand.iter().filter(|c| c.q.is_finite()).count() as u64;
        if n == 0 {
            return Err(PreemptError::NoEligibleWorker { job: j });
        }
        for i in 0..todo.len() {
            let d = todo.at(i);
            let k = self.dispatch_rng.below(n) as usize;
            let Some(c) = self.cand.iter().filter(|c| c.q.is_finite()).nth(k).copied() else {
                return Err(PreemptError::NoEligibleWorker { job: j });
            };
            if c.gw == NONE {
                self.cloud_one(j, job, d, c.server as usize, ready, out)?;
                continue;
            }
            let qv = self
                .edge_q(job, c.server as usize, c.worker, ready)
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
        ready: Slot,
        out: &mut dyn FnMut(&PreemptDecision),
    ) -> Result<(), PreemptError> {
        let (q, start) =
            cloud_q(job, s, false, ready).ok_or(PreemptError::NoEligibleWorker { job: j })?;
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
        self.widen_cloud_window(j, start, end);
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
