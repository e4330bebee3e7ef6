//! HAS (Algorithm 2, lines 1-19): every category of Algorithm 1 in order, each solved by the
//! market (or, for method `exact`, by the exact solver); the least average JCT wins (ties: the
//! first category in order).
use super::{category, records, CategoryReport, PlacementError, Placer, RunSummary, Solver};
use crate::limits::{self, PLACEMENT_CATEGORIES_MAX};
use crate::log::LogSink;
use crate::num::less;
use crate::Limit;

impl Placer {
    /// HAS with `solver` per category.
    pub(crate) fn has<L: LogSink, F: FnMut(&CategoryReport<'_>)>(
        &mut self,
        solver: Solver,
        sink: &mut L,
        observe: &mut F,
    ) -> Result<RunSummary, PlacementError> {
        let (s, k) = (self.inst.s as u32, self.inst.k as u32);
        let count = category::count(k, s)?;
        limits::check(
            Limit::PlacementCategories,
            usize::try_from(count).unwrap_or(usize::MAX),
            PLACEMENT_CATEGORIES_MAX,
        )?;
        let mut sum = RunSummary {
            category_count: count,
            ..RunSummary::default()
        };
        category::first(k, &mut self.cat);
        for index in 0..count {
            let (m, fallback) = self.eval_category(solver);
            tally(&mut sum, m, fallback);
            records::category(sink, index, index, &self.cur, m, fallback)?;
            observe(&CategoryReport {
                index,
                rank: index,
                assignment: &self.cur,
                market: m,
                fallback,
            });
            if sum.best_rank.is_none() || less(self.cur.avg_jct, self.best.avg_jct) {
                self.best.copy_from(&self.cur);
                sum.best_rank = Some(index);
            }
            if !category::next(k, &mut self.cat) {
                break;
            }
        }
        sum.examined = count;
        Ok(sum)
    }
}

/// Adds one market run to the summary's counters.
pub(crate) fn tally(sum: &mut RunSummary, m: Option<super::MarketOutcome>, fallback: bool) {
    if let Some(m) = m {
        sum.market_rounds += u64::from(m.rounds);
        sum.market_rounds_max = sum.market_rounds_max.max(m.rounds);
        sum.market_unit_rounds = sum.market_unit_rounds.saturating_add(m.unit_rounds);
    }
    if fallback {
        sum.market_fallbacks += 1;
    }
}
