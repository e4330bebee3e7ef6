//! Optimus and Optimus-LB (Section VI-A baselines, after Peng et al. 2018).
//!
//! Each job first takes its best free worker (jobs in index order), so no job starves (8b).
//! Then, K - S times, every job's marginal gain Lambda_i(now) - Lambda_i(with its best free
//! worker) is computed and the largest gain (ties: lower job index) gets that worker; gains
//! may be negative, since every worker is used (8c). Optimus splits data equally (the straggler
//! sets the pace); Optimus-LB uses the proportional workload of eq. (12).
use super::{records, PlacementError, Placer, RunSummary, Split};
use crate::log::LogSink;

/// Lambda(before) - Lambda(after), 0 when both are infinite.
pub fn gain(before: f64, after: f64) -> f64 {
    if before == after {
        0.0
    } else {
        before - after
    }
}

impl Placer {
    pub(crate) fn optimus<L: LogSink>(
        &mut self,
        split: Split,
        sink: &mut L,
    ) -> Result<RunSummary, PlacementError> {
        let (s, k) = (self.inst.s, self.inst.k);
        self.greedy_reset();
        let mut step = 0u32;
        for i in 0..s {
            if let Some(w) = self.best_free(i) {
                self.give(i, w);
                records::greedy(sink, step, i as u32, w, f64::INFINITY)?;
                step += 1;
            }
        }
        for _ in s..k {
            let mut pick: Option<(usize, u32, f64)> = None;
            for i in 0..s {
                let Some(w) = self.best_free(i) else { continue };
                let g = gain(
                    self.greedy_jct(i, split, None),
                    self.greedy_jct(i, split, Some(w)),
                );
                if pick.is_none_or(|(_, _, b)| g.total_cmp(&b).is_gt()) {
                    pick = Some((i, w, g));
                }
            }
            let Some((i, w, g)) = pick else { break };
            self.give(i, w);
            records::greedy(sink, step, i as u32, w, g)?;
            step += 1;
        }
        self.cur.evaluate(&self.inst, split);
        self.best.copy_from(&self.cur);
        Ok(RunSummary {
            examined: 1,
            ..RunSummary::default()
        })
    }
}
