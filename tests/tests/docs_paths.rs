//! Documentation must not rot: every repository path the README, the pages of `docs/` and
//! `data/README.md` name exists, and nothing in the repository points outside it.
use std::path::{Path, PathBuf};
use std::process::Command;

/// A backticked chunk that names a repository path: ends with `/` or a known extension (or is
/// `.ci/run`), has no spaces, no wildcard, is not absolute and does not climb out with `../`.
fn looks_like_path(c: &str) -> bool {
    const ENDS: [&str; 7] = ["/", ".rs", ".sh", ".json", ".csv", ".md", ".py"];
    (ENDS.iter().any(|e| c.ends_with(e)) || c == ".ci/run")
        && !c.contains(' ')
        && !c.starts_with("../")
        && !c.starts_with('/')
        && !c.contains('*')
        && c.len() > 1
}

/// Checks every path named in `doc` (relative to the repository root, or to the document's own
/// folder for pages that name their neighbours); returns how many were checked.
fn check_doc(root: &Path, doc: &Path) -> usize {
    let text = std::fs::read_to_string(doc).unwrap();
    let here = doc.parent().unwrap();
    let mut checked = 0;
    for chunk in text.split('`') {
        let c = chunk.trim();
        if looks_like_path(c) {
            assert!(
                root.join(c).exists() || here.join(c).exists(),
                "{} names `{c}`, which does not exist (relative to the repository root or to {})",
                doc.display(),
                here.display()
            );
            checked += 1;
        }
    }
    checked
}

/// README.md, every `docs/*.md` and `data/README.md`.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs = vec![root.join("README.md"), root.join("data/README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    docs.extend(pages);
    docs
}

#[test]
fn readme_paths_exist() {
    let root = mlsched_tests::repo_root();
    let checked = check_doc(&root, &root.join("README.md"));
    assert!(checked >= 8, "only {checked} paths found in README");
}

#[test]
fn docs_and_data_readme_paths_exist() {
    let root = mlsched_tests::repo_root();
    let docs = documents(&root);
    assert!(
        docs.len() >= 9,
        "expected README.md, data/README.md and the docs/ pages"
    );
    for doc in &docs {
        assert!(doc.is_file(), "{} is missing", doc.display());
        let n = check_doc(&root, doc);
        assert!(n >= 1, "{} names no repository path", doc.display());
    }
}

/// The repository's text files: `git ls-files` when git knows the tree, else a walk that skips
/// build and dependency folders.
fn repository_files(root: &Path) -> Vec<PathBuf> {
    let listed = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z"])
        .output();
    if let Ok(o) = listed {
        if o.status.success() && !o.stdout.is_empty() {
            return o
                .stdout
                .split(|&b| b == 0)
                .filter(|p| !p.is_empty())
                .map(|p| root.join(String::from_utf8_lossy(p).as_ref()))
                .collect();
        }
    }
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                if !matches!(name.as_str(), "target" | "node_modules" | ".git") {
                    stack.push(p);
                }
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn nothing_points_outside_the_repository() {
    // Built from two pieces so that this file does not match itself.
    let needle = format!("{}{}", "..", "/shared");
    let root = mlsched_tests::repo_root();
    let files = repository_files(&root);
    assert!(files.len() > 50, "only {} files found", files.len());
    let mut offenders = Vec::new();
    for f in &files {
        // Files listed by git but deleted in the working tree are not our concern here.
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        if bytes.contains(&0) {
            continue; // binary
        }
        let text = String::from_utf8_lossy(&bytes);
        for (i, line) in text.lines().enumerate() {
            if line.contains(&needle) {
                offenders.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "these lines name a folder outside the repository ({needle}); the data is in data/ and \
         the semantics in docs/:\n{}",
        offenders.join("\n")
    );
}
