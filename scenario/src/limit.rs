//! What the user reads when a run hits one of the kernel's build limits
//! (`mlsched_kernel::limits`, typed as [`CapacityError`]) that only the scheduler can check:
//! the job (id and index) when the limit bounds one job, the document field it bounds (a path
//! such as `jobs[3].chunks`), the limit's constant name and value, and what was asked for.
//!
//! Limits a document can be checked against before running are refused by each kind's
//! `validate` (an input error naming the field, exit code 2); the ones here depend on what the
//! scheduler derives from the whole scenario (a job's DP table, the slot a plan reaches, the
//! ledger's cells), so they surface while building or running it (a runtime error, exit code
//! 1) — with the same shape of message. Every surface (CLI, wasm, C, Python) prints this text.
use crate::doc::ScenarioDoc;
use crate::error::{KernelError, RunError};
use mlsched_kernel::{CapacityError, Limit};

/// The document field `limit` bounds, as a path: `jobs[j].field` for a limit on job `j`,
/// `jobs[*].field` for a sum over jobs, the scenario-level field otherwise.
pub fn field(kind: &str, limit: Limit, job: Option<u32>) -> String {
    let at = |f: &str| match job {
        Some(j) if f.is_empty() => format!("jobs[{j}]"),
        Some(j) => format!("jobs[{j}].{f}"),
        None => format!("jobs[*].{f}"),
    };
    let name = match limit {
        Limit::Resources => "resources",
        Limit::Servers => crate::by_kind_name!(kind, K => K::SERVERS_FIELD).unwrap_or("servers"),
        Limit::EdgeServers => "servers",
        Limit::PsServers => "ps_servers",
        Limit::Slots => "slots",
        Limit::Jobs | Limit::PlacementJobs => "jobs",
        Limit::LedgerCells => "slots, servers, resources",
        Limit::WorkerTypes => "worker_types",
        Limit::PsTypes => "ps_types",
        Limit::PlacementWorkers => "workers",
        Limit::PlacementCategories => "workers, jobs",
        Limit::PlacementExhaustive => "method",
        Limit::PlacementJpsSamples => "jps.samples",
        Limit::WorkersPerServer => "servers[*].workers",
        Limit::PsPerServer => "servers[*].ps",
        Limit::Chunks | Limit::PreemptTotalChunks => return at("chunks"),
        Limit::PreemptPlanSlots | Limit::OasisDpCells => return at(""),
        Limit::GraphNodes => "topology.nodes",
        Limit::GraphLinks => "topology.links",
        Limit::ComputeSlots => "topology.nodes[*].slots",
        Limit::RouteWorkers => return at("workers"),
        Limit::IdBytes => "id",
        Limit::RecordBytes => "decision log record",
        Limit::Throughput => return at("throughput"),
        Limit::PathNodes => return at("ps"),
        Limit::PsoWork => "pso.iterations",
        Limit::UsageReservations => "servers, jobs",
        Limit::OnlineWindowCells => "worker_types, ps_types, servers, slots",
        _ => "scenario",
    };
    name.to_string()
}

/// What a composite limit counts, said after the numbers (empty for a plain count).
fn counts(limit: Limit) -> &'static str {
    match limit {
        Limit::LedgerCells => " (usage ledger cells: slots x servers x resources)",
        Limit::OasisDpCells => {
            " (cells of its OASiS DP table: reachable slots x (epochs x chunks + 1))"
        }
        Limit::PreemptPlanSlots => {
            " (the slot its chunks would end at: arrival + upload delay + processing time)"
        }
        Limit::PreemptTotalChunks => " (chunks of all jobs together)",
        Limit::PlacementCategories => " (feasible-solution categories C(K-1, S-1))",
        Limit::PlacementExhaustive => {
            " (worker assignments S^K of the exhaustive search: use method \"has\" or \"exact\")"
        }
        Limit::PsoWork => " (PSO work: particles x iterations x jobs)",
        Limit::UsageReservations => {
            " (A_online's reservations: sum over jobs of min(servers, workers + 1))"
        }
        Limit::OnlineWindowCells => {
            " (A_online's window scratch: (worker types + PS types) x servers x (slots + 1))"
        }
        _ => "",
    }
}

/// The job ids of `doc`, in document order.
pub(crate) fn job_ids(doc: &ScenarioDoc) -> Vec<String> {
    (0..doc.jobs())
        .map(|j| job_id(doc, j).unwrap_or("?").to_string())
        .collect()
}

/// The id of job `j` in `doc`.
fn job_id(doc: &ScenarioDoc, j: usize) -> Option<&str> {
    use crate::engine::Kind;
    crate::dispatch!(doc, d, K => K::job_id(d, j))
}

/// "job `id` (index j)" (`ids`: the scenario's job ids), or "scenario" for a limit on the
/// whole scenario.
pub fn subject(ids: &[String], job: Option<u32>) -> String {
    match job {
        Some(j) => {
            let id = ids.get(j as usize).map_or("?", String::as_str);
            format!("job `{}` (index {j})", crate::text::terminal_safe(id))
        }
        None => "scenario".into(),
    }
}

/// The message of `e` hit while running a scenario of `kind` whose job ids are `ids`: kind,
/// job, field, the value asked for, the limit's name and value, and what it counts.
pub fn message(kind: &str, ids: &[String], e: CapacityError) -> String {
    format!(
        "{kind}: {}, field `{}`: {} exceeds this build's limit {} = {}{}",
        subject(ids, e.job),
        field(kind, e.limit, e.job),
        e.got,
        e.limit.name(),
        e.max,
        counts(e.limit)
    )
}

/// The build limit behind a kernel error, if that is what it is.
pub fn capacity_of(k: &KernelError) -> Option<CapacityError> {
    use mlsched_kernel::{
        baseline::BaselineError, oasis::OasisError, online::OnlineError, placement::PlacementError,
        preempt::PreemptError, route::RouteError, LedgerError,
    };
    match *k {
        KernelError::Oasis(OasisError::Capacity(c))
        | KernelError::Online(OnlineError::Capacity(c))
        | KernelError::Baseline(BaselineError::Capacity(c))
        | KernelError::Baseline(BaselineError::Ledger(LedgerError::Capacity(c)))
        | KernelError::Placement(PlacementError::Capacity(c))
        | KernelError::Preempt(PreemptError::Capacity(c))
        | KernelError::Route(RouteError::Capacity(c)) => Some(c),
        KernelError::Placement(PlacementError::ExhaustiveTooLarge {
            assignments, max, ..
        }) => Some(CapacityError {
            limit: Limit::PlacementExhaustive,
            max,
            got: assignments,
            job: None,
        }),
        _ => None,
    }
}

/// `e` with its message rewritten by [`message`] when a build limit of the kernel caused it
/// (any other error is returned as it is). `job`, when known, is the job being decided: it is
/// named when the kernel's error does not say which job (a per-job limit hit deep in a plan).
pub(crate) fn locate(kind: &str, ids: &[String], job: Option<u32>, e: RunError) -> RunError {
    let RunError::Runtime(mut r) = e else {
        return e;
    };
    if let Some(mut c) = r.kernel.as_ref().and_then(capacity_of) {
        if c.job.is_none() && matches!(c.limit, Limit::PreemptPlanSlots) {
            c.job = job;
        }
        r.message = message(kind, ids, c);
    }
    RunError::Runtime(r)
}
