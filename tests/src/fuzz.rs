//! The bodies of the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs` call these), kept here so
//! that every crash input saved under `tests/fuzz-regressions/<target>/` runs as a plain test
//! (`tests/tests/fuzz_regressions.rs`) on stable, in CI, without the fuzzer.
//!
//! Each function panics exactly when it finds a bug: a panic inside the code under test, a
//! replay of a freshly written log that does not reproduce it, a corrupted log accepted, or a
//! snapshot/restore that changes a decision.
use crate::actions;
use mlsched_scenario::replay;
use mlsched_scenario::run::{run_json, RunOptions};
use std::sync::OnceLock;

/// Fuzz target names, as directories of `fuzz/fuzz_targets/` and `tests/fuzz-regressions/`.
pub const TARGETS: [&str; 6] = [
    "scenario_json",
    "log_decode",
    "kernel_events",
    "engine_events",
    "gen_options",
    "world_events",
];

/// Runs the target `name` on `data` (for the regression test).
pub fn run_target(name: &str, data: &[u8]) {
    match name {
        "scenario_json" => scenario_json(data),
        "log_decode" => log_decode(data),
        "kernel_events" => kernel_events(data),
        "engine_events" => engine_events(data),
        "gen_options" => gen_options(data),
        "world_events" => world_events(data),
        other => panic!("unknown fuzz target {other}"),
    }
}

/// Scenario JSON of any kind: parse and validate every input; run it when its work is within
/// the harness bound ([`too_large_to_fuzz`]); when it runs, the written log must replay to the
/// same records and the same `log_hash`, and a second run must give the same bytes.
pub fn scenario_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Parsing and validation run on every input, whatever its size.
    let Ok(doc) = mlsched_scenario::doc::parse(text) else {
        return;
    };
    match too_large_to_fuzz(&doc) {
        Ok(false) => {}
        Ok(true) | Err(_) => return,
    }
    let opts = RunOptions::default();
    let first = run_json(text, &opts);
    let Ok(json) = first else {
        return;
    };
    let (result, log) = replay::record(text, &opts).unwrap_or_else(|e| panic!("re-run: {e}"));
    assert_eq!(result.to_json(), json, "two runs of one scenario differ");
    let ok = replay::replay(&log).unwrap_or_else(|e| panic!("replay of a fresh log: {e}"));
    assert_eq!(
        ok.log_hash,
        result.log_hash(),
        "replay hash differs from log_hash"
    );
}

/// Placement categories C(K-1, S-1) above which the harness does not run an input.
pub const FUZZ_CATEGORIES_MAX: u128 = 64;
/// Exhaustive-search assignments S^K above which the harness does not run an input.
pub const FUZZ_ASSIGNMENTS_MAX: u128 = 4096;
/// OASiS DP cells, sum over jobs of window x (workload + 1) x (servers + 1), above which the
/// harness does not run an input (Alg. 2 fills one row of workload + 1 cells per slot, and
/// prices every server per slot).
pub const FUZZ_OASIS_CELLS_MAX: u128 = 1 << 15;
/// A_online search steps, sum over jobs of window^2 x worker types x max(PS types, 1) x
/// servers, above which the harness does not run an input (durations x start slots x type
/// pairs x servers in A_mincost).
pub const FUZZ_ONLINE_STEPS_MAX: u128 = 1 << 15;
/// Preemptive dispatch steps, jobs x slots x (servers + 1), above which the harness does not
/// run an input.
pub const FUZZ_PREEMPT_STEPS_MAX: u128 = 1 << 13;
/// CSRP particle evaluations, (3 jobs + 2) scheduling events x particles x iterations x
/// (workers + jobs) x (1 + (nodes + links) / 16), above which the harness does not run an input.
pub const FUZZ_ROUTE_STEPS_MAX: u128 = 1 << 12;

