//! `mlsched run SCENARIO`: a scenario with its kind's algorithm (or a baseline), its summary on
//! stdout, optionally the result document and the decision log.
use super::{in_file, read, write};
use crate::progress::Progress;
use clap::Args;
use mlsched_kernel::log::HashSink;
use mlsched_scenario::engine::{Engine, RunProgress};
use mlsched_scenario::run::{run_doc_observed, RunOptions};
use mlsched_scenario::{doc, event, replay, InputError, RunError};
use std::path::{Path, PathBuf};

/// `mlsched run SCENARIO`.
#[derive(Args, Clone, Debug)]
pub struct RunArgs {
    /// Scenario JSON file (docs/formats.md), or "-" for standard input.
    scenario: PathBuf,
    /// Policy other than the kind's own algorithm (e.g. fifo, drf, las, optimus).
    #[arg(long)]
    policy: Option<String>,
    /// Write the result document here ("-" for stdout).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Placement: report every category examined.
    #[arg(long)]
    all: bool,
    /// Write the decision log (header, inputs, every record, checksums) here.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Open-world events (docs/open-world.md): a JSON Lines file, one event per line, `at` never
    /// going back ("-" for standard input), fed with the scenario's own arrivals.
    #[arg(long)]
    events: Option<PathBuf>,
}

/// The observer `mlsched run` gives the engine: jobs arrived and the current slot on the bar.
/// Off a terminal (or with --quiet) it returns at once; on one, the message (a formatted
/// string) is only rebuilt when the slot changes, so the run's speed does not change.
fn run_progress(pb: &Progress) -> impl FnMut(RunProgress) + '_ {
    let mut shown: Option<u32> = None;
    move |p: RunProgress| {
        if !pb.is_live() {
            return;
        }
        if shown != Some(p.slot) {
            shown = Some(p.slot);
            pb.set_message(format!("jobs arrived, slot {}", p.slot));
        }
        pb.set(u64::from(p.arrived), u64::from(p.jobs));
    }
}

/// Refuses a decision log written over the --json output or to standard output.
fn check_outputs(json: Option<&Path>, log: Option<&Path>) -> Result<(), RunError> {
    if let (Some(j), Some(l)) = (json, log) {
        if j == l && j != Path::new("-") {
            return Err(InputError::new(
                "option",
                "log",
                format!(
                    "{} is also the --json output: give two different files",
                    l.display()
                ),
            )
            .into());
        }
    }
    if log == Some(Path::new("-")) {
        return Err(InputError::new(
            "option",
            "log",
            "a decision log is binary: give a file, not standard output",
        )
        .into());
    }
    Ok(())
}

/// Runs `mlsched run`.
pub fn run(a: RunArgs, quiet: bool) -> Result<(), RunError> {
    let RunArgs {
        scenario,
        policy,
        json,
        all,
        log,
        events,
    } = a;
    check_outputs(json.as_deref(), log.as_deref())?;
    if events.as_deref() == Some(Path::new("-")) && scenario == Path::new("-") {
        return Err(InputError::new(
            "option",
            "events",
            "the scenario is read from standard input: give the events as a file",
        )
        .into());
    }
    let text = read(&scenario)?;
    let d = doc::parse(&text).map_err(|e| in_file(&scenario, e.into()))?;
    let events_path = events.clone();
    let events = match &events {
        None => None,
        Some(path) => {
            let lines = read(path)?;
            Some(event::parse_lines(&lines).map_err(|e| in_file(path, e.into()))?)
        }
    };
    let opts = RunOptions {
        policy,
        all_categories: all,
    };
    let pb = Progress::new(0, quiet);
    let mut observe = run_progress(&pb);
    let result = match (&log, &events) {
        (None, None) => run_doc_observed(&d, &opts, &mut HashSink::new(), &mut observe),
        (None, Some(evs)) => {
            Engine::new(&text, &opts).and_then(|mut e| e.run_events_observed(evs, &mut observe))
        }
        (Some(path), evs) => {
            let recorded = match evs {
                None => replay::record_observed(&text, &opts, &mut observe),
                Some(evs) => replay::record_events(&text, &opts, evs, &mut observe),
            };
            recorded.and_then(|(result, bytes)| {
                std::fs::write(path, bytes).map_err(|e| {
                    RunError::runtime(format!("cannot write {}: {e}", path.display()))
                })?;
                Ok(result)
            })
        }
    }
    .map_err(|e| match (&e, &events_path) {
        // An event's error names the events file (its subject is `event #k`).
        (RunError::Input(i), Some(p)) if i.subject.starts_with("event") => in_file(p, e),
        _ => in_file(&scenario, e),
    });
    pb.finish();
    let result = result?;
    if json.as_deref() != Some(Path::new("-")) {
        outln!("{}", mlsched_lab::summary::text_for(&d, &result));
    }
    if let Some(out) = json {
        write(&out, &result.to_json())?;
    }
    Ok(())
}
