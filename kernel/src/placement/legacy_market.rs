//! The matching market exactly as it was before the distinct-worker fast path (commit
//! 1f2012e), kept verbatim (feature `reference`) so property tests can check that
//! [`super::Market`] follows the same price path: same rounds, prices, counts and outcome
//! (`tests/tests/placement_props.rs`). Not used by any decision path.
use super::{Instance, MarketOutcome};
use crate::num::{max_finite, min_finite};
use alloc::vec;
use alloc::vec::Vec;

use crate::index::NONE;

/// Tolerance of valuation ties: 1e-9 relative (prices accumulate float noise).
fn tol(x: f64) -> f64 {
    1e-9 * max_finite(libm::fabs(x), 1.0)
}

/// Scratch of the market, sized once for an instance (no allocation per run).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LegacyMarket {
    /// S (`u32` in a snapshot).
    #[serde(with = "crate::snapshot::usize_as_u32")]
    s: usize,
    /// C, the worker classes (`u32` in a snapshot).
    #[serde(with = "crate::snapshot::usize_as_u32")]
    c: usize,
    price: Vec<f64>,
    gamma: Vec<f64>,
    order: Vec<u32>,
    pos: Vec<u32>,
    t0: Vec<u32>,
    t1: Vec<u32>,
    need: Vec<u32>,
    owner: Vec<u32>,
    avail: Vec<u32>,
    flow: Vec<u32>,
    left: Vec<u32>,
    used: Vec<u32>,
    job_prev: Vec<u32>,
    class_prev: Vec<u32>,
    job_seen: Vec<bool>,
    class_seen: Vec<bool>,
    queue: Vec<u32>,
    /// x_ic after a cleared run: workers of class c bought by job i (S x C).
    pub counts: Vec<u32>,
}

impl LegacyMarket {
    /// Scratch for `inst`.
    pub fn new(inst: &Instance) -> Self {
        let (s, c) = (inst.s, inst.classes.len());
        LegacyMarket {
            s,
            c,
            price: vec![0.0; c],
            gamma: vec![0.0; s * c],
            order: vec![0; s * c],
            pos: vec![0; s * c],
            t0: vec![0; s],
            t1: vec![0; s],
            need: vec![0; s],
            owner: vec![NONE; c],
            avail: vec![0; c],
            flow: vec![0; s * c],
            left: vec![0; s],
            used: vec![0; c],
            job_prev: vec![NONE; s],
            class_prev: vec![NONE; c],
            job_seen: vec![false; s],
            class_seen: vec![false; c],
            queue: vec![0; s + c],
            counts: vec![0; s * c],
        }
    }

    /// Final price p_c of class c (every worker of the class) after the last run.
    pub fn price(&self, c: usize) -> f64 {
        self.price[c]
    }

    /// Runs the market for category `cat` (K_i per job) with at most `cap` price updates.
    pub fn run(&mut self, inst: &Instance, cat: &[u32], cap: u32) -> MarketOutcome {
        self.reset(inst);
        let mut out = MarketOutcome::default();
        while out.rounds < cap {
            self.demand(inst, cat);
            let (over, constricted) = match self.strict_conflict() {
                Some(c) => (c, false),
                None => match self.clear(inst) {
                    None => {
                        self.fill_counts(inst);
                        out.cleared = true;
                        return out;
                    }
                    Some(c) => (c, true),
                },
            };
            let units = self.raise(inst, cat, over as usize, constricted);
            out.rounds += 1;
            match units {
                Some(u) => out.unit_rounds = out.unit_rounds.saturating_add(u),
                None => return out,
            }
        }
        out
    }

    fn reset(&mut self, inst: &Instance) {
        let cl = &inst.classes;
        for x in self.price.iter_mut() {
            *x = 0.0;
        }
        self.gamma.copy_from_slice(&cl.rho);
        self.order.copy_from_slice(&cl.order);
        for i in 0..self.s {
            for p in 0..self.c {
                let c = self.order[i * self.c + p] as usize;
                self.pos[i * self.c + c] = p as u32;
            }
        }
    }

    fn g(&self, i: usize, p: usize) -> f64 {
        self.gamma[i * self.c + self.order[i * self.c + p] as usize]
    }

    fn m(inst: &Instance, c: u32) -> u32 {
        inst.classes.size(c as usize)
    }

    /// Per job: the tie block [t0, t1) of order positions around theta_i and the units `need`
    /// it must take from it after the strict classes (positions < t0).
    fn demand(&mut self, inst: &Instance, cat: &[u32]) {
        for i in 0..self.s {
            let row = i * self.c;
            let mut cum = 0u32;
            let mut q = 0usize;
            while q < self.c {
                let m = Self::m(inst, self.order[row + q]);
                if cum + m >= cat[i] {
                    break;
                }
                cum += m;
                q += 1;
            }
            let q = q.min(self.c - 1);
            let theta = self.g(i, q);
            let t = tol(theta);
            let mut t0 = q;
            while t0 > 0 && self.g(i, t0 - 1) <= theta + t {
                t0 -= 1;
            }
            let mut t1 = q + 1;
            while t1 < self.c && self.g(i, t1) >= theta - t {
                t1 += 1;
            }
            let strict: u32 = (0..t0).map(|p| Self::m(inst, self.order[row + p])).sum();
            self.t0[i] = t0 as u32;
            self.t1[i] = t1 as u32;
            self.need[i] = cat[i].saturating_sub(strict);
        }
    }

