//! Kind `"oasis"` behind the façade: OASiS (Bao et al. 2018, Alg. 1) or a baseline
//! (FIFO, DRF, Tiresias-LAS, Optimus) on the same scenario.
use crate::engine::{Built, Kind, KindEngine};
use crate::error::RunError;
use crate::kinds::baseline::{baseline_policy, OASIS_POLICIES};
use crate::kinds::oasis::doc::{OasisDoc, OasisResult};
use crate::records::RecordType;
use crate::run::RunOptions;
use mlsched_kernel::log::LogSink;
use mlsched_kernel::{baseline, oasis};

/// Kind `"oasis"`.
pub struct Oasis;

/// The records of an OASiS or baseline run ([`Kind::records`]).
const RECORDS: &[RecordType] = &[
    RecordType::of::<oasis::OasisRecord>(),
    RecordType::of::<oasis::OasisSlotRecordOf<Vec<[u32; 2]>>>(),
    RecordType::of::<oasis::OasisWorldRecord>(),
    RecordType::of::<baseline::oasis::SlotRec>(),
    RecordType::of::<baseline::world::CancelRec>(),
    RecordType::of::<baseline::world::InterruptRec>(),
];

impl Kind for Oasis {
    const NAME: &'static str = "oasis";
    const SERVERS_FIELD: &'static str = "worker_servers";
    type Doc = OasisDoc;
    type Result = OasisResult;

    fn records() -> &'static [RecordType] {
        RECORDS
    }

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

    crate::engine::kind_documents!(crate::kinds::oasis::exec::summary_text);

    fn result_of(r: &crate::run::ResultDoc) -> Option<&Self::Result> {
        match r {
            crate::run::ResultDoc::Oasis(x) => Some(x),
            _ => None,
        }
    }

    fn doc_of(d: &crate::doc::ScenarioDoc) -> Option<&Self::Doc> {
        match d {
            crate::doc::ScenarioDoc::Oasis(x) => Some(x),
            _ => None,
        }
    }

    fn server_ids(doc: &OasisDoc) -> Vec<String> {
        doc.server_ids()
    }

    fn default_server_ids(doc: &OasisDoc) -> Vec<String> {
        doc.default_server_ids()
    }

    fn capacity_len(doc: &OasisDoc) -> usize {
        doc.resources.len()
    }

    fn set_statuses(r: &mut OasisResult, known: &dyn Fn(u32) -> Option<crate::status::JobStatus>) {
        crate::kinds::oasis::exec::set_statuses(r, known)
    }
}

pub(super) fn job_ids(doc: &OasisDoc) -> Vec<String> {
    doc.jobs.iter().map(|j| j.id.clone()).collect()
}

use super::algorithm::Algorithm;
use super::baselines::Baselines;
