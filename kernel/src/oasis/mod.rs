//! OASiS (Bao et al. 2018, Algorithms 1-2): online admission of ML training jobs under
//! exponential resource prices, with the per-slot worker / parameter-server placement.
//!
//! Upon arrival of job i (Alg. 1), the best schedule l* is the completion slot t_hat in
//! a_i..T-1 maximising the payoff f_i(t_hat - a_i) - DP_COST(t_hat, E_i N_i) (ties: earliest
//! t_hat); the job is admitted iff that payoff is > 0, and then the usage g / v and the prices
//! p / q (eq. 22) of exactly the touched (slot, server, resource) cells move. As in Alg. 2
//! (mu_i = 0, l* empty until a payoff > 0 is seen) a rejected job carries no schedule, only
//! its [`Reason`]: no feasible schedule before T (the remaining capacity of a_i..T-1 cannot
//! cover E_i N_i chunks), or no completion slot with a positive payoff. f_i must be
//! non-increasing (the paper's assumption; the scenario validation enforces it).
//!
//! - [`market`]: usage, prices (eq. 22) and the job constants (m_i, D_i, N_i, b_i / B_i).
//! - [`fast`]: the exact default DP (same minimum cost as the literal one): COST_t depends on d
//!   only through the worker count ceil(d m_i), so each slot offers at most N_i + 1 choices (the
//!   largest d per worker count); rows are shared across t_hat; COST_t(t, w) comes from prefix
//!   sums over each slot's price order; the row band is cut to the workloads that can still reach
//!   E_i N_i; the t_hat scan stops once f_i minus a price-floor lower bound cannot win.
//!   Each slot's cheapest servers come from the pool's slot trees (`grid`: per slot the values
//!   in force and a tree of summaries, searched best-first) when the pool keeps them, else from
//!   a sweep of the time-major copy of the market's changes; both give the same lists.
//! - `reference` (feature `reference` or tests): the paper-literal DP, O(T D^2), kept as oracle.
//! - [`OasisScheduler`]: the [`crate::api::Scheduler`] value, scratch allocated once at build.
//!
//! Canonical tie-breaks (`docs/semantics.md`): costs and payoffs compare with
//! [`crate::num::less`] / [`crate::num::greater`]; unit prices sum resources in index order;
//! server orders break equal unit prices by lower index.
//!
//! | file | what |
//! |---|---|
//! | `scheduler` | `OasisScheduler`: Alg. 1 as an embeddable `Scheduler` value |
//! | `market/` | the priced cluster: usage g_h^r(t) / v_k^r(t) and prices p_h^r(t) / q_k^r(t) (eq. 22), pools, arena, books, changes |
//! | `grid/` | the slot trees: each slot's free rooms and prices in force with summaries for best-first listing |
//! | `fast/` | the exact fast DP of Alg. 2 (the default path): sweep, choices, schedule |
//! | `units` | what one entry (a server's prices and free rooms at a slot) offers a demand: unit price, fit, room test |
//! | `cheapest` | the server with the least (unit price, index) among those present |
//! | `census` | per slot, how many servers of a pool have at least a given share free |
//! | `records` | the decision records (tags `TAG_OASIS_DECISION`, `TAG_OASIS_SLOT`, `TAG_OASIS_WORLD`) and `OasisDecision` |
//! | `snapshot` | the restorable state and its snapshots (closed-world state only) |
//! | `ledger` | per job, the reservations its schedule holds (for cancels, interruptions and the plan executed) |
//! | `execute` | an admitted plan executed under the restart cost (`docs/restart.md`): t̂', f_i(t̂' - a_i), restarts |
//! | `world` | the open-world events: submit, cancel, server down / up, capacity (`docs/open-world.md`) |
//! | `error` | `OasisError` |
//! | `reference` | (feature `reference`) the paper-literal Alg. 2: COST_t and the DP computed from the formulas |
mod census;
mod cheapest;
mod error;
mod execute;
pub mod fast;
mod grid;
mod ledger;
pub mod market;
mod records;
#[cfg(any(test, feature = "reference"))]
pub mod reference;
mod scheduler;
mod snapshot;
mod units;
mod world;
#[cfg(test)]
mod world_tests;

