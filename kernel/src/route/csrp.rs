//! CSRP (Algorithm 1) for one job: candidate compute nodes per start offset, the binary PSO
//! over particles (eq. 12) decoded into a start, a compute node per worker and, per hop, the
//! next node on the least-loaded or the hop-shortest tree; the fitness is eq. (11) of the
//! schedule so far plus the candidate ([`Fitness`], compared lexicographically).
use super::aggregate;
use super::cost::{network_cost, Fitness, Totals};
use super::dijkstra::Weight;
use super::graph::Graph;
use super::records::{PsoRec, RouteDecision};
use super::scratch::{Scratch, CAND_MAX, DELTAS, USED_FIRST};
use super::{
    RouteError, RouteScheduler, HOP_BITS, NODE_BITS, NODE_CHOICES, NONE, PATH_NODES_MAX,
    START_BITS, WORKER_DIMS,
};
use crate::model::route::RouteJob;
use crate::num::canon;

impl RouteScheduler {
    /// CSRP for job `j` at time `t`: candidate lists, the PSO, then commit gbest if feasible.
    pub(super) fn try_csrp(
        &mut self,
        j: u32,
        t: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<bool, RouteError> {
        if self.ps_down(j) {
            return Ok(false);
        }
        let jb = self.jobs[j as usize];
        self.dj_load.run(&self.g, jb.ps, Weight::Load)?;
        self.build_candidates(j, t);
        let n = self.g.nodes();
        let r = self.tables.ps_row[jb.ps as usize] as usize;
        let dims = START_BITS + jb.workers as usize * WORKER_DIMS;
        let RouteScheduler {
            swarm,
            rng,
            g,
            tables,
            dj_load,
            sc,
            used_node,
            totals,
            pso,
            f,
            beta,
            ..
        } = self;
        let ctx = Ctx {
            g,
            job: &jb,
            t,
            pred_h: &tables.hop_pred[r * n..(r + 1) * n],
            pred_l: dj_load.preds(),
            used: used_node,
            totals: *totals,
            f: *f,
            beta: *beta,
        };
        let best = swarm.run(pso, dims, rng, |bits| decode(&ctx, bits, sc))?;
        sink(&RouteDecision::Pso(PsoRec {
            job: j,
            cost: canon(finite(best.cost)),
            f_part: canon(finite(best.f_part)),
            network: canon(finite(best.network)),
            start: best.start,
        }));
        if best.infeasible {
            return Ok(false);
        }
        // Decode gbest again into the scratch (deterministic: same bits, same state).
        let again = decode(&ctx, swarm.best(dims), sc);
        if again.infeasible {
            return Err(RouteError::Scratch);
        }
        let start = again.start;
        self.commit(j, t, start, sink)?;
        Ok(true)
    }

    /// Candidate compute nodes per start offset: up to [`USED_FIRST`] already-used servers
    /// with a free slot, nearest first on the light-load tree, then the nearest unused ones,
    /// until [`NODE_CHOICES`] nodes and enough slots for every worker are listed.
    fn build_candidates(&mut self, j: u32, t: u32) {
        let jb = self.jobs[j as usize];
        let r = self.tables.ps_row[jb.ps as usize] as usize;
        let len = self.tables.hop_order_len[r] as usize;
        let row = &self.tables.hop_order[r * self.tables.computes..r * self.tables.computes + len];
        self.sc.sorted[..len].copy_from_slice(row);
        let dj = &self.dj_load;
        crate::order::sort_indices_by(&mut self.sc.sorted[..len], &|a, b| {
            dj.dist(a)
                .total_cmp(&dj.dist(b))
                .then(dj.hops(a).cmp(&dj.hops(b)))
                .then(a.cmp(&b))
        });
        for d in 0..DELTAS {
            let s = t.saturating_add(d as u32);
            let base = d * CAND_MAX;
            let mut n = 0usize;
            let mut cum = 0u32;
            self.sc.gen = self.sc.gen.wrapping_add(1);
            if self.sc.gen == 0 {
                self.sc.stamp.fill(0);
                self.sc.gen = 1;
            }
            let gen = self.sc.gen;
            // Pass 0: used servers (at most USED_FIRST); pass 1: unused; pass 2: the rest.
            for pass in 0..3 {
                let mut used_listed = 0usize;
                for q in 0..len {
                    let done = n >= NODE_CHOICES && cum >= jb.workers;
                    if done || n == CAND_MAX || (pass == 0 && used_listed == USED_FIRST) {
                        break;
                    }
                    let v = self.sc.sorted[q];
                    let used = self.used_node[v as usize];
                    let want = match pass {
                        0 => used,
                        1 => !used,
                        _ => true,
                    };
                    if !want || self.sc.stamp[v as usize] == gen {
                        continue;
                    }
                    let free = self.lanes.free_lanes(v, s);
                    if free == 0 {
                        continue;
                    }
                    self.sc.stamp[v as usize] = gen;
                    used_listed += used as usize;
                    self.sc.cand[base + n] = v;
                    self.sc.cand_free[base + n] = free;
                    n += 1;
                    cum += free;
                }
            }
            self.sc.cand_len[d] = n;
        }
    }
}

fn finite(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        -1.0
    }
}

