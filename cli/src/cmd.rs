//! `mlsched import` and `mlsched compare` (argument parsing, progress bars, files).
use crate::progress::Progress;
use clap::Args;
use mlsched_cli::compare::html::{self, Info};
use mlsched_cli::compare::shard::{self, Shard, ShardFile};
use mlsched_cli::compare::{self, sweep, PolicyReport};
use mlsched_cli::doc::ScenarioDoc;
use mlsched_cli::import::{self, ImportOptions, Source};
use mlsched_cli::{InputError, RunError};
use std::path::{Path, PathBuf};

/// The trace-to-scenario mapping knobs (shared by `import` and `compare import:SOURCE`).
#[derive(Args, Clone, Debug)]
pub struct MapArgs {
    /// Scenario kind to build: oasis or online.
    #[arg(long, default_value = "oasis")]
    kind: String,
    /// The traces folder. Default: $MLSCHED_DATA, else a data/ folder (with the bundled layout)
    /// in the current directory or a parent, else the data/ folder of the source tree built from.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Jobs to take (consecutive by submit time), or `all`: the whole trace.
    #[arg(long, default_value = "100", value_parser = count)]
    jobs: usize,
    /// First job (row after sorting by submit time); absent: drawn from --seed.
    #[arg(long)]
    start: Option<usize>,
    /// PRNG seed (job window when --start is absent, utilities, weights, Gavel job types).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Horizon T in slots. Default: 200, or with --slot-seconds the horizon that holds every
    /// arrival (2 x the arrival span for kind oasis, 2 alpha x for kind online).
    #[arg(long)]
    slots: Option<u32>,
    /// Seconds per slot (0: arrivals span half the horizon for kind oasis, T/(2 alpha) for kind
    /// online, the window A_online can reach).
    #[arg(long, default_value_t = 0.0)]
    slot_seconds: f64,
    /// Kind online: ps (parameter servers) or ring (Ring-AllReduce).
    #[arg(long, default_value = "ps")]
    architecture: String,
    /// Worker (GPU) servers, or `all`: every GPU node of the node list (openb, pai-nodes).
    /// Default 8; 16 with --workload (the Pollux simulator's cluster).
    #[arg(long, value_parser = count)]
    servers: Option<usize>,
    /// Source pollux: a workload file in the Pollux simulator's format (name, time,
    /// application, num_replicas, batch_size), imported under the peer's physics
    /// (docs/peer.md) instead of Philly jobs.
    #[arg(long)]
    workload: Option<PathBuf>,
    /// With --workload: GPUs per machine (default 4, the peer's).
    #[arg(long, default_value_t = 4)]
    gpus_per_server: u32,
    /// Parameter-server (CPU) servers, or `all`: every CPU-only node of the node list. Default:
    /// sized with the worker servers, one PS server per 4 worker servers (rounded up; the first
    /// CPU-only nodes of the node list, all it has if fewer), every CPU-only node with
    /// `--servers all`.
    #[arg(long, value_parser = count)]
    ps_servers: Option<usize>,
    /// Most workers of a job = its traced GPUs x this.
    #[arg(long, default_value_t = 2)]
    max_scale: u32,
    /// Communication time as a fraction of compute time per mini-batch.
    #[arg(long, default_value_t = 0.1)]
    comm_ratio: f64,
    /// Utility target (oasis) = this x the traced duration.
    #[arg(long, default_value_t = 1.5)]
    target_factor: f64,
    /// Epochs E_j (kind online).
    #[arg(long, default_value_t = 10)]
    epochs: u32,
    /// pai-nodes / gavel: where the jobs come from (philly or openb).
    #[arg(long, default_value = "philly")]
    jobs_from: String,
    /// Kind oasis: the cost of preemption, in seconds: a job whose allocation changes, or that
    /// resumes after a pause, makes no progress for this long (written as the scenario's
    /// restart_slots). Default 30, the Pollux/AdaptDL simulator's; 0 turns it off (no field
    /// written: today's model). See docs/restart.md.
    #[arg(long, default_value_t = import::RESTART_SECONDS_DEFAULT)]
    restart_seconds: f64,
    /// linear (a job's speed is its worker count) or pollux (the measured speed-up of its model
    /// family for its GPUs and the servers they span, used by the baselines of kinds oasis and
    /// online; docs/throughput.md). Source pollux always uses pollux.
    #[arg(long, default_value = "linear")]
    throughput: String,
}