    /// A class strictly demanded by two jobs (lowest index), else `None`; sets `owner`.
    fn strict_conflict(&mut self) -> Option<u32> {
        for x in self.owner.iter_mut() {
            *x = NONE;
        }
        let mut worst: Option<u32> = None;
        for i in 0..self.s {
            for p in 0..self.t0[i] as usize {
                let c = self.order[i * self.c + p];
                if self.owner[c as usize] == NONE {
                    self.owner[c as usize] = i as u32;
                } else {
                    worst = Some(worst.map_or(c, |w| w.min(c)));
                }
            }
        }
        worst
    }

    /// b-matching of the tie demands onto the classes not strictly owned. `None` when every
    /// need is met (the market clears), else the lowest class of a constricted set.
    fn clear(&mut self, inst: &Instance) -> Option<u32> {
        for c in 0..self.c {
            self.avail[c] = if self.owner[c] == NONE {
                Self::m(inst, c as u32)
            } else {
                0
            };
            self.used[c] = 0;
        }
        for x in self.flow.iter_mut() {
            *x = 0;
        }
        self.left.copy_from_slice(&self.need);
        // Greedy pre-fill (jobs in index order, tie classes in preference order): most units
        // land here; augmenting paths then only fix the rest.
        for i in 0..self.s {
            for p in self.t0[i] as usize..self.t1[i] as usize {
                let c = self.order[i * self.c + p] as usize;
                let take = self.left[i].min(self.avail[c] - self.used[c]);
                self.flow[i * self.c + c] += take;
                self.used[c] += take;
                self.left[i] -= take;
            }
        }
        for i in 0..self.s {
            // Each augmentation moves at least one unit, so K bounds this loop.
            while self.left[i] > 0 {
                match self.augment(i) {
                    true => {}
                    false => return self.class_seen.iter().position(|&b| b).map(|c| c as u32),
                }
            }
        }
        None
    }

    /// One BFS augmenting path from job `start` to a class with spare units.
    fn augment(&mut self, start: usize) -> bool {
        for x in self.job_seen.iter_mut() {
            *x = false;
        }
        for x in self.class_seen.iter_mut() {
            *x = false;
        }
        let (mut head, mut tail) = (0usize, 1usize);
        self.queue[0] = start as u32;
        self.job_seen[start] = true;
        self.job_prev[start] = NONE;
        while head < tail {
            let i = self.queue[head] as usize;
            head += 1;
            for p in self.t0[i] as usize..self.t1[i] as usize {
                let c = self.order[i * self.c + p] as usize;
                if self.class_seen[c] {
                    continue;
                }
                self.class_seen[c] = true;
                self.class_prev[c] = i as u32;
                if self.used[c] < self.avail[c] {
                    self.push_path(start, c);
                    return true;
                }
                for j in 0..self.s {
                    if !self.job_seen[j] && self.flow[j * self.c + c] > 0 && tail < self.queue.len()
                    {
                        self.job_seen[j] = true;
                        self.job_prev[j] = c as u32;
                        self.queue[tail] = j as u32;
                        tail += 1;
                    }
                }
            }
        }
        false
    }

    fn push_path(&mut self, start: usize, end: usize) {
        // Bottleneck: the start's need, the end's spare units, every back edge's flow.
        let mut b = self.left[start].min(self.avail[end] - self.used[end]);
        let mut c = end;
        loop {
            let i = self.class_prev[c] as usize;
            if i == start {
                break;
            }
            let back = self.job_prev[i] as usize;
            b = b.min(self.flow[i * self.c + back]);
            c = back;
        }
        let mut c = end;
        loop {
            let i = self.class_prev[c] as usize;
            self.flow[i * self.c + c] += b;
            if i == start {
                break;
            }
            let back = self.job_prev[i] as usize;
            self.flow[i * self.c + back] -= b;
            c = back;
        }
        self.used[end] += b;
        self.left[start] -= b;
    }

    fn fill_counts(&mut self, inst: &Instance) {
        for i in 0..self.s {
            for c in 0..self.c {
                let strict = if self.owner[c] == i as u32 {
                    Self::m(inst, c as u32)
                } else {
                    0
                };
                self.counts[i * self.c + c] = self.flow[i * self.c + c] + strict;
            }
        }
    }

    /// Gamma of the r-th best unit (1-based) of job i, or `None` when there are fewer units.
    fn unit_value(&self, inst: &Instance, i: usize, r: u32) -> Option<f64> {
        let mut cum = 0u32;
        for p in 0..self.c {
            cum += Self::m(inst, self.order[i * self.c + p]);
            if cum >= r {
                return Some(self.g(i, p));
            }
        }
        None
    }

