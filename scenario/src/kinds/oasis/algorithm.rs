//! Kind `"oasis"` with OASiS itself (Bao et al. 2018, Alg. 1): the driver and the result rows
//! filled from its decisions; under a restart cost, the rows follow the plans as the kernel
//! executes them ([`OasisScheduler::executed`], `kernel/src/oasis/execute.rs`).
use super::engine::job_ids;
use crate::engine::{Data, Decision, KindEngine, Out};
use crate::error::{from_driver, RunError};
use crate::kinds::oasis::doc::{
    OasisDoc, OasisJobResult, OasisPlacement, OasisResult, OasisSummary,
};
use crate::run::ResultDoc;
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::oasis::OasisScenario;
use mlsched_kernel::oasis::{
    OasisDecision, OasisError, OasisRecord, OasisScheduler, OasisSlotRecord, OasisWorldRecord,
    Reason,
};
use mlsched_kernel::record::DecisionRecord;
use mlsched_kernel::restart::RestartCost;
use mlsched_kernel::Slot;

/// OASiS itself: the driver and what the result document needs.
pub(super) struct Algorithm {
    /// The scenario, submitted jobs appended.
    scn: OasisScenario,
    /// The document (a submission is checked against it).
    doc: OasisDoc,
    driver: Driver<OasisScheduler>,
    rows: Rows,
}

/// The job rows of the result, filled from the decisions as they come.
struct Rows {
    ids: Vec<String>,
    jobs: Vec<Option<OasisJobResult>>,
    /// Jobs fed as arrived, in order (the one being decided when the kernel fails).
    arrived: Vec<u32>,
    last: usize,
    admitted: u32,
    /// Summed in decision order, as the run always did (float sums depend on their order).
    total: f64,
    /// The cost of preemption (`None`: not modelled; the kernel executes the plans under it).
    restart: Option<RestartCost>,
    /// Job indices in decision order (for the re-summed utility under the restart cost).
    decided: Vec<usize>,
    /// Per job: an open-world event ended it (cancelled or lost): its row is final.
    ended: Vec<bool>,
}

impl Algorithm {
    pub(super) fn new(doc: &OasisDoc, scn: OasisScenario) -> Result<Self, RunError> {
        let restart = doc.restart()?;
        let s = OasisScheduler::new(&scn).map_err(|e| match e {
            OasisError::Bounds if scn.prices.is_none() => {
                let why = mlsched_kernel::price::oasis_bounds(&scn).err();
                match why {
                    Some(b) => RunError::kernel(b, format!("oasis: {b}")),
                    None => RunError::kernel(e, format!("oasis: {e}")),
                }
            }
            e => RunError::kernel(e, format!("oasis: {e}")),
        })?;
        let s = match restart {
            Some(c) => s.with_restart(c),
            None => s,
        };
        Ok(Algorithm {
            rows: Rows {
                ids: job_ids(doc),
                jobs: vec![None; scn.jobs.len()],
                arrived: Vec::new(),
                last: 0,
                admitted: 0,
                total: 0.0,
                restart,
                decided: Vec::new(),
                ended: vec![false; scn.jobs.len()],
            },
            scn,
            doc: doc.frame(),
            driver: Driver::new(s),
        })
    }
}

impl Rows {
    fn collect(&mut self, o: &OasisDecision<'_>) {
        match o {
            OasisDecision::Decision(d) if d.reason.is_world() => self.world(d),
            OasisDecision::Decision(d) => {
                let i = d.job as usize;
                self.last = i;
                self.decided.push(i);
                if d.admitted {
                    self.admitted += 1;
                    self.total += d.utility;
                }
                self.jobs[i] = Some(OasisJobResult {
                    status: None,
                    id: self.ids[i].clone(),
                    admitted: d.admitted,
                    completion_slot: d.completion_slot.filter(|_| d.admitted),
                    utility: d.admitted.then_some(d.utility),
                    cost: d.admitted.then_some(d.cost),
                    payoff: d.admitted.then_some(d.payoff),
                    reason: (!d.admitted).then(|| d.reason.text().to_string()),
                    placements: Vec::new(),
                    restarts: None,
                });
            }
            OasisDecision::Slot(sp) => {
                if let Some(j) = self.jobs.get_mut(self.last).and_then(Option::as_mut) {
                    j.placements.push(OasisPlacement {
                        slot: sp.slot,
                        workers: sp.workers.to_vec(),
                        ps: sp.ps.to_vec(),
                    });
                }
            }
        }
    }

