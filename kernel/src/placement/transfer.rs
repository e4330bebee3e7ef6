//! The transfer solver: P3 of one category (eq. 18) solved on the exchange graph of the S
//! jobs, warm-started from the previous category, with a uniqueness certificate so that its
//! class counts are provably the matching market's (`docs/placement.md`, "The transfer
//! solver").
//!
//! P3 per category is a transportation problem: job i supplies K_i units, class c absorbs m_c,
//! profit rho_ic, every unit assigned. For counts x_ic the loss of moving one unit from job u to
//! job v is l(u, v) = min over classes c with x_uc > 0 of (rho_uc - rho_vc); a path
//! u -> ... -> v moves one unit from each job to the next. Any other feasible x differs from x
//! by cycles of this graph, so x is optimal iff it has no negative cycle, and it is the unique
//! optimum by a margin d when every cycle loses at least d.
//!
//! - **Warm start.** Going from category K to K', units move from a job with surplus
//!   (x_i. > K'_i) to one with deficit along a shortest path (Bellman-Ford on S nodes), as many
//!   as the path carries: successive shortest paths keep "no negative cycle".
//! - **Cold start** (first category of a run, after a fallback, or after re-seeding from the
//!   market): classes in index order fill jobs in index order, then negative cycles are
//!   cancelled in a bounded loop.
//! - **Certificate.** The least cycle loss (Floyd on S nodes, min over u of d(u, u)) must exceed
//!   [`Transfer::margin`]; otherwise the category is degenerate and the caller runs the market.
//!
//! Allocation happens only in [`Transfer::new`]; [`Transfer::solve`] and [`Transfer::seed`]
//! only read and write the scratch.
// Row-major S x S / S x C matrices indexed by job and class together.
#![allow(clippy::needless_range_loop)]
use super::Instance;
use alloc::vec;
use alloc::vec::Vec;

use crate::index::NONE;

/// Largest S x S x C (entries of the per-pair class orders and their inverse, 8 bytes each:
/// 16 MiB) the transfer solver sizes scratch for; above it every category goes to the market.
pub const TRANSFER_PAIR_ENTRIES_MAX: usize = 1 << 21;

/// Negative cycles cancelled per cold start, per worker (plus [`CANCEL_BASE`]); on the bound
/// the category goes to the market. Each cancellation gains at least the rounding floor, and
/// from the index-order fill a few per worker suffice in every instance tried.
const CANCEL_PER_WORKER: usize = 8;
/// See [`CANCEL_PER_WORKER`].
const CANCEL_BASE: usize = 64;

/// Outcome of [`Transfer::solve`] for one category.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransferOutcome {
    /// [`Transfer::counts`] is the unique optimum by more than the margin: the market's counts.
    Unique,
    /// The optimum is not unique by the margin (ties), or it could not be certified: the caller
    /// runs the market and re-seeds with [`Transfer::seed`].
    Degenerate,
}

/// Counters of the transfer solver over one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct TransferStats {
    /// Categories the transfer solver decided (certified unique).
    pub categories: u64,
    /// Categories handed to the market (degenerate, uncertified, or scratch too large).
    pub degenerate: u64,
    /// Augmenting paths and cancelled cycles pushed.
    pub paths: u64,
}

