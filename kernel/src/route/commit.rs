//! Committing a decided job: its lanes ([`super::lanes`]), paths and links, totals and plan,
//! then the decision record; Algorithm 2 on its paths for Aggregated CSRP; and the link load
//! of committed jobs over time (their bandwidth is on their links while they run).
use super::aggregate;
use super::cost::network_cost;
use super::outcome::JobPlan;
use super::records::{AggRec, DecisionRec, RouteDecision};
use super::{RouteError, RouteScheduler, NONE, PATH_NODES_MAX};
use crate::limits::ROUTE_WORKERS_MAX;
use crate::num::canon;
use alloc::vec::Vec;

impl RouteScheduler {
    /// Applies bandwidth of jobs starting by `t` and releases that of jobs ended by `t`.
    pub(super) fn advance_links(&mut self, t: u32) {
        let mut i = 0;
        while i < self.live.len() {
            let j = self.live[i] as usize;
            let end = self.plans[j].start.saturating_add(self.jobs[j].duration);
            if self.applied[j] && end <= t {
                self.apply(j, -1.0);
                let r = self.tables.ps_row[self.jobs[j].ps as usize] as usize;
                self.group_running[r] -= self.jobs[j].workers;
                self.live.remove(i);
                continue;
            }
            i += 1;
        }
        for i in 0..self.live.len() {
            let j = self.live[i] as usize;
            if !self.applied[j] && self.plans[j].start <= t {
                self.apply(j, 1.0);
                self.applied[j] = true;
            }
        }
    }

    /// Adds (`sign` 1) or removes (-1) job `j`'s bandwidth on its links.
    pub(super) fn apply(&mut self, j: usize, sign: f64) {
        let (o, l) = self.job_links[j];
        let bw = sign * self.jobs[j].bandwidth;
        for k in o..o + l {
            let link = self.link_arena[k as usize];
            self.g.add_used(link, bw);
        }
    }

    /// Takes lanes, records paths and links, updates totals, logs the decision.
    pub(super) fn commit(
        &mut self,
        j: u32,
        t: u32,
        start: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        let jb = self.jobs[j as usize];
        let w = jb.workers as usize;
        let end = start.saturating_add(jb.duration);
        for k in 0..w {
            let v = self.sc.wnodes[k] as usize;
            self.lanes.take(v, t, start, end)?;
        }
        let mut n_plain = 0.0;
        let mut units_plain = 0u32;
        for k in 0..w {
            n_plain += self.sc.wcost[k];
            units_plain += self.sc.wlen[k].saturating_sub(1);
        }
        let mut network = n_plain;
        let mut units = units_plain;
        let mut agg_node = NONE;
        let first_path = self.paths.len() as u32;
        let link_off = self.link_arena.len() as u32;
        let mut applied_agg = false;
        if self.aggregate {
            if let Some((node, n_agg, u_agg)) = self.try_aggregate(j, sink, n_plain, units_plain)? {
                network = n_agg;
                units = u_agg;
                agg_node = node;
                applied_agg = true;
            }
        }
        if !applied_agg {
            for k in 0..w {
                let l = self.sc.wlen[k] as usize;
                push_path(
                    &mut self.paths,
                    &mut self.path_nodes,
                    &self.sc.wpath[k * PATH_NODES_MAX..k * PATH_NODES_MAX + l],
                )?;
                for i in 0..l.saturating_sub(1) {
                    let a = self.sc.wpath[k * PATH_NODES_MAX + i];
                    let b = self.sc.wpath[k * PATH_NODES_MAX + i + 1];
                    let link = self.g.link_between(a, b).ok_or(RouteError::Scratch)?;
                    push_cap(&mut self.link_arena, link)?;
                }
            }
        }
        let mut new_servers = 0u32;
        for k in 0..w {
            let v = self.sc.wnodes[k] as usize;
            if !self.used_node[v] {
                self.used_node[v] = true;
                new_servers += 1;
            }
        }
        let met = start as u64 + jb.duration as u64 <= jb.deadline as u64;
        self.totals = self.totals.with(network, new_servers, !met);
        self.plans[j as usize] = JobPlan {
            start,
            first_path,
            workers: jb.workers,
            aggregation: agg_node,
            network_cost: network,
            deadline_met: met,
            bandwidth_units: units,
            bandwidth_units_plain: units_plain,
        };
        self.decided[j as usize] = true;
        self.job_links[j as usize] = (link_off, self.link_arena.len() as u32 - link_off);
        let r = self.tables.ps_row[jb.ps as usize] as usize;
        self.group_running[r] += jb.workers;
        if self.live.len() == self.live.capacity() {
            return Err(RouteError::Scratch);
        }
        self.live.push(j);
        if start <= t {
            self.apply(j as usize, 1.0);
            self.applied[j as usize] = true;
        }
        let mut nodes = heapless::Vec::new();
        let mut hops = 0u32;
        for k in 0..w {
            nodes
                .push(self.sc.wnodes[k])
                .map_err(|_| RouteError::Scratch)?;
            hops += self.sc.wlen[k].saturating_sub(1);
        }
        sink(&RouteDecision::Placed(DecisionRec {
            job: j,
            policy: self.policy.code(),
            start,
            nodes,
            hops,
            network_cost: canon(network),
            deadline_met: met,
            aggregation: agg_node,
        }));
        Ok(())
    }

