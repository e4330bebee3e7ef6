//! The chosen schedule: rebuilt from the choice table and each row's saved lists
//! ([`FastDp::reconstruct`]), the greedy fills as (server, count) pairs ([`FastDp::fill`]),
//! and the borrowed view [`Schedule`] of [`SlotPlacement`]s.
use super::dp::FastDp;
use super::sweep::Sweep;
use crate::index::NONE;
use crate::oasis::market::JobParams;
use crate::oasis::OasisError;

/// One slot of the chosen schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct SlotAlloc {
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

impl FastDp {
    pub(super) fn reconstruct(
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
            // the lists the DP row of t was priced with (they cover Wcap(t) >= w workers)
            let r = (t - a) as usize;
            let lw = self.list_w.get(self.row_w[r]..self.row_w[r + 1]);
            let lp = self.list_p.get(self.row_p[r]..self.row_p[r + 1]);
            let (Some(lw), Some(lp)) = (lw, lp) else {
                return Err(OasisError::Internal);
            };
            self.wsw.restore(lw);
            self.psw.restore(lp);
            let mut s = SlotAlloc {
                slot: t,
                chunks: self.plan_d[t as usize],
                workers: w as u32,
                ps: z as u32,
                cost: self.slot_cost(job, w),
                w_from: nw as u32,
                p_from: np as u32,
                ..SlotAlloc::default()
            };
            nw = Self::fill(&self.wsw, w, &mut self.pairs_w, nw)?;
            np = Self::fill(&self.psw, z, &mut self.pairs_p, np)?;
            s.w_to = nw as u32;
            s.p_to = np as u32;
            *self.out.get_mut(self.out_len).ok_or(OasisError::Internal)? = s;
            self.out_len += 1;
        }
        Ok(())
    }

    /// The greedy fill of `count` instances over the listed servers (Alg. 2 lines 27-31 /
    /// 36-40) as `[server, count]` pairs by server index, appended at `at`.
    fn fill(
        sw: &Sweep,
        count: u64,
        pairs: &mut [[u32; 2]],
        at: usize,
    ) -> Result<usize, OasisError> {
        let mut left = count;
        let mut n = at;
        for i in 0..sw.k {
            if left == 0 {
                break;
            }
            let s = sw.ls[i];
            let take = (sw.fit[s as usize] as u64).min(left);
            if take > 0 {
                *pairs.get_mut(n).ok_or(OasisError::Internal)? = [s, take as u32];
                n += 1;
            }
            left -= take;
        }
        if left != 0 {
            return Err(OasisError::Internal);
        }
        pairs
            .get_mut(at..n)
            .ok_or(OasisError::Internal)?
            .sort_unstable_by_key(|p| p[0]);
        Ok(n)
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
