//! Topology generators: a k-ary fat-tree and a Jupiter-like Clos fabric (the paper's
//! section 5.1 uses Google's Jupiter). Compute nodes get `slots` (default 8, after [17] of the
//! paper), links get a capacity and a uniform background load BW_u = C U[lo, hi) from the seed.
//! Node order: switches, then compute nodes, then PS nodes (so ids are stable and readable).
use crate::model::route::{Link, Node, NodeKind, Topology};
use crate::rng::SplitMix64;
use alloc::vec::Vec;

/// Knobs shared by the generators.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TopoParams {
    /// Compute nodes wanted (the first `hosts` host ports are filled).
    pub hosts: u32,
    /// PS nodes, attached round-robin across pods / blocks.
    pub ps: u32,
    /// Compute slots per compute node C^c_{s_k}.
    pub slots: u32,
    /// C of compute-node links.
    pub host_capacity: f64,
    /// C of switch-to-switch links and of PS links (a PS serves many workers).
    pub fabric_capacity: f64,
    /// Background load as a fraction of C: uniform in [lo, hi).
    pub background: (f64, f64),
}

impl Default for TopoParams {
    fn default() -> Self {
        TopoParams {
            hosts: 16,
            ps: 4,
            slots: 8,
            host_capacity: 10.0,
            fabric_capacity: 40.0,
            background: (0.0, 0.6),
        }
    }
}

struct Builder<'a> {
    nodes: Vec<Node>,
    links: Vec<Link>,
    p: &'a TopoParams,
    rng: &'a mut SplitMix64,
}

impl Builder<'_> {
    fn node(&mut self, kind: NodeKind) -> u32 {
        let slots = if kind == NodeKind::Compute {
            self.p.slots
        } else {
            0
        };
        self.nodes.push(Node { kind, slots });
        self.nodes.len() as u32 - 1
    }
    fn link(&mut self, a: u32, b: u32, capacity: f64) {
        let (lo, hi) = self.p.background;
        let used = capacity * self.rng.range_f64(lo, hi);
        self.links.push(Link {
            a,
            b,
            capacity,
            used,
        });
    }
}

/// The smallest even k whose fat-tree has k^3 / 4 >= `hosts` host ports (at least 2).
pub fn fat_tree_k(hosts: u32) -> u32 {
    let mut k = 2u32;
    while (k as u64).pow(3) / 4 < hosts as u64 && k < 256 {
        k += 2;
    }
    k
}

/// A k-ary fat-tree (Al-Fares et al.): (k/2)^2 core switches, k pods of k/2 aggregation and k/2
/// edge switches; edge switches host up to k/2 compute nodes each (filled in order up to
/// `p.hosts`); PS node i hangs off the first edge switch of pod i mod k.
pub fn fat_tree(k: u32, p: &TopoParams, rng: &mut SplitMix64) -> Topology {
    let k = k.max(2) & !1;
    let h = k / 2;
    let mut b = Builder {
        nodes: Vec::new(),
        links: Vec::new(),
        p,
        rng,
    };
    let core: Vec<u32> = (0..h * h).map(|_| b.node(NodeKind::Switch)).collect();
    let mut edges = Vec::new();
    for _pod in 0..k {
        let aggs: Vec<u32> = (0..h).map(|_| b.node(NodeKind::Switch)).collect();
        let es: Vec<u32> = (0..h).map(|_| b.node(NodeKind::Switch)).collect();
        for (j, &a) in aggs.iter().enumerate() {
            for &e in &es {
                b.link(e, a, p.fabric_capacity);
            }
            for c in 0..h as usize {
                b.link(a, core[j * h as usize + c], p.fabric_capacity);
            }
        }
        edges.push(es);
    }
    let hosts = p.hosts.min(k * h * h);
    for i in 0..hosts {
        let (pod, rest) = ((i / (h * h)) as usize, i % (h * h));
        let e = edges[pod][(rest / h) as usize];
        let c = b.node(NodeKind::Compute);
        b.link(e, c, p.host_capacity);
    }
    for i in 0..p.ps {
        let e = edges[(i % k) as usize][0];
        let s = b.node(NodeKind::Ps);
        b.link(e, s, p.fabric_capacity);
    }
    Topology {
        nodes: b.nodes,
        links: b.links,
    }
}

