//! Aggregated CSRP (Algorithm 2): for a job whose workers run on compute nodes c_1..c_m, choose
//! the aggregation node a among the nodes of its CSRP paths that minimises the summed Dijkstra
//! weights (link weight BW_u / C) of the aggregated paths: d(PS, a) + sum_k d(a, c_k) (the
//! trunk PS -> a carries the parameters once; a multicasts them and aggregates gradients).
//! Ties by node index. The aggregated structure is applied only if it uses no more bandwidth
//! (links carrying the job's flow, each once) and no more network cost than the plain paths,
//! so aggregation never increases what a job uses.
use super::dijkstra::{Dijkstra, Weight};
use super::graph::Graph;
use super::{RouteError, NONE, PATH_NODES_MAX};
use alloc::vec::Vec;

/// Scratch of Algorithm 2 (sized once).
#[derive(Clone, Debug)]
pub struct AggScratch {
    /// Candidate aggregation nodes (distinct nodes of the job's paths).
    cands: Vec<u32>,
    sums: Vec<f64>,
    stamp: Vec<u32>,
    gen: u32,
    /// Distinct compute nodes of the job and how many workers each holds.
    distinct: Vec<(u32, u32)>,
    /// The trunk PS -> a (nodes).
    pub trunk: Vec<u32>,
    /// Branch a -> c for each distinct compute node, flattened (PATH_NODES_MAX per branch).
    pub branches: Vec<u32>,
    /// Node count of each branch.
    pub branch_len: Vec<u32>,
}

impl AggScratch {
    /// Scratch for graphs of `nodes` nodes and jobs of up to `workers` workers.
    pub fn new(nodes: usize, workers: usize) -> Self {
        AggScratch {
            cands: Vec::with_capacity(workers * PATH_NODES_MAX),
            sums: alloc::vec![0.0; workers * PATH_NODES_MAX],
            stamp: alloc::vec![0; nodes],
            gen: 0,
            distinct: Vec::with_capacity(workers),
            trunk: alloc::vec![0; PATH_NODES_MAX],
            branches: alloc::vec![0; workers * PATH_NODES_MAX],
            branch_len: alloc::vec![0; workers],
        }
    }

    /// Distinct compute nodes of the last choice, with their worker counts.
    pub fn distinct(&self) -> &[(u32, u32)] {
        &self.distinct
    }
}

/// The aggregation node chosen by Algorithm 2 and its summed weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// Aggregation node a.
    pub node: u32,
    /// d(PS, a) + sum_k d(a, c_k).
    pub weight: f64,
    /// Nodes in the trunk PS -> a.
    pub trunk_len: u32,
}

/// Algorithm 2. `paths` holds one path (PS first, compute node last) per worker. Fills the
/// trunk and the branches of `sc`. `dj` is scratch (its last run is overwritten).
pub fn choose(
    g: &Graph,
    ps: u32,
    paths: &[&[u32]],
    dj: &mut Dijkstra,
    sc: &mut AggScratch,
) -> Result<Option<Choice>, RouteError> {
    sc.gen = sc.gen.wrapping_add(1);
    if sc.gen == 0 {
        sc.stamp.fill(0);
        sc.gen = 1;
    }
    sc.cands.clear();
    sc.distinct.clear();
    for p in paths {
        for &v in p.iter() {
            let st = sc.stamp.get_mut(v as usize).ok_or(RouteError::Scratch)?;
            if *st != sc.gen {
                *st = sc.gen;
                if sc.cands.len() == sc.cands.capacity() {
                    return Err(RouteError::Scratch);
                }
                sc.cands.push(v);
            }
        }
        if let Some(&c) = p.last() {
            let full = sc.distinct.len() == sc.distinct.capacity();
            match sc.distinct.iter_mut().find(|x| x.0 == c) {
                Some(x) => x.1 += 1,
                None if !full => sc.distinct.push((c, 1)),
                None => return Err(RouteError::Scratch),
            }
        }
    }
    if sc.cands.is_empty() {
        return Ok(None);
    }
    let nc = sc.cands.len();
    // Trunk weights d(PS, a).
    dj.run(g, ps, Weight::Load)?;
    for i in 0..nc {
        sc.sums[i] = dj.dist(sc.cands[i]);
    }
    // Branch weights: d(a, c) = d(c, a) (undirected), one run per distinct compute node; a
    // node holding several workers is multicast to once.
    for k in 0..sc.distinct.len() {
        dj.run(g, sc.distinct[k].0, Weight::Load)?;
        for i in 0..nc {
            sc.sums[i] += dj.dist(sc.cands[i]);
        }
    }
    let mut best = 0usize;
    for i in 1..nc {
        let (a, b) = ((sc.sums[i], sc.cands[i]), (sc.sums[best], sc.cands[best]));
        if crate::order::cmp_f64_then_index(a, b) == core::cmp::Ordering::Less {
            best = i;
        }
    }
    let a = sc.cands[best];
    let weight = sc.sums[best];
    if !weight.is_finite() {
        return Ok(None);
    }
    // Trunk PS -> a, then the branches a -> c from a run rooted at a.
    dj.run(g, ps, Weight::Load)?;
    let tl = dj.path_to(a, &mut sc.trunk).ok_or(RouteError::Scratch)?;
    dj.run(g, a, Weight::Load)?;
    for k in 0..sc.distinct.len() {
        let c = sc.distinct[k].0;
        let out = sc
            .branches
            .get_mut(k * PATH_NODES_MAX..(k + 1) * PATH_NODES_MAX)
            .ok_or(RouteError::Scratch)?;
        let bl = dj.path_to(c, out).ok_or(RouteError::Scratch)?;
        sc.branch_len[k] = bl as u32;
    }
    Ok(Some(Choice {
        node: a,
        weight,
        trunk_len: tl as u32,
    }))
}

/// Removes loops from a walk in place (keeps the first visit of a repeated node, drops the
/// cycle after it) and returns the new length. The result is still a walk of adjacent nodes
/// with the same ends.
pub fn loop_erase(w: &mut [u32], len: usize) -> usize {
    let mut out = 0usize;
    for i in 0..len.min(w.len()) {
        let v = w[i];
        match w[..out].iter().position(|&x| x == v) {
            Some(q) => out = q + 1,
            None => {
                w[out] = v;
                out += 1;
            }
        }
    }
    out
}

/// Writes the links of the walk `nodes` into `out`, returning the count, or `None` if two
/// consecutive nodes are not adjacent or `out` is too short.
pub fn links_of(g: &Graph, nodes: &[u32], out: &mut [u32]) -> Option<usize> {
    let n = nodes.len().saturating_sub(1);
    if n > out.len() {
        return None;
    }
    for i in 0..n {
        out[i] = g.link_between(nodes[i], nodes[i + 1])?;
    }
    Some(n)
}

/// `NONE` re-exported for callers that store "no aggregation".
pub const NO_AGGREGATION: u32 = NONE;
