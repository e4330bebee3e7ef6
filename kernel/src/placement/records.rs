//! Decision records of the placement algorithms (tags [`crate::log::TAG_PLACEMENT`] + n).
//!
//! | tag | record | when |
//! |---|---|---|
//! | +0 | [`CategoryRec`] | every evaluated category (HAS, exact, JPS) |
//! | +1 | [`GreedyRec`] | every worker handed out by Optimus, Optimus-LB, LAS |
//! | +2 | [`ChoiceRec`] | the final choice |
//! | +3 | [`WorkerRec`] | per worker of the final choice |
//! | +4 | [`JpsRec`] | JPS sampling window |
//! | +5 | [`ExhaustiveRec`] | every improvement of exhaustive search |
//! | +6 | [`InterruptRec`] | open world: a job stopped by a cancel, a failure or a capacity cut |
//! | +7 | [`PlaceRec`] | open world: per worker of a job placed by an open-world batch |
//! | +8 | [`BatchRec`] | open world: a batch the method placed after the closed-world one |
use super::{Assignment, Instance, MarketOutcome, PlacementError, RunSummary};
use crate::log::{LogSink, TAG_PLACEMENT};
use crate::model::placement::Method;
use crate::num::canon;
use crate::record::{log_record, LogRecord};
use serde::{Deserialize, Serialize};

/// One evaluated category.
#[derive(Serialize, Deserialize)]
pub struct CategoryRec {
    /// Index in the walked order.
    pub index: u64,
    /// Rank in Algorithm 1's order over the input job order.
    pub rank: u64,
    /// Lambda (eq. 8).
    pub avg_jct: f64,
    /// sum_i V_i (eq. 18).
    pub throughput: f64,
    /// Market price updates (0 for the exact solver).
    pub rounds: u32,
    /// Paper rounds they stand for.
    pub unit_rounds: u64,
    /// Market hit its cap; exact solver decided.
    pub fallback: bool,
}

/// One greedy step of Optimus/Optimus-LB/LAS.
#[derive(Serialize, Deserialize)]
pub struct GreedyRec {
    /// Step number.
    pub step: u32,
    /// Job that received the worker.
    pub job: u32,
    /// The worker.
    pub worker: u32,
    /// The key that chose the job (marginal JCT gain, or attained service for LAS).
    pub key: f64,
}

/// The final choice.
#[derive(Serialize, Deserialize)]
pub struct ChoiceRec {
    /// 0 has, 1 jps, 2 exact, 3 exhaustive, 4 optimus, 5 optimus-lb, 6 las.
    pub method: u8,
    /// Rank of the chosen category (u64::MAX when no category walk).
    pub rank: u64,
    /// Lambda.
    pub avg_jct: f64,
    /// F (eq. 33).
    pub fairness: f64,
    /// Categories or assignments examined.
    pub examined: u64,
}

/// One worker of the final choice.
#[derive(Serialize, Deserialize)]
pub struct WorkerRec {
    /// k
    pub worker: u32,
    /// i
    pub job: u32,
    /// abs(pi_ik) (eq. 12 or equal split).
    pub samples: f64,
}

/// JPS sampling window.
#[derive(Serialize, Deserialize)]
pub struct JpsRec {
    /// floor(alpha abs(Psi)).
    pub from: u64,
    /// abs(Psi).
    pub count: u64,
    /// Distinct categories sampled.
    pub samples: u64,
}

/// An improvement found by exhaustive search.
#[derive(Serialize, Deserialize)]
pub struct ExhaustiveRec {
    /// Assignment number (odometer order, worker 0 fastest).
    pub number: u64,
    /// Lambda.
    pub avg_jct: f64,
}

/// Open world (`super::world`): a job stopped at `at` (seconds) and what became of it.
#[derive(Serialize, Deserialize)]
pub struct InterruptRec {
    /// The event's time in seconds.
    pub at: u32,
    /// The job.
    pub job: u32,
    /// The worker whose failure or capacity cut stopped it ([`crate::index::NONE`] for a cancel).
    pub server: u32,
    /// 0 `server_down`, 1 `capacity`, 2 `cancel`.
    pub cause: u8,
    /// 0 recovered (re-placed by the batch that follows), 1 lost, 2 cancelled.
    pub outcome: u8,
    /// Epochs still to train (the partial epoch at `at` is lost); 0 for a cancel.
    pub epochs_left: f64,
}

/// Open world: one worker of a job placed by an open-world batch (global indices).
#[derive(Serialize, Deserialize)]
pub struct PlaceRec {
    /// The batch's time in seconds: the job holds `worker` from here.
    pub at: u32,
    /// i
    pub job: u32,
    /// k
    pub worker: u32,
    /// Epochs this run trains.
    pub epochs: f64,
    /// When the run ends (seconds): `at` + Lambda_i of the batch (infinite when V_i = 0).
    pub finish: f64,
}