/// A count option: a whole number, or `all` ([`import::ALL`]).
fn count(s: &str) -> Result<usize, String> {
    if s == "all" {
        return Ok(import::ALL);
    }
    s.parse::<usize>()
        .map_err(|_| format!("`{s}` is not a whole number >= 0 nor `all`"))
}

impl MapArgs {
    fn options(&self) -> Result<ImportOptions, RunError> {
        let data = mlsched_cli::data::data_dir(self.data.as_deref())?;
        let slots = match self.slots {
            Some(0) => {
                return Err(InputError::new("option", "slots", "must be at least 1").into());
            }
            Some(t) => t,
            None if self.slot_seconds > 0.0 => 0,
            None => 200,
        };
        let ps_servers = self.ps_servers.unwrap_or(import::PS_AUTO);
        Ok(ImportOptions {
            kind: self.kind.clone(),
            data_dir: data,
            jobs: self.jobs,
            start: self.start,
            seed: self.seed,
            slots,
            slot_seconds: self.slot_seconds,
            architecture: self.architecture.clone(),
            servers: self
                .servers
                .unwrap_or(if self.workload.is_some() { 16 } else { 8 }),
            ps_servers,
            max_scale: self.max_scale,
            comm_ratio: self.comm_ratio,
            target_factor: self.target_factor,
            epochs: self.epochs,
            jobs_from: Source::parse(&self.jobs_from)?,
            restart_seconds: self.restart_seconds,
            throughput: import::pollux::ThroughputModel::parse(&self.throughput)?,
            workload: self.workload.clone(),
            gpus_per_server: self.gpus_per_server,
            ..ImportOptions::default()
        })
    }
}

/// `mlsched import SOURCE`.
#[derive(Args, Clone, Debug)]
pub struct ImportArgs {
    /// philly, openb, pai-nodes, gavel or pollux.
    source: String,
    #[command(flatten)]
    map: MapArgs,
    /// Output file (default stdout).
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Do not print what the import took and chose (jobs, servers, slot length, horizon) on
    /// stderr, nor the warning naming a binding resource: a resource type of a server pool
    /// that a fifo run uses most, at >= 90% of capacity, in more than half the busy slots.
    #[arg(long)]
    quiet: bool,
}

/// `mlsched compare SCENARIO`.
#[derive(Args, Clone, Debug)]
#[command(after_help = compare::table::LEGEND)]
pub struct CompareArgs {
    /// Scenario JSON file, or `import:SOURCE` to import a trace with the mapping flags.
    scenario: String,
    /// Comma-separated policies (default: the kind's algorithm and every baseline).
    #[arg(long)]
    policies: Option<String>,
    /// Directory for compare.json, compare.csv and the SVG plots (sweep.json / sweep.csv
    /// with --seeds).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Sweep seeds `A..B` (with `import:SOURCE`: a trace window per seed; with a file path
    /// holding `{seed}`: that file per seed), mean and 95% CI.
    #[arg(long)]
    seeds: Option<String>,
    /// Worker threads of a sweep (default: all cores); results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Leave the wall-clock latency out of the files (they are then reproducible bit for bit).
    #[arg(long)]
    no_timing: bool,
    /// With --seeds: run only shard I of N (0-based, 0 <= I < N; round robin over the seeds)
    /// and write DIR/shard-I-of-N.json for `mlsched merge`. Absent: taken from a Slurm job array
    /// (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT) or a Kubernetes
    /// Indexed Job (JOB_COMPLETION_INDEX of MLSCHED_SHARD_COUNT) when those are set.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    #[command(flatten)]
    map: MapArgs,
}

