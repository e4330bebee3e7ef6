//! Dijkstra's shortest paths with a binary heap and a total, documented tie-break.
//!
//! Keys are compared lexicographically as (distance, hops, node index): with non-negative link
//! weights every predecessor on an optimal path has a strictly smaller key, so the settled order
//! is total and the predecessor of `v` is **the smallest-index neighbour achieving v's optimal
//! (distance, hops)**. The O(V^2) [`reference`] uses the same rule, so both give identical
//! `dist`, `hops` and `pred` arrays (checked by property tests).
use super::graph::Graph;
use super::{RouteError, NONE};
use alloc::vec::Vec;
use core::cmp::Ordering;

/// Link weight of a Dijkstra run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    /// Every link weighs 1: the "shortest path principle" of the baselines.
    Hops,
    /// BW_u / C: the aggregation weight of Algorithm 2 (and CSRP's light-load tree).
    Load,
}

impl Weight {
    /// The weight of link `l` in `g`.
    pub fn of(self, g: &Graph, l: u32) -> f64 {
        match self {
            Weight::Hops => 1.0,
            Weight::Load => g.load(l),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    dist: f64,
    hops: u32,
    node: u32,
}

fn key_cmp(a: (f64, u32, u32), b: (f64, u32, u32)) -> Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
}

fn entry_less(a: &Entry, b: &Entry) -> bool {
    key_cmp((a.dist, a.hops, a.node), (b.dist, b.hops, b.node)) == Ordering::Less
}

/// Scratch and result of one single-source run: `dist`, `hops`, `pred` per node.
#[derive(Clone, Debug)]
pub struct Dijkstra {
    dist: Vec<f64>,
    hops: Vec<u32>,
    pred: Vec<u32>,
    done: Vec<bool>,
    heap: Vec<Entry>,
    source: u32,
}

impl Dijkstra {
    /// Scratch for graphs of up to `nodes` nodes and `links` links (allocated once).
    pub fn new(nodes: usize, links: usize) -> Self {
        Dijkstra {
            dist: alloc::vec![f64::INFINITY; nodes],
            hops: alloc::vec![u32::MAX; nodes],
            pred: alloc::vec![NONE; nodes],
            done: alloc::vec![false; nodes],
            heap: Vec::with_capacity(2 * links + 1),
            source: NONE,
        }
    }

