//! The restorable state of a [`RouteScheduler`] and its snapshots ([`crate::snapshot`], kind
//! [`TAG_ROUTE`]): link load, lanes, queue, plans, paths, PRNG and clock. The graph's
//! structure, hop tables, shares and scratch are rebuilt from the scenario by [`RouteScheduler::new`];
//! the per-event scratch (`free_at`, candidate lists, swarm, Dijkstra) is rebuilt before each
//! read, so it is not part of the state.
use super::{JobPlan, RouteScheduler};
use crate::log::TAG_ROUTE;
use crate::rng::SplitMix64;
use crate::route::cost::Totals;
use crate::snapshot::{self, ensure, invalid_at, Snapshot, SnapshotError};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The mutable state of a [`RouteScheduler`] (snapshot body, format version 2; field order is the
/// layout, shared with the borrowed form the snapshot is written from).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouteState {
    /// The PSO's PRNG.
    pub rng: SplitMix64,
    /// Slot of the last event.
    pub now: u32,
    /// BW_u per link (background plus running jobs).
    pub link_used: Vec<f64>,
    /// Per compute lane: the slot it is free from.
    pub lane_free: Vec<u32>,
    /// Per node: some job has run on it (S_u).
    pub used_node: Vec<bool>,
    /// Running totals of eq. (11).
    pub totals: Totals,
    /// Per job: its plan (valid once decided).
    pub plans: Vec<JobPlan>,
    /// Per job: placed.
    pub decided: Vec<bool>,
    /// Per job: released into the queue.
    pub released: Vec<bool>,
    /// Per job: its bandwidth is on its links.
    pub applied: Vec<bool>,
    /// (offset, length) of each path in `path_nodes`.
    pub paths: Vec<(u32, u32)>,
    /// Node ids of all paths.
    pub path_nodes: Vec<u32>,
    /// Per job: (offset, length) of its links in `link_arena`.
    pub job_links: Vec<(u32, u32)>,
    /// Links of every placed job.
    pub link_arena: Vec<u32>,
    /// Released, unplaced jobs in queue order.
    pub queue: Vec<u32>,
    /// Placed jobs not yet finished.
    pub live: Vec<u32>,
    /// Workers running per PS tenant.
    pub group_running: Vec<u32>,
}

/// [`RouteState`] by reference: the same postcard bytes, written without copying.
#[derive(Serialize)]
struct StateRef<'a> {
    rng: SplitMix64,
    now: u32,
    link_used: &'a [f64],
    lane_free: &'a [u32],
    used_node: &'a [bool],
    totals: Totals,
    plans: &'a [JobPlan],
    decided: &'a [bool],
    released: &'a [bool],
    applied: &'a [bool],
    paths: &'a [(u32, u32)],
    path_nodes: &'a [u32],
    job_links: &'a [(u32, u32)],
    link_arena: &'a [u32],
    queue: &'a [u32],
    live: &'a [u32],
    group_running: &'a [u32],
}

/// Distinct job indices below `n`, each satisfying `ok`.
fn check_jobs(
    list: &[u32],
    n: usize,
    field: &'static str,
    ok: impl Fn(usize) -> bool,
) -> Result<(), SnapshotError> {
    ensure(list.len() <= n, field)?;
    let mut seen = alloc::vec![false; n];
    for (i, &j) in list.iter().enumerate() {
        let j = j as usize;
        match seen.get_mut(j) {
            Some(s) if !*s && ok(j) => *s = true,
            _ => return Err(invalid_at(field, i)),
        }
    }
    Ok(())
}

/// Every (offset, length) within `len`.
fn check_spans(spans: &[(u32, u32)], len: usize, field: &'static str) -> Result<(), SnapshotError> {
    match spans
        .iter()
        .position(|&(o, l)| o as u64 + l as u64 > len as u64)
    {
        Some(i) => Err(invalid_at(field, i)),
        None => Ok(()),
    }
}

