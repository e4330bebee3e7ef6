//! Paper-literal reference for CSRP's objective (feature `reference`): given what a run decided
//! (each job's start, worker paths, aggregation node, and when it was decided), every job's
//! network cost N (eqs. 4-5) is recomputed on the link state at its decision, that link state
//! rebuilt from the sets (the background load plus the bandwidth of every job decided before
//! it and running at that time), and then J_v, S_u, N-bar and eq. (11) from the sets of
//! eqs. (1)-(3).
//!
//! Independent of the fast path: it uses only the model types (`crate::model::route`), not the
//! graph, cost, commit, aggregate or scheduler modules; `tests/tests/reference_independence.rs`
//! scans this file.
use crate::model::route::{RouteJob, Topology};
use alloc::collections::BTreeSet;
use alloc::vec::Vec;

/// What a run decided for one job, as plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct Decided {
    /// Start e^r.
    pub start: u32,
    /// The slot at which it was decided (<= start).
    pub decided_at: u32,
    /// Position in the decision order.
    pub order: u32,
    /// Each worker's path, PS first, compute node last.
    pub paths: Vec<Vec<u32>>,
    /// The aggregation node of Algorithm 2 (`u32::MAX` = none applied).
    pub aggregation: u32,
}

/// What eqs. (1)-(5) and (11) give for a schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// N of every job (eq. 4, summed over its paths or aggregated segments).
    pub network: Vec<f64>,
    /// R_dv = J_v / J (eqs. 1-2).
    pub rdv: f64,
    /// |S_u| (eq. 3).
    pub servers: u32,
    /// N-bar, the mean of N.
    pub n_bar: f64,
    /// Eq. (11).
    pub cost: f64,
}

/// The link joining a and b (the first in the topology's list).
fn link(t: &Topology, a: u32, b: u32) -> Option<usize> {
    t.links
        .iter()
        .position(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
}

/// Links of a node path (`None` if two consecutive nodes are not adjacent).
fn links_of(t: &Topology, path: &[u32]) -> Option<Vec<usize>> {
    path.windows(2).map(|e| link(t, e[0], e[1])).collect()
}

/// Eq. (5): the load degree l of a path on link loads `used`. BW_b is the used bandwidth of the
/// bottleneck link, the one with the least remaining bandwidth C - BW_u (the first on the path
/// among equals); l = BW_b f^2 if BW_b / C > 0.9, BW_b f if BW_b / C > 0.5, else BW_b.
fn load_degree(t: &Topology, used: &[f64], links: &[usize], f: f64) -> f64 {
    let mut bottleneck: Option<usize> = None;
    for &l in links {
        let rem = t.links[l].capacity - used[l];
        match bottleneck {
            Some(b) if t.links[b].capacity - used[b] <= rem => {}
            _ => bottleneck = Some(l),
        }
    }
    let Some(b) = bottleneck else { return 0.0 };
    let (bw, c) = (used[b], t.links[b].capacity);
    if bw / c > 0.9 {
        bw * f * f
    } else if bw / c > 0.5 {
        bw * f
    } else {
        bw
    }
}

/// Eq. (4): N = l h of one path (h = its links).
fn path_cost(t: &Topology, used: &[f64], links: &[usize], f: f64) -> f64 {
    load_degree(t, used, links, f) * links.len() as f64
}

/// Dijkstra from `src` with link weight BW_u / C (Algorithm 2), settling nodes by
/// (distance, hops, index) and keeping the lowest-index predecessor among equal (distance,
/// hops): the O(V^2) textbook form. Returns the predecessor of every node (`u32::MAX` = none).
fn load_tree(t: &Topology, used: &[f64], src: u32) -> Vec<u32> {
    let n = t.nodes.len();
    let mut adj: Vec<Vec<(u32, usize)>> = alloc::vec![Vec::new(); n];
    for (i, l) in t.links.iter().enumerate() {
        adj[l.a as usize].push((l.b, i));
        adj[l.b as usize].push((l.a, i));
    }
    for a in &mut adj {
        a.sort_unstable();
    }
    let key = |d: f64, h: u32, v: u32| (d, h, v);
    let less = |x: (f64, u32, u32), y: (f64, u32, u32)| {
        x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)) == core::cmp::Ordering::Less
    };
    let mut dist = alloc::vec![f64::INFINITY; n];
    let mut hops = alloc::vec![u32::MAX; n];
    let mut pred = alloc::vec![u32::MAX; n];
    let mut done = alloc::vec![false; n];
    dist[src as usize] = 0.0;
    hops[src as usize] = 0;
    loop {
        let mut best: Option<usize> = None;
        for v in 0..n {
            if done[v] || hops[v] == u32::MAX {
                continue;
            }
            if best.is_none_or(|b| {
                less(
                    key(dist[v], hops[v], v as u32),
                    key(dist[b], hops[b], b as u32),
                )
            }) {
                best = Some(v);
            }
        }
        let Some(u) = best else { break };
        done[u] = true;
        for &(v, l) in &adj[u] {
            let vi = v as usize;
            if done[vi] {
                continue;
            }
            let nd = dist[u] + used[l] / t.links[l].capacity;
            let nh = hops[u] + 1;
            if less(key(nd, nh, 0), key(dist[vi], hops[vi], 0)) {
                dist[vi] = nd;
                hops[vi] = nh;
                pred[vi] = u as u32;
            } else if !less(key(dist[vi], hops[vi], 0), key(nd, nh, 0)) && (u as u32) < pred[vi] {
                pred[vi] = u as u32;
            }
        }
    }
    pred
}