/// `mlsched merge DIR... --out DIR`.
#[derive(Args, Clone, Debug)]
pub struct MergeArgs {
    /// Shard files, or directories holding shard-I-of-N.json files (written by
    /// `compare --seeds A..B --shard I/N --out DIR`).
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Directory for sweep.json and sweep.csv (byte-identical to the unsharded run's).
    #[arg(long)]
    out: PathBuf,
}

pub fn import(a: &ImportArgs, quiet: bool) -> Result<(), RunError> {
    let src = Source::parse(&a.source)?;
    let pb = Progress::spinner(format!("importing {}", a.source), quiet || a.quiet);
    let imported = import::import_json_with_report(src, &a.map.options()?);
    pb.finish();
    let (text, report) = imported?;
    if !a.quiet {
        eprintln!("imported {}: {report}", a.source);
    }
    match &a.out {
        Some(p) => std::fs::write(p, text)
            .map_err(|e| RunError::runtime(format!("cannot write {}: {e}", p.display()))),
        None => {
            out!("{text}");
            Ok(())
        }
    }
}

/// The scenario text `import:SOURCE` gives for `seed`, and its slot length in seconds.
fn import_text(src: &str, map: &MapArgs, seed: Option<u64>) -> Result<(String, f64), RunError> {
    let mut o = map.options()?;
    if let Some(s) = seed {
        o.seed = s;
        o.start = None;
    }
    let (v, report) = import::import_with_report(Source::parse(src)?, &o)?;
    Ok((v.to_string(), report.horizon.slot_seconds))
}

/// The report's scenario summary of `doc` given as `scenario` (commands filled in).
fn report_info(
    doc: &ScenarioDoc,
    scenario: &str,
    slot_seconds: Option<f64>,
    policies: &[String],
    seed: Option<u64>,
) -> Info {
    let mut info = Info::of(doc, scenario);
    info.slot_seconds = slot_seconds;
    let args: Vec<String> = std::env::args().skip(1).collect();
    html::set_commands(&mut info, &args, scenario, policies, seed);
    info
}

fn load(scenario: &str, map: &MapArgs, seed: Option<u64>) -> Result<ScenarioDoc, RunError> {
    load_with_slot(scenario, map, seed).map(|(d, _)| d)
}

/// [`load`] and the slot length when the scenario is imported.
fn load_with_slot(
    scenario: &str,
    map: &MapArgs,
    seed: Option<u64>,
) -> Result<(ScenarioDoc, Option<f64>), RunError> {
    if let Some(src) = scenario.strip_prefix("import:") {
        let (text, slot) = import_text(src, map, seed)?;
        return Ok((compare::parse(&text)?, Some(slot)));
    }
    let file = seeded_path(scenario, seed);
    let path = Path::new(&file);
    let text = mlsched_cli::input::read_text(path, mlsched_cli::input::Input::Scenario)?;
    let d = compare::parse(&text).map_err(|e| {
        RunError::Input(InputError::new(
            format!("{}: {}", path.display(), e.subject),
            e.field,
            e.problem,
        ))
    })?;
    // A scenario that says its slot length (import pollux --workload) is reported in seconds.
    let slot = match &d {
        ScenarioDoc::Oasis(o) => o.slot_seconds,
        _ => None,
    };
    Ok((d, slot))
}

/// A sweep over scenario files: `{seed}` in the path is the seed (`compare 'dir/s-{seed}.json'
/// --seeds 1..10`, one generated scenario per seed); other paths are used as given.
fn seeded_path(scenario: &str, seed: Option<u64>) -> String {
    match seed {
        Some(s) if scenario.contains(SEED_PLACEHOLDER) => {
            scenario.replace(SEED_PLACEHOLDER, &s.to_string())
        }
        _ => scenario.to_string(),
    }
}

/// The placeholder of [`seeded_path`].
const SEED_PLACEHOLDER: &str = "{seed}";

pub fn compare(a: &CompareArgs, quiet: bool) -> Result<(), RunError> {
    if let Some(seeds) = &a.seeds {
        return run_sweep(a, &sweep::parse_seeds(seeds)?, quiet);
    }
    if let Some(s) = &a.shard {
        return Err(InputError::new(
            "option",
            "shard",
            format!("--shard {s} splits a sweep: give --seeds A..B too"),
        )
        .into());
    }
    let (d, slot_seconds) = load_with_slot(&a.scenario, &a.map, None)?;
    let policies = compare::parse_policies(&d, a.policies.as_deref())?;
    let pb = Progress::new(policies.len() as u64, quiet);
    let mut reports: Vec<PolicyReport> = Vec::new();
    for p in &policies {
        pb.set_message(p.clone());
        reports.push(compare::run_policy(&d, p));
        pb.inc();
    }
    pb.finish();
    compare::set_slot_seconds(&mut reports, slot_seconds);
    outln!(
        "scenario {} (kind {})",
        mlsched_cli::text::terminal_safe(&a.scenario),
        d.kind()
    );
    out!("{}", compare::table(d.kind(), &reports));
    if let Some(dir) = &a.out {
        if a.no_timing {
            reports.iter_mut().for_each(|r| r.timing = None);
        }
        let info = report_info(&d, &a.scenario, slot_seconds, &policies, None);
        let files = compare::output::write_all(dir, &info, &reports)?;
        outln!("wrote {}/{{{}}}", dir.display(), files.join(","));
    }
    if reports.iter().all(|r| r.metrics.status != "ok") {
        let why: Vec<String> = reports
            .iter()
            .map(|r| format!("{}: {}", r.metrics.policy, r.metrics.status))
            .collect();
        return Err(RunError::runtime(format!(
            "no policy could run this scenario ({})",
            why.join("; ")
        )));
    }
    Ok(())
}

fn run_sweep(a: &CompareArgs, seeds: &[u64], quiet: bool) -> Result<(), RunError> {
    if a.threads == Some(0) {
        return Err(InputError::new("option", "threads", "must be at least 1").into());
    }
    let files = a.scenario.contains(SEED_PLACEHOLDER) && !a.scenario.starts_with("import:");
    if !a.scenario.starts_with("import:") && !files {
        return Err(InputError::new(
            "option",
            "seeds",
            "a scenario file is fixed; sweep seeds over `import:SOURCE` (a trace window per seed) \
             or over files named with `{seed}` (e.g. 'runs/s-{seed}.json')",
        )
        .into());
    }
    let shard = match &a.shard {
        Some(s) => Some(Shard::parse(s)?),
        None => Shard::from_env(|k| std::env::var(k).ok())?,
    };
    if shard.is_some() && a.out.is_none() {
        return Err(InputError::new(
            "option",
            "out",
            "a sharded sweep (--shard, or a Slurm / Indexed Job index) writes shard-I-of-N.json: \
             give --out DIR",
        )
        .into());
    }
    let src = a.scenario.trim_start_matches("import:");
    let (first_text, slot_seconds) = if files {
        let path = seeded_path(&a.scenario, seeds.first().copied());
        let text =
            mlsched_cli::input::read_text(Path::new(&path), mlsched_cli::input::Input::Scenario)?;
        (text, 0.0)
    } else {
        import_text(src, &a.map, seeds.first().copied())?
    };
    let slot_seconds = (!files).then_some(slot_seconds);
    let first = compare::parse(&first_text)?;
    let policies = compare::parse_policies(&first, a.policies.as_deref())?;
    let runs = seeds.len() * policies.len();
    if let Some(n) = a.threads.filter(|&n| n > runs) {
        return Err(InputError::new(
            "option",
            "threads",
            format!(
                "{n} threads for {runs} runs ({} seeds x {} policies): at most {runs}",
                seeds.len(),
                policies.len()
            ),
        )
        .into());
    }
    let mine = shard.map_or_else(|| seeds.to_vec(), |s| s.seeds(seeds));
    let pb = Progress::new(mine.len() as u64, quiet);
    let make = |s: u64| load(&a.scenario, &a.map, Some(s));
    let tick = || pb.inc();
    let rows = match a.threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| RunError::runtime(format!("thread pool: {e}")))?
            .install(|| sweep::rows(&mine, &policies, make, tick)),
        None => sweep::rows(&mine, &policies, make, tick),
    }?;
    pb.finish();
    if let (Some(sh), Some(dir)) = (shard, &a.out) {
        let fp = shard::fingerprint(&a.scenario, seeds, &policies, &first_text);
        let mut file = ShardFile::new(fp, &a.scenario, first.kind(), seeds, &policies, sh, &rows);
        file.report = Some(report_info(
            &first,
            &a.scenario,
            slot_seconds,
            &policies,
            seeds.first().copied(),
        ));
        std::fs::create_dir_all(dir)
            .map_err(|e| RunError::runtime(format!("cannot create {}: {e}", dir.display())))?;
        let p = dir.join(sh.file_name());
        let mut text =
            serde_json::to_string_pretty(&file).map_err(|e| RunError::runtime(e.to_string()))?;
        text.push('\n');
        std::fs::write(&p, text)
            .map_err(|e| RunError::runtime(format!("cannot write {}: {e}", p.display())))?;
        outln!(
            "shard {}/{} of sweep {} over seeds {}..{}: {} seeds x {} policies; wrote {}",
            sh.index,
            sh.count,
            a.scenario,
            seeds.first().copied().unwrap_or(0),
            seeds.last().copied().unwrap_or(0),
            mine.len(),
            policies.len(),
            p.display()
        );
        return Ok(());
    }
    let sw = sweep::summarize(&policies, rows);
    outln!(
        "sweep {} over seeds {}..{} (kind {}): mean ± 95% CI",
        a.scenario,
        seeds.first().copied().unwrap_or(0),
        seeds.last().copied().unwrap_or(0),
        first.kind()
    );
    out!("{}", sweep::table(first.kind(), &sw));
    if let Some(dir) = &a.out {
        let info = report_info(
            &first,
            &a.scenario,
            slot_seconds,
            &policies,
            seeds.first().copied(),
        );
        write_sweep_files(dir, &info, &sw)?;
    }
    Ok(())
}

