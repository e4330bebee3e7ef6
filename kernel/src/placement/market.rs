//! The tie-aware matching market of Algorithm 2 (lines 2-15), `docs/placement.md`.
//!
//! Buyers are jobs (job i buys K_i workers), sellers are workers, priced p_k. Job i values
//! worker k at Gamma_ik = rho_ik - p_k (eqs. 19, 23). Its demand is every worker valued strictly
//! above its K_i-th best valuation theta_i plus enough of the workers tied at theta_i. The market
//! clears when disjoint bundles exist (a bipartite b-matching, found by augmenting paths);
//! otherwise the lowest-index worker of the over-demanded (constricted) set gets
//! p_k += max(1, max_i (sum_top(Gamma_i, K_i) - sum_top(Gamma_i \ k, K_i))) (eqs. 20-22).
//!
//! Two refinements, both documented in `docs/placement.md`:
//! - Workers with identical throughput columns form one class ([`super::Classes`]) priced as a
//!   unit; with distinct real-valued throughputs every class is one worker and this is exactly
//!   the per-worker market. (Pricing identical workers one at a time only rotates ties.)
//! - When eq. (22) would raise by the bare unit 1 (every demander's sum_top difference is
//!   below 1) the unit overshoots ties; on clusters with few GPU types two classes then
//!   flip-flop one unit at a time up to the throughput gap between GPU types (100,000+ rounds
//!   on Gavel data). Then the whole constricted set is raised, by the least amount that creates
//!   a new tie with an outside class (the Hungarian method's dual step; Easley and Kleinberg,
//!   the paper's \[21\], also raise the whole constricted set). `unit_rounds` reports how many
//!   unit raises such a step stands for.
//!
//! Whenever the market clears, each job holds a top-K_i bundle at the final prices and every
//! worker is sold (sum K_i = K), so the assignment maximises total throughput (P3, Theorem 2)
//! whatever the price path. The number of price updates is capped
//! ([`crate::limits::PLACEMENT_MARKET_ROUNDS_MAX`]); on the cap the caller falls back to the exact
//! solver and says so.
use super::Instance;
use crate::num::{max_finite, min_finite};
use alloc::vec;
use alloc::vec::Vec;

use crate::index::NONE;

/// Tolerance of valuation ties: 1e-9 relative (prices accumulate float noise).
fn tol(x: f64) -> f64 {
    1e-9 * max_finite(libm::fabs(x), 1.0)
}

/// How one market run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct MarketOutcome {
    /// Price updates performed (the loop iterations of Algorithm 2, lines 5-15).
    pub rounds: u32,
    /// Paper rounds they stand for (batched unit raises counted one by one).
    pub unit_rounds: u64,
    /// True when the market cleared within the cap; false when it hit the cap or its prices
    /// stopped moving (a raise below one ulp of prices near f64's range), both answered by the
    /// exact fallback.
    pub cleared: bool,
}

/// One round of a market run as [`Market::run_traced`] shows it: the prices p_c, every job's
/// demand D_i(p) at them (Algorithm 2, lines 6-8) and what happens next: the over-demanded class
/// whose price rises (eqs. 20-22), or `over == None` when the market clears with
/// [`Market::counts`]. Borrows the market's scratch (no allocation).
#[derive(Clone, Copy, Debug)]
pub struct MarketRound<'a> {
    /// Price updates made before this round (0 for the first).
    pub round: u32,
    /// The over-demanded class raised after this round (lowest index); `None`: cleared.
    pub over: Option<u32>,
    /// True when `over` is the lowest class of a constricted set of the tie b-matching (the
    /// whole set may rise), false when two jobs strictly demand it.
    pub constricted: bool,
    market: &'a Market,
}

