//! Exact max-throughput assignment for one category (P3, eq. 18): a transportation problem
//! (job i supplies K_i, class c of identical workers absorbs m_c units, profit rho_ic) solved by
//! successive shortest paths with Bellman-Ford on the residual graph (negative arc costs). This
//! is the `exact` method and the oracle the market is tested against.
//!
//! Among equal-throughput assignments the smaller average JCT is preferred: after the flow, a
//! bounded pass applies throughput-neutral one-unit exchanges between two jobs (i takes a unit
//! of d for one of c, j the reverse) whenever they lower the average JCT (2-exchange local
//! optimum; documented in `docs/placement.md`).
use super::{Assignment, Instance, Split};
use alloc::vec;
use alloc::vec::Vec;

use crate::index::NONE;

/// `cand` beats `old` by more than 1e-9 relative. Float rounding would otherwise let a
/// zero-cost cycle (job -> class -> back to the job) look negative and corrupt the path.
fn improves(cand: f64, old: f64) -> bool {
    !old.is_finite() || cand < old - 1e-9 * libm::fabs(old).max(1.0)
}

/// Scratch of the exact solver, sized once for an instance.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Exact {
    /// S (`u32` in a snapshot).
    #[serde(with = "crate::snapshot::usize_as_u32")]
    s: usize,
    /// C, the worker classes (`u32` in a snapshot).
    #[serde(with = "crate::snapshot::usize_as_u32")]
    c: usize,
    /// x_ic: workers of class c given to job i (S x C).
    pub counts: Vec<u32>,
    sent: Vec<u32>,
    used: Vec<u32>,
    dist: Vec<f64>,
    prev: Vec<u32>,
}

impl Exact {
    /// Scratch for `inst`.
    pub fn new(inst: &Instance) -> Self {
        let (s, c) = (inst.s, inst.classes.len());
        Exact {
            s,
            c,
            counts: vec![0; s * c],
            sent: vec![0; s],
            used: vec![0; c],
            dist: vec![0.0; s + c],
            prev: vec![NONE; s + c],
        }
    }

    /// Solves P3 for `cat`; returns the maximum total throughput sum_i V_i.
    pub fn solve(&mut self, inst: &Instance, cat: &[u32]) -> f64 {
        let (s, c) = (self.s, self.c);
        for x in self.counts.iter_mut() {
            *x = 0;
        }
        for x in self.sent.iter_mut() {
            *x = 0;
        }
        for x in self.used.iter_mut() {
            *x = 0;
        }
        let rho = &inst.classes.rho;
        // Every augmentation moves at least one of the K units.
        for _ in 0..inst.k {
            if !self.shortest(inst, cat) {
                break;
            }
            // Cheapest class with spare units (ties: lower index).
            let mut end = NONE;
            for cl in 0..c {
                if self.used[cl] < inst.classes.size(cl)
                    && self.dist[s + cl].is_finite()
                    && (end == NONE || self.dist[s + cl] < self.dist[s + end as usize])
                {
                    end = cl as u32;
                }
            }
            if end == NONE {
                break;
            }
            self.push(inst, cat, end as usize);
        }
        let mut total = 0.0;
        for i in 0..s {
            for cl in 0..c {
                total += f64::from(self.counts[i * c + cl]) * rho[i * c + cl];
            }
        }
        total
    }

