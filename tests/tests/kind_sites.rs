//! Issue 44: outside the kinds' folders (`scenario/src/kinds/`) and the one place that turns a
//! document into a kind (`doc::parse` and the `dispatch!` / `dispatch_result!` / `by_kind_name!`
//! macros), no code branches on the scenario kind. A new kind is then a folder plus one arm in
//! each of those, and every surface (lab, CLI, wasm, C, Python, Slurm, service) reaches it
//! through the `Kind` trait (`docs/architecture.md`).
//!
//! This scans every non-test `.rs` file of the workspace (comments and everything after a
//! `#[cfg(test)]` line removed) for the shapes a branch on the kind takes: a kind's name as a
//! match arm (`"oasis" =>`, `"oasis" |`), compared (`== "oasis"`, `"oasis" !=`, ...), or a
//! document or result enum's variant named (`ScenarioDoc::Oasis`, `ResultDoc::Oasis`).
use std::path::{Path, PathBuf};

/// The scenario kinds' names and their enum variants.
const KINDS: &[(&str, &str)] = &[
    ("oasis", "Oasis"),
    ("online", "Online"),
    ("placement", "Placement"),
    ("preempt", "Preempt"),
    ("route", "Route"),
];

/// Files (or folders, ending in `/`) where a branch on the kind belongs.
const ALLOWED: &[&str] = &[
    "scenario/src/kinds/",
    // `dispatch!`, `dispatch_result!` and `by_kind_name!`.
    "scenario/src/engine/mod.rs",
    // `doc::parse`: the kind string to the document type, once.
    "scenario/src/doc/mod.rs",
];

/// Folders never scanned: build output, dependencies, and test code (tests may name kinds).
const SKIPPED: &[&str] = &["target", "node_modules", ".git", "tests", "pkg"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if path.is_dir() {
            if !SKIPPED.contains(&name.as_str()) && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The code of a file: each line without its `//` comment, up to a `#[cfg(test)]` line.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        lines.push((i + 1, code.to_string()));
    }
    lines
}

/// The shapes of a branch on kind `name` (`variant` its enum variant) found in `line`.
fn branches(line: &str, name: &str, variant: &str) -> bool {
    let q = format!("\"{name}\"");
    let shapes = [
        format!("{q} =>"),
        format!("{q} |"),
        format!("| {q}"),
        format!("== {q}"),
        format!("!= {q}"),
        format!("{q} =="),
        format!("{q} !="),
        format!("ScenarioDoc::{variant}"),
        format!("ResultDoc::{variant}"),
    ];
    shapes.iter().any(|s| line.contains(s.as_str()))
}

#[test]
fn no_branch_on_the_kind_outside_its_folders() {
    let root = workspace();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(
        files.len() > 100,
        "found only {} .rs files under {}",
        files.len(),
        root.display()
    );
    let mut found = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(&root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        if ALLOWED.iter().any(|a| rel.starts_with(a)) {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("read a source file");
        for (n, line) in code_lines(&text) {
            if KINDS.iter().any(|(k, v)| branches(&line, k, v)) {
                found.push(format!("{rel}:{n}: {}", line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} branch(es) on the scenario kind outside scenario/src/kinds/ and the dispatch \
         (use the kind's `Kind` / `LabKind` / `SimKind` trait through `dispatch!` or \
         `by_kind_name!` instead):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_a_branch() {
    assert!(branches(r#"        "oasis" => 1,"#, "oasis", "Oasis"));
    assert!(branches(r#"if kind == "route" {"#, "route", "Route"));
    assert!(branches(r#"ScenarioDoc::Preempt(x)"#, "preempt", "Preempt"));
    assert!(!branches(r#"let name = "oasis";"#, "oasis", "Oasis"));
    let lines = code_lines("a // \"oasis\" =>\n#[cfg(test)]\n\"oasis\" => 1");
    assert_eq!(lines, vec![(1, "a ".to_string())]);
}