/// The harness explores semantics on small inputs: every input is parsed and validated, but a
/// valid scenario whose work is above the bound of its kind (the `FUZZ_*_MAX` constants) is
/// not run. Such a run is correct but takes milliseconds to seconds in an instrumented build,
/// so a campaign would spend its time on a few big inputs (or report them as timeouts) instead
/// of exploring; big scenarios are covered by the golden and property tests instead.
/// `Err` is the validation error (the input does not run either way).
pub fn too_large_to_fuzz(
    doc: &mlsched_scenario::doc::ScenarioDoc,
) -> Result<bool, mlsched_scenario::error::InputError> {
    use mlsched_scenario::doc::ScenarioDoc;
    Ok(match doc {
        ScenarioDoc::Oasis(d) => oasis_cells(&d.validate()?) > FUZZ_OASIS_CELLS_MAX,
        ScenarioDoc::Online(d) => online_steps(&d.validate()?) > FUZZ_ONLINE_STEPS_MAX,
        ScenarioDoc::Placement(d) => placement_too_large(&d.validate()?),
        ScenarioDoc::Preempt(d) => preempt_steps(&d.validate()?) > FUZZ_PREEMPT_STEPS_MAX,
        ScenarioDoc::Route(d) => route_steps(&d.validate()?) > FUZZ_ROUTE_STEPS_MAX,
    })
}

fn oasis_cells(s: &mlsched_kernel::model::oasis::OasisScenario) -> u128 {
    let servers = (s.worker_servers.len() + s.ps_servers.len()) as u128 + 1;
    s.jobs.iter().fold(0u128, |acc, j| {
        let window = u128::from(s.slots.saturating_sub(j.arrival));
        let row = u128::from(j.workload()) + 1;
        acc.saturating_add(window.saturating_mul(row).saturating_mul(servers))
    })
}

fn online_steps(s: &mlsched_kernel::model::online::OnlineScenario) -> u128 {
    let types = s.worker_types.len() as u128 * s.ps_types.len().max(1) as u128;
    let per_window = types.saturating_mul(s.servers.len() as u128);
    s.jobs.iter().fold(0u128, |acc, j| {
        let window = u128::from(s.slots.saturating_sub(j.arrival));
        acc.saturating_add(window.saturating_mul(window).saturating_mul(per_window))
    })
}

fn preempt_steps(s: &mlsched_kernel::model::preempt::PreemptScenario) -> u128 {
    let servers = s.servers.len() as u128 + 1;
    (s.jobs.len() as u128)
        .saturating_mul(u128::from(s.slots))
        .saturating_mul(servers)
}

fn route_steps(s: &mlsched_kernel::model::route::RouteScenario) -> u128 {
    let jobs = s.jobs.len() as u128;
    let workers = s
        .jobs
        .iter()
        .fold(0u128, |acc, j| acc.saturating_add(u128::from(j.workers)));
    let graph = (s.topology.nodes.len() + s.topology.links.len()) as u128;
    (3 * jobs + 2)
        .saturating_mul(u128::from(s.pso.particles))
        .saturating_mul(u128::from(s.pso.iterations))
        .saturating_mul(workers.saturating_add(jobs))
        .saturating_mul(1 + graph / 16)
}

fn placement_too_large(p: &mlsched_kernel::model::placement::PlacementScenario) -> bool {
    let (k, s) = (p.workers.len() as u128, p.jobs.len() as u128);
    if k == 0 || s == 0 {
        return false;
    }
    let mut categories: u128 = 1;
    for i in 0..(s - 1).min(k) {
        categories = categories * (k - 1 - i) / (i + 1);
        if categories > FUZZ_CATEGORIES_MAX {
            return true;
        }
    }
    let mut assignments: u128 = 1;
    for _ in 0..k {
        assignments = assignments.saturating_mul(s);
        if assignments > FUZZ_ASSIGNMENTS_MAX {
            return matches!(
                p.method,
                mlsched_kernel::model::placement::Method::Exhaustive
            );
        }
    }
    false
}