    /// Shortest paths from `src` under `w`. Allocation-free: the heap holds at most one entry
    /// per directed link relaxation plus the source, which is its build-time capacity.
    pub fn run(&mut self, g: &Graph, src: u32, w: Weight) -> Result<(), RouteError> {
        let n = g.nodes();
        if n > self.dist.len() || src as usize >= n || self.heap.capacity() < 2 * g.links() + 1 {
            return Err(RouteError::Scratch);
        }
        self.reset(n, src);
        self.heap.clear();
        self.push(Entry {
            dist: 0.0,
            hops: 0,
            node: src,
        })?;
        while let Some(e) = self.pop() {
            let u = e.node as usize;
            if self.done[u] || e.dist != self.dist[u] || e.hops != self.hops[u] {
                continue; // stale entry (lazy deletion)
            }
            self.done[u] = true;
            for &(v, l) in g.neighbours(e.node) {
                let vi = v as usize;
                if self.done[vi] {
                    continue;
                }
                let nd = e.dist + w.of(g, l);
                let nh = e.hops + 1;
                match key_cmp((nd, nh, 0), (self.dist[vi], self.hops[vi], 0)) {
                    Ordering::Less => {
                        self.dist[vi] = nd;
                        self.hops[vi] = nh;
                        self.pred[vi] = e.node;
                        self.push(Entry {
                            dist: nd,
                            hops: nh,
                            node: v,
                        })?;
                    }
                    Ordering::Equal if e.node < self.pred[vi] => self.pred[vi] = e.node,
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn reset(&mut self, n: usize, src: u32) {
        self.dist[..n].fill(f64::INFINITY);
        self.hops[..n].fill(u32::MAX);
        self.pred[..n].fill(NONE);
        self.done[..n].fill(false);
        self.dist[src as usize] = 0.0;
        self.hops[src as usize] = 0;
        self.source = src;
    }

    fn push(&mut self, e: Entry) -> Result<(), RouteError> {
        if self.heap.len() == self.heap.capacity() {
            return Err(RouteError::Scratch);
        }
        self.heap.push(e);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let p = (i - 1) / 2;
            if entry_less(&self.heap[i], &self.heap[p]) {
                self.heap.swap(i, p);
                i = p;
            } else {
                break;
            }
        }
        Ok(())
    }

    fn pop(&mut self) -> Option<Entry> {
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            return Some(last);
        }
        let top = core::mem::replace(&mut self.heap[0], last);
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && entry_less(&self.heap[l], &self.heap[m]) {
                m = l;
            }
            if r < n && entry_less(&self.heap[r], &self.heap[m]) {
                m = r;
            }
            if m == i {
                break;
            }
            self.heap.swap(i, m);
            i = m;
        }
        Some(top)
    }

    /// The source of the last run.
    pub fn source(&self) -> u32 {
        self.source
    }

    /// Distance to `v` (infinite when unreachable).
    pub fn dist(&self, v: u32) -> f64 {
        self.dist.get(v as usize).copied().unwrap_or(f64::INFINITY)
    }

    /// Hops of the chosen path to `v` (`u32::MAX` when unreachable).
    pub fn hops(&self, v: u32) -> u32 {
        self.hops.get(v as usize).copied().unwrap_or(u32::MAX)
    }

    /// Predecessor of `v` on its path from the source ([`NONE`] for the source / unreachable).
    pub fn pred(&self, v: u32) -> u32 {
        self.pred.get(v as usize).copied().unwrap_or(NONE)
    }

    /// All predecessors (index = node).
    pub fn preds(&self) -> &[u32] {
        &self.pred
    }

    /// Writes the path source -> `v` into `out`, returning its node count, or `None` when `v`
    /// is unreachable or the path does not fit `out`.
    pub fn path_to(&self, v: u32, out: &mut [u32]) -> Option<usize> {
        let h = self.hops(v);
        if h == u32::MAX || h as usize >= out.len() {
            return None;
        }
        let mut x = v;
        for i in (0..=h as usize).rev() {
            out[i] = x;
            x = self.pred(x);
        }
        Some(h as usize + 1)
    }
}

/// Paper-literal Dijkstra: O(V^2) selection of the unsettled node with the least
/// (distance, hops, index), same relaxation rule. Returns (dist, hops, pred).
#[cfg(any(test, feature = "reference"))]
pub fn reference(g: &Graph, src: u32, w: Weight) -> (Vec<f64>, Vec<u32>, Vec<u32>) {
    let n = g.nodes();
    let mut dist = alloc::vec![f64::INFINITY; n];
    let mut hops = alloc::vec![u32::MAX; n];
    let mut pred = alloc::vec![NONE; n];
    let mut done = alloc::vec![false; n];
    if (src as usize) < n {
        dist[src as usize] = 0.0;
        hops[src as usize] = 0;
    }
    for _ in 0..n {
        let mut best: Option<usize> = None;
        for v in 0..n {
            if done[v] || hops[v] == u32::MAX {
                continue;
            }
            let better = match best {
                None => true,
                Some(b) => {
                    key_cmp((dist[v], hops[v], v as u32), (dist[b], hops[b], b as u32))
                        == Ordering::Less
                }
            };
            if better {
                best = Some(v);
            }
        }
        let Some(u) = best else { break };
        done[u] = true;
        for &(v, l) in g.neighbours(u as u32) {
            let vi = v as usize;
            if done[vi] {
                continue;
            }
            let nd = dist[u] + w.of(g, l);
            let nh = hops[u] + 1;
            match key_cmp((nd, nh, 0), (dist[vi], hops[vi], 0)) {
                Ordering::Less => {
                    dist[vi] = nd;
                    hops[vi] = nh;
                    pred[vi] = u as u32;
                }
                Ordering::Equal if (u as u32) < pred[vi] => pred[vi] = u as u32,
                _ => {}
            }
        }
    }
    (dist, hops, pred)
}