/// Scratch of the transfer solver, sized once for an instance (empty when
/// S x S x C > [`TRANSFER_PAIR_ENTRIES_MAX`]).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Transfer {
    s: usize,
    c: usize,
    /// Per ordered job pair (u, v): classes by ascending rho_uc - rho_vc, ties by lower class
    /// (S x S x C; the diagonal blocks are unused). The first held class gives l(u, v).
    by_loss: Vec<u32>,
    /// Position of class c in the order of pair (u, v): `by_loss[(u S + v) C + rank[(u S + v) C
    /// + c]] == c` (S x S x C).
    rank: Vec<u32>,
    /// Per ordered pair: the position in its order of the first class u holds, i.e. of l(u, v)
    /// (C when u holds none). Kept up to date on every change of x (a row gaining a class can
    /// only move it down, a row losing its class moves it forward), so a push costs the rows
    /// it touches, not S x S scans.
    first: Vec<u32>,
    /// `first` and `edge` describe the current x.
    edges_valid: bool,
    /// The hops of the path or cycle being pushed: (giver, receiver, class).
    hops: Vec<(u32, u32, u32)>,
    /// x_ic, the current counts (S x C).
    x: Vec<u32>,
    /// x_i. = sum_c x_ic.
    held: Vec<u32>,
    /// l(u, v) (S x S; +inf on the diagonal).
    edge: Vec<f64>,
    /// The class realising l(u, v).
    edge_class: Vec<u32>,
    /// Floyd distances (S x S).
    dist: Vec<f64>,
    /// Bellman-Ford distances and predecessors (S each).
    bf: Vec<f64>,
    pred: Vec<u32>,
    /// Jobs on the cycle being cancelled, in order.
    cycle: Vec<u32>,
    /// Units moved by the last push.
    moved: u32,
    /// The certificate margin (see [`Transfer::margin`]).
    margin: f64,
    /// Relaxations must improve by more than this (absolute): rounding noise of a loss sum.
    noise: f64,
    /// x holds an optimum of the last category (warm start possible).
    seeded: bool,
    /// Counters of the current run.
    pub stats: TransferStats,
}

impl Transfer {
    /// Scratch for `inst` (allocates; empty when S x S x C exceeds the limit).
    pub fn new(inst: &Instance) -> Self {
        let (s, c) = (inst.s, inst.classes.len());
        let entries = s.saturating_mul(s).saturating_mul(c);
        if entries > TRANSFER_PAIR_ENTRIES_MAX || s == 0 || c == 0 {
            return Transfer::default();
        }
        let rho = &inst.classes.rho;
        let mut by_loss = vec![0u32; entries];
        for u in 0..s {
            for v in 0..s {
                if u == v {
                    continue;
                }
                let list = &mut by_loss[(u * s + v) * c..(u * s + v + 1) * c];
                for (x, cl) in list.iter_mut().enumerate() {
                    *cl = x as u32;
                }
                let loss = |cl: u32| rho[u * c + cl as usize] - rho[v * c + cl as usize];
                crate::order::sort_indices_by(list, &|a, b| {
                    loss(a).total_cmp(&loss(b)).then(a.cmp(&b))
                });
            }
        }
        let mut rank = vec![0u32; entries];
        for e in 0..s * s {
            for (p, &cl) in by_loss[e * c..(e + 1) * c].iter().enumerate() {
                rank[e * c + cl as usize] = p as u32;
            }
        }
        let top = rho.iter().fold(0.0f64, |m, &r| m.max(libm::fabs(r)));
        Transfer {
            s,
            c,
            by_loss,
            rank,
            first: vec![0; s * s],
            edges_valid: false,
            hops: vec![(0, 0, 0); s],
            x: vec![0; s * c],
            held: vec![0; s],
            edge: vec![f64::INFINITY; s * s],
            edge_class: vec![NONE; s * s],
            dist: vec![0.0; s * s],
            bf: vec![0.0; s],
            pred: vec![NONE; s],
            cycle: vec![0; s + 1],
            moved: 0,
            margin: Self::margin(inst.k, top),
            noise: 1e-12 * (top + 1.0),
            seeded: false,
            stats: TransferStats::default(),
        }
    }

