//! `mlsched import`: real traces from the bundled `data/` folder (or `--data DIR`, a copy with
//! the same layout; lookup order in [`crate::data`]) turned into scenario documents.
//!
//! Sources ([`Source`]) and what each gives:
//! - `philly` (Microsoft Philly via Pollux, `philly_jobs_*.csv`): jobs — submit time, duration
//!   in seconds, GPUs; no server list (servers are synthetic: `--servers` x 8 GPUs).
//! - `openb` (Alibaba PAI openb, ATC'23): jobs from `openb_pod_list_default.csv` (pods with
//!   `num_gpu >= 1`: creation / deletion time, GPUs or GPU fraction, CPU milli-cores, memory MiB)
//!   and servers from `openb_node_list_all_node.csv` (GPU nodes -> worker servers, CPU-only nodes
//!   -> parameter-server servers).
//! - `pai-nodes` (Alibaba PAI 2020 `pai_machine_spec.csv`): servers only (GPU machines -> worker
//!   servers, `CPU` machines -> PS servers); the jobs come from `--jobs-from philly|openb`.
//! - `gavel` (Gavel throughput matrix): worker types K80 / P100 / V100 with measured steps/s; the
//!   jobs (arrivals, sizes) come from `--jobs-from`, each job is given a Gavel job type drawn with
//!   the seeded PRNG, and on kind "online" its mini-batch time per worker type is the reference
//!   time scaled by throughput(V100) / throughput(type).
//! - `pollux` (a Pollux-style workload): the `philly` jobs on `--servers` synthetic 4-GPU
//!   machines, each job given a model family with its measured speed-up table ([`pollux`]);
//!   without `--slots` and `--slot-seconds`, a slot length and horizon the jobs can finish in
//!   (`build::fitting_horizon`, docs/throughput.md).
//!
//! `--throughput pollux` (any source and kind; implied by `pollux`) adds the Pollux-derived
//! speed-up table s(g, n) per model family, gives each job a family by its GPU-hours, and
//! counts a job's work at its most consolidated placement: s(g, ceil(g / GPUs per server)) x d
//! worker-slots instead of g d (see [`pollux`] and docs/throughput.md).
//!
//! The mapping (every knob is an [`ImportOptions`] field and a CLI flag):
//! - Resources are `["gpu", "cpu", "mem_gb", "bw_gbps"]`: GPU count (fractional for GPU-sharing
//!   pods), CPU cores, memory GB, and a bandwidth figure (`--server-bw`, `--worker-bw`,
//!   `--ps-bw`; the traces carry none).
//! - Time: arrival slot = floor((submit - first submit) / slot_seconds); duration in slots
//!   d = max(1, ceil(duration_s / slot_seconds)). `--slot-seconds 0` (default) picks the slot so
//!   that the arrivals span half the horizon `--slots` (kind "oasis") or T / (2 alpha) slots
//!   with alpha = 4 (kind "online": A_online runs the batch of the jobs that arrived before
//!   tau_i from slot alpha tau_i on, so later arrivals could never be scheduled by the horizon;
//!   see docs/online.md).
//! - Work: a job that ran g GPUs for d slots has g d worker-slots of work. Kind "oasis": N_i =
//!   g x `--max-scale` chunks (the most workers it may use), M_i = 1, E_i = ceil(g d / N_i) epochs,
//!   chunk time m_i = g d / (E_i N_i) <= 1 slot split into tau_i = m_i / (1 + 2 c) and
//!   comm = c tau_i with c = `--comm-ratio`; so g workers finish it in about d slots. Kind
//!   "online": D_j = N_i, K_j = 1, E_j = `--epochs`, v_j = g d / (E_j D_j) (per worker type:
//!   scaled by Gavel throughputs), U_j = c v_j, pi_j = c v_j b / 2.
//! - Value: kind "oasis" utility is a sigmoid with priority ~ U[1, 100), decay ~ U[0.1, 1) and
//!   target = `--target-factor` x d; kind "online" weight ~ U[1, 100). Drawn from SplitMix64
//!   seeded with `--seed`, in job order.
//! - Which jobs: `--jobs N` consecutive jobs (by submit time, ties by file order) starting at row
//!   `--start`; with `--start` absent the window start is drawn from the seed.
//! - Servers: `--servers H` worker servers (the first H GPU nodes in file order, or synthetic
//!   8-GPU servers for `philly`), `--ps-servers K` PS servers. Without `--ps-servers` the PS
//!   machines grow with the worker servers ([`PS_AUTO`]): K = ceil(H / [`WORKERS_PER_PS`])
//!   (the first K CPU-only nodes of the node list, all of them if it has fewer; synthetic
//!   96-core servers for `philly`), and every CPU-only node with `--servers all`.
use mlsched_kernel::rng::SplitMix64;
use mlsched_scenario::error::{InputError, RunError};
use std::path::{Path, PathBuf};

