//! The exact fast DP of Alg. 2 (the default path).
//!
//! Per slot t, COST_t(t, d) depends on d only through w = ceil(d m_i) (Alg. 2 line 26) and is
//! non-decreasing in w, so slot t offers the choices "w workers cover chunks_for(w) chunks" for
//! w = 0..=Wcap(t) (Wcap: the most workers both pools can host; feasibility is a prefix in w),
//! of which only the smallest w per distinct chunk count matters. The DP over "at least x chunks
//! covered in slots a_i..t" then has at most N_i + 1 transitions per cell instead of x + 1, and
//! its value equals the literal exact-split DP (COST_t is monotone, so covering more than d in a
//! slot never costs less than covering d with the same workers).
//!
//! COST_t(t, w) reproduces the literal greedy bit for bit: workers fill servers in price order
//! (prefix sums of unit price x fit, summed in the same order as the greedy), then parameter
//! servers likewise for z = ceil(w b_i / B_i).
use super::market::{JobParams, Market};
use super::{Decision, OasisError, Reason};
use crate::model::oasis::Utility;
use crate::num::{greater, less};
use crate::order::sort_indices_by_keys;
use alloc::vec;
use alloc::vec::Vec;

const NONE: u32 = u32::MAX;

/// Per-slot price orders and fits of one pool for the job being decided.
#[derive(Clone, Debug, Default)]
struct PoolView {
    n: usize,
    /// unit price per (slot, server): sum_r p_h^r(t) w_i^r
    unit: Vec<f64>,
    /// fit per (slot, server): floor(min_r (c - g) / w) (constraints 30/31)
    fit: Vec<u32>,
    /// servers per slot in non-decreasing unit price, ties by index (Alg. 2 lines 25 / 35)
    order: Vec<u32>,
    /// per slot, n + 1 cumulative fits along `order`
    cum: Vec<u64>,
    /// per slot, n + 1 prefix costs along `order` (unit x fit, summed in order)
    pre: Vec<f64>,
}

impl PoolView {
    fn new(slots: usize, n: usize) -> Self {
        PoolView {
            n,
            unit: vec![0.0; slots * n],
            fit: vec![0; slots * n],
            order: vec![0; slots * n],
            cum: vec![0; slots * (n + 1)],
            pre: vec![0.0; slots * (n + 1)],
        }
    }

    fn prepare(
        &mut self,
        pool: &super::market::Pool,
        t: u32,
        dem: &crate::ResourceVec,
        tmp: &mut [u32],
    ) {
        let n = self.n;
        let b = t as usize * n;
        let (Some(unit), Some(fit), Some(order)) = (
            self.unit.get_mut(b..b + n),
            self.fit.get_mut(b..b + n),
            self.order.get_mut(b..b + n),
        ) else {
            return;
        };
        for s in 0..n {
            unit[s] = pool.unit_price(t, s as u32, dem);
            fit[s] = pool.fit(t, s as u32, dem);
            order[s] = s as u32;
        }
        sort_indices_by_keys(order, unit, tmp);
        let c = t as usize * (n + 1);
        let (Some(cum), Some(pre)) = (
            self.cum.get_mut(c..c + n + 1),
            self.pre.get_mut(c..c + n + 1),
        ) else {
            return;
        };
        cum[0] = 0;
        pre[0] = 0.0;
        for j in 0..n {
            let s = order[j] as usize;
            cum[j + 1] = cum[j].saturating_add(fit[s] as u64);
            pre[j + 1] = pre[j] + unit[s] * fit[s] as f64;
        }
    }

    /// Total hosts available in slot t.
    fn total(&self, t: u32) -> u64 {
        let c = t as usize * (self.n + 1) + self.n;
        self.cum.get(c).copied().unwrap_or(0)
    }

