//! Kind `"oasis"` behind the façade: OASiS (Bao et al. 2018, Alg. 1) or a baseline
//! (FIFO, DRF, Tiresias-LAS, Optimus) on the same scenario.
use super::{Built, Decision, Kind, KindEngine, Out};
use crate::doc::oasis::{OasisDoc, OasisJobResult, OasisPlacement, OasisResult, OasisSummary};
use crate::error::{from_driver, RunError};
use crate::exec::baseline::{baseline_error, baseline_policy, OASIS_POLICIES};
use crate::run::{ResultDoc, RunOptions};
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::baseline::oasis::{OasisBaseline, OasisBaselineOutput};
use mlsched_kernel::driver::{Driver, DriverError};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::oasis::OasisScenario;
use mlsched_kernel::oasis::{OasisError, OasisOutput, OasisScheduler};
use mlsched_kernel::Slot;
use std::collections::BTreeMap;

/// Kind `"oasis"`.
pub struct Oasis;

impl Kind for Oasis {
    const NAME: &'static str = "oasis";
    type Doc = OasisDoc;
    type Result = OasisResult;

    fn policies() -> &'static [&'static str] {
        OASIS_POLICIES
    }

    fn engine<L: LogSink>(doc: &OasisDoc, opts: &RunOptions) -> Result<Built<L>, RunError> {
        let scn = doc.validate()?;
        let arrivals = scn.jobs.iter().map(|j| j.arrival).collect();
        let ids = doc.jobs.iter().map(|j| j.id.clone()).collect();
        let (inner, policy): (Box<dyn KindEngine<L>>, String) =
            match opts.policy.as_deref().filter(|p| *p != "oasis") {
                None => (Box::new(Algorithm::new(doc, scn)?), "oasis".into()),
                Some(name) => {
                    let p = baseline_policy(Self::NAME, name, OASIS_POLICIES)?;
                    (Box::new(Baselines::new(doc, scn, p)?), name.into())
                }
            };
        Ok(Built {
            inner,
            arrivals,
            ids,
            policy,
        })
    }

    super::kind_documents!(crate::exec::oasis::summary_text);
}

fn job_ids(doc: &OasisDoc) -> Vec<String> {
    doc.jobs.iter().map(|j| j.id.clone()).collect()
}

/// OASiS itself: the driver and what the result document needs.
struct Algorithm {
    scn: OasisScenario,
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
}

impl Algorithm {
    fn new(doc: &OasisDoc, scn: OasisScenario) -> Result<Self, RunError> {
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
        Ok(Algorithm {
            rows: Rows {
                ids: job_ids(doc),
                jobs: vec![None; scn.jobs.len()],
                arrived: Vec::new(),
                last: 0,
                admitted: 0,
                total: 0.0,
            },
            scn,
            driver: Driver::new(s),
        })
    }
}

