//! Small `Copy` error enums, one per operation family. Callers add file/job context.
use core::fmt;

/// Which fixed capacity of [`crate::limits`] was exceeded.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`crate::limits::RESOURCES_MAX`]
    Resources,
    /// [`crate::limits::SERVERS_MAX`]
    Servers,
    /// [`crate::limits::PS_SERVERS_MAX`]
    PsServers,
    /// [`crate::limits::SLOTS_MAX`]
    Slots,
    /// [`crate::limits::JOBS_MAX`]
    Jobs,
    /// [`crate::limits::LEDGER_CELLS_MAX`]
    LedgerCells,
    /// [`crate::limits::WORKER_TYPES_MAX`]
    WorkerTypes,
    /// [`crate::limits::PS_TYPES_MAX`]
    PsTypes,
    /// [`crate::limits::PLACEMENT_WORKERS_MAX`]
    PlacementWorkers,
    /// [`crate::limits::PLACEMENT_JOBS_MAX`]
    PlacementJobs,
    /// [`crate::limits::PLACEMENT_CATEGORIES_MAX`]
    PlacementCategories,
    /// [`crate::limits::PLACEMENT_EXHAUSTIVE_MAX`]
    PlacementExhaustive,
    /// [`crate::limits::PLACEMENT_JPS_SAMPLES_MAX`]
    PlacementJpsSamples,
    /// [`crate::limits::EDGE_SERVERS_MAX`]
    EdgeServers,
    /// [`crate::limits::WORKERS_PER_SERVER_MAX`]
    WorkersPerServer,
    /// [`crate::limits::PS_PER_SERVER_MAX`]
    PsPerServer,
    /// [`crate::limits::CHUNKS_MAX`]
    Chunks,
    /// [`crate::limits::PREEMPT_TOTAL_CHUNKS_MAX`]
    PreemptTotalChunks,
    /// [`crate::limits::PREEMPT_PLAN_SLOTS_MAX`]
    PreemptPlanSlots,
    /// [`crate::limits::GRAPH_NODES_MAX`]
    GraphNodes,
    /// [`crate::limits::GRAPH_LINKS_MAX`]
    GraphLinks,
    /// [`crate::limits::COMPUTE_SLOTS_MAX`]
    ComputeSlots,
    /// [`crate::limits::ROUTE_WORKERS_MAX`]
    RouteWorkers,
    /// [`crate::limits::ID_BYTES_MAX`]
    IdBytes,
    /// [`crate::limits::RECORD_BYTES_MAX`]
    RecordBytes,
    /// [`crate::limits::OASIS_DP_CELLS_MAX`]
    OasisDpCells,
    /// [`crate::limits::THROUGHPUT_MAX`]
    Throughput,
    /// [`crate::limits::PATH_NODES_MAX`]
    PathNodes,
    /// [`crate::limits::PSO_WORK_MAX`]
    PsoWork,
    /// [`crate::limits::USAGE_RESERVATIONS_MAX`]
    UsageReservations,
    /// [`crate::limits::ONLINE_WINDOW_CELLS_MAX`]
    OnlineWindowCells,
    /// [`crate::limits::SPEEDUP_MODELS_MAX`]
    SpeedupModels,
    /// [`crate::limits::SPEEDUP_GPUS_MAX`]
    SpeedupGpus,
    /// [`crate::limits::SPEEDUP_NODES_MAX`]
    SpeedupNodes,
}

impl Limit {
    /// The constant's name as written in [`crate::limits`].
    pub const fn name(self) -> &'static str {
        match self {
            Limit::Resources => "RESOURCES_MAX",
            Limit::Servers => "SERVERS_MAX",
            Limit::PsServers => "PS_SERVERS_MAX",
            Limit::Slots => "SLOTS_MAX",
            Limit::Jobs => "JOBS_MAX",
            Limit::LedgerCells => "LEDGER_CELLS_MAX",
            Limit::WorkerTypes => "WORKER_TYPES_MAX",
            Limit::PsTypes => "PS_TYPES_MAX",
            Limit::PlacementWorkers => "PLACEMENT_WORKERS_MAX",
            Limit::PlacementJobs => "PLACEMENT_JOBS_MAX",
            Limit::PlacementCategories => "PLACEMENT_CATEGORIES_MAX",
            Limit::PlacementExhaustive => "PLACEMENT_EXHAUSTIVE_MAX",
            Limit::PlacementJpsSamples => "PLACEMENT_JPS_SAMPLES_MAX",
            Limit::EdgeServers => "EDGE_SERVERS_MAX",
            Limit::WorkersPerServer => "WORKERS_PER_SERVER_MAX",
            Limit::PsPerServer => "PS_PER_SERVER_MAX",
            Limit::Chunks => "CHUNKS_MAX",
            Limit::PreemptTotalChunks => "PREEMPT_TOTAL_CHUNKS_MAX",
            Limit::PreemptPlanSlots => "PREEMPT_PLAN_SLOTS_MAX",
            Limit::GraphNodes => "GRAPH_NODES_MAX",
            Limit::GraphLinks => "GRAPH_LINKS_MAX",
            Limit::ComputeSlots => "COMPUTE_SLOTS_MAX",
            Limit::RouteWorkers => "ROUTE_WORKERS_MAX",
            Limit::IdBytes => "ID_BYTES_MAX",
            Limit::RecordBytes => "RECORD_BYTES_MAX",
            Limit::OasisDpCells => "OASIS_DP_CELLS_MAX",
            Limit::Throughput => "THROUGHPUT_MAX",
            Limit::PathNodes => "PATH_NODES_MAX",
            Limit::PsoWork => "PSO_WORK_MAX",
            Limit::UsageReservations => "USAGE_RESERVATIONS_MAX",
            Limit::OnlineWindowCells => "ONLINE_WINDOW_CELLS_MAX",
            Limit::SpeedupModels => "SPEEDUP_MODELS_MAX",
            Limit::SpeedupGpus => "SPEEDUP_GPUS_MAX",
            Limit::SpeedupNodes => "SPEEDUP_NODES_MAX",
        }
    }
}

