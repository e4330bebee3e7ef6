//! Every fixed capacity of the kernel, in one place.
//!
//! Exceeding any of these is a typed [`CapacityError`](crate::CapacityError) naming the
//! [`Limit`](crate::Limit) and the offending value — never a truncation and never a panic.
//! The relations between them are asserted at compile time at the bottom of this module.

/// Resource types R per scenario (GPU, CPU, memory, bandwidth, ...).
pub const RESOURCES_MAX: usize = 8;
/// Servers of one pool (H worker servers of OASiS, the servers of Zhou et al.): a
/// 100,000-GPU cluster of 8-GPU nodes is 12,500 servers.
pub const SERVERS_MAX: usize = 16_384;
/// Parameter-server servers K of OASiS (the CPU-only nodes of a whole cluster).
pub const PS_SERVERS_MAX: usize = 16_384;
/// Time slots T of a scenario: a multi-month trace at a useful slot length (100 days of
/// 1-minute slots is 144,000).
pub const SLOTS_MAX: usize = 1 << 18;
/// Jobs in one scenario: the whole Philly trace (about 117,000 jobs) and then some.
pub const JOBS_MAX: usize = 1 << 20;
/// Cells of a usage ledger (slots x servers x resources) a scheduler may allocate at build time.
pub const LEDGER_CELLS_MAX: usize = 8 * 1024 * 1024;
/// Reservations (one per server of a scheduled job's placement) the sparse usage store of
/// A_online may hold: the bound sum_j min(H, D_j + 1) is checked when the scheduler is built
/// (Zhou et al.).
pub const USAGE_RESERVATIONS_MAX: usize = 1 << 26;
/// Cells (M + P) x H x (window slots + 1) of A_online's per-window search scratch (window prefix
/// sums), reserved when the scheduler is built; only the rows of servers a window's search
/// visits are written (Zhou et al.).
pub const ONLINE_WINDOW_CELLS_MAX: usize = 1 << 28;
/// Worker types M (Zhou et al.).
pub const WORKER_TYPES_MAX: usize = 32;
/// Parameter-server types P (Zhou et al.).
pub const PS_TYPES_MAX: usize = 32;
/// Workers (GPUs) K of a placement scenario (Liu et al.).
pub const PLACEMENT_WORKERS_MAX: usize = 1024;
/// Jobs S of a placement scenario (Liu et al.).
pub const PLACEMENT_JOBS_MAX: usize = 64;
/// Feasible-solution categories abs(Psi) = C(K-1, S-1) one HAS/exact run may examine (Liu et al.).
pub const PLACEMENT_CATEGORIES_MAX: usize = 1 << 24;
/// Worker assignments S^K the exhaustive placement search may enumerate (Liu et al.).
pub const PLACEMENT_EXHAUSTIVE_MAX: usize = 1 << 22;
/// Distinct categories N one JPS run may sample (Liu et al.).
pub const PLACEMENT_JPS_SAMPLES_MAX: usize = 16_384;
/// Price updates of one matching-market run before it falls back to the exact solver (Liu et al.).
pub const PLACEMENT_MARKET_ROUNDS_MAX: usize = 100_000;
/// Largest throughput rho_ij of one job on one worker (Liu et al.). The matching market raises
/// prices p_c in unit steps and compares Gamma_ic = rho_ic - p_c; f64 holds every integer only up
/// to 2^53 (about 9e15), so beyond this bound a unit raise can vanish and the market cannot
/// clear. Real throughputs (samples/s) are many orders of magnitude below it.
pub const THROUGHPUT_MAX: f64 = 1e15;
/// Nodes of one routed path (PS .. compute node), loop-erased; longer paths are refused (Song et
/// al.).
pub const PATH_NODES_MAX: usize = 64;
/// CSRP's PSO work of a whole run: particles x iterations x jobs (Song et al.). Each particle
/// iteration decodes and prices one candidate placement, so this bounds a run's time (about two
/// minutes at 1 us per particle iteration) whatever the two counts are within their own ranges.
pub const PSO_WORK_MAX: u64 = 1 << 27;
/// Edge + cloud servers of a preemptive scenario (Wang et al.).
pub const EDGE_SERVERS_MAX: usize = 256;
/// Workers per edge server (Wang et al.).
pub const WORKERS_PER_SERVER_MAX: usize = 64;
/// Parameter servers per server (Wang et al.).
pub const PS_PER_SERVER_MAX: usize = 64;
/// Chunks D_j of one job (Wang et al.).
pub const CHUNKS_MAX: usize = 4096;
/// Chunks of all jobs of one preemptive scenario together (Wang et al.; sizes the plan pools).
pub const PREEMPT_TOTAL_CHUNKS_MAX: usize = 1 << 22;
/// Last slot a preemptive plan may reach (chunks may run past the arrival horizon T).
pub const PREEMPT_PLAN_SLOTS_MAX: usize = 1 << 24;
/// Nodes of a routing topology (CSRP).
pub const GRAPH_NODES_MAX: usize = 8192;
/// Worker slots of one compute node of a routing topology (CSRP).
pub const COMPUTE_SLOTS_MAX: usize = 1 << 16;
/// Undirected links of a routing topology (CSRP).
pub const GRAPH_LINKS_MAX: usize = 65_536;
/// Workers (compute nodes) one routed job may ask for (CSRP).
pub const ROUTE_WORKERS_MAX: usize = 64;
/// Bytes of one identifier (job, server, node id) in any document.
pub const ID_BYTES_MAX: usize = 64;
/// Bytes of one postcard-encoded log record held in a fixed scratch buffer.
pub const RECORD_BYTES_MAX: usize = 64 * 1024;
/// Cells (reachable rows x (workload E_i N_i + 1)) of the OASiS DP choice table, allocated once
/// when the scheduler is built for the largest job's table, not for this limit (OASiS, Alg. 2;
/// the rows the t_hat scan can reach, at most the window T - a_i, see `docs/oasis.md`).
/// Sized for whole traces at one-hour slots: the whole openb trace's largest table is 18.3
/// million cells there (73 MB of u32 choices), and 2^26 (256 MiB at the limit) leaves it 3.6x.
pub const OASIS_DP_CELLS_MAX: usize = 64 * 1024 * 1024;
/// Branch-and-bound nodes (one tentative worker count of one job) Dorm's MILP solve of one
/// arrival / completion event may visit, over all its fairness-doubling passes: an anytime
/// budget, not an error. An event that reaches it applies the best feasible allocation found
/// (at least the kept / greedy one) and is counted as stopped at the budget with its
/// optimality gap (`docs/oasis.md`, Dorm: why this value).
pub const DORM_EVENT_NODES: u64 = 1 << 12;
/// Arrived, unfinished jobs one Dorm event may solve for (the solver's per-depth buffers are
/// allocated for min(jobs, this) when the runner is built).
pub const DORM_ACTIVE_MAX: usize = 4096;
/// Model families of a placement-aware speed-up table (`model::throughput`): the Pollux data
/// has six.
pub const SPEEDUP_MODELS_MAX: usize = 64;
/// GPUs (workers) G one speed-up table covers; a job on more GPUs extends the last column at
/// its per-GPU efficiency (the Pollux data measures up to 64).
pub const SPEEDUP_GPUS_MAX: usize = 1024;
/// Nodes N one speed-up table distinguishes; a job spread over more nodes runs as on N (the
/// Pollux data measures up to 16). Baselines keep up to N server ids per job as scratch.
pub const SPEEDUP_NODES_MAX: usize = 64;

