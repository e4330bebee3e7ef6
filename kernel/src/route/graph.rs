//! The topology G = (V, E) with fixed capacity: CSR adjacency (neighbours sorted by index),
//! per-link capacity C and used bandwidth BW_u (background load plus running jobs).
use super::RouteError;
use crate::error::Limit;
use crate::limits::{check, COMPUTE_SLOTS_MAX, GRAPH_LINKS_MAX, GRAPH_NODES_MAX};
use crate::model::route::{NodeKind, Topology};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// G = (V, E): nodes, undirected links, and the link state the cost (eq. 5) reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    kind: Vec<NodeKind>,
    slots: Vec<u32>,
    /// CSR offsets: the neighbours of `v` are `adj[off[v]..off[v + 1]]`.
    off: Vec<u32>,
    /// (neighbour, link) pairs, sorted by neighbour within each node.
    adj: Vec<(u32, u32)>,
    ends: Vec<(u32, u32)>,
    cap: Vec<f64>,
    used: Vec<f64>,
}

impl Graph {
    /// Builds G from a validated topology (checks indices and limits again: no panic on bad input).
    pub fn new(t: &Topology) -> Result<Self, RouteError> {
        let n = t.nodes.len();
        check(Limit::GraphNodes, n, GRAPH_NODES_MAX)?;
        check(Limit::GraphLinks, t.links.len(), GRAPH_LINKS_MAX)?;
        for node in &t.nodes {
            check(Limit::ComputeSlots, node.slots as usize, COMPUTE_SLOTS_MAX)?;
        }
        let mut deg = alloc::vec![0u32; n + 1];
        for (i, l) in t.links.iter().enumerate() {
            if l.a as usize >= n || l.b as usize >= n || l.a == l.b {
                return Err(RouteError::BadLink { link: i as u32 });
            }
            deg[l.a as usize + 1] += 1;
            deg[l.b as usize + 1] += 1;
        }
        for v in 0..n {
            deg[v + 1] += deg[v];
        }
        let mut fill = deg.clone();
        let mut adj = alloc::vec![(0u32, 0u32); 2 * t.links.len()];
        for (i, l) in t.links.iter().enumerate() {
            for (x, y) in [(l.a, l.b), (l.b, l.a)] {
                let at = &mut fill[x as usize];
                adj[*at as usize] = (y, i as u32);
                *at += 1;
            }
        }
        for v in 0..n {
            // Neighbour order by index (then link) makes every scan deterministic.
            crate::order::sort_pairs(&mut adj[deg[v] as usize..deg[v + 1] as usize]);
        }
        Ok(Graph {
            kind: t.nodes.iter().map(|x| x.kind).collect(),
            slots: t.nodes.iter().map(|x| x.slots).collect(),
            off: deg,
            adj,
            ends: t.links.iter().map(|l| (l.a, l.b)).collect(),
            cap: t.links.iter().map(|l| l.capacity).collect(),
            used: t.links.iter().map(|l| l.used).collect(),
        })
    }

    /// |V|.
    pub fn nodes(&self) -> usize {
        self.kind.len()
    }

    /// |E|.
    pub fn links(&self) -> usize {
        self.cap.len()
    }

    /// Kind of node `v` (a switch for an index out of range).
    pub fn kind(&self, v: u32) -> NodeKind {
        self.kind
            .get(v as usize)
            .copied()
            .unwrap_or(NodeKind::Switch)
    }

    /// Compute slots C^c_{s_k} of node `v` (0 unless compute).
    pub fn slots(&self, v: u32) -> u32 {
        self.slots.get(v as usize).copied().unwrap_or(0)
    }

    /// (neighbour, link) pairs of `v`, sorted by neighbour.
    pub fn neighbours(&self, v: u32) -> &[(u32, u32)] {
        let a = self.off.get(v as usize).copied().unwrap_or(0) as usize;
        let b = self.off.get(v as usize + 1).copied().unwrap_or(0) as usize;
        self.adj.get(a..b).unwrap_or(&[])
    }

    /// The link joining `a` and `b`, if any (binary search in `a`'s sorted neighbours).
    pub fn link_between(&self, a: u32, b: u32) -> Option<u32> {
        let nb = self.neighbours(a);
        nb.binary_search_by(|&(y, _)| y.cmp(&b))
            .ok()
            .and_then(|i| nb.get(i))
            .map(|&(_, l)| l)
    }

    /// Endpoints of link `l`.
    pub fn ends(&self, l: u32) -> (u32, u32) {
        self.ends
            .get(l as usize)
            .copied()
            .unwrap_or((NONE_PAIR, NONE_PAIR))
    }

    /// C of link `l`.
    pub fn capacity(&self, l: u32) -> f64 {
        self.cap.get(l as usize).copied().unwrap_or(1.0)
    }

    /// BW_u of link `l` (background plus running jobs).
    pub fn used(&self, l: u32) -> f64 {
        self.used.get(l as usize).copied().unwrap_or(0.0)
    }

    /// Aggregation weight BW_u / C of link `l` (Algorithm 2).
    pub fn load(&self, l: u32) -> f64 {
        self.used(l) / self.capacity(l)
    }

    /// Adds `bw` (may be negative to release) to BW_u of link `l`; never below 0.
    pub fn add_used(&mut self, l: u32, bw: f64) {
        if let Some(u) = self.used.get_mut(l as usize) {
            let x = *u + bw;
            // Releases subtract exactly what was added; clamp float dust below zero.
            *u = if x < 1e-12 { 0.0 } else { x };
        }
    }
}

impl Graph {
    /// BW_u of every link, by link index (for snapshots).
    pub fn used_all(&self) -> &[f64] {
        &self.used
    }

    /// Sets BW_u of every link (a snapshot restore; the caller checked the length).
    pub(crate) fn set_used_all(&mut self, used: &[f64]) {
        for (u, &x) in self.used.iter_mut().zip(used) {
            *u = x;
        }
    }
}

const NONE_PAIR: u32 = crate::index::NONE;
