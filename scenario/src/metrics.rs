//! What a kind's results measure, as the reports show them: one [`Metrics`] per kind, declared
//! in the kind's folder (`kinds/<kind>/mod.rs`, `METRICS`) and found by [`of`].
//!
//! `mlsched compare`'s table, CSV, plots and HTML page read it instead of matching on the kind,
//! so a new kind says here what its results mean (an objective, completions, counters of its
//! own) and every report follows.

/// What the results of one kind measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Metrics {
    /// The unit of a job completion time: `"slots"`, or `"s"` where the kind computes JCT in
    /// seconds (placement).
    pub jct_unit: &'static str,
    /// The same unit written out (`"slots"`, `"seconds"`), for prose.
    pub jct_unit_long: &'static str,
    /// Jobs run over slots and finish: a finished count, the makespan, JCTs in seconds (with a
    /// slot length) and the JCT CDF mean something.
    pub completions: bool,
    /// Jobs have a completion time: unfinished counts and JCT statistics mean something (not for
    /// route, which reports routes).
    pub jct: bool,
    /// The weighted mean JCT means something (a weight per job: f_i(0), w_j).
    pub weighted_jct: bool,
    /// Mean utilisation per resource type is measured (`compare`'s usage pools).
    pub utilisation: bool,
    /// The paper's objective, summed over the run, if the kind has one.
    pub objective: Option<Objective>,
    /// Counters of the kind's own, read from the summary's extra values (table columns).
    pub counters: &'static [Counter],
    /// Per-policy bar plots of those counters.
    pub counter_plots: &'static [CounterPlot],
    /// Views only this kind has.
    pub views: &'static [View],
}

/// A paper's objective over a whole run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    /// OASiS: the total utility, sum of f_i (higher is better).
    TotalUtility,
    /// Zhou et al.: the total weighted completion time, sum of w_j (t_j + d_j) (lower is better).
    TotalWeightedCompletionTime,
}

impl Objective {
    /// The table column's header.
    pub fn column(self) -> &'static str {
        match self {
            Self::TotalUtility => "utility",
            Self::TotalWeightedCompletionTime => "w.compl.time",
        }
    }

    /// The plot's file, title and y axis.
    pub fn plot(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Self::TotalUtility => (
                "utility.svg",
                "Total utility per policy (higher is better)",
                "total utility, sum of f_i (utility units)",
            ),
            Self::TotalWeightedCompletionTime => (
                "weighted_completion_time.svg",
                "Total weighted completion time of the jobs each policy scheduled",
                "sum of w_j (t_j + d_j) (weight x slots)",
            ),
        }
    }
}

/// A counter of the kind's summary shown as a table column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Counter {
    /// The column's header.
    pub header: &'static str,
    /// The key of the value in the summary's extra values.
    pub key: &'static str,
    /// The factor the value is shown multiplied by (100 for a percentage).
    pub scale: f64,
    /// Decimals shown.
    pub decimals: usize,
}

/// A per-policy bar plot of one counter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CounterPlot {
    /// The SVG file's name.
    pub file: &'static str,
    /// The plot's title.
    pub title: &'static str,
    /// The y axis.
    pub y: &'static str,
    /// The key of the value in the summary's extra values.
    pub key: &'static str,
    /// The factor the value is plotted multiplied by.
    pub scale: f64,
}

/// A view of the reports only some kinds have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// Placement: the placement plots and the choice of placer (HAS vs JPS).
    Placement,
    /// Preempt: the queue of chunks per worker.
    WorkerQueues,
}

/// What a kind with no metric of its own shows (an unknown kind's reports).
pub const NONE: Metrics = Metrics {
    jct_unit: "slots",
    jct_unit_long: "slots",
    completions: false,
    jct: false,
    weighted_jct: false,
    utilisation: false,
    objective: None,
    counters: &[],
    counter_plots: &[],
    views: &[],
};

/// Every kind's metrics, in `crate::doc::KINDS` order.
const ALL: [(&str, &Metrics); 5] = [
    ("oasis", &crate::kinds::oasis::METRICS),
    ("online", &crate::kinds::online::METRICS),
    ("placement", &crate::kinds::placement::METRICS),
    ("preempt", &crate::kinds::preempt::METRICS),
    ("route", &crate::kinds::route::METRICS),
];

/// The metrics of `kind` ([`NONE`] for a kind this build does not know).
pub fn of(kind: &str) -> &'static Metrics {
    ALL.iter()
        .find(|(k, _)| *k == kind)
        .map_or(&NONE, |(_, m)| m)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_kind_has_its_metrics_in_kinds_order() {
        let kinds: Vec<&str> = super::ALL.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, crate::doc::KINDS);
        assert_eq!(super::of("nope"), &super::NONE);
    }
}
