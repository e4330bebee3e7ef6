//! JPS (Algorithm 3): job prioritising, sampling, and the JCT/fairness trade-off of eq. (34).
//!
//! 1. Jobs are sorted by T_i abs(Pi_i) / (S sum_k rho_ik) ascending (ties: lower index); position
//!    p of a category belongs to the p-th job of that order, so the rear of Psi gives the
//!    heaviest jobs the most workers.
//! 2. N distinct indices are drawn uniformly from [floor(alpha abs(Psi)), abs(Psi)) with the
//!    scenario's SplitMix64 (Floyd's algorithm; all of them when N covers the window).
//! 3. Each sample is unranked, mapped back to the input job order and solved by the market
//!    exactly like HAS (so JPS with N = abs(Psi), alpha = 0, beta = 1 is HAS).
//! 4. The sample maximising beta min Lambda / Lambda_n + (1 - beta) F_n wins; ties (1e-12
//!    relative) go to the smaller rank in Algorithm 1's order over the input job order.
use super::has::tally;
use super::{category, records, CategoryReport, PlacementError, Placer, RunSummary, Solver};
use crate::limits::{self, PLACEMENT_CATEGORIES_MAX, PLACEMENT_JPS_SAMPLES_MAX};
use crate::log::LogSink;
use crate::num::greater;
use crate::rng::SplitMix64;
use crate::Limit;

impl Placer {
    /// The job priority keys T_i abs(Pi_i) / (S sum_k rho_ik) (Algorithm 3, line 1).
    pub fn jps_priority_key(&self, i: usize) -> f64 {
        let inst = &self.inst;
        let total: f64 = (0..inst.k).map(|k| inst.rho(i, k)).sum();
        inst.epochs[i] * inst.samples[i] / (inst.s as f64 * total)
    }

    /// The prioritised job order (position p -> job).
    pub fn jps_order(&self) -> &[u32] {
        &self.prio
    }

    fn prioritise(&mut self) {
        let s = self.inst.s;
        // Insertion sort by key ascending, ties by index (S <= 64).
        for (p, x) in self.prio.iter_mut().enumerate() {
            *x = p as u32;
        }
        for a in 1..s {
            let cur = self.prio[a];
            let kc = self.jps_priority_key(cur as usize);
            let mut b = a;
            while b > 0 {
                let prev = self.prio[b - 1];
                let kp = self.jps_priority_key(prev as usize);
                if kc.total_cmp(&kp).then(cur.cmp(&prev)).is_lt() {
                    self.prio[b] = prev;
                    b -= 1;
                } else {
                    break;
                }
            }
            self.prio[b] = cur;
        }
    }

    /// Draws the sampled window offsets into `picks[..n]`, ascending.
    fn sample(&mut self, range: u64, n: usize) {
        if n as u64 >= range {
            for (t, x) in self.picks[..n].iter_mut().enumerate() {
                *x = t as u64;
            }
            return;
        }
        // Floyd: for j in range-n..range, take t = below(j+1), or j if t is already taken.
        let mut rng = SplitMix64::new(self.seed);
        for (len, j) in ((range - n as u64)..range).enumerate() {
            let t = rng.below(j + 1);
            let v = match self.picks[..len].binary_search(&t) {
                Ok(_) => j,
                Err(_) => t,
            };
            let at = self.picks[..len].binary_search(&v).unwrap_or_else(|e| e);
            self.picks.copy_within(at..len, at + 1);
            self.picks[at] = v;
        }
    }