pub use error::OasisError;
pub use execute::{execute_plan, Executed, PlanSlot};
pub use fast::{Schedule, SlotPlacement};
pub use market::{JobParams, Market};
pub use records::{
    OasisDecision, OasisRecord, OasisSlotRecord, OasisSlotRecordOf, OasisWorldRecord,
    TAG_OASIS_DECISION, TAG_OASIS_SLOT, TAG_OASIS_WORLD,
};
pub use scheduler::{commit, OasisScheduler};
pub use snapshot::OasisState;

use serde::{Deserialize, Serialize};

/// Why a job was admitted or rejected (Alg. 1 lines 6-15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reason {
    /// The best payoff mu_i is > 0: x_i = 1.
    Admitted,
    /// No completion slot t_hat < T admits a feasible schedule (DP_COST = +inf everywhere):
    /// the workload E_i N_i cannot be placed on the remaining capacity before T.
    NoFeasibleSchedule,
    /// A feasible schedule exists but the best payoff f_i - cost is <= 0.
    NonPositivePayoff,
    /// Open world (`docs/open-world.md`): the host cancelled the job; its reservations from
    /// the event's slot on were released and it earns nothing.
    Cancelled,
    /// Open world: the event on `server` (its failure or capacity cut) interrupted the job, and
    /// its remaining chunks were re-planned as a continuation priced at the event's prices
    /// with a positive payoff: the decision's schedule is the new one from the event's slot.
    Recovered {
        /// the server of the event (kernel server index, `crate::world`)
        server: u32,
    },
    /// Open world: the event on `server` interrupted the job and its continuation has no
    /// schedule with a positive payoff (or none feasible): the job is lost.
    Lost {
        /// the server of the event (kernel server index)
        server: u32,
    },
}

impl Reason {
    /// Stable code used in log records.
    pub fn code(self) -> u8 {
        match self {
            Reason::Admitted => 0,
            Reason::NoFeasibleSchedule => 1,
            Reason::NonPositivePayoff => 2,
            Reason::Cancelled => 3,
            Reason::Recovered { .. } => 4,
            Reason::Lost { .. } => 5,
        }
    }

    /// The reason a log record's `code` ([`Reason::code`]) stands for; `server` is the event's
    /// server, which [`Reason::Recovered`] and [`Reason::Lost`] carry (an [`OasisWorldRecord`]
    /// logs it beside the code). `None` for a code no reason has.
    pub fn from_code(code: u8, server: u32) -> Option<Reason> {
        Some(match code {
            0 => Reason::Admitted,
            1 => Reason::NoFeasibleSchedule,
            2 => Reason::NonPositivePayoff,
            3 => Reason::Cancelled,
            4 => Reason::Recovered { server },
            5 => Reason::Lost { server },
            _ => return None,
        })
    }

    /// One-line human explanation.
    pub fn text(self) -> &'static str {
        match self {
            Reason::Admitted => "admitted: best payoff > 0",
            Reason::NoFeasibleSchedule => "no feasible schedule before T",
            Reason::NonPositivePayoff => "best payoff <= 0",
            Reason::Cancelled => "cancelled",
            Reason::Recovered { .. } => "interrupted and recovered: the rest re-planned",
            Reason::Lost { .. } => "interrupted and lost: no continuation with payoff > 0",
        }
    }

    /// The server of an open-world interruption ([`Reason::Recovered`], [`Reason::Lost`]).
    pub fn server(self) -> Option<u32> {
        match self {
            Reason::Recovered { server } | Reason::Lost { server } => Some(server),
            _ => None,
        }
    }

    /// Is this the outcome of an open-world event (logged as an [`OasisWorldRecord`])?
    pub fn is_world(self) -> bool {
        self.code() >= 3
    }
}