    /// Bellman-Ford from every job with supply left. Nodes: jobs 0..S, classes S..S+C.
    fn shortest(&mut self, inst: &Instance, cat: &[u32]) -> bool {
        let (s, c) = (self.s, self.c);
        let rho = &inst.classes.rho;
        let mut any = false;
        for i in 0..s {
            let open = self.sent[i] < cat[i];
            any |= open;
            self.dist[i] = if open { 0.0 } else { f64::INFINITY };
            self.prev[i] = NONE;
        }
        for cl in 0..c {
            self.dist[s + cl] = f64::INFINITY;
            self.prev[s + cl] = NONE;
        }
        if !any {
            return false;
        }
        for _ in 0..(s + c) {
            let mut changed = false;
            for i in 0..s {
                for cl in 0..c {
                    let cost = -rho[i * c + cl];
                    // Forward arc job -> class (uncapacitated).
                    if self.dist[i].is_finite() && improves(self.dist[i] + cost, self.dist[s + cl])
                    {
                        self.dist[s + cl] = self.dist[i] + cost;
                        self.prev[s + cl] = i as u32;
                        changed = true;
                    }
                    // Backward arc class -> job where flow exists.
                    if self.counts[i * c + cl] > 0
                        && self.dist[s + cl].is_finite()
                        && improves(self.dist[s + cl] - cost, self.dist[i])
                    {
                        self.dist[i] = self.dist[s + cl] - cost;
                        self.prev[i] = (s + cl) as u32;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        true
    }

    fn push(&mut self, inst: &Instance, cat: &[u32], end: usize) {
        let (s, c) = (self.s, self.c);
        let mut b = inst.classes.size(end) - self.used[end];
        // Walk back to the source job, collecting the bottleneck.
        let mut node = s + end;
        let mut start = 0usize;
        for _ in 0..(s + c + 1) {
            let p = self.prev[node];
            if p == NONE {
                start = node;
                break;
            }
            let p = p as usize;
            if node >= s {
                // job p -> class node: forward, uncapacitated
            } else {
                // class p -> job node: backward, limited by the flow
                b = b.min(self.counts[node * c + (p - s)]);
            }
            node = p;
        }
        b = b.min(cat[start] - self.sent[start]);
        let mut node = s + end;
        for _ in 0..(s + c + 1) {
            let p = self.prev[node];
            if p == NONE {
                break;
            }
            let p = p as usize;
            if node >= s {
                self.counts[p * c + (node - s)] += b;
            } else {
                self.counts[node * c + (p - s)] -= b;
            }
            node = p;
        }
        self.sent[start] += b;
        self.used[end] += b;
    }

    /// Throughput-neutral 2-exchanges that lower the average JCT of `a` (which must hold the
    /// expansion of `counts`); at most `passes` sweeps. Returns the exchanges applied.
    pub fn improve_jct(
        &mut self,
        inst: &Instance,
        a: &mut Assignment,
        trial: &mut Assignment,
        passes: u32,
    ) -> u32 {
        let (s, c) = (self.s, self.c);
        let rho = &inst.classes.rho;
        let mut applied = 0;
        for _ in 0..passes {
            let mut improved = false;
            for i in 0..s {
                for j in (i + 1)..s {
                    for ci in 0..c {
                        if self.counts[i * c + ci] == 0 {
                            continue;
                        }
                        for dj in 0..c {
                            if ci == dj
                                || self.counts[i * c + ci] == 0
                                || self.counts[j * c + dj] == 0
                            {
                                continue;
                            }
                            let before = rho[i * c + ci] + rho[j * c + dj];
                            let after = rho[i * c + dj] + rho[j * c + ci];
                            if libm::fabs(after - before) > 1e-9 * before.max(1.0) {
                                continue;
                            }
                            self.exchange(i, j, ci, dj);
                            super::expand(inst, &self.counts, &mut trial.job_of);
                            trial.evaluate(inst, Split::Proportional);
                            if crate::num::less(trial.avg_jct, a.avg_jct) {
                                a.copy_from(trial);
                                applied += 1;
                                improved = true;
                            } else {
                                self.exchange(i, j, dj, ci);
                            }
                        }
                    }
                }
            }
            if !improved {
                break;
            }
        }
        applied
    }

    fn exchange(&mut self, i: usize, j: usize, ci: usize, dj: usize) {
        let c = self.c;
        self.counts[i * c + ci] -= 1;
        self.counts[i * c + dj] += 1;
        self.counts[j * c + dj] -= 1;
        self.counts[j * c + ci] += 1;
    }
}
