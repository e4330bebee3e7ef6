//! Kind `"placement"` behind the façade: HAS / JPS / exact / exhaustive (Liu et al. 2024) or
//! the Optimus, Optimus-LB and LAS placements. Every job arrives at slot 0 and `SlotAdvanced`
//! at 0 runs the method.
use crate::engine::{Built, Data, Decision, Kind, KindEngine, Out};
use crate::error::{from_driver, RunError};
use crate::kinds::placement::doc::{
    PlacementCategory, PlacementDoc, PlacementJpsInfo, PlacementMarketStats, PlacementResult,
    PlacementTransferStats,
};
use crate::kinds::placement::exec::{best_doc, category_row, method_name, METHODS};
use crate::run::{ResultDoc, RunOptions};
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::driver::Driver;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::model::placement::Method;
use mlsched_kernel::placement::{PlacementDecision, PlacementScheduler, Placer};
use mlsched_kernel::Slot;

/// Kind `"placement"`.
pub struct Placement;

impl Kind for Placement {
    const NAME: &'static str = "placement";
    type Doc = PlacementDoc;
    type Result = PlacementResult;

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
            }),
            ids,
            policy: method_name(method).into(),
        })
    }

    crate::engine::kind_documents!(crate::kinds::placement::exec::summary_text);

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
}

fn collect(o: &PlacementDecision<'_>, ids: &[&str], all: bool, rows: &mut Vec<PlacementCategory>) {
    if let (true, PlacementDecision::Category(r)) = (all, o) {
        rows.push(category_row(ids, r));
    }
}

fn decision(o: &PlacementDecision<'_>, ids: &[&str]) -> Decision {
    match o {
        PlacementDecision::Category(r) => Decision::typed(
            "placement.category",
            None,
            Data::Category(category_row(ids, r)),
        ),
        PlacementDecision::Record(e) => Decision {
            record: "placement.record",
            job: None,
            data: Data::Json(serde_json::json!({ "tag": e.tag, "body": e.body })),
        },
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
        let (all, rows) = (self.all, &mut self.rows);
        let method = self.method;
        self.driver
            .on_event(now, ev, sink, &mut |o: &PlacementDecision<'_>| {
                collect(o, &ids, all, rows);
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
        self.driver
            .finish(sink, &mut |o: &PlacementDecision<'_>| {
                collect(o, &ids, all, rows);
                out.emit(|| decision(o, &ids))
            })
            .map_err(|e| from_driver(e, |m| format!("placement ({}): {m}", method_name(method))))?;
        let ps = self.driver.scheduler();
        let summary = ps.summary().copied().unwrap_or_default();
        let placer = ps.placer();
        let mut best = best_doc(&ids, placer.instance(), placer.best());
        best.category = placer.best().counts.clone();
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
        let occupancy = crate::kinds::placement::occupancy::spans(&best);
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

    fn trace(&self, result: Option<&ResultDoc>) -> Option<crate::engine::Trace> {
        let Some(ResultDoc::Placement(r)) = result else {
            return None;
        };
        if !matches!(self.method, Method::Has | Method::Jps) {
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