    /// Cost of the greedy fill of `count` instances in slot t (Alg. 2 lines 27-31 / 36-40).
    fn cost(&self, t: u32, count: u64) -> f64 {
        let n = self.n;
        let c = t as usize * (n + 1);
        let (Some(cum), Some(pre)) = (self.cum.get(c..c + n + 1), self.pre.get(c..c + n + 1))
        else {
            return f64::INFINITY;
        };
        // smallest j with cum[j + 1] >= count
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if cum[mid + 1] >= count {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if lo >= n {
            return if count == 0 { 0.0 } else { f64::INFINITY };
        }
        let s = self.order[t as usize * n + lo] as usize;
        pre[lo] + self.unit[t as usize * n + s] * (count - cum[lo]) as f64
    }

    /// The greedy fill of `count` instances in slot t, per server index, into `y`.
    fn fill(&self, t: u32, count: u64, y: &mut [u32]) {
        y.iter_mut().for_each(|v| *v = 0);
        let n = self.n;
        let mut left = count;
        for j in 0..n {
            if left == 0 {
                break;
            }
            let s = self.order.get(t as usize * n + j).copied().unwrap_or(0) as usize;
            let f = self.fit.get(t as usize * n + s).copied().unwrap_or(0) as u64;
            let take = f.min(left);
            if let Some(v) = y.get_mut(s) {
                *v = take as u32;
            }
            left -= take;
        }
    }
}

/// One slot of the chosen schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct SlotAlloc {
    slot: u32,
    chunks: u64,
    workers: u32,
    ps: u32,
    cost: f64,
    w_from: u32,
    w_to: u32,
    p_from: u32,
    p_to: u32,
}

/// Scratch of the fast DP, sized once for a scenario.
#[derive(Clone, Debug)]
pub struct FastDp {
    slots: usize,
    wview: PoolView,
    pview: PoolView,
    tmp: Vec<u32>,
    wcap: Vec<u64>,
    dcap: Vec<u64>,
    future: Vec<u64>,
    pt_w: Vec<u64>,
    pt_d: Vec<u64>,
    pt_c: Vec<f64>,
    f_prev: Vec<f64>,
    f_cur: Vec<f64>,
    choice: Vec<u32>,
    plan_w: Vec<u64>,
    plan_d: Vec<u64>,
    ytmp: Vec<u32>,
    out: Vec<SlotAlloc>,
    out_len: usize,
    pairs_w: Vec<[u32; 2]>,
    pairs_p: Vec<[u32; 2]>,
    /// DP cells written by the last decision (a work measure for benches and tests).
    pub cells: u64,
}

/// What a fast decision needs to know of its scratch size.
#[derive(Clone, Copy, Debug, Default)]
pub struct DpSize {
    /// T.
    pub slots: usize,
    /// H.
    pub workers: usize,
    /// K.
    pub ps: usize,
    /// Largest N_i + 1 among jobs that need the DP.
    pub points: usize,
    /// Largest D_i + 1 among jobs that need the DP.
    pub row: usize,
    /// Largest (T - a_i) (D_i + 1) among jobs that need the DP.
    pub cells: usize,
}

impl FastDp {
    /// Scratch for decisions of the given size (allocated here, never in a decision).
    pub fn new(size: DpSize) -> Self {
        let t = size.slots;
        FastDp {
            slots: t,
            wview: PoolView::new(t, size.workers),
            pview: PoolView::new(t, size.ps),
            tmp: vec![0; size.workers.max(size.ps)],
            wcap: vec![0; t],
            dcap: vec![0; t],
            future: vec![0; t + 1],
            pt_w: vec![0; size.points],
            pt_d: vec![0; size.points],
            pt_c: vec![0.0; size.points],
            f_prev: vec![f64::INFINITY; size.row],
            f_cur: vec![f64::INFINITY; size.row],
            choice: vec![NONE; size.cells],
            plan_w: vec![0; t],
            plan_d: vec![0; t],
            ytmp: vec![0; size.workers.max(size.ps)],
            out: vec![SlotAlloc::default(); t],
            out_len: 0,
            pairs_w: vec![[0, 0]; t * size.workers],
            pairs_p: vec![[0, 0]; t * size.ps],
            cells: 0,
        }
    }

    /// Does `job` need the DP at all, and how big is it? `None` when even the full capacity of
    /// an empty cluster cannot cover D_i before T (the job is rejected without a DP).
    pub fn size_of(m: &Market, job: &JobParams) -> Option<(usize, usize, usize)> {
        let window = m.slots().checked_sub(job.arrival)? as u64;
        let per_slot = job.chunks_for(job.max_workers as u64);
        if per_slot.saturating_mul(window) < job.workload {
            return None;
        }
        let row = usize::try_from(job.workload).ok()?.checked_add(1)?;
        let cells = row.checked_mul(window as usize)?;
        Some((job.max_workers as usize + 1, row, cells))
    }

