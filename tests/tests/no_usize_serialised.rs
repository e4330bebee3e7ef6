//! "No `usize` in anything serialised" (issue 10): `usize` is 32 bits on wasm32 and 64 natively,
//! so a decision record or a snapshot body carrying one is target-dependent. This scans every
//! kernel type that derives `Serialize` (records, models, scheduler states, snapshot bodies)
//! and fails on a `usize` / `isize` in one of its fields, unless the field is skipped or goes
//! through the `u32` adapter `crate::snapshot::usize_as_u32`.
use std::path::{Path, PathBuf};

/// Attributes that keep a `usize` field off the wire as such (the adapter by any path).
const ALLOWED: [&str; 3] = [
    "usize_as_u32\")]",
    "serde(skip)",
    "serde(skip_serializing, skip_deserializing)",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn has_word(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + word.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

/// `(line number, line)` of every field of a `Serialize` type in `src` that is a bare
/// `usize` / `isize` (or contains one).
fn offenders(src: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let derive =
            lines[i].trim_start().starts_with("#[derive(") && lines[i].contains("Serialize");
        if !derive {
            i += 1;
            continue;
        }
        // The item: from the derive to where its braces / parentheses close.
        let mut depth = 0i32;
        let mut opened = false;
        let mut attrs: Vec<&str> = Vec::new();
        // Skip the item's own (possibly multi-line) attributes and docs: start at its keyword.
        let item = |l: &str| {
            let t = l.trim();
            !t.starts_with("//") && (has_word(t, "struct") || has_word(t, "enum"))
        };
        let Some(start) = (i + 1..lines.len()).find(|&k| item(lines[k])) else {
            break;
        };
        let mut j = start;
        while j < lines.len() {
            let code = lines[j].split("//").next().unwrap_or("");
            let t = code.trim();
            if t.starts_with("#[") {
                attrs.push(t);
            } else if !t.is_empty() {
                // Fields: the whole line inside the body; on the item line (a tuple struct, or
                // `struct A { n: usize }`) only what follows the first bracket, past generics.
                let fields = if opened {
                    t
                } else {
                    t.find(['{', '(']).map_or("", |k| &t[k..])
                };
                if has_word(fields, "usize") || has_word(fields, "isize") {
                    let ok = attrs.iter().any(|a| ALLOWED.iter().any(|w| a.contains(w)));
                    if !ok {
                        out.push((j + 1, lines[j].trim().to_string()));
                    }
                }
                let before = depth;
                for c in t.chars() {
                    match c {
                        '{' | '(' => depth += 1,
                        '}' | ')' => depth -= 1,
                        _ => {}
                    }
                }
                opened |= depth > before || t.ends_with(';');
                attrs.clear();
                if opened && depth <= 0 {
                    break;
                }
            }
            j += 1;
        }
        i = j + 1;
    }
    out
}

#[test]
fn the_scan_finds_a_usize_field() {
    let src = "#[derive(Clone, serde::Serialize)]\nstruct A<const N: usize> {\n    /// doc\n    n: usize,\n    ok: u32,\n    #[serde(with = \"crate::snapshot::usize_as_u32\")]\n    m: usize,\n}\n#[derive(Serialize)]\n#[serde(\n    bound(x = \"(\")\n)]\nstruct B(Vec<usize>);\n#[derive(Serialize)]\nenum C {\n    X { k: (u32, isize) },\n}\n";
    let found: Vec<usize> = offenders(src).into_iter().map(|(n, _)| n).collect();
    assert_eq!(found, vec![4, 13, 16]);
}

#[test]
fn no_serialised_kernel_type_has_a_usize_field() {
    let mut files = Vec::new();
    rust_files(&mlsched_tests::repo_root().join("kernel/src"), &mut files);
    assert!(files.len() > 20, "kernel sources not found");
    let mut bad = Vec::new();
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        for (n, line) in offenders(&src) {
            bad.push(format!("{}:{n}: {line}", f.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "usize/isize in serialised kernel types (use u32/u64, or \
         #[serde(with = \"crate::snapshot::usize_as_u32\")]):\n{}",
        bad.join("\n")
    );
}