/// A valid log of a bundled scenario that runs (for mutation mode), built once.
fn seed_log() -> Option<&'static [u8]> {
    static LOG: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    LOG.get_or_init(|| {
        mlsched_scenario::bundled::SCENARIOS
            .iter()
            .find_map(|(_, text)| replay::record(text, &RunOptions::default()).ok())
            .map(|(_, log)| log)
    })
    .as_deref()
}

/// Log decoding. Input byte 0 = 0: mutation mode, the rest edits a valid log (each edit is
/// `[op, pos lo, pos hi, value]`: overwrite, insert, delete or truncate) and the result must be
/// refused unless it is byte-identical to the original. Otherwise the input itself is a log:
/// decoding and replaying it must not panic.
pub fn log_decode(data: &[u8]) {
    let _ = mlsched_kernel::logfile::verify(data);
    match data.split_first() {
        Some((0, edits)) => {
            let Some(orig) = seed_log() else {
                return;
            };
            let mut log = orig.to_vec();
            for e in edits.chunks_exact(4).take(16) {
                let pos = u16::from_le_bytes([e[1], e[2]]) as usize % (log.len() + 1);
                match e[0] % 4 {
                    0 if pos < log.len() => log[pos] ^= e[3].max(1),
                    1 => log.insert(pos, e[3]),
                    2 if pos < log.len() => {
                        log.remove(pos);
                    }
                    3 => log.truncate(pos),
                    _ => {}
                }
            }
            let r = replay::replay(&log);
            if log != orig {
                assert!(r.is_err(), "a modified log was accepted: {r:?}");
            } else {
                assert!(r.is_ok(), "the original log was refused: {r:?}");
            }
        }
        _ => {
            let _ = replay::replay(data);
        }
    }
}

/// Sequences of kernel events ([`actions::Action`]): invariants hold after each, and the
/// decisions are the same with a snapshot/restore cut in the middle.
pub fn kernel_events(data: &[u8]) {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let acts = actions::decode_all(rest);
    let whole = actions::run(seed as u64, &acts, None);
    let cut = actions::run(seed as u64, &acts, Some(acts.len() / 2));
    assert_eq!(whole, cut, "a snapshot/restore changed the decisions");
}

/// Byte 0 picks a bundled scenario, byte 1 its policy; `None` for a too-short input or a
/// scenario beyond the harness bound ([`too_large_to_fuzz`]). The rest of the bytes follow.
fn bundled_run(data: &[u8]) -> Option<(&'static str, RunOptions, &[u8])> {
    let [pick, pol, rest @ ..] = data else {
        return None;
    };
    let scenarios = mlsched_scenario::bundled::SCENARIOS;
    let (_, text) = scenarios[*pick as usize % scenarios.len()];
    let doc = mlsched_scenario::doc::parse(text).ok()?;
    if too_large_to_fuzz(&doc) != Ok(false) {
        return None;
    }
    let policies = mlsched_scenario::run::policies(doc.kind());
    let k = *pol as usize % policies.len();
    let opts = RunOptions {
        policy: (k > 0).then(|| policies[k].to_string()),
        all_categories: false,
    };
    Some((text, opts, rest))
}