pub mod binding;
mod build;
pub mod pollux;
pub mod reach;
mod read;
mod target;
pub mod workload;

pub use build::{to_oasis, to_online, Horizon};
pub use read::{read_gavel, read_openb_jobs, read_openb_nodes, read_pai_nodes, read_philly};

/// A trace source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Microsoft Philly jobs (via Pollux).
    Philly,
    /// Alibaba PAI openb pods and nodes.
    Openb,
    /// Alibaba PAI 2020 machine specification (servers).
    PaiNodes,
    /// Gavel throughput matrix (worker types).
    Gavel,
    /// A Pollux-style workload: Philly jobs, each given a model family with its measured
    /// speed-up table, on 4-GPU machines (the measurements'), `--throughput pollux` implied.
    Pollux,
}

impl Source {
    /// Parses a CLI name.
    pub fn parse(s: &str) -> Result<Source, InputError> {
        match s {
            "philly" => Ok(Source::Philly),
            "openb" => Ok(Source::Openb),
            "pai-nodes" => Ok(Source::PaiNodes),
            "gavel" => Ok(Source::Gavel),
            "pollux" => Ok(Source::Pollux),
            other => Err(InputError::new(
                "option",
                "source",
                format!(
                    "unknown trace `{other}`; expected philly, openb, pai-nodes, gavel or pollux"
                ),
            )),
        }
    }
}

/// Every knob of the mapping (see the module docs).
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Target kind: "oasis" or "online".
    pub kind: String,
    /// The data folder: the repository's `data/` or another copy with the same layout.
    pub data_dir: PathBuf,
    /// Jobs to take.
    pub jobs: usize,
    /// First job row (after sorting by submit time); `None` = drawn from the seed.
    pub start: Option<usize>,
    /// PRNG seed.
    pub seed: u64,
    /// Horizon T in slots; 0 = chosen: sized from `slot_seconds` (see [`build::horizon`]), 200
    /// without it, or, for source `pollux` with neither, a horizon and slot length its jobs
    /// can finish in (`build::fitting_horizon`).
    pub slots: u32,
    /// Seconds per slot; 0 = arrivals span half the horizon (kind "oasis") or T / (2 alpha)
    /// (kind "online").
    pub slot_seconds: f64,
    /// Kind "online": `ps` (parameter servers) or `ring` (Ring-AllReduce).
    pub architecture: String,
    /// Worker servers H.
    pub servers: usize,
    /// PS servers K (kind "oasis"); [`PS_AUTO`] = sized with the worker servers.
    pub ps_servers: usize,
    /// Most workers per job = GPUs x this.
    pub max_scale: u32,
    /// Communication time per mini-batch as a fraction of compute time.
    pub comm_ratio: f64,
    /// Sigmoid target = this x the traced duration.
    pub target_factor: f64,
    /// Kind "online": epochs E_j.
    pub epochs: u32,
    /// Bandwidth capacity of a server.
    pub server_bw: f64,
    /// b: bandwidth of one worker.
    pub worker_bw: f64,
    /// B: bandwidth of one PS.
    pub ps_bw: f64,
    /// `pai-nodes` / `gavel`: where the jobs come from (philly or openb).
    pub jobs_from: Source,
    /// Kind "oasis": the cost of preemption in seconds, written as the scenario's
    /// `restart_slots` (this / the slot length); 0 = not modelled (no field written).
    pub restart_seconds: f64,
    /// How a job's speed depends on its placement (`--throughput`); source `pollux` always
    /// uses [`pollux::ThroughputModel::Pollux`].
    pub throughput: pollux::ThroughputModel,
    /// Source `pollux`: a workload file in the peer simulator's format (`--workload`), read
    /// instead of the Philly jobs ([`workload`]).
    pub workload: Option<PathBuf>,
    /// `--workload`: GPUs per machine (the peer's 4).
    pub gpus_per_server: u32,
}

