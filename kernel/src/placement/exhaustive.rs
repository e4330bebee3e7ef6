//! Exhaustive search (Section VI-A's lower bound): every assignment of the K workers to the S
//! jobs with each job at least one worker, proportional workload (eq. 12), least average JCT
//! (ties: the first in odometer order, worker 0 the fastest digit). S^K assignments are walked,
//! so inputs above [`crate::limits::PLACEMENT_EXHAUSTIVE_MAX`] are refused with the count.
use super::{records, PlacementError, Placer, RunSummary, Split};
use crate::limits::PLACEMENT_EXHAUSTIVE_MAX;
use crate::log::LogSink;
use crate::num::less;

/// S^K, saturated at `u64::MAX`.
pub fn assignments(s: usize, k: usize) -> u64 {
    let mut n: u64 = 1;
    for _ in 0..k {
        n = n.saturating_mul(s as u64);
    }
    n
}

impl Placer {
    pub(crate) fn exhaustive<L: LogSink>(
        &mut self,
        sink: &mut L,
    ) -> Result<RunSummary, PlacementError> {
        let (s, k) = (self.inst.s, self.inst.k);
        let total = assignments(s, k);
        if total > PLACEMENT_EXHAUSTIVE_MAX as u64 {
            return Err(PlacementError::ExhaustiveTooLarge {
                jobs: s as u32,
                workers: k as u32,
                assignments: total,
                max: PLACEMENT_EXHAUSTIVE_MAX as u64,
            });
        }
        for x in self.cur.job_of.iter_mut() {
            *x = 0;
        }
        let mut sum = RunSummary::default();
        let mut found = false;
        for number in 0..total {
            self.cur.evaluate(&self.inst, Split::Proportional);
            if self.cur.counts.iter().all(|&c| c > 0) {
                sum.examined += 1;
                if !found || less(self.cur.avg_jct, self.best.avg_jct) {
                    self.best.copy_from(&self.cur);
                    found = true;
                    records::exhaustive(sink, number, self.cur.avg_jct)?;
                }
            }
            // Odometer step, worker 0 fastest.
            for d in self.cur.job_of.iter_mut() {
                *d += 1;
                if (*d as usize) < s {
                    break;
                }
                *d = 0;
            }
        }
        Ok(sum)
    }
}
