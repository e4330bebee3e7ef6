//! An admitted plan executed under the cost of preemption (`docs/restart.md`, the one rule of
//! [`crate::restart`]): what OASiS's schedules give once every change of allocation costs the
//! restart time.
//!
//! OASiS's DP (Alg. 2) does not know the cost: it plans D_i(t) chunks a slot on y_ih(t)
//! workers and z_ik(t) parameter servers, and each change of those between slots is a restart
//! the plan pays for afterwards. [`execute_plan`] walks a plan slot by slot: the x_i(t) =
//! sum_h y_ih(t) workers process usable(t) x_i(t) / m_i chunks (usable(t) the fraction of the
//! slot [`RestartState`] leaves), never more than the plan has scheduled up to that slot (slack
//! later in the plan can catch up a loss, nothing runs ahead of it). The fraction of a chunk
//! left over is carried into the job's next planned slot, so a restart costs its time (a 30 s
//! restart in a 60 s slot, half the slot's chunks), not the whole chunk that rounding down
//! would lose (the carry [`crate::restart::Restarts::charges`] gives the baselines); a slot
//! capped by the plan carries nothing (that would be running ahead). A gap in the plan, or a
//! recovery's new schedule (`docs/open-world.md`), makes whatever the job holds next a restart.
//!
//! [`OasisScheduler::executed`] runs it over the plan the scheduler holds for a job (its
//! ledger: the schedule admitted at its arrival, cut by the open-world events and continued by
//! its recoveries), so a Rust embedder holding an [`OasisScheduler`] built
//! [`OasisScheduler::with_restart`] gets the completion, utility and restarts `mlsched run`
//! reports for a scenario with `restart_slots`, and its statuses after
//! [`crate::api::Scheduler::finish`] say which jobs the cost left unfinished.
use super::ledger::Hold;
use super::OasisScheduler;
use crate::model::oasis::OasisJob;
use crate::num::floor_eps;
use crate::restart::{Alloc, RestartCost, RestartState};
use crate::Slot;

/// One slot t of an admitted plan, as [`execute_plan`] reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanSlot {
    /// The slot t.
    pub slot: Slot,
    /// D_i(t): the chunks the plan trains in it.
    pub chunks: u64,
    /// x_i(t) = sum_h y_ih(t): the workers it holds.
    pub workers: u32,
    /// Its allocation (workers kind 0 on worker server h, parameter servers kind 1 on PS
    /// server k), compared with the slot before's by the restart rule.
    pub alloc: Alloc,
    /// A recovery restarts the job here (the first slot of a re-planned schedule): whatever
    /// it holds is a restart, even the same units as before.
    pub restart: bool,
}

/// An admitted plan as executed under a restart cost ([`execute_plan`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Executed {
    /// t̂': the slot its last chunk is processed in (`None`: the plan ends with chunks left, the
    /// job is unfinished).
    pub completion_slot: Option<Slot>,
    /// f_i(t̂' - a_i): the utility of that completion (0 when unfinished).
    pub utility: f64,
    /// The restarts the plan pays for (allocation changes after the first start, resumes and
    /// recoveries included).
    pub restarts: u32,
}

/// Executes `plan` (in slot order) of `job` (m_i slots per chunk, E_i N_i chunks, f_i from
/// a_i) under `cost` (module docs). Cost O(|plan|), no allocation.
pub fn execute_plan(
    plan: impl IntoIterator<Item = PlanSlot>,
    job: &OasisJob,
    cost: RestartCost,
) -> Executed {
    let (chunk_time, workload) = (job.chunk_time(), job.workload());
    let mut st = RestartState::default();
    let (mut planned, mut done) = (0u64, 0u64);
    let mut carry = 0.0;
    let mut prev: Option<Slot> = None;
    for p in plan {
        let t = p.slot;
        if p.restart || prev.is_some_and(|q| t > q + 1) {
            // a pause in the plan, or a recovery: whatever the job holds next is a restart
            st.step(Alloc::NONE, cost);
        }
        prev = Some(t);
        let usable = st.step(p.alloc, cost);
        planned = planned.saturating_add(p.chunks);
        let progress = carry + p.workers as f64 * usable / chunk_time;
        let can = floor_eps(progress);
        let can = if can >= (planned - done) as f64 {
            carry = 0.0;
            planned - done
        } else {
            carry = if progress > can { progress - can } else { 0.0 };
            can as u64
        };
        done += can;
        if done >= workload {
            return Executed {
                completion_slot: Some(t),
                utility: job.utility.at(t.saturating_sub(job.arrival)),
                restarts: st.restarts,
            };
        }
    }
    Executed {
        completion_slot: None,
        utility: 0.0,
        restarts: st.restarts,
    }
}

impl OasisScheduler {
    /// Charges every restart of an admitted plan `cost` slots of lost progress (the restart
    /// time, `docs/restart.md`), as the baselines' `with_restart` does: the DP still decides
    /// without it (the decisions and the log are the same), and [`Self::executed`] and the
    /// statuses after [`crate::api::Scheduler::finish`] follow the plans executed under it.
    /// Without this call the cost is not modelled.
    pub fn with_restart(mut self, cost: RestartCost) -> Self {
        self.restart = Some(cost);
        self
    }

