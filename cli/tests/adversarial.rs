//! The adversarial corpus: bad and extreme inputs against every entry point of the `mlsched`
//! binary (scenarios of every kind, logs, traces, options, endless inputs), each asserting the
//! exit code and a fragment of the message. Every case must end with a clean typed error (exit
//! 2 for bad input, 1 for a runtime refusal) or a success — never a panic (101), an abort
//! (134), a signal, or a hang (each case runs under a time limit, the endless ones also under a
//! memory limit).
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One case: arguments, optional standard input, the exit code and a fragment of stderr
/// (or stdout for a success).
struct Case {
    name: String,
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
    /// Run under `ulimit -v` (KiB) through `sh`.
    mem_kib: Option<u64>,
    code: i32,
    fragment: String,
}

fn case(name: &str, args: &[&str], code: i32, fragment: &str) -> Case {
    Case {
        name: name.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        stdin: None,
        mem_kib: None,
        code,
        fragment: fragment.into(),
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp() -> PathBuf {
    let d = std::env::temp_dir().join(format!("mlsched-adversarial-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn file(name: &str, bytes: &[u8]) -> String {
    let p = tmp().join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

/// Runs one case with a deadline; returns (exit code, stdout, stderr).
fn exec(c: &Case) -> (i32, String, String) {
    let bin = env!("CARGO_BIN_EXE_mlsched");
    let mut cmd = match c.mem_kib {
        Some(kib) => {
            let mut sh = Command::new("sh");
            sh.arg("-c")
                .arg(format!("ulimit -v {kib}; exec \"$0\" \"$@\""))
                .arg(bin)
                .args(&c.args);
            sh
        }
        None => {
            let mut b = Command::new(bin);
            b.args(&c.args);
            b
        }
    };
    cmd.current_dir(root())
        .stdin(if c.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn mlsched");
    if let Some(input) = &c.stdin {
        let mut w = child.stdin.take().unwrap();
        let input = input.clone();
        std::thread::spawn(move || {
            let _ = w.write_all(&input);
        });
    }
    let start = Instant::now();
    loop {
        if let Some(_status) = child.try_wait().unwrap() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{}: no answer within 60 s (a hang)", c.name);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("{}: killed by a signal ({:?})", c.name, out.status));
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bundled() -> Vec<(String, Value)> {
    let mut v: Vec<(String, Value)> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (name, v)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Every numeric leaf of `v` reachable through objects and the first element of arrays, as a
/// JSON pointer and the leaf's key (the field name errors mention).
fn numeric_leaves(v: &Value, ptr: String, key: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Number(_) => out.push((ptr, key.to_string())),
        Value::Object(m) => {
            for (k, x) in m {
                numeric_leaves(x, format!("{ptr}/{k}"), k, out);
            }
        }
        Value::Array(a) => {
            if let Some(x) = a.first() {
                numeric_leaves(x, format!("{ptr}/0"), key, out);
            }
        }
        _ => {}
    }
}

/// Scenario mutations: every numeric field of every bundled scenario set to a string and to
/// 1e308, each refused as bad input naming the field.
fn scenario_cases(cases: &mut Vec<Case>) {
    for (name, doc) in bundled() {
        let mut leaves = Vec::new();
        numeric_leaves(&doc, String::new(), "", &mut leaves);
        for (ptr, key) in leaves {
            for (tag, bad) in [("string", Value::from("x")), ("huge", Value::from(1e308))] {
                let mut d = doc.clone();
                *d.pointer_mut(&ptr).unwrap() = bad;
                let f = file(
                    &format!("{name}{}-{tag}.json", ptr.replace('/', "_")),
                    d.to_string().as_bytes(),
                );
                cases.push(case(&format!("{name}{ptr} = {tag}"), &["run", &f], 2, &key));
            }
        }
    }
}

/// A change made to a document.
type Edit = Box<dyn Fn(&mut Value)>;

/// Documents that are not scenarios, or break a rule every kind shares.
fn document_cases(cases: &mut Vec<Case>) {
    let oasis = std::fs::read_to_string(root().join("scenarios/oasis-small.json")).unwrap();
    let mut v: Value = serde_json::from_str(&oasis).unwrap();
    let structural: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty file", b"".to_vec(), "not valid JSON"),
        ("whitespace", b"  \n ".to_vec(), "not valid JSON"),
        (
            "array",
            b"[1,2]".to_vec(),
            "must be a JSON object, got an array",
        ),
        ("null", b"null".to_vec(), "must be a JSON object, got null"),
        (
            "number",
            b"42".to_vec(),
            "must be a JSON object, got a number",
        ),
        (
            "string",
            b"\"oasis\"".to_vec(),
            "must be a JSON object, got a string",
        ),
        (
            "boolean",
            b"true".to_vec(),
            "must be a JSON object, got a boolean",
        ),
        ("no kind", b"{}".to_vec(), "kind"),
        ("kind not a string", br#"{"kind": 5}"#.to_vec(), "kind"),
        (
            "unknown kind",
            br#"{"kind": "nope"}"#.to_vec(),
            "unknown kind `nope`",
        ),
        (
            "truncated",
            oasis.as_bytes()[..oasis.len() / 2].to_vec(),
            "not valid JSON",
        ),
        ("binary", vec![0xff, 0xfe, 0x00, 0x01], "not UTF-8"),
        (
            "trailing garbage",
            format!("{oasis} x").into_bytes(),
            "not valid JSON",
        ),
        (
            "deep nesting",
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
            "got an array",
        ),
        (
            "deep object",
            format!(
                r#"{{"kind":"oasis","x":{}1{}}}"#,
                "[".repeat(5000),
                "]".repeat(5000)
            )
            .into_bytes(),
            "unknown field `x`",
        ),
    ];
    for (name, bytes, frag) in structural {
        let f = file(&format!("doc-{}.json", name.replace(' ', "-")), &bytes);
        cases.push(case(&format!("document: {name}"), &["run", &f], 2, frag));
    }
    // Field-level rules shared by every kind, on the OASiS example.
    let mut edits: Vec<(&str, Edit, &str)> = Vec::new();
    edits.push((
        "unknown field",
        Box::new(|d: &mut Value| {
            d["bogus"] = Value::from(1);
        }),
        "bogus",
    ));
    edits.push((
        "duplicate job id",
        Box::new(|d: &mut Value| {
            let id = d["jobs"][0]["id"].clone();
            d["jobs"][1]["id"] = id;
        }),
        "id",
    ));
    edits.push((
        "overlong id",
        Box::new(|d: &mut Value| {
            d["jobs"][0]["id"] = Value::from("x".repeat(1000));
        }),
        "ID_BYTES_MAX",
    ));
    edits.push((
        "empty id",
        Box::new(|d: &mut Value| {
            d["jobs"][0]["id"] = Value::from("");
        }),
        "id",
    ));
    edits.push((
        "no jobs field",
        Box::new(|d: &mut Value| {
            d.as_object_mut().unwrap().remove("jobs");
        }),
        "jobs",
    ));
    edits.push((
        "jobs not an array",
        Box::new(|d: &mut Value| {
            d["jobs"] = Value::from(3);
        }),
        "jobs",
    ));
    edits.push((
        "negative epochs",
        Box::new(|d: &mut Value| {
            d["jobs"][0]["epochs"] = Value::from(-1);
        }),
        "epochs",
    ));
    edits.push((
        "fractional epochs",
        Box::new(|d: &mut Value| {
            d["jobs"][0]["epochs"] = Value::from(1.5);
        }),
        "epochs",
    ));
    edits.push((
        "arrival past the horizon",
        Box::new(|d: &mut Value| {
            d["jobs"][0]["arrival"] = Value::from(1_000_000);
        }),
        "arrival",
    ));
    for (name, edit, frag) in edits {
        let mut d = v.clone();
        edit(&mut d);
        let f = file(
            &format!("field-{}.json", name.replace(' ', "-")),
            d.to_string().as_bytes(),
        );
        cases.push(case(&format!("oasis: {name}"), &["run", &f], 2, frag));
    }
    // PSO work: each count within its own range, the product over the limit.
    let route = std::fs::read_to_string(root().join("scenarios/route-small.json")).unwrap();
    let mut r: Value = serde_json::from_str(&route).unwrap();
    r["pso"] = serde_json::json!({
        "particles": 10000, "iterations": 100000, "w_max": 0.9, "w_min": 0.4, "c1": 2.0, "c2": 2.0
    });
    let f = file("route-pso-work.json", r.to_string().as_bytes());
    cases.push(case("route: PSO work", &["run", &f], 2, "PSO_WORK_MAX"));
    // An id with terminal escapes and a newline runs, but is printed escaped.
    v["jobs"][0]["id"] = Value::from("evil\u{1b}[31m\nforged row");
    let f = file("escape-id.json", v.to_string().as_bytes());
    cases.push(case(
        "escaped id",
        &["run", &f],
        0,
        "evil\\u{1b}[31m\\nforged row",
    ));
}

/// Bad options of every subcommand: (name, arguments split on spaces, exit code, fragment).
/// `{oasis}`, `{route_small}` and `{same}` stand for a bundled scenario and a scratch file.
fn option_cases(cases: &mut Vec<Case>) {
    let same = tmp().join("same.out").to_string_lossy().into_owned();
    let list: &[(&str, &str, i32, &str)] = &[
        (
            "gen huge jobs",
            "gen oasis --jobs 1000000000",
            2,
            "JOBS_MAX",
        ),
        (
            "gen jobs over the limit",
            "gen oasis --jobs 1048577",
            2,
            "JOBS_MAX",
        ),
        ("gen zero jobs", "gen oasis --jobs 0", 2, "jobs"),
        (
            "gen online huge nodes",
            "gen online --nodes 100000",
            2,
            "SERVERS_MAX",
        ),
        (
            "gen route huge nodes",
            "gen route --nodes 100000",
            2,
            "GRAPH_NODES_MAX",
        ),
        ("gen preempt one node", "gen preempt --nodes 1", 2, "nodes"),
        (
            "gen rounds past the horizon for another kind",
            "gen oasis --rounds-past-horizon",
            2,
            "rounds-past-horizon",
        ),
        (
            "gen rounds past the horizon beyond SLOTS_MAX",
            "gen online --jobs 3 --nodes 3 --slots 200000 --rounds-past-horizon",
            2,
            "rounds_past_horizon",
        ),
        (
            "gen placement too many jobs",
            "gen placement --jobs 65",
            2,
            "PLACEMENT_JOBS_MAX",
        ),
        ("gen unknown kind", "gen nope", 2, "unknown kind"),
        (
            "gen slots on placement",
            "gen placement --slots 10",
            2,
            "slots",
        ),
        (
            "gen slots over the limit",
            "gen oasis --slots 100000000",
            2,
            "SLOTS_MAX",
        ),
        ("gen negative seed", "gen oasis --seed=-1", 2, "seed"),
        (
            "gen missing trace",
            "gen online --trace /nonexistent.csv",
            2,
            "nonexistent",
        ),
        (
            "import comm-ratio inf",
            "import philly --comm-ratio inf",
            2,
            "comm-ratio",
        ),
        (
            "import comm-ratio negative",
            "import philly --comm-ratio=-0.5",
            2,
            "comm-ratio",
        ),
        (
            "import comm-ratio NaN",
            "import philly --comm-ratio NaN",
            2,
            "comm-ratio",
        ),
        (
            "import epochs 0",
            "import philly --kind online --epochs 0",
            2,
            "epochs",
        ),
        (
            "import slot-seconds NaN",
            "import philly --slot-seconds NaN",
            2,
            "slot-seconds",
        ),
        (
            "import slot-seconds negative",
            "import philly --slot-seconds=-1",
            2,
            "slot-seconds",
        ),
        (
            "import target-factor 0",
            "import philly --target-factor 0",
            2,
            "target-factor",
        ),
        (
            "import max-scale 0",
            "import philly --max-scale 0",
            2,
            "max-scale",
        ),
        (
            "import jobs beyond JOBS_MAX",
            "import philly --jobs 1000000000",
            2,
            "JOBS_MAX",
        ),
        (
            "import jobs beyond the trace",
            "import philly --jobs 5000",
            2,
            "the trace has 3794",
        ),
        (
            "import start beyond the trace",
            "import philly --start 1000000000000",
            2,
            "--start is at most",
        ),
        (
            "import servers beyond the limit",
            "import openb --servers 100000",
            2,
            "SERVERS_MAX",
        ),
        (
            "import servers 0",
            "import philly --servers 0",
            2,
            "servers",
        ),
        (
            "import ps-servers 0",
            "import philly --ps-servers 0",
            2,
            "ps-servers",
        ),
        (
            "import servers all without a node list",
            "import philly --servers all",
            2,
            "needs a node list",
        ),
        (
            "import servers words",
            "import philly --servers many",
            2,
            "not a whole number",
        ),
        ("import unknown source", "import nope", 2, "nope"),
        (
            "import unknown kind",
            "import philly --kind route",
            2,
            "kind",
        ),
        (
            "import missing data",
            "import philly --data /nonexistent",
            2,
            "nonexistent",
        ),
        (
            "import more servers than openb has",
            "import openb --servers 5000",
            2,
            "has 1213 GPU nodes",
        ),
        (
            "run unknown policy",
            "run {oasis} --policy nope",
            2,
            "accepted: oasis, fifo",
        ),
        (
            "run baseline on route",
            "run {route_small} --policy drf",
            2,
            "drf",
        ),
        (
            "run json and log on one path",
            "run {oasis} --json {same} --log {same}",
            2,
            "two different files",
        ),
        ("run log to stdout", "run {oasis} --log -", 2, "binary"),
        ("run a directory", "run scenarios", 2, "is a directory"),
        (
            "run a missing file",
            "run /nonexistent.json",
            2,
            "cannot read",
        ),
        (
            "run all on oasis is harmless",
            "run {oasis} --all",
            0,
            "log_hash",
        ),
        (
            "run json to an unwritable path",
            "run {oasis} --json /nonexistent/dir/x.json",
            1,
            "cannot write",
        ),
        (
            "compare duplicate policies",
            "compare {oasis} --policies fifo,fifo",
            2,
            "listed twice",
        ),
        (
            "compare unknown policy",
            "compare {oasis} --policies fifo,nope",
            2,
            "nope",
        ),
        (
            "compare empty policies",
            "compare {oasis} --policies ,",
            2,
            "no policy given",
        ),
        (
            "compare threads 0",
            "compare import:philly --seeds 1..2 --threads 0",
            2,
            "threads",
        ),
        (
            "compare threads beyond runs",
            "compare import:philly --jobs 20 --seeds 1..2 --policies fifo --threads 100000",
            2,
            "at most 2",
        ),
        (
            "compare seeds on a file",
            "compare {oasis} --seeds 1..3",
            2,
            "seeds",
        ),
        (
            "compare bad seeds",
            "compare import:philly --seeds 9..1",
            2,
            "seeds",
        ),
        ("unknown subcommand", "frobnicate", 2, "frobnicate"),
        (
            "replay a scenario",
            "replay {oasis}",
            2,
            "not an mlsched log",
        ),
        (
            "replay a missing file",
            "replay /nonexistent.mlog",
            2,
            "cannot read",
        ),
    ];
    for (name, line, code, frag) in list {
        let line = line
            .replace("{oasis}", "scenarios/oasis-small.json")
            .replace("{route_small}", "scenarios/route-small.json")
            .replace("{same}", &same);
        let args: Vec<&str> = line.split(' ').collect();
        cases.push(case(name, &args, *code, frag));
    }
}

fn log_cases(cases: &mut Vec<Case>) {
    let log = tmp().join("good.mlog");
    let status = Command::new(env!("CARGO_BIN_EXE_mlsched"))
        .current_dir(root())
        .args(["run", "scenarios/online-ps-small.json", "--log"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(status.status.success());
    let good = std::fs::read(&log).unwrap();
    let variants: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", vec![], "not an mlsched log"),
        ("magic only", b"MLSCHLOG".to_vec(), "log"),
        ("truncated by one", good[..good.len() - 1].to_vec(), "log"),
        ("truncated half", good[..good.len() / 2].to_vec(), "log"),
        (
            "json",
            b"{\"kind\":\"oasis\"}".to_vec(),
            "not an mlsched log",
        ),
        (
            "flipped header byte",
            {
                let mut b = good.clone();
                b[9] ^= 0xff;
                b
            },
            "log",
        ),
        (
            "flipped middle byte",
            {
                let mut b = good.clone();
                let m = b.len() / 2;
                b[m] ^= 0x01;
                b
            },
            "log",
        ),
        (
            "flipped last byte",
            {
                let mut b = good.clone();
                let m = b.len() - 1;
                b[m] ^= 0x01;
                b
            },
            "log",
        ),
        (
            "appended bytes",
            {
                let mut b = good.clone();
                b.extend_from_slice(b"xyz");
                b
            },
            "log",
        ),
    ];
    for (name, bytes, frag) in variants {
        let f = file(&format!("log-{}.mlog", name.replace(' ', "-")), &bytes);
        cases.push(case(&format!("log: {name}"), &["replay", &f], 2, frag));
    }
    let mut c = case("log: from stdin", &["replay", "-"], 0, "records identical");
    c.stdin = Some(good);
    cases.push(c);
}

fn trace_cases(cases: &mut Vec<Case>) {
    // A data folder whose Philly table is broken in one way per case.
    let header = "timestamp,duration,num_gpus,gpu_time,cluster";
    let broken: Vec<(&str, String, &str)> = vec![
        (
            "bad header",
            "a,b,c\n2017-10-09 00:00:00,10,1,10,x\n".into(),
            "header",
        ),
        (
            "negative duration",
            format!("{header}\n2017-10-09 00:00:00,-10,1,10,x\n"),
            "duration",
        ),
        (
            "duration not a number",
            format!("{header}\n2017-10-09 00:00:00,ten,1,10,x\n"),
            "duration",
        ),
        (
            "missing columns",
            format!("{header}\n2017-10-09 00:00:00\n"),
            "row 2",
        ),
        ("empty file", String::new(), "header"),
        (
            "bad timestamp",
            format!("{header}\nyesterday,10,1,10,x\n"),
            "timestamp",
        ),
        ("binary", "\u{0}\u{1}\u{2}".into(), "header"),
    ];
    for (name, text, frag) in broken {
        let d = tmp().join(format!("data-{}", name.replace(' ', "-")));
        let p = d.join("philly-via-pollux");
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("philly_jobs_2017-10-09_2017-10-10.csv"), text).unwrap();
        let ds = d.to_string_lossy().into_owned();
        cases.push(case(
            &format!("trace: {name}"),
            &["import", "philly", "--jobs", "1", "--data", &ds],
            2,
            frag,
        ));
    }
}

fn endless_cases(cases: &mut Vec<Case>) {
    for (args, frag) in [
        (vec!["run", "/dev/zero"], "SCENARIO_BYTES_MAX"),
        (vec!["run", "/dev/urandom"], "SCENARIO_BYTES_MAX"),
        (vec!["replay", "/dev/zero"], "not an mlsched log"),
        (vec!["replay", "/dev/urandom"], "not an mlsched log"),
        (vec!["compare", "/dev/zero"], "SCENARIO_BYTES_MAX"),
    ] {
        let mut c = case(&format!("endless: {}", args.join(" ")), &args, 2, frag);
        c.mem_kib = Some(2_000_000);
        cases.push(c);
    }
    // A scenario just over the size limit arrives on standard input.
    let mut c = case(
        "endless: oversized stdin",
        &["run", "-"],
        2,
        "SCENARIO_BYTES_MAX",
    );
    c.stdin = Some(vec![b' '; (256 << 20) + 1]);
    c.mem_kib = Some(2_000_000);
    cases.push(c);
}

#[test]
fn the_adversarial_corpus_gets_clean_typed_errors() {
    let mut cases = Vec::new();
    scenario_cases(&mut cases);
    document_cases(&mut cases);
    option_cases(&mut cases);
    log_cases(&mut cases);
    trace_cases(&mut cases);
    endless_cases(&mut cases);
    let mut failures = Vec::new();
    for c in &cases {
        let (code, out, err) = exec(c);
        let text = if c.code == 0 { &out } else { &err };
        if code != c.code || !text.contains(&c.fragment) || err.contains("panicked") {
            failures.push(format!(
                "{}: exit {code} (want {}), want `{}` in: {}",
                c.name,
                c.code,
                c.fragment,
                text.chars().take(300).collect::<String>()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(tmp());
    assert!(cases.len() >= 200, "only {} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    eprintln!("adversarial corpus: {} cases, all clean", cases.len());
}