    /// An open-world outcome at slot T (`d.arrival`) for an admitted job: what it held from T
    /// on is gone (its placements and planned slots >= T); cancelled or lost, it earns
    /// nothing; recovered, its new schedule's slot records follow (a restart) and its
    /// completion and utility are the continuation's, its cost the sum of both plans' costs.
    fn world(&mut self, d: &mlsched_kernel::oasis::OasisJobDecision) {
        let i = d.job as usize;
        let t = d.arrival;
        self.last = i;
        let Some(row) = self.jobs.get_mut(i).and_then(Option::as_mut) else {
            return;
        };
        row.placements.retain(|p| p.slot < t);
        row.reason = Some(d.reason.text().to_string());
        let recovered = matches!(d.reason, Reason::Recovered { .. });
        if recovered {
            row.completion_slot = d.completion_slot;
            row.utility = Some(d.utility);
            row.cost = Some(row.cost.unwrap_or(0.0) + d.cost);
        } else {
            row.completion_slot = None;
            row.utility = Some(0.0);
        }
        row.payoff = row.utility.zip(row.cost).map(|(u, c)| u - c);
        if let Some(e) = self.ended.get_mut(i) {
            *e = !recovered;
        }
    }

    /// A submitted job's row, to be filled when it is decided.
    fn push_job(&mut self, id: String) {
        self.ids.push(id);
        self.jobs.push(None);
        self.ended.push(false);
    }

    /// The total utility, summed in decision order (as the run always did: float sums depend
    /// on their order) over the rows as they ended.
    fn resum(&mut self) {
        self.total = 0.0;
        for &i in &self.decided {
            if let Some(r) = self.jobs[i].as_ref().filter(|r| r.admitted) {
                self.total += r.utility.unwrap_or(0.0);
            }
        }
    }

    /// Under a restart cost, every admitted plan is executed as decided (the DP does not know
    /// the cost) by the kernel ([`OasisScheduler::executed`]): completion, utility and payoff
    /// follow it, a job the plan can no longer finish is reported unfinished (utility 0), and
    /// the total is re-summed in decision order.
    fn apply_restarts(&mut self, sched: &OasisScheduler) -> Option<u64> {
        self.restart?;
        let mut restarts: u64 = 0;
        self.total = 0.0;
        for &i in &self.decided {
            let (Some(row), Some(ex)) = (self.jobs[i].as_mut(), sched.executed(i as u32)) else {
                continue;
            };
            row.restarts = Some(ex.restarts);
            restarts += ex.restarts as u64;
            if !row.admitted || self.ended[i] {
                continue; // rejected, or cancelled / lost: it earns nothing
            }
            let done = ex.completion_slot;
            if done != row.completion_slot {
                let utility = ex.utility;
                row.payoff = row.cost.map(|c| utility - c);
                row.utility = Some(utility);
                if done.is_none() {
                    let why = "the restart cost left chunks unprocessed by the end of its plan";
                    row.reason = Some(why.to_string());
                }
                row.completion_slot = done;
            }
            self.total += row.utility.unwrap_or(0.0);
        }
        Some(restarts)
    }

    /// The kernel's error with the job being decided (the first arrived without a decision).
    fn error(&self, e: DriverError<OasisError>) -> RunError {
        let failed = self
            .arrived
            .iter()
            .map(|&j| j as usize)
            .find(|&j| self.jobs[j].is_none());
        match (e, failed) {
            (DriverError::Scheduler(e) | DriverError::Refused(e), Some(i)) => {
                RunError::kernel(e, format!("oasis: job `{}`: {e}", self.ids[i]))
            }
            (e, _) => from_driver(e, |m| format!("oasis: {m}")),
        }
    }
}

/// The row of a job that never arrived: not admitted, `unfinished` (or `cancelled`, set by
/// the façade).
fn never_arrived(id: &str) -> OasisJobResult {
    OasisJobResult {
        id: id.to_string(),
        status: Some(crate::status::JobStatus::Unfinished),
        admitted: false,
        completion_slot: None,
        utility: None,
        cost: None,
        payoff: None,
        reason: Some("never arrived".into()),
        placements: Vec::new(),
        restarts: None,
    }
}

