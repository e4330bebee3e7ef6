//! Shared machinery of the greedy baselines (Optimus, Optimus-LB, LAS): per-job worker
//! preference lists (rho_ik descending, ties by lower worker index) and a cursor that skips
//! workers already handed out.
use super::{Instance, Placer, Split};
use alloc::vec::Vec;

/// S x K: job i's workers by descending rho_ik (ties: lower index). Built once.
pub fn preference_lists(inst: &Instance) -> Vec<u32> {
    let mut out = Vec::with_capacity(inst.s * inst.k);
    for i in 0..inst.s {
        let mut idx: Vec<u32> = (0..inst.k as u32).collect();
        crate::order::sort_indices_by(&mut idx, &|a, b| {
            inst.rho(i, b as usize)
                .total_cmp(&inst.rho(i, a as usize))
                .then(a.cmp(&b))
        });
        out.extend_from_slice(&idx);
    }
    out
}

impl Placer {
    pub(crate) fn greedy_reset(&mut self) {
        for x in self.taken.iter_mut() {
            *x = false;
        }
        for i in 0..self.inst.s {
            self.cursor[i] = 0;
            self.g_sum[i] = 0.0;
            self.g_min[i] = f64::INFINITY;
            self.g_spans[i] = false;
            self.cur.counts[i] = 0;
        }
    }

    /// Job i's best worker not yet handed out.
    pub(crate) fn best_free(&mut self, i: usize) -> Option<u32> {
        let k = self.inst.k;
        while (self.cursor[i] as usize) < k {
            let w = self.greedy[i * k + self.cursor[i] as usize];
            if !self.taken[w as usize] {
                return Some(w);
            }
            self.cursor[i] += 1;
        }
        None
    }

    /// Hands worker `w` to job `i`.
    pub(crate) fn give(&mut self, i: usize, w: u32) {
        let r = self.inst.rho(i, w as usize);
        let node = self.inst.node[w as usize];
        if self.cur.counts[i] == 0 {
            self.g_node[i] = node;
        } else if node != self.g_node[i] {
            self.g_spans[i] = true;
        }
        self.taken[w as usize] = true;
        self.cur.job_of[w as usize] = i as u32;
        self.cur.counts[i] += 1;
        self.g_sum[i] += r;
        self.g_min[i] = self.g_min[i].min(r);
    }

    /// Lambda_i of job i if it held its current workers plus `extra` (None: as is). During the
    /// greedy a ring spanning nodes runs at min(intra, inter); the final evaluation is exact.
    pub(crate) fn greedy_jct(&self, i: usize, split: Split, extra: Option<u32>) -> f64 {
        let inst = &self.inst;
        let (mut cnt, mut sum, mut min, mut spans) = (
            self.cur.counts[i],
            self.g_sum[i],
            self.g_min[i],
            self.g_spans[i],
        );
        if let Some(w) = extra {
            let r = inst.rho(i, w as usize);
            if cnt > 0 && inst.node[w as usize] != self.g_node[i] {
                spans = true;
            }
            cnt += 1;
            sum += r;
            min = min.min(r);
        }
        if cnt == 0 {
            return f64::INFINITY;
        }
        let v = match split {
            Split::Proportional => sum,
            Split::Equal => f64::from(cnt) * min,
        };
        if v <= 0.0 {
            return f64::INFINITY;
        }
        let comm = if inst.include_comm && cnt > 1 {
            let r = if spans {
                inst.intra.min(inst.inter)
            } else {
                inst.intra
            };
            let kf = f64::from(cnt);
            2.0 * (kf - 1.0) * inst.model_bytes[i] / (r * kf)
        } else {
            0.0
        };
        inst.epochs[i] * (inst.samples[i] / v + comm)
    }
}