fn write_sweep_files(dir: &Path, info: &Info, sw: &sweep::Sweep) -> Result<(), RunError> {
    let files = compare::output::write_sweep(dir, info, sw)?;
    outln!("wrote {}/{{{}}}", dir.display(), files.join(","));
    Ok(())
}

/// `mlsched merge`: shard files (or directories of them) into sweep.json and sweep.csv.
pub fn merge(a: &MergeArgs) -> Result<(), RunError> {
    let mut files: Vec<PathBuf> = Vec::new();
    for p in &a.inputs {
        if p.is_dir() {
            let rd = std::fs::read_dir(p)
                .map_err(|e| RunError::runtime(format!("cannot read {}: {e}", p.display())))?;
            let mut found: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("shard-") && n.ends_with(".json"))
                })
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(InputError::new(
                    p.display().to_string(),
                    "",
                    "no shard-I-of-N.json file in this directory",
                )
                .into());
            }
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    let mut shards = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let text = std::fs::read_to_string(f)
            .map_err(|e| RunError::runtime(format!("cannot read {name}: {e}")))?;
        shards.push((name.clone(), ShardFile::parse(&name, &text)?));
    }
    let sw = shard::merge(&shards)?;
    let f = &shards[0].1;
    outln!(
        "sweep {} over seeds {}..{} (kind {}): mean ± 95% CI (merged from {} shards)",
        f.scenario,
        f.seeds.first().copied().unwrap_or(0),
        f.seeds.last().copied().unwrap_or(0),
        f.kind,
        f.shard.count
    );
    out!("{}", sweep::table(&f.kind, &sw));
    let info = f.report.clone().unwrap_or_else(|| Info {
        kind: f.kind.clone(),
        source: f.scenario.clone(),
        ..Info::default()
    });
    write_sweep_files(&a.out, &info, &sw)
}