/// The kernel's refusal of a submission as an input error naming the field.
fn submit_error(e: OasisError, id: &str) -> RunError {
    let field = match e {
        OasisError::OutsideBounds { .. } | OasisError::NoPriceBounds => "job",
        OasisError::EventTime { .. } => "job.arrival",
        OasisError::Shape => "job.worker_demand",
        _ => "job",
    };
    let subject = crate::doc::check::job(id);
    RunError::Input(crate::error::InputError::new(subject, field, e.to_string()))
}

fn oasis_decision(o: &OasisDecision<'_>) -> Decision {
    match o {
        OasisDecision::Decision(d) if d.reason.is_world() => Decision::typed(
            OasisWorldRecord::NAME,
            Some(d.job),
            Data::OasisDecision(**d),
        ),
        OasisDecision::Decision(d) => {
            Decision::typed(OasisRecord::NAME, Some(d.job), Data::OasisDecision(**d))
        }
        OasisDecision::Slot(sp) => Decision::of(OasisSlotRecord::NAME, Some(sp.job), sp),
    }
}

impl<L: LogSink> KindEngine<L> for Algorithm {
    fn on_event(
        &mut self,
        now: Slot,
        ev: Event<u32>,
        sink: &mut L,
        out: &mut Out<'_>,
    ) -> Result<(), RunError> {
        if let Event::JobArrived(j) = ev {
            self.rows.arrived.push(j);
        }
        let rows = &mut self.rows;
        let r = self
            .driver
            .on_event(now, ev, sink, &mut |o: &OasisDecision<'_>| {
                rows.collect(o);
                out.emit(|| oasis_decision(o))
            });
        r.map_err(|e| self.rows.error(e))
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.driver.scheduler().next_wakeup(after)
    }

    fn submit(
        &mut self,
        now: Slot,
        job: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<u32, RunError> {
        let (d, j) = self.doc.submitted(job, now, &self.scn)?;
        let i = self
            .driver
            .scheduler_mut()
            .submit(j.clone())
            .map_err(|e| submit_error(e, &d.id))?;
        self.scn.jobs.push(j);
        self.rows.push_job(d.id);
        Ok(i)
    }

    fn status(&self, j: u32) -> Option<mlsched_kernel::world::Status> {
        // Under the restart cost the kernel's statuses after `finish` follow the executed
        // plans (a plan left with chunks is unfinished): the rows say the same.
        self.driver.scheduler().status(j)
    }

    fn finish(&mut self, sink: &mut L, out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        let rows = &mut self.rows;
        let r = self.driver.finish(sink, &mut |o: &OasisDecision<'_>| {
            rows.collect(o);
            out.emit(|| oasis_decision(o))
        });
        r.map_err(|e| self.rows.error(e))?;
        self.rows.resum();
        let restarts = self.rows.apply_restarts(self.driver.scheduler());
        let rows = &self.rows;
        // A job that never arrived (the host cancelled it first, or ended the run before its
        // arrival) has a row too: not admitted, still waiting.
        let jobs: Vec<_> = rows
            .jobs
            .iter()
            .zip(&rows.ids)
            .map(|(r, id)| r.clone().unwrap_or_else(|| never_arrived(id)))
            .collect();
        let occupancy = crate::kinds::oasis::occupancy::spans(&jobs);
        Ok(ResultDoc::Oasis(OasisResult {
            kind: "oasis".into(),
            policy: "oasis".into(),
            summary: OasisSummary {
                statuses: Default::default(),
                admitted: rows.admitted,
                rejected: self.scn.jobs.len() as u32 - rows.admitted,
                total_utility: rows.total,
                prices: self
                    .scn
                    .prices
                    .is_none()
                    .then(|| crate::kinds::oasis::doc::PRICES_DERIVED.to_string()),
                restarts,
                dorm: None,
            },
            jobs,
            occupancy,
            log_hash: sink.hash().hex().to_string(),
        }))
    }

    fn trace(&self, _result: Option<&ResultDoc>) -> Option<crate::engine::Trace> {
        Some(crate::engine::trace::oasis(self.driver.scheduler()))
    }
}
