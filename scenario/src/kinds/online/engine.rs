//! Kind `"online"` behind the façade: A_online (Zhou et al. 2022, Algs. 1-7) or a baseline
//! (FIFO, DRF, Tiresias-LAS, Optimus) on the same scenario.
use crate::engine::{Built, Kind, KindEngine};
use crate::error::RunError;
use crate::kinds::baseline::{baseline_policy, ONLINE_POLICIES};
use crate::kinds::online::doc::{OnlineDoc, OnlineResult};
use crate::records::RecordType;
use crate::run::RunOptions;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::online::Search;
use mlsched_kernel::{baseline, online};

/// Kind `"online"`.
pub struct Online;

/// The records of an A_online or baseline run ([`Kind::records`]).
const RECORDS: &[RecordType] = &[
    RecordType::of::<online::DecisionRec>(),
    RecordType::of::<online::PlacedRec>(),
    RecordType::of::<online::InterruptRec>(),
    RecordType::of::<baseline::online::StartRec>(),
    RecordType::of::<baseline::online::PreemptRec>(),
    RecordType::of::<baseline::world::CancelRec>(),
    RecordType::of::<baseline::world::InterruptRec>(),
];

impl Kind for Online {
    const NAME: &'static str = "online";
    type Doc = OnlineDoc;
    type Result = OnlineResult;

    fn records() -> &'static [RecordType] {
        RECORDS
    }

    fn policies() -> &'static [&'static str] {
        ONLINE_POLICIES
    }

    fn engine<L: LogSink>(doc: &OnlineDoc, opts: &RunOptions) -> Result<Built<L>, RunError> {
        let scn = doc.validate()?;
        let arrivals = scn.jobs.iter().map(|j| j.arrival).collect();
        let ids: Vec<String> = doc.jobs.iter().map(|j| j.id.clone()).collect();
        let (inner, policy): (Box<dyn KindEngine<L>>, String) =
            match opts.policy.as_deref().filter(|p| *p != "online") {
                None => (
                    Box::new(Algorithm::new(doc, scn, Search::Fast)?),
                    "online".into(),
                ),
                Some(name) => {
                    let p = baseline_policy(Self::NAME, name, ONLINE_POLICIES)?;
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

    crate::engine::kind_documents!(crate::kinds::online::exec::summary_text);

    fn result_of(r: &crate::run::ResultDoc) -> Option<&Self::Result> {
        match r {
            crate::run::ResultDoc::Online(x) => Some(x),
            _ => None,
        }
    }

    fn doc_of(d: &crate::doc::ScenarioDoc) -> Option<&Self::Doc> {
        match d {
            crate::doc::ScenarioDoc::Online(x) => Some(x),
            _ => None,
        }
    }

    fn server_ids(doc: &OnlineDoc) -> Vec<String> {
        doc.server_ids()
    }

    fn default_server_ids(doc: &OnlineDoc) -> Vec<String> {
        doc.default_server_ids()
    }

    fn capacity_len(doc: &OnlineDoc) -> usize {
        doc.resources.len()
    }

    fn set_statuses(r: &mut OnlineResult, known: &dyn Fn(u32) -> Option<crate::status::JobStatus>) {
        crate::kinds::online::exec::set_statuses(r, known)
    }
}

use super::algorithm::Algorithm;
use super::baselines::Baselines;
