//! Heterogeneity-aware multi-job placement (Liu et al. 2024, "Sampling-Based Multi-Job
//! Placement for Heterogeneous Deep Learning Clusters"): HAS (Algorithms 1-2), JPS
//! (Algorithm 3), an exact per-category solver, exhaustive search, and the Optimus,
//! Optimus-LB and LAS baselines of Section VI.
//!
//! Problem P1 (eq. 8): assign each of K workers to one of S jobs (every job at least one
//! worker) to minimise the average JCT Lambda. With the proportional workload of eq. (12) a job's
//! throughput is V_i = sum_k sigma_ik rho_ik (eq. 13), so only sigma is decided
//! ([`workload`], [`jct`]). Categories (K_1, ..., K_S) ([`category`]) split P1 into P2/P3; per
//! category the tie-aware matching market ([`market`]) or the exact transportation solver
//! ([`exact`]) finds the max-throughput assignment; with `"solver": "transfer"` the
//! warm-started transfer solver ([`transfer`]) finds the market's counts faster and leaves the
//! categories it cannot certify to the market. HAS ([`has`]) takes the category with least
//! Lambda; JPS ([`jps`]) samples categories after job prioritising and trades Lambda against
//! Jain's fairness ([`fairness`], eq. 34).
//!
//! Everything is built once by [`Placer::new`] (allocates); [`Placer::run`] allocates nothing.
//! Decision records use tags [`crate::log::TAG_PLACEMENT`] + 0..=8 (see [`records`]; +6..=+8 only
//! in the open world, [`world`]).
// Row-major S x C / S x K matrices are indexed by job and class together; range loops read
// clearer than zipped iterators there.
#![allow(clippy::needless_range_loop)]
use crate::limits::PLACEMENT_MARKET_ROUNDS_MAX;
use crate::log::LogSink;
use crate::model::placement::{CategorySolver, JpsParams, Method, PlacementScenario};
use alloc::vec;
use alloc::vec::Vec;

pub mod category;
mod error;
pub mod exact;
pub mod exhaustive;
pub mod fairness;
pub mod greedy;
pub mod has;
pub mod instance;
pub mod jct;
pub mod jps;
pub mod las;
#[cfg(any(test, feature = "reference"))]
pub mod legacy_market;
pub mod market;
pub mod optimus;
#[cfg(any(test, feature = "reference"))]
pub mod per_worker;
pub mod records;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod scheduler;
mod snapshot;
pub mod transfer;
pub mod workload;
pub mod world;
#[cfg(test)]
mod world_tests;

pub use error::PlacementError;
pub use exact::Exact;
pub use instance::{Classes, Instance};
pub use jct::Assignment;
pub use market::{Market, MarketOutcome, MarketRound};
pub use scheduler::{PlacementDecision, PlacementScheduler};
pub use transfer::{Transfer, TransferOutcome, TransferStats};
pub use workload::Split;
pub use world::{Hold, JobRun, Phase};

/// Market price updates allowed per category before the exact fallback.
pub const MARKET_CAP: u32 = PLACEMENT_MARKET_ROUNDS_MAX as u32;

/// Which per-category solver evaluates a category.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// The tie-aware matching market (Algorithm 2), exact fallback on its cap.
    Market,
    /// The exact transportation solver with the JCT tie-break.
    Exact,
    /// The warm-started transfer solver ([`transfer`]); the market decides the categories it
    /// cannot certify.
    Transfer,
}

/// One evaluated category, handed to the observer of [`Placer::run`].
#[derive(Clone, Copy, Debug)]
pub struct CategoryReport<'a> {
    /// Index in the order the method walks (Algorithm 1's order; for JPS the prioritised one).
    pub index: u64,
    /// Index of the same per-job category in Algorithm 1's order over the input job order.
    pub rank: u64,
    /// The category's assignment and its evaluation.
    pub assignment: &'a Assignment,
    /// The market run, if the market was used.
    pub market: Option<MarketOutcome>,
    /// True when the market hit its cap and the exact solver decided instead.
    pub fallback: bool,
}

