//! `mlsched compare SCENARIO`: several policies on one scenario (or a seed sweep, or one
//! shard of it), as a table and report files.
use super::map::MapArgs;
use crate::progress::Progress;
use clap::Args;
use mlsched_lab::compare::html::{self, Info};
use mlsched_lab::compare::shard::{self, Shard, ShardFile};
use mlsched_lab::compare::{self, sweep, PolicyReport};
use mlsched_lab::import::{self, Source};
use mlsched_scenario::doc::ScenarioDoc;
use mlsched_scenario::{InputError, RunError};
use std::path::{Path, PathBuf};

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
    let text = mlsched_scenario::input::read_text(path, mlsched_scenario::input::Input::Scenario)?;
    let d = compare::parse(&text).map_err(|e| {
        RunError::Input(InputError::new(
            format!("{}: {}", path.display(), e.subject),
            e.field,
            e.problem,
        ))
    })?;
    // A scenario that says its slot length (import pollux --workload) is reported in seconds.
    let slot = mlsched_lab::kinds::slot_seconds(&d);
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

/// Runs `mlsched compare` (a sweep with `--seeds`).
pub fn run(a: &CompareArgs, quiet: bool) -> Result<(), RunError> {
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
        mlsched_scenario::text::terminal_safe(&a.scenario),
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
        let text = mlsched_scenario::input::read_text(
            Path::new(&path),
            mlsched_scenario::input::Input::Scenario,
        )?;
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

/// Writes sweep.json and sweep.csv into `dir` and says so (also `mlsched merge`).
pub(super) fn write_sweep_files(
    dir: &Path,
    info: &Info,
    sw: &sweep::Sweep,
) -> Result<(), RunError> {
    let files = compare::output::write_sweep(dir, info, sw)?;
    outln!("wrote {}/{{{}}}", dir.display(), files.join(","));
    Ok(())
}