/// The engine façade under arbitrary events: byte 0 picks a bundled scenario, byte 1 its
/// policy, then every 4 bytes are one event (kind, job, slot step). Every event is either taken
/// or refused with a typed error — never a panic — and a snapshot taken after the events,
/// restored and run to the end, gives the very result (or the very error) of the original run
/// to the end.
pub fn engine_events(data: &[u8]) {
    use mlsched_kernel::api::Event;
    use mlsched_scenario::engine::Engine;
    let Some((text, opts, rest)) = bundled_run(data) else {
        return;
    };
    let Ok(mut e) = Engine::new(text, &opts) else {
        return;
    };
    let mut now = 0u32;
    for ev in rest.chunks_exact(4).take(64) {
        now = now.saturating_add(u32::from(ev[3] % 8));
        let job = u32::from(u16::from_le_bytes([ev[1], ev[2]])) % (e.jobs() + 2);
        let event = match ev[0] % 3 {
            0 => Event::JobArrived(job),
            1 => Event::SlotAdvanced,
            _ => Event::JobFinished(job),
        };
        match e.feed(now, event) {
            Ok(_) => {}
            // A refused event leaves the engine as it was: keep feeding.
            Err(mlsched_scenario::RunError::Input(_)) => {}
            // The scheduler failed: the engine refuses everything after.
            Err(err) => {
                assert!(e.failure().is_some(), "{err}");
                assert!(e.feed(now, Event::SlotAdvanced).is_err());
                return;
            }
        }
    }
    let snap = e.snapshot();
    let mut r = Engine::restore(text, &opts, mlsched_kernel::log::HashSink::new(), &snap)
        .unwrap_or_else(|err| panic!("restore of a fresh snapshot: {err}"));
    let a = e.run_to_end(&mut |_| {}).map(|x| x.to_json());
    let b = r.run_to_end(&mut |_| {}).map(|x| x.to_json());
    assert_eq!(a, b, "a restored engine ran to a different end");
}