/// What a run did besides its final assignment ([`Placer::best`]).
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct RunSummary {
    /// abs(Psi) = C(K-1, S-1).
    pub category_count: u64,
    /// Categories (or, for exhaustive search, feasible assignments) evaluated.
    pub examined: u64,
    /// Rank (Algorithm 1's order, input job order) of the chosen category, if categories were
    /// walked.
    pub best_rank: Option<u64>,
    /// Market price updates over all categories.
    pub market_rounds: u64,
    /// The most price updates one category needed.
    pub market_rounds_max: u32,
    /// Paper rounds (unit raises counted one by one) over all categories.
    pub market_unit_rounds: u64,
    /// Categories where the market hit its cap (the exact solver decided).
    pub market_fallbacks: u32,
    /// JPS: first sampled index floor(alpha abs(Psi)).
    pub jps_from: u64,
    /// The transfer solver's counters (`None` unless the run used it).
    #[serde(default)]
    pub transfer: Option<TransferStats>,
}

/// The placement scheduler of one scenario: instance data plus every scratch buffer.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Placer {
    inst: Instance,
    method: Method,
    jps: JpsParams,
    seed: u64,
    market: Market,
    exact: Exact,
    cur: Assignment,
    best: Assignment,
    trial: Assignment,
    cat: Vec<u32>,
    pcat: Vec<u32>,
    prio: Vec<u32>,
    picks: Vec<u64>,
    evals: Vec<(u64, f64, f64)>,
    eval_ord: Vec<u32>,
    eval_scratch: Vec<u32>,
    greedy: Vec<u32>,
    cursor: Vec<u32>,
    taken: Vec<bool>,
    g_sum: Vec<f64>,
    g_min: Vec<f64>,
    g_node: Vec<u32>,
    g_spans: Vec<bool>,
    /// The scenario's per-category solver for HAS and JPS. Not on the snapshot wire (the bytes
    /// stay as they were): a restored placer keeps the one it was built with.
    #[serde(skip)]
    solver: CategorySolver,
    /// The transfer solver's scratch: derived data every run rebuilds, kept out of snapshots
    /// like the market's `sorted`; sized only when the scenario asks for it.
    #[serde(skip)]
    transfer: Transfer,
}

impl Placer {
    /// Builds the scheduler (the only allocating step).
    pub fn new(scn: &PlacementScenario) -> Result<Self, PlacementError> {
        let inst = Instance::new(scn)?;
        let (s, k) = (inst.s, inst.k);
        let count = category::count(k as u32, s as u32).unwrap_or(u64::MAX);
        let jps_n = (scn.jps.samples as u64).min(count);
        // Buffers for JPS: at most the sample limit, or every category when N >= abs(Psi).
        let jps_cap = (jps_n as usize).min(
            crate::limits::PLACEMENT_JPS_SAMPLES_MAX.max(crate::limits::PLACEMENT_CATEGORIES_MAX),
        );
        let greedy = greedy::preference_lists(&inst);
        Ok(Placer {
            market: Market::new(&inst),
            exact: Exact::new(&inst),
            cur: Assignment::new(&inst),
            best: Assignment::new(&inst),
            trial: Assignment::new(&inst),
            cat: vec![0; s],
            pcat: vec![0; s],
            prio: (0..s as u32).collect(),
            picks: vec![0; jps_cap],
            evals: vec![(0, 0.0, 0.0); jps_cap],
            eval_ord: vec![0; jps_cap],
            eval_scratch: vec![0; jps_cap],
            greedy,
            cursor: vec![0; s],
            taken: vec![false; k],
            g_sum: vec![0.0; s],
            g_min: vec![0.0; s],
            g_node: vec![0; s],
            g_spans: vec![false; s],
            transfer: match scn.solver {
                CategorySolver::Transfer => Transfer::new(&inst),
                CategorySolver::Market => Transfer::default(),
            },
            solver: scn.solver,
            method: scn.method,
            jps: scn.jps,
            seed: scn.seed,
            inst,
        })
    }

    /// The instance (throughputs, classes, Lambda^\[e\]).
    pub fn instance(&self) -> &Instance {
        &self.inst
    }

    /// The scenario's own method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The assignment chosen by the last [`Placer::run`].
    pub fn best(&self) -> &Assignment {
        &self.best
    }