    pub(crate) fn jps<L: LogSink, F: FnMut(&CategoryReport<'_>)>(
        &mut self,
        solver: Solver,
        sink: &mut L,
        observe: &mut F,
    ) -> Result<RunSummary, PlacementError> {
        let (s, k) = (self.inst.s as u32, self.inst.k as u32);
        let count = category::count(k, s)?;
        let from = (libm::floor(self.jps.alpha * count as f64) as u64).min(count - 1);
        let range = count - from;
        let n64 = u64::from(self.jps.samples).min(range);
        if n64 < range {
            limits::check(
                Limit::PlacementJpsSamples,
                n64 as usize,
                PLACEMENT_JPS_SAMPLES_MAX,
            )?;
        } else {
            limits::check(
                Limit::PlacementCategories,
                usize::try_from(n64).unwrap_or(usize::MAX),
                PLACEMENT_CATEGORIES_MAX,
            )?;
        }
        let n = n64 as usize;
        if n > self.picks.len() {
            return Err(PlacementError::Capacity(crate::CapacityError {
                limit: Limit::PlacementJpsSamples,
                max: self.picks.len() as u64,
                got: n64,
                job: None,
            }));
        }
        self.prioritise();
        self.sample(range, n);
        records::jps(sink, from, count, n64)?;
        let mut sum = RunSummary {
            category_count: count,
            jps_from: from,
            examined: n64,
            ..RunSummary::default()
        };
        for e in 0..n {
            let index = from + self.picks[e];
            category::unrank(k, index, &mut self.pcat)?;
            for p in 0..self.inst.s {
                self.cat[self.prio[p] as usize] = self.pcat[p];
            }
            let rank = category::rank(k, &self.cat);
            let (m, fallback) = self.eval_category(solver);
            tally(&mut sum, m, fallback);
            records::category(sink, index, rank, &self.cur, m, fallback)?;
            observe(&CategoryReport {
                index,
                rank,
                assignment: &self.cur,
                market: m,
                fallback,
            });
            self.evals[e] = (rank, self.cur.avg_jct, self.cur.fairness);
        }
        let chosen = self.select(n);
        sum.best_rank = Some(chosen);
        category::unrank(k, chosen, &mut self.cat)?;
        // Re-evaluating the winner is not a sampled category: keep it out of the counters.
        let stats = self.transfer.stats;
        self.eval_category(solver);
        self.transfer.stats = stats;
        self.best.copy_from(&self.cur);
        Ok(sum)
    }

    /// eq. (34) over `evals[..n]`, walked in rank order; returns the chosen rank.
    fn select(&mut self, n: usize) -> u64 {
        let beta = self.jps.beta;
        let min = self.evals[..n]
            .iter()
            .map(|e| e.1)
            .fold(f64::INFINITY, f64::min);
        self.sort_evals_by_rank(n);
        let mut best: Option<(u64, f64)> = None;
        for x in 0..n {
            let (rank, l, f) = self.evals[self.eval_ord[x] as usize];
            let ratio = if l.is_finite() {
                min / l
            } else if min.is_finite() {
                0.0
            } else {
                1.0
            };
            let score = beta * ratio + (1.0 - beta) * f;
            match best {
                Some((_, b)) if !greater(score, b) => {}
                _ => best = Some((rank, score)),
            }
        }
        best.map_or(0, |b| b.0)
    }

    fn sort_evals_by_rank(&mut self, n: usize) {
        for (x, o) in self.eval_ord[..n].iter_mut().enumerate() {
            *o = x as u32;
        }
        // `picks` is free once every sample is evaluated: reuse it for the u64 rank keys.
        for x in 0..n {
            self.picks[x] = self.evals[x].0;
        }
        merge_sort_by_u64(
            &mut self.eval_ord[..n],
            &self.picks[..n],
            &mut self.eval_scratch[..n],
        );
    }
}

/// Stable bottom-up merge sort of `idx` by `keys[idx]` (u64), ties by index.
fn merge_sort_by_u64(idx: &mut [u32], keys: &[u64], scratch: &mut [u32]) {
    let n = idx.len();
    let mut width = 1;
    let mut in_idx = true;
    while width < n {
        {
            let (src, dst): (&[u32], &mut [u32]) = if in_idx {
                (&*idx, &mut *scratch)
            } else {
                (&*scratch, &mut *idx)
            };
            let mut start = 0;
            while start < n {
                let mid = (start + width).min(n);
                let end = (start + 2 * width).min(n);
                let (mut i, mut j, mut o) = (start, mid, start);
                while i < mid && j < end {
                    let (a, b) = (src[i], src[j]);
                    if (keys[b as usize], b) < (keys[a as usize], a) {
                        dst[o] = b;
                        j += 1;
                    } else {
                        dst[o] = a;
                        i += 1;
                    }
                    o += 1;
                }
                while i < mid {
                    dst[o] = src[i];
                    i += 1;
                    o += 1;
                }
                while j < end {
                    dst[o] = src[j];
                    j += 1;
                    o += 1;
                }
                start = end;
            }
        }
        in_idx = !in_idx;
        width *= 2;
    }
    if !in_idx {
        idx.copy_from_slice(scratch);
    }
}