    /// Raises class `c` by eq. (22). When eq. (22) would raise by the bare unit (every
    /// demander's sum_top difference is below 1) and `c` came from a constricted set, the whole
    /// set is raised instead, by the least amount that creates a new tie with a class outside
    /// it for some job (the primal-dual step of the Hungarian method; the textbook clearing
    /// step of Easley and Kleinberg, the paper's \[21\], raises the whole set too). The unit would
    /// overshoot such ties, and on clusters with few GPU types two classes then flip-flop one
    /// unit at a time up to the throughput gap between GPU types. Returns the paper rounds the
    /// raise stands for, or `None` when no price changed (the step is below one ulp).
    fn raise(&mut self, inst: &Instance, cat: &[u32], c: usize, constricted: bool) -> Option<u64> {
        let mut diff_max = 0.0f64;
        for i in 0..self.s {
            if self.pos[i * self.c + c] >= self.t1[i] {
                continue; // job i does not demand c
            }
            let gc = self.gamma[i * self.c + c];
            // sum_top(Gamma_i) - sum_top(Gamma_i \ one unit of c) = Gamma_ic - (K_i+1)-th unit.
            let diff = match self.unit_value(inst, i, cat[i] + 1) {
                Some(next) => max_finite(gc - next, 0.0),
                None => max_finite(gc, 0.0),
            };
            diff_max = max_finite(diff_max, diff);
        }
        if diff_max >= 1.0 || !constricted {
            let inc = max_finite(diff_max, 1.0);
            let before = self.price[c];
            self.price[c] += inc;
            if self.price[c] == before {
                return None;
            }
            self.update_class(inst, c);
            self.sink_class(c);
            return Some(1);
        }
        let inc = self.set_step();
        let mut moved = false;
        for cl in 0..self.c {
            if self.class_seen[cl] {
                let before = self.price[cl];
                self.price[cl] += inc;
                moved |= self.price[cl] != before;
                self.update_class(inst, cl);
            }
        }
        if !moved {
            return None;
        }
        self.resort_all();
        Some(libm::ceil(inc).clamp(1.0, 1e18) as u64)
    }

    /// Least raise of the constricted set (`class_seen`) after which a demanded class of the
    /// set meets the next lower class outside it for some job; 1 if there is none.
    fn set_step(&self) -> f64 {
        let mut delta = f64::INFINITY;
        for i in 0..self.s {
            let row = i * self.c;
            for p in 0..self.t1[i] as usize {
                let c = self.order[row + p] as usize;
                if !self.class_seen[c] {
                    continue;
                }
                let g = self.gamma[row + c];
                for q in (p + 1)..self.c {
                    let d = self.order[row + q] as usize;
                    let gd = self.gamma[row + d];
                    if !self.class_seen[d] && gd < g - tol(g) {
                        delta = min_finite(delta, g - gd);
                        break;
                    }
                }
            }
        }
        if delta.is_finite() {
            delta
        } else {
            1.0
        }
    }

    fn update_class(&mut self, inst: &Instance, c: usize) {
        for i in 0..self.s {
            let row = i * self.c;
            self.gamma[row + c] = inst.classes.rho[row + c] - self.price[c];
        }
    }

    /// Moves class `c` (whose Gamma just fell) down every job's order: descending Gamma, ties
    /// by lower class index. O(positions moved).
    fn sink_class(&mut self, c: usize) {
        for i in 0..self.s {
            let row = i * self.c;
            let mut p = self.pos[row + c] as usize;
            let gc = self.gamma[row + c];
            while p + 1 < self.c {
                let d = self.order[row + p + 1] as usize;
                let gd = self.gamma[row + d];
                if gd > gc || (gd == gc && d < c) {
                    self.order[row + p] = d as u32;
                    self.pos[row + d] = p as u32;
                    p += 1;
                } else {
                    break;
                }
            }
            self.order[row + p] = c as u32;
            self.pos[row + c] = p as u32;
        }
    }

    /// Insertion sort of every job's order (descending Gamma, ties by lower class index);
    /// only the raised classes moved, so rows are nearly sorted.
    fn resort_all(&mut self) {
        for i in 0..self.s {
            let row = i * self.c;
            for a in 1..self.c {
                let cur = self.order[row + a] as usize;
                let gc = self.gamma[row + cur];
                let mut b = a;
                while b > 0 {
                    let d = self.order[row + b - 1] as usize;
                    let gd = self.gamma[row + d];
                    if gc > gd || (gc == gd && cur < d) {
                        self.order[row + b] = d as u32;
                        b -= 1;
                    } else {
                        break;
                    }
                }
                self.order[row + b] = cur as u32;
            }
            for p in 0..self.c {
                let c = self.order[row + p] as usize;
                self.pos[row + c] = p as u32;
            }
        }
    }
}