impl MarketRound<'_> {
    /// p_c of every class at this round (before its update).
    pub fn prices(&self) -> &[f64] {
        &self.market.price
    }

    /// Job i's demand at these prices: the classes it strictly prefers (all units of each),
    /// the classes tied at its K_i-th valuation theta_i, and the units it needs from the tie.
    pub fn demand(&self, i: usize) -> (&[u32], &[u32], u32) {
        let m = self.market;
        let (t0, t1) = match (m.t0.get(i), m.t1.get(i)) {
            (Some(&a), Some(&b)) => (a as usize, b as usize),
            _ => return (&[], &[], 0),
        };
        let row = m.order.get(i * m.c..(i + 1) * m.c).unwrap_or(&[]);
        (
            row.get(..t0).unwrap_or(&[]),
            row.get(t0..t1).unwrap_or(&[]),
            m.need.get(i).copied().unwrap_or(0),
        )
    }

    /// True when class c belongs to the constricted set found this round.
    pub fn in_constricted_set(&self, c: usize) -> bool {
        self.constricted && self.market.class_seen.get(c).copied().unwrap_or(false)
    }

    /// x_ic (S x C) once the market has cleared (`over == None`).
    pub fn counts(&self) -> &[u32] {
        &self.market.counts
    }
}

/// Scratch of the market, sized once for an instance (no allocation per run).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Market {
    /// S (`u32` in a snapshot).
    #[serde(with = "crate::snapshot::usize_as_u32")]
    s: usize,
    /// C, the worker classes (`u32` in a snapshot).
    #[serde(with = "crate::snapshot::usize_as_u32")]
    c: usize,
    price: Vec<f64>,
    gamma: Vec<f64>,
    /// Gamma in preference order: `sorted[i C + p] == gamma[i C + order[i C + p]]`, so the
    /// scans over a row read one array instead of chasing `order` into `gamma`. Derived
    /// scratch, rebuilt by every run: not part of a snapshot (the wire format stays as it was).
    #[serde(skip)]
    sorted: Vec<f64>,
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