    /// The restart time set by [`Self::with_restart`] (`None`: not modelled).
    pub fn restart_cost(&self) -> Option<RestartCost> {
        self.restart
    }

    /// Job `job`'s plan as the scheduler holds it (its admitted schedule, cut by the
    /// open-world events, continued by its recoveries) executed under the restart cost
    /// ([`execute_plan`]): t̂', f_i(t̂' - a_i) and the restarts. A job never admitted has an
    /// empty plan (unfinished, no restart). `None` without a restart cost, or for an unknown
    /// job. The plans are the ones this value decided: a scheduler restored from a snapshot
    /// ([`crate::snapshot`], closed-world state only) holds none from before it.
    pub fn executed(&self, job: u32) -> Option<Executed> {
        let cost = self.restart?;
        let j = self.jobs.get(job as usize)?;
        let h = self.market.workers.servers();
        let holds = self.ledger.holds(job);
        let plan = holds
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.is_cell())
            .map(|(i, e)| plan_slot(e, holds.get(i + 1..).unwrap_or(&[]), h));
        Some(execute_plan(plan, j, cost))
    }
}

/// The slot of a plan a ledger header `head` and the cells after it (up to the next header)
/// give; `h` worker servers (PS server k is kernel server h + k).
fn plan_slot(head: &Hold, rest: &[Hold], h: u32) -> PlanSlot {
    let mut alloc = Alloc::NONE;
    let mut workers: u32 = 0;
    for e in rest.iter().take_while(|e| e.is_cell()) {
        if e.server < h {
            alloc.add_n(0, e.server, e.count);
            workers = workers.saturating_add(e.count);
        } else {
            alloc.add_n(1, e.server - h, e.count);
        }
    }
    PlanSlot {
        slot: head.slot,
        chunks: head.chunks,
        workers,
        alloc,
        restart: head.restarts(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// One worker on `server` per slot of `servers`, `chunks` planned per slot.
    fn plan(servers: &[u32], chunks: u64) -> Vec<PlanSlot> {
        servers
            .iter()
            .enumerate()
            .map(|(t, &h)| {
                let mut a = Alloc::NONE;
                a.add(0, h);
                PlanSlot {
                    slot: t as Slot,
                    chunks,
                    workers: 1,
                    alloc: a,
                    restart: false,
                }
            })
            .collect()
    }

    fn cost(slots: f64) -> RestartCost {
        RestartCost::slots(slots).unwrap()
    }

    /// A job of 10 chunks with m_i = `m` slots per chunk (f_i = 1 at any duration).
    fn job(m: f64) -> OasisJob {
        let one = crate::resources::ResourceVec::from_slice(&[1.0]).unwrap();
        OasisJob {
            arrival: 0,
            epochs: 5,
            chunks: 2,
            minibatches_per_chunk: 1,
            minibatch_time: m,
            comm_time: 0.0,
            worker_bw: 1.0,
            ps_bw: 1.0,
            worker_demand: one,
            ps_demand: one,
            utility: crate::model::oasis::Utility::Table(alloc::vec![1.0]),
        }
    }

    fn run(p: &[PlanSlot], m: f64, c: RestartCost) -> (Option<Slot>, u32) {
        let e = execute_plan(p.iter().copied(), &job(m), c);
        (e.completion_slot, e.restarts)
    }

    #[test]
    fn two_half_slot_restarts_cost_one_slot_not_two_chunks() {
        // m = 1 slot per chunk, one worker: moved at slots 2 and 5. Each half-slot restart
        // loses half a chunk: 0.5 in slot 2 (carried), 0.5 + 0.5 = 1 in slot 5, so the ten
        // chunks end one slot late (slot 10); rounding each restart down to whole chunks
        // would lose two (slot 11).
        let p = plan(&[0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2], 1);
        assert_eq!(run(&p, 1.0, cost(0.5)), (Some(10), 2));
        assert_eq!(run(&p, 1.0, RestartCost::NONE), (Some(9), 2));
        // A whole-slot restart does lose a whole chunk each time.
        assert_eq!(run(&p, 1.0, cost(1.0)), (Some(11), 2));
    }

    #[test]
    fn plan_slack_catches_up_a_fractional_loss() {
        // m = 0.8: one worker covers 1.25 chunks a slot, the plan asks 1. A half-slot restart
        // at slot 3 processes 0.625 (carried), slot 4 1.875 (1 chunk), slot 5 2.125: back on
        // the plan; the same at slot 6; the job ends with its plan (slot 9). A 1 s restart
        // (1/60 slot) loses nothing whole; a 300 s one (5 slots) leaves it unfinished.
        let p = plan(&[0, 0, 0, 1, 1, 1, 2, 2, 2, 2], 1);
        assert_eq!(run(&p, 0.8, cost(0.5)), (Some(9), 2));
        assert_eq!(run(&p, 0.8, cost(1.0 / 60.0)), (Some(9), 2));
        assert_eq!(run(&p, 0.8, cost(5.0)), (None, 2));
        // Never ahead of the plan: with the same plan and no restart it ends where it ends.
        assert_eq!(run(&p, 0.8, RestartCost::NONE), (Some(9), 2));
    }

    #[test]
    fn a_gap_or_a_recovery_is_a_restart() {
        // Same server throughout; a pause at slot 2 and a recovery at slot 4 each restart it.
        let mut p = plan(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 1);
        p.remove(2);
        p[3].restart = true; // slot 4
        assert_eq!(run(&p, 1.0, cost(1.0)), (Some(12), 2));
        assert_eq!(run(&p, 1.0, RestartCost::NONE), (Some(10), 2));
    }

    /// Two worker servers and one PS server of capacity 4 over 5 slots; one job of 16 chunks
    /// (m_i = 0.5: two workers train 4 chunks a slot, so its plan spans 4 slots).
    fn one_job() -> crate::model::oasis::OasisScenario {
        use crate::model::oasis::{OasisScenario, PriceBounds, Utility};
        let rv = |x: f64| crate::resources::ResourceVec::from_slice(&[x]).unwrap();
        let mut j = job(0.5);
        j.epochs = 8;
        j.utility = Utility::Table(alloc::vec![100.0, 90.0, 80.0, 50.0, 20.0]);
        OasisScenario {
            slots: 5,
            resources: 1,
            worker_servers: alloc::vec![rv(4.0), rv(4.0)],
            ps_servers: alloc::vec![rv(4.0)],
            prices: Some(PriceBounds {
                u_worker: rv(8.0),
                u_ps: rv(8.0),
                l_worker: 1.0,
                l_ps: 1.0,
            }),
            jobs: alloc::vec![j],
            throughput: None,
        }
    }

    /// An embedder holding an `OasisScheduler` built `with_restart` gets the restart cost from
    /// the kernel: the job's server fails in slot 1, its recovery moves it (a restart), and
    /// [`OasisScheduler::executed`] equals the plan the embedder saw in the slot records
    /// executed by hand; a whole-slot restart leaves the plan a slot short, and the status
    /// after `finish` says unfinished.
    #[test]
    fn an_embedder_holding_the_scheduler_gets_the_restart_cost() {
        use crate::api::{Event, Scheduler};
        use crate::oasis::{OasisDecision, Reason};
        for (c, finished) in [(RestartCost::NONE, true), (cost(1.0), false)] {
            let mut s = OasisScheduler::new(&one_job()).unwrap().with_restart(c);
            assert_eq!(s.restart_cost(), Some(c));
            // What the embedder sees: each slot record, a recovery's first one a restart.
            let mut seen: Vec<PlanSlot> = Vec::new();
            let mut recovering = false;
            let mut recovered_at = None;
            let mut see = |o: &OasisDecision<'_>| match o {
                OasisDecision::Decision(d) => {
                    recovering = matches!(d.reason, Reason::Recovered { .. });
                    if recovering {
                        recovered_at = d.completion_slot;
                        seen.retain(|p| p.slot < d.arrival);
                    }
                }
                OasisDecision::Slot(sp) => {
                    let mut alloc = Alloc::NONE;
                    let mut workers = 0;
                    for &[h, y] in sp.workers {
                        alloc.add_n(0, h, y);
                        workers += y;
                    }
                    for &[k, z] in sp.ps {
                        alloc.add_n(1, k, z);
                    }
                    let restart = core::mem::take(&mut recovering);
                    seen.push(PlanSlot {
                        slot: sp.slot,
                        chunks: sp.chunks,
                        workers,
                        alloc,
                        restart,
                    });
                }
            };
            s.on_event(0, Event::JobArrived(0), &mut see).unwrap();
            s.on_event(0, Event::SlotAdvanced, &mut see).unwrap();
            let h = (0..2)
                .find(|&h| s.ledger.holds_from(0, 1, Some(h)))
                .unwrap();
            s.on_event(1, Event::ServerDown(h), &mut see).unwrap();
            s.finish(&mut see).unwrap();
            let by_hand = execute_plan(seen.iter().copied(), &s.jobs[0], c);
            let ex = s.executed(0).unwrap();
            assert_eq!(ex, by_hand);
            assert_eq!(ex.restarts, 1, "the recovery moved it");
            let recovered = recovered_at.expect("recovered on the other server");
            if finished {
                assert_eq!(ex.completion_slot, Some(recovered));
                assert_eq!(s.status(0), Some(crate::world::Status::Finished));
            } else {
                assert_eq!((ex.completion_slot, ex.utility), (None, 0.0));
                assert_eq!(s.status(0), Some(crate::world::Status::Unfinished));
            }
        }
        // No cost set: nothing is modelled.
        assert_eq!(OasisScheduler::new(&one_job()).unwrap().executed(0), None);
    }
}
