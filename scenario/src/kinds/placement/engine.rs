//! Kind `"placement"` behind the façade: HAS / JPS / exact / exhaustive (Liu et al. 2024) or
//! the Optimus, Optimus-LB and LAS placements. Every job arrives at slot 0 and `SlotAdvanced`
//! at 0 runs the method; open-world events and submissions follow the kernel's reset rule
//! (`docs/open-world.md`, "Kind placement").
use crate::engine::{Built, Data, Decision, Kind, KindEngine, Out};
use crate::error::{from_driver, RunError};
use crate::kinds::placement::doc::{
    PlacementCategory, PlacementDoc, PlacementJpsInfo, PlacementMarketStats, PlacementResult,
    PlacementTransferStats,
};
use crate::kinds::placement::exec::{best_doc, category_row, method_name, METHODS};
use crate::records::RecordType;
use crate::run::{ResultDoc, RunOptions};
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::driver::Driver;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::placement::Method;
use mlsched_kernel::placement::records;
use mlsched_kernel::placement::{PlacementDecision, PlacementScheduler, Placer};
use mlsched_kernel::record::{DecisionRecord, LogRecord};
use mlsched_kernel::Slot;

/// Kind `"placement"`.
pub struct Placement;

/// The records of a placement run ([`Kind::records`]).
const RECORDS: &[RecordType] = &[
    RecordType::of::<records::CategoryRec>(),
    RecordType::of::<records::GreedyRec>(),
    RecordType::of::<records::ChoiceRec>(),
    RecordType::of::<records::WorkerRec>(),
    RecordType::of::<records::JpsRec>(),
    RecordType::of::<records::ExhaustiveRec>(),
    RecordType::of::<records::InterruptRec>(),
    RecordType::of::<records::PlaceRec>(),
    RecordType::of::<records::BatchRec>(),
];

impl Kind for Placement {
    const NAME: &'static str = "placement";
    const CATEGORIES: bool = true;
    type Doc = PlacementDoc;
    type Result = PlacementResult;

    fn records() -> &'static [RecordType] {
        RECORDS
    }

    fn policies() -> &'static [&'static str] {
        crate::kinds::placement::exec::policies()
    }

    fn engine<L: LogSink>(doc: &PlacementDoc, opts: &RunOptions) -> Result<Built<L>, RunError> {
        let scn = doc.validate()?;
        let method = match opts.policy.as_deref() {
            None | Some("placement") => scn.method,
            Some(p) => match METHODS.iter().find(|(n, _)| *n == p) {
                Some((_, m)) => *m,
                None => return Err(crate::run::unknown_policy(Self::NAME, p, Self::policies())),
            },
        };
        let placer = Placer::new(&scn).map_err(|e| RunError::kernel(e, e.to_string()))?;
        let ids: Vec<String> = doc.jobs.iter().map(|j| j.id.clone()).collect();
        Ok(Built {
            arrivals: vec![0; ids.len()],
            inner: Box::new(Engine {
                ids: ids.clone(),
                method,
                all: opts.all_categories,
                driver: Driver::new(PlacementScheduler::new(placer, method)),
                rows: Vec::new(),
                world: false,
            }),
            ids,
            policy: method_name(method).into(),
        })
    }

    crate::engine::kind_documents!(crate::kinds::placement::exec::summary_text);

    fn result_of(r: &crate::run::ResultDoc) -> Option<&Self::Result> {
        match r {
            crate::run::ResultDoc::Placement(x) => Some(x),
            _ => None,
        }
    }

    fn doc_of(d: &crate::doc::ScenarioDoc) -> Option<&Self::Doc> {
        match d {
            crate::doc::ScenarioDoc::Placement(x) => Some(x),
            _ => None,
        }
    }

    fn server_ids(doc: &PlacementDoc) -> Vec<String> {
        doc.server_ids()
    }

    fn default_server_ids(doc: &PlacementDoc) -> Vec<String> {
        doc.default_server_ids()
    }

    fn capacity_len(_doc: &PlacementDoc) -> usize {
        1
    }

    fn set_statuses(
        r: &mut PlacementResult,
        known: &dyn Fn(u32) -> Option<crate::status::JobStatus>,
    ) {
        crate::kinds::placement::exec::set_statuses(r, known)
    }
}

struct Engine {
    ids: Vec<String>,
    method: Method,
    all: bool,
    driver: Driver<PlacementScheduler>,
    rows: Vec<PlacementCategory>,
    /// An open-world record (interruption, cancel, re-placement) was written.
    world: bool,
}

/// Keeps what the result needs of a decision: the category rows (with `--all`), and whether an
/// open-world record was written (then `best` is built from the runs, not the first batch).
fn collect(
    o: &PlacementDecision<'_>,
    ids: &[&str],
    all: bool,
    rows: &mut Vec<PlacementCategory>,
    world: &mut bool,
) {
    match o {
        PlacementDecision::Category(r) if all => rows.push(category_row(ids, r)),
        PlacementDecision::Record(e) if world_record(e.tag).is_some() => *world = true,
        _ => {}
    }
}

fn decision(o: &PlacementDecision<'_>, ids: &[&str]) -> Decision {
    match o {
        PlacementDecision::Category(r) => Decision::typed(
            records::CategoryRec::NAME,
            None,
            Data::Category(category_row(ids, r)),
        ),
        PlacementDecision::Record(e) => match world_record(e.tag) {
            // The open-world records are named and their fields decoded (they are few: one
            // per event that stops or places a job).
            Some(name) => {
                let d = crate::records::decode_in(RECORDS, e.tag, e.body);
                Decision {
                    record: name,
                    job: d.as_ref().and_then(|d| d.job),
                    data: Data::Json(d.map_or(serde_json::Value::Null, |d| d.fields.into())),
                }
            }
            None => Decision {
                // The method's records (greedy step, choice, worker, JPS window, exhaustive
                // step) share one name.
                record: records::GreedyRec::NAME,
                job: None,
                data: Data::Json(serde_json::json!({ "tag": e.tag, "body": e.body })),
            },
        },
    }
}