    /// Algorithm 2 on the decoded paths; on success writes the aggregated paths and links and
    /// returns (node, N, bandwidth units).
    fn try_aggregate(
        &mut self,
        j: u32,
        sink: &mut dyn FnMut(&RouteDecision),
        n_plain: f64,
        units_plain: u32,
    ) -> Result<Option<(u32, f64, u32)>, RouteError> {
        let jb = self.jobs[j as usize];
        let w = jb.workers as usize;
        let mut views: [&[u32]; ROUTE_WORKERS_MAX] = [&[]; ROUTE_WORKERS_MAX];
        for (k, v) in views.iter_mut().enumerate().take(w) {
            let l = self.sc.wlen[k] as usize;
            *v = &self.sc.wpath[k * PATH_NODES_MAX..k * PATH_NODES_MAX + l];
        }
        let Some(choice) =
            aggregate::choose(&self.g, jb.ps, &views[..w], &mut self.dj_tmp, &mut self.agg)?
        else {
            return Ok(None);
        };
        // Segments: the trunk once, each distinct node's branch once; their links form the
        // multicast structure (each link carries the job's flow once).
        let g = &self.g;
        let tl = choice.trunk_len as usize;
        let mut seg_links = [0u32; PATH_NODES_MAX];
        let h = aggregate::links_of(g, &self.agg.trunk[..tl], &mut seg_links)
            .ok_or(RouteError::Scratch)?;
        let mut n_agg = network_cost(g, &seg_links[..h], self.f);
        // The distinct links, in a small linear set (at most (1 + workers) PATH_NODES_MAX).
        let mut set_len = 0usize;
        let set = &mut self.sc.links;
        let mut add = |l: u32, set: &mut Vec<u32>| -> Result<(), RouteError> {
            if !set[..set_len].contains(&l) {
                if set_len == set.len() {
                    return Err(RouteError::Scratch);
                }
                set[set_len] = l;
                set_len += 1;
            }
            Ok(())
        };
        for &l in &seg_links[..h] {
            add(l, set)?;
        }
        let nd = self.agg.distinct().len();
        for k in 0..nd {
            let bl = self.agg.branch_len[k] as usize;
            let br = &self.agg.branches[k * PATH_NODES_MAX..k * PATH_NODES_MAX + bl];
            let hb = aggregate::links_of(g, br, &mut seg_links).ok_or(RouteError::Scratch)?;
            n_agg += network_cost(g, &seg_links[..hb], self.f);
            for &l in &seg_links[..hb] {
                add(l, set)?;
            }
        }
        let units_agg = set_len as u32;
        let applied = units_agg <= units_plain && n_agg <= n_plain;
        sink(&RouteDecision::Aggregation(AggRec {
            job: j,
            node: choice.node,
            weight: canon(choice.weight),
            units_plain,
            units_aggregated: units_agg,
            network_plain: canon(n_plain),
            network_aggregated: canon(n_agg),
            applied,
        }));
        if !applied {
            return Ok(None);
        }
        for i in 0..set_len {
            let l = self.sc.links[i];
            push_cap(&mut self.link_arena, l)?;
        }
        // Each worker's path: trunk ++ its node's branch (without repeating a), loop-erased.
        for k in 0..w {
            let c = self.sc.wnodes[k];
            let bi = self
                .agg
                .distinct()
                .iter()
                .position(|x| x.0 == c)
                .ok_or(RouteError::Scratch)?;
            let bl = self.agg.branch_len[bi] as usize;
            let mut buf = [0u32; 2 * PATH_NODES_MAX];
            buf[..tl].copy_from_slice(&self.agg.trunk[..tl]);
            let br = &self.agg.branches[bi * PATH_NODES_MAX..bi * PATH_NODES_MAX + bl];
            let mut len = tl;
            for &v in br.iter().skip(1) {
                buf[len] = v;
                len += 1;
            }
            let len = aggregate::loop_erase(&mut buf, len);
            if len > PATH_NODES_MAX {
                return Err(RouteError::PathTooLong { job: j });
            }
            push_path(&mut self.paths, &mut self.path_nodes, &buf[..len])?;
        }
        Ok(Some((choice.node, n_agg, units_agg)))
    }
}

fn push_cap(v: &mut Vec<u32>, x: u32) -> Result<(), RouteError> {
    if v.len() == v.capacity() {
        return Err(RouteError::Scratch);
    }
    v.push(x);
    Ok(())
}

fn push_path(
    paths: &mut Vec<(u32, u32)>,
    nodes: &mut Vec<u32>,
    p: &[u32],
) -> Result<(), RouteError> {
    if paths.len() == paths.capacity() || nodes.len() + p.len() > nodes.capacity() {
        return Err(RouteError::Scratch);
    }
    paths.push((nodes.len() as u32, p.len() as u32));
    nodes.extend_from_slice(p);
    Ok(())
}