impl RouteScheduler {
    /// The current state (a copy; [`Snapshot::snapshot`] writes it without copying).
    pub fn state(&self) -> RouteState {
        RouteState {
            rng: self.rng,
            now: self.now,
            link_used: self.g.used_all().to_vec(),
            lane_free: self.lanes.free.clone(),
            used_node: self.used_node.clone(),
            totals: self.totals,
            plans: self.plans.clone(),
            decided: self.decided.clone(),
            released: self.released.clone(),
            applied: self.applied.clone(),
            paths: self.paths.clone(),
            path_nodes: self.path_nodes.clone(),
            job_links: self.job_links.clone(),
            link_arena: self.link_arena.clone(),
            queue: self.queue.clone(),
            live: self.live.clone(),
            group_running: self.group_running.clone(),
        }
    }

    fn state_ref(&self) -> StateRef<'_> {
        StateRef {
            rng: self.rng,
            now: self.now,
            link_used: self.g.used_all(),
            lane_free: &self.lanes.free,
            used_node: &self.used_node,
            totals: self.totals,
            plans: &self.plans,
            decided: &self.decided,
            released: &self.released,
            applied: &self.applied,
            paths: &self.paths,
            path_nodes: &self.path_nodes,
            job_links: &self.job_links,
            link_arena: &self.link_arena,
            queue: &self.queue,
            live: &self.live,
            group_running: &self.group_running,
        }
    }

    /// Checks a saved state against this router's scenario: the model's lengths (links, lanes,
    /// nodes, jobs, tenants) and buffer capacities; link loads finite and >= 0; queue / live
    /// lists of distinct jobs in the right phase (released -> decided -> applied); paths, links
    /// and plans within their arenas and of the job's worker count; tenant counts and totals
    /// equal to what the placed jobs add up to. Then no later event can index out of range,
    /// underflow or overflow.
    pub fn check_state(&self, st: &RouteState) -> Result<(), SnapshotError> {
        let nj = self.jobs.len();
        let (n, links) = (self.g.nodes(), self.g.links());
        ensure(st.link_used.len() == links, "link_used")?;
        if let Some(i) = st
            .link_used
            .iter()
            .position(|&u| !(u.is_finite() && u >= 0.0))
        {
            return Err(invalid_at("link_used", i));
        }
        ensure(st.lane_free.len() == self.lanes.free.len(), "lane_free")?;
        ensure(st.used_node.len() == n, "used_node")?;
        for (v, f) in [
            (st.plans.len(), "plans"),
            (st.decided.len(), "decided"),
            (st.released.len(), "released"),
            (st.applied.len(), "applied"),
            (st.job_links.len(), "job_links"),
        ] {
            ensure(v == nj, f)?;
        }
        for j in 0..nj {
            if st.decided[j] && !st.released[j] {
                return Err(invalid_at("decided", j));
            }
            if st.applied[j] && !st.decided[j] {
                return Err(invalid_at("applied", j));
            }
        }
        check_jobs(&st.queue, nj, "queue", |j| st.released[j] && !st.decided[j])?;
        check_jobs(&st.live, nj, "live", |j| st.decided[j])?;
        ensure(st.paths.len() <= self.paths.capacity(), "paths")?;
        ensure(
            st.path_nodes.len() <= self.path_nodes.capacity(),
            "path_nodes",
        )?;
        ensure(
            st.link_arena.len() <= self.link_arena.capacity(),
            "link_arena",
        )?;
        check_spans(&st.paths, st.path_nodes.len(), "paths")?;
        check_spans(&st.job_links, st.link_arena.len(), "job_links")?;
        if let Some(i) = st.path_nodes.iter().position(|&v| v as usize >= n) {
            return Err(invalid_at("path_nodes", i));
        }
        if let Some(i) = st.link_arena.iter().position(|&l| l as usize >= links) {
            return Err(invalid_at("link_arena", i));
        }
        for (j, p) in st.plans.iter().enumerate() {
            let ok = !st.decided[j]
                || (p.workers == self.jobs[j].workers
                    && p.first_path as u64 + p.workers as u64 <= st.paths.len() as u64);
            if !ok {
                return Err(invalid_at("plans", j));
            }
        }
        self.check_counts(st)
    }

    /// Tenant counts and totals against the placed jobs.
    fn check_counts(&self, st: &RouteState) -> Result<(), SnapshotError> {
        ensure(
            st.group_running.len() == self.group_running.len(),
            "group_running",
        )?;
        let mut running: Vec<u64> = alloc::vec![0; st.group_running.len()];
        for &j in &st.live {
            let jb = &self.jobs[j as usize];
            let r = self
                .tables
                .ps_row
                .get(jb.ps as usize)
                .copied()
                .unwrap_or(u32::MAX);
            let slot = running
                .get_mut(r as usize)
                .ok_or(invalid_at("live", j as usize))?;
            *slot += jb.workers as u64;
        }
        if let Some(r) = (0..running.len()).find(|&r| running[r] != st.group_running[r] as u64) {
            return Err(invalid_at("group_running", r));
        }
        let t = &st.totals;
        let decided = st.decided.iter().filter(|&&d| d).count();
        let used = st.used_node.iter().filter(|&&u| u).count();
        let ok = t.jobs as usize == decided
            && t.violations <= t.jobs
            && t.servers as usize == used
            && t.network_sum.is_finite()
            && t.network_sum >= 0.0;
        ensure(ok, "totals")
    }

    fn set_state(&mut self, st: &RouteState) {
        // Copies into the buffers reserved by `new`: their capacities stay as built.
        fn copy<T: Copy>(dst: &mut Vec<T>, src: &[T]) {
            dst.clear();
            dst.extend_from_slice(src);
        }
        self.rng = st.rng;
        self.now = st.now;
        self.g.set_used_all(&st.link_used);
        copy(&mut self.lanes.free, &st.lane_free);
        copy(&mut self.used_node, &st.used_node);
        self.totals = st.totals;
        copy(&mut self.plans, &st.plans);
        copy(&mut self.decided, &st.decided);
        copy(&mut self.released, &st.released);
        copy(&mut self.applied, &st.applied);
        copy(&mut self.paths, &st.paths);
        copy(&mut self.path_nodes, &st.path_nodes);
        copy(&mut self.job_links, &st.job_links);
        copy(&mut self.link_arena, &st.link_arena);
        copy(&mut self.queue, &st.queue);
        copy(&mut self.live, &st.live);
        copy(&mut self.group_running, &st.group_running);
    }

    /// Restores a state taken from a router built on the same scenario and policy (checked
    /// first with [`Self::check_state`]; on error the router is unchanged).
    pub fn restore(&mut self, st: &RouteState) -> Result<(), SnapshotError> {
        self.check_state(st)?;
        self.set_state(st);
        debug_assert!(
            self.check_state(&self.state()).is_ok(),
            "route: restored state fails its own check"
        );
        Ok(())
    }
}

impl RouteScheduler {
    /// The state does not carry the open world yet (node capacities, down nodes, job fates:
    /// `docs/open-world.md`, "Kind route"): after an open-world event a snapshot is refused
    /// rather than silently incomplete.
    fn closed_world(&self) -> Result<(), SnapshotError> {
        ensure(!self.ow.open, "open_world")
    }
}

/// Snapshots of kind [`TAG_ROUTE`]: the body is a [`RouteState`] (closed-world runs only).
impl Snapshot for RouteScheduler {
    const KIND: u8 = TAG_ROUTE;

    fn snapshot_into<'b>(&self, buf: &'b mut [u8]) -> Result<&'b [u8], SnapshotError> {
        self.closed_world()?;
        snapshot::save_into(Self::KIND, &self.state_ref(), buf)
    }

    fn snapshot(&self) -> Result<Vec<u8>, SnapshotError> {
        self.closed_world()?;
        snapshot::save(Self::KIND, &self.state_ref())
    }

    fn restore_snapshot(&mut self, bytes: &[u8]) -> Result<(), SnapshotError> {
        self.closed_world()?;
        let st: RouteState = snapshot::restore(Self::KIND, bytes)?;
        self.restore(&st)
    }
}