    /// The certificate margin for K workers and largest throughput `top` = max abs(rho_ik).
    ///
    /// Why this size: the market clears on a bundle of K_i units per job whose valuations
    /// Gamma_ic = rho_ic - p_c lie within its tie tolerance t = 1e-9 max(abs(theta_i), 1) of the
    /// top-K_i bundle, so each unit can lose at most 2 t against the optimum and, prices
    /// cancelling (every class sold in both), the market's total throughput is within
    /// 2 K t of the optimum. Any feasible x other than the optimum x* loses at least the least
    /// cycle loss of x*, so when that exceeds 2 K t the market's counts are x*. theta_i is a
    /// valuation: abs(theta_i) <= top plus a price, and prices stay within the throughput range
    /// plus the market's unit step 1 (not proven; `tests/tests/placement_transfer.rs` checks
    /// p_c <= top + 1 on every category it clears), so abs(theta_i) <= 2 (top + 1) is taken
    /// and a further factor 4 allows for the accumulated rounding of prices and of the loss
    /// sums here: margin = 2 K 1e-9 (2 (top + 1)) 4 = 1.6e-8 K (top + 1). The near-tie test
    /// there fails from a margin of 1e-11 K (top + 1) down and passes at 2e-10 K (top + 1).
    pub fn margin(k: usize, top: f64) -> f64 {
        1.6e-8 * k as f64 * (top + 1.0)
    }

    /// True when the scratch was sized (S x S x C within [`TRANSFER_PAIR_ENTRIES_MAX`]).
    pub fn enabled(&self) -> bool {
        !self.by_loss.is_empty()
    }

    /// Forgets the warm state and zeroes the counters: the start of a run.
    pub fn reset(&mut self) {
        self.seeded = false;
        self.stats = TransferStats::default();
    }

    /// x_ic (S x C) after [`TransferOutcome::Unique`].
    pub fn counts(&self) -> &[u32] {
        &self.x
    }

    /// Solves P3 for `cat` (K_i per job) and certifies uniqueness.
    pub fn solve(&mut self, inst: &Instance, cat: &[u32]) -> TransferOutcome {
        if !self.enabled() || cat.len() != self.s {
            self.stats.degenerate += 1;
            return TransferOutcome::Degenerate;
        }
        let ok = if self.seeded {
            self.warm(inst, cat)
        } else {
            self.fill(inst, cat);
            self.cancel(inst)
        };
        self.seeded = ok;
        if ok && self.least_cycle_loss(inst) > self.margin {
            self.check_counts(inst, cat);
            self.stats.categories += 1;
            TransferOutcome::Unique
        } else {
            self.stats.degenerate += 1;
            TransferOutcome::Degenerate
        }
    }

    /// Re-seeds the warm state from counts the market (or the exact fallback) produced for
    /// `cat`, cancelling any negative cycle its tie tolerance left.
    pub fn seed(&mut self, inst: &Instance, counts: &[u32]) {
        if !self.enabled() || counts.len() != self.x.len() {
            return;
        }
        self.x.copy_from_slice(counts);
        self.edges_valid = false;
        for i in 0..self.s {
            self.held[i] = self.x[i * self.c..(i + 1) * self.c].iter().sum();
        }
        self.seeded = self.cancel(inst);
    }

    /// Any feasible x: classes in index order to jobs in index order.
    fn fill(&mut self, inst: &Instance, cat: &[u32]) {
        let c = self.c;
        self.x.iter_mut().for_each(|v| *v = 0);
        let (mut i, mut room) = (0usize, cat[0]);
        for cl in 0..c {
            let mut left = inst.classes.size(cl);
            while left > 0 && i < self.s {
                if room == 0 {
                    i += 1;
                    room = cat.get(i).copied().unwrap_or(0);
                    continue;
                }
                let take = left.min(room);
                self.x[i * c + cl] += take;
                left -= take;
                room -= take;
            }
        }
        self.held.copy_from_slice(cat);
        self.edges_valid = false;
    }

    /// rho_ic of the class instance.
    fn rho(inst: &Instance, c: usize, i: usize, cl: usize) -> f64 {
        inst.classes.rho[i * c + cl]
    }

    /// l(u, v) and its class for every ordered pair, rebuilt from x when a fill or a seed
    /// replaced it: the first class of the pair's order that u holds.
    fn edges(&mut self, inst: &Instance) {
        if self.edges_valid {
            return;
        }
        let s = self.s;
        for u in 0..s {
            for v in 0..s {
                self.first[u * s + v] = 0;
                self.rescan(inst, u, v);
            }
        }
        self.edges_valid = true;
    }