const _: () = {
    assert!(RESOURCES_MAX >= 1 && RESOURCES_MAX <= u8::MAX as usize);
    assert!(PS_SERVERS_MAX <= SERVERS_MAX);
    // Slots and jobs are carried as u32 in every record.
    assert!(SLOTS_MAX as u64 <= u32::MAX as u64);
    assert!(JOBS_MAX as u64 <= u32::MAX as u64);
    assert!(WORKERS_PER_SERVER_MAX * EDGE_SERVERS_MAX <= u16::MAX as usize);
    assert!(GRAPH_LINKS_MAX as u64 <= u32::MAX as u64);
    assert!(GRAPH_NODES_MAX as u64 <= u32::MAX as u64);
    assert!(ROUTE_WORKERS_MAX <= GRAPH_NODES_MAX);
    assert!(PLACEMENT_JOBS_MAX <= PLACEMENT_WORKERS_MAX);
    assert!(SPEEDUP_NODES_MAX <= SPEEDUP_GPUS_MAX);
};

/// Checks `got <= max` for `limit`, returning the typed error otherwise.
pub fn check(limit: crate::Limit, got: usize, max: usize) -> Result<(), crate::CapacityError> {
    if got <= max {
        Ok(())
    } else {
        Err(crate::CapacityError {
            limit,
            max: max as u64,
            got: got as u64,
            job: None,
        })
    }
}
