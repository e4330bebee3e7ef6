//! The baselines as the Pollux simulator runs them (`docs/peer.md`): Tiresias with two queues
//! and each job's requested workers, and Optimus deciding from the job's speed-up table; both
//! keep a gang on its servers while its worker count stays the same and place a new gang on
//! the servers with the most free room first (the peer's `free_gpus.most_common(1)` loop in
//! `simulator/tiresias.py` and `simulator/optimus.py`).
//!
//! State lives in [`PeerState`], sized once when the runner is built. Without requested
//! workers (`with_peer` not called) only `tiresias` uses it, with the fixed worker count of
//! FIFO and LAS; the other policies keep their round-robin placement.
use super::{fixed_workers, ps_for, OasisBaseline, OasisBaselineDecision, Unit};
use crate::baseline::{Policy, TIRESIAS_THRESHOLD_GPU_SECONDS};
use crate::order::sort_indices_by;
use crate::Slot;
use alloc::vec;
use alloc::vec::Vec;

/// Per-job placement memory and Tiresias' queues.
#[derive(Clone, Debug, Default)]
pub(crate) struct PeerState {
    /// The scenario gave requested workers (FIFO / LAS run them; Optimus decides from the
    /// table).
    pub(crate) on: bool,
    /// Per job, the workers it asks for (0: not given).
    requested: Vec<u32>,
    /// Tiresias' demotion threshold in attained GPU-slots.
    threshold: f64,
    /// Per job, the offset of its server list in `servers` (jobs + 1 entries).
    start: Vec<usize>,
    /// Flat per-job server lists: where each held worker ran last slot.
    servers: Vec<u32>,
    /// Per job, workers held last slot (their servers are `servers[start[j]..][..held[j]]`).
    held: Vec<u32>,
    /// Per job, the worker count decided this slot.
    want: Vec<u32>,
    /// Per job, 0 in queue 0, else the order of its demotion to queue 1 (1, 2, ...).
    demoted: Vec<u64>,
    /// Demotions so far.
    seq: u64,
    /// Scratch: job indices in decision order.
    order: Vec<u32>,
    /// Per job, its workers the largest worker server holds (the peer's 4 GPUs a node).
    per_server: Vec<u32>,
}

impl PeerState {
    /// State for `policy` on jobs of at most `cap[j]` workers; `requested` (empty: not given)
    /// and the slot length in seconds (`None`: 3,600 s).
    pub(crate) fn new(
        policy: Policy,
        cap: &[u32],
        requested: &[u32],
        slot_s: Option<f64>,
        per_server: Vec<u32>,
    ) -> Self {
        let on = !requested.is_empty();
        if policy != Policy::Tiresias && !(on && policy == Policy::Optimus) {
            return PeerState {
                on,
                requested: requested.to_vec(),
                ..PeerState::default()
            };
        }
        let mut start = Vec::with_capacity(cap.len() + 1);
        let mut acc = 0usize;
        start.push(0);
        for (j, &c) in cap.iter().enumerate() {
            acc += c.max(requested.get(j).copied().unwrap_or(0)) as usize;
            start.push(acc);
        }
        let n = cap.len();
        let slot_s = slot_s.filter(|s| *s > 0.0).unwrap_or(3600.0);
        PeerState {
            on,
            requested: requested.to_vec(),
            threshold: TIRESIAS_THRESHOLD_GPU_SECONDS / slot_s,
            start,
            servers: vec![0; acc],
            held: vec![0; n],
            want: vec![0; n],
            demoted: vec![0; n],
            seq: 0,
            order: Vec::with_capacity(n),
            per_server,
        }
    }

    /// Job `j`'s requested workers, if the scenario gave them.
    pub(crate) fn requested(&self, j: usize) -> Option<u32> {
        self.requested.get(j).copied().filter(|&w| w > 0)
    }

    /// One more job (a submission): its gang room (`cap`, as [`Self::new`] computes it) and
    /// its most workers per server; nothing when the policy keeps no per-job tables.
    pub(crate) fn push_job(&mut self, cap: u32, per_server: u32) {
        if self.start.is_empty() {
            return;
        }
        let acc = self.start.last().copied().unwrap_or(0) + cap as usize;
        self.start.push(acc);
        self.servers.resize(acc, 0);
        self.held.push(0);
        self.want.push(0);
        self.demoted.push(0);
        self.per_server.push(per_server);
    }

    /// The open world took job j's gang: it is placed anew (not kept) when it runs again.
    pub(crate) fn forget(&mut self, j: usize) {
        if let Some(h) = self.held.get_mut(j) {
            *h = 0;
        }
    }

