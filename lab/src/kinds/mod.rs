//! What the lab knows of each scenario kind beyond the document layer: one file per kind, one
//! trait ([`LabKind`]), and the entry points below, the only place the lab reaches a kind's own
//! documents (through [`mlsched_scenario::dispatch!`], never a match on the kind).
//!
//! | file | kind | what it adds |
//! |---|---|---|
//! | `oasis.rs` | `oasis` | compare's numbers (utility, restarts, Dorm's search), worker + PS pools, the per-job table of `mlsched run` |
//! | `online.rs` | `online` | compare's numbers (weighted completion time), the one server pool, the per-job table |
//! | `placement.rs` | `placement` | JCTs in seconds, the per-job and per-category plots |
//! | `preempt.rs` | `preempt` | preemptions and cloud chunks, the queue of chunks per worker |
//! | `route.rs` | `route` | cost and deadline counters |
//!
//! What a kind's results measure (units, objective, counters, views) is the document layer's
//! [`mlsched_scenario::metrics`] (`Kind::metrics`); the importers' per-kind facts are
//! `crate::import`'s table, the generators' `crate::gen`'s.
use crate::compare::usage::Usage;
use crate::compare::{Metrics, PlotData};
use mlsched_scenario::doc::ScenarioDoc;
use mlsched_scenario::engine::Kind;
use mlsched_scenario::run::ResultDoc;

mod oasis;
mod online;
mod placement;
mod preempt;
mod route;

/// A finished job as compare counts it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Finished {
    /// Its weight in the weighted JCT: f_i(0) (oasis), w_j (online), 1 (other kinds).
    pub weight: f64,
    /// Its completion time, in the kind's JCT unit (`Metrics::jct_unit`).
    pub jct: f64,
    /// The slot its run ends (0 for kind placement, which has no slots): the makespan's input.
    pub end: u32,
}

/// What a kind's result gives compare beyond [`Metrics`]: its finished jobs, the GPU share per
/// slot and the data of the kind's own plots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measured {
    /// Finished jobs, input order.
    pub finished: Vec<Finished>,
    /// GPU utilisation per slot (0..T), kinds with server pools.
    pub utilisation: Vec<f64>,
    /// The kind's plot data.
    pub plot: PlotData,
}

/// The size of a scenario as the scale measurements report it (`benches/src/bin/scale.rs`,
/// `docs/scale.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The kind, with its variant where it has one (`online-ps`, `online-ring`).
    pub label: String,
    /// Worker (GPU) servers.
    pub servers: usize,
    /// Jobs.
    pub jobs: usize,
    /// The horizon T in slots.
    pub slots: u64,
}

/// The lab's side of one kind, implemented for the document layer's kind types.
pub trait LabKind: Kind {
    /// Fills compare's numbers of one result: `m`'s admitted count, objective and counters
    /// (the policy, job count and log hash are the caller's), and `out`'s finished jobs and
    /// plot data.
    fn measure(d: &Self::Doc, r: &Self::Result, m: &mut Metrics, out: &mut Measured);

    /// Resource use per server pool (kinds with pools; `None` for the others): compare's mean
    /// utilisation and the import's binding-resource check.
    fn usage(_d: &Self::Doc, _r: &Self::Result) -> Option<Usage> {
        None
    }

    /// What compare adds after the timed run of `policy` (placement: the categories plot).
    fn after_run(_doc: &ScenarioDoc, _r: &Self::Result, _policy: &str, _plot: &mut PlotData) {}

    /// The cluster in a few words, for the report's header ("8 worker + 2 PS servers").
    fn cluster(d: &Self::Doc) -> String;

    /// The horizon T in slots (kinds with slots).
    fn slots(_d: &Self::Doc) -> Option<f64> {
        None
    }

    /// Seconds per slot, when the scenario records it (`slot_seconds`).
    fn slot_seconds(_d: &Self::Doc) -> Option<f64> {
        None
    }

    /// The scenario's size for the scale measurements (`None`: a kind they do not measure).
    fn shape(_d: &Self::Doc) -> Option<Shape> {
        None
    }

    /// The text `mlsched run` prints for a result: the kind's summary, with a table per job
    /// where the kind has one.
    #[cfg(feature = "reports")]
    fn run_text(r: &Self::Result) -> String {
        Self::summary_text(r)
    }
}

/// [`LabKind::measure`] of `r` on `doc`; `false` when `r` is a result of another kind.
pub fn measure(doc: &ScenarioDoc, r: &ResultDoc, m: &mut Metrics, out: &mut Measured) -> bool {
    mlsched_scenario::dispatch!(doc, d, K => match K::result_of(r) {
        Some(res) => {
            K::measure(d, res, m, out);
            true
        }
        None => false,
    })
}

/// [`LabKind::usage`] of `r` on `doc` (`None`: a kind without server pools, or another kind's
/// result).
pub fn usage(doc: &ScenarioDoc, r: &ResultDoc) -> Option<Usage> {
    mlsched_scenario::dispatch!(doc, d, K => K::result_of(r).and_then(|res| K::usage(d, res)))
}

/// [`LabKind::after_run`] of `r` on `doc`.
pub fn after_run(doc: &ScenarioDoc, r: &ResultDoc, policy: &str, plot: &mut PlotData) {
    mlsched_scenario::dispatch!(doc, _d, K => if let Some(res) = K::result_of(r) {
        K::after_run(doc, res, policy, plot)
    })
}

/// [`LabKind::cluster`] and [`LabKind::slots`] of `doc`.
pub fn cluster(doc: &ScenarioDoc) -> (String, Option<f64>) {
    mlsched_scenario::dispatch!(doc, d, K => (K::cluster(d), K::slots(d)))
}

/// [`LabKind::slot_seconds`] of `doc`.
pub fn slot_seconds(doc: &ScenarioDoc) -> Option<f64> {
    mlsched_scenario::dispatch!(doc, d, K => K::slot_seconds(d))
}

/// [`LabKind::shape`] of `doc`.
pub fn shape(doc: &ScenarioDoc) -> Option<Shape> {
    mlsched_scenario::dispatch!(doc, d, K => K::shape(d))
}

/// [`LabKind::run_text`] of `r`.
#[cfg(feature = "reports")]
pub fn run_text(r: &ResultDoc) -> String {
    mlsched_scenario::dispatch_result!(r, res, K => K::run_text(res))
}