/// The decision on one job, with its explanation (Alg. 1 + Alg. 2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OasisJobDecision {
    /// Index of the job in the scenario.
    pub job: u32,
    /// a_i.
    pub arrival: u32,
    /// x_i.
    pub admitted: bool,
    /// Why.
    pub reason: Reason,
    /// t_hat of the best schedule l* (`None` for a rejected job: Alg. 2 keeps l* empty
    /// unless some payoff is > 0).
    pub completion_slot: Option<u32>,
    /// f_i(t_hat - a_i) of l* (0 when rejected).
    pub utility: f64,
    /// DP_COST(t_hat, E_i N_i): the priced cost of l* at decision time (0 when rejected).
    pub cost: f64,
    /// mu_i = utility - cost (0 when rejected, as Alg. 2 line 3 initialises it).
    pub payoff: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::oasis::{OasisJob, OasisScenario, PriceBounds, Utility};
    use crate::ResourceVec;
    use alloc::vec;

    fn rv(v: &[f64]) -> ResourceVec {
        ResourceVec::from_slice(v).unwrap()
    }

    /// One worker server and one PS server of capacity 4, L = 1, U = 8; each job trains
    /// D = 4 chunks at m = 0.5 (2 chunks per worker-slot), N = 2, b / B = 1/2.
    fn hand_scenario() -> OasisScenario {
        let job = |epochs| OasisJob {
            arrival: 0,
            epochs,
            chunks: 2,
            minibatches_per_chunk: 1,
            minibatch_time: 0.5,
            comm_time: 0.0,
            worker_bw: 1.0,
            ps_bw: 2.0,
            worker_demand: rv(&[1.0]),
            ps_demand: rv(&[1.0]),
            utility: Utility::Table(vec![10.0, 6.0, 1.0]),
        };
        OasisScenario {
            slots: 3,
            resources: 1,
            worker_servers: vec![rv(&[4.0])],
            ps_servers: vec![rv(&[4.0])],
            prices: Some(PriceBounds {
                u_worker: rv(&[8.0]),
                u_ps: rv(&[8.0]),
                l_worker: 1.0,
                l_ps: 1.0,
            }),
            jobs: vec![job(2), job(2), job(2), job(2), job(10)],
            throughput: None,
        }
    }

    #[test]
    fn hand_computed_prices_delay_and_reject() {
        let mut s = OasisScheduler::new(&hand_scenario()).unwrap();
        let p2 = libm::pow(8.0, 0.5); // worker price at g = 2 of 4
        let q1 = libm::pow(8.0, 0.25); // PS price at v = 1 of 4
                                       // Job 0: everything in slot 0 at floor prices: 2 workers + 1 PS = 3.
        let d = s.decide(0, 0).unwrap();
        assert_eq!(
            (d.admitted, d.completion_slot, d.cost, d.payoff),
            (true, Some(0), 3.0, 7.0)
        );
        let sched: alloc::vec::Vec<_> = s.last_schedule().iter().collect();
        assert_eq!(sched.len(), 1);
        assert_eq!(
            (sched[0].worker_pairs, sched[0].ps_pairs, sched[0].chunks),
            (&[[0, 2]][..], &[[0, 1]][..], 4)
        );
        assert_eq!(s.market().workers.price(0, 0, 0), p2);
        assert_eq!(s.market().ps.price(0, 0, 0), q1);
        assert_eq!(
            s.market().workers.price(1, 0, 0),
            1.0,
            "untouched slot keeps L"
        );
        // Job 1: slot 0 now costs 2 p2 + q1 (payoff 10 - 7.34); slot 1 costs 3 (payoff 6 - 3).
        let d = s.decide(0, 1).unwrap();
        assert_eq!(
            (d.admitted, d.completion_slot, d.cost, d.payoff),
            (true, Some(1), 3.0, 3.0)
        );
        // Job 2: both slots 0 and 1 now cost 2 p2 + q1; finishing in slot 0 pays most.
        let d = s.decide(0, 2).unwrap();
        assert_eq!(d.completion_slot, Some(0));
        assert_eq!(d.cost, 2.0 * p2 + q1);
        assert_eq!(d.payoff, 10.0 - (2.0 * p2 + q1));
        // Job 3: slot 0 is full, slot 1 pays 6 - 7.34, slot 2 pays 1 - 3: rejected.
        let d = s.decide(0, 3).unwrap();
        assert_eq!(
            (d.admitted, d.reason, d.completion_slot),
            (false, Reason::NonPositivePayoff, None)
        );
        // Job 4: 20 chunks need 10 worker-slots; at most 2 per slot over 3 slots.
        let d = s.decide(0, 4).unwrap();
        assert_eq!(d.reason, Reason::NoFeasibleSchedule);
        assert!(matches!(
            s.decide(0, 4),
            Err(OasisError::AlreadyDecided { job: 4 })
        ));
        assert!(matches!(
            s.decide(0, 9),
            Err(OasisError::UnknownJob { job: 9 })
        ));
    }

    #[test]
    fn reference_agrees_on_the_hand_example() {
        let scn = hand_scenario();
        let mut s = OasisScheduler::new(&scn).unwrap();
        for i in 0..5u32 {
            let mut rm = reference::RefMarket::new(&scn).unwrap();
            let m = s.market();
            rm.set_usage(
                |t, h, r| m.workers.usage(t, h, r),
                |t, k, r| m.ps.usage(t, k, r),
            );
            let r = reference::decide(&rm, &scn.jobs[i as usize]).decision;
            let d = s.decide(0, i).unwrap();
            let reason = match d.reason {
                Reason::Admitted => reference::RefReason::Admitted,
                Reason::NoFeasibleSchedule => reference::RefReason::NoFeasibleSchedule,
                _ => reference::RefReason::NonPositivePayoff,
            };
            assert_eq!(
                (r.admitted, r.reason, r.completion_slot),
                (d.admitted, reason, d.completion_slot)
            );
            assert!((r.payoff - d.payoff).abs() <= 1e-12 * d.payoff.abs().max(1.0));
        }
    }

    #[test]
    fn event_time_is_checked() {
        let mut s = OasisScheduler::new(&hand_scenario()).unwrap();
        assert!(matches!(
            s.decide(1, 0),
            Err(OasisError::EventTime { job: 0, now: 1 })
        ));
    }

    #[test]
    fn chunks_and_workers_are_consistent() {
        let mut j = JobParams::of(&hand_scenario().jobs[0]);
        for m in [0.01, 0.07, 0.1, 0.3, 1.0 / 3.0, 0.5, 1.0, 2.75, 7.0] {
            j.chunk_time = m;
            j.workload = 10_000;
            for w in 0..200u64 {
                let d = j.chunks_for(w);
                assert!(j.workers_for(d) <= w);
                assert!(d == j.workload || j.workers_for(d + 1) > w, "m {m} w {w}");
            }
        }
    }

    /// Eq. (25)/(26) (issue 45): a sigmoid whose exp overflows at the horizon (f = 0 in f64,
    /// ~e^-2000 exactly) puts L at the floor minimum in the fast path and the reference alike,
    /// while a table utility of 0 still leaves the minimum.
    #[test]
    fn an_overflowed_sigmoid_puts_the_price_floor_at_its_minimum() {
        let mut scn = hand_scenario();
        scn.prices = None;
        scn.jobs.truncate(1);
        let table_only = crate::price::oasis_bounds(&scn).unwrap();
        assert!(
            table_only.l_worker > 1e-3,
            "the table job alone keeps L high"
        );
        let mut zero_table = scn.clone();
        zero_table.jobs.push(OasisJob {
            utility: Utility::Table(vec![0.0]),
            ..scn.jobs[0].clone()
        });
        let b = crate::price::oasis_bounds(&zero_table).unwrap();
        assert_eq!(
            b.l_worker, table_only.l_worker,
            "a table 0 leaves the minimum"
        );
        scn.jobs.push(OasisJob {
            utility: Utility::Sigmoid {
                priority: 100.0,
                decay: 1000.0,
                target: 0.0,
            },
            ..scn.jobs[0].clone()
        });
        assert_eq!(scn.jobs[1].utility.at(2), 0.0, "exp(2000) overflows");
        let fast = crate::price::oasis_bounds(&scn).unwrap();
        let slow = reference::derive_bounds(&scn).unwrap();
        for l in [fast.l_worker, fast.l_ps, slow.l_worker, slow.l_ps] {
            assert_eq!(l, crate::price::OASIS_FLOOR_MIN);
        }
    }
}
