//! One slot's choices for the DP ([`FastDp::points`]: for each distinct chunk count, the
//! fewest workers and their cost) and one DP row over them ([`FastDp::row`]), each cell the
//! literal scan's result ([`best_choice_literal`]) computed [`LANES`] choices at a time.
use super::dp::FastDp;
use crate::index::NONE;
use crate::num::{less, less_bound};
use crate::oasis::market::JobParams;

impl FastDp {
    /// The choices of the listed slot: for each distinct chunk count, the fewest workers and
    /// their cost.
    pub(super) fn points(&mut self, job: &JobParams, cap: u64) -> usize {
        let mut np = 0usize;
        let mut last_d = u64::MAX;
        let mut w = 0u64;
        while w <= cap && np < self.pt_w.len() {
            let d = job.chunks_for(w);
            if d != last_d {
                let c = self.slot_cost(job, w);
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

    /// One DP row: f_cur[x] = min_j c_j + f_prev[x - d_j] for x in lo..=hi (first strictly
    /// smaller wins, j in increasing workers).
    pub(super) fn row(&mut self, np: usize, lo: u64, hi: u64, dcap: u64, base: usize) {
        let (pw, pd, pc) = (&self.pt_w[..np], &self.pt_d[..np], &self.pt_c[..np]);
        let fp = &self.f_prev;
        // the choices' chunk counts rise strictly (`points`), so those below x are a prefix
        // of them; checked, else every cell takes the literal scan
        let rising = pd.windows(2).all(|w| w[0] < w[1]);
        let mut below = 0usize; // choices with d_j < x
        for x in lo..=hi {
            let xi = x as usize;
            // f_prev is non-decreasing in x, so no choice can beat c_j + f_prev[x - dcap].
            let floor = if x > dcap {
                fp[xi - dcap as usize]
            } else {
                0.0
            };
            let (best, bw) = if rising {
                while below < np && pd[below] < x {
                    below += 1;
                }
                best_choice(pc, pd, fp, xi, floor, below)
            } else {
                best_choice_literal(pc, pd, fp, xi, floor)
            };
            self.f_cur[xi] = best;
            if let Some(ch) = self.choice.get_mut(base + xi) {
                *ch = pw.get(bw).map_or(NONE, |&w| w as u32);
            }
        }
        self.cells += (hi + 1).saturating_sub(lo);
    }
}

/// Choices compared at once by [`best_choice`].
const LANES: usize = 4;

/// The DP cell x of one row as the literal scan computes it ([`best_choice_literal`]): over
/// the choices j = 0, 1, ... in order, the candidate c_j + f_prev[x - d_j] (0 for f_prev once
/// d_j >= x, which ends the scan) replaces the best so far when `less` than it; the scan stops
/// at the first j, once a best exists, whose c_j + `floor` is not `less` than it. Returns the
/// best and its choice (`usize::MAX`: none). `below`: the choices with d_j < x, a prefix.
///
/// Same result, fewer branches: the choices with d_j < x go by [`LANES`] at once. A group none
/// of whose candidates is below the best's bound ([`less_bound`]) changes nothing (the literal
/// scan would replace nothing there either), and the scan ends after it when any of its
/// choices meets the stop test (the literal scan stops at the first of them, having replaced
/// nothing since). Only a group holding a smaller candidate is replayed one by one, literally.
fn best_choice(
    pc: &[f64],
    pd: &[u64],
    fp: &[f64],
    x: usize,
    floor: f64,
    below: usize,
) -> (f64, usize) {
    let (mut best, mut bound, mut bj) = (f64::INFINITY, f64::INFINITY, usize::MAX);
    let mut j = 0usize;
    while j + LANES <= below {
        let (c, d) = (&pc[j..j + LANES], &pd[j..j + LANES]);
        let mut cand = [0.0f64; LANES];
        for l in 0..LANES {
            cand[l] = c[l] + fp[x - d[l] as usize];
        }
        let (mut hit, mut stop) = (false, false);
        for l in 0..LANES {
            hit |= cand[l] < bound;
            stop |= !under(c[l] + floor, bound);
        }
        if hit {
            for l in 0..LANES {
                if bj != usize::MAX && !under(c[l] + floor, bound) {
                    return (best, bj);
                }
                if cand[l] < bound {
                    best = cand[l];
                    bound = less_bound(best);
                    bj = j + l;
                }
            }
        } else if stop && bj != usize::MAX {
            return (best, bj);
        }
        j += LANES;
    }
    // the rest one by one: d_j < x reads f_prev, the first d_j >= x reads 0 and ends the scan
    while let (Some(&c), Some(&dj)) = (pc.get(j), pd.get(j)) {
        if bj != usize::MAX && !under(c + floor, bound) {
            break;
        }
        let prev = if j >= below { 0.0 } else { fp[x - dj as usize] };
        let cand = c + prev;
        if prev.is_finite() && cand < bound {
            best = cand;
            bound = less_bound(best);
            bj = j;
        }
        if j >= below {
            break;
        }
        j += 1;
    }
    (best, bj)
}

/// `a < bound`: with `bound` = [`less_bound`]`(b)`, exactly `less(a, b)` (a NaN is never under).
#[inline]
fn under(a: f64, bound: f64) -> bool {
    a < bound
}

/// The literal scan of [`best_choice`], for choices whose chunk counts do not rise.
fn best_choice_literal(pc: &[f64], pd: &[u64], fp: &[f64], x: usize, floor: f64) -> (f64, usize) {
    let x64 = x as u64;
    let (mut best, mut bj) = (f64::INFINITY, usize::MAX);
    for (j, (&c, &dj)) in pc.iter().zip(pd).enumerate() {
        if bj != usize::MAX && !less(c + floor, best) {
            break;
        }
        let prev = if dj >= x64 { 0.0 } else { fp[x - dj as usize] };
        if prev.is_finite() {
            let cand = c + prev;
            if less(cand, best) {
                best = cand;
                bj = j;
            }
        }
        if dj >= x64 {
            break;
        }
    }
    (best, bj)
}
