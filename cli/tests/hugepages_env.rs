//! `MLSCHED_HUGEPAGES` (the CLI's allocator, `mlsched_hugepages`): `0` and `1` run the same
//! decisions (the allocator never changes what is decided), anything else is refused with an
//! error naming the variable, before any work.
use std::path::Path;
use std::process::Command;

fn run(scenario: &str, value: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mlsched"));
    cmd.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(["run", scenario, "--json", "-"]);
    match value {
        Some(v) => cmd.env("MLSCHED_HUGEPAGES", v),
        None => cmd.env_remove("MLSCHED_HUGEPAGES"),
    };
    let out = cmd.output().expect("spawn mlsched");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn huge_pages_on_or_off_decide_alike_and_other_values_are_refused() {
    // 1,500 + 1,500 servers: the slot trees' arrays are tens of MB, above the advised size
    let dir = std::env::temp_dir().join(format!("mlsched-hugepages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("oasis.json").to_string_lossy().into_owned();
    let gen = Command::new(env!("CARGO_BIN_EXE_mlsched"))
        .args([
            "gen", "oasis", "--nodes", "1500", "--jobs", "300", "-o", &scenario,
        ])
        .status()
        .expect("spawn mlsched gen");
    assert!(gen.success());
    let (code, default, err) = run(&scenario, None);
    assert_eq!(code, 0, "{err}");
    assert!(default.contains("\"policy\": \"oasis\""), "{default}");
    for v in ["0", "1"] {
        let (code, out, err) = run(&scenario, Some(v));
        assert_eq!(code, 0, "MLSCHED_HUGEPAGES={v}: {err}");
        assert_eq!(out, default, "MLSCHED_HUGEPAGES={v} changed the result");
    }
    for v in ["yes", "", "2"] {
        let (code, out, err) = run(&scenario, Some(v));
        assert_eq!(code, 2, "MLSCHED_HUGEPAGES={v:?}");
        assert!(err.contains("MLSCHED_HUGEPAGES"), "{err}");
        assert!(out.is_empty());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
