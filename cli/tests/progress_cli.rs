//! Progress on the long commands: never an escape code when stderr is a pipe (how every test
//! and script sees it), drawn from the engine's progress when stderr is a terminal (under
//! `script`, when the machine has it), and hidden there too with `--quiet`. No timing is
//! asserted: `MLSCHED_PROGRESS_DELAY_MS=0` makes the bar draw at once instead of after 1 s.
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mlsched")
}

fn scenario(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../scenarios/{name}.json"))
        .to_string_lossy()
        .to_string()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mlsched-progress-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn piped_stderr_never_holds_progress_escape_codes() {
    let out = |n: &str| tmp(n).to_string_lossy().to_string();
    let commands: Vec<Vec<String>> = vec![
        vec!["run".into(), scenario("route-clos-160")],
        vec![
            "gen".into(),
            "oasis".into(),
            "--jobs".into(),
            "20".into(),
            "-o".into(),
            out("g.json"),
        ],
        vec![
            "import".into(),
            "philly".into(),
            "--jobs".into(),
            "20".into(),
            "-o".into(),
            out("i.json"),
        ],
        vec![
            "compare".into(),
            scenario("oasis-small"),
            "--policies".into(),
            "oasis,fifo".into(),
        ],
    ];
    for args in commands {
        let o = Command::new(bin())
            .args(&args)
            .env("MLSCHED_PROGRESS_DELAY_MS", "0")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        for (what, bytes) in [("stderr", &o.stderr), ("stdout", &o.stdout)] {
            assert!(
                !bytes.iter().any(|&b| b == 0x1b || b == b'\r'),
                "{args:?}: {what} holds terminal control bytes: {}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}

/// `script -qec CMD /dev/null`: CMD on a pseudo-terminal; its terminal output on our stdout.
fn on_terminal(cmd: &str) -> Option<String> {
    let o = Command::new("script")
        .args(["-qec", cmd, "/dev/null"])
        .env("MLSCHED_PROGRESS_DELAY_MS", "0")
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).to_string())
}

#[test]
fn a_terminal_sees_the_run_progress_unless_quiet() {
    let run = format!("{} run {}", bin(), scenario("route-clos-160"));
    let Some(shown) = on_terminal(&run) else {
        eprintln!("skipped: `script` (util-linux) is not available");
        return;
    };
    assert!(
        shown.contains("jobs arrived, slot"),
        "no progress bar: {shown}"
    );
    assert!(shown.contains('\u{1b}'), "no escape code: {shown}");
    assert!(
        shown.contains("route (csrp)") || shown.contains("log_hash"),
        "{shown}"
    );
    let quiet = on_terminal(&format!(
        "{} --quiet run {}",
        bin(),
        scenario("route-clos-160")
    ))
    .unwrap();
    assert!(
        !quiet.contains("jobs arrived"),
        "--quiet drew progress: {quiet}"
    );
    assert!(
        !quiet.contains('\u{1b}'),
        "--quiet wrote an escape code: {quiet}"
    );
}
