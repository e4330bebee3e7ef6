//! The paper-literal references must compute every formula themselves: a reference module that
//! reaches into its algorithm's fast path (its formulas, its market, its scheduler) would agree
//! with a wrong fast path. This scans each independent reference module's source text (comments
//! removed) and fails if it names a forbidden module path, in a `use` or inline.
//!
//! A reference may use the model types (`crate::model::*`), plain numeric helpers
//! (`crate::num`), `crate::Slot` and `alloc`. Listed here: every independent reference, each
//! with the paths it must not name. For Zhou et al. that is `kernel/src/online/independent.rs`;
//! the older `kernel/src/online/reference.rs` is not listed on purpose: it swaps only the
//! per-job search and shares the fast path's driver, `Ctx`, `Window` and `common.rs` (it checks
//! the fast search, `independent.rs` checks everything).
use std::path::Path;

/// (reference module, forbidden path prefixes).
const REFERENCES: &[(&str, &[&str])] = &[
    (
        "kernel/src/preempt/reference.rs",
        &[
            // Every sibling module of the fast path (plan = eq. 5 and weights, dispatch, ps,
            // snapshot) and the scheduler itself.
            "super::",
            "crate::preempt",
            "mlsched_kernel::preempt",
            // Shared formula code of the other algorithms is not a model type either.
            "crate::price",
            "crate::resources",
            "crate::order",
        ],
    ),
    (
        "kernel/src/oasis/reference.rs",
        &[
            // market (usage, eq. 22 prices, JobParams: m_i, ceil(d m_i), ceil(y b / B), fits),
            // fast (the DP), scheduler, and the shared price code (oasis_price, oasis_bounds).
            "super::",
            "crate::oasis",
            "mlsched_kernel::oasis",
            "crate::price",
            "crate::order",
            "crate::ledger",
        ],
    ),
    (
        "kernel/src/placement/reference.rs",
        &[
            // instance (rho, classes), market (eqs. 19-22), exact, greedy, has/jps, scheduler;
            // the fast market's per-worker instance lives in `placement/per_worker.rs`.
            "super::",
            "crate::placement",
            "mlsched_kernel::placement",
            "crate::price",
            "crate::resources",
            "crate::order",
        ],
    ),
    (
        "kernel/src/route/reference.rs",
        &[
            // graph (loads), cost (eqs. 4-5, 11), dijkstra, aggregate (Algorithm 2), commit,
            // csrp, pso, tables, scheduler, outcome: every sibling module.
            "super::",
            "crate::route",
            "mlsched_kernel::route",
            "crate::price",
            "crate::resources",
            "crate::order",
        ],
    ),
    (
        "kernel/src/online/independent.rs",
        &[
            // Every sibling module of the fast path: sched (the A_online / A_dual driver and
            // A_maxweight), common (rho of eqs. 1/14, fits, quantised unit prices, durations),
            // usage (beta), windows / fast / ps / ring (the search), reference (the literal
            // search on the shared `Ctx`), and the crate's driver and scheduler API.
            "super::",
            "crate::online",
            "mlsched_kernel::online",
            "crate::price",
            "crate::resources",
            "crate::order",
            "crate::ledger",
            "crate::rolling",
            "crate::driver",
            "crate::api",
            "crate::baseline",
        ],
    ),
];

/// `text` without `//` comments (line and doc comments; string literals here hold no `//`).
fn code_only(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The forbidden paths `code` names: the prefix itself, or inside a `use a::{b, c}` group.
fn violations(code: &str, forbidden: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    // Collapse whitespace so `use super::{\n plan, ...}` and `super :: plan` are caught.
    let flat: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    let tight = flat.replace(" :: ", "::").replace(":: ", "::");
    for f in forbidden {
        if let Some(i) = tight.find(f) {
            let end = (i + 80).min(tight.len());
            out.push(format!("`{f}` in `{}`", &tight[i..end]));
        }
    }
    out
}

#[test]
fn references_use_no_fast_path_code() {
    let root = mlsched_tests::repo_root();
    let mut bad = Vec::new();
    for (file, forbidden) in REFERENCES {
        let text =
            std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        for v in violations(&code_only(&text), forbidden) {
            bad.push(format!("{file}: {v}"));
        }
    }
    assert!(
        bad.is_empty(),
        "references use fast-path code:\n{}",
        bad.join("\n")
    );
}

/// The scan itself catches the forms a dependency takes.
#[test]
fn the_scan_catches_uses() {
    let f: &[&str] = &["super::", "crate::preempt"];
    for src in [
        "use super::plan::{eq5, weight};",
        "use super::{\n    plan::eq5,\n};",
        "let q = super :: plan::eq5(1, 2.0, 0, 1.0, 0);",
        "use crate::preempt::plan::QValue;",
    ] {
        assert!(!violations(&code_only(src), f).is_empty(), "{src}");
    }
    for src in [
        "use crate::model::preempt::PreemptJob;",
        "// use super::plan::eq5;",
        "/// see `super::plan`",
    ] {
        assert!(violations(&code_only(src), f).is_empty(), "{src}");
    }
    assert!(Path::new(&mlsched_tests::repo_root().join(REFERENCES[0].0)).is_file());
}