/// The tree path from the tree's root to `v` (root first), `None` if unreachable.
fn tree_path(pred: &[u32], root: u32, v: u32) -> Option<Vec<u32>> {
    let mut p = alloc::vec![v];
    let mut x = v;
    while x != root {
        x = *pred.get(x as usize)?;
        if x == u32::MAX || p.len() > pred.len() {
            return None;
        }
        p.push(x);
    }
    p.reverse();
    Some(p)
}

/// A job's segments and the links its flow occupies on link loads `used`: the worker paths and
/// every link of every path (a link shared by two paths carries two flows); with aggregation
/// node a (Algorithm 2), the trunk PS -> a on the least-load (BW_u / C) Dijkstra tree rooted
/// at the PS once and, for each distinct compute node c, the branch a -> c on the tree rooted
/// at a, every link of the multicast structure once.
fn segments(t: &Topology, used: &[f64], d: &Decided) -> Option<(Vec<Vec<usize>>, Vec<usize>)> {
    if d.aggregation == u32::MAX {
        let segs: Vec<Vec<usize>> = d
            .paths
            .iter()
            .map(|p| links_of(t, p))
            .collect::<Option<_>>()?;
        let flows = segs.iter().flatten().copied().collect();
        return Some((segs, flows));
    }
    let a = d.aggregation;
    let ps = *d.paths.first()?.first()?;
    let mut segs = alloc::vec![links_of(t, &tree_path(&load_tree(t, used, ps), ps, a)?)?];
    let from_a = load_tree(t, used, a);
    let mut seen_nodes = BTreeSet::new();
    for p in &d.paths {
        let c = *p.last()?;
        if seen_nodes.insert(c) {
            segs.push(links_of(t, &tree_path(&from_a, a, c)?)?);
        }
    }
    let distinct: BTreeSet<usize> = segs.iter().flatten().copied().collect();
    Some((segs, distinct.into_iter().collect()))
}

/// Eqs. (1)-(5) and (11) for a schedule: `decided[j]` for every job of `jobs` on `topology`,
/// load factor f, beta. `None` if a job's paths do not fit the topology.
pub fn summary(
    topology: &Topology,
    jobs: &[RouteJob],
    decided: &[Decided],
    f: f64,
    beta: f64,
) -> Option<Summary> {
    let mut by_order: Vec<usize> = (0..decided.len()).collect();
    by_order.sort_by_key(|&j| (decided[j].order, j));
    let mut segs: Vec<(Vec<Vec<usize>>, Vec<usize>)> =
        alloc::vec![(Vec::new(), Vec::new()); decided.len()];
    let mut network = alloc::vec![0.0; decided.len()];
    for (i, &j) in by_order.iter().enumerate() {
        let t = decided[j].decided_at;
        // BW_u at t: the background load plus every earlier-decided job running at t.
        let mut used: Vec<f64> = topology.links.iter().map(|l| l.used).collect();
        for &k in &by_order[..i] {
            let (s, e) = (
                decided[k].start,
                decided[k].start as u64 + jobs[k].duration as u64,
            );
            if s <= t && (t as u64) < e {
                for &l in &segs[k].1 {
                    used[l] += jobs[k].bandwidth;
                }
            }
        }
        segs[j] = segments(topology, &used, &decided[j])?;
        network[j] = segs[j]
            .0
            .iter()
            .map(|s| path_cost(topology, &used, s, f))
            .sum();
    }
    let n = decided.len();
    // Eq. (1): J_v = |J| - |{jobs with e^r + Delta <= e^d}|.
    let met = decided
        .iter()
        .zip(jobs)
        .filter(|(d, j)| d.start as u64 + j.duration as u64 <= j.deadline as u64)
        .count();
    let jv = (n - met) as f64;
    // Eq. (3): S_u = the compute nodes hosting a worker of some job.
    let su: BTreeSet<u32> = decided
        .iter()
        .flat_map(|d| d.paths.iter().filter_map(|p| p.last().copied()))
        .collect();
    let s_u = su.len() as f64;
    let n_bar = if n == 0 {
        0.0
    } else {
        network.iter().sum::<f64>() / n as f64
    };
    // Eq. (2) and eq. (11): Cost = F_beta(N-bar, S_u) R_dv.
    let rdv = if n == 0 { 0.0 } else { jv / n as f64 };
    let b2 = beta * beta;
    let den = b2 * n_bar + s_u;
    let fb = if den == 0.0 {
        0.0
    } else {
        (1.0 + b2) * n_bar * s_u / den
    };
    Some(Summary {
        network,
        rdv,
        servers: su.len() as u32,
        n_bar,
        cost: fb * rdv,
    })
}