    fn prepare_slot(&mut self, m: &Market, job: &JobParams, t: u32) {
        self.wview
            .prepare(&m.workers, t, &job.worker_demand, &mut self.tmp);
        self.pview.prepare(&m.ps, t, &job.ps_demand, &mut self.tmp);
        let wmax = (job.max_workers as u64).min(self.wview.total(t));
        let ps_total = self.pview.total(t);
        // Largest w <= wmax whose ceil(w b / B) parameter servers fit and are <= w (6, 7):
        // both conditions hold on a prefix of w, so bisect.
        let ok = |w: u64| {
            let z = job.ps_for(w);
            z <= w && z <= ps_total
        };
        let (mut lo, mut hi) = (0u64, wmax);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if ok(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        if let (Some(c), Some(d)) = (self.wcap.get_mut(t as usize), self.dcap.get_mut(t as usize)) {
            *c = lo;
            *d = job.chunks_for(lo);
        }
    }

    /// COST_t(t, w) for w workers (w within the slot's capacity).
    fn slot_cost(&self, t: u32, job: &JobParams, w: u64) -> f64 {
        self.wview.cost(t, w) + self.pview.cost(t, job.ps_for(w))
    }

    /// The choices of slot t: for each distinct chunk count, the fewest workers and their cost.
    fn points(&mut self, t: u32, job: &JobParams) -> usize {
        let cap = self.wcap.get(t as usize).copied().unwrap_or(0);
        let mut np = 0usize;
        let mut last_d = u64::MAX;
        let mut w = 0u64;
        while w <= cap && np < self.pt_w.len() {
            let d = job.chunks_for(w);
            if d != last_d {
                let c = self.slot_cost(t, job, w);
                self.pt_w[np] = w;
                self.pt_d[np] = d;
                self.pt_c[np] = c;
                np += 1;
                last_d = d;
                if d >= job.workload {
                    break;
                }
            }
            // jump to the fewest workers covering one more chunk
            let next = job.workers_for(d + 1).max(w + 1);
            w = next;
        }
        np
    }

    /// Alg. 2 for `job` (index `idx`) against the prices of `m`; the schedule stays in the
    /// scratch until the next call ([`Self::schedule`]). Allocates nothing.
    pub fn decide(
        &mut self,
        m: &Market,
        idx: u32,
        job: &JobParams,
        f: &Utility,
    ) -> Result<Decision, OasisError> {
        self.out_len = 0;
        self.cells = 0;
        let a = job.arrival;
        let t_end = m.slots();
        let d_all = job.workload;
        let mut dec = Decision {
            job: idx,
            arrival: a,
            admitted: false,
            reason: Reason::NoFeasibleSchedule,
            completion_slot: None,
            utility: 0.0,
            cost: 0.0,
            payoff: 0.0,
        };
        let Some((_, row, cells)) = FastDp::size_of(m, job) else {
            return Ok(dec);
        };
        if row > self.f_prev.len() || cells > self.choice.len() || t_end as usize > self.slots {
            return Err(OasisError::Capacity(crate::CapacityError {
                limit: crate::Limit::OasisDpCells,
                max: self.choice.len() as u64,
                got: cells as u64,
            }));
        }
        for t in a..t_end {
            self.prepare_slot(m, job, t);
        }
        // future[t] = chunks the slots after t can still cover
        let mut acc = 0u64;
        for t in (a..t_end).rev() {
            self.future[t as usize] = acc;
            acc = acc.saturating_add(self.dcap[t as usize]);
        }
        if acc < d_all {
            return Ok(dec);
        }
        let lb = self.lower_bound(m, job, a, t_end);
        // The first slot by which the workload can be covered at all (prefix capacity >= D).
        let mut reach = 0u64;
        let mut t_first = t_end;
        for t in a..t_end {
            reach = reach.saturating_add(self.dcap[t as usize]);
            if reach >= d_all {
                t_first = t;
                break;
            }
        }
        dec.reason = Reason::NonPositivePayoff;
        if !greater(f.at(t_first - a) - lb, 0.0) {
            return Ok(dec); // f_i only falls after t_first and every schedule costs >= lb
        }
        for x in self
            .f_prev
            .iter_mut()
            .take(row)
            .chain(self.f_cur.iter_mut().take(row))
        {
            *x = f64::INFINITY;
        }
        self.f_prev[0] = 0.0;
        self.f_cur[0] = 0.0;
        let mut hi_prev = 0u64;
        // Alg. 2 line 3: mu_i = 0, l* = none; a t_hat replaces it only with a larger payoff.
        let mut best = 0.0f64;
        let mut best_t = None;
        let mut best_cost = 0.0;
        for t in a..t_end {
            let util = f.at(t - a);
            if !greater(util - lb, best) {
                break; // no later t_hat can pay more: f_i only falls and cost >= lb
            }
            let np = self.points(t, job);
            let dcap = self.dcap[t as usize];
            let lo = d_all.saturating_sub(self.future[t as usize]);
            let hi = d_all.min(hi_prev.saturating_add(dcap));
            let base = (t - a) as usize * row;
            self.row(np, lo, hi, dcap, base);
            core::mem::swap(&mut self.f_prev, &mut self.f_cur);
            hi_prev = hi;
            let cost = self.f_prev[d_all as usize];
            if hi == d_all && cost.is_finite() {
                let payoff = util - cost;
                if greater(payoff, best) {
                    best = payoff;
                    best_t = Some(t);
                    best_cost = cost;
                    dec.utility = util;
                }
            }
        }
        let Some(tb) = best_t else {
            return Ok(dec);
        };
        dec.completion_slot = Some(tb);
        dec.cost = best_cost;
        dec.payoff = best;
        dec.admitted = true;
        dec.reason = Reason::Admitted;
        self.reconstruct(job, a, tb, row)?;
        Ok(dec)
    }

    /// One DP row: f_cur[x] = min_j c_j + f_prev[x - d_j] for x in lo..=hi (first strictly
    /// smaller wins, j in increasing workers).
    fn row(&mut self, np: usize, lo: u64, hi: u64, dcap: u64, base: usize) {
        let (pw, pd, pc) = (&self.pt_w[..np], &self.pt_d[..np], &self.pt_c[..np]);
        let fp = &self.f_prev;
        for x in lo..=hi {
            let xi = x as usize;
            let (mut best, mut bw) = (f64::INFINITY, NONE);
            // f_prev is non-decreasing in x, so no choice can beat c_j + f_prev[x - dcap].
            let floor = if x > dcap {
                fp[xi - dcap as usize]
            } else {
                0.0
            };
            for j in 0..np {
                let c = pc[j];
                if bw != NONE && !less(c + floor, best) {
                    break;
                }
                let dj = pd[j];
                let prev = if dj >= x { 0.0 } else { fp[xi - dj as usize] };
                if prev.is_finite() {
                    let cand = c + prev;
                    if less(cand, best) {
                        best = cand;
                        bw = pw[j] as u32;
                    }
                }
                if dj >= x {
                    break;
                }
            }
            self.f_cur[xi] = best;
            if let Some(ch) = self.choice.get_mut(base + xi) {
                *ch = bw;
            }
        }
        self.cells += hi.saturating_sub(lo) + 1;
    }

    /// A lower bound on any schedule's cost: at least D m_i worker-slots are needed (less the
    /// rounding slack) and each costs at least the cheapest unit price of a worker server with
    /// room in any slot of the window; likewise ceil(y b / B) parameter servers. The factor
    /// 0.999 keeps the bound strict against float noise.
    fn lower_bound(&self, m: &Market, job: &JobParams, a: u32, t_end: u32) -> f64 {
        let t = m.slots() as f64;
        let w = (job.workload as f64 * job.chunk_time - t * 1e-9).max(0.0);
        let z = (w * job.worker_bw / job.ps_bw - t * 1e-9).max(0.0);
        let cheapest = |v: &PoolView| {
            let mut c = f64::INFINITY;
            for ti in a as usize..t_end as usize {
                let b = ti * v.n;
                for s in 0..v.n {
                    if v.fit.get(b + s).copied().unwrap_or(0) > 0 {
                        c = c.min(v.unit.get(b + s).copied().unwrap_or(f64::INFINITY));
                    }
                }
            }
            if c.is_finite() {
                c
            } else {
                0.0
            }
        };
        let (cw, cp) = (cheapest(&self.wview), cheapest(&self.pview));
        let lw = if w > 0.0 { 0.999 * w * cw } else { 0.0 };
        let lp = if z > 0.0 { 0.999 * z * cp } else { 0.0 };
        lw + lp
    }

    fn reconstruct(
        &mut self,
        job: &JobParams,
        a: u32,
        tb: u32,
        row: usize,
    ) -> Result<(), OasisError> {
        let mut x = job.workload;
        for t in (a..=tb).rev() {
            let (w, d) = if x == 0 {
                (0, 0)
            } else {
                let ch = self
                    .choice
                    .get((t - a) as usize * row + x as usize)
                    .copied()
                    .unwrap_or(NONE);
                if ch == NONE {
                    return Err(OasisError::Internal);
                }
                let d = job.chunks_for(ch as u64).min(x);
                (ch as u64, d)
            };
            self.plan_w[t as usize] = w;
            self.plan_d[t as usize] = d;
            x -= d;
        }
        if x != 0 {
            return Err(OasisError::Internal);
        }
        let (mut nw, mut np) = (0usize, 0usize);
        for t in a..=tb {
            let w = self.plan_w[t as usize];
            if w == 0 {
                continue;
            }
            let z = job.ps_for(w);
            let mut s = SlotAlloc {
                slot: t,
                chunks: self.plan_d[t as usize],
                workers: w as u32,
                ps: z as u32,
                cost: self.slot_cost(t, job, w),
                w_from: nw as u32,
                p_from: np as u32,
                ..SlotAlloc::default()
            };
            let hn = self.wview.n;
            self.wview.fill(t, w, &mut self.ytmp[..hn]);
            for (h, &y) in self.ytmp[..hn].iter().enumerate() {
                if y > 0 {
                    *self.pairs_w.get_mut(nw).ok_or(OasisError::Internal)? = [h as u32, y];
                    nw += 1;
                }
            }
            let kn = self.pview.n;
            self.pview.fill(t, z, &mut self.ytmp[..kn]);
            for (k, &y) in self.ytmp[..kn].iter().enumerate() {
                if y > 0 {
                    *self.pairs_p.get_mut(np).ok_or(OasisError::Internal)? = [k as u32, y];
                    np += 1;
                }
            }
            s.w_to = nw as u32;
            s.p_to = np as u32;
            *self.out.get_mut(self.out_len).ok_or(OasisError::Internal)? = s;
            self.out_len += 1;
        }
        Ok(())
    }

    /// The schedule of the last decision (empty when none was feasible).
    pub fn schedule(&self) -> Schedule<'_> {
        Schedule {
            slots: &self.out[..self.out_len],
            pairs_w: &self.pairs_w,
            pairs_p: &self.pairs_p,
        }
    }
}