/// Shape of a Jupiter-like Clos fabric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClosShape {
    /// Spine switches.
    pub spines: u32,
    /// Aggregation blocks.
    pub blocks: u32,
    /// Middle switches per block (each joins every ToR of its block).
    pub middles: u32,
    /// ToRs per block.
    pub tors: u32,
    /// Host ports per ToR.
    pub hosts_per_tor: u32,
}

impl ClosShape {
    /// A shape for `hosts` compute nodes: 20 hosts per ToR, 8 ToRs and 4 middle switches per
    /// block, 16 spines, as many blocks as needed.
    pub fn for_hosts(hosts: u32) -> Self {
        let per_block = 20 * 8;
        ClosShape {
            spines: 16,
            blocks: hosts.div_ceil(per_block).max(1),
            middles: 4,
            tors: 8,
            hosts_per_tor: 20,
        }
    }
}

/// A Jupiter-like Clos: every ToR joins all middle switches of its block; middle switch m of
/// each block joins the spines s with s mod middles == m. Hosts fill ToRs in order; PS node i
/// hangs off the first ToR of block i mod blocks.
pub fn clos(s: &ClosShape, p: &TopoParams, rng: &mut SplitMix64) -> Topology {
    let m = s.middles.max(1);
    let mut b = Builder {
        nodes: Vec::new(),
        links: Vec::new(),
        p,
        rng,
    };
    let spines: Vec<u32> = (0..s.spines.max(1))
        .map(|_| b.node(NodeKind::Switch))
        .collect();
    let mut tors = Vec::new();
    for _blk in 0..s.blocks.max(1) {
        let mids: Vec<u32> = (0..m).map(|_| b.node(NodeKind::Switch)).collect();
        let ts: Vec<u32> = (0..s.tors.max(1))
            .map(|_| b.node(NodeKind::Switch))
            .collect();
        for &t in &ts {
            for &x in &mids {
                b.link(t, x, p.fabric_capacity);
            }
        }
        for (j, &x) in mids.iter().enumerate() {
            for (q, &sp) in spines.iter().enumerate() {
                if q as u32 % m == j as u32 {
                    b.link(x, sp, p.fabric_capacity);
                }
            }
        }
        tors.push(ts);
    }
    let per_tor = s.hosts_per_tor.max(1);
    let per_block = per_tor * s.tors.max(1);
    let hosts = p.hosts.min(per_block * s.blocks.max(1));
    for i in 0..hosts {
        let t = tors[(i / per_block) as usize][((i % per_block) / per_tor) as usize];
        let c = b.node(NodeKind::Compute);
        b.link(t, c, p.host_capacity);
    }
    for i in 0..p.ps {
        let t = tors[(i % s.blocks.max(1)) as usize][0];
        let x = b.node(NodeKind::Ps);
        b.link(t, x, p.fabric_capacity);
    }
    Topology {
        nodes: b.nodes,
        links: b.links,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fat_tree_counts() {
        let p = TopoParams {
            hosts: 16,
            ps: 2,
            ..TopoParams::default()
        };
        let t = fat_tree(4, &p, &mut SplitMix64::new(1));
        // 4 core + 4 pods x 4 switches + 16 hosts + 2 PS; 32 fabric + 16 + 2 links.
        assert_eq!(t.nodes.len(), 4 + 16 + 16 + 2);
        assert_eq!(t.links.len(), 32 + 16 + 2);
        assert_eq!(fat_tree_k(1458), 18);
        assert_eq!(fat_tree_k(1500), 20);
    }

    #[test]
    fn clos_counts() {
        let s = ClosShape::for_hosts(1500);
        assert_eq!(s.blocks, 10);
        let p = TopoParams {
            hosts: 1500,
            ps: 10,
            ..TopoParams::default()
        };
        let t = clos(&s, &p, &mut SplitMix64::new(1));
        let computes = t
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Compute)
            .count();
        assert_eq!(computes, 1500);
        assert!(t.links.iter().all(|l| l.used <= l.capacity * 0.6));
    }
}