/// The restart time the importers write by default, in seconds: the peer simulator's (Pollux /
/// AdaptDL charges every reallocation 30 s; `docs/restart.md`).
pub const RESTART_SECONDS_DEFAULT: f64 = 30.0;

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            kind: "oasis".into(),
            data_dir: PathBuf::from(crate::data::BUILD_DATA_DIR),
            jobs: 100,
            start: Some(0),
            seed: 1,
            slots: 200,
            slot_seconds: 0.0,
            architecture: "ps".into(),
            servers: 8,
            ps_servers: PS_AUTO,
            max_scale: 2,
            comm_ratio: 0.1,
            target_factor: 1.5,
            epochs: 10,
            server_bw: 25.0,
            worker_bw: 1.0,
            ps_bw: 5.0,
            jobs_from: Source::Philly,
            restart_seconds: RESTART_SECONDS_DEFAULT,
            throughput: pollux::ThroughputModel::Linear,
            workload: None,
            gpus_per_server: 4,
        }
    }
}

/// One job as read from a trace, before mapping.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceJob {
    /// Id (trace name or row).
    pub id: String,
    /// Submit time in seconds (any origin).
    pub submit: f64,
    /// Run time in seconds.
    pub duration: f64,
    /// Workers (whole GPUs; 1 for a GPU-sharing pod).
    pub workers: u32,
    /// GPUs per worker (a fraction for GPU-sharing pods).
    pub gpu: f64,
    /// CPU cores per worker.
    pub cpu: f64,
    /// Memory GB per worker.
    pub mem_gb: f64,
}

/// A server capacity `[gpu, cpu, mem_gb, bw]`.
pub type Server = [f64; 4];

/// Gavel isolated throughputs (steps/s) of one job type on K80, P100, V100.
#[derive(Clone, Debug, PartialEq)]
pub struct GavelType {
    /// Gavel's job type name.
    pub name: String,
    /// Steps/s on [K80, P100, V100] (0 = cannot run there).
    pub throughput: [f64; 3],
}

/// Error naming a trace file, row and field.
pub(crate) fn bad(path: &Path, row: usize, field: &str, problem: impl Into<String>) -> InputError {
    InputError::new(format!("{} row {row}", path.display()), field, problem)
}

/// Imports `source` as a scenario of `opts.kind`, returning pretty JSON.
pub fn import_json(source: Source, opts: &ImportOptions) -> Result<String, RunError> {
    pretty(source, opts).map(|(s, _)| s)
}

/// [`import_json`] and what the import took and chose, with the binding-resource check
/// ([`binding`]: one `fifo` run on the scenario) in [`ImportReport::binding`].
pub fn import_json_with_report(
    source: Source,
    opts: &ImportOptions,
) -> Result<(String, ImportReport), RunError> {
    let (s, mut report) = pretty(source, opts)?;
    let doc = mlsched_scenario::doc::parse(&s)?;
    report.binding = Some(binding::check(&doc));
    Ok((s, report))
}

fn pretty(source: Source, opts: &ImportOptions) -> Result<(String, ImportReport), RunError> {
    let (v, report) = import_with_report(source, opts)?;
    let mut s = serde_json::to_string_pretty(&v).map_err(|e| RunError::runtime(e.to_string()))?;
    s.push('\n');
    crate::gen::refuse_what_run_refuses(&s)?;
    Ok((s, report))
}

/// What one import took and chose: printed by `mlsched import` on stderr, so a whole-trace
/// replay says which slot length and horizon it runs on.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportReport {
    /// Jobs taken.
    pub jobs: usize,
    /// Jobs the trace has.
    pub trace_jobs: usize,
    /// Worker servers H.
    pub worker_servers: usize,
    /// GPUs of the worker servers.
    pub gpus: f64,
    /// PS servers K (kind "oasis"); kind "online" has one server pool: the CPU-only nodes in
    /// it (`--servers all`, PS architecture), else 0.
    pub ps_servers: usize,
    /// K came from the default rule ([`PS_AUTO`]), not from `--ps-servers`.
    pub ps_default: bool,
    /// Slot length and horizon.
    pub horizon: Horizon,
    /// Longest traced duration, in slots.
    pub longest_job_slots: f64,
    /// Jobs whose CPU or memory demand was capped at the largest worker server's.
    pub capped: usize,
    /// The binding-resource check, when it ran (printed after the summary, on its own lines).
    pub binding: Option<binding::Binding>,
    /// Kind "oasis": the jobs that cannot finish within the horizon even alone at their best
    /// speed ([`reach`]); a warning line names them.
    pub unfinishable: Vec<String>,
}