/// What a position is evaluated against.
struct Ctx<'a> {
    g: &'a Graph,
    job: &'a RouteJob,
    t: u32,
    pred_h: &'a [u32],
    pred_l: &'a [u32],
    used: &'a [bool],
    totals: Totals,
    f: f64,
    beta: f64,
}

fn bits_value(bits: &[u8]) -> usize {
    bits.iter()
        .enumerate()
        .fold(0usize, |acc, (i, &b)| acc | ((b as usize & 1) << i))
}

/// Decodes a particle (eq. 12) into start, compute nodes and loop-erased paths (in `sc`), and
/// returns its fitness: eq. (11) of the schedule so far plus this candidate.
fn decode(ctx: &Ctx<'_>, bits: &[u8], sc: &mut Scratch) -> Fitness {
    let w = ctx.job.workers as usize;
    if bits.len() < START_BITS + w * WORKER_DIMS {
        return Fitness::WORST;
    }
    let d = bits_value(&bits[..START_BITS]);
    let start = ctx.t.saturating_add(d as u32);
    let n = sc.cand_len[d];
    let base = d * CAND_MAX;
    let total: u32 = sc.cand_free[base..base + n].iter().sum();
    if n == 0 || total < ctx.job.workers {
        return Fitness::WORST;
    }
    sc.taken[..n].fill(0);
    sc.gen = sc.gen.wrapping_add(1);
    if sc.gen == 0 {
        sc.stamp.fill(0);
        sc.gen = 1;
    }
    let mut new_servers = 0u32;
    let mut network = 0.0;
    for k in 0..w {
        let wb = &bits[START_BITS + k * WORKER_DIMS..START_BITS + (k + 1) * WORKER_DIMS];
        let mut i = bits_value(&wb[..NODE_BITS]) % n.min(NODE_CHOICES);
        // The chosen candidate is full: the next one (cyclically) with a free slot.
        let mut tries = 0;
        while sc.taken[i] >= sc.cand_free[base + i] && tries < n {
            i = (i + 1) % n;
            tries += 1;
        }
        sc.taken[i] += 1;
        let v = sc.cand[base + i];
        sc.wnodes[k] = v;
        if !ctx.used.get(v as usize).copied().unwrap_or(true) && sc.stamp[v as usize] != sc.gen {
            sc.stamp[v as usize] = sc.gen;
            new_servers += 1;
        }
        let Some(len) = walk(
            ctx,
            v,
            &wb[NODE_BITS..],
            &mut sc.wpath[k * PATH_NODES_MAX..(k + 1) * PATH_NODES_MAX],
        ) else {
            return Fitness::WORST;
        };
        sc.wlen[k] = len as u32;
        let links = &mut sc.links[k * PATH_NODES_MAX..(k + 1) * PATH_NODES_MAX];
        let Some(h) = aggregate::links_of(
            ctx.g,
            &sc.wpath[k * PATH_NODES_MAX..k * PATH_NODES_MAX + len],
            links,
        ) else {
            return Fitness::WORST;
        };
        let c = network_cost(ctx.g, &links[..h], ctx.f);
        sc.wcost[k] = c;
        network += c;
    }
    let met = start as u64 + ctx.job.duration as u64 <= ctx.job.deadline as u64;
    ctx.totals
        .with(network, new_servers, !met)
        .fitness(ctx.beta, network, start)
}

/// The hop dimensions: walk from compute node `c` back to the PS; at hop i, bit 1 follows the
/// light-load tree, 0 the hop-shortest tree (beyond [`HOP_BITS`]: hop-shortest, which always
/// reaches the PS). Loops are erased as they close. Writes PS -> c into `out`.
fn walk(ctx: &Ctx<'_>, c: u32, hop_bits: &[u8], out: &mut [u32]) -> Option<usize> {
    let ps = ctx.job.ps;
    let mut len = 0usize;
    out[len] = c;
    len += 1;
    let mut v = c;
    let limit = HOP_BITS + ctx.g.nodes() + 1;
    for step in 0..limit {
        if v == ps {
            out[..len].reverse();
            return Some(len);
        }
        let b = hop_bits.get(step).copied().unwrap_or(0);
        let mut nx = if b == 1 {
            ctx.pred_l.get(v as usize).copied().unwrap_or(NONE)
        } else {
            NONE
        };
        if nx == NONE {
            nx = ctx.pred_h.get(v as usize).copied().unwrap_or(NONE);
        }
        if nx == NONE {
            return None;
        }
        match out[..len].iter().position(|&x| x == nx) {
            Some(q) => len = q + 1,
            None => {
                if len == out.len() {
                    return None;
                }
                out[len] = nx;
                len += 1;
            }
        }
        v = nx;
    }
    None
}
