//! The binding-resource check of `mlsched import`: which resource type, if any, limits an
//! imported scenario for most of its run.
//!
//! Rule (docs/import.md): run the kind's `fifo` baseline on the imported scenario (cheap: no
//! search, one pass over the slots) and, in every busy slot (slots 0 up to the last slot any
//! task runs), find the (server pool, resource) with the highest use / capacity; it binds in
//! that slot if that is at least 90 %. A resource that binds in more than half the busy slots
//! is reported: the results on this scenario then mostly measure that resource, which is worth
//! knowing before comparing policies on it (for example PS bandwidth with too few PS servers).
use mlsched_kernel::log::HashSink;
use mlsched_scenario::doc::ScenarioDoc;
use mlsched_scenario::run::{run_doc, RunOptions};

/// The policy the check runs.
pub const CHECK_POLICY: &str = "fifo";

/// What the check found.
#[derive(Clone, Debug, PartialEq)]
pub enum Binding {
    /// (pool and resource, fraction of the busy slots it binds in) for each resource binding
    /// most of the run; empty when none does.
    Found(Vec<(String, f64)>),
    /// The check could not run (why).
    NotRun(String),
}

/// Runs the check on an imported scenario document (kind "oasis" or "online").
pub fn check(doc: &ScenarioDoc) -> Binding {
    let opts = RunOptions {
        policy: Some(CHECK_POLICY.to_string()),
        all_categories: false,
    };
    let res = match run_doc(doc, &opts, &mut HashSink::new()) {
        Ok(r) => r,
        Err(e) => return Binding::NotRun(e.to_string()),
    };
    let Some(u) = crate::kinds::usage(doc, &res) else {
        return Binding::NotRun(format!("kind {} has no server pools", doc.kind()));
    };
    Binding::Found(u.binding_most())
}

impl core::fmt::Display for Binding {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Binding::Found(v) => {
                for (i, (name, frac)) in v.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(
                        f,
                        "warning: {name} is the binding resource in {:.0}% of the busy slots of \
                         a {CHECK_POLICY} run (the most used resource, at >= 90% of capacity): \
                         results on this scenario mostly measure it; add servers (--servers, \
                         --ps-servers) or bandwidth if that is not what you want",
                        frac * 100.0
                    )?;
                }
                Ok(())
            }
            Binding::NotRun(why) => write!(f, "note: binding-resource check not run: {why}"),
        }
    }
}