/// Open-world event streams (`docs/open-world.md`) on the engine façade: byte 0 picks a
/// bundled scenario, byte 1 its policy, then every 5 bytes are one host event (kind, job or
/// server, slot step, capacity byte): arrive, advance, finished, cancel, server_down, server_up,
/// capacity, or a submission of a copy of a listed job under a new id. Each is applied as the
/// service applies it (`Feeder::apply`): taken, or refused with an input error, or (a scheduler
/// failure) the engine stops — never a panic. After the events, a snapshot restored and run to
/// the end gives the very result of the original, and every job has exactly one status.
pub fn world_events(data: &[u8]) {
    use mlsched_scenario::engine::Engine;
    use mlsched_scenario::event::{parse, Feeder};
    let Some((text, opts, rest)) = bundled_run(data) else {
        return;
    };
    let Ok(mut e) = Engine::new(text, &opts) else {
        return;
    };
    // The scenario's job objects, parsed at the first `submit` only (a fifth of the target's
    // time when parsed on every input).
    let mut jobs: Option<Vec<serde_json::Value>> = None;
    let servers = e.server_ids().to_vec();
    let r = e.capacity_len();
    let mut now = 0u32;
    for (n, ev) in rest.chunks_exact(5).take(48).enumerate() {
        now = now.saturating_add(u32::from(ev[2] % 6));
        let i = u16::from_le_bytes([ev[1], ev[3]]) as usize;
        let job = e
            .job_id((i % (e.jobs() as usize + 1)) as u32)
            .unwrap_or("nope")
            .to_string();
        let server = servers
            .get(i % (servers.len() + 1))
            .map_or("nope", String::as_str);
        let cap: Vec<f64> = (0..r)
            .map(|x| f64::from(ev[4].rotate_left(x as u32) % 9))
            .collect();
        let json = match ev[0] % 8 {
            0 => format!(r#"{{"at":{now},"event":"arrive","job":"{job}"}}"#),
            1 => format!(r#"{{"at":{now},"event":"advance"}}"#),
            2 => format!(r#"{{"at":{now},"event":"finished","job":"{job}"}}"#),
            3 => format!(r#"{{"at":{now},"event":"cancel","job":"{job}"}}"#),
            4 => format!(r#"{{"at":{now},"event":"server_down","server":"{server}"}}"#),
            5 => format!(r#"{{"at":{now},"event":"server_up","server":"{server}"}}"#),
            6 => format!(
                r#"{{"at":{now},"event":"capacity","server":"{server}","capacity":{cap:?}}}"#
            ),
            _ => {
                let jobs = jobs.get_or_insert_with(|| {
                    serde_json::from_str::<serde_json::Value>(text)
                        .ok()
                        .and_then(|v| v["jobs"].as_array().cloned())
                        .unwrap_or_default()
                });
                let Some(mut j) = jobs.get(i % jobs.len().max(1)).cloned() else {
                    continue;
                };
                j["id"] = format!("fuzz-{n}").into();
                if j.get("arrival").is_some() {
                    j["arrival"] = now.into();
                }
                format!(r#"{{"at":{now},"event":"submit","job":{j}}}"#)
            }
        };
        let Ok(ev) = parse(&json) else {
            continue;
        };
        match Feeder::new(&e).apply(&mut e, &ev, None) {
            Ok(()) | Err(mlsched_scenario::RunError::Input(_)) => {}
            Err(err) => {
                assert!(e.failure().is_some(), "{json}: {err}");
                return;
            }
        }
        if e.failure().is_some() {
            return;
        }
    }
    let snap = e.snapshot();
    let mut back = Engine::restore(text, &opts, mlsched_kernel::log::HashSink::new(), &snap)
        .unwrap_or_else(|err| panic!("restore of a fresh snapshot: {err}"));
    let a = e.run_to_end(&mut |_| {}).map(|x| x.to_json());
    // The original builds every decision it makes (as a host taking them would); the restored
    // one only its log and result, which is all the check compares.
    let b = back.run().map(|x| x.to_json());
    assert_eq!(a, b, "a restored engine ran to a different end");
    if let Ok(a) = a {
        // Only the rows and the counts are read (serde skips the rest without building it).
        let v: StatusRows = serde_json::from_str(&a).unwrap();
        let c = v.summary.statuses;
        let sum = [c.cancelled, c.finished, c.lost, c.rejected, c.unfinished]
            .iter()
            .map(|&n| u64::from(n))
            .sum::<u64>();
        assert_eq!(sum, v.jobs.len() as u64, "one status per job: {c:?}");
    }
}

/// What `world_events` checks of a result document: its job rows and `summary.statuses`.
#[derive(serde::Deserialize)]
struct StatusRows {
    jobs: Vec<serde::de::IgnoredAny>,
    summary: StatusSummary,
}

/// A result's `summary`, of which only `statuses` is read.
#[derive(serde::Deserialize)]
struct StatusSummary {
    statuses: mlsched_scenario::status::StatusCounts,
}

/// A cut-down copy of the bundled traces (the first rows of each file), written once, so an
/// import runs in microseconds under the fuzzer.
fn small_data() -> &'static std::path::Path {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let src = crate::data_dir();
        let dst = std::env::temp_dir().join(format!("mlsched-fuzz-data-{}", std::process::id()));
        for (file, rows) in [
            ("README.md", 1usize),
            (
                "philly-via-pollux/philly_jobs_2017-10-09_2017-10-10.csv",
                120,
            ),
            ("alibaba-openb-gpu-2023/openb_pod_list_default.csv", 120),
            ("alibaba-openb-gpu-2023/openb_node_list_all_node.csv", 400),
            ("alibaba-pai-gpu-2020/pai_machine_spec.csv", 200),
            ("gavel/throughputs_isolated.csv", 600),
        ] {
            let text = std::fs::read_to_string(src.join(file)).unwrap_or_default();
            let cut: Vec<&str> = text.lines().take(rows).collect();
            let p = dst.join(file);
            std::fs::create_dir_all(p.parent().unwrap_or(&dst)).unwrap_or_default();
            std::fs::write(&p, cut.join("\n") + "\n").unwrap_or_default();
        }
        // The Pollux step times are read whole: the speed-up table is derived from every row.
        copy_dir(
            &src.join("pollux-throughput"),
            &dst.join("pollux-throughput"),
        );
        dst
    })
}

/// Copies a folder's files (one level of subfolders, as `data/pollux-throughput` has).
fn copy_dir(src: &std::path::Path, dst: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(src) else {
        return;
    };
    std::fs::create_dir_all(dst).unwrap_or_default();
    for e in entries.flatten() {
        let (from, to) = (e.path(), dst.join(e.file_name()));
        if from.is_dir() {
            copy_dir(&from, &to);
        } else {
            std::fs::copy(&from, &to).map(|_| ()).unwrap_or_default();
        }
    }
}

/// `gen` and `import` options from bytes (counts mostly small, sometimes huge or zero; reals
/// from raw f64 bits, NaN and infinities included): each call either refuses the options with
/// an input error naming one, or produces a document that parses and validates — the promise
/// that neither ever writes a document `mlsched run` refuses — and a small one runs
/// (`check_generated`).
pub fn gen_options(data: &[u8]) {
    use mlsched_lab::gen::{generate_json_with, GenExtras, GenOptions};
    use mlsched_lab::import::pollux::ThroughputModel;
    use mlsched_lab::import::{import_json, ImportOptions, Source};
    let mut b = data.iter().copied();
    let mut byte = || b.next().unwrap_or(0);
    let count = |x: u8, y: u8| -> u32 {
        match x % 8 {
            0 => 0,
            1 => u32::MAX,
            2 => 1 << (y % 31),
            _ => u32::from(y % 40) + 1,
        }
    };
    let (what, which) = (byte(), byte());
    let (a, b1, c, d, e2, f) = (byte(), byte(), byte(), byte(), byte(), byte());
    let seed = u64::from(byte());
    // The optional-field options (restart cost, Pollux table, Zhou's rounds past T): the table
    // one time in 8, as deriving it reads every Pollux row.
    let (g, h) = (byte(), byte());
    let mut real = [0u8; 8];
    real.iter_mut().for_each(|x| *x = byte());
    let r = f64::from_le_bytes(real);
    let restart = match g % 4 {
        0 => Some(r),
        1 => Some(f64::from(h) * 7.5),
        _ => None,
    };
    let throughput = if h % 8 == 0 {
        ThroughputModel::Pollux
    } else {
        ThroughputModel::Linear
    };
    let result = if what % 2 == 0 {
        let kind = mlsched_scenario::doc::KINDS[which as usize % 5];
        // Placement and route read a trace by default (Gavel, openb pods): the cut-down copy
        // keeps an execution in microseconds.
        let trace = match kind {
            "placement" => Some(small_data().join("gavel/throughputs_isolated.csv")),
            "route" => Some(small_data().join("alibaba-openb-gpu-2023/openb_pod_list_default.csv")),
            _ => None,
        };
        let opts = GenOptions {
            seed,
            jobs: match kind {
                // A preempt job carries hundreds of chunks: 16 keep a document in kilobytes.
                "preempt" => (a % 32 != 0).then(|| count(a, b1).min(16)),
                "route" => (a % 32 != 0).then(|| count(a, b1).min(60)),
                _ => (a % 3 != 0).then(|| count(a, b1).min(60)),
            },
            // The default job counts and topologies of preempt and route are big (milliseconds
            // to build): taken one time in 32, so the campaign spends its time on the options.
            nodes: match kind {
                "preempt" | "route" => (c % 32 != 0).then(|| count(c, d).min(24)),
                _ => (c % 3 != 0).then(|| count(c, d).min(24)),
            },
            trace,
            slots: (e2 % 4 == 0).then(|| count(e2, f)),
        };
        let extras = GenExtras {
            rounds_past_horizon: g % 8 == 5,
            restart_seconds: restart,
            throughput,
            // `--data` alone (without the table) must be refused, so it is set independently.
            data: (h % 3 == 0).then(|| small_data().to_path_buf()),
        };
        generate_json_with(kind, &opts, &extras)
    } else {
        let sources = [
            Source::Philly,
            Source::Openb,
            Source::PaiNodes,
            Source::Gavel,
            Source::Pollux,
        ];
        let opts = ImportOptions {
            kind: if which % 2 == 0 { "oasis" } else { "online" }.into(),
            data_dir: small_data().to_path_buf(),
            jobs: count(a, b1).min(200) as usize,
            start: (c % 2 == 0).then_some(usize::from(d)),
            seed,
            slots: count(e2, f).min(4096),
            slot_seconds: if a % 5 == 0 { r } else { f64::from(e2) * 10.0 },
            servers: count(c, d).min(600) as usize,
            ps_servers: (count(d, c) % 9) as usize,
            comm_ratio: if b1 % 5 == 0 { r } else { 0.1 },
            target_factor: if c % 7 == 0 { r } else { 1.5 },
            epochs: count(f, a) % 20,
            architecture: ["ps", "ring", "mesh"][usize::from(f) % 3].into(),
            jobs_from: if which % 3 == 0 {
                Source::Openb
            } else {
                Source::Philly
            },
            restart_seconds: restart.unwrap_or(ImportOptions::default().restart_seconds),
            throughput,
            ..ImportOptions::default()
        };
        import_json(sources[which as usize % 5], &opts)
    };
    match result {
        Err(mlsched_scenario::RunError::Input(_)) => {}
        Err(e) => panic!("options gave a runtime error, not an input error: {e}"),
        Ok(text) => check_generated(&text),
    }
}

/// Generated documents up to this many bytes are parsed, validated and (within the harness
/// bound) run again by the harness; larger ones are left to `generate_json` / `import_json`'s
/// own check (below).
pub const FUZZ_RECHECK_BYTES_MAX: usize = 16 * 1024;

/// The promise on what `gen` and `import` hand out: the text parses and validates, and a small
/// one runs to a result or a runtime error, never to an input error.
///
/// Both already put every document through the very parser and validator `mlsched run` uses
/// before returning it (`refuse_what_run_refuses`), so repeating that here on a large document
/// is the same code on the same bytes; it cost a third of each execution (bundled-size route
/// and preempt documents are tens of kilobytes of JSON). The harness repeats it, with one
/// parse and one validation, on the documents small enough to matter for speed; running a
/// scenario is fuzzed by `scenario_json`.
fn check_generated(text: &str) {
    if text.len() > FUZZ_RECHECK_BYTES_MAX {
        return;
    }
    let doc =
        mlsched_scenario::doc::parse(text).unwrap_or_else(|e| panic!("wrote unparsable: {e}"));
    let large =
        too_large_to_fuzz(&doc).unwrap_or_else(|e| panic!("wrote a document run refuses: {e}"));
    if large {
        return;
    }
    // A runtime error is an answer (e.g. a capacity limit of the scheduler); an input error
    // would mean the validator passed a document the run path refuses.
    if let Err(mlsched_scenario::RunError::Input(e)) = run_json(text, &RunOptions::default()) {
        panic!("run refused a written document: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every seed under `fuzz/seeds/scenario_json/` is valid and within the harness bound, so a
    /// campaign starts from inputs of every kind that run (not only validate).
    #[test]
    fn scenario_seeds_run() {
        let dir = crate::repo_root().join("fuzz/seeds/scenario_json");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let mut kinds = BTreeSet::new();
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            let doc = mlsched_scenario::doc::parse(&text).unwrap_or_else(|e| panic!("{f:?}: {e}"));
            let large = too_large_to_fuzz(&doc).unwrap_or_else(|e| panic!("{f:?}: {e}"));
            assert!(!large, "{f:?} is above the harness bound: it would not run");
            run_json(&text, &RunOptions::default()).unwrap_or_else(|e| panic!("{f:?}: {e}"));
            scenario_json(text.as_bytes());
            kinds.insert(doc.kind());
        }
        assert_eq!(kinds.len(), mlsched_scenario::doc::KINDS.len(), "{kinds:?}");
    }
}
