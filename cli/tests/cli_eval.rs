//! End-to-end tests of `mlsched import | compare | demo | run --policy <baseline>` through the
//! built binary, bad input included. Trace tests read the bundled `data/` folder in place; a
//! missing folder is a failure.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mlsched"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("spawn mlsched")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn scenario(name: &str) -> String {
    format!("{}/../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mlsched-cli-eval-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn data() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    assert!(
        d.join("README.md").is_file(),
        "the bundled data folder {} is missing",
        d.display()
    );
    d
}

#[test]
fn every_command_has_help() {
    for cmd in [
        vec!["--help"],
        vec!["import", "--help"],
        vec!["compare", "--help"],
        vec!["demo", "--help"],
        vec!["run", "--help"],
        vec!["gen", "--help"],
        vec!["replay", "--help"],
    ] {
        let o = run(&cmd);
        assert!(o.status.success(), "{cmd:?}");
        assert!(text(&o).0.contains("Usage"), "{cmd:?}");
    }
}

#[test]
fn run_with_each_baseline() {
    for kind_file in ["oasis-small", "online-ps-small", "online-ring-small"] {
        for p in ["fifo", "drf", "las", "optimus"] {
            let o = run(&["run", &scenario(kind_file), "--policy", p, "--json", "-"]);
            let (out, err) = text(&o);
            assert!(o.status.success(), "{kind_file} {p}: {err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["policy"], p);
            assert_eq!(v["log_hash"].as_str().unwrap().len(), 16);
        }
    }
}

#[test]
fn baseline_on_other_kind_is_bad_input() {
    let o = run(&["run", &scenario("placement-table2"), "--policy", "drf"]);
    assert_eq!(o.status.code(), Some(2));
    let (_, err) = text(&o);
    assert!(
        err.contains("placement-table2.json") && err.contains("policy"),
        "{err}"
    );
}

#[test]
fn compare_writes_table_json_csv_and_svg() {
    let dir = tmp("compare");
    let o = run(&[
        "compare",
        &scenario("oasis-small"),
        "--policies",
        "oasis,fifo,drf,las,optimus",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    for p in ["fifo", "drf", "las", "optimus"] {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("| {p} "))),
            "{out}"
        );
    }
    assert!(out.contains("p99 us"));
    assert!(out.contains("w.JCT (slots)"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("compare.json")).unwrap()).unwrap();
    assert_eq!(v["policies"].as_array().unwrap().len(), 5);
    let csv = std::fs::read_to_string(dir.join("compare.csv")).unwrap();
    assert!(csv.starts_with("policy,status,jobs,admitted,finished,total_utility"));
    assert_eq!(csv.lines().count(), 6);
    for f in ["utility.svg", "jct_cdf.svg", "utilisation.svg"] {
        let s = std::fs::read_to_string(dir.join(f)).unwrap();
        assert!(s.starts_with("<svg") && s.contains("</svg>"), "{f}");
    }
    assert!(dir.join("index.html").is_file());
    // Not a TTY: no progress bar on stderr.
    assert!(err.is_empty(), "{err}");
}