    /// Runs `method`, logging every decision to `sink` and showing every evaluated category
    /// to `observe`. The chosen assignment is then [`Placer::best`].
    pub fn run<L: LogSink, F: FnMut(&CategoryReport<'_>)>(
        &mut self,
        method: Method,
        sink: &mut L,
        mut observe: F,
    ) -> Result<RunSummary, PlacementError> {
        let solver = self.category_solver();
        self.transfer.reset();
        let mut summary = match method {
            Method::Has => self.has(solver, sink, &mut observe)?,
            Method::Exact => self.has(Solver::Exact, sink, &mut observe)?,
            Method::Jps => self.jps(solver, sink, &mut observe)?,
            Method::Exhaustive => self.exhaustive(sink)?,
            Method::Optimus => self.optimus(Split::Equal, sink)?,
            Method::OptimusLb => self.optimus(Split::Proportional, sink)?,
            Method::Las => self.las(sink)?,
        };
        debug_assert!(
            self.best.within_workers(),
            "placement: the chosen assignment does not use each worker exactly once"
        );
        if solver == Solver::Transfer && matches!(method, Method::Has | Method::Jps) {
            summary.transfer = Some(self.transfer.stats);
        }
        records::choice(sink, method, &summary, &self.best)?;
        records::workers(sink, &self.inst, &self.best)?;
        Ok(summary)
    }

    /// The per-category solver HAS and JPS use for this scenario.
    fn category_solver(&self) -> Solver {
        match self.solver {
            CategorySolver::Market => Solver::Market,
            CategorySolver::Transfer => Solver::Transfer,
        }
    }

    /// The market on `self.cat` (exact fallback on its cap), expanded into `self.cur.job_of`;
    /// returns the market run and whether the fallback decided.
    fn market_category(&mut self) -> (MarketOutcome, bool) {
        let inst = &self.inst;
        let o = self.market.run(inst, &self.cat, MARKET_CAP);
        let counts = if o.cleared {
            &self.market.counts
        } else {
            self.exact.solve(inst, &self.cat);
            &self.exact.counts
        };
        expand(inst, counts, &mut self.cur.job_of);
        (o, !o.cleared)
    }

    /// Evaluates the category in `self.cat` (per job, input order) into `self.cur`.
    pub(crate) fn eval_category(&mut self, solver: Solver) -> (Option<MarketOutcome>, bool) {
        let inst = &self.inst;
        let (out, fallback) = match solver {
            Solver::Market => {
                let (o, fallback) = self.market_category();
                (Some(o), fallback)
            }
            Solver::Transfer => match self.transfer.solve(inst, &self.cat) {
                TransferOutcome::Unique => {
                    expand(inst, self.transfer.counts(), &mut self.cur.job_of);
                    (None, false)
                }
                TransferOutcome::Degenerate => {
                    let (o, fallback) = self.market_category();
                    let counts = if fallback {
                        &self.exact.counts
                    } else {
                        &self.market.counts
                    };
                    self.transfer.seed(&self.inst, counts);
                    (Some(o), fallback)
                }
            },
            Solver::Exact => {
                self.exact.solve(inst, &self.cat);
                expand(inst, &self.exact.counts, &mut self.cur.job_of);
                (None, false)
            }
        };
        let inst = &self.inst;
        self.cur.evaluate(inst, Split::Proportional);
        if solver == Solver::Exact {
            let passes = 4 * inst.k as u32;
            self.exact
                .improve_jct(inst, &mut self.cur, &mut self.trial, passes);
        }
        (out, fallback)
    }
}

/// Expands class counts x_ic (S x C) to `job_of`: each class's workers, in index order, go to
/// jobs in index order.
pub fn expand(inst: &Instance, counts: &[u32], job_of: &mut [u32]) {
    let cl = &inst.classes;
    let c = cl.len();
    for class in 0..c {
        let members = &cl.members[cl.start[class] as usize..cl.start[class + 1] as usize];
        let mut next = 0usize;
        for i in 0..inst.s {
            for _ in 0..counts[i * c + class] {
                if let Some(&w) = members.get(next) {
                    job_of[w as usize] = i as u32;
                }
                next += 1;
            }
        }
    }
}