/// The decision name of an open-world record (tags `0x36`..=`0x38`), `None` for the method's.
fn world_record(tag: u8) -> Option<&'static str> {
    match tag {
        records::InterruptRec::TAG => Some(records::InterruptRec::NAME),
        records::PlaceRec::TAG => Some(records::PlaceRec::NAME),
        records::BatchRec::TAG => Some(records::BatchRec::NAME),
        _ => None,
    }
}

impl<L: LogSink> KindEngine<L> for Engine {
    fn on_event(
        &mut self,
        now: Slot,
        ev: Event<u32>,
        sink: &mut L,
        out: &mut Out<'_>,
    ) -> Result<(), RunError> {
        let ids: Vec<&str> = self.ids.iter().map(String::as_str).collect();
        let (all, rows, world) = (self.all, &mut self.rows, &mut self.world);
        let method = self.method;
        self.driver
            .on_event(now, ev, sink, &mut |o: &PlacementDecision<'_>| {
                collect(o, &ids, all, rows, world);
                out.emit(|| decision(o, &ids))
            })
            .map_err(|e| from_driver(e, |m| format!("placement ({}): {m}", method_name(method))))
    }

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.driver.scheduler().next_wakeup(after)
    }

    fn finish(&mut self, sink: &mut L, out: &mut Out<'_>) -> Result<ResultDoc, RunError> {
        let ids: Vec<&str> = self.ids.iter().map(String::as_str).collect();
        let (all, rows, method) = (self.all, &mut self.rows, self.method);
        let world = &mut self.world;
        self.driver
            .finish(sink, &mut |o: &PlacementDecision<'_>| {
                collect(o, &ids, all, rows, world);
                out.emit(|| decision(o, &ids))
            })
            .map_err(|e| from_driver(e, |m| format!("placement ({}): {m}", method_name(method))))?;
        let ps = self.driver.scheduler();
        let summary = ps.summary().copied().unwrap_or_default();
        let placer = ps.placer();
        // The first batch describes the run only when it was the whole run: every job in it
        // and no open-world record since; otherwise `best` is built from the runs themselves.
        let closed = ps.summary().is_some() && !self.world && ids.len() == placer.instance().s;
        let best = if closed {
            let mut best = best_doc(&ids, placer.instance(), placer.best());
            best.category = placer.best().counts.clone();
            best
        } else {
            crate::kinds::placement::exec::runs_doc(&ids, ps)
        };
        let market = matches!(method, Method::Has | Method::Jps).then(|| PlacementMarketStats {
            rounds: summary.market_rounds,
            max_rounds: summary.market_rounds_max,
            unit_rounds: summary.market_unit_rounds,
            fallbacks: summary.market_fallbacks,
            classes: placer.instance().classes.len() as u32,
        });
        let jps = (method == Method::Jps).then(|| PlacementJpsInfo {
            categories: summary.category_count,
            from: summary.jps_from,
            priority: placer
                .jps_order()
                .iter()
                .map(|&i| ids[i as usize].to_string())
                .collect(),
        });
        let occupancy = if closed {
            crate::kinds::placement::occupancy::spans(&best)
        } else {
            crate::kinds::placement::occupancy::holds(&ids, ps.holds())
        };
        let jobs = ids
            .iter()
            .map(|id| crate::kinds::placement::doc::PlacementJobRow {
                id: id.to_string(),
                status: None,
            })
            .collect();
        Ok(ResultDoc::Placement(PlacementResult {
            jobs,
            summary: Default::default(),
            kind: "placement".into(),
            policy: method_name(method).into(),
            best,
            categories_examined: summary.examined,
            per_category: all.then(|| std::mem::take(&mut self.rows)),
            market,
            jps,
            transfer: summary.transfer.map(|t| PlacementTransferStats {
                categories: t.categories,
                degenerate: t.degenerate,
                paths: t.paths,
            }),
            occupancy,
            log_hash: sink.hash().hex().to_string(),
        }))
    }

    fn submit(
        &mut self,
        _now: Slot,
        job: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<u32, RunError> {
        let k = self.driver.scheduler().placer().instance().k;
        let (id, model) = crate::kinds::placement::doc::submitted_job(job, k)?;
        let j = self
            .driver
            .scheduler_mut()
            .submit(model)
            .map_err(|e| crate::kinds::placement::doc::refused(&id, e))?;
        self.ids.push(id);
        Ok(j)
    }

    fn status(&self, j: u32) -> Option<mlsched_kernel::world::Status> {
        self.driver.scheduler().status(j)
    }

    fn trace(&self, result: Option<&ResultDoc>) -> Option<crate::engine::Trace> {
        let Some(ResultDoc::Placement(r)) = result else {
            return None;
        };
        let ps = self.driver.scheduler();
        let whole = ps.summary().is_some() && ps.placer().instance().s == self.ids.len();
        // The trace explains the first batch's categories: only when it was the whole run.
        if !matches!(self.method, Method::Has | Method::Jps) || self.world || !whole {
            return None;
        }
        let cats: Vec<&[u32]> = r
            .per_category
            .iter()
            .flatten()
            .map(|c| c.category.as_slice())
            .chain([r.best.category.as_slice()])
            .collect();
        Some(crate::engine::trace::placement(
            self.driver.scheduler().placer(),
            &cats,
        ))
    }
}