    /// Advances pair (u, v)'s first held position from where it is and sets l(u, v).
    fn rescan(&mut self, inst: &Instance, u: usize, v: usize) {
        let (s, c) = (self.s, self.c);
        let e = u * s + v;
        if u == v {
            self.edge[e] = f64::INFINITY;
            self.edge_class[e] = NONE;
            return;
        }
        let list = &self.by_loss[e * c..(e + 1) * c];
        let row = &self.x[u * c..(u + 1) * c];
        let mut p = self.first[e] as usize;
        while p < c && row[list[p] as usize] == 0 {
            p += 1;
        }
        self.first[e] = p as u32;
        self.set_edge(inst, u, v);
    }

    /// l(u, v) from the pair's first held position.
    fn set_edge(&mut self, inst: &Instance, u: usize, v: usize) {
        let (s, c) = (self.s, self.c);
        let e = u * s + v;
        let p = self.first[e] as usize;
        match self.by_loss.get(e * c + p) {
            Some(&cl) if p < c => {
                let cl = cl as usize;
                self.edge[e] = Self::rho(inst, c, u, cl) - Self::rho(inst, c, v, cl);
                self.edge_class[e] = cl as u32;
            }
            _ => {
                self.edge[e] = f64::INFINITY;
                self.edge_class[e] = NONE;
            }
        }
    }

    /// Moves `amount` units of class `cl` from job a to job b, keeping the edges current: b
    /// gaining a class it did not hold can only lower its first held positions; a losing its
    /// last unit of the class moves forward the positions that pointed at it.
    fn give(&mut self, inst: &Instance, a: usize, b: usize, cl: usize, amount: u32) {
        let (s, c) = (self.s, self.c);
        self.x[a * c + cl] -= amount;
        let gained = self.x[b * c + cl] == 0;
        self.x[b * c + cl] += amount;
        if !self.edges_valid {
            return;
        }
        if gained {
            for v in 0..s {
                let e = b * s + v;
                if v != b && self.rank[e * c + cl] < self.first[e] {
                    self.first[e] = self.rank[e * c + cl];
                    self.set_edge(inst, b, v);
                }
            }
        }
        if self.x[a * c + cl] == 0 {
            for v in 0..s {
                if v != a && self.edge_class[a * s + v] == cl as u32 {
                    self.rescan(inst, a, v);
                }
            }
        }
    }