impl Rows {
    fn collect(&mut self, o: &OasisOutput<'_>) {
        match o {
            OasisOutput::Decision(d) => {
                let i = d.job as usize;
                self.last = i;
                if d.admitted {
                    self.admitted += 1;
                    self.total += d.utility;
                }
                self.jobs[i] = Some(OasisJobResult {
                    id: self.ids[i].clone(),
                    admitted: d.admitted,
                    completion_slot: d.completion_slot.filter(|_| d.admitted),
                    utility: d.admitted.then_some(d.utility),
                    cost: d.admitted.then_some(d.cost),
                    payoff: d.admitted.then_some(d.payoff),
                    reason: (!d.admitted).then(|| d.reason.text().to_string()),
                    placements: Vec::new(),
                });
            }
            OasisOutput::Slot(sp) => {
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

    /// The kernel's error with the job being decided (the first arrived without a decision).
    fn error(&self, e: DriverError<OasisError>) -> RunError {
        let failed = self
            .arrived
            .iter()
            .map(|&j| j as usize)
            .find(|&j| self.jobs[j].is_none());
        match (e, failed) {
            (DriverError::Scheduler(e), Some(i)) => {
                RunError::kernel(e, format!("oasis: job `{}`: {e}", self.ids[i]))
            }
            (e, _) => from_driver(e, |m| format!("oasis: {m}")),
        }
    }
}

fn oasis_decision(o: &OasisOutput<'_>) -> Decision {
    match o {
        OasisOutput::Decision(d) => Decision::of("oasis.decision", Some(d.job), *d),
        OasisOutput::Slot(sp) => Decision::of("oasis.slot", Some(sp.job), sp),
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
            .on_event(now, ev, sink, &mut |o: &OasisOutput<'_>| {
                rows.collect(o);
                out.emit(|| oasis_decision(o))
            });
        r.map_err(|e| self.rows.error(e))
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.driver.scheduler().next_wakeup(after)
    }

    fn finish(&mut self, sink: &mut L, out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        let rows = &mut self.rows;
        let r = self.driver.finish(sink, &mut |o: &OasisOutput<'_>| {
            rows.collect(o);
            out.emit(|| oasis_decision(o))
        });
        r.map_err(|e| self.rows.error(e))?;
        let rows = &self.rows;
        Ok(ResultDoc::Oasis(OasisResult {
            kind: "oasis".into(),
            policy: "oasis".into(),
            summary: OasisSummary {
                admitted: rows.admitted,
                rejected: self.scn.jobs.len() as u32 - rows.admitted,
                total_utility: rows.total,
                prices: self
                    .scn
                    .prices
                    .is_none()
                    .then(|| crate::doc::oasis::PRICES_DERIVED.to_string()),
            },
            jobs: rows.jobs.iter().flatten().cloned().collect(),
            log_hash: sink.hash().hex().to_string(),
        }))
    }

    fn trace(&self, _result: Option<&ResultDoc>) -> Option<super::Trace> {
        Some(super::trace::oasis(self.driver.scheduler()))
    }
}

self_cell::self_cell!(
    /// A baseline runner with the scenario it borrows.
    struct BaselineCell {
        owner: OasisScenario,
        #[not_covariant]
        dependent: BaselineDriver,
    }
);

type BaselineDriver<'a> = Driver<OasisBaseline<'a>>;

/// (slot) -> (worker server -> count, ps server -> count); BTreeMaps keep output order.
type Slots = BTreeMap<u32, (BTreeMap<u32, u32>, BTreeMap<u32, u32>)>;

/// A baseline: every unit placed, collected per job and slot.
struct Baselines {
    ids: Vec<String>,
    policy: String,
    cell: BaselineCell,
    per_job: Vec<Slots>,
}

impl Baselines {
    fn new(
        doc: &OasisDoc,
        scn: OasisScenario,
        p: mlsched_kernel::baseline::Policy,
    ) -> Result<Self, RunError> {
        let n = scn.jobs.len();
        let cell = BaselineCell::try_new(scn, |scn| OasisBaseline::new(p, scn).map(Driver::new))
            .map_err(baseline_error)?;
        Ok(Baselines {
            ids: job_ids(doc),
            policy: crate::exec::baseline::policy_name(p).into(),
            cell,
            per_job: vec![BTreeMap::new(); n],
        })
    }
}

fn baseline_collect(o: &OasisBaselineOutput, per_job: &mut [Slots]) {
    if let OasisBaselineOutput::Unit(u) = o {
        if let Some(s) = per_job.get_mut(u.job as usize) {
            let e = s.entry(u.slot).or_default();
            let m = if u.ps { &mut e.1 } else { &mut e.0 };
            *m.entry(u.server).or_insert(0) += 1;
        }
    }
}

fn baseline_decision(o: &OasisBaselineOutput) -> Decision {
    match o {
        OasisBaselineOutput::Unit(u) => Decision {
            record: "baseline.unit",
            job: Some(u.job),
            data: serde_json::json!({
                "slot": u.slot, "job": u.job, "ps": u.ps, "server": u.server,
            }),
        },
        OasisBaselineOutput::Slot(r) => Decision::of("baseline.slot", Some(r.job), r),
    }
}

impl<L: LogSink> KindEngine<L> for Baselines {
    fn on_event(
        &mut self,
        now: Slot,
        ev: Event<u32>,
        sink: &mut L,
        out: &mut Out<'_>,
    ) -> Result<(), RunError> {
        let per_job = &mut self.per_job;
        self.cell
            .with_dependent_mut(|_, d| {
                d.on_event(now, ev, sink, &mut |o: &OasisBaselineOutput| {
                    baseline_collect(o, per_job);
                    out.emit(|| baseline_decision(o))
                })
            })
            .map_err(|e| match e {
                DriverError::Scheduler(e) => baseline_error(e),
                e => from_driver(e, |m| m),
            })
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.cell
            .with_dependent(|_, d| d.scheduler().next_wakeup(after))
    }

    fn finish(&mut self, sink: &mut L, _out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        self.cell
            .with_dependent_mut(|_, d| d.finish(sink, &mut |_: &OasisBaselineOutput| {}))
            .map_err(|e| from_driver(e, |m| m))?;
        let per_job = std::mem::take(&mut self.per_job);
        let ids = &self.ids;
        let (jobs, admitted, total) = self.cell.with_dependent(|scn, d| {
            let mut jobs = Vec::with_capacity(scn.jobs.len());
            let (mut admitted, mut total) = (0u32, 0.0f64);
            for ((id, job), (st, slots)) in ids
                .iter()
                .zip(&scn.jobs)
                .zip(d.scheduler().jobs().iter().zip(per_job))
            {
                if st.rejected {
                    jobs.push(OasisJobResult {
                        id: id.clone(),
                        admitted: false,
                        completion_slot: None,
                        utility: None,
                        cost: None,
                        payoff: None,
                        reason: Some(
                            "rejected at arrival: utility minus delay cost not above the RRH threshold"
                                .into(),
                        ),
                        placements: Vec::new(),
                    });
                    continue;
                }
                admitted += 1;
                let placements: Vec<OasisPlacement> = slots
                    .into_iter()
                    .map(|(slot, (w, z))| OasisPlacement {
                        slot,
                        workers: w.into_iter().map(|(h, c)| [h, c]).collect(),
                        ps: z.into_iter().map(|(k, c)| [k, c]).collect(),
                    })
                    .collect();
                let utility = st
                    .completion
                    .map_or(0.0, |t| job.utility.at(t - job.arrival));
                total += utility;
                jobs.push(OasisJobResult {
                    id: id.clone(),
                    admitted: true,
                    completion_slot: st.completion,
                    utility: Some(utility),
                    cost: None,
                    payoff: None,
                    reason: st.completion.is_none().then(|| {
                        format!(
                            "{} chunks of {} not processed by the horizon",
                            st.remaining,
                            job.workload()
                        )
                    }),
                    placements,
                });
            }
            (jobs, admitted, total)
        });
        let n = jobs.len() as u32;
        Ok(ResultDoc::Oasis(OasisResult {
            kind: "oasis".into(),
            policy: self.policy.clone(),
            summary: OasisSummary {
                admitted,
                rejected: n - admitted,
                total_utility: total,
                prices: None,
            },
            jobs,
            log_hash: sink.hash().hex().to_string(),
        }))
    }
}
