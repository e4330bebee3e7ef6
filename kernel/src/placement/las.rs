//! LAS (least attained service, Tiresias; Section IV-A's motivating baseline).
//!
//! V_i^Equal = sum_k rho_ik / S is job i's throughput with an equal 1/S share of every worker.
//! Workers are handed out one at a time: a job without a worker first (lowest index), otherwise
//! the job with the least attained service sum_k sigma_ik rho_ik / V_i^Equal (ties: lower index)
//! takes its best free worker. This max-min heuristic reproduces the paper's LAS placement
//! (ResNet-18: {T4, V100}, VGG-19: {T4, V100}; 12,776.8 s) and data is then split
//! proportionally (eq. 12), as the paper does.
use super::{records, PlacementError, Placer, RunSummary, Split};
use crate::log::LogSink;

impl Placer {
    /// V_i^Equal.
    pub fn las_equal_share(&self, i: usize) -> f64 {
        let inst = &self.inst;
        (0..inst.k).map(|k| inst.rho(i, k)).sum::<f64>() / inst.s as f64
    }

    pub(crate) fn las<L: LogSink>(&mut self, sink: &mut L) -> Result<RunSummary, PlacementError> {
        let (s, k) = (self.inst.s, self.inst.k);
        self.greedy_reset();
        for step in 0..k {
            let mut pick: Option<(usize, f64)> = None;
            for i in 0..s {
                if self.best_free(i).is_none() {
                    continue;
                }
                // Jobs without a worker come first (key -1 < any service).
                let key = if self.cur.counts[i] == 0 {
                    -1.0
                } else {
                    self.g_sum[i] / self.las_equal_share(i)
                };
                if pick.is_none_or(|(_, b)| key.total_cmp(&b).is_lt()) {
                    pick = Some((i, key));
                }
            }
            let Some((i, key)) = pick else { break };
            let Some(w) = self.best_free(i) else { break };
            self.give(i, w);
            records::greedy(sink, step as u32, i as u32, w, key)?;
        }
        self.cur.evaluate(&self.inst, Split::Proportional);
        self.best.copy_from(&self.cur);
        Ok(RunSummary {
            examined: 1,
            ..RunSummary::default()
        })
    }
}