/// Open world: a batch the method placed on the free workers after (or instead of) the
/// closed-world batch.
#[derive(Serialize, Deserialize)]
pub struct BatchRec {
    /// The batch's time in seconds.
    pub at: u32,
    /// 0 has, ..., 6 las (as [`ChoiceRec::method`]).
    pub method: u8,
    /// Jobs placed.
    pub jobs: u32,
    /// Free workers they were placed on.
    pub workers: u32,
    /// Categories or assignments the method examined.
    pub examined: u64,
    /// Lambda of the batch (its jobs' average remaining JCT from `at`).
    pub avg_jct: f64,
}

log_record!(
    CategoryRec,
    TAG_PLACEMENT,
    "placement category",
    "placement.category"
);
log_record!(
    GreedyRec,
    TAG_PLACEMENT + 1,
    "placement greedy step",
    "placement.record"
);
log_record!(
    ChoiceRec,
    TAG_PLACEMENT + 2,
    "placement choice",
    "placement.record"
);
log_record!(
    WorkerRec,
    TAG_PLACEMENT + 3,
    "placement worker",
    "placement.record"
);
log_record!(
    JpsRec,
    TAG_PLACEMENT + 4,
    "placement JPS window",
    "placement.record"
);
log_record!(
    ExhaustiveRec,
    TAG_PLACEMENT + 5,
    "placement exhaustive step",
    "placement.record"
);
log_record!(
    InterruptRec,
    TAG_PLACEMENT + 6,
    "placement interruption",
    "placement.interruption"
);
log_record!(
    PlaceRec,
    TAG_PLACEMENT + 7,
    "placement re-placed worker",
    "placement.placed"
);
log_record!(
    BatchRec,
    TAG_PLACEMENT + 8,
    "placement re-placement batch",
    "placement.batch"
);

/// Records one evaluated category.
pub fn category<L: LogSink>(
    sink: &mut L,
    index: u64,
    rank: u64,
    a: &Assignment,
    m: Option<MarketOutcome>,
    fallback: bool,
) -> Result<(), PlacementError> {
    let m = m.unwrap_or_default();
    sink.record(
        CategoryRec::TAG,
        &CategoryRec {
            index,
            rank,
            avg_jct: canon(a.avg_jct),
            throughput: canon(a.total_throughput),
            rounds: m.rounds,
            unit_rounds: m.unit_rounds,
            fallback,
        },
    )?;
    Ok(())
}

/// Records one greedy step.
pub fn greedy<L: LogSink>(
    sink: &mut L,
    step: u32,
    job: u32,
    worker: u32,
    key: f64,
) -> Result<(), PlacementError> {
    sink.record(
        GreedyRec::TAG,
        &GreedyRec {
            step,
            job,
            worker,
            key: canon(key),
        },
    )?;
    Ok(())
}

/// Records the final choice.
pub fn choice<L: LogSink>(
    sink: &mut L,
    method: Method,
    s: &RunSummary,
    a: &Assignment,
) -> Result<(), PlacementError> {
    sink.record(
        ChoiceRec::TAG,
        &ChoiceRec {
            method: method.code(),
            rank: s.best_rank.unwrap_or(u64::MAX),
            avg_jct: canon(a.avg_jct),
            fairness: canon(a.fairness),
            examined: s.examined,
        },
    )?;
    Ok(())
}

/// Records every worker of the final choice with its workload.
pub fn workers<L: LogSink>(
    sink: &mut L,
    inst: &Instance,
    a: &Assignment,
) -> Result<(), PlacementError> {
    for (k, &i) in a.job_of.iter().enumerate() {
        let iu = i as usize;
        let w = super::workload::samples_for(
            a.split,
            inst.samples[iu],
            inst.rho(iu, k),
            a.throughput[iu],
            a.counts[iu],
        );
        sink.record(
            WorkerRec::TAG,
            &WorkerRec {
                worker: k as u32,
                job: i,
                samples: canon(w),
            },
        )?;
    }
    Ok(())
}

/// Records the JPS window.
pub fn jps<L: LogSink>(
    sink: &mut L,
    from: u64,
    count: u64,
    samples: u64,
) -> Result<(), PlacementError> {
    sink.record(
        JpsRec::TAG,
        &JpsRec {
            from,
            count,
            samples,
        },
    )?;
    Ok(())
}

/// Records an exhaustive-search improvement.
pub fn exhaustive<L: LogSink>(
    sink: &mut L,
    number: u64,
    avg_jct: f64,
) -> Result<(), PlacementError> {
    sink.record(
        ExhaustiveRec::TAG,
        &ExhaustiveRec {
            number,
            avg_jct: canon(avg_jct),
        },
    )?;
    Ok(())
}
