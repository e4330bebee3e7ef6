//! Sharded sweeps through the built binary: `compare import:philly --seeds 1..7 --shard I/3`
//! three times, `mlsched merge`, and the merged sweep.json / sweep.csv byte-identical to the
//! unsharded run; a missing, duplicated or foreign shard is an error naming it; the shard comes
//! from a Slurm job array or a Kubernetes Indexed Job's environment when --shard is absent.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A command without any sharding variable of the environment the tests run in.
fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mlsched"));
    for k in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_COUNT",
        "JOB_COMPLETION_INDEX",
        "MLSCHED_SHARD_COUNT",
    ] {
        c.env_remove(k);
    }
    c.env("MLSCHED_DATA", data());
    c
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mlsched-shard-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The sweep: 7 seeds x 2 policies over small windows of the Philly trace (kind online).
fn sweep_args(extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "compare",
        "import:philly",
        "--jobs",
        "12",
        "--slots",
        "60",
        "--servers",
        "4",
        "--seeds",
        "1..7",
        "--policies",
        "online,fifo",
        "--no-timing",
        "--kind",
        "online",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn ok(o: Output) -> String {
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "stdout {out}\nstderr {err}");
    out
}

fn fails(o: Output, code: i32, needle: &str) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(code), "stderr {err}");
    assert!(err.contains(needle), "`{needle}` not in: {err}");
    err
}

fn shard(dir: &Path, i: u32, n: u32) {
    let out = dir.to_str().unwrap().to_string();
    let spec = format!("{i}/{n}");
    ok(bin()
        .args(sweep_args(&["--shard", &spec, "--out", &out]))
        .output()
        .unwrap());
}

#[test]
fn three_shards_merge_to_the_unsharded_bytes() {
    let whole = tmp("whole");
    ok(bin()
        .args(sweep_args(&["--out", whole.to_str().unwrap()]))
        .output()
        .unwrap());
    // Shards in separate directories (as separate machines would write them).
    let parts: Vec<PathBuf> = (0..3).map(|i| tmp(&format!("part{i}"))).collect();
    for (i, d) in parts.iter().enumerate() {
        shard(d, i as u32, 3);
        assert!(d.join(format!("shard-{i}-of-3.json")).is_file());
    }
    let merged = tmp("merged");
    let mut args: Vec<String> = vec!["merge".into()];
    args.extend(parts.iter().map(|p| p.to_str().unwrap().to_string()));
    args.extend(["--out".into(), merged.to_str().unwrap().to_string()]);
    ok(bin().args(&args).output().unwrap());
    // Every file: sweep.json, sweep.csv, the plots and index.html.
    let mut files: Vec<String> = std::fs::read_dir(&whole)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    assert!(files.contains(&"index.html".to_string()), "{files:?}");
    for f in &files {
        let a = std::fs::read(whole.join(f)).unwrap();
        let b = std::fs::read(merged.join(f)).unwrap();
        assert!(a == b, "{f} differs between the unsharded and merged runs");
    }

    // A missing shard names it.
    let e = fails(
        bin()
            .args([
                "merge",
                parts[0].to_str().unwrap(),
                parts[2].to_str().unwrap(),
            ])
            .args(["--out", merged.to_str().unwrap()])
            .output()
            .unwrap(),
        2,
        "shard-1-of-3.json",
    );
    assert!(e.contains("missing"), "{e}");
    // A duplicated shard names both files.
    let dup = tmp("dup");
    std::fs::copy(
        parts[1].join("shard-1-of-3.json"),
        dup.join("shard-1-of-3.json"),
    )
    .unwrap();
    let mut a2 = args.clone();
    a2.insert(1, dup.to_str().unwrap().to_string());
    let e = fails(bin().args(&a2).output().unwrap(), 2, "duplicated");
    assert!(e.contains("shard-1-of-3.json"), "{e}");
    // A shard of another sweep (other mapping flags) is refused by its fingerprint.
    let other = tmp("other");
    let mut oa = sweep_args(&["--shard", "1/3", "--out", other.to_str().unwrap()]);
    oa[5] = "50".into(); // --slots 50 instead of 60
    ok(bin().args(&oa).output().unwrap());
    let a3: Vec<String> = vec![
        "merge".into(),
        parts[0].to_str().unwrap().into(),
        other.to_str().unwrap().into(),
        parts[2].to_str().unwrap().into(),
        "--out".into(),
        merged.to_str().unwrap().into(),
    ];
    fails(bin().args(&a3).output().unwrap(), 2, "different sweep");
    // Not a shard file.
    let junk = tmp("junk");
    std::fs::write(junk.join("shard-0-of-1.json"), "{\"a\":1}").unwrap();
    fails(
        bin()
            .args(["merge", junk.to_str().unwrap(), "--out"])
            .arg(&merged)
            .output()
            .unwrap(),
        2,
        "not a shard file",
    );
    for d in parts.iter().chain([&whole, &merged, &dup, &other, &junk]) {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn shard_from_the_environment_and_bad_specs() {
    // Slurm array 1-3 (SLURM_ARRAY_TASK_MIN 1): task 2 is shard 1 of 3.
    let d = tmp("env");
    let out = d.to_str().unwrap().to_string();
    ok(bin()
        .args(sweep_args(&["--out", &out]))
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_MIN", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .output()
        .unwrap());
    assert!(d.join("shard-1-of-3.json").is_file());
    // Indexed Job: JOB_COMPLETION_INDEX of MLSCHED_SHARD_COUNT.
    ok(bin()
        .args(sweep_args(&["--out", &out]))
        .env("JOB_COMPLETION_INDEX", "0")
        .env("MLSCHED_SHARD_COUNT", "2")
        .output()
        .unwrap());
    assert!(d.join("shard-0-of-2.json").is_file());
    fails(
        bin()
            .args(sweep_args(&["--out", &out]))
            .env("JOB_COMPLETION_INDEX", "0")
            .output()
            .unwrap(),
        2,
        "MLSCHED_SHARD_COUNT",
    );
    for (spec, needle) in [("3/3", "below N"), ("0/0", "1..="), ("x", "I/N")] {
        let e = fails(
            bin()
                .args(sweep_args(&["--shard", spec, "--out", &out]))
                .output()
                .unwrap(),
            2,
            needle,
        );
        assert!(e.contains("--shard"), "{e}");
    }
    fails(
        bin()
            .args(sweep_args(&["--shard", "0/2"]))
            .output()
            .unwrap(),
        2,
        "--out",
    );
    let _ = std::fs::remove_dir_all(&d);
}