impl Market {
    /// Scratch for `inst`.
    pub fn new(inst: &Instance) -> Self {
        let (s, c) = (inst.s, inst.classes.len());
        Market {
            s,
            c,
            price: vec![0.0; c],
            gamma: vec![0.0; s * c],
            sorted: vec![0.0; s * c],
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
        self.run_traced(inst, cat, cap, |_| {})
    }

    /// [`Market::run`], showing every round of Algorithm 2 (lines 5-15) to `observe` before its
    /// price update, and the clearing round last. The observer only reads borrowed scratch, so
    /// the run (and every decision built on it) is the same as [`Market::run`]'s, allocation
    /// free; it serves the visualiser's matching-market panel.
    pub fn run_traced<F: FnMut(&MarketRound<'_>)>(
        &mut self,
        inst: &Instance,
        cat: &[u32],
        cap: u32,
        mut observe: F,
    ) -> MarketOutcome {
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
                        observe(&MarketRound {
                            round: out.rounds,
                            over: None,
                            constricted: false,
                            market: self,
                        });
                        return out;
                    }
                    Some(c) => (c, true),
                },
            };
            observe(&MarketRound {
                round: out.rounds,
                over: Some(over),
                constricted,
                market: self,
            });
            let units = self.raise(inst, cat, over as usize, constricted);
            out.rounds += 1;
            match units {
                Some(u) => out.unit_rounds = out.unit_rounds.saturating_add(u),
                // The raise left every price where it was (prices so large that the step is
                // below one ulp): no later round can differ, so stop now rather than spin to
                // the cap; the caller takes the exact fallback as for an uncleared market.
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
        for x in self.flow.iter_mut() {
            *x = 0;
        }
        if self.sorted.len() != self.gamma.len() {
            // Only a market decoded from a snapshot lacks it (`sorted` is not on the wire).
            self.sorted = vec![0.0; self.gamma.len()];
        }
        for i in 0..self.s {
            let row = i * self.c;
            for p in 0..self.c {
                let c = self.order[row + p] as usize;
                self.pos[row + c] = p as u32;
                self.sorted[row + p] = self.gamma[row + c];
            }
        }
    }

    /// Gamma of the class at position p of job i's order.
    fn g(&self, i: usize, p: usize) -> f64 {
        self.sorted[i * self.c + p]
    }

    fn m(inst: &Instance, c: u32) -> u32 {
        inst.classes.size(c as usize)
    }

    /// Per job: the tie block [t0, t1) of order positions around theta_i and the units `need`
    /// it must take from it after the strict classes (positions < t0).
    fn demand(&mut self, inst: &Instance, cat: &[u32]) {
        // Every class one worker (distinct workers): the K_i-th unit sits at position K_i - 1
        // and the strict units are the strict positions, no cumulative walk.
        let unit = self.c == inst.k;
        for i in 0..self.s {
            let row = i * self.c;
            let q = if unit {
                (cat[i].max(1) - 1) as usize
            } else {
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
                q
            };
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
            let strict: u32 = if unit {
                t0 as u32
            } else {
                (0..t0).map(|p| Self::m(inst, self.order[row + p])).sum()
            };
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
        // Only tie classes carry flow: set up just those. `flow` is zero here (`reset` zeroes
        // it and a failing `clear` zeroes its tie edges before returning).
        for i in 0..self.s {
            for p in self.t0[i] as usize..self.t1[i] as usize {
                let c = self.order[i * self.c + p] as usize;
                self.avail[c] = if self.owner[c] == NONE {
                    Self::m(inst, c as u32)
                } else {
                    0
                };
                self.used[c] = 0;
            }
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
                if !self.augment(i) {
                    for j in 0..self.s {
                        for p in self.t0[j] as usize..self.t1[j] as usize {
                            let c = self.order[j * self.c + p] as usize;
                            self.flow[j * self.c + c] = 0;
                        }
                    }
                    return self.class_seen.iter().position(|&b| b).map(|c| c as u32);
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
        if self.c == inst.k {
            // Every class one worker: the r-th unit is at position r - 1.
            let p = (r as usize).saturating_sub(1);
            return if p < self.c { Some(self.g(i, p)) } else { None };
        }
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
        // The set's classes, listed in `queue` (free once `clear` has returned), and per job a
        // bitset of their positions in its row, kept in that job's row of `flow` (all zero
        // between a failing `clear` and the next one; zeroed again below).
        let words = self.c.div_ceil(32);
        let mut members = 0usize;
        for cl in 0..self.c {
            if self.class_seen[cl] {
                self.queue[members] = cl as u32;
                members += 1;
            }
        }
        for i in 0..self.s {
            self.set_bits(i * self.c, words);
        }
        let inc = self.set_step(words);
        let mut moved = false;
        for m in 0..members {
            let cl = self.queue[m] as usize;
            let before = self.price[cl];
            self.price[cl] += inc;
            moved |= self.price[cl] != before;
            self.update_class(inst, cl);
        }
        if moved {
            self.resort_rows(words);
        }
        for i in 0..self.s {
            let row = i * self.c;
            for w in self.flow[row..row + words].iter_mut() {
                *w = 0;
            }
        }
        if !moved {
            return None;
        }
        Some(libm::ceil(inc).clamp(1.0, 1e18) as u64)
    }

    /// Writes the bitset of the set's positions in the row starting at `row` into
    /// `flow[row..row + words]` (zero before). One pass over the row, each word built in a
    /// register: cheaper than or-ing one bit per set class into memory, where consecutive
    /// read-modify-writes of one word wait on each other.
    fn set_bits(&mut self, row: usize, words: usize) {
        for w in 0..words {
            let lo = w * 32;
            let hi = (lo + 32).min(self.c);
            let mut word = 0u32;
            for (b, &cl) in self.order[row + lo..row + hi].iter().enumerate() {
                word |= u32::from(self.class_seen[cl as usize]) << b;
            }
            self.flow[row + w] = word;
        }
    }

    /// Least raise of the constricted set after which a demanded class of the set meets the
    /// next lower class outside it for some job; 1 if there is none. The set's positions in job
    /// i's row are the bitset `flow[i C..i C + words]` (see [`Market::raise`]).
    ///
    /// For a set class at position p (theta_p = Gamma - tol(Gamma)) that class is the first
    /// position after p outside the set with Gamma < theta_p. Rows are sorted by descending
    /// Gamma and theta is monotone in Gamma, so both "first position with Gamma < theta_p" and
    /// "first outside position from there" only move forward as p grows: two pointers per job
    /// over the set's positions, instead of a scan per set class.
    fn set_step(&self, words: usize) -> f64 {
        let mut delta = f64::INFINITY;
        for i in 0..self.s {
            let row = i * self.c;
            let bits = &self.flow[row..row + words];
            let t1 = self.t1[i] as usize;
            let (mut r, mut o) = (0usize, 0usize);
            'row: for (w, &word) in bits.iter().enumerate() {
                let mut b = word;
                while b != 0 {
                    let p = w * 32 + b.trailing_zeros() as usize;
                    b &= b - 1;
                    if p >= t1 {
                        break 'row;
                    }
                    let g = self.g(i, p);
                    let theta = g - tol(g);
                    r = r.max(p + 1);
                    while r < self.c && self.g(i, r) >= theta {
                        r += 1;
                    }
                    o = first_clear(bits, o.max(r));
                    if o >= self.c {
                        // No outside class below any later set class either.
                        break 'row;
                    }
                    delta = min_finite(delta, g - self.g(i, o));
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
            let v = inst.classes.rho[row + c] - self.price[c];
            self.gamma[row + c] = v;
            self.sorted[row + self.pos[row + c] as usize] = v;
        }
    }

    /// Moves class `c` (whose Gamma just fell) down every job's order: descending Gamma, ties
    /// by lower class index. O(positions moved).
    fn sink_class(&mut self, c: usize) {
        for i in 0..self.s {
            let row = i * self.c;
            let p = self.pos[row + c] as usize;
            self.sink(row, p);
        }
    }

    /// Moves the class at position `p` of the row starting at `row` down past every class
    /// that now precedes it (descending Gamma, ties by lower class index), carrying its
    /// `sorted` value along. The part of the row below `p` must be sorted.
    fn sink(&mut self, row: usize, p: usize) {
        let end = row + self.c;
        sink_in_row(
            &mut self.order[row..end],
            &mut self.sorted[row..end],
            &mut self.pos[row..end],
            p,
        );
    }

    /// Re-sorts every job's order (descending Gamma, ties by lower class index) after the set's
    /// classes fell (a set step; their positions are the bitsets in `flow`, see
    /// [`Market::raise`]). Per row the raised classes are sunk one by one from the lowest
    /// position up, each into the already sorted part below it (the unraised classes keep
    /// their order, and a raised class only falls): O(set + moves) per row instead of a pass
    /// over the row.
    fn resort_rows(&mut self, words: usize) {
        for i in 0..self.s {
            let (row, end) = (i * self.c, (i + 1) * self.c);
            let order = &mut self.order[row..end];
            let sorted = &mut self.sorted[row..end];
            let pos = &mut self.pos[row..end];
            for w in (0..words).rev() {
                let mut bits = self.flow[row + w];
                while bits != 0 {
                    let top = 31 - bits.leading_zeros() as usize;
                    bits &= !(1u32 << top);
                    sink_in_row(order, sorted, pos, w * 32 + top);
                }
            }
        }
    }
}

/// [`Market::sink`] on one row's `order`, `sorted` and `pos` (equal lengths). Looks at the
/// next position first: most classes of a set step stay where they are, and then nothing is
/// written.
#[inline(always)]
fn sink_in_row(order: &mut [u32], sorted: &mut [f64], pos: &mut [u32], mut p: usize) {
    let (Some(&c), Some(&gc)) = (order.get(p), sorted.get(p)) else {
        return;
    };
    let precedes = |d: u32, gd: f64| gd > gc || (gd == gc && d < c);
    match (order.get(p + 1), sorted.get(p + 1)) {
        (Some(&d), Some(&gd)) if precedes(d, gd) => {}
        _ => return,
    }
    while let (Some(&d), Some(&gd)) = (order.get(p + 1), sorted.get(p + 1)) {
        if !precedes(d, gd) {
            break;
        }
        order[p] = d;
        sorted[p] = gd;
        if let Some(slot) = pos.get_mut(d as usize) {
            *slot = p as u32;
        }
        p += 1;
    }
    order[p] = c;
    sorted[p] = gc;
    if let Some(slot) = pos.get_mut(c as usize) {
        *slot = p as u32;
    }
}

/// First position >= `from` whose bit is clear in `bits` (positions past the bitset count as
/// clear).
fn first_clear(bits: &[u32], from: usize) -> usize {
    let mut w = from / 32;
    let mut mask = u32::MAX << (from % 32);
    while let Some(&word) = bits.get(w) {
        let free = !word & mask;
        if free != 0 {
            return w * 32 + free.trailing_zeros() as usize;
        }
        w += 1;
        mask = u32::MAX;
    }
    w * 32
}