    /// The policy keeps per-job tables (Tiresias, the peer's Optimus).
    pub(crate) fn tables(&self) -> bool {
        !self.start.is_empty()
    }

    fn room(&self, j: usize) -> usize {
        self.start[j + 1] - self.start[j]
    }
}

impl OasisBaseline<'_> {
    /// FIFO / LAS / Tiresias worker count: the requested workers when given, else
    /// min(N_i, FIXED_WORKERS).
    pub(super) fn gang_size(&self, j: usize) -> u32 {
        self.peer
            .requested(j)
            .unwrap_or_else(|| fixed_workers(&self.scn.jobs[j]))
    }

    /// GPUs (resource 0) of `x` workers of job j; worker-slots without a GPU demand.
    fn gpus_of(&self, j: usize, x: u32) -> f64 {
        x as f64 * super::gpu_per_worker(&self.scn.jobs[j])
    }

    /// Resource 0 of the worker servers: the count the peer's policies budget with.
    /// The GPUs in force (the open world's capacity; the scenario's in a closed world, summed
    /// in the same order).
    fn gpu_budget(&self) -> f64 {
        (0..self.workers.len())
            .map(|h| self.workers.cap(h).map_or(0.0, |c| c.get(0)))
            .sum()
    }

    /// Tiresias (`simulator/tiresias.py`): demote by attained GPU-time, then queue 0 by
    /// arrival and queue 1 by demotion, each job running its gang when the GPUs left hold it
    /// (a job that does not fit waits; the ones behind it may run).
    pub(super) fn tiresias(&mut self, t: Slot, out: &mut dyn FnMut(&OasisBaselineDecision)) {
        let mut order = core::mem::take(&mut self.peer.order);
        order.clear();
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            if !self.arrived(j, t) {
                continue;
            }
            // The peer checks demotion of running jobs only, in job order.
            if self.peer.demoted[j] == 0
                && self.peer.held[j] > 0
                && self.jobs[j].attained >= self.peer.threshold
            {
                self.peer.seq += 1;
                self.peer.demoted[j] = self.peer.seq;
            }
            order.push(j as u32);
        }
        // Queue 0 keeps (arrival, index) order; queue 1 follows it in demotion order (the
        // kernel's shared index sort on the whole key, which ends on the index: a total order,
        // so no allocation and no copy of the standard library's sort of its own, wasm size).
        let (demoted, jobs) = (&self.peer.demoted, &self.scn.jobs);
        let key = |j: u32| (demoted[j as usize], jobs[j as usize].arrival, j);
        sort_indices_by(&mut order, &|a, b| key(a).cmp(&key(b)));
        let mut left = self.gpu_budget();
        for &j in &order {
            let j = j as usize;
            let w = self.gang_size(j);
            let g = self.gpus_of(j, w);
            self.peer.want[j] = if g <= left + 1e-9 {
                left -= g;
                w
            } else {
                0
            };
        }
        self.place_kept_then_new(&order, t, out);
        self.peer.order = order;
    }

    /// Optimus as the peer runs it (`simulator/optimus.py`): one worker per job in arrival
    /// order, then one worker at a time to the job whose estimated remaining time falls most,
    /// remaining work x (1 / s(x) - 1 / s(x + 1)) with s the job's speed-up at its most
    /// consolidated placement, up to N_i workers; new gangs placed smallest first.
    pub(super) fn peer_optimus(&mut self, t: Slot, out: &mut dyn FnMut(&OasisBaselineDecision)) {
        let mut order = core::mem::take(&mut self.peer.order);
        order.clear();
        let mut left = self.gpu_budget();
        for k in 0..self.order.len() {
            let j = self.order[k] as usize;
            self.peer.want[j] = 0;
            if !self.arrived(j, t) {
                continue;
            }
            order.push(j as u32);
            let g = self.gpus_of(j, 1);
            if g <= left + 1e-9 {
                left -= g;
                self.peer.want[j] = 1;
            }
        }
        while left > 1e-9 {
            let mut best: Option<(usize, f64)> = None;
            for &j in &order {
                let gain = self.optimus_gain(j as usize, left);
                if gain > 0.0 && best.is_none_or(|(_, b)| gain > b) {
                    best = Some((j as usize, gain));
                }
            }
            let Some((j, _)) = best else { break };
            self.peer.want[j] += 1;
            left -= self.gpus_of(j, 1);
        }
        // New gangs are placed in increasing size (stable: arrival order among equals), through
        // the kernel's shared index sort (the key ends on the index: a total order).
        let (want, jobs) = (&self.peer.want, &self.scn.jobs);
        let key = |j: u32| (want[j as usize], jobs[j as usize].arrival, j);
        sort_indices_by(&mut order, &|a, b| key(a).cmp(&key(b)));
        self.place_kept_then_new(&order, t, out);
        self.peer.order = order;
    }

    /// The peer's marginal gain of one more worker for job j (0 when it cannot grow).
    fn optimus_gain(&self, j: usize, left: f64) -> f64 {
        let x = self.peer.want[j];
        let job = &self.scn.jobs[j];
        if x == 0 || x >= job.chunks.min(self.peer.room(j) as u32) || self.gpus_of(j, 1) > left {
            return 0.0;
        }
        let Some(tp) = self.scn.throughput.as_ref() else {
            return 0.0;
        };
        let per = self.peer.per_server.get(j).copied().unwrap_or(1).max(1);
        let s = |x: u32| tp.effective_workers(j, x, x.div_ceil(per));
        let (a, b) = (s(x), s(x + 1));
        if a <= 0.0 || b <= 0.0 {
            return 0.0;
        }
        let work = self.jobs[j].remaining as f64 * job.chunk_time();
        work * (1.0 / a - 1.0 / b)
    }

    /// Places the decided counts `want`: jobs keeping last slot's count keep its servers;
    /// then, in `order`, every other job with a count gets the servers with the most room
    /// first (all or nothing, PSs round-robin as the other baselines).
    fn place_kept_then_new(
        &mut self,
        order: &[u32],
        t: Slot,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) {
        for &j in order {
            let j = j as usize;
            let (w, h0) = (self.peer.want[j], self.peer.held[j]);
            if w > 0 && w == h0 {
                let job = &self.scn.jobs[j];
                let s = self.peer.start[j];
                let kept = (0..w as usize).all(|k| {
                    let h = self.peer.servers[s + k] as usize;
                    let ok = self.workers.fits_on(h, &job.worker_demand) >= 1;
                    if ok {
                        self.workers.take_on(h, &job.worker_demand);
                    }
                    ok
                });
                debug_assert!(kept, "a kept gang always fits: the slot starts empty");
                self.emit_gang(j, w, t, out);
            }
        }
        for &j in order {
            let j = j as usize;
            let w = self.peer.want[j];
            if w == 0 || w == self.peer.held[j] {
                continue;
            }
            let job = &self.scn.jobs[j];
            let z = ps_for(job, w);
            if self.workers.room(&job.worker_demand, w) < w || self.ps.room(&job.ps_demand, z) < z {
                self.peer.want[j] = 0;
                continue;
            }
            let s = self.peer.start[j];
            for k in 0..w as usize {
                let h = self.most_room(j);
                self.workers.take_on(h, &job.worker_demand);
                self.peer.servers[s + k] = h as u32;
            }
            self.emit_gang(j, w, t, out);
        }
        for j in 0..self.peer.held.len() {
            self.peer.held[j] = if self.jobs[j].workers > 0 {
                self.jobs[j].workers
            } else {
                0
            };
        }
    }

    /// The worker server with the most room for job j (lowest index among equals).
    fn most_room(&self, j: usize) -> usize {
        let d = &self.scn.jobs[j].worker_demand;
        let mut best = (0, 0);
        for h in 0..self.workers.len() {
            let f = self.workers.fits_on(h, d);
            if f > best.1 {
                best = (h, f);
            }
        }
        best.0
    }

    /// Reports job j's `w` workers on their recorded servers, and places its PSs.
    fn emit_gang(
        &mut self,
        j: usize,
        w: u32,
        t: Slot,
        out: &mut dyn FnMut(&OasisBaselineDecision),
    ) {
        let s = self.peer.start[j];
        for k in 0..w as usize {
            let h = self.peer.servers[s + k];
            self.jobs[j].workers += 1;
            // By server: the peer compares node lists, and a kept gang keeps its servers.
            self.restarts.place(j, 0, h);
            self.spans.mark(j, h);
            out(&OasisBaselineDecision::Unit(Unit {
                slot: t,
                job: j as u32,
                ps: false,
                server: h,
            }));
        }
        let job = &self.scn.jobs[j];
        for _ in 0..ps_for(job, w) {
            if let Some(k) = self.ps.place(&job.ps_demand) {
                self.jobs[j].ps += 1;
                self.restarts.place(j, 1, 0);
                out(&OasisBaselineDecision::Unit(Unit {
                    slot: t,
                    job: j as u32,
                    ps: true,
                    server: k,
                }));
            }
        }
    }
}