    /// Bellman-Ford from `src` (S - 1 rounds; relaxations must beat the rounding noise).
    fn shortest_from(&mut self, src: usize) {
        let s = self.s;
        self.bf.iter_mut().for_each(|d| *d = f64::INFINITY);
        self.pred.iter_mut().for_each(|p| *p = NONE);
        self.bf[src] = 0.0;
        for _ in 1..s {
            let mut changed = false;
            for u in 0..s {
                let du = self.bf[u];
                if !du.is_finite() {
                    continue;
                }
                for v in 0..s {
                    let cand = du + self.edge[u * s + v];
                    if cand < self.bf[v] - self.noise {
                        self.bf[v] = cand;
                        self.pred[v] = u as u32;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Moves units from surplus to deficit jobs along shortest paths until x_i. = K'_i.
    /// False when a path cannot be traced (rounding made a cycle of predecessors).
    fn warm(&mut self, inst: &Instance, cat: &[u32]) -> bool {
        // Each push moves at least one unit of the total surplus (<= K).
        for _ in 0..=inst.k {
            let Some(u) = (0..self.s).find(|&i| self.held[i] > cat[i]) else {
                return true;
            };
            self.edges(inst);
            self.shortest_from(u);
            let deficit = (0..self.s)
                .filter(|&v| self.held[v] < cat[v] && self.bf[v].is_finite())
                .min_by(|&a, &b| self.bf[a].total_cmp(&self.bf[b]).then(a.cmp(&b)));
            let Some(v) = deficit else {
                return false;
            };
            let want = (self.held[u] - cat[u]).min(cat[v] - self.held[v]);
            if !self.push_path(inst, u, v, want) {
                return false;
            }
        }
        false
    }

    /// Pushes up to `want` units along the predecessor path u -> ... -> v (as many as every
    /// giver on it holds of the class it gives). False when the path does not lead back to u.
    fn push_path(&mut self, inst: &Instance, u: usize, v: usize, want: u32) -> bool {
        let s = self.s;
        let (mut b, mut len) = (v, 0usize);
        while b != u {
            let a = self.pred[b];
            if a == NONE || len >= s {
                return false;
            }
            self.hops[len] = (a, b as u32, self.edge_class[a as usize * s + b]);
            b = a as usize;
            len += 1;
        }
        if !self.push_hops(inst, len, want) {
            return false;
        }
        self.held[u] -= self.moved;
        self.held[v] += self.moved;
        true
    }

    /// Pushes along `hops[..len]` the most units every giver holds (at most `want`); the
    /// amount is left in `moved`. False when nothing can move.
    fn push_hops(&mut self, inst: &Instance, len: usize, want: u32) -> bool {
        let c = self.c;
        let mut amount = want;
        for &(a, _, cl) in &self.hops[..len] {
            if cl == NONE {
                return false;
            }
            amount = amount.min(self.x[a as usize * c + cl as usize]);
        }
        if amount == 0 {
            return false;
        }
        for h in 0..len {
            let (a, b, cl) = self.hops[h];
            self.give(inst, a as usize, b as usize, cl as usize, amount);
        }
        self.moved = amount;
        self.stats.paths += 1;
        true
    }

    /// Cancels negative cycles (Bellman-Ford from a virtual source) until none is left, at
    /// most CANCEL_BASE + CANCEL_PER_WORKER K times. False on the bound or a cycle that cannot
    /// be traced.
    fn cancel(&mut self, inst: &Instance) -> bool {
        let bound = CANCEL_BASE + CANCEL_PER_WORKER * inst.k;
        for _ in 0..bound {
            self.edges(inst);
            match self.negative_cycle() {
                Ok(None) => return true,
                Ok(Some(len)) if self.push_cycle(inst, len) => {}
                _ => return false,
            }
        }
        false
    }

    /// A negative cycle of the exchange graph, written to `cycle[..len]` (jobs in the order
    /// of predecessors), `Ok(None)` when a round of relaxations changes nothing, `Err(())`
    /// when rounding left predecessors that do not close a cycle.
    fn negative_cycle(&mut self) -> Result<Option<usize>, ()> {
        let s = self.s;
        self.bf.iter_mut().for_each(|d| *d = 0.0);
        self.pred.iter_mut().for_each(|p| *p = NONE);
        let mut last = NONE;
        for _ in 0..s {
            last = NONE;
            for u in 0..s {
                for v in 0..s {
                    let cand = self.bf[u] + self.edge[u * s + v];
                    if cand < self.bf[v] - self.noise {
                        self.bf[v] = cand;
                        self.pred[v] = u as u32;
                        last = v as u32;
                    }
                }
            }
            if last == NONE {
                return Ok(None);
            }
        }
        // Still relaxing after S rounds: walking S predecessors lands on a cycle.
        let mut y = last;
        for _ in 0..s {
            y = *self.pred.get(y as usize).ok_or(())?;
        }
        let mut len = 0usize;
        let mut b = y;
        loop {
            if len >= s {
                return Err(());
            }
            self.cycle[len] = b;
            len += 1;
            b = *self.pred.get(b as usize).ok_or(())?;
            if b == y {
                return Ok(Some(len));
            }
        }
    }

    /// Pushes the bottleneck around `cycle[..len]` (pred order: cycle[t + 1] gives to
    /// cycle[t]). False when nothing can move.
    fn push_cycle(&mut self, inst: &Instance, len: usize) -> bool {
        let s = self.s;
        for t in 0..len {
            let (b, a) = (self.cycle[t], self.cycle[(t + 1) % len]);
            self.hops[t] = (a, b, self.edge_class[a as usize * s + b as usize]);
        }
        self.push_hops(inst, len, u32::MAX)
    }

    /// min over u of d(u, u): the least loss of a cycle of exchanges (Floyd on S nodes).
    fn least_cycle_loss(&mut self, inst: &Instance) -> f64 {
        let s = self.s;
        self.edges(inst);
        self.dist.copy_from_slice(&self.edge);
        for k in 0..s {
            for i in 0..s {
                let dik = self.dist[i * s + k];
                if !dik.is_finite() {
                    continue;
                }
                for j in 0..s {
                    let cand = dik + self.dist[k * s + j];
                    if cand < self.dist[i * s + j] {
                        self.dist[i * s + j] = cand;
                    }
                }
            }
        }
        (0..s)
            .map(|u| self.dist[u * s + u])
            .fold(f64::INFINITY, f64::min)
    }

    /// Invariants of a solved category: every job holds K_i units, every class is fully used.
    fn check_counts(&self, inst: &Instance, cat: &[u32]) {
        if cfg!(debug_assertions) {
            let (s, c) = (self.s, self.c);
            for i in 0..s {
                let held: u32 = self.x[i * c..(i + 1) * c].iter().sum();
                debug_assert_eq!(held, cat[i], "transfer: job {i} holds x_i. != K_i");
            }
            for cl in 0..c {
                let used: u32 = (0..s).map(|i| self.x[i * c + cl]).sum();
                debug_assert_eq!(
                    used,
                    inst.classes.size(cl),
                    "transfer: class {cl} not fully used"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::placement::{JpsParams, Method, PlacementJob, PlacementScenario, Worker};
    use crate::placement::Exact;

    /// Two jobs on `k` workers with the given throughput rows.
    fn inst(rows: &[&[f64]]) -> Instance {
        let k = rows[0].len();
        Instance::new(&PlacementScenario {
            method: Method::Has,
            workers: (0..k)
                .map(|w| Worker {
                    gpu_type: w as u32,
                    node: 0,
                })
                .collect(),
            intra_node: 1e9,
            inter_node: 1e9,
            jobs: rows
                .iter()
                .map(|r| PlacementJob {
                    samples: 1e4,
                    epochs: 1.0,
                    model_bytes: 0.0,
                    throughput: r.to_vec(),
                })
                .collect(),
            include_comm: false,
            jps: JpsParams::default(),
            seed: 1,
            solver: Default::default(),
        })
        .unwrap()
    }

    #[test]
    fn a_clear_optimum_is_certified_and_exact() {
        let i = inst(&[&[10.0, 1.0, 7.0, 3.0], &[2.0, 9.0, 3.0, 8.0]]);
        let mut t = Transfer::new(&i);
        let mut e = Exact::new(&i);
        // Cold start, then warm starts in both directions.
        for cat in [[2u32, 2], [3, 1], [1, 3], [2, 2]] {
            assert_eq!(t.solve(&i, &cat), TransferOutcome::Unique, "{cat:?}");
            e.solve(&i, &cat);
            assert_eq!(t.counts(), &e.counts[..], "{cat:?}");
        }
        assert_eq!(t.stats.categories, 4);
    }

    #[test]
    fn ties_and_near_ties_are_degenerate() {
        // Swapping workers 0 and 1 between the jobs gains exactly 0 (a tie) ...
        let tie = inst(&[&[5.0, 4.0], &[3.0, 2.0]]);
        let mut t = Transfer::new(&tie);
        assert_eq!(t.solve(&tie, &[1, 1]), TransferOutcome::Degenerate);
        // ... or less than the margin: both go to the market.
        let near = inst(&[&[5.0, 4.0], &[3.0, 2.0 + 1e-12]]);
        let mut t = Transfer::new(&near);
        assert!(Transfer::margin(2, 5.0) > 1e-12);
        assert_eq!(t.solve(&near, &[1, 1]), TransferOutcome::Degenerate);
        assert_eq!(t.stats.degenerate, 1);
    }
}