/// A fixed capacity was exceeded: `got` items where the build supports at most `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapacityError {
    /// The limit that was hit.
    pub limit: Limit,
    /// The build's maximum.
    pub max: u64,
    /// The value that was asked for.
    pub got: u64,
    /// The job (index in the scenario's job list) the limit was hit for, when the limit bounds
    /// one job (`CHUNKS_MAX`, `OASIS_DP_CELLS_MAX`, `PREEMPT_PLAN_SLOTS_MAX`, ...); `None` for a
    /// limit on the whole scenario. The document layer turns it into the job's id and field.
    pub job: Option<u32>,
}

impl CapacityError {
    /// The same error, hit for job `job` (index in the scenario).
    pub const fn for_job(self, job: u32) -> Self {
        CapacityError {
            job: Some(job),
            ..self
        }
    }
}

impl fmt::Display for CapacityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(j) = self.job {
            write!(f, "job #{j}: ")?;
        }
        write!(
            f,
            "{} exceeds this build's limit {} = {}",
            self.got,
            self.limit.name(),
            self.max
        )
    }
}

/// Refusals of the usage ledger ([`crate::ledger::Ledger`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LedgerError {
    /// The storage handed to the ledger does not hold slots x servers x resources cells.
    StorageSize {
        /// cells needed
        needed: u64,
        /// cells given
        given: u64,
    },
    /// A slot, server or resource index outside the ledger's shape.
    OutOfRange {
        /// slot asked for
        slot: u32,
        /// server asked for
        server: u32,
        /// resource asked for
        resource: u32,
    },
    /// An amount that is negative, NaN or infinite.
    BadAmount {
        /// resource index of the bad amount
        resource: u32,
    },
    /// Reserving would push usage g_h^r(t) above capacity c_h^r.
    OverCapacity {
        /// slot t
        slot: u32,
        /// server h
        server: u32,
        /// resource r
        resource: u32,
        /// usage after the reservation
        would_use: f64,
        /// capacity c_h^r
        capacity: f64,
    },
    /// Releasing more than is in use.
    ReleaseUnderflow {
        /// slot t
        slot: u32,
        /// server h
        server: u32,
        /// resource r
        resource: u32,
    },
    /// The capacity table given to the ledger has a wrong shape or a bad value.
    BadCapacity {
        /// server h
        server: u32,
        /// resource r
        resource: u32,
    },
    /// The ledger would exceed a build limit.
    Capacity(CapacityError),
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LedgerError::StorageSize { needed, given } => {
                write!(f, "ledger storage holds {given} cells, needs {needed}")
            }
            LedgerError::OutOfRange { slot, server, resource } => write!(
                f,
                "ledger cell (slot {slot}, server {server}, resource {resource}) is out of range"
            ),
            LedgerError::BadAmount { resource } => {
                write!(f, "amount for resource {resource} is negative or not finite")
            }
            LedgerError::OverCapacity { slot, server, resource, would_use, capacity } => write!(
                f,
                "slot {slot}, server {server}, resource {resource}: usage {would_use} would exceed capacity {capacity}"
            ),
            LedgerError::ReleaseUnderflow { slot, server, resource } => write!(
                f,
                "slot {slot}, server {server}, resource {resource}: release exceeds usage"
            ),
            LedgerError::BadCapacity { server, resource } => write!(
                f,
                "capacity of server {server}, resource {resource} is negative or not finite"
            ),
            LedgerError::Capacity(e) => e.fmt(f),
        }
    }
}

impl From<CapacityError> for LedgerError {
    fn from(e: CapacityError) -> Self {
        LedgerError::Capacity(e)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for CapacityError {}
#[cfg(feature = "std")]
impl std::error::Error for LedgerError {}