impl core::fmt::Display for ImportReport {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let h = &self.horizon;
        let days = h.slot_seconds * h.slots as f64 / 86_400.0;
        write!(
            f,
            "{} of {} jobs on {} worker servers ({} GPUs) and {} PS servers{}; slot {} s, \
             horizon T = {} slots ({days:.1} days), arrivals in slots 0..={}, longest job {} \
             slots",
            self.jobs,
            self.trace_jobs,
            self.worker_servers,
            self.gpus,
            self.ps_servers,
            self.ps_rule(),
            round3(h.slot_seconds),
            h.slots,
            h.last_arrival,
            self.longest_job_slots
        )?;
        if self.capped > 0 {
            write!(
                f,
                "; {} jobs' CPU or memory capped at the largest server's",
                self.capped
            )?;
        }
        let h = &self.horizon;
        if let Some(w) = reach::warning(&self.unfinishable, self.jobs, h.slots, h.slot_seconds) {
            write!(f, "\n{w}")?;
        }
        match &self.binding {
            Some(b @ binding::Binding::Found(v)) if !v.is_empty() => write!(f, "\n{b}"),
            Some(b @ binding::Binding::NotRun(_)) => write!(f, "\n{b}"),
            _ => Ok(()),
        }
    }
}

impl ImportReport {
    /// How K was chosen, when by the default rule.
    fn ps_rule(&self) -> String {
        if !self.ps_default || self.ps_servers == 0 {
            return String::new();
        }
        let wanted = self.worker_servers.div_ceil(WORKERS_PER_PS);
        if self.ps_servers < wanted {
            format!(
                " (default 1 per {WORKERS_PER_PS} worker servers would be {wanted}: all the \
                 CPU-only nodes the list has)"
            )
        } else {
            format!(" (default: 1 per {WORKERS_PER_PS} worker servers)")
        }
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Imports `source` as a scenario document value of `opts.kind`.
pub fn import_value(source: Source, opts: &ImportOptions) -> Result<serde_json::Value, RunError> {
    import_with_report(source, opts).map(|(v, _)| v)
}

/// [`import_value`] and what the import took and chose, with the jobs that cannot finish
/// within the horizon (kind "oasis", [`reach`]).
pub fn import_with_report(
    source: Source,
    opts: &ImportOptions,
) -> Result<(serde_json::Value, ImportReport), RunError> {
    let (v, mut report) = import_mapped(source, opts)?;
    if let Some(unfinishable) = target::of(&opts.kind)?.unfinishable {
        report.unfinishable = unfinishable(&v);
    }
    Ok((v, report))
}

/// The mapping itself (the module docs).
fn import_mapped(
    source: Source,
    opts: &ImportOptions,
) -> Result<(serde_json::Value, ImportReport), RunError> {
    let target = target::of(&opts.kind)?;
    if let Some(w) = &opts.workload {
        return workload::import(source, w, opts);
    }
    check_options(opts)?;
    let d = &opts.data_dir;
    let job_source = match source {
        Source::Philly | Source::Openb => source,
        Source::Pollux => Source::Philly,
        Source::PaiNodes | Source::Gavel => opts.jobs_from,
    };
    let all = match job_source {
        Source::Openb => {
            read_openb_jobs(&d.join("alibaba-openb-gpu-2023/openb_pod_list_default.csv"))?
        }
        Source::Philly => {
            read_philly(&d.join("philly-via-pollux/philly_jobs_2017-10-09_2017-10-10.csv"))?
        }
        other => {
            return Err(InputError::new(
                "option",
                "jobs-from",
                format!("{other:?} has no jobs; use philly or openb"),
            )
            .into())
        }
    };
    let mut rng = SplitMix64::new(opts.seed);
    let jobs = window(&all, opts, &mut rng)?;
    let (workers, ps) = match source {
        Source::Openb => read_openb_nodes(
            &d.join("alibaba-openb-gpu-2023/openb_node_list_all_node.csv"),
            opts,
        )?,
        Source::PaiNodes => {
            read_pai_nodes(&d.join("alibaba-pai-gpu-2020/pai_machine_spec.csv"), opts)?
        }
        Source::Pollux => synthetic_servers(opts, pollux::SERVER_GPUS)?,
        _ => synthetic_servers(opts, 8.0)?,
    };
    let gavel = if source == Source::Gavel {
        Some(read_gavel(&d.join("gavel/throughputs_isolated.csv"))?)
    } else {
        None
    };
    let profiles = match (source, opts.throughput) {
        (Source::Pollux, _) | (_, pollux::ThroughputModel::Pollux) => {
            Some(pollux::Profiles::new(d, &jobs, opts.seed)?)
        }
        _ => None,
    };
    // Source pollux without --slots and --slot-seconds: a horizon the workload can finish in.
    let fitted;
    let opts = if source == Source::Pollux && opts.slots == 0 && opts.slot_seconds <= 0.0 {
        let gpus = workers.iter().map(|s| s[0]).sum();
        let (slot_seconds, slots) = build::fitting_horizon(&jobs, gpus);
        fitted = ImportOptions {
            slot_seconds,
            slots,
            ..opts.clone()
        };
        &fitted
    } else {
        opts
    };
    let mapped = target::Mapped {
        jobs: &jobs,
        workers: &workers,
        ps: &ps,
        gavel: gavel.as_deref(),
        profiles: profiles.as_ref(),
    };
    let v = (target.build)(&mapped, opts, &mut rng)?;
    let horizon = build::horizon(&jobs, opts, (target.span_factor)())?;
    let max_cpu = workers.iter().map(|s| s[1]).fold(0.0, f64::max);
    let max_mem = workers.iter().map(|s| s[2]).fold(0.0, f64::max);
    let report = ImportReport {
        jobs: jobs.len(),
        trace_jobs: all.len(),
        worker_servers: workers.len(),
        gpus: workers.iter().map(|s| s[0]).sum(),
        ps_servers: if (target.ps_servers)(opts) {
            ps.len()
        } else {
            0
        },
        ps_default: opts.ps_servers == PS_AUTO && opts.servers != ALL,
        binding: None,
        longest_job_slots: jobs
            .iter()
            .map(|j| (j.duration / horizon.slot_seconds).ceil().max(1.0))
            .fold(0.0, f64::max),
        capped: jobs
            .iter()
            .filter(|j| j.cpu > max_cpu || j.mem_gb > max_mem)
            .count(),
        horizon,
        unfinishable: Vec::new(),
    };
    Ok((v, report))
}

/// `jobs`, `servers` or `ps_servers` = every one the trace or node list has (`--jobs all`).
pub const ALL: usize = usize::MAX;

/// `ps_servers` not given: K = ceil(H / [`WORKERS_PER_PS`]) PS servers for H worker servers
/// (every CPU-only node with `--servers all`). A fixed K would make the PS machines the silent
/// bottleneck of a large cluster: with 2 of them, 8 and 512 worker servers ran the same.
pub const PS_AUTO: usize = usize::MAX - 1;

/// Worker servers per PS server by default: 4, the ratio of the openb node list itself (1,213
/// GPU nodes to 310 CPU-only nodes); it keeps the historical 2 PS servers for 8 worker servers.
pub const WORKERS_PER_PS: usize = 4;

/// The PS servers `opts` asks for: `opts.ps_servers`, or by the [`PS_AUTO`] rule.
pub(crate) fn ps_wanted(opts: &ImportOptions) -> usize {
    match (opts.ps_servers, opts.servers) {
        (PS_AUTO, ALL) => ALL,
        (PS_AUTO, h) => h.div_ceil(WORKERS_PER_PS),
        (k, _) => k,
    }
}

/// Refuses option values no import can honour, naming the option (never clamps them).
fn check_options(opts: &ImportOptions) -> Result<(), RunError> {
    use mlsched_kernel::limits as l;
    let bad = |field: &str, problem: String| -> Result<(), RunError> {
        Err(InputError::new("option", field, problem).into())
    };
    let counts = [
        ("jobs", opts.jobs, l::JOBS_MAX, "JOBS_MAX"),
        ("servers", opts.servers, l::SERVERS_MAX, "SERVERS_MAX"),
        (
            "ps-servers",
            opts.ps_servers,
            l::PS_SERVERS_MAX,
            "PS_SERVERS_MAX",
        ),
    ];
    for (field, v, max, limit) in counts {
        if v == 0 {
            return bad(field, "must be at least 1".into());
        }
        if v > max && v != ALL && !(field == "ps-servers" && v == PS_AUTO) {
            return bad(
                field,
                format!("{v} is more than {max} ({limit} of this build)"),
            );
        }
    }
    if opts.slots as usize > l::SLOTS_MAX {
        return bad(
            "slots",
            format!(
                "{} is more than {} (SLOTS_MAX of this build)",
                opts.slots,
                l::SLOTS_MAX
            ),
        );
    }
    match (opts.kind.as_str(), opts.architecture.as_str()) {
        ("online", "ps" | "ring") | ("oasis", "ps") => {}
        ("oasis", a) => {
            return bad(
                "architecture",
                format!("kind \"oasis\" has parameter servers only, not `{a}`"),
            )
        }
        (_, a) => return bad("architecture", format!("`{a}` is not ps or ring")),
    }
    if opts.epochs == 0 {
        return bad("epochs", "must be at least 1".into());
    }
    if opts.max_scale == 0 {
        return bad("max-scale", "must be at least 1".into());
    }
    let reals = [
        ("comm-ratio", opts.comm_ratio, 0.0),
        ("slot-seconds", opts.slot_seconds, 0.0),
        ("target-factor", opts.target_factor, f64::MIN_POSITIVE),
        ("restart-seconds", opts.restart_seconds, 0.0),
    ];
    for (field, v, min) in reals {
        if !v.is_finite() || v < min {
            let at_least = if min > 0.0 { "> 0" } else { ">= 0" };
            return bad(
                field,
                format!("must be a finite number {at_least}, got {v}"),
            );
        }
    }
    Ok(())
}

/// `opts.jobs` consecutive jobs by submit time from `opts.start` (or a seeded start); asking
/// for more than the trace has is an error naming what it has.
fn window(
    all: &[TraceJob],
    opts: &ImportOptions,
    rng: &mut SplitMix64,
) -> Result<Vec<TraceJob>, RunError> {
    let mut sorted: Vec<&TraceJob> = all.iter().collect();
    // Stable: equal submit times keep file order.
    sorted.sort_by(|a, b| a.submit.total_cmp(&b.submit));
    let n = if opts.jobs == ALL {
        sorted.len()
    } else {
        opts.jobs
    };
    if n > sorted.len() {
        return Err(InputError::new(
            "option",
            "jobs",
            format!("{n} jobs asked, the trace has {}", sorted.len()),
        )
        .into());
    }
    let room = sorted.len() - n;
    let start = match opts.start {
        Some(s) if s > room => {
            return Err(InputError::new(
                "option",
                "start",
                format!(
                "{s} leaves fewer than {n} jobs: the trace has {}, so --start is at most {room}",
                sorted.len()
            ),
            )
            .into())
        }
        Some(s) => s,
        None => rng.below(room as u64 + 1) as usize,
    };
    Ok(sorted[start..start + n]
        .iter()
        .map(|j| (*j).clone())
        .collect())
}

/// `opts.servers` servers of `gpus` GPUs (8 for `philly`; 96 cores, 512 GB) and
/// `opts.ps_servers` CPU servers, for traces without a server list.
fn synthetic_servers(
    opts: &ImportOptions,
    gpus: f64,
) -> Result<(Vec<Server>, Vec<Server>), RunError> {
    for (field, v) in [("servers", opts.servers), ("ps-servers", ps_wanted(opts))] {
        if v == ALL {
            return Err(InputError::new(
                "option",
                field,
                "`all` needs a node list: sources openb and pai-nodes have one, this one does not",
            )
            .into());
        }
    }
    Ok((
        vec![[gpus, 96.0, 512.0, opts.server_bw]; opts.servers],
        vec![[0.0, 96.0, 512.0, opts.server_bw]; ps_wanted(opts)],
    ))
}

/// The data folder by the lookup order of [`crate::data`] without an explicit `--data` (None if
/// nothing is found).
pub fn find_data_dir() -> Option<PathBuf> {
    crate::data::data_dir(None).ok()
}