#[test]
fn compare_without_timing_is_reproducible() {
    let (a, b) = (tmp("rep-a"), tmp("rep-b"));
    for d in [&a, &b] {
        let o = run(&[
            "compare",
            &scenario("online-ps-small"),
            "--no-timing",
            "--quiet",
            "--out",
            d.to_str().unwrap(),
        ]);
        assert!(o.status.success());
    }
    for f in ["compare.json", "compare.csv"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn compare_bad_input_exits_2_naming_file_job_and_field() {
    let o = run(&["compare", "/nonexistent/s.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("/nonexistent/s.json"));

    let dir = tmp("bad");
    let src = std::fs::read_to_string(scenario("oasis-small")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&src).unwrap();
    v["jobs"][0]["epochs"] = serde_json::json!(-3);
    let id = v["jobs"][0]["id"].as_str().unwrap().to_string();
    let f = dir.join("bad.json");
    std::fs::write(&f, v.to_string()).unwrap();
    let o = run(&["compare", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o).1;
    assert!(
        err.contains("bad.json") && err.contains(&id) && err.contains("epochs"),
        "{err}"
    );

    let o = run(&[
        "compare",
        &scenario("oasis-small"),
        "--policies",
        "fifo,nope",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("nope"));

    let o = run(&["compare", &scenario("oasis-small"), "--seeds", "1..3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("seeds"));
}

#[test]
fn demo_runs_every_bundled_scenario_against_its_baselines() {
    let o = run(&["demo"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    for name in [
        "oasis-small",
        "online-ps-small",
        "online-ring-small",
        "placement-table2",
        "preempt-small",
        "route-small",
    ] {
        assert!(out.contains(&format!("== {name}")), "{name}");
    }
    // oasis and online tables list the four baselines.
    assert!(out.matches("\n| drf ").count() >= 3, "{out}");
    // JCT is in seconds for placement and in slots elsewhere; headers say which.
    assert!(
        out.contains("avg JCT (s)") && out.contains("avg JCT (slots)"),
        "{out}"
    );
}

#[test]
fn import_each_trace() {
    let d = data();
    let d = d.to_str().unwrap();
    for (src, kind) in [
        ("philly", "oasis"),
        ("openb", "oasis"),
        ("pai-nodes", "oasis"),
        ("gavel", "online"),
        ("philly", "online"),
        ("openb", "online"),
    ] {
        let o = run(&[
            "import", src, "--kind", kind, "--data", d, "--jobs", "40", "--start", "0",
        ]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{src} {kind}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["kind"], kind);
        assert!(!v["jobs"].as_array().unwrap().is_empty(), "{src}");
        // The imported document runs (validation included).
        let dir = tmp(&format!("imp-{src}-{kind}"));
        let f = dir.join("s.json");
        std::fs::write(&f, &out).unwrap();
        let o = run(&["run", f.to_str().unwrap(), "--policy", "fifo"]);
        assert!(o.status.success(), "{src} {kind}: {}", text(&o).1);
    }
}

/// `mlsched ARGS` run in `cwd` with `MLSCHED_DATA` set to `env` (or removed).
fn run_in(cwd: &Path, env: Option<&Path>, args: &[&str]) -> Output {
    let mut c = bin();
    c.current_dir(cwd).args(args);
    match env {
        Some(e) => c.env("MLSCHED_DATA", e),
        None => c.env_remove("MLSCHED_DATA"),
    };
    c.output().expect("spawn mlsched")
}

#[test]
fn data_folder_lookup_order() {
    let d = data();
    let args = ["import", "openb", "--jobs", "20", "--start", "0"];
    let explicit = run(&[&args[..], &["--data", d.to_str().unwrap()]].concat());
    assert!(explicit.status.success(), "{}", text(&explicit).1);
    // No --data, no MLSCHED_DATA: from the repository (cwd search) and from a folder with no
    // data/ above it (the source tree's data/) the bundled data is found.
    let root = d.parent().unwrap();
    let away = tmp("away");
    for cwd in [root, root.join("cli").as_path(), away.as_path()] {
        let o = run_in(cwd, None, &args);
        assert!(o.status.success(), "{}: {}", cwd.display(), text(&o).1);
        assert_eq!(o.stdout, explicit.stdout, "{}", cwd.display());
    }
    for gen in [["gen", "placement"], ["gen", "route"]] {
        let o = run_in(&away, None, &gen);
        assert!(o.status.success(), "{gen:?}: {}", text(&o).1);
    }
    // A data/ folder with the layout above the working directory wins over the source tree's.
    let mine = tmp("mine");
    let fake = mine.join("data");
    for s in [
        "gavel",
        "alibaba-openb-gpu-2023",
        "philly-via-pollux",
        "sub",
    ] {
        std::fs::create_dir_all(fake.join(s)).unwrap();
    }
    std::fs::write(fake.join("README.md"), "my traces\n").unwrap();
    let o = run_in(&fake.join("sub"), None, &["import", "philly"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains(&fake.display().to_string()),
        "{}",
        text(&o).1
    );
    // MLSCHED_DATA comes before the search; --data before MLSCHED_DATA.
    let o = run_in(&away, Some(&fake), &["import", "philly"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains(&fake.display().to_string()),
        "{}",
        text(&o).1
    );
    let o = run_in(
        &away,
        Some(&fake),
        &[&args[..], &["--data", d.to_str().unwrap()]].concat(),
    );
    assert_eq!(o.stdout, explicit.stdout);
    // A MLSCHED_DATA that is not a folder is an input error naming it and --data DIR.
    let o = run_in(&away, Some(&away.join("missing")), &args);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o).1;
    assert!(
        err.contains("MLSCHED_DATA") && err.contains("--data DIR"),
        "{err}"
    );
}

#[test]
fn import_bad_input_exits_2() {
    let o = run(&["import", "helios"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("helios"));
    let dir = tmp("nodata");
    let o = run(&["import", "philly", "--data", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("philly_jobs_2017-10-09_2017-10-10.csv"));
    let d = data();
    let o = run(&[
        "import",
        "gavel",
        "--kind",
        "oasis",
        "--data",
        d.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("--kind online"));
}

#[test]
fn openb_scenario_runs_under_oasis_and_baselines() {
    let d = data();
    let o = run(&[
        "compare",
        "import:openb",
        "--data",
        d.to_str().unwrap(),
        "--jobs",
        "80",
        "--start",
        "0",
        "--slots",
        "120",
        "--servers",
        "2",
        "--policies",
        "oasis,fifo,drf,las,optimus",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    eprintln!("{out}");
    for p in ["fifo", "drf", "las", "optimus"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("| {p} ")))
            .unwrap();
        assert!(!line.contains("unavailable"), "{line}");
    }
}

#[test]
fn sweep_is_identical_whatever_the_thread_count() {
    let d = data();
    let (a, b) = (tmp("sweep-1"), tmp("sweep-3"));
    for (dir, threads) in [(&a, "1"), (&b, "3")] {
        let o = run(&[
            "compare",
            "import:philly",
            "--data",
            d.to_str().unwrap(),
            "--jobs",
            "30",
            "--slots",
            "80",
            "--seeds",
            "1..6",
            "--threads",
            threads,
            "--policies",
            "fifo,drf,las,optimus",
            "--out",
            dir.to_str().unwrap(),
        ]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert!(out.contains("±"), "{out}");
    }
    assert_eq!(
        std::fs::read(a.join("sweep.json")).unwrap(),
        std::fs::read(b.join("sweep.json")).unwrap()
    );
    for f in ["sweep.csv", "index.html", "sweep_utility.svg"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(v["per_seed"].as_array().unwrap().len(), 6);
}

/// A reader that closes the pipe early (`mlsched demo | head -1`) must not make mlsched panic:
/// it stops quietly with status 0, as Unix filters do.
#[test]
fn closed_stdout_pipe_is_not_a_panic() {
    use std::io::Read;
    let mut child = bin()
        .arg("demo")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn mlsched");
    let mut first = [0u8; 8];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let (_, err) = text(&out);
    assert!(!err.contains("panicked"), "stderr: {err}");
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
}

/// `compare --threads 0` is refused with the option named, not silently run on one thread.
#[test]
fn zero_threads_is_refused() {
    let o = run(&[
        "compare",
        "import:philly",
        "--seeds",
        "1..2",
        "--threads",
        "0",
    ]);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("threads") && err.contains("at least 1"),
        "{err}"
    );
}

/// `gen --slots` sets the horizon T for kinds online (Fig. 2 uses T = 300) and oasis; other kinds,
/// zero counts and horizons over the build limit are refused with the option named.
#[test]
fn gen_slots_and_zero_counts() {
    let o = run(&[
        "gen", "online", "--jobs", "5", "--nodes", "4", "--slots", "300",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["slots"].as_f64(), Some(300.0));
    let o = run(&[
        "gen", "oasis", "--jobs", "3", "--nodes", "2", "--slots", "120",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["slots"].as_f64(), Some(120.0));
    for (args, field, problem) in [
        (
            &["gen", "placement", "--slots", "10"][..],
            "slots",
            "oasis and online",
        ),
        (
            &["gen", "online", "--slots", "999999"][..],
            "slots",
            "SLOTS_MAX",
        ),
        (&["gen", "online", "--jobs", "0"][..], "jobs", "at least 1"),
        (
            &["gen", "preempt", "--nodes", "0"][..],
            "nodes",
            "at least 1",
        ),
    ] {
        let o = run(args);
        let (_, err) = text(&o);
        assert!(!o.status.success(), "{args:?}");
        assert!(
            err.contains(field) && err.contains(problem),
            "{args:?}: {err}"
        );
    }
}

/// `gen online --rounds-past-horizon` writes `"rounds_past_horizon": true`; A_online and a
/// baseline then schedule every job, some of them completing after T.
#[test]
fn gen_online_rounds_past_horizon() {
    let dir = tmp("past");
    let path = dir.join("past.json");
    let p = path.to_str().unwrap();
    let args = [
        "gen", "online", "--jobs", "6", "--nodes", "4", "--slots", "40",
    ];
    let o = run(&[&args[..], &["--rounds-past-horizon", "-o", p]].concat());
    assert!(o.status.success(), "{:?}", text(&o));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["rounds_past_horizon"], serde_json::json!(true));
    for policy in ["online", "fifo"] {
        let o = run(&["run", p, "--policy", policy, "--json", "-", "--quiet"]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{policy}: {err}");
        let res: serde_json::Value = serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap();
        let jobs = res["jobs"].as_array().unwrap();
        assert!(jobs
            .iter()
            .all(|j| j["scheduled"] == serde_json::json!(true)));
        let late = jobs
            .iter()
            .filter(|j| j["completion_slot"].as_u64().unwrap() > 40);
        assert!(late.count() > 0, "{policy}: no job completes after T");
    }
}

/// `--restart-seconds` (docs/restart.md): `import --kind oasis` writes 30 s by default (`gen oasis` only
/// when asked) as `restart_slots`, 0 writes no field, bad values and kinds without a restart time
/// are refused naming the option; compare then shows a `restarts` column.
#[test]
fn restart_seconds_defaults_off_switch_and_errors() {
    let slots = |args: &[&str]| -> Option<f64> {
        let o = run(args);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{args:?}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v.get("restart_slots").and_then(|x| x.as_f64())
    };
    assert_eq!(
        slots(&["gen", "oasis", "--jobs", "3", "--nodes", "2"]),
        None
    );
    assert_eq!(
        slots(&["gen", "oasis", "--jobs", "3", "--restart-seconds", "30"]),
        Some(30.0 / 3600.0)
    );
    assert_eq!(
        slots(&["gen", "oasis", "--jobs", "3", "--restart-seconds", "0"]),
        None
    );
    assert_eq!(
        slots(&[
            "import",
            "philly",
            "--jobs",
            "5",
            "--slot-seconds",
            "60",
            "--quiet"
        ]),
        Some(0.5)
    );
    assert_eq!(
        slots(&[
            "import",
            "philly",
            "--jobs",
            "5",
            "--restart-seconds",
            "0",
            "--quiet"
        ]),
        None
    );
    for args in [
        &["gen", "oasis", "--restart-seconds", "nan"][..],
        &["gen", "online", "--restart-seconds", "30"][..],
        &["import", "philly", "--restart-seconds", "inf"][..],
        &["import", "philly", "--restart-seconds", "x"][..],
    ] {
        let o = run(args);
        let (_, err) = text(&o);
        assert!(
            !o.status.success() && err.contains("restart-seconds"),
            "{args:?}: {err}"
        );
    }
    let o = run(&[
        "compare",
        "import:philly",
        "--jobs",
        "8",
        "--slot-seconds",
        "60",
        "--slots",
        "300",
        "--policies",
        "las",
        "--no-timing",
        "--quiet",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("| restarts |"), "{out}");
}