/// A borrowed view of a schedule l: per used slot, y_ih(t) and z_ik(t) (Alg. 2 output).
#[derive(Clone, Copy, Debug)]
pub struct Schedule<'a> {
    slots: &'a [SlotAlloc],
    pairs_w: &'a [[u32; 2]],
    pairs_p: &'a [[u32; 2]],
}

/// One slot t of a schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlotPlacement<'a> {
    /// t.
    pub slot: u32,
    /// D_i(t): chunks trained in t.
    pub chunks: u64,
    /// sum_h y_ih(t).
    pub workers: u32,
    /// sum_k z_ik(t).
    pub ps: u32,
    /// COST_t of this slot at decision time.
    pub cost: f64,
    /// `[h, y_ih(t)]` with y > 0, by server index.
    pub worker_pairs: &'a [[u32; 2]],
    /// `[k, z_ik(t)]` with z > 0, by server index.
    pub ps_pairs: &'a [[u32; 2]],
}

impl<'a> Schedule<'a> {
    /// Number of slots with workers.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when the schedule is empty.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The slots with workers, in time order.
    pub fn iter(&self) -> impl Iterator<Item = SlotPlacement<'a>> + 'a {
        let (pw, pp) = (self.pairs_w, self.pairs_p);
        self.slots.iter().map(move |s| SlotPlacement {
            slot: s.slot,
            chunks: s.chunks,
            workers: s.workers,
            ps: s.ps,
            cost: s.cost,
            worker_pairs: pw.get(s.w_from as usize..s.w_to as usize).unwrap_or(&[]),
            ps_pairs: pp.get(s.p_from as usize..s.p_to as usize).unwrap_or(&[]),
        })
    }
}
